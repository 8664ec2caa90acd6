// `kinetoscope-cli collect` end to end on a fake traced program (no GPU): exit status,
// the written file read back by our loader, errors for programs that are missing or never
// use CUDA, and a crashed target.
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include "core/loading/loader.h"

#include <QTest>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace {

struct Run {
    int exitCode = -1;
    std::string output;
};

Run collect(const std::vector<std::string>& arguments)
{
    kstest::ProgramOptions options;
    // The fake target never loads the injection library; it only has to exist.
    options.environment = {"CUDA_INJECTION64_PATH", "KINETOSCOPE_INJECTION_LIBRARY=" KS_FAKE_TARGET};
    options.mergeOutput = true;
    options.timeoutMs = 30000;
    const kstest::ProgramRun process = kstest::runProgram(KS_CLI, kstest::concat({"collect"}, arguments), options);
    return {process.exitCode, process.out};
}

std::size_t countNamed(const ks::Trace& t, std::string_view name)
{
    std::size_t n = 0;
    for (ks::SliceId s = 0; s < t.slices().size(); ++s)
        n += t.str(t.slices().name[s]) == name;
    return n;
}

nlohmann::json metadataJson(const ks::Trace& t, std::string_view key)
{
    const std::string* raw = t.metadataValue(key);
    return raw ? nlohmann::json::parse(*raw, nullptr, false) : nlohmann::json::object();
}

} // namespace

class TestCollectCommand : public QObject {
    Q_OBJECT
private slots:
    void writesALoadableTrace()
    {
        kstest::TempDir dir;
        const std::string file = dir.filePath("fake.pt.trace.json.gz");
        const Run run = collect({"-o", file, "--", std::string(KS_FAKE_TARGET), "5", "3"});
        QVERIFY2(run.exitCode == 3, run.output.c_str()); // the target's exit code
        QVERIFY2(kstest::contains(run.output, "1 process traced, 50 kernels"), run.output.c_str());
        QVERIFY2(kstest::contains(run.output, "0 dropped records"), run.output.c_str());
        const auto loaded = ks::loadTraceFile(file);
        QVERIFY(loaded.ok());
        const ks::Trace& t = *loaded.trace;
        QCOMPARE(countNamed(t, "fakeKernel(float*, int)"), std::size_t(50));
        QCOMPARE(countNamed(t, "cudaLaunchKernel"), std::size_t(50));
        QCOMPARE(t.flows().size(), std::size_t(50));
        QVERIFY(t.baseTimeNs() % 1000000000 == 0);
        QVERIFY2(!kstest::contains(run.output, "after the program's last records"), run.output.c_str());
    }

    // stats=1: the stages after the program's GOODBYE, the trace written while it still exits
    // (the fake target exits 3 right after it): every launch in the file, its exit code kept.
    void stageTimersOnRequest()
    {
        kstest::TempDir dir;
        const std::string file = dir.filePath("fake.pt.trace.json");
        const Run run = collect({"--collector-options", "stats=1", "-o", file, "--", KS_FAKE_TARGET, "4", "3"});
        QVERIFY2(run.exitCode == 3, run.output.c_str());
        for (const char* stage : {"collect: after the program's last records: connections closed", "built", "written",
                                  "program exited", "Receiving thread:"})
            QVERIFY2(kstest::contains(run.output, stage), run.output.c_str());
        const auto loaded = ks::loadTraceFile(file);
        QVERIFY(loaded.ok());
        QCOMPARE(countNamed(*loaded.trace, "fakeKernel(float*, int)"), std::size_t(40));
    }

    void durationStopsRecordingOnly()
    {
        kstest::TempDir dir;
        const std::string file = dir.filePath("partial.pt.trace.json");
        // 30 batches, 100 ms apart: the program outlives the 1 s recording and exits 0.
        const Run run = collect({"--duration", "1", "-o", file, std::string(KS_FAKE_TARGET), "30"});
        QVERIFY2(run.exitCode == 0, run.output.c_str());
        QVERIFY2(kstest::contains(run.output, "recording stopped after 1 s"), run.output.c_str());
        QVERIFY2(!kstest::contains(run.output, "crashed"), run.output.c_str());
        const auto loaded = ks::loadTraceFile(file);
        QVERIFY(loaded.ok());
        const std::size_t kernels = countNamed(*loaded.trace, "fakeKernel(float*, int)");
        QVERIFY2(kernels > 0 && kernels < 300, std::to_string(kernels).c_str());
    }

