// kinetoscope-cli ranks --json: the JSON contract on the DDP fixtures, file order not
// mattering, a folder, and one corrupt file of three.
#include "clirun.h"
#include "testfiles.h"
#include "testtext.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <filesystem>

class TestRanksCommand : public QObject {
    Q_OBJECT
private:
    static std::string data(const char* name) { return std::string(KS_TEST_DATA "/") + name; }

    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(kstest::concat({"ranks"}, args), out, err);
    }

    static nlohmann::json ranksJson(const std::vector<std::string>& files)
    {
        return kstest::runCliJson(kstest::concat({"ranks", "--json"}, files));
    }

private Q_SLOTS:
    void jsonContract()
    {
        const auto j = ranksJson({data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")});
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        for (int r = 0; r < 2; ++r) {
            const auto& rank = j["ranks"][r];
            QCOMPARE(rank["rank"].get<int>(), r);
            QVERIFY(rank["file"].get<std::string>().ends_with("ddp_rank" + std::to_string(r) + ".pt.trace.json.gz"));
            QCOMPARE(rank["steps"].get<int>(), 3);
            for (const char* key : {"step_time_us", "kernel_time_us", "collective_time_us", "collective_wait_us"})
                QVERIFY(rank[key].get<double>() > 0);
        }
        QCOMPARE(j["collectives"].size(), std::size_t(6));
        const auto& first = j["collectives"][0];
        QCOMPARE(first["process_group"].get<std::string>(), std::string("0"));
        QCOMPARE(first["seq"].get<int>(), 0);
        QCOMPARE(first["name"].get<std::string>(), std::string("allreduce"));
        QCOMPARE(first["bytes"].get<long long>(), 1049088LL * 4);
        QCOMPARE(first["last_rank"].get<int>(), 0);
        // Rank 1 started at 4516938316665.764 µs, rank 0 at 4516938320399.939 µs.
        QCOMPARE(first["ranks"][1]["start_us"].get<double>(), 4516938316665.764);
        QCOMPARE(first["ranks"][0]["start_us"].get<double>(), 4516938320399.939);
        QCOMPARE(first["max_wait_us"].get<double>(), 3734.175);
        QCOMPARE(j["straggler"]["rank"].get<int>(), 0);
        QCOMPARE(j["straggler"]["consistent"].get<bool>(), false);
        QCOMPARE(j["straggler"]["wait_caused_us"].get<double>(), j["ranks"][0]["wait_caused_us"].get<double>());
        QCOMPARE(j["ranks"][1]["collective_wait_us"].get<double>(), j["ranks"][0]["wait_caused_us"].get<double>());
    }

    void fileOrderDoesNotMatter()
    {
        auto a = ranksJson({data("ddp_rank0.pt.trace.json.gz"), data("ddp_rank1.pt.trace.json.gz")});
        auto b = ranksJson({data("ddp_rank1.pt.trace.json.gz"), data("ddp_rank0.pt.trace.json.gz")});
        a.erase("match_ms");
        b.erase("match_ms");
        QVERIFY(!a.empty());
        QVERIFY(a == b);
    }

    void oneCorruptFileOfThree()
    {
        kstest::TempDir dir;
        for (const char* name : {"ddp_rank0.pt.trace.json.gz", "ddp_rank1.pt.trace.json.gz"})
            QVERIFY(std::filesystem::copy_file(data(name), dir.filePath(name)));
        QVERIFY(kstest::writeFile(dir.filePath("ddp_rank2.pt.trace.json"),
                                  "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"x\", \"ts\": 1, \"dur\": \xff"));
        std::string out, err;
        QCOMPARE(run({"--json", dir.path()}, &out, &err), 0);
        const auto j = nlohmann::json::parse(out);
        QCOMPARE(j["ranks"].size(), std::size_t(2));
        QCOMPARE(j["collectives"].size(), std::size_t(6));
        QCOMPARE(j["errors"].size(), std::size_t(1));
        QVERIFY(j["errors"][0]["file"].get<std::string>().ends_with("ddp_rank2.pt.trace.json"));
        QVERIFY(kstest::contains(err, "ddp_rank2.pt.trace.json"));
    }

    void stragglerNamedAndText()
    {
        const auto j = ranksJson({data("straggler_rank1.pt.trace.json.gz"), data("straggler_rank0.pt.trace.json.gz")});
        QCOMPARE(j["straggler"]["rank"].get<int>(), 1);
        QCOMPARE(j["straggler"]["consistent"].get<bool>(), true);
        std::string out;
        QCOMPARE(run({data("straggler_rank0.pt.trace.json.gz"), data("straggler_rank1.pt.trace.json.gz")}, &out), 0);
        QVERIFY(kstest::contains(out, "rank 1 is the straggler"));
        QVERIFY(kstest::contains(out, "Rank 1 \xC2\xB7 straggler_rank1"));
    }

    void badInput()
    {
        kstest::TempDir dir;
        std::string err;
        QCOMPARE(run({dir.path()}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "no trace files"));
        QCOMPARE(run({}), 2);
        QCOMPARE(run({"--bogus", data("ddp_rank0.pt.trace.json.gz")}), 2);
    }
};

QTEST_GUILESS_MAIN(TestRanksCommand)
#include "tst_rankscommand.moc"
