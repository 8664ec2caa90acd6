// kinetoscope-cli summarize, and ranks on a folder of summaries: the cross-rank result from
// summaries alone equals the one from the full traces (per-rank table, every collective, the
// straggler verdict) on the DDP and straggler fixtures and a merged collected file; summaries
// are small; a corrupt summary or one of another version is named and the job is analysed
// without it; the MPI path under mpirun where this build has it.
#include "bench/tiler/tracetiler.h"
#include "clirun.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

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

    // `mpirun -n 2 --oversubscribe kinetoscope-cli summarize --mpi -o OUT FILES`; false (the test
    // skipped) where this machine has no mpirun or this build no MPI.
    static bool summarizeWithMpi(const QString& out, const QStringList& files, int* status, QByteArray* stdoutText,
                                 QByteArray* stderrText, const QStringList& options = {})
    {
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        if (mpirun.isEmpty())
            return false;
        *status = run(mpirun,
                      QStringList{QStringLiteral("-n"), QStringLiteral("2"), QStringLiteral("--oversubscribe"),
                                  QStringLiteral("--allow-run-as-root"), QStringLiteral(KS_CLI),
                                  QStringLiteral("summarize"), QStringLiteral("--mpi"), QStringLiteral("-o"), out}
                          + options + files,
                      stdoutText, stderrText);
        return !(*status == 2 && stderrText->contains("no MPI support"));
    }

    static nlohmann::json readJson(const QString& path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
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

    // Every summary of every fixture trace is at most 1 % of its trace's JSON, except where the
    // summary's core (identity, totals: about 0.7 kB) alone is more: square (18 kB of JSON) keeps
    // only that. The view's parts are left out, least useful first, to keep to the bound.
    void summariesAreSmall()
    {
        namespace fs = std::filesystem;
        QTemporaryDir out;
        const std::string suffix = ".pt.trace.json.gz";
        std::vector<std::string> stems;
        for (const auto& entry : fs::directory_iterator(KS_TEST_DATA)) {
            const std::string name = entry.path().filename().string();
            if (name.size() > suffix.size() && name.ends_with(suffix))
                stems.push_back(name.substr(0, name.size() - suffix.size()));
        }
        std::sort(stems.begin(), stems.end());
        QVERIFY(stems.size() >= 15);
        QStringList args{QStringLiteral("summarize"), QStringLiteral("-o"), out.path()};
        for (const auto& stem : stems)
            args << data((stem + suffix).c_str());
        QCOMPARE(cli(args), 0);
        const fs::path outDir = out.path().toStdString();
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
                std::ifstream in(summary);
                const auto s = nlohmann::json::parse(in);
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
        QFile file(out.filePath(QStringLiteral("ddp_rank0.summary.json")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto s = nlohmann::json::parse(file.readAll().toStdString());
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

    // --timings: one line for the process, counting its summaries and failures, with the phases
    // and the worker's parts; the parts' CPU is within the process's.
    void timingsNameThePhases()
    {
        QTemporaryDir out;
        QByteArray stdoutText, stderrText;
        QCOMPARE(cli({QStringLiteral("summarize"), QStringLiteral("--timings"), QStringLiteral("-o"), out.path(),
                      data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")},
                     &stdoutText, &stderrText),
                 0);
        const std::string text = stderrText.constData();
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
        QTemporaryDir out;
        QByteArray stdoutText, stderrText;
        int status = -1;
        if (!summarizeWithMpi(out.path(),
                              {data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")},
                              &status, &stdoutText, &stderrText))
            QSKIP("no mpirun (openmpi-bin) here, or this build has no MPI (libopenmpi-dev)");
        QVERIFY2(status == 0, stderrText.constData());
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("straggler_rank0.summary.json"))));
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("straggler_rank1.summary.json"))));
        const auto j = readJson(out.filePath(QStringLiteral("job.ranks.json")));
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(j["missing_ranks"].empty());
        QVERIFY(stdoutText.contains("rank 1 is the straggler"));
    }

    // One rank's file is corrupt: it is named, the other rank's summary is written, and process 0
    // still writes the job's result from the summary it has, naming the missing rank.
    void mpiNamesTheFailedFileAndTheMissingRank()
    {
        QTemporaryDir out, traces;
        QFile corrupt(traces.filePath(QStringLiteral("straggler_rank1.pt.trace.json")));
        QVERIFY(corrupt.open(QIODevice::WriteOnly));
        corrupt.write("\x01\x02 this is no trace");
        corrupt.close();
        QByteArray stdoutText, stderrText;
        int status = -1;
        if (!summarizeWithMpi(out.path(), {data("straggler_rank0.pt.trace.json.gz"), corrupt.fileName()}, &status,
                              &stdoutText, &stderrText))
            QSKIP("no mpirun (openmpi-bin) here, or this build has no MPI (libopenmpi-dev)");
        QCOMPARE(status, 1);
        QVERIFY2(stderrText.contains("straggler_rank1.pt.trace.json: "), stderrText.constData());
        QVERIFY2(stderrText.contains("rank(s) 1 of world size 2 have no summary"), stderrText.constData());
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("straggler_rank0.summary.json"))));
        QVERIFY(!QFile::exists(out.filePath(QStringLiteral("straggler_rank1.summary.json"))));
        const auto j = readJson(out.filePath(QStringLiteral("job.ranks.json")));
        QCOMPARE(j["ranks"].size(), std::size_t(1));
        QCOMPARE(j["ranks"][0]["rank"].get<int>(), 0);
        QVERIFY(j["missing_ranks"] == nlohmann::json({1}));
        QVERIFY(stdoutText.contains("1 failed"));
    }

    // Generated ranks (the benchmarks' job: clock jitter, a planted straggler and slow link),
    // summarized by two MPI processes: the job's result names the planted straggler.
    void mpiFindsThePlantedStragglerOfGeneratedRanks()
    {
        constexpr int kRanks = 8;
        const ks::bench::PlantedJob job = ks::bench::plantedJob(kRanks);
        QCOMPARE(job.straggler, 5);
        QTemporaryDir out, traces;
        const auto sources = ks::bench::tilersInStep(
            {KS_TEST_DATA "/ddp_rank0.pt.trace.json.gz", KS_TEST_DATA "/ddp_rank1.pt.trace.json.gz"});
        QStringList files;
        for (int r = 0; r < kRanks; ++r) {
            files << traces.filePath(QStringLiteral("rank%1.pt.trace.json").arg(r));
            QVERIFY(sources[std::size_t(r % 2)]
                        .write(files.back().toStdString(), 0, 1, job.variants[std::size_t(r)])
                        .error.empty());
        }
        QByteArray stdoutText, stderrText;
        int status = -1;
        if (!summarizeWithMpi(out.path(), files, &status, &stdoutText, &stderrText, {QStringLiteral("--timings")}))
            QSKIP("no mpirun (openmpi-bin) here, or this build has no MPI (libopenmpi-dev)");
        QVERIFY2(status == 0, stderrText.constData());
        QCOMPARE(QDir(out.path()).entryList({QStringLiteral("*.summary.json")}).size(), kRanks);
        // The processes claimed the files one by one: each summarized once, by one of the two
        // (--timings counts them per process), and the claims are gone.
        const std::string timings = stderrText.constData();
        const std::regex perProcess(R"(timings process (\d)/2 \((\d+) summaries, 0 failures\))");
        int summaries = 0;
        std::set<int> processes;
        for (std::sregex_iterator m(timings.begin(), timings.end(), perProcess), end; m != end; ++m) {
            processes.insert(std::stoi((*m)[1]));
            summaries += std::stoi((*m)[2]);
        }
        QVERIFY2(processes == (std::set<int>{0, 1}), timings.c_str());
        QCOMPARE(summaries, kRanks);
        QVERIFY2(timings.find("MPI_Init") != std::string::npos && timings.find("files/load") != std::string::npos,
                 timings.c_str());
        const auto entries = std::distance(std::filesystem::directory_iterator(out.path().toStdString()),
                                           std::filesystem::directory_iterator());
        QCOMPARE(entries, std::ptrdiff_t(kRanks + 1)); // the summaries and job.ranks.json
        const auto j = readJson(out.filePath(QStringLiteral("job.ranks.json")));
        QCOMPARE(j["ranks"].size(), std::size_t(kRanks));
        QCOMPARE(j["straggler"]["rank"].get<int>(), job.straggler);
        QVERIFY(j["straggler"]["rank"].get<int>() != job.slowLink);
        QVERIFY(j["missing_ranks"].empty());
    }
};

QTEST_MAIN(TestSummarizeCommand)
#include "tst_summarizecommand.moc"
