// The Kernel view numbers on the transformer fixture.
#include "core/loading/loader.h"
#include "core/stats/kernelstats.h"

#include <QTest>

using namespace ks;

class TestKernelStats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void transformerKernels()
    {
        const auto loaded = loadTraceFile(std::string(KS_TEST_DATA) + "/transformer.pt.trace.json.gz");
        QVERIFY(loaded.ok());
        const auto rows = computeKernelStats(*loaded.trace);
        QCOMPARE(rows.size(), std::size_t(35)); // distinct kernel names
        std::uint64_t calls = 0;
        for (const auto& r : rows)
            calls += r.calls;
        QCOMPARE(calls, 213u);

        // The longest in total: cuBLAS's xmma GEMM launched through cuLaunchKernel.
        const KernelRow& top = rows[0];
        QVERIFY(top.name.rfind("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x128x8", 0) == 0);
        QCOMPARE(top.calls, 12u);
        QCOMPARE(top.total, TimeNs(545473));
        QCOMPARE(top.min, TimeNs(11360));
        QCOMPARE(top.max, TimeNs(124608));
        QCOMPARE(top.mean(), TimeNs(45456));
        QVERIFY(std::abs(top.meanBlocksPerSm - 1.0941106) < 1e-4);
        QVERIFY(std::abs(top.meanEstAchievedOccupancyPct - 6.769809) < 1e-3);
        QCOMPARE(top.grid, (std::array<std::int32_t, 3>{2, 1, 128}));
        QCOMPARE(top.block, (std::array<std::int32_t, 3>{128, 1, 1}));
        QCOMPARE(top.registersPerThread, 190);
        QCOMPARE(top.sharedMemory, std::int64_t(19200));
        QVERIFY(top.launchConfigVaries);

        const KernelRow& second = rows[1];
        QVERIFY(second.name.rfind("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>", 0) == 0);
        QCOMPARE(second.calls, 6u);
        QCOMPARE(second.total, TimeNs(544575));
        QVERIFY(std::abs(second.meanBlocksPerSm - 0.969697) < 1e-4);
        QVERIFY(std::abs(second.meanEstAchievedOccupancyPct - 12.0) < 1e-4);
        for (std::size_t i = 1; i < rows.size(); ++i)
            QVERIFY(rows[i - 1].total >= rows[i].total);
    }

    // TensorBoard's "Kernel Properties + Op Name" grouping: the xmma GEMM (12 calls in two
    // launch configurations) splits by launching op and configuration; totals are kept.
    void groupsByOperatorAndLaunchConfig()
    {
        const auto loaded = loadTraceFile(std::string(KS_TEST_DATA) + "/transformer.pt.trace.json.gz");
        QVERIFY(loaded.ok());
        KernelStatsOptions options;
        options.groupByOperatorAndLaunchConfig = true;
        const auto rows = computeKernelStats(*loaded.trace, options);
        const auto byName = computeKernelStats(*loaded.trace);
        QVERIFY(rows.size() > byName.size());
        std::uint64_t calls = 0;
        TimeNs total = 0;
        for (const auto& r : rows) {
            QVERIFY(!r.launchConfigVaries);
            if (r.name == byName[0].name) {
                calls += r.calls;
                total += r.total;
                // cuBLAS GEMMs are launched by aten::mm / aten::addmm / aten::bmm.
                QVERIFY2(r.operatorName.rfind("aten::", 0) == 0, r.operatorName.c_str());
            }
        }
        QCOMPARE(calls, 12u);
        QCOMPARE(total, TimeNs(545473));
        for (const auto& r : byName)
            QVERIFY(r.operatorName.empty());
    }

    void rangeLimitsKernels()
    {
        const auto loaded = loadTraceFile(std::string(KS_TEST_DATA) + "/transformer.pt.trace.json.gz");
        QVERIFY(loaded.ok());
        const auto all = computeKernelStats(*loaded.trace);
        const SliceId first = all[0].slices.front();
        KernelStatsOptions options;
        options.rangeStart = loaded.trace->slices().start[first];
        options.rangeEnd = options.rangeStart + 1;
        const auto one = computeKernelStats(*loaded.trace, options);
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(one[0].calls, 1u);
        QCOMPARE(one[0].slices.front(), first);
    }
};

QTEST_GUILESS_MAIN(TestKernelStats)
#include "tst_kernelstats.moc"
