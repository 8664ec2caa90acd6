// nvprof-style summary on multistream: copy kinds, calls, sizes and times (values from the
// fixture's JSON, summed independently).
#include "core/gpu/nvprofsummary.h"
#include "fixtureloader.h"

#include <QTest>

using namespace ks;
using namespace ks::gpu;
using ks::testing::fixtureTrace;

namespace {
const NvprofRow* findRow(const std::vector<NvprofRow>& rows, const std::string& name)
{
    for (const auto& r : rows) {
        if (r.name == name)
            return &r;
    }
    return nullptr;
}
} // namespace

class TestNvprofSummary : public QObject {
    Q_OBJECT
private slots:
    void memcpyNames();
    void multistreamGpuActivities();
    void multistreamApiCalls();
};

void TestNvprofSummary::memcpyNames()
{
    QCOMPARE(nvprofMemcpyName("Memcpy HtoD (Pageable -> Device)"), std::string("[CUDA memcpy HtoD]"));
    QCOMPARE(nvprofMemcpyName("Memcpy DtoH (Device -> Pinned)"), std::string("[CUDA memcpy DtoH]"));
    QCOMPARE(nvprofMemcpyName("Memcpy PtoP (Device -> Device)"), std::string("[CUDA memcpy PtoP]"));
}

void TestNvprofSummary::multistreamGpuActivities()
{
    const auto trace = fixtureTrace("multistream");
    QVERIFY(trace);
    const NvprofSummary s = computeNvprofSummary(*trace);
    QCOMPARE(s.gpuActivities.size(), std::size_t(8)); // 6 kernels, HtoD, DtoH, memset
    QCOMPARE(s.gpuTotal, TimeNs(67771595));

    const NvprofRow& top = s.gpuActivities.front();
    QCOMPARE(top.name, std::string("[CUDA memcpy HtoD]"));
    QCOMPARE(top.calls, std::uint64_t(8)); // 4 pinned + 4 pageable
    QCOMPARE(top.bytes, std::int64_t(536870912));
    QCOMPARE(top.total, TimeNs(45169191));
    QCOMPARE(top.min, TimeNs(1210654));
    QCOMPARE(top.max, TimeNs(10305524));
    QVERIFY(std::abs(top.timePercent - 66.649) < 0.001);

    const NvprofRow* dtoh = findRow(s.gpuActivities, "[CUDA memcpy DtoH]");
    QVERIFY(dtoh);
    QCOMPARE(dtoh->calls, std::uint64_t(4));
    QCOMPARE(dtoh->bytes, std::int64_t(16));
    QCOMPARE(dtoh->total, TimeNs(7969));
    const NvprofRow* memset = findRow(s.gpuActivities, "[CUDA memset]");
    QVERIFY(memset);
    QCOMPARE(memset->calls, std::uint64_t(4));
    QCOMPARE(memset->bytes, std::int64_t(16));
    QCOMPARE(memset->total, TimeNs(4320));

    const NvprofRow& gemm = s.gpuActivities[1];
    QVERIFY(gemm.name.rfind("sm80_xmma_gemm_f32f32", 0) == 0);
    QCOMPARE(gemm.calls, std::uint64_t(8));
    QCOMPARE(gemm.total, TimeNs(21483783));
    QCOMPARE(gemm.bytes, std::int64_t(-1));
    double pct = 0;
    for (const auto& r : s.gpuActivities)
        pct += r.timePercent;
    QVERIFY(std::abs(pct - 100.0) < 1e-9);
}

void TestNvprofSummary::multistreamApiCalls()
{
    const auto trace = fixtureTrace("multistream");
    const NvprofSummary s = computeNvprofSummary(*trace);
    QCOMPARE(s.apiCalls.size(), std::size_t(13));
    QCOMPARE(s.apiCalls.front().name, std::string("cudaMemcpyAsync"));
    QCOMPARE(s.apiCalls.front().calls, std::uint64_t(12));
    QCOMPARE(s.apiCalls.front().total, TimeNs(43864068));
    const NvprofRow* launches = findRow(s.apiCalls, "cudaLaunchKernel");
    QVERIFY(launches);
    QCOMPARE(launches->calls, std::uint64_t(16));
    QCOMPARE(launches->total, TimeNs(381920));
    QCOMPARE(launches->average(), 381920.0 / 16);
}

QTEST_GUILESS_MAIN(TestNvprofSummary)
#include "tst_nvprofsummary.moc"
