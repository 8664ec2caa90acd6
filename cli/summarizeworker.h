#pragma once
// Summarizes trace files in a worker child process, one after the other (issue 40). The worker is
// forked once, not once per file: a forked child pays its fresh heap's page faults on every file
// (a quarter of the CPU of a 2 MB rank), while a worker reuses its memory. A file that crashes
// the worker (or exhausts its memory) still fails alone: it is named with the signal and a new
// worker goes on with the files after it. The worker starts before MPI_Init, so MPI's start-up
// (a third of a second of waiting) overlaps the summarizing, and it never forks an MPI process.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ks::cli {

// The files to summarize in order, each taken by whoever claims it first. With a claims folder
// (shared by the processes of one job) a file is claimed by creating FOLDER/INDEX exclusively,
// so the processes that finish early take more files; without one every file is taken.
class FileQueue {
public:
    explicit FileQueue(std::vector<std::string> files, std::string claimsFolder = {});

    // The index of the next file claimed, or nullopt when none is left.
    std::optional<std::size_t> claimNext();
    void skipTo(std::size_t index);
    const std::string& file(std::size_t index) const { return m_files[index]; }

private:
    std::vector<std::string> m_files;
    std::string m_claims;
    std::size_t m_next = 0;
};

// The line "F FILE" that says a file was dealt with (summarized, or failed and named): a file
// claimed by a worker that died before beginning it has none, and is found missing by it.
inline constexpr const char* kFileDealtWith = "F ";

class SummarizeWorker {
public:
    // One file's result as text lines ("F file", "W path", "E message", "T phase wall cpu"); never throws.
    using Summarize = std::function<std::string(const std::string& file)>;

    SummarizeWorker(FileQueue queue, Summarize summarize);
    // Forks the worker, which summarizes the queue's files; where there is no fork(), finish() does.
    void start();
    // Waits for the worker; returns the files' lines, and "E FILE: the summarizer (process PID on
    // HOST) died of signal N (name)" with "F FILE" for a file the worker died on.
    std::string finish();

private:
    FileQueue m_queue;
    Summarize m_summarize;
    int m_pipe = -1; // the read end of the worker's pipe
    int m_worker = -1; // its process id

    enum class Ended { Done, Died, WithoutWork };
    void fork();
    // Reads the worker's lines and waits for it. Died: killed, within a file (named in `lines`)
    // or between files; WithoutWork: it ended abnormally before beginning a file.
    Ended collect(std::string& lines);
};

} // namespace ks::cli
