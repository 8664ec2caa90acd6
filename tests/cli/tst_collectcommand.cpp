// `kinetoscope-cli collect` end to end on a fake traced program (no GPU): exit status,
// the written file read back by our loader, errors for programs that are missing or never
// use CUDA, and a crashed target.
#include "core/loading/loader.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace {

struct Run {
    int exitCode = -1;
    QString output;
};

Run collect(const QStringList& arguments)
{
    QProcess process;
    auto env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("CUDA_INJECTION64_PATH"));
    // The fake target never loads it; it only has to exist.
    env.insert(QStringLiteral("KINETOSCOPE_INJECTION_LIBRARY"), QStringLiteral(KS_FAKE_TARGET));
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral(KS_CLI), QStringList{QStringLiteral("collect")} + arguments);
    if (!process.waitForFinished(30000))
        return {};
    return {process.exitCode(), QString::fromUtf8(process.readAll())};
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
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fake.pt.trace.json.gz"));
        const Run run = collect({QStringLiteral("-o"), file, QStringLiteral("--"), QStringLiteral(KS_FAKE_TARGET),
                                 QStringLiteral("5"), QStringLiteral("3")});
        QVERIFY2(run.exitCode == 3, qPrintable(run.output)); // the target's exit code
        QVERIFY2(run.output.contains(QStringLiteral("1 process traced, 50 kernels")), qPrintable(run.output));
        QVERIFY2(run.output.contains(QStringLiteral("0 dropped records")), qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(file.toStdString());
        QVERIFY(loaded.ok());
        const ks::Trace& t = *loaded.trace;
        QCOMPARE(countNamed(t, "fakeKernel(float*, int)"), std::size_t(50));
        QCOMPARE(countNamed(t, "cudaLaunchKernel"), std::size_t(50));
        QCOMPARE(t.flows().size(), std::size_t(50));
        QVERIFY(t.baseTimeNs() % 1000000000 == 0);
        QVERIFY2(!run.output.contains(QStringLiteral("after the program's last records")), qPrintable(run.output));
    }

    // stats=1: the stages after the program's GOODBYE, the trace written while it still exits
    // (the fake target exits 3 right after it): every launch in the file, its exit code kept.
    void stageTimersOnRequest()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("fake.pt.trace.json"));
        const Run run =
            collect({QStringLiteral("--collector-options"), QStringLiteral("stats=1"), QStringLiteral("-o"), file,
                     QStringLiteral("--"), QStringLiteral(KS_FAKE_TARGET), QStringLiteral("4"), QStringLiteral("3")});
        QVERIFY2(run.exitCode == 3, qPrintable(run.output));
        for (const char* stage : {"collect: after the program's last records: connections closed", "built", "written",
                                  "program exited", "Receiving thread:"})
            QVERIFY2(run.output.contains(QString::fromUtf8(stage)), qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(file.toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(countNamed(*loaded.trace, "fakeKernel(float*, int)"), std::size_t(40));
    }

    void durationStopsRecordingOnly()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("partial.pt.trace.json"));
        // 30 batches, 100 ms apart: the program outlives the 1 s recording and exits 0.
        const Run run = collect({QStringLiteral("--duration"), QStringLiteral("1"), QStringLiteral("-o"), file,
                                 QStringLiteral(KS_FAKE_TARGET), QStringLiteral("30")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        QVERIFY2(run.output.contains(QStringLiteral("recording stopped after 1 s")), qPrintable(run.output));
        QVERIFY2(!run.output.contains(QStringLiteral("crashed")), qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(file.toStdString());
        QVERIFY(loaded.ok());
        const std::size_t kernels = countNamed(*loaded.trace, "fakeKernel(float*, int)");
        QVERIFY2(kernels > 0 && kernels < 300, qPrintable(QString::number(kernels)));
    }

    // Two traced processes below the program: a file each by default, one with --merge. They
    // are ranks as torchrun starts them (RANK, WORLD_SIZE, LOCAL_RANK): each file has kineto's
    // distributedInfo, the merged one each rank's under distributedRanks.
    void filePerProcessOrMerged()
    {
        QTemporaryDir dir;
        const QString script = QStringLiteral("RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 '%1' 2 & "
                                              "RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 '%1' 3; wait")
                                   .arg(QStringLiteral(KS_FAKE_TARGET));
        const QString file = dir.filePath(QStringLiteral("two.pt.trace.json"));
        Run run = collect({QStringLiteral("-o"), file, QStringLiteral("--"), QStringLiteral("/bin/sh"),
                           QStringLiteral("-c"), script});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        QVERIFY2(run.output.contains(QStringLiteral("2 processes traced, 50 kernels")), qPrintable(run.output));
        const QStringList files = QDir(dir.path()).entryList({QStringLiteral("two.*.pt.trace.json")});
        QCOMPARE(files.size(), 2);
        std::vector<std::size_t> counts;
        for (const QString& f : files) {
            const auto trace = ks::loadTraceFile(dir.filePath(f).toStdString()).trace;
            counts.push_back(countNamed(*trace, "fakeKernel(float*, int)"));
            const auto info = metadataJson(*trace, "distributedInfo");
            // The rank that ran 2 batches is rank 0.
            QCOMPARE(info.value("rank", -1), counts.back() == 20 ? 0 : 1);
            QCOMPARE(info.value("world_size", -1), 2);
            QVERIFY2(!info.contains("backend"), "no collectives: the backend is unknown");
        }
        std::sort(counts.begin(), counts.end());
        QCOMPARE(counts, (std::vector<std::size_t>{20, 30}));

        const QString merged = dir.filePath(QStringLiteral("merged.pt.trace.json"));
        run = collect({QStringLiteral("--merge"), QStringLiteral("-o"), merged, QStringLiteral("--"),
                       QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(merged.toStdString());
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
        const Run run = collect({QStringLiteral("--"), QStringLiteral("/nonexistent/program")});
        QCOMPARE(run.exitCode, 127);
        QVERIFY(run.output.contains(QStringLiteral("No such file")));
    }

    void programWithoutCuda()
    {
        const Run run = collect({QStringLiteral("--"), QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.output.contains(QStringLiteral("exited without using CUDA")), qPrintable(run.output));
    }

    void crashedTargetKeepsItsData()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("crash.pt.trace.json"));
        const Run run = collect({QStringLiteral("-o"), file, QStringLiteral("--"), QStringLiteral(KS_FAKE_TARGET),
                                 QStringLiteral("3"), QStringLiteral("kill")});
        QCOMPARE(run.exitCode, 128 + 9);
        QVERIFY2(run.output.contains(QStringLiteral("crashed or was killed")), qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(file.toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(countNamed(*loaded.trace, "fakeKernel(float*, int)"), std::size_t(30));
    }

    // A capture range that never opens: a clear message and a trace that loads, without events.
    void captureRangeThatNeverOpens()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("none.pt.trace.json"));
        const Run run = collect({QStringLiteral("--capture-range=cudaProfilerApi"), QStringLiteral("-o"), file,
                                 QStringLiteral(KS_FAKE_TARGET), QStringLiteral("2")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.output));
        QVERIFY2(run.output.contains(QStringLiteral("never called cudaProfilerStart")), qPrintable(run.output));
        const auto loaded = ks::loadTraceFile(file.toStdString());
        QVERIFY(loaded.ok());
        QCOMPARE(loaded.trace->slices().size(), std::size_t(0));
        QVERIFY(loaded.trace->baseTimeNs() % 1000000000 == 0);
    }

    void usageErrors()
    {
        QCOMPARE(collect({QStringLiteral("--capture-range=nvtx:"), QStringLiteral("/bin/true")}).exitCode, 2);
        QCOMPARE(collect({QStringLiteral("--capture-range=cudaProfiler"), QStringLiteral("/bin/true")}).exitCode, 2);
        QCOMPARE(collect({QStringLiteral("--delay"), QStringLiteral("-2"), QStringLiteral("/bin/true")}).exitCode, 2);
        QCOMPARE(collect({}).exitCode, 2);
        QCOMPARE(collect({QStringLiteral("--duration"), QStringLiteral("-1"), QStringLiteral("/bin/true")}).exitCode,
                 2);
        QCOMPARE(collect({QStringLiteral("--env"), QStringLiteral("NOVALUE"), QStringLiteral("/bin/true")}).exitCode,
                 2);
    }

    // The injection cannot tell anyone about a bad option: collect rejects the list first.
    void badCollectorOptionsAreRejected()
    {
        const Run run = collect({QStringLiteral("--collector-options"), QStringLiteral("stats=1,consumer=none"),
                                 QStringLiteral("/bin/true")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.output.contains(QStringLiteral("bad collector option 'consumer=none'")), qPrintable(run.output));
        QVERIFY2(run.output.contains(QStringLiteral("consumer=translate|drop")), qPrintable(run.output));
        QCOMPARE(
            collect({QStringLiteral("--collector-options"), QStringLiteral("flush_ms=0"), QStringLiteral("/bin/true")})
                .exitCode,
            2);
    }
};

QTEST_GUILESS_MAIN(TestCollectCommand)
#include "tst_collectcommand.moc"
