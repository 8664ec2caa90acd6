#include "cli/summarizeworker.h"
#include "cli/summarizetimings.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <csignal>
#include <sys/prctl.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#define KS_WORKER_PROCESS 1
#endif

namespace ks::cli {

FileQueue::FileQueue(std::vector<std::string> files, std::string claimsFolder)
    : m_files(std::move(files))
    , m_claims(std::move(claimsFolder))
{
}

std::optional<std::size_t> FileQueue::claimNext()
{
    while (m_next < m_files.size()) {
        const std::size_t index = m_next++;
        if (m_claims.empty())
            return index;
#ifdef KS_WORKER_PROCESS
        const std::string claim = m_claims + "/" + std::to_string(index);
        const int fd = open(claim.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd >= 0) {
            close(fd);
            return index;
        }
        if (errno != EEXIST) { // the folder is gone or unwritable: take the file rather than lose it
            return index;
        }
#else
        return index;
#endif
    }
    return std::nullopt;
}

void FileQueue::skipTo(std::size_t index) { m_next = std::max(m_next, index); }

SummarizeWorker::SummarizeWorker(FileQueue queue, Summarize summarize)
    : m_queue(std::move(queue))
    , m_summarize(std::move(summarize))
{
}

void SummarizeWorker::start()
{
#ifdef KS_WORKER_PROCESS
    fork();
#endif
}

#ifdef KS_WORKER_PROCESS
namespace {

void writeAll(int fd, const std::string& text)
{
    for (std::size_t done = 0; done < text.size();) {
        const auto n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += static_cast<std::size_t>(n);
    }
}

// The worker loads one trace after the other: glibc would give each one's large blocks back to
// the system and take fresh (zeroed, faulted-in) pages for the next; kept, they are reused
// (17 % less CPU on 2 MB ranks, half the system time). Blocks above 32 MB are still mapped apart.
void keepFreedMemory()
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

// What the worker did and cost besides time, for --timings: a cost per file that grows with the
// processes running at once shows here (page faults, being descheduled: docs/performance.md).
// The first file's faults (the heap growing, the pages shared with the parent copied) are
// counted apart: the later files' are the cost per file.
class WorkCounter {
public:
    void fileDone()
    {
        if (++m_files == 1)
            getrusage(RUSAGE_SELF, &m_afterFirst); // a forked child's counts start from zero
    }
    void countInto(SummarizeTimings& times) const
    {
        rusage end{};
        getrusage(RUSAGE_SELF, &end);
        const rusage& afterFirst = m_files > 0 ? m_afterFirst : end; // no file: all of it was start-up
        times.count("worker files", double(m_files));
        times.count("worker first-file minor faults", double(afterFirst.ru_minflt));
        times.count("worker later-file minor faults", double(end.ru_minflt - afterFirst.ru_minflt));
        times.count("worker major faults", double(end.ru_majflt));
        times.count("worker voluntary switches", double(end.ru_nvcsw));
        times.count("worker involuntary switches", double(end.ru_nivcsw));
        times.count("peak worker RSS MB", double(end.ru_maxrss) / 1024.0); // kB on Linux
    }

private:
    std::size_t m_files = 0;
    rusage m_afterFirst{};
};

// The pipe's ends close on exec: a program the summarizer might start never holds the worker's
// pipe open (the parent would wait for its end, not the worker's).
bool openPipe(int ends[2])
{
#ifdef __linux__
    return pipe2(ends, O_CLOEXEC) == 0;
#else
    if (pipe(ends) != 0)
        return false;
    fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    fcntl(ends[1], F_SETFD, FD_CLOEXEC);
    return true;
#endif
}

// A launcher that ignores SIGCHLD passes that on through exec: the kernel would then reap the
// worker itself, and waitpid() could not tell how it ended.
void letWorkersBeWaitedFor()
{
    struct sigaction action { };
    if (sigaction(SIGCHLD, nullptr, &action) == 0 && action.sa_handler == SIG_IGN)
        signal(SIGCHLD, SIG_DFL);
}

// Where the worker ran, for a message naming its death: "process PID on HOST".
std::string workerName(int pid)
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    return "process " + std::to_string(pid) + (host[0] ? std::string(" on ") + host : std::string());
}

// The worker's lines besides the files' own: "S index" before a file, "D" after its lines (a
// file begun and not done when the worker died is the one it died on), and "Q" once it is
// through the queue (the proof of a worker's end where its status cannot be had).
constexpr const char* kQueueDone = "Q\n";

} // namespace

