// The memory report and the Operator memory table on real profile_memory traces, against the
// TensorBoard plugin's own numbers (tests/data/reference/plugin_memory.json, made by
// tests/gpu/plugin_memory.py with the plugin's MemoryParser) and the fixtures' raw events read
// through nlohmann's DOM; bad input through small traces made here.
#include "core/analysis/memoryoptable.h"
#include "core/analysis/memoryreport.h"
#include "core/loading/loader.h"
#include "fixtureloader.h"
#include "testtraces.h"

#include <QTest>

#include <fstream>
#include <map>

using namespace ks;
using namespace ks::analysis;

namespace {

const nlohmann::json& pluginMemory()
{
    static const nlohmann::json reference = [] {
        std::ifstream in(std::string(KS_TEST_DATA) + "/reference/plugin_memory.json");
        return nlohmann::json::parse(in);
    }();
    return reference;
}

MemoryReport reportOf(const std::string& name)
{
    return makeMemoryReport(facts::makeTraceFacts(testing::fixtureTrace(name)));
}

MemoryReport reportOfText(std::string text)
{
    const LoadResult loaded = loadTraceFromMemory(std::move(text), "memory.json");
    return makeMemoryReport(facts::makeTraceFacts(loaded.trace));
}

std::string memoryEvent(double ts, std::int64_t bytes, std::uint64_t addr, std::int64_t total, int tid = 1)
{
    return R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":)" + std::to_string(tid)
        + R"(,"ts":)" + std::to_string(ts) + R"(,"args":{"Total Reserved":1048576,"Total Allocated":)"
        + std::to_string(total) + R"(,"Bytes":)" + std::to_string(bytes) + R"(,"Device Id":0,"Device Type":1,"Addr":)"
        + std::to_string(addr) + "}}";
}

} // namespace

class TstMemoryReport : public QObject {
    Q_OBJECT

private slots:
    void peaksEventsAndNeverFreedAreThePlugins_data()
    {
        QTest::addColumn<std::string>("fixture");
        QTest::newRow("train_baseline") << std::string("train_baseline");
        QTest::newRow("transformer") << std::string("transformer");
        QTest::newRow("big") << std::string("big");
        QTest::newRow("train_optimized") << std::string("train_optimized");
        QTest::newRow("compiled") << std::string("compiled"); // torch.compile's Inductor buffers
        QTest::newRow("cudagraphs") << std::string("cudagraphs"); // CUDA graphs' private pool
        QTest::newRow("cnn_amp") << std::string("cnn_amp");
        QTest::newRow("lstm") << std::string("lstm");
    }

    void peaksEventsAndNeverFreedAreThePlugins()
    {
        QFETCH(std::string, fixture);
        const std::string name = fixture;
        const MemoryReport report = reportOf(name);
        const auto& expected = pluginMemory()["traces"][name];
        QCOMPARE(report.devices.size(), expected.size());
        const TimeNs origin = report.facts->trace->startTime();
        for (const auto& [deviceName, plugin] : expected.items()) {
            const DeviceMemory* device = report.device(deviceName);
            QVERIFY2(device, deviceName.c_str());
            QCOMPARE(device->events.size(), plugin["events"].get<std::size_t>());
            QCOMPARE(device->peakAllocated, plugin["peak_allocated_bytes"].get<std::int64_t>());
            QCOMPARE(device->peakReserved, plugin["peak_reserved_bytes"].get<std::int64_t>());
            QVERIFY(std::abs(testing::nsToUs(device->peakTime - origin) - plugin["peak_time_us"].get<double>()) < 0.01);
            QCOMPARE(device->neverFreed, plugin["never_freed"].get<std::uint64_t>());
            std::uint64_t paired = 0;
            for (const Allocation& a : device->allocations)
                paired += a.ended() && !a.addressReused;
            QCOMPARE(paired, plugin["paired_allocations"].get<std::uint64_t>());
            QCOMPARE(device->anomalies.unmatchedFrees, plugin["unmatched_free_addresses"].get<std::uint64_t>());
            QCOMPARE(device->anomalies.reusedAddresses, std::uint64_t(0));
            QCOMPARE(device->anomalies.negativeTotals, std::uint64_t(0));
        }
    }

