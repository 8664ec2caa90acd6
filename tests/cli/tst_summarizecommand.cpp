// kinetoscope-cli summarize, and ranks on a folder of summaries: the cross-rank result from
// summaries alone equals the one from the full traces (per-rank table, every collective, the
// straggler verdict) on the DDP and straggler fixtures and a merged collected file; summaries
// are small; a corrupt summary or one of another version is named and the job is analysed
// without it; the MPI path under mpirun where this build has it.
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <filesystem>

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

    // Each summary is at most 1 % of its trace's JSON.
    void summariesAreSmall()
    {
        kstest::TempDir out;
        const std::string trace = data("ddp_rank0.pt.trace.json.gz");
        QCOMPARE(cli({"summarize", "-o", out.path(), trace}), 0);
        const std::string summary = out.filePath("ddp_rank0.summary.json");
        QVERIFY(std::filesystem::exists(summary));
        const std::uint64_t json = inflatedSize(trace);
        QVERIFY(json > 1000000);
        const std::uint64_t size = std::filesystem::file_size(summary);
        QVERIFY2(double(size) <= 0.01 * double(json),
                 (std::to_string(size) + " of " + std::to_string(json) + " bytes").c_str());
        const auto s = nlohmann::json::parse(kstest::readFile(summary));
        QCOMPARE(s["format"].get<std::string>(), std::string("kinetoscope-rank-summary"));
        QCOMPARE(s["identity"]["rank"].get<int>(), 0);
        QCOMPARE(s["steps"].size(), std::size_t(3));
        QVERIFY(!s["view"]["top_kernels"].empty());
        QVERIFY(!s["view"]["step_breakdown"].empty());
    }

    // A corrupt summary and one of another version are named; the others are analysed.
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

        std::string stdoutText, stderrText;
        QCOMPARE(cli({"ranks", "--json", out.path()}, &stdoutText, &stderrText), 0);
        QVERIFY(kstest::contains(stderrText, "straggler_rank0.summary.json: rank summary format version 99"));
        QVERIFY(kstest::contains(stderrText, "broken.summary.json: not valid JSON"));
        const auto j = nlohmann::json::parse(stdoutText);
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["errors"].size(), std::size_t(2));
        compareReports(ranksJson({data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")}), j);
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
        const std::string mpirun = kstest::findExecutable("mpirun");
        if (mpirun.empty())
            QSKIP("no mpirun (openmpi-bin) on this machine");
        kstest::TempDir out;
        std::string stdoutText, stderrText;
        const int status =
            run(mpirun,
                {"-n", "2", "--oversubscribe", "--allow-run-as-root", std::string(KS_CLI), "summarize", "--mpi", "-o",
                 out.path(), data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")},
                &stdoutText, &stderrText);
        if (status == 2 && kstest::contains(stderrText, "no MPI support"))
            QSKIP("this build has no MPI (libopenmpi-dev was missing when it was configured)");
        QVERIFY2(status == 0, stderrText.c_str());
        QVERIFY(std::filesystem::exists(out.filePath("straggler_rank0.summary.json")));
        QVERIFY(std::filesystem::exists(out.filePath("straggler_rank1.summary.json")));
        const auto j = nlohmann::json::parse(kstest::readFile(out.filePath("job.ranks.json")));
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QVERIFY(kstest::contains(stdoutText, "rank 1 is the straggler"));
    }
};

QTEST_MAIN(TestSummarizeCommand)
#include "tst_summarizecommand.moc"