    // Two traced processes below the program: a file each by default, one with --merge. They
    // are ranks as torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK): each file has kineto's
    // distributedInfo, the merged one each rank's under distributedRanks.
    void filePerProcessOrMerged()
    {
        kstest::TempDir dir;
        const std::string script = "RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 '" KS_FAKE_TARGET "' 2 & "
                                   "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 '" KS_FAKE_TARGET "' 3; wait";
        const std::string file = dir.filePath("two.pt.trace.json");
        Run run = collect({"-o", file, "--", "/bin/sh", "-c", script});
        QVERIFY2(run.exitCode == 0, run.output.c_str());
        QVERIFY2(kstest::contains(run.output, "2 processes traced, 50 kernels"), run.output.c_str());
        std::vector<std::string> files = kstest::fileNames(dir.path()); // two.*.pt.trace.json
        std::erase_if(files, [](const std::string& f) {
            return !f.starts_with("two.") || !f.ends_with(".pt.trace.json") || f == "two.pt.trace.json";
        });
        QCOMPARE(files.size(), 2);
        std::vector<std::size_t> counts;
        for (const std::string& f : files) {
            const auto trace = ks::loadTraceFile(dir.filePath(f)).trace;
            counts.push_back(countNamed(*trace, "fakeKernel(float*, int)"));
            const auto info = metadataJson(*trace, "distributedInfo");
            // The rank that ran 2 batches is rank 0.
            QCOMPARE(info.value("rank", -1), counts.back() == 20 ? 0 : 1);
            QCOMPARE(info.value("world_size", -1), 2);
            QVERIFY2(!info.contains("backend"), "no collectives: the backend is unknown");
        }
        std::sort(counts.begin(), counts.end());
        QCOMPARE(counts, (std::vector<std::size_t>{20, 30}));

        const std::string merged = dir.filePath("merged.pt.trace.json");
        run = collect({"--merge", "-o", merged, "--", "/bin/sh", "-c", script});
        QVERIFY2(run.exitCode == 0, run.output.c_str());
        const auto loaded = ks::loadTraceFile(merged);
        QVERIFY(loaded.ok());
        QCOMPARE(countNamed(*loaded.trace, "fakeKernel(float*, int)"), std::size_t(50));
        QCOMPARE(loaded.trace->flows().size(), std::size_t(50)); // equal correlation ids kept apart
        // Unambiguous for other tools: integer pids, each correlation id in one process only,
        // and every ac2g flow id equal to the correlation id of its launch and its kernel.
        const auto& t = *loaded.trace;
        std::map<std::int64_t, std::set<std::uint32_t>> processesOfCorrelation;
        for (ks::SliceId s = 0; s < t.slices().size(); ++s) {
            if (t.slices().correlation[s] != ks::kNoId && !t.processes()[t.tracks()[t.trackOf(s)].process].isDevice)
                processesOfCorrelation[t.slices().correlation[s]].insert(t.tracks()[t.trackOf(s)].process);
        }
        QVERIFY(processesOfCorrelation.size() >= 50);
        for (const auto& [correlation, processes] : processesOfCorrelation)
            QCOMPARE(processes.size(), std::size_t(1));
        for (const auto& f : t.flows()) {
            QCOMPARE(std::int64_t(f.id), t.slices().correlation[f.from]);
            QCOMPARE(t.slices().correlation[f.to], t.slices().correlation[f.from]);
        }
        for (const auto& p : t.processes())
            QVERIFY(!p.pid.isText);
        int gpuProcesses = 0;
        for (const auto& p : loaded.trace->processes())
            gpuProcesses += p.isDevice;
        QCOMPARE(gpuProcesses, 2);
        QVERIFY(!t.metadataValue("distributedInfo"));
        const auto ranks = metadataJson(t, "distributedRanks");
        QCOMPARE(ranks.size(), std::size_t(2));
        std::set<int> rankNumbers;
        for (const auto& rank : ranks) {
            rankNumbers.insert(rank.value("rank", -1));
            QVERIFY(rank.value("pid", 0) > 0);
        }
        QCOMPARE(rankNumbers, (std::set<int>{0, 1}));
    }

    void missingProgram()
    {
        const Run run = collect({"--", "/nonexistent/program"});
        QCOMPARE(run.exitCode, 127);
        QVERIFY(kstest::contains(run.output, "No such file"));
    }

    void programWithoutCuda()
    {
        const Run run = collect({"--", "/bin/true"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(kstest::contains(run.output, "exited without using CUDA"), run.output.c_str());
    }

    void crashedTargetKeepsItsData()
    {
        kstest::TempDir dir;
        const std::string file = dir.filePath("crash.pt.trace.json");
        const Run run = collect({"-o", file, "--", std::string(KS_FAKE_TARGET), "3", "kill"});
        QCOMPARE(run.exitCode, 128 + 9);
        QVERIFY2(kstest::contains(run.output, "crashed or was killed"), run.output.c_str());
        const auto loaded = ks::loadTraceFile(file);
        QVERIFY(loaded.ok());
        QCOMPARE(countNamed(*loaded.trace, "fakeKernel(float*, int)"), std::size_t(30));
    }

    // A capture range that never opens: a clear message and a trace that loads, without events.
    void captureRangeThatNeverOpens()
    {
        kstest::TempDir dir;
        const std::string file = dir.filePath("none.pt.trace.json");
        const Run run = collect({"--capture-range=cudaProfilerApi", "-o", file, std::string(KS_FAKE_TARGET), "2"});
        QVERIFY2(run.exitCode == 0, run.output.c_str());
        QVERIFY2(kstest::contains(run.output, "never called cudaProfilerStart"), run.output.c_str());
        const auto loaded = ks::loadTraceFile(file);
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.trace->slices().size(), std::size_t(0));
        QVERIFY(loaded.trace->baseTimeNs() % 1000000000 == 0);
    }

    void usageErrors()
    {
        QCOMPARE(collect({"--capture-range=nvtx:", "/bin/true"}).exitCode, 2);
        QCOMPARE(collect({"--capture-range=cudaProfiler", "/bin/true"}).exitCode, 2);
        QCOMPARE(collect({"--delay", "-2", "/bin/true"}).exitCode, 2);
        QCOMPARE(collect({}).exitCode, 2);
        QCOMPARE(collect({"--duration", "-1", "/bin/true"}).exitCode, 2);
        QCOMPARE(collect({"--env", "NOVALUE", "/bin/true"}).exitCode, 2);
    }

    // The injection cannot tell anyone about a bad option: collect rejects the list first.
    void badCollectorOptionsAreRejected()
    {
        const Run run = collect({"--collector-options", "stats=1,consumer=none", "/bin/true"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(kstest::contains(run.output, "bad collector option 'consumer=none'"), run.output.c_str());
        QVERIFY2(kstest::contains(run.output, "consumer=translate|drop"), run.output.c_str());
        QCOMPARE(collect({"--collector-options", "flush_ms=0", "/bin/true"}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCollectCommand)
#include "tst_collectcommand.moc"
