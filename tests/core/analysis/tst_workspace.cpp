// The multi-trace workspace: identities from distributedInfo and file names, rank order,
// alignment offsets computed independently from the fixture events, parallel loading with a
// corrupt file, the ranks of a merged collector file (named by it, or inferred from GPUs), and
// each member's own steps (the user's choice for its file) counted by a diff.
#include "core/analysis/workspace.h"

#include "core/analysis/diff.h"
#include "core/loading/loader.h"
#include "fixturejson.h"
#include "testfiles.h"

#include <QTest>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <new>
#include <set>
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
    // train_baseline without ProfilerStep nor Optimizer.step has no steps until the user picks
    // its MLP ranges for it; the other member keeps its ProfilerSteps, and a diff counts each
    // side per its own steps.
    void eachMemberHasItsOwnSteps()
    {
        auto doc = readGz(fixture("train_baseline.pt.trace.json.gz"));
        nlohmann::json kept = nlohmann::json::array();
        std::size_t mlpRanges = 0;
        for (auto& e : doc["traceEvents"]) {
            const std::string name = e.value("name", "");
            if (e.value("ph", "") == "X" && (name.starts_with("ProfilerStep#") || name.starts_with("Optimizer.step#")))
                continue;
            mlpRanges += name == "MLP" && e.value("cat", "") == "user_annotation" ? 1 : 0;
            kept.push_back(std::move(e));
        }
        doc["traceEvents"] = std::move(kept);
        kstest::TempDir dir;
        const std::string bare = dir.filePath("bare.pt.trace.json");
        std::ofstream(bare) << doc.dump();
        QCOMPARE(mlpRanges, std::size_t(6));

        Workspace ws;
        ws.add(loadTraceFile(bare).trace, bare);
        ws.add(loadTraceFile(fixture("train_baseline.pt.trace.json.gz")).trace, "baseline");
        QCOMPARE(ws.members()[0].stepsSource, std::string("none"));
        QVERIFY(ws.members()[0].steps.empty());
        ws.setStepRules(0, {"MLP"});
        QCOMPARE(ws.members()[0].stepRules.userPattern, std::string("MLP"));
        QCOMPARE(ws.members()[0].stepsSource, std::string("user:MLP"));
        QCOMPARE(ws.members()[0].steps.size(), mlpRanges);
        QCOMPARE(ws.members()[1].stepsSource, std::string("ProfilerStep"));
        QCOMPARE(ws.members()[1].steps.size(), std::size_t(3));

        const DiffReport diff = diffTraces(ws.members()[0], ws.members()[1]);
        QCOMPARE(diff.base.steps, mlpRanges);
        QCOMPARE(diff.base.stepsSource, std::string("user:MLP"));
        QCOMPARE(diff.neu.steps, std::size_t(3));
        QCOMPARE(diff.neu.stepsSource, std::string("ProfilerStep"));
    }

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
        kstest::TempDir dir;
        const std::string bad = dir.filePath("bad.pt.trace.json");
        std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": }";
        std::vector<FileError> errors;
        const auto files = expandTracePaths({fixture("ddp_rank0.pt.trace.json.gz"), bad,
                                             fixture("ddp_rank1.pt.trace.json.gz"), dir.path() + "/none.json"},
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
        kstest::TempDir dir;
        std::vector<FileError> errors;
        QVERIFY(expandTracePaths({dir.path()}, errors).empty());
        QCOMPARE(errors.size(), std::size_t(1));

        const std::vector<std::string> files{fixture("ddp_rank0.pt.trace.json.gz"),
                                             fixture("ddp_rank1.pt.trace.json.gz")};
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
            // A trace of its own two processes: its launch, its kernel and the flow between.
            const Trace& own = *m.trace;
            QCOMPARE(own.processes().size(), std::size_t(2));
            std::vector<std::int64_t> pids{own.processes()[0].pid.number, own.processes()[1].pid.number};
            std::sort(pids.begin(), pids.end());
            QCOMPARE(pids, (std::vector<std::int64_t>{r, 100 * (r + 1)}));
            QCOMPARE(own.slices().size(), std::size_t(2));
            QCOMPARE(own.flows().size(), std::size_t(1));
            QCOMPARE(std::string(own.str(own.slices().name[own.flows()[0].to])), "k" + std::to_string(r));
            QCOMPARE(own.classOf(own.flows()[0].from), SliceClass::CudaRuntime);
            QCOMPARE(own.incomingFlows(own.flows()[0].to).size(), std::size_t(1));
            QCOMPARE(own.startTime(), TimeNs(r == 0 ? 12000 : 10000));
            QCOMPARE(own.endTime(), TimeNs(r == 0 ? 35000 : 30000));
            QCOMPARE(m.firstGpuActivity, TimeNs(r == 0 ? 25000 : 20000));
        }
        QCOMPARE(ws.members()[2].identity.rank, -1);
        QCOMPARE(ws.members()[2].trace->processes().at(0).pid.number, std::int64_t(50));
        // Two processes, each driving its own GPU: ranks, named after their processes.
        QVERIFY(!namesSeveralRanks(t));
        QVERIFY(holdsSeveralRanks(t));
        for (std::uint32_t r = 0; r < 2; ++r) {
            const auto& m = ws.members()[r];
            const auto& own = m.trace->processes();
            const auto cpu = std::find_if(own.begin(), own.end(), [](const Process& p) { return !p.isDevice; });
            QVERIFY(cpu != own.end());
            QCOMPARE(cpu->pid.number, std::int64_t(100 * (r + 1)));
            std::uint32_t inFile = 0;
            while (pidOf(inFile) != cpu->pid.number)
                ++inFile;
            QCOMPARE(m.identity.worker, t.processDisplayName(inFile));
            QCOMPARE(m.trace->processDisplayName(std::uint32_t(cpu - own.begin())), t.processDisplayName(inFile));
        }

        // One process driving both GPUs (DataParallel) is not a run of ranks.
        std::string single = text;
        for (std::size_t at = single.find(R"("pid":200)"); at != std::string::npos; at = single.find(R"("pid":200)"))
            single.replace(at, 9, R"("pid":100)");
        const auto one = loadTraceFromMemory(single, "single.pt.trace.json");
        QVERIFY(one.ok());
        QVERIFY(!holdsSeveralRanks(*one.trace));
    }

    // collect --merge of a 2-rank torchrun on one GPU (gloo): the launcher (890) and two ranks
    // (891, 892), each rank with its own rows of GPU 0 (pids 893, 894, labelled "GPU 0"). The
    // ranks are the ones distributedRanks names (listed rank 1 first), not the GPUs.
    void mergedFileRanksFromDistributedRanks()
    {
        std::string events = R"({"ph":"X","cat":"cpu_op","name":"torchrun","pid":890,"tid":890,"ts":1,"dur":500},)";
        const auto launch = [&](int cpu, int gpu, int correlation, int at) {
            char buf[1024];
            std::snprintf(
                buf, sizeof buf,
                R"J({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":%d,"tid":%d,"ts":%d,"dur":2,"args":{"correlation":%d}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":%d,"ts":%d},
{"ph":"X","cat":"kernel","name":"k","pid":%d,"tid":7,"ts":%d,"dur":10,"args":{"device":0,"correlation":%d}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":%d,"pid":%d,"tid":7,"ts":%d,"bp":"e"},
)J",
                cpu, cpu, at, correlation, correlation, cpu, cpu, at, gpu, at + 5, correlation, correlation, gpu,
                at + 5);
            events += buf;
        };
        launch(891, 893, 1, 10);
        launch(892, 894, 2, 12);
        launch(891, 893, 3, 40);
        for (int pid : {890, 891, 892})
            events += R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid)
                + R"(,"tid":0,"args":{"name":"python3"}},)";
        for (int pid : {893, 894})
            events += R"({"ph":"M","name":"process_labels","pid":)" + std::to_string(pid)
                + R"(,"tid":0,"args":{"labels":"GPU 0"}},)";
        events += R"({"ph":"M","name":"process_name","pid":890,"tid":0,"args":{"name":"torchrun"}})";
        const std::string text = R"({"distributedRanks": [{"pid": 892, "backend": "gloo", "rank": 1, "world_size": 2},
            {"pid": 891, "backend": "gloo", "rank": 0, "world_size": 2, "local_rank": 0}], "traceEvents": [)"
            + events + "]}";
        auto result = loadTraceFromMemory(text, "merged.pt.trace.json");
        QVERIFY2(result.ok(), result.fatal ? result.fatal->message.c_str() : "");
        const Trace& t = *result.trace;
        QVERIFY(namesSeveralRanks(t));
        for (const auto& p : t.processes()) {
            if (p.isDevice)
                QCOMPARE(p.deviceIndex, 0); // from its label, not its pid
        }
        Workspace ws;
        QCOMPARE(ws.add(result.trace, "merged.pt.trace.json"), std::size_t(3));
        ws.sortByRank();
        auto pidsOf = [&](const WorkspaceMember& m) {
            std::vector<std::int64_t> pids;
            for (const Process& p : m.trace->processes())
                pids.push_back(p.pid.number);
            std::sort(pids.begin(), pids.end());
            return pids;
        };
        for (int r = 0; r < 2; ++r) {
            const TraceIdentity& id = ws.members()[r].identity;
            QCOMPARE(id.rank, r);
            QVERIFY(!id.rankInferred);
            QCOMPARE(id.worldSize, 2);
            QCOMPARE(id.backend, std::string("gloo"));
            QCOMPARE(id.label(), "Rank " + std::to_string(r) + " \xC2\xB7 python3 (" + std::to_string(891 + r) + ")");
            QCOMPARE(pidsOf(ws.members()[r]), (std::vector<std::int64_t>{891 + r, 893 + r}));
        }
        QCOMPARE(ws.members()[0].firstGpuActivity, TimeNs(15000));
        QCOMPARE(ws.members()[1].firstGpuActivity, TimeNs(17000));
        QCOMPARE(ws.members()[0].identity.runKey, ws.members()[1].identity.runKey);
        QCOMPARE(ws.members()[2].identity.rank, -1);
        QCOMPARE(pidsOf(ws.members()[2]), (std::vector<std::int64_t>{890}));
        QVERIFY(ws.warnings().empty());

        // Without the split (a comparison) the file stays one member.
        Workspace whole;
        QCOMPARE(whole.add(result.trace, "merged.pt.trace.json", false), std::size_t(1));
    }

    // The real file: collect --merge of tests/gpu/ddp_ranks.py under torchrun, 2 ranks over
    // gloo sharing one H100. Each rank's member holds its CPU process and the GPU rows its
    // launches went to, worked out here from the file's ac2g flows.
    void collectedMergedRanksFile()
    {
        const std::string path = fixture("collected_gloo_merged.pt.trace.json.gz");
        const auto json = readGz(path);
        std::map<int, std::set<std::int64_t>> expected; // rank -> pids
        std::set<std::int64_t> allPids;
        std::map<std::int64_t, std::int64_t> cpuPidOfFlow;
        for (const auto& e : json["traceEvents"]) {
            if (e.value("ph", "") != "M")
                allPids.insert(e["pid"].get<std::int64_t>());
            if (e.value("cat", "") == "ac2g" && e.value("ph", "") == "s")
                cpuPidOfFlow[e["id"].get<std::int64_t>()] = e["pid"].get<std::int64_t>();
        }
        std::map<std::int64_t, int> rankOfPid;
        for (const auto& r : json["distributedRanks"]) {
            rankOfPid[r["pid"].get<std::int64_t>()] = r["rank"].get<int>();
            expected[r["rank"].get<int>()].insert(r["pid"].get<std::int64_t>());
        }
        for (const auto& e : json["traceEvents"]) {
            if (e.value("cat", "") == "ac2g" && e.value("ph", "") == "f")
                expected[rankOfPid.at(cpuPidOfFlow.at(e["id"].get<std::int64_t>()))].insert(
                    e["pid"].get<std::int64_t>());
        }
        QCOMPARE(expected.size(), std::size_t(2));
        QCOMPARE(expected[0].size(), std::size_t(2)); // its CPU process and its rows of GPU 0
        QCOMPARE(expected[1].size(), std::size_t(2));

        auto loaded = loadWorkspace({path});
        QVERIFY(loaded.errors.empty());
        const Workspace& ws = loaded.workspace;
        QCOMPARE(ws.size(), std::size_t(3));
        QVERIFY(!namesSeveralRanks(*ws.members()[0].trace)); // a rank's trace holds one rank
        std::set<std::int64_t> others = allPids;
        for (int r = 0; r < 2; ++r) {
            const auto& m = ws.members()[r];
            QCOMPARE(m.identity.rank, r);
            QVERIFY(!m.identity.rankInferred);
            QCOMPARE(m.identity.backend, std::string("gloo"));
            std::set<std::int64_t> pids;
            for (const Process& p : m.trace->processes())
                pids.insert(p.pid.number);
            QCOMPARE(pids, expected[r]);
            const std::int64_t cpu =
                *std::find_if(pids.begin(), pids.end(), [&](std::int64_t p) { return rankOfPid.count(p); });
            QCOMPARE(m.identity.label(),
                     "Rank " + std::to_string(r) + " \xC2\xB7 python3.12 (" + std::to_string(cpu) + ")");
            for (std::int64_t p : pids)
                others.erase(p);
        }
        // torchrun and the CUPTI overhead rows.
        std::set<std::int64_t> rest;
        for (const Process& p : ws.members()[2].trace->processes())
            rest.insert(p.pid.number);
        QCOMPARE(rest, others);
        QCOMPARE(ws.members()[2].identity.rank, -1);
    }
};

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
