// The multi-trace workspace: identities from distributedInfo and file names, rank order,
// alignment offsets computed independently from the fixture events, parallel loading with a
// corrupt file, and ranks inferred from a merged collector file.
#include "core/analysis/workspace.h"

#include "fixturejson.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <new>
#include <stdexcept>

using namespace ks;
using namespace ks::analysis;

namespace {

using kstest::fixture;
using kstest::readGz;

// ProfilerStep#N host start in ns, from the file itself.
TimeNs stepStartNs(const nlohmann::json& trace, const std::string& name)
{
    for (const auto& e : trace["traceEvents"]) {
        if (e.value("name", "") == name && e.value("cat", "") == "user_annotation")
            return static_cast<TimeNs>(std::llround(e["ts"].get<double>() * 1000.0));
    }
    return -1;
}

} // namespace

class TestWorkspace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ranksOrderedWhateverTheFileOrder()
    {
        auto loaded = loadWorkspace({fixture("ddp_rank1.pt.trace.json.gz"), fixture("ddp_rank0.pt.trace.json.gz")});
        QVERIFY(loaded.errors.empty());
        const Workspace& ws = loaded.workspace;
        QCOMPARE(ws.size(), std::size_t(2));
        for (int r = 0; r < 2; ++r) {
            const TraceIdentity& id = ws.members()[r].identity;
            QCOMPARE(id.rank, r);
            QCOMPARE(id.worldSize, 2);
            QVERIFY(!id.rankInferred);
            QCOMPARE(id.backend, std::string("nccl"));
            QCOMPARE(id.worker, "ddp_rank" + std::to_string(r));
            QCOMPARE(id.label(), "Rank " + std::to_string(r) + " \xC2\xB7 ddp_rank" + std::to_string(r));
        }
        QCOMPARE(ws.members()[0].identity.runKey, ws.members()[1].identity.runKey);
        QVERIFY(ws.warnings().empty());
        QCOMPARE(ws.commonSteps(), (std::vector<long long>{2, 3, 4}));
    }

    void alignmentOffsetsFromTheEvents()
    {
        auto loaded = loadWorkspace({fixture("ddp_rank0.pt.trace.json.gz"), fixture("ddp_rank1.pt.trace.json.gz")});
        Workspace& ws = loaded.workspace;
        const auto json0 = readGz(fixture("ddp_rank0.pt.trace.json.gz"));
        const auto json1 = readGz(fixture("ddp_rank1.pt.trace.json.gz"));
        // Same baseTimeNanoseconds in both files: the absolute clock needs no shift, and the
        // spread is how much earlier rank 1 began step 2.
        QVERIFY(json0["baseTimeNanoseconds"] == json1["baseTimeNanoseconds"]);
        const TimeNs step2r0 = stepStartNs(json0, "ProfilerStep#2");
        const TimeNs step2r1 = stepStartNs(json1, "ProfilerStep#2");
        auto abs = ws.alignAbsoluteClock();
        QCOMPARE(ws.members()[1].offset, TimeNs(0));
        QCOMPARE(abs.startSpread, step2r0 - step2r1); // 2.330 ms
        QCOMPARE(abs.startSpread, TimeNs(2330345));

        auto atStep = ws.alignAtStep();
        QCOMPARE(atStep.step, 2LL);
        QCOMPARE(ws.members()[0].offset, TimeNs(0));
        QCOMPARE(ws.members()[1].offset, step2r0 - step2r1);
        QCOMPARE(ws.members()[1].step(2)->start + ws.members()[1].offset, ws.members()[0].step(2)->start);

        const TimeNs step4r0 = stepStartNs(json0, "ProfilerStep#4");
        const TimeNs step4r1 = stepStartNs(json1, "ProfilerStep#4");
        QCOMPARE(*ws.stepOffset(1, 4), step4r0 - step4r1);
        QVERIFY(!ws.stepOffset(1, 7));
        ws.alignAtStep(3);
        QCOMPARE(ws.members()[1].offset, stepStartNs(json0, "ProfilerStep#3") - stepStartNs(json1, "ProfilerStep#3"));
    }

    void corruptFileIsNamedAndTheOthersLoad()
    {
        QTemporaryDir dir;
        const std::string bad = dir.filePath(QStringLiteral("bad.pt.trace.json")).toStdString();
        std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": }";
        std::vector<FileError> errors;
        const auto files = expandTracePaths({fixture("ddp_rank0.pt.trace.json.gz"), bad,
                                             fixture("ddp_rank1.pt.trace.json.gz"), dir.path().toStdString() + "/none.json"},
                                            errors);
        QCOMPARE(errors.size(), std::size_t(1));
        QCOMPARE(errors[0].message, std::string("no such file or folder"));
        MultiLoadProgress progress(files.size());
        auto loaded = loadWorkspace(files, &progress, 2);
        QCOMPARE(progress.filesDone(), std::size_t(3));
        QCOMPARE(loaded.workspace.size(), std::size_t(2));
        QCOMPARE(loaded.errors.size(), std::size_t(1));
        QCOMPARE(loaded.errors[0].file, bad);
        QVERIFY(!loaded.errors[0].message.empty());
    }

    void emptyFolderAndCancel()
    {
        QTemporaryDir dir;
        std::vector<FileError> errors;
        QVERIFY(expandTracePaths({dir.path().toStdString()}, errors).empty());
        QCOMPARE(errors.size(), std::size_t(1));

        const std::vector<std::string> files{fixture("ddp_rank0.pt.trace.json.gz"), fixture("ddp_rank1.pt.trace.json.gz")};
        MultiLoadProgress progress(files.size());
        progress.cancel();
        auto loaded = loadWorkspace(files, &progress, 1);
        QVERIFY(loaded.cancelled);
        QCOMPARE(loaded.workspace.size(), std::size_t(0));
        QVERIFY(loaded.errors.empty());
    }

    void duplicateRanksWarn()
    {
        auto loaded = loadWorkspace({fixture("ddp_rank0.pt.trace.json.gz"), fixture("ddp_rank0.pt.trace.json.gz")});
        const auto warnings = loaded.workspace.warnings();
        QCOMPARE(warnings.size(), std::size_t(2));
        QVERIFY(warnings[0].find("rank 0 appears 2 times") != std::string::npos);
        QCOMPARE(warnings[1], std::string("1 of 2 ranks are open"));
    }

    void loaderThreadsReportExceptionsPerFile()
    {
        // Each loading thread guards its file: an exception of any type becomes that file's
        // fatal error (std::terminate otherwise) and the other files still load.
        const std::string good = fixture("ddp_rank0.pt.trace.json.gz");
        const std::vector<std::string> paths{"throws-std", good, "throws-int", "no-memory"};
        auto load = [&](const std::string& path, LoadProgress* progress) -> LoadResult {
            if (path == "throws-std")
                throw std::runtime_error("disk vanished");
            if (path == "throws-int")
                throw 42;
            if (path == "no-memory")
                throw std::bad_alloc();
            return loadTraceFile(path, progress);
        };
        MultiLoadProgress progress(paths.size());
        const auto results = loadTraceFiles(paths, &progress, 3, load);
        QCOMPARE(results.size(), paths.size());
        QCOMPARE(progress.filesDone(), paths.size());
        auto fatalOf = [&](std::size_t i) {
            QVERIFY2(!results[i].ok() && results[i].fatal, paths[i].c_str());
            QCOMPARE(results[i].fatal->code, std::string("load-failed"));
        };
        fatalOf(0);
        QCOMPARE(results[0].fatal->message, std::string("loading failed: disk vanished"));
        fatalOf(2);
        QCOMPARE(results[2].fatal->message, std::string("loading failed: unknown exception"));
        fatalOf(3);
        QCOMPARE(results[3].fatal->message, std::string("loading failed: out of memory"));
        QVERIFY(results[1].ok());
        QCOMPARE(results[1].trace->slices().size(), loadTraceFile(good).trace->slices().size());
        QVERIFY(results[1].trace->slices().size() > 0);
    }

    void mergedFileRanksFromDevices()
    {
        // A launcher without GPU work, and two processes each launching onto its own GPU.
        const char* text = R"({"traceEvents": [
          {"ph":"X","cat":"cpu_op","name":"launcher","pid":50,"tid":50,"ts":1,"dur":100},
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":2,"ts":10,"dur":5,"args":{"correlation":2}},
          {"ph":"s","cat":"ac2g","name":"ac2g","id":2,"pid":200,"tid":2,"ts":10},
          {"ph":"X","cat":"kernel","name":"k1","pid":1,"tid":7,"ts":20,"dur":10,"args":{"device":1,"correlation":2}},
          {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":1,"tid":7,"ts":20,"bp":"e"},
          {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":12,"dur":5,"args":{"correlation":1}},
          {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":100,"tid":1,"ts":12},
          {"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":25,"dur":10,"args":{"device":0,"correlation":1}},
          {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":7,"ts":25,"bp":"e"}
        ]})";
        auto result = loadTraceFromMemory(text, "merged.pt.trace.json");
        QVERIFY(result.ok());
        Workspace ws;
        QCOMPARE(ws.add(result.trace, "merged.pt.trace.json"), std::size_t(3));
        ws.sortByRank();
        const Trace& t = *result.trace;
        auto pidOf = [&](std::uint32_t p) { return t.processes()[p].pid.number; };
        for (int r = 0; r < 2; ++r) {
            const auto& m = ws.members()[r];
            QCOMPARE(m.identity.rank, r);
            QVERIFY(m.identity.rankInferred);
            QCOMPARE(m.identity.worldSize, 2);
            QCOMPARE(m.processes.size(), std::size_t(2));
            std::vector<std::int64_t> pids{pidOf(m.processes[0]), pidOf(m.processes[1])};
            std::sort(pids.begin(), pids.end());
            QCOMPARE(pids, (std::vector<std::int64_t>{r, 100 * (r + 1)}));
            QCOMPARE(m.firstGpuActivity, TimeNs(r == 0 ? 25000 : 20000));
        }
        QCOMPARE(ws.members()[2].identity.rank, -1);
        QCOMPARE(pidOf(ws.members()[2].processes.at(0)), std::int64_t(50));
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
