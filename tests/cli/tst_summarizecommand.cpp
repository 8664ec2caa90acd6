// kinetoscope-cli summarize, and ranks on a folder of summaries: the cross-rank result from
// summaries alone equals the one from the full traces (per-rank table, every collective, the
// straggler verdict) on the DDP and straggler fixtures and a merged collected file; summaries
// are small; a corrupt summary or one of another version is named and the job is analysed
// without it; the MPI path under mpirun where this build has it; a summarizer or an MPI process
// killed while summarizing leaves the others' summaries written and is named.
#include "bench/tiler/tracetiler.h"
#include "clirun.h"
#include "killerpipe.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <zlib.h>

class TestSummarizeCommand : public QObject {
    Q_OBJECT
private:
    static std::string data(const char* name) { return std::string(KS_TEST_DATA "/") + name; }

    static int run(const std::string& program, const std::vector<std::string>& args, std::string* out = nullptr,
                   std::string* err = nullptr)
    {
        return kstest::runProgram(program, args, out, err);
    }
    static int cli(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    // `mpirun -n 2 --oversubscribe kinetoscope-cli summarize --mpi -o OUT FILES`; not `ran` (the
    // test skips with kNoMpi) where this machine has no mpirun or this build no MPI.
    struct MpiRun {
        bool ran = false;
        int status = -1;
        std::string stdoutText, stderrText;
    };
    static constexpr const char* kNoMpi = "no mpirun (openmpi-bin) here, or this build has no MPI (libopenmpi-dev)";
    static MpiRun summarizeWithMpi(const std::string& out, const std::vector<std::string>& files,
                                   const std::vector<std::string>& options = {})
    {
        MpiRun mpi;
        const std::string mpirun = kstest::findExecutable("mpirun");
        if (mpirun.empty())
            return mpi;
        mpi.status = run(mpirun,
                         kstest::concat(kstest::concat({"-n", "2", "--oversubscribe", "--allow-run-as-root", KS_CLI,
                                                        "summarize", "--mpi", "-o", out},
                                                       options),
                                        files),
                         &mpi.stdoutText, &mpi.stderrText);
        mpi.ran = !(mpi.status == 2 && kstest::contains(mpi.stderrText, "no MPI support"));
        return mpi;
    }

    // The file's summarizer was killed (by the pipe posing as the file), the run exited with
    // status 1, and stderr names the file, the process and the signal.
    static bool theKilledSummarizerIsNamed(kstest::KillerPipe& killer, int status, const std::string& stderrText)
    {
        killer.join();
        const std::string named = killer.path() + ": the summarizer (process " + std::to_string(killer.killed());
        const bool isNamed = killer.killed() > 0 && status == 1 && kstest::contains(stderrText, named)
            && kstest::contains(stderrText, "died of signal 9 (Killed)");
        if (!isNamed)
            std::fprintf(stderr, "killed %d, status %d; stderr: %s\n", int(killer.killed()), status,
                         stderrText.c_str());
        return isNamed;
    }

    static nlohmann::json readJson(const std::string& path)
    {
        bool ok = false;
        const std::string text = kstest::readFile(path, &ok);
        if (!ok)
            return {};
        return nlohmann::json::parse(text, nullptr, false);
    }

    static nlohmann::json ranksJson(const std::vector<std::string>& inputs)
    {
        return kstest::runCliJson(kstest::concat({"ranks", "--json"}, inputs));
    }

    static std::uint64_t inflatedSize(const std::string& path)
    {
        gzFile file = gzopen(path.c_str(), "rb");
        std::uint64_t total = 0;
        char buffer[1 << 16];
        for (int n; file && (n = gzread(file, buffer, sizeof buffer)) > 0;)
            total += static_cast<std::uint64_t>(n);
        if (file)
            gzclose(file);
        return total;
    }

    // Everything the cross-rank analysis says, without what names where it came from.
    static void compareReports(const nlohmann::json& full, const nlohmann::json& fromSummaries)
    {
        QCOMPARE(fromSummaries["ranks"].size(), full["ranks"].size());
        for (std::size_t r = 0; r < full["ranks"].size(); ++r) {
            const auto& a = full["ranks"][r];
            const auto& b = fromSummaries["ranks"][r];
            for (const char* key :
                 {"rank", "world_size", "steps", "step_time_us", "kernel_time_us", "collective_time_us",
                  "collective_wait_us", "idle_time_us", "wait_caused_us", "last_arrivals", "label"})
                QVERIFY2(a[key] == b[key], key);
        }
        QVERIFY(fromSummaries["collectives"] == full["collectives"]);
        QVERIFY(fromSummaries["steps"] == full["steps"]);
        auto verdict = [](nlohmann::json s) {
            s.erase("verdict"); // same words, but compared whole below
            return s;
        };
        QVERIFY(verdict(fromSummaries["straggler"]) == verdict(full["straggler"]));
        QVERIFY2(fromSummaries["straggler"]["verdict"] == full["straggler"]["verdict"],
                 fromSummaries["straggler"]["verdict"].dump().c_str());
    }

private Q_SLOTS:
    void summariesGiveTheFullResult_data()
    {
        QTest::addColumn<std::vector<std::string>>("files");
        QTest::newRow("ddp") << std::vector<std::string>{data("ddp_rank0.pt.trace.json.gz"),
                                                         data("ddp_rank1.pt.trace.json.gz")};
        QTest::newRow("straggler") << std::vector<std::string>{data("straggler_rank1.pt.trace.json.gz"),
                                                               data("straggler_rank0.pt.trace.json.gz")};
        QTest::newRow("merged nccl") << std::vector<std::string>{data("collected_nccl_merged.pt.trace.json.gz")};
    }
    void summariesGiveTheFullResult()
    {
        QFETCH(std::vector<std::string>, files);
        kstest::TempDir out;
        std::string stdoutText, stderrText;
        QCOMPARE(cli(kstest::concat({"summarize", "-o", out.path()}, files), &stdoutText, &stderrText), 0);
        std::vector<std::string> summaries = kstest::fileNames(out.path());
        std::erase_if(summaries, [](const std::string& f) { return !f.ends_with(".summary.json"); });
        QVERIFY2(summaries.size() >= files.size(), stderrText.c_str());
        const auto full = ranksJson(files);
        const auto fromSummaries = ranksJson({out.path()});
        QVERIFY(!full.empty());
        QVERIFY(!fromSummaries.empty());
        QVERIFY(!full["collectives"].empty());
        compareReports(full, fromSummaries);
    }

    void straggledRankIsNamedFromSummaries()
    {
        kstest::TempDir out;
        QCOMPARE(cli({"summarize", "-o", out.path(), data("straggler_rank0.pt.trace.json.gz"),
                      data("straggler_rank1.pt.trace.json.gz")}),
                 0);
        const auto j = ranksJson({out.path()});
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(j["straggler"]["verdict"].get<std::string>().starts_with("rank 1 is the straggler"));
    }

    // Every summary of every fixture trace is at most 1 % of its trace's JSON, except where the
    // summary's core (identity, totals: about 0.7 kB) alone is more: square (18 kB of JSON) keeps
    // only that. The view's parts are left out, least useful first, to keep to the bound.
    void summariesAreSmall()
    {
        namespace fs = std::filesystem;
        kstest::TempDir out;
        const std::string suffix = ".pt.trace.json.gz";
        std::vector<std::string> stems;
        for (const auto& entry : fs::directory_iterator(KS_TEST_DATA)) {
            const std::string name = entry.path().filename().string();
            if (name.size() > suffix.size() && name.ends_with(suffix))
                stems.push_back(name.substr(0, name.size() - suffix.size()));
        }
        std::sort(stems.begin(), stems.end());
        QVERIFY(stems.size() >= 15);
        std::vector<std::string> args{"summarize", "-o", out.path()};
        for (const auto& stem : stems)
            args.push_back(data((stem + suffix).c_str()));
        QCOMPARE(cli(args), 0);
        const fs::path outDir = out.path();
        for (const auto& stem : stems) {
            std::vector<fs::path> summaries;
            for (const auto& entry : fs::directory_iterator(outDir)) {
                const std::string name = entry.path().filename().string();
                if (name == stem + ".summary.json"
                    || (name.starts_with(stem + ".rank") && name.ends_with(".summary.json")))
                    summaries.push_back(entry.path());
            }
            QVERIFY2(!summaries.empty(), stem.c_str());
            const std::uint64_t json = inflatedSize(data((stem + suffix).c_str()));
            for (const auto& summary : summaries) {
                const auto s = nlohmann::json::parse(kstest::readFile(summary.string()));
                const std::uint64_t bytes = fs::file_size(summary);
                QCOMPARE(s["trace_bytes"].get<std::uint64_t>(), json);
                if (stem == "square") {
                    QVERIFY(s["view"].empty());
                    QVERIFY(bytes < 1000);
                    continue;
                }
                const std::string what = summary.filename().string() + ": " + std::to_string(bytes) + " of "
                    + std::to_string(json) + " bytes";
                QVERIFY2(double(bytes) <= 0.01 * double(json), what.c_str());
            }
        }
        const auto s = nlohmann::json::parse(kstest::readFile(out.filePath("ddp_rank0.summary.json")));
        QCOMPARE(s["format"].get<std::string>(), std::string("kinetoscope-rank-summary"));
        QCOMPARE(s["version"].get<int>(), 2);
        QCOMPARE(s["identity"]["rank"].get<int>(), 0);
        QCOMPARE(s["steps"]["number"].size(), std::size_t(3));
        QCOMPARE(s["collectives"]["kind"].size(), std::size_t(6)); // the 6 allreduces of two kinds
        QVERIFY(s["collectives"]["kinds"]["in_elements"] == nlohmann::json({1049088, 5255680})); // two bucket sizes
        QVERIFY(!s["view"]["top_kernels"].empty());
        QVERIFY(!s["view"]["step_breakdown"].empty());
    }

    // A corrupt summary and ones of other versions are named; the others are analysed.
    void badSummariesAreNamedAndLeftOut()
    {
        kstest::TempDir out;
        QCOMPARE(cli({"summarize", "-o", out.path(), data("ddp_rank0.pt.trace.json.gz"),
                      data("ddp_rank1.pt.trace.json.gz"), data("straggler_rank0.pt.trace.json.gz")}),
                 0);
        const std::string straggler = out.filePath("straggler_rank0.summary.json");
        auto s = nlohmann::json::parse(kstest::readFile(straggler));
        s["version"] = 99;
        QVERIFY(kstest::writeFile(straggler, s.dump()));
        QVERIFY(kstest::writeFile(out.filePath("broken.summary.json"),
                                  "{\"format\": \"kinetoscope-rank-summary\", \"version\": 1, \"identity\": "));
        QVERIFY(kstest::writeFile(out.filePath("old.summary.json"), // version 1: collectives as objects
                                  R"({"format": "kinetoscope-rank-summary", "version": 1, "steps": [[1, 10, 20]],
                      "collectives": [{"start": 12, "end": 14, "name": "allreduce"}]})"));

        std::string stdoutText, stderrText;
        QCOMPARE(cli({"ranks", "--json", out.path()}, &stdoutText, &stderrText), 0);
        QVERIFY(kstest::contains(
            stderrText, "straggler_rank0.summary.json: rank summary format version 99, this build reads version 2"));
        QVERIFY(kstest::contains(stderrText, "broken.summary.json: not valid JSON"));
        QVERIFY(kstest::contains(stderrText,
                                 "old.summary.json: rank summary format version 1, this build reads version 2"));
        const auto j = nlohmann::json::parse(stdoutText);
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["errors"].size(), std::size_t(3));
        compareReports(ranksJson({data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")}), j);
    }

    // --timings: one line for the process, counting its summaries and failures, with the phases
    // and the worker's parts and counts; the parts' CPU is within the process's.
    void timingsNameThePhases()
    {
        kstest::TempDir out;
        std::string stdoutText, stderrText;
        QCOMPARE(cli({"summarize", "--timings", "-o", out.path(), data("ddp_rank0.pt.trace.json.gz"),
                      data("ddp_rank1.pt.trace.json.gz")},
                     &stdoutText, &stderrText),
                 0);
        const std::string& text = stderrText;
        std::smatch line;
        QVERIFY2(std::regex_search(
                     text, line,
                     std::regex(R"(timings process \(2 summaries, 0 failures\): [0-9.]+ s wall, ([0-9.]+) s CPU:)")),
                 text.c_str());
        const double cpu = std::stod(line[1]);
        double parts = 0;
        for (const char* part : {"files/load", "files/summary", "files/write"}) {
            std::smatch m;
            QVERIFY2(std::regex_search(text, m,
                                       std::regex(std::string(" ") + part + R"( [0-9.]+ s \(\d+%\) CPU ([0-9.]+) s)")),
                     part);
            parts += std::stod(m[1]);
        }
        QVERIFY(parts > 0);
        QVERIFY2(parts <= cpu + 0.002, text.c_str());
        // The worker's counts: the files it summarized, its page faults after the first file (the
        // cost per file), its peak memory.
        QVERIFY2(kstest::contains(text, "; worker files = 2;"), text.c_str());
        std::smatch faults, peak;
        QVERIFY2(std::regex_search(text, faults, std::regex(R"(; worker later-file minor faults = (\d+);)")),
                 text.c_str());
        QVERIFY2(std::regex_search(text, peak, std::regex(R"(; peak worker RSS MB = ([0-9.]+))")), text.c_str());
        QVERIFY(std::stod(peak[1]) > 1);
    }

    void missingFileIsNamedAndTheOthersSummarized()
    {
        kstest::TempDir out;
        std::string stdoutText, stderrText;
        QCOMPARE(cli({"summarize", "-o", out.path(), data("ddp_rank0.pt.trace.json.gz"), out.filePath("missing.json")},
                     &stdoutText, &stderrText),
                 1);
        QVERIFY(kstest::contains(stderrText, "missing.json"));
        QVERIFY(std::filesystem::exists(out.filePath("ddp_rank0.summary.json")));
    }

    // Two MPI processes (CI runs this with Debian's OpenMPI): the files spread over both, and
    // process 0 writes the job's cross-rank result beside the summaries.
    void mpiSpreadsTheFilesAndWritesTheJob()
    {
        kstest::TempDir out;
        const MpiRun mpi = summarizeWithMpi(
            out.path(), {data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")});
        if (!mpi.ran)
            QSKIP(kNoMpi);
        QVERIFY2(mpi.status == 0, mpi.stderrText.c_str());
        QVERIFY(std::filesystem::exists(out.filePath("straggler_rank0.summary.json")));
        QVERIFY(std::filesystem::exists(out.filePath("straggler_rank1.summary.json")));
        const auto j = readJson(out.filePath("job.ranks.json"));
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(j["missing_ranks"].empty());
        QVERIFY(kstest::contains(mpi.stdoutText, "rank 1 is the straggler"));
    }

    // One rank's file is corrupt: it is named, the other rank's summary is written, and process 0
    // still writes the job's result from the summary it has, naming the missing rank.
    void mpiNamesTheFailedFileAndTheMissingRank()
    {
        kstest::TempDir out, traces;
        const std::string corrupt = traces.filePath("straggler_rank1.pt.trace.json");
        QVERIFY(kstest::writeFile(corrupt, "\x01\x02 this is no trace"));
        const MpiRun mpi = summarizeWithMpi(out.path(), {data("straggler_rank0.pt.trace.json.gz"), corrupt});
        if (!mpi.ran)
            QSKIP(kNoMpi);
        QCOMPARE(mpi.status, 1);
        QVERIFY2(kstest::contains(mpi.stderrText, "straggler_rank1.pt.trace.json: "), mpi.stderrText.c_str());
        QVERIFY2(kstest::contains(mpi.stderrText, "rank(s) 1 of world size 2 have no summary"), mpi.stderrText.c_str());
        QVERIFY(std::filesystem::exists(out.filePath("straggler_rank0.summary.json")));
        QVERIFY(!std::filesystem::exists(out.filePath("straggler_rank1.summary.json")));
        const auto j = readJson(out.filePath("job.ranks.json"));
        QCOMPARE(j["ranks"].size(), std::size_t(1));
        QCOMPARE(j["ranks"][0]["rank"].get<int>(), 0);
        QVERIFY(j["missing_ranks"] == nlohmann::json({1}));
        QVERIFY(kstest::contains(mpi.stdoutText, "1 failed"));
    }

    // The worker process summarizing a file is killed (SIGKILL, as by the out-of-memory killer)
    // in the middle of it: the file is named with the worker and the signal, a new worker
    // summarizes the files after it, and their summaries give the full traces' result. Also
    // where the launcher ignores SIGCHLD (inherited through exec: the kernel would reap the
    // worker, and its end could not be told).
    void killedWorkerIsNamedAndTheOthersSummarized_data()
    {
        QTest::addColumn<bool>("sigchldIgnored");
        QTest::newRow("plain") << false;
        QTest::newRow("SIGCHLD ignored") << true;
    }
    void killedWorkerIsNamedAndTheOthersSummarized()
    {
        QFETCH(bool, sigchldIgnored);
        kstest::TempDir out, traces;
        kstest::KillerPipe killer(traces.filePath("killed.pt.trace.json"), kstest::KillerPipe::Victim::Reader);
        const std::vector<std::string> ranks{data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")};
        const std::vector<std::string> args{"summarize", "-o", out.path(), ranks[0], killer.path(), ranks[1]};
        std::string stdoutText, stderrText;
        const int status = sigchldIgnored
            ? run("bash", kstest::concat({"-c", "trap '' CHLD; exec \"$0\" \"$@\"", KS_CLI}, args), &stdoutText,
                  &stderrText)
            : cli(args, &stdoutText, &stderrText);
        QVERIFY(theKilledSummarizerIsNamed(killer, status, stderrText));
        QCOMPARE(kstest::fileNames(out.path()),
                 (std::vector<std::string>{"ddp_rank0.summary.json", "ddp_rank1.summary.json"}));
        compareReports(ranksJson(ranks), ranksJson({out.path()}));
    }

    // Under mpirun, the worker of one MPI process is killed within the last file: that process
    // names it and goes on, and process 0 writes the job's result from the other files'
    // summaries, equal to the full traces' result, and exits with status 1.
    void mpiKilledWorkerIsNamedAndTheJobWritten()
    {
        kstest::TempDir out, traces;
        kstest::KillerPipe killer(traces.filePath("killed.pt.trace.json"), kstest::KillerPipe::Victim::Reader);
        const std::vector<std::string> ranks{data("straggler_rank0.pt.trace.json.gz"),
                                             data("straggler_rank1.pt.trace.json.gz")};
        const MpiRun mpi = summarizeWithMpi(out.path(), {ranks[0], killer.path(), ranks[1]});
        if (!mpi.ran)
            QSKIP(kNoMpi);
        QVERIFY(theKilledSummarizerIsNamed(killer, mpi.status, mpi.stderrText));
        QVERIFY2(kstest::contains(mpi.stdoutText, "3 file(s) on 2 process(es), 1 failed"), mpi.stdoutText.c_str());
        const auto j = readJson(out.filePath("job.ranks.json"));
        QVERIFY(j["missing_ranks"].empty());
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        compareReports(ranksJson(ranks), j);
        compareReports(ranksJson(ranks), ranksJson({out.path()}));
    }

    // An MPI process itself is killed (its worker blocked in the last file) once the other files'
    // summaries are written: mpirun ends the job and names the process and the signal; the
    // summaries written stay whole and give the full traces' result; the killed process's
    // worker dies with it (it would otherwise go on summarizing for nobody). The process is
    // killed once past MPI_Init, waiting for its worker (a read on its pipe): Open MPI 4.1's
    // mpirun at times never ends when a process dies within MPI_Init (its zombie left unreaped).
    void mpiKilledProcessLeavesTheOthersSummaries()
    {
        kstest::TempDir out, traces;
        const std::vector<std::string> ranks{data("straggler_rank0.pt.trace.json.gz"),
                                             data("straggler_rank1.pt.trace.json.gz")};
        // Where the kernel does not tell where a process waits ("0"), a second after the summaries.
        std::optional<std::chrono::steady_clock::time_point> written;
        const auto othersWrittenAndPastMpiInit = [&](pid_t worker) {
            if (!std::filesystem::exists(out.filePath("straggler_rank0.summary.json"))
                || !std::filesystem::exists(out.filePath("straggler_rank1.summary.json")))
                return false;
            const auto now = std::chrono::steady_clock::now();
            written = written.value_or(now);
            const std::string waits = kstest::KillerPipe::waitsIn(kstest::KillerPipe::parentOf(worker));
            if (waits.empty() || waits == "0")
                return now - *written > std::chrono::seconds(1);
            return waits.find("pipe") != std::string::npos;
        };
        kstest::KillerPipe killer(traces.filePath("killed.pt.trace.json"), kstest::KillerPipe::Victim::ReadersParent,
                                  othersWrittenAndPastMpiInit);
        const MpiRun mpi = summarizeWithMpi(out.path(), {ranks[0], killer.path(), ranks[1]});
        if (!mpi.ran)
            QSKIP(kNoMpi);
        QVERIFY2(killer.killed() > 0 && killer.killed() != killer.reader(), mpi.stderrText.c_str());
        QVERIFY2(mpi.status > 0, "mpirun did not end"); // -1: killed at the time limit
        QVERIFY2(kstest::contains(mpi.stderrText, "signal 9"), mpi.stderrText.c_str());
        QVERIFY(!std::filesystem::exists(out.filePath("job.ranks.json")));
        QCOMPARE(kstest::fileNames(out.path()),
                 (std::vector<std::string>{"straggler_rank0.summary.json", "straggler_rank1.summary.json"}));
        compareReports(ranksJson(ranks), ranksJson({out.path()}));
        bool workerEnded = false;
        for (int i = 0; i < 500 && !(workerEnded = kstest::KillerPipe::ended(killer.reader())); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        QVERIFY(workerEnded);
        killer.join();
    }

    // Generated ranks (the benchmarks' job: clock jitter, a planted straggler and slow link),
    // summarized by two MPI processes: the job's result names the planted straggler.
    void mpiFindsThePlantedStragglerOfGeneratedRanks()
    {
        constexpr int kRanks = 8;
        const ks::bench::PlantedJob job = ks::bench::plantedJob(kRanks);
        QCOMPARE(job.straggler, 5);
        kstest::TempDir out, traces;
        const auto sources = ks::bench::tilersInStep(
            {KS_TEST_DATA "/ddp_rank0.pt.trace.json.gz", KS_TEST_DATA "/ddp_rank1.pt.trace.json.gz"});
        std::vector<std::string> files;
        for (int r = 0; r < kRanks; ++r) {
            files.push_back(traces.filePath("rank" + std::to_string(r) + ".pt.trace.json"));
            QVERIFY(sources[std::size_t(r % 2)].write(files.back(), 0, 1, job.variants[std::size_t(r)]).error.empty());
        }
        const MpiRun mpi = summarizeWithMpi(out.path(), files, {"--timings"});
        if (!mpi.ran)
            QSKIP(kNoMpi);
        QVERIFY2(mpi.status == 0, mpi.stderrText.c_str());
        std::vector<std::string> summaryFiles = kstest::fileNames(out.path());
        std::erase_if(summaryFiles, [](const std::string& f) { return !f.ends_with(".summary.json"); });
        QCOMPARE(summaryFiles.size(), std::size_t(kRanks));
        // The processes claimed the files one by one: each summarized once, by one of the two
        // (--timings counts them per process), and the claims are gone.
        const std::string& timings = mpi.stderrText;
        const std::regex perProcess(R"(timings process (\d)/2 \((\d+) summaries, 0 failures\))");
        int summaries = 0;
        std::set<int> processes;
        for (std::sregex_iterator m(timings.begin(), timings.end(), perProcess), end; m != end; ++m) {
            processes.insert(std::stoi((*m)[1]));
            summaries += std::stoi((*m)[2]);
        }
        QVERIFY2(processes == (std::set<int>{0, 1}), timings.c_str());
        QCOMPARE(summaries, kRanks);
        QVERIFY2(kstest::contains(timings, "MPI_Init") && kstest::contains(timings, "files/load"), timings.c_str());
        const auto entries =
            std::distance(std::filesystem::directory_iterator(out.path()), std::filesystem::directory_iterator());
        QCOMPARE(entries, std::ptrdiff_t(kRanks + 1)); // the summaries and job.ranks.json
        const auto j = readJson(out.filePath("job.ranks.json"));
        QCOMPARE(j["ranks"].size(), std::size_t(kRanks));
        QCOMPARE(j["straggler"]["rank"].get<int>(), job.straggler);
        QVERIFY(j["straggler"]["rank"].get<int>() != job.slowLink);
        QVERIFY(j["missing_ranks"].empty());
    }
};

QTEST_MAIN(TestSummarizeCommand)
#include "tst_summarizecommand.moc"
