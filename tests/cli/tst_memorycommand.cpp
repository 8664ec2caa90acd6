// kinetoscope-cli memory: the JSON contract on real traces, checked against the fixtures' raw
// [memory] events (nlohmann's DOM) and the plugin's numbers (reference/plugin_memory.json);
// text output; bad input.
#include "clirun.h"
#include "testtext.h"
#include "testtraces.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <fstream>
#include <map>

class TstMemoryCommand : public QObject {
    Q_OBJECT
private:
    static int run(const std::vector<std::string>& args, std::string* out = nullptr, std::string* err = nullptr)
    {
        return kstest::runCli(kstest::concat({"memory"}, args), out, err);
    }

private Q_SLOTS:
    void jsonContract_data()
    {
        QTest::addColumn<std::string>("fixture");
        QTest::newRow("train_baseline") << std::string("train_baseline");
        QTest::newRow("transformer") << std::string("transformer");
        QTest::newRow("big") << std::string("big");
    }

    void jsonContract()
    {
        QFETCH(std::string, fixture);
        const std::string name = fixture;
        std::string out;
        QCOMPARE(run({"--json", kstest::fixture(name.c_str())}, &out), 0);
        const auto doc = nlohmann::json::parse(out);

        // Per device, from the raw events: allocated bytes and the number of events.
        std::map<std::string, std::int64_t> allocated;
        std::map<std::string, std::size_t> events;
        const auto raw = nlohmann::json::parse(kstest::gunzipFile(kstest::fixture(name.c_str())));
        for (const auto& e : raw["traceEvents"]) {
            if (e.value("name", "") != "[memory]")
                continue;
            const auto& args = e["args"];
            const int type = args.value("Device Type", -1);
            const std::string device = type == 0 ? "CPU" : "GPU" + std::to_string(args.value("Device Id", -1));
            ++events[device];
            allocated[device] += std::max<std::int64_t>(0, args["Bytes"].get<std::int64_t>());
        }
        std::ifstream in(std::string(KS_TEST_DATA) + "/reference/plugin_memory.json");
        const auto plugin = nlohmann::json::parse(in)["traces"][name];

        QCOMPARE(doc["devices"].size(), events.size());
        for (const auto& device : doc["devices"]) {
            const std::string id = device["device"];
            QCOMPARE(device["events"].get<std::size_t>(), events[id]);
            QCOMPARE(device["peak_allocated_bytes"].get<std::int64_t>(),
                     plugin[id]["peak_allocated_bytes"].get<std::int64_t>());
            QCOMPARE(device["peak_reserved_bytes"].get<std::int64_t>(),
                     plugin[id]["peak_reserved_bytes"].get<std::int64_t>());
            QVERIFY(std::abs(device["peak_time_us"].get<double>() - plugin[id]["peak_time_us"].get<double>()) < 0.01);
            QCOMPARE(device["never_freed"].get<std::uint64_t>(), plugin[id]["never_freed"].get<std::uint64_t>());
            std::int64_t previous = INT64_MAX, live = 0;
            for (const auto& block : device["live_at_peak"]) {
                QVERIFY(block["bytes"].get<std::int64_t>() <= previous);
                previous = block["bytes"].get<std::int64_t>();
                live += previous;
                QVERIFY(!block["op"].get<std::string>().empty());
                QVERIFY(block["alloc_time_us"].get<double>() <= device["peak_time_us"].get<double>());
            }
            QVERIFY(live <= device["peak_allocated_bytes"].get<std::int64_t>());
        }
        // The ops' self allocation sizes add up to every allocation of the device.
        std::map<std::string, std::int64_t> selfAllocated;
        for (const auto& op : doc["ops"]) {
            for (const char* key : {"name", "calls", "size_increase_bytes", "self_size_increase_bytes",
                                    "allocation_count", "self_allocation_count", "allocation_size_bytes"})
                QVERIFY2(op.contains(key), key);
            selfAllocated[op["device"]] += op["self_allocation_size_bytes"].get<std::int64_t>();
        }
        QCOMPARE(selfAllocated, allocated);
    }

    void textNamesThePeakAndItsOps()
    {
        std::string out;
        QCOMPARE(run({kstest::fixture("train_baseline")}, &out), 0);
        QVERIFY(kstest::contains(out, "GPU0: peak 543.6 MB allocated"));
        QVERIFY(kstest::contains(out, "alive at the peak"));
        QVERIFY(kstest::contains(out, "aten::"));
    }

    void withoutMemoryEventsOrFile()
    {
        std::string out;
        QCOMPARE(run({"--json", kstest::fixture("square")}, &out), 0);
        const auto doc = nlohmann::json::parse(out);
        QVERIFY(doc["devices"].empty());
        QVERIFY(doc["ops"].empty());
        std::string err;
        QCOMPARE(run({"/nonexistent.json"}, nullptr, &err), 1);
        QVERIFY(kstest::contains(err, "kinetoscope-cli memory"));
        QCOMPARE(run({}), 2);
    }
};

QTEST_GUILESS_MAIN(TstMemoryCommand)
#include "tst_memorycommand.moc"
