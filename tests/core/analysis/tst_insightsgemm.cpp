// low-gemm-efficiency (core/analysis/insights_gemm.cpp) on real traces: train_baseline's fp32
// GEMMs (mm, addmm, bmm; H200, TF32 off) are named with their TFLOP/s, % of the TF32 roof and the cause, and
// the time at stake is recomputed here from the fixture's own Input Dims and kernel durations
// (nlohmann's DOM, which the loader never uses).
#include "core/analysis/insights.h"
#include "fixtureevents.h"
#include "fixtureloader.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace ks;
using namespace ks::analysis;

namespace {

const Insight* findInsight(const std::vector<Insight>& insights, const std::string& id)
{
    for (const auto& i : insights) {
        if (i.id == id)
            return &i;
    }
    return nullptr;
}

std::vector<Insight> insightsOf(const char* fixture)
{
    return findInsights(*facts::makeTraceFacts(testing::fixtureTrace(fixture)));
}

// Per (op, batch, M, N, K) of train_baseline's GEMMs: FLOPs from the dims, kernel time through
// the kernels' External id.
struct GemmGroup {
    double flops = 0, us = 0;
    std::size_t kernels = 0;
};

std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t>, GemmGroup>
gemmGroupsOf(const kstest::FixtureEvents& fixture)
{
    using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
    std::map<Key, GemmGroup> groups;
    std::map<std::int64_t, Key> groupOfOp;
    for (const auto& e : fixture.select("cpu_op", [](const std::string& n) {
             return n == "aten::mm" || n == "aten::addmm" || n == "aten::bmm";
         })) {
        const auto& dims = e["args"]["Input Dims"];
        const std::size_t a = e["name"] == "aten::addmm" ? 1 : 0;
        const std::size_t r = dims[a].size() - 2; // bmm: [batch, M, K] @ [batch, K, N]
        const std::int64_t b = r ? dims[a][0].get<std::int64_t>() : 1;
        const std::int64_t m = dims[a][r], k = dims[a][r + 1], n = dims[a + 1][r + 1];
        const Key key(e["name"].get<std::string>(), b, m, n, k);
        groups[key].flops += 2.0 * double(b) * double(m) * double(n) * double(k);
        groupOfOp[e["args"]["External id"].get<std::int64_t>()] = key;
    }
    for (const auto& e : fixture.slices) {
        if (e.value("cat", "") != "kernel")
            continue;
        const auto it = groupOfOp.find(e["args"].value("External id", std::int64_t(-1)));
        if (it == groupOfOp.end())
            continue;
        groups[it->second].us += e["dur"].get<double>();
        ++groups[it->second].kernels;
    }
    return groups;
}

} // namespace

class TstInsightsGemm : public QObject {
    Q_OBJECT

private slots:
    void baselineFp32GemmsAreNamed()
    {
        const kstest::FixtureEvents fixture("train_baseline");
        constexpr double kH200Tf32 = 494.5e12;
        const auto groups = gemmGroupsOf(fixture);
        double stakeUs = 0;
        std::size_t low = 0, kernels = 0;
        for (const auto& [key, g] : groups) {
            const double fraction = g.flops / (g.us * 1e-6) / kH200Tf32;
            QVERIFY(fraction > 0.04 && fraction < 0.11); // fp32 SIMT: about a tenth of the TF32 roof
            QVERIFY(fraction < thresholds::kLowGemmEfficiency);
            stakeUs += g.us * (1.0 - fraction / thresholds::kLowGemmEfficiency);
            ++low;
            kernels += g.kernels;
        }
        QCOMPARE(low, std::size_t(15));

        const auto insights = insightsOf("train_baseline");
        const Insight* gemm = findInsight(insights, "low-gemm-efficiency");
        QVERIFY(gemm);
        QCOMPARE(gemm->evidence.size(), kernels);
        const double steps = double(fixture.steps.size());
        QVERIFY2(std::abs(gemm->timeUs - stakeUs / steps) < 1e-3 * gemm->timeUs, std::to_string(gemm->timeUs).c_str());
        QCOMPARE(gemm->severity, Severity::High);
        QVERIFY(gemm->title.rfind("15 GEMM shapes under 40 %", 0) == 0);
        // The worst shapes are named, each with its cause: fp32 on SIMT kernels.
        QVERIFY(gemm->explanation.find("aten::mm [4096x512x2048] (MxNxK) fp32") != std::string::npos);
        std::size_t named = 0;
        for (std::size_t at = gemm->explanation.find("\n- aten::"); at != std::string::npos;
             at = gemm->explanation.find("\n- aten::", at + 1)) {
            const std::string line = gemm->explanation.substr(at, gemm->explanation.find('\n', at + 1) - at);
            QVERIFY2(line.find("% of TF32 peak") != std::string::npos, line.c_str());
            QVERIFY2(line.find("fp32 without TF32") != std::string::npos, line.c_str());
            ++named;
        }
        QCOMPARE(named, std::size_t(8));
        QVERIFY(gemm->explanation.find("and 7 more shapes") != std::string::npos);
    }

    // The user's roofs (settings, --peak-tflops) are what the finding measures against: with a
    // TF32 roof of 100 TFLOP/s the fp32 GEMMs reach 2-5x the datasheet's fraction, fewer shapes
    // stay under 40 %, and the worst fraction follows.
    void userPeaksReachTheFinding()
    {
        const kstest::FixtureEvents fixture("train_baseline");
        constexpr double kUserTf32 = 100e12;
        std::size_t low = 0;
        double worst = 1.0;
        for (const auto& [key, g] : gemmGroupsOf(fixture)) {
            const double fraction = g.flops / (g.us * 1e-6) / kUserTf32;
            worst = std::min(worst, fraction);
            low += fraction < thresholds::kLowGemmEfficiency ? 1 : 0;
        }
        QVERIFY(low > 0 && low < 15);
        PeakOverrides peaks;
        QVERIFY(!parsePeakTflops("tf32=100", peaks));
        const auto insights = findInsights(*facts::makeTraceFacts(testing::fixtureTrace("train_baseline")), peaks);
        const Insight* gemm = findInsight(insights, "low-gemm-efficiency");
        QVERIFY(gemm);
        QVERIFY2(gemm->title.rfind(std::to_string(low) + " GEMM shapes under 40 %", 0) == 0, gemm->title.c_str());
        const auto figure = std::find_if(gemm->figures.begin(), gemm->figures.end(),
                                         [](const auto& f) { return f.first == "worst_peak_fraction"; });
        QVERIFY(figure != gemm->figures.end());
        QVERIFY2(std::abs(figure->second - worst) < 1e-6, std::to_string(figure->second).c_str());
        // A roof under what they reach: no finding at all.
        QVERIFY(!parsePeakTflops("tf32=20", peaks));
        QVERIFY(!findInsight(findInsights(*facts::makeTraceFacts(testing::fixtureTrace("train_baseline")), peaks),
                             "low-gemm-efficiency"));
    }

    void bf16GemmsOfTheOptimizedRunAreNotFlagged()
    {
        // train_optimized runs its GEMMs in bf16 on nvjet kernels: no finding (or none in fp32).
        const Insight* gemm = findInsight(insightsOf("train_optimized"), "low-gemm-efficiency");
        QVERIFY(!gemm || gemm->explanation.find("fp32 without TF32") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TstInsightsGemm)
#include "tst_insightsgemm.moc"