    // What is alive at the peak is what the allocator's total says, less what was allocated
    // before the profile began (the first event's total before its own bytes) and what the
    // trace freed without having seen it allocated.
    void liveAtThePeakAddsUpToThePeak()
    {
        for (const char* name :
             {"train_baseline", "transformer", "big", "train_optimized", "compiled", "cudagraphs", "cnn_amp", "lstm"}) {
            const MemoryReport report = reportOf(name);
            for (const DeviceMemory& device : report.devices) {
                const MemoryEvent& first = report.events()[device.events.front()];
                std::int64_t unseenFreed = 0; // frees of blocks allocated before the trace, up to the peak
                std::map<std::uint64_t, int> open;
                for (std::uint32_t k = 0; k <= device.peakEvent; ++k) {
                    const MemoryEvent& e = report.events()[device.events[k]];
                    if (e.bytes > 0)
                        ++open[e.address];
                    else if (open[e.address] > 0)
                        --open[e.address];
                    else
                        unseenFreed += e.bytes;
                }
                const auto live = liveAllocations(device, device.peakEvent);
                std::int64_t liveBytes = 0;
                for (const std::uint32_t i : live)
                    liveBytes += device.allocations[i].bytes;
                const std::int64_t before = first.totalAllocated - first.bytes;
                QCOMPARE(liveBytes + before + unseenFreed, device.peakAllocated);
                for (std::size_t k = 1; k < live.size(); ++k) // largest first
                    QVERIFY(device.allocations[live[k - 1]].bytes >= device.allocations[live[k]].bytes);
            }
        }
    }

    // On train_baseline the peak is held by the forward pass's activations: the largest live
    // block at the GPU peak was allocated by an op inside a step that encloses its time.
    void theAllocatingOpEnclosesTheAllocation()
    {
        const MemoryReport report = reportOf("train_baseline");
        const Trace& trace = *report.facts->trace;
        const DeviceMemory* gpu = report.device("GPU0");
        QVERIFY(gpu);
        const auto live = liveAllocations(*gpu, gpu->peakEvent);
        QVERIFY(!live.empty());
        std::size_t withOp = 0;
        for (const std::uint32_t i : live) {
            const Allocation& a = gpu->allocations[i];
            if (a.op == kNoSlice)
                continue;
            ++withOp;
            QVERIFY(trace.slices().start[a.op] <= a.time && a.time < trace.slices().end(a.op));
            QVERIFY(isMemoryOwnerClass(trace.classOf(a.op)));
        }
        QCOMPARE(withOp, live.size());
        const Allocation& largest = gpu->allocations[live.front()];
        QVERIFY(trace.classOf(largest.op) == SliceClass::CpuOp);
    }