void SummarizeWorker::fork()
{
    int ends[2];
    if (!openPipe(ends))
        return;
    letWorkersBeWaitedFor();
    std::fflush(stdout);
    std::fflush(stderr);
    [[maybe_unused]] const pid_t parent = getpid();
    const pid_t child = ::fork();
    if (child < 0) {
        close(ends[0]);
        close(ends[1]);
        return;
    }
    if (child == 0) { // _exit: no destructors for the last trace, and none of the parent's atexit handlers (MPI's)
        close(ends[0]);
#ifdef __linux__
        // A process that mpirun kills (a job aborted) takes its worker along, not leaving it summarizing.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
#endif
        keepFreedMemory();
        SummarizeTimings times;
        const TimePoint start = TimePoint::now();
        WorkCounter counter;
        while (const auto index = m_queue.claimNext()) {
            writeAll(ends[1], "S " + std::to_string(*index) + '\n');
            writeAll(ends[1], m_summarize(m_queue.file(*index)) + "D\n");
            counter.fileDone();
        }
        times.add("files/worker", start);
        counter.countInto(times);
        writeAll(ends[1], times.encode("T ") + kQueueDone);
        std::fflush(stdout);
        _exit(0);
    }
    close(ends[1]);
    m_pipe = ends[0];
    m_worker = child;
}

SummarizeWorker::Ended SummarizeWorker::collect(std::string& lines)
{
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = read(m_pipe, buffer, sizeof buffer)) != 0;) {
        if (n > 0)
            text.append(buffer, static_cast<std::size_t>(n));
        else if (errno != EINTR)
            break;
    }
    close(m_pipe);
    m_pipe = -1;
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(m_worker, &status, 0)) < 0 && errno == EINTR) { }
    const int waitError = errno;
    const std::string worker = workerName(m_worker);
    m_worker = -1;
    constexpr std::size_t kNone = std::size_t(-1);
    std::size_t unfinished = kNone, begun = kNone; // the file begun and not done; the last begun
    bool throughTheQueue = false;
    for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        if (text.compare(start, 2, "S ") == 0)
            unfinished = begun = std::strtoull(text.c_str() + start + 2, nullptr, 10);
        else if (text.compare(start, 2, "D\n") == 0)
            unfinished = kNone;
        else if (text.compare(start, 2, kQueueDone) == 0)
            throughTheQueue = true;
        else // a line cut short by the worker's death (no newline) is left out
            lines.append(text, start, end + 1 - start);
    }
    if (waited < 0 ? throughTheQueue : WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return Ended::Done;
    if (begun != kNone)
        m_queue.skipTo(begun + 1);
    if (unfinished == kNone) // killed between files: the next worker goes on; none begun: no worker can start
        return begun == kNone ? Ended::WithoutWork : Ended::Died;
    const std::string& file = m_queue.file(unfinished);
    std::string how;
    if (waited < 0)
        how = std::string("ended, how is unknown (waitpid: ") + std::strerror(waitError) + ")";
    else if (WIFSIGNALED(status))
        how = "died of signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    else
        how = "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    lines += "E " + file + ": the summarizer (" + worker + ") " + how + "\n" + kFileDealtWith + file + "\n";
    return Ended::Died;
}
#endif

std::string SummarizeWorker::finish()
{
    std::string lines;
#ifdef KS_WORKER_PROCESS
    while (m_worker > 0) {
        const Ended ended = collect(lines);
        if (ended == Ended::Done)
            return lines;
        if (ended == Ended::Died)
            fork(); // a new worker for the files after the one that killed the last
    }
#endif
    // No worker (no fork(), or it could not start or do anything): summarize here.
    while (const auto index = m_queue.claimNext())
        lines += m_summarize(m_queue.file(*index));
    return lines;
}

} // namespace ks::cli
