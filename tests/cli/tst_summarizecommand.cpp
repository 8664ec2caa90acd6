// kinetoscope-cli summarize, and ranks on a folder of summaries: the cross-rank result from
// summaries alone equals the one from the full traces (per-rank table, every collective, the
// straggler verdict) on the DDP and straggler fixtures and a merged collected file; summaries
// are small; a corrupt summary or one of another version is named and the job is analysed
// without it; the MPI path under mpirun where this build has it.
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

class TestSummarizeCommand : public QObject {
    Q_OBJECT
private:
    static QString data(const char* name) { return QStringLiteral(KS_TEST_DATA "/") + QLatin1String(name); }

    static int run(const QString& program, const QStringList& args, QByteArray* out = nullptr,
                   QByteArray* err = nullptr)
    {
        return kstest::runProgram(program, args, out, err);
    }
    static int cli(const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr)
    {
        return kstest::runCli(args, out, err);
    }

    static nlohmann::json ranksJson(const QStringList& inputs)
    {
        return kstest::runCliJson(QStringList{QStringLiteral("ranks"), QStringLiteral("--json")} + inputs);
    }

    static std::uint64_t inflatedSize(const QString& path)
    {
        gzFile file = gzopen(path.toLocal8Bit().constData(), "rb");
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
        QTest::addColumn<QStringList>("files");
        QTest::newRow("ddp") << QStringList{data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")};
        QTest::newRow("straggler") << QStringList{data("straggler_rank1.pt.trace.json.gz"),
                                                  data("straggler_rank0.pt.trace.json.gz")};
        QTest::newRow("merged nccl") << QStringList{data("collected_nccl_merged.pt.trace.json.gz")};
    }
    void summariesGiveTheFullResult()
    {
        QFETCH(QStringList, files);
        QTemporaryDir out;
        QByteArray stdoutText, stderrText;
        QCOMPARE(cli(QStringList{QStringLiteral("summarize"), QStringLiteral("-o"), out.path()} + files, &stdoutText,
                     &stderrText),
                 0);
        const QStringList summaries = QDir(out.path()).entryList({QStringLiteral("*.summary.json")});
        QVERIFY2(summaries.size() >= files.size(), stderrText.constData());
        const auto full = ranksJson(files);
        const auto fromSummaries = ranksJson({out.path()});
        QVERIFY(!full.empty());
        QVERIFY(!fromSummaries.empty());
        QVERIFY(!full["collectives"].empty());
        compareReports(full, fromSummaries);
    }

    void straggledRankIsNamedFromSummaries()
    {
        QTemporaryDir out;
        QCOMPARE(cli({QStringLiteral("summarize"), QStringLiteral("-o"), out.path(),
                      data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")}),
                 0);
        const auto j = ranksJson({out.path()});
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(j["straggler"]["verdict"].get<std::string>().starts_with("rank 1 is the straggler"));
    }

    // Each summary is at most 1 % of its trace's JSON.
    void summariesAreSmall()
    {
        QTemporaryDir out;
        const QString trace = data("ddp_rank0.pt.trace.json.gz");
        QCOMPARE(cli({QStringLiteral("summarize"), QStringLiteral("-o"), out.path(), trace}), 0);
        const QFileInfo summary(out.filePath(QStringLiteral("ddp_rank0.summary.json")));
        QVERIFY(summary.exists());
        const std::uint64_t json = inflatedSize(trace);
        QVERIFY(json > 1000000);
        QVERIFY2(double(summary.size()) <= 0.01 * double(json),
                 qPrintable(QStringLiteral("%1 of %2 bytes").arg(summary.size()).arg(json)));
        QFile file(summary.filePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto s = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(s["format"].get<std::string>(), std::string("kinetoscope-rank-summary"));
        QCOMPARE(s["identity"]["rank"].get<int>(), 0);
        QCOMPARE(s["steps"].size(), std::size_t(3));
        QVERIFY(!s["view"]["top_kernels"].empty());
        QVERIFY(!s["view"]["step_breakdown"].empty());
    }

    // A corrupt summary and ones of other versions are named; the others are analysed.
    void badSummariesAreNamedAndLeftOut()
    {
        QTemporaryDir out;
        QCOMPARE(cli({QStringLiteral("summarize"), QStringLiteral("-o"), out.path(), data("ddp_rank0.pt.trace.json.gz"),
                      data("ddp_rank1.pt.trace.json.gz"), data("straggler_rank0.pt.trace.json.gz")}),
                 0);
        QFile straggler(out.filePath(QStringLiteral("straggler_rank0.summary.json")));
        QVERIFY(straggler.open(QIODevice::ReadOnly));
        auto s = nlohmann::json::parse(straggler.readAll().toStdString());
        straggler.close();
        s["version"] = 99;
        QVERIFY(straggler.open(QIODevice::WriteOnly | QIODevice::Truncate));
        straggler.write(QByteArray::fromStdString(s.dump()));
        straggler.close();
        QFile corrupt(out.filePath(QStringLiteral("broken.summary.json")));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        corrupt.write("{\"format\": \"kinetoscope-rank-summary\", \"version\": 1, \"identity\": ");
        corrupt.close();
        QFile old(out.filePath(QStringLiteral("old.summary.json"))); // version 1: collectives as objects
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write(R"({"format": "kinetoscope-rank-summary", "version": 1, "steps": [[1, 10, 20]],
                      "collectives": [{"start": 12, "end": 14, "name": "allreduce"}]})");
        old.close();

        QByteArray stdoutText, stderrText;
        QCOMPARE(cli({QStringLiteral("ranks"), QStringLiteral("--json"), out.path()}, &stdoutText, &stderrText), 0);
        QVERIFY(stderrText.contains(
            "straggler_rank0.summary.json: rank summary format version 99, this build reads version 2"));
        QVERIFY(stderrText.contains("broken.summary.json: not valid JSON"));
        QVERIFY(stderrText.contains("old.summary.json: rank summary format version 1, this build reads version 2"));
        const auto j = nlohmann::json::parse(stdoutText.toStdString());
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["errors"].size(), std::size_t(3));
        compareReports(ranksJson({data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")}), j);
    }

    void missingFileIsNamedAndTheOthersSummarized()
    {
        QTemporaryDir out;
        QByteArray stdoutText, stderrText;
        QCOMPARE(cli({QStringLiteral("summarize"), QStringLiteral("-o"), out.path(), data("ddp_rank0.pt.trace.json.gz"),
                      out.filePath(QStringLiteral("missing.json"))},
                     &stdoutText, &stderrText),
                 1);
        QVERIFY(stderrText.contains("missing.json"));
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("ddp_rank0.summary.json"))));
    }

    // Two MPI processes (CI runs this with Debian's OpenMPI): the files spread over both, and
    // process 0 writes the job's cross-rank result beside the summaries.
    void mpiSpreadsTheFilesAndWritesTheJob()
    {
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        if (mpirun.isEmpty())
            QSKIP("no mpirun (openmpi-bin) on this machine");
        QTemporaryDir out;
        QByteArray stdoutText, stderrText;
        const int status = run(mpirun,
                               {QStringLiteral("-n"), QStringLiteral("2"), QStringLiteral("--oversubscribe"),
                                QStringLiteral("--allow-run-as-root"), QStringLiteral(KS_CLI),
                                QStringLiteral("summarize"), QStringLiteral("--mpi"), QStringLiteral("-o"), out.path(),
                                data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")},
                               &stdoutText, &stderrText);
        if (status == 2 && stderrText.contains("no MPI support"))
            QSKIP("this build has no MPI (libopenmpi-dev was missing when it was configured)");
        QVERIFY2(status == 0, stderrText.constData());
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("straggler_rank0.summary.json"))));
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("straggler_rank1.summary.json"))));
        QFile job(out.filePath(QStringLiteral("job.ranks.json")));
        QVERIFY(job.open(QIODevice::ReadOnly));
        const auto j = nlohmann::json::parse(job.readAll().toStdString());
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(stdoutText.contains("rank 1 is the straggler"));
    }
};

QTEST_MAIN(TestSummarizeCommand)
#include "tst_summarizecommand.moc"