    // Every event on a device counts for one row's self columns; Calls is the number of ops
    // of that name in the file.
    void operatorTableAddsUpToEveryEvent()
    {
        for (const char* name :
             {"train_baseline", "transformer", "big", "train_optimized", "compiled", "cudagraphs", "cnn_amp", "lstm"}) {
            const MemoryReport report = reportOf(name);
            const auto tables = makeOperatorMemoryTables(report);
            QCOMPARE(tables.size(), report.devices.size());
            for (std::size_t d = 0; d < tables.size(); ++d) {
                std::int64_t allocated = 0, net = 0;
                std::uint64_t allocations = 0;
                for (const std::uint32_t i : report.devices[d].events) {
                    const std::int64_t bytes = report.events()[i].bytes;
                    net += bytes;
                    allocated += bytes > 0 ? bytes : 0;
                    allocations += bytes > 0;
                }
                std::int64_t selfAllocated = 0, selfNet = 0;
                std::uint64_t selfCount = 0;
                for (const OperatorMemoryRow& row : tables[d].rows) {
                    selfAllocated += row.selfAllocationSize;
                    selfNet += row.selfSizeIncrease;
                    selfCount += row.selfAllocationCount;
                    QVERIFY(row.allocationSize >= row.selfAllocationSize);
                    QVERIFY(row.allocationCount >= row.selfAllocationCount);
                }
                QCOMPARE(selfAllocated, allocated);
                QCOMPARE(selfNet, net);
                QCOMPARE(selfCount, allocations);
            }
        }
        // Calls against the file's cpu_op events of one name.
        const auto doc = nlohmann::json::parse(kstest::gunzipFile(kstest::fixture("train_baseline")));
        std::uint64_t addmmCalls = 0;
        for (const auto& e : doc["traceEvents"])
            addmmCalls += e.value("ph", "") == "X" && e.value("name", "") == "aten::addmm";
        const auto tables = makeOperatorMemoryTables(reportOf("train_baseline"));
        bool found = false;
        for (const OperatorMemoryTable& table : tables) {
            for (const OperatorMemoryRow& row : table.rows) {
                if (row.name == "aten::addmm") {
                    QCOMPARE(row.calls, addmmCalls);
                    found = true;
                }
            }
        }
        QVERIFY(found);
    }

    void badInputIsCountedNeverFatal()
    {
        std::string text =
            R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":0,"dur":25},)";
        text += memoryEvent(10, 512, 0x1000, 512) + ",";
        text += memoryEvent(20, -512, 0x2000, 0) + ","; // free of an unknown address
        text += memoryEvent(30, 256, 0x1000, 768) + ","; // reuse of a live address
        text += memoryEvent(40, std::int64_t(1) << 60, 0x3000, -5) + ","; // absurd, negative total
        text += memoryEvent(50, -128, 0x1000, 640) + ","; // size mismatch
        text += memoryEvent(60, 64, 0x4000, 704) + "]}"; // never freed
        const MemoryReport report = reportOfText(text);
        QCOMPARE(report.devices.size(), std::size_t(1));
        const DeviceMemory& gpu = report.devices[0];
        QCOMPARE(gpu.name, std::string("GPU0"));
        QCOMPARE(gpu.events.size(), std::size_t(6));
        QCOMPARE(gpu.anomalies.unmatchedFrees, std::uint64_t(1));
        QCOMPARE(gpu.anomalies.reusedAddresses, std::uint64_t(1));
        QCOMPARE(gpu.anomalies.absurdSizes, std::uint64_t(1));
        QCOMPARE(gpu.anomalies.negativeTotals, std::uint64_t(1));
        QCOMPARE(gpu.anomalies.sizeMismatches, std::uint64_t(1));
        QCOMPARE(gpu.neverFreed, std::uint64_t(1));
        QCOMPARE(gpu.peakAllocated, std::int64_t(768));
        QCOMPARE(gpu.peakEvent, 2u);
        QCOMPARE(gpu.allocations.size(), std::size_t(3));
        QVERIFY(gpu.allocations[0].addressReused);
        QCOMPARE(report.facts->trace->str(report.facts->trace->slices().name[gpu.allocations[0].op]),
                 std::string_view("aten::empty"));
        QCOMPARE(gpu.allocations[2].op, kNoSlice); // after the op's end
        // At the peak only the reusing allocation is alive (the lost one ended with the reuse).
        const auto live = liveAllocations(gpu, gpu.peakEvent);
        QCOMPARE(live.size(), std::size_t(1));
        QCOMPARE(gpu.allocations[live[0]].bytes, std::int64_t(256));
        const auto tables = makeOperatorMemoryTables(report);
        QCOMPARE(tables[0].rows.size(), std::size_t(2)); // aten::empty and <unknown>
        // An empty trace and one without memory events have no device.
        QVERIFY(reportOfText(R"({"traceEvents":[]})").devices.empty());
    }
};

QTEST_GUILESS_MAIN(TstMemoryReport)
#include "tst_memoryreport.moc"
