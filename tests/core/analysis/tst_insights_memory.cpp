// memory-growth: on a growth fixture made here from train_baseline (the frees of aten::gelu's
// GPU blocks dropped in the last two steps, found through the JSON DOM, not through the code
// under test) the finding names aten::gelu with its bytes per step; on the real traces it
// stays silent.
#include "core/analysis/insights.h"
#include "core/loading/loader.h"
#include "fixtureloader.h"
#include "testtraces.h"

#include <QTest>

#include <algorithm>
#include <iterator>
#include <set>

using namespace ks;
using namespace ks::analysis;

namespace {

const Insight* findById(const std::vector<Insight>& insights, const std::string& id)
{
    for (const Insight& insight : insights) {
        if (insight.id == id)
            return &insight;
    }
    return nullptr;
}

double figure(const Insight& insight, const std::string& name)
{
    for (const auto& [key, value] : insight.figures) {
        if (key == name)
            return value;
    }
    return -1;
}

bool isGpuMemory(const nlohmann::json& e)
{
    return e.value("name", "") == "[memory]" && e["args"].value("Device Type", -1) == 1;
}

// train_baseline with the GPU blocks that `op` allocates in the steps after the first never
// freed (their frees dropped); returns the text and the bytes kept per step.
std::string leakingTrace(const std::string& op, std::int64_t& bytesPerStep)
{
    auto doc = nlohmann::json::parse(kstest::gunzipFile(kstest::fixture("train_baseline")));
    auto& events = doc["traceEvents"];
    std::set<std::pair<double, double>> steps; // host ProfilerStep ranges
    for (const auto& e : events) {
        if (e.value("ph", "") == "X" && e.value("cat", "") == "user_annotation"
            && e.value("name", "").rfind("ProfilerStep#", 0) == 0)
            steps.emplace(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
    const double laterStepsStart = std::next(steps.begin())->first; // from the second step on
    std::vector<std::pair<double, double>> opRanges; // [ts, end) of `op` in the later steps, on its thread
    std::int64_t opTid = -1;
    for (const auto& e : events) {
        if (e.value("ph", "") == "X" && e.value("cat", "") == "cpu_op" && e.value("name", "") == op
            && e["ts"].get<double>() >= laterStepsStart) {
            opRanges.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
            opTid = e["tid"].get<std::int64_t>();
        }
    }
    // In time order (the file is not): each block `op` allocates loses its next free.
    std::vector<std::size_t> memory;
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (isGpuMemory(events[i]))
            memory.push_back(i);
    }
    std::stable_sort(memory.begin(), memory.end(), [&](std::size_t x, std::size_t y) {
        return events[x]["ts"].get<double>() < events[y]["ts"].get<double>();
    });
    std::set<std::uint64_t> leaked; // original addresses whose next free is dropped
    std::set<std::size_t> dropped;
    std::int64_t leakedBytes = 0;
    std::uint64_t moved = 0;
    for (const std::size_t i : memory) {
        auto& e = events[i];
        const double ts = e["ts"].get<double>();
        const std::int64_t bytes = e["args"]["Bytes"].get<std::int64_t>();
        const auto addr = e["args"]["Addr"].get<std::uint64_t>();
        const bool inOp = e["tid"] == opTid && std::any_of(opRanges.begin(), opRanges.end(), [&](const auto& r) {
                              return r.first <= ts && ts < r.second;
                          });
        if (bytes > 0 && inOp) {
            leaked.insert(addr);
            leakedBytes += bytes;
            // A block that stays allocated keeps its address: the allocator hands out others
            // after it, so each moves to an address of its own.
            e["args"]["Addr"] = addr | (std::uint64_t(1) << 62) | (++moved << 48);
        } else if (bytes < 0 && leaked.erase(addr)) {
            dropped.insert(i); // the free goes missing (on whichever thread it was)
        }
    }
    nlohmann::json kept = nlohmann::json::array();
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (!dropped.count(i))
            kept.push_back(std::move(events[i]));
    }
    events = std::move(kept);
    bytesPerStep = leakedBytes / std::int64_t(steps.size() - 1);
    return doc.dump();
}

} // namespace

class TstInsightsMemory : public QObject {
    Q_OBJECT

private slots:
    void aLeakingOpIsFound()
    {
        std::int64_t bytesPerStep = 0;
        const LoadResult loaded = loadTraceFromMemory(leakingTrace("aten::gelu", bytesPerStep), "leak.json");
        QVERIFY(loaded.ok());
        QCOMPARE(bytesPerStep, std::int64_t(67108864)); // what the fixture's gelu allocates per step
        const auto insights = findInsights(*facts::makeTraceFacts(loaded.trace));
        const Insight* growth = findById(insights, "memory-growth");
        QVERIFY(growth);
        QVERIFY2(growth->title.find("GPU0") != std::string::npos, growth->title.c_str());
        QVERIFY2(growth->title.find("aten::gelu") != std::string::npos, growth->title.c_str());
        QCOMPARE(figure(*growth, "bytes_per_step"), double(bytesPerStep));
        QCOMPARE(figure(*growth, "steps"), 2.0);
        QVERIFY(!growth->evidence.empty());
        for (const Evidence& e : growth->evidence)
            QCOMPARE(e.name, std::string("aten::gelu"));
    }

    void realTracesDoNotGrow_data()
    {
        QTest::addColumn<std::string>("fixture");
        for (const char* name :
             {"train_baseline", "train_optimized", "transformer", "big"}) // those with [memory] events
            QTest::newRow(name) << std::string(name);
    }

    void realTracesDoNotGrow()
    {
        QFETCH(std::string, fixture);
        const auto facts = facts::makeTraceFacts(testing::fixtureTrace(fixture));
        const auto insights = findInsights(*facts);
        const Insight* growth = findById(insights, "memory-growth");
        QVERIFY2(!growth, growth ? growth->title.c_str() : "");
    }
};

QTEST_GUILESS_MAIN(TstInsightsMemory)
#include "tst_insights_memory.moc"
