// The operator table against torch's own key_averages() of the same session.
#include "core/facts/memoryevents.h"
#include "core/facts/tracefacts.h"
#include "core/loading/loader.h"
#include "core/model/timelimits.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "core/stats/rangeaggregates.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>

using namespace ks;

namespace {

std::shared_ptr<const Trace> load(const char* name)
{
    auto result = loadTraceFile(std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz");
    return result.trace;
}

const OperatorRow* findRow(const OperatorTable& table, std::string_view name, bool device)
{
    for (const auto& r : table.rows) {
        if (r.name == name && r.isDevice == device)
            return &r;
    }
    return nullptr;
}

bool within1Percent(TimeNs ours, double referenceUs)
{
    const double us = double(ours) / 1000.0;
    return std::abs(us - referenceUs) <= 0.01 * std::abs(referenceUs) + 0.001;
}

} // namespace

class TestOperatorTable : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        m_mlp = load("mlp_ops");
        QVERIFY(m_mlp);
    }

    // mlp_ops: an eager MLP; eager, compiled and cudagraphs: one step eager and under
    // torch.compile (Triton kernels under their own record_function, cuLaunchKernel; CUDA
    // graphs); cnn_amp: convolutions and batch norm under bf16 autocast (cuDNN); lstm: cuDNN's RNN.
    void matchesTorchKeyAverages_data()
    {
        QTest::addColumn<std::string>("fixture");
        for (const char* name : {"mlp_ops", "eager", "compiled", "cudagraphs", "cnn_amp", "lstm"})
            QTest::newRow(name) << std::string(name);
    }

    // Every row of torch's table: calls exact, CPU and CUDA times within 1 %.
    void matchesTorchKeyAverages()
    {
        QFETCH(std::string, fixture);
        std::ifstream in(std::string(KS_TEST_DATA) + "/reference/" + fixture + ".key_averages.json");
        const auto reference = nlohmann::json::parse(in);
        const auto trace = load(fixture.c_str());
        QVERIFY(trace);
        const OperatorTable table = computeOperatorTable(*trace);
        QCOMPARE(table.rows.size(), reference.size());
        for (const auto& ref : reference) {
            const std::string name = ref["name"];
            // torch lists a record_function label twice: the CPU range and the GPU-side range.
            const bool device = ref["cpu_total_us"].get<double>() == 0.0;
            const OperatorRow* row = findRow(table, name, device);
            QVERIFY2(row, name.c_str());
            QCOMPARE(row->calls, ref["count"].get<std::uint64_t>());
            QVERIFY2(within1Percent(row->selfCpu, ref["self_cpu_us"]), name.c_str());
            QVERIFY2(within1Percent(row->cpuTotal, ref["cpu_total_us"]), name.c_str());
            QVERIFY2(within1Percent(row->selfDevice, ref["self_device_us"]), name.c_str());
            QVERIFY2(within1Percent(row->deviceTotal, ref["device_total_us"]), name.c_str());
        }
        if (fixture != "mlp_ops")
            return;
        // The footer of torch's table: "Self CPU time total: 12.565ms", "Self CUDA time total: 1.047ms".
        QVERIFY(within1Percent(table.selfCpuTotal, 12565.0));
        QVERIFY(within1Percent(table.selfDeviceTotal, 1047.0));
        QVERIFY(!table.hasMemory);
    }

    void foldsSameNameChild()
    {
        const OperatorTable table = computeOperatorTable(*m_mlp);
        const auto& slices = m_mlp->slices();
        int powEvents = 0;
        for (SliceId s = 0; s < slices.size(); ++s)
            powEvents += m_mlp->str(slices.name[s]) == "aten::pow";
        QCOMPARE(powEvents, 10);
        const OperatorRow* pow = findRow(table, "aten::pow", false);
        QVERIFY(pow);
        QCOMPARE(pow->calls, 8u);
        QCOMPARE(pow->slices.size(), std::size_t(8));
    }

    // "Activity Buffer Request" has no ids; torch nests it under the running aten::addmm and
    // credits it with that op's kernels (61.023 µs), which addmm's CUDA total then includes.
    void overheadIsARow()
    {
        const OperatorTable table = computeOperatorTable(*m_mlp);
        const OperatorRow* overhead = findRow(table, "Activity Buffer Request", false);
        QVERIFY(overhead);
        QCOMPARE(overhead->calls, 1u);
        QCOMPARE(overhead->selfCpu, TimeNs(2936129));
        QCOMPARE(overhead->selfDevice, TimeNs(61023));
        const OperatorRow* addmm = findRow(table, "aten::addmm", false);
        QCOMPARE(addmm->selfCpu, TimeNs(542522));
        QCOMPARE(addmm->deviceTotal, TimeNs(409148));
    }

    // An overhead inside ops on two threads attaches to the innermost op on its own thread (the
    // main thread for kineto's pid -1 row), as torch does, not to the innermost op anywhere:
    // train_step_0 loses its 200 µs of self CPU, aten::fill_ on the autograd thread keeps its
    // own, and fill_'s kernel is counted once. Expected values follow torch's rules by hand:
    // self = total − direct children on the same thread; device total = own kernels + children's.
    void overheadAttachesOnItsOwnThread()
    {
        const std::string text = R"json({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"train_step_0","pid":100,"tid":100,"ts":0,"dur":1000,"args":{"External id":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::fill_","pid":100,"tid":200,"ts":400,"dur":300,"args":{"External id":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":200,"ts":410,"dur":10,"args":{"External id":2,"correlation":10}},
 {"ph":"X","cat":"kernel","name":"fill_kernel","pid":0,"tid":7,"ts":500,"dur":3,"args":{"External id":2,"correlation":10,"stream":7}},
 {"ph":"X","cat":"overhead","name":"Activity Buffer Request","pid":-1,"tid":0,"ts":450,"dur":200}
]})json";
        const auto loaded = loadTraceFromMemory(text, "overhead");
        QVERIFY(loaded.ok());
        const OperatorTable table = computeOperatorTable(*loaded.trace);
        struct Expected {
            const char* name;
            bool device;
            TimeNs selfCpu, cpuTotal, selfDevice, deviceTotal;
        };
        const Expected expected[] = {
            {"train_step_0", false, 800000, 1000000, 0, 0},  {"aten::fill_", false, 290000, 300000, 3000, 3000},
            {"cudaLaunchKernel", false, 10000, 10000, 0, 0}, {"Activity Buffer Request", false, 200000, 200000, 0, 0},
            {"fill_kernel", true, 0, 0, 3000, 3000},
        };
        QCOMPARE(table.rows.size(), std::size(expected));
        for (const auto& e : expected) {
            const OperatorRow* row = findRow(table, e.name, e.device);
            QVERIFY2(row, e.name);
            QCOMPARE(row->calls, 1u);
            QCOMPARE(row->selfCpu, e.selfCpu);
            QCOMPARE(row->cpuTotal, e.cpuTotal);
            QCOMPARE(row->selfDevice, e.selfDevice);
            QCOMPARE(row->deviceTotal, e.deviceTotal);
        }
        QCOMPARE(table.selfCpuTotal, TimeNs(1300000));
        QCOMPARE(table.selfDeviceTotal, TimeNs(3000));
    }

    // Threads are nested one after the other, yet rows come in time order of their first
    // occurrence and each row's occurrences by start, as with one pass over all threads.
    void rowsInOrderOfFirstOccurrenceAcrossThreads()
    {
        const std::string text = R"json({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::a","pid":1,"tid":1,"ts":5,"dur":1,"args":{"External id":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::b","pid":1,"tid":1,"ts":10,"dur":1,"args":{"External id":2}},
 {"ph":"X","cat":"cpu_op","name":"aten::b","pid":1,"tid":2,"ts":1,"dur":20,"args":{"External id":3}},
 {"ph":"X","cat":"cpu_op","name":"aten::c","pid":1,"tid":2,"ts":2,"dur":2,"args":{"External id":4}},
 {"ph":"X","cat":"cpu_op","name":"aten::c","pid":1,"tid":2,"ts":7,"dur":2,"args":{"External id":5}}
]})json";
        const auto loaded = loadTraceFromMemory(text, "threads");
        QVERIFY(loaded.ok());
        const OperatorTable table = computeOperatorTable(*loaded.trace);
        QCOMPARE(table.rows.size(), std::size_t(3));
        QCOMPARE(table.rows[0].name, std::string("aten::b"));
        QCOMPARE(table.rows[1].name, std::string("aten::c"));
        QCOMPARE(table.rows[2].name, std::string("aten::a"));
        const auto& starts = loaded.trace->slices().start;
        QCOMPARE(table.rows[0].slices.size(), std::size_t(2));
        QCOMPARE(starts[table.rows[0].slices[0]], TimeNs(1000));
        QCOMPARE(starts[table.rows[0].slices[1]], TimeNs(10000));
        QCOMPARE(table.rows[0].selfCpu, TimeNs(16000 + 1000)); // 20 µs less the two c's, plus the 1 µs b
    }

    // The bytes of [memory] events are scanned from their text as a DOM would read them: the
    // last of duplicate keys, 0 for what is not an integer, nothing from text that is not an
    // object; by time, ties in the order of the file (of the model's instants).
    void memoryEventsReadAsADomWould()
    {
        const std::string text = R"json({"traceEvents":[
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":3,"args":{"Bytes":512,"Device Type":1}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":1,"args":{"Bytes":-64,"Device Type":0}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":3,"args":{"Bytes":8,"Bytes":16,"Device Type":2}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":4,"args":{"Bytes":1.5,"Device Type":0}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Bytes":7,"Device Type":0},"args":{"Device Type":0}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":6,"args":{"Bytes":{"x":[1,{"y":2}]},"Device Type":6,"Bytes":32}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":7,"args":{"Bytes":100,"Device Type":3}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":8,"args":{"Bytes":100,"Bytes":"9","Device Type":0}}
]})json";
        const auto loaded = loadTraceFromMemory(text, "memory");
        QVERIFY(loaded.ok());
        const MemoryTimeline events(*loaded.trace);
        struct Expected {
            TimeNs time;
            std::int64_t cpu, device;
        };
        const Expected expected[] = {{1000, -64, 0}, {3000, 0, 512}, {3000, 16, 0}, {4000, 0, 0},
                                     {5000, 0, 0},   {6000, 0, 32},  {7000, 0, 0},  {8000, 0, 0}};
        QCOMPARE(events.size(), std::size(expected));
        for (std::size_t i = 0; i < events.size(); ++i) {
            QCOMPARE(events.time(i), expected[i].time);
            QCOMPARE(events.bytes(i).cpu, expected[i].cpu);
            QCOMPARE(events.bytes(i).device, expected[i].device);
        }
        // The bytes inside a time range, both ends included.
        QCOMPARE(events.within(3000, 6000).cpu, 16);
        QCOMPARE(events.within(3000, 6000).device, 512 + 32);
        QCOMPARE(events.within(3001, 5999).device, 0);
        QCOMPARE(events.within(0, 999).cpu, 0);
        QCOMPARE(MemoryTimeline().within(0, 10).cpu, 0);
    }

    // Kernels launched through cuLaunchKernelEx (cuBLAS's nvjet) count for aten::mm.
    void driverLaunchesCount()
    {
        const OperatorTable table = computeOperatorTable(*m_mlp);
        const OperatorRow* mm = findRow(table, "aten::mm", false);
        QVERIFY(mm);
        QCOMPARE(mm->selfDevice, TimeNs(342527));
        const OperatorRow* driver = findRow(table, "cuLaunchKernelEx", false);
        QVERIFY(driver);
        QCOMPARE(driver->calls, 10u);
        QCOMPARE(driver->deviceTotal, TimeNs(0));
    }

    void rangeCountsOccurrencesInside()
    {
        const OperatorTable whole = computeOperatorTable(*m_mlp);
        const OperatorRow* step = findRow(whole, "fp32_step", false);
        QVERIFY(step);
        QCOMPARE(step->calls, 2u);
        const SliceId first = step->slices.front();
        OperatorTableOptions options;
        options.rangeStart = m_mlp->slices().start[first];
        options.rangeEnd = m_mlp->slices().end(first);
        const OperatorTable part = computeOperatorTable(*m_mlp, options);
        const OperatorRow* partStep = findRow(part, "fp32_step", false);
        QVERIFY(partStep);
        QCOMPARE(partStep->calls, 1u);
        QCOMPARE(partStep->cpuTotal, m_mlp->slices().duration[first]);
        QVERIFY(!findRow(part, "fp16_step", false));
    }

    void groupsByInputShapes()
    {
        auto square = load("square");
        QVERIFY(square);
        OperatorTableOptions options;
        options.groupByInputShapes = true;
        const OperatorTable table = computeOperatorTable(*square, options);
        int toRows = 0;
        for (const auto& r : table.rows) {
            if (r.name == "aten::to") {
                ++toRows;
                QCOMPARE(r.inputShapes, std::string("[[10000, 10000], [], [], [], []]"));
                QCOMPARE(r.calls, 2u);
            }
            if (r.name == "aten::mul")
                QCOMPARE(r.inputShapes, std::string("[[10000, 10000], [10000, 10000]]"));
            if (r.isDevice)
                QCOMPARE(r.inputShapes, std::string("[]"));
        }
        QCOMPARE(toRows, 1);
    }

    // Memory columns (profile_memory=True), values worked out from the [memory] events with
    // torch's rule: bytes of every [memory] event inside [start, end], minus the children's. The
    // same through the facts the GUI shares (their MemoryTimeline) as from the trace alone.
    void memoryColumns_data()
    {
        QTest::addColumn<bool>("throughFacts");
        QTest::newRow("trace") << false;
        QTest::newRow("facts") << true;
    }
    void memoryColumns()
    {
        QFETCH(bool, throughFacts);
        auto transformer = load("transformer");
        QVERIFY(transformer);
        const OperatorTable table = throughFacts ? computeOperatorTable(*facts::makeTraceFacts(transformer))
                                                 : computeOperatorTable(*transformer);
        QVERIFY(table.hasMemory);
        const OperatorRow* empty = findRow(table, "aten::empty", false);
        QVERIFY(empty);
        QCOMPARE(empty->cpuMemory, std::int64_t(12));
        QCOMPARE(empty->deviceMemory, std::int64_t(304209920));
        QCOMPARE(empty->selfDeviceMemory, std::int64_t(304209920));
        const OperatorRow* step = findRow(table, "ProfilerStep*", false);
        QVERIFY(step);
        QCOMPARE(step->calls, 3u);
        QCOMPARE(step->selfDeviceMemory, std::int64_t(-219173888));
        QVERIFY(!findRow(table, "[memory]", false)); // every [memory] event falls in some op
        const OperatorRow* mm = findRow(table, "aten::mm", false);
        QCOMPARE(mm->calls, 24u);
        QCOMPARE(mm->selfDevice, TimeNs(1807292));
    }

    // Byte counts at the 64-bit limits: sums that overflow on the way wrap (defined, no
    // sanitizer finding) and come out exact wherever the true total fits.
    void memoryBytesAtTheLimits()
    {
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        const std::string text = R"json({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":1}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":3,"args":{"Bytes":9223372036854775807,"Device Type":1}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":4,"args":{"Bytes":9223372036854775807,"Device Type":1}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Bytes":-9223372036854775807,"Device Type":1}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":200,"args":{"Bytes":-9223372036854775807,"Device Type":0}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":201,"args":{"Bytes":-9223372036854775807,"Device Type":0}},
 {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":202,"args":{"Bytes":9223372036854775807,"Device Type":0}}
]})json";
        const auto loaded = loadTraceFromMemory(text, "limits");
        QVERIFY(loaded.ok());
        const OperatorTable table = computeOperatorTable(*loaded.trace);
        const OperatorRow* op = findRow(table, "op", false);
        QVERIFY(op);
        QCOMPARE(op->deviceMemory, kMax); // MAX + MAX - MAX, through a running sum past the limit
        QCOMPARE(op->selfDeviceMemory, kMax);
        const OperatorRow* unmatched = findRow(table, "[memory]", false);
        QVERIFY(unmatched);
        QCOMPARE(unmatched->calls, 3u);
        QCOMPARE(unmatched->cpuMemory, -kMax); // -MAX - MAX + MAX
        const MemoryTimeline events(*loaded.trace);
        QCOMPARE(events.within(3000, 4000).device, std::int64_t(-2)); // 2^64 - 2 does not fit: it wraps
    }

    // Three ops and three kernels of 4e18 ns each (the model takes up to 2^62): their totals
    // pass the 64-bit limit, and every table's total saturates there instead of overflowing.
    void durationTotalsSaturate()
    {
        constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
        std::string text = R"({"traceEvents":[)";
        for (int i = 1; i <= 3; ++i) {
            const std::string n = std::to_string(i);
            text += std::string(i > 1 ? "," : "") + R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":)" + n
                + R"(,"ts":0,"dur":4000000000000000,"args":{"External id":)" + n + "}},"
                + R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":)" + n
                + R"(,"ts":1,"dur":1,"args":{"correlation":)" + n + R"(,"External id":)" + n + "}},"
                + R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":)" + std::to_string(6 + i)
                + R"(,"ts":0,"dur":4000000000000000,"args":{"correlation":)" + n + R"(,"External id":)" + n + "}}";
        }
        text += "]}";
        const auto loaded = loadTraceFromMemory(text, "long");
        QVERIFY(loaded.ok());
        const OperatorTable table = computeOperatorTable(*loaded.trace);
        const OperatorRow* a = findRow(table, "a", false);
        QVERIFY(a);
        QCOMPARE(a->calls, 3u);
        QCOMPARE(a->cpuTotal, kMax);
        QCOMPARE(a->deviceTotal, kMax);
        QCOMPARE(a->cpuAverage(), kMax / 3);
        QCOMPARE(table.selfDeviceTotal, kMax);
        const auto kernels = computeKernelStats(*loaded.trace);
        QCOMPARE(kernels.size(), std::size_t(1));
        QCOMPARE(kernels[0].total, kMax);
        std::vector<std::uint32_t> tracks(loaded.trace->tracks().size());
        std::iota(tracks.begin(), tracks.end(), 0u);
        const auto range = computeRangeAggregates(*loaded.trace, 0, kMaxTimeNs, tracks);
        QCOMPARE(range.rows.size(), std::size_t(3));
        QCOMPARE(range.rows[0].total, kMax);
    }

    void sortKeys()
    {
        QCOMPARE(operatorSortKeyFromName("cuda_time_total"), std::optional(OperatorSortKey::DeviceTotal));
        QCOMPARE(operatorSortKeyFromName("self_cpu"), std::optional(OperatorSortKey::SelfCpu));
        QVERIFY(!operatorSortKeyFromName("bogus"));
        OperatorTable table = computeOperatorTable(*m_mlp);
        sortOperatorRows(table.rows, OperatorSortKey::DeviceTotal);
        // torch's table sorted by cuda_time_total starts with the GPU-side fp16_step.
        QCOMPARE(table.rows[0].name, std::string("fp16_step"));
        QVERIFY(table.rows[0].isDevice);
        QCOMPARE(table.rows[2].name, std::string("aten::linear"));
        for (std::size_t i = 1; i < table.rows.size(); ++i)
            QVERIFY(table.rows[i - 1].deviceTotal >= table.rows[i].deviceTotal);
    }

private:
    std::shared_ptr<const Trace> m_mlp;
};

QTEST_GUILESS_MAIN(TestOperatorTable)
#include "tst_operatortable.moc"
