// kineto's est. achieved occupancy recomputed from each kernel's launch parameters
// (collector-notes.md §7), against the value kineto wrote for every kernel of the fixtures.
#include "core/facts/pluginkind.h"
#include "core/gpu/occupancy.h"
#include "fixtureloader.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace ks;
using namespace ks::gpu;
using ks::testing::fixtureTrace;

namespace {

// What kineto wrote for the fixtures' H200.
DeviceProperties h200()
{
    DeviceProperties d;
    d.name = "NVIDIA H200";
    d.computeMajor = 9;
    d.numSms = 132;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerMultiprocessor = 2048;
    d.regsPerBlock = 65536;
    d.regsPerMultiprocessor = 65536;
    d.warpSize = 32;
    d.sharedMemPerBlock = 49152;
    d.sharedMemPerMultiprocessor = 233472;
    d.sharedMemPerBlockOptin = 232448;
    return d;
}

} // namespace

class TestOccupancy : public QObject {
    Q_OBJECT
private slots:
    void goldenValues_data();
    void goldenValues();
    void everyFixtureKernel_data();
    void everyFixtureKernel();
    void blocksPerSmFromGrid();
    void beyondHardwareLimitsIsUnknown();
};

void TestOccupancy::goldenValues_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("registers");
    QTest::addColumn<std::int64_t>("sharedMemory");
    QTest::addColumn<double>("blocksPerSm");
    QTest::addColumn<int>("activeBlocks");
    QTest::addColumn<int>("occupancy");
    // collector-notes.md §7: GEMM grid 32×24, 128 threads, 218 regs: register-limited.
    QTest::newRow("gemm 32x24") << 128 << 218 << std::int64_t(19200) << 768.0 / 132 << 2 << 13;
    // Elementwise grid 2048, 128 threads, 32 regs.
    QTest::newRow("elementwise 2048") << 128 << 32 << std::int64_t(0) << 2048.0 / 132 << 16 << 97;
    // Over 48 KB of shared memory without the opt-in: nothing fits (the multistream artefact).
    QTest::newRow("smem > 48 KB") << 128 << 168 << std::int64_t(49153) << 4.0 << 0 << 0;
}

void TestOccupancy::goldenValues()
{
    QFETCH(int, threads);
    QFETCH(int, registers);
    QFETCH(std::int64_t, sharedMemory);
    QFETCH(double, blocksPerSm);
    QFETCH(int, activeBlocks);
    QFETCH(int, occupancy);
    const KernelLaunch k{threads, registers, sharedMemory, blocksPerSm};
    QCOMPARE(maxActiveBlocksPerSm(h200(), k), std::optional<int>(activeBlocks));
    QCOMPARE(maxActiveBlocksPerSmSm90Model(h200(), k), std::optional<int>(activeBlocks));
    QCOMPARE(estAchievedOccupancyPct(h200(), k), std::optional<int>(occupancy));
}

void TestOccupancy::everyFixtureKernel_data()
{
    QTest::addColumn<std::string>("fixture");
    for (const char* name : {"square", "multistream", "transformer", "big", "mlp_ops"})
        QTest::newRow(name) << std::string(name);
}

void TestOccupancy::everyFixtureKernel()
{
    QFETCH(std::string, fixture);
    const auto trace = fixtureTrace(fixture);
    QVERIFY(trace);
    const auto kinds = facts::classifySlices(*trace);
    const DeviceProperties* device = trace->deviceFor(0);
    QVERIFY(device);
    int checked = 0;
    for (SliceId s = 0; s < trace->slices().size(); ++s) {
        if (kinds[s] != facts::PluginKind::Kernel)
            continue;
        const GpuOpInfo* op = trace->gpuOpInfo(s);
        QVERIFY(op && op->estAchievedOccupancyPct >= 0);
        const auto launch = kernelLaunchOf(*op, device);
        QVERIFY(launch);
        const auto pct = estAchievedOccupancyPct(*device, *launch);
        QVERIFY(pct);
        QCOMPARE(double(*pct), double(op->estAchievedOccupancyPct));
        QCOMPARE(maxActiveBlocksPerSmSm90Model(*device, *launch), maxActiveBlocksPerSm(*device, *launch));
        // kineto's "warps per SM", written with 6 decimals and read back as a float.
        QVERIFY(std::abs(warpsPerSm(*launch) - op->warpsPerSm) <= 1e-5 * std::max(1.0, double(op->warpsPerSm)));
        ++checked;
    }
    QVERIFY(checked > 0);
}

void TestOccupancy::blocksPerSmFromGrid()
{
    GpuOpInfo op;
    op.grid[0] = 2048;
    op.grid[1] = op.grid[2] = 1;
    op.block[0] = 128;
    op.block[1] = op.block[2] = 1;
    op.registersPerThread = 32;
    op.sharedMemory = 0;
    const DeviceProperties d = h200();
    const auto launch = kernelLaunchOf(op, &d);
    QVERIFY(launch);
    QCOMPARE(launch->blocksPerSm, 2048.0 / 132);
    QCOMPARE(estAchievedOccupancyPct(d, *launch), std::optional<int>(97));
    QVERIFY(!kernelLaunchOf(op, nullptr)); // no SM count, no blocks per SM
}

// A crafted trace must not reach int overflow or a division by zero: such launches and
// devices have no occupancy.
void TestOccupancy::beyondHardwareLimitsIsUnknown()
{
    const DeviceProperties d = h200();
    GpuOpInfo op;
    op.grid[0] = op.grid[1] = op.grid[2] = 1;
    op.registersPerThread = 255;
    op.sharedMemory = 0;
    op.block[0] = 1024;
    op.block[1] = op.block[2] = 1;
    QVERIFY(kernelLaunchOf(op, &d)); // the largest real launch still counts
    op.block[0] = op.block[1] = op.block[2] = 1 << 20; // product overflows int32
    QVERIFY(!kernelLaunchOf(op, &d));
    op.block[0] = 32;
    op.block[1] = 32;
    op.block[2] = 2; // 2048 threads
    QVERIFY(!kernelLaunchOf(op, &d));
    op.block[0] = -128;
    op.block[1] = -1;
    op.block[2] = 1; // positive product of negative extents
    QVERIFY(!kernelLaunchOf(op, &d));
    op.block[0] = 128;
    op.block[1] = 1;
    op.registersPerThread = 256;
    QVERIFY(!kernelLaunchOf(op, &d));
    op.registersPerThread = 32;
    op.sharedMemory = std::numeric_limits<std::int64_t>::max();
    QVERIFY(!kernelLaunchOf(op, &d));
    op.sharedMemory = 0;
    op.grid[0] = op.grid[1] = -1; // a positive block count from negative extents
    QVERIFY(!kernelLaunchOf(op, &d));

    // 2^27 registers × 32 lanes wrapped to 0 registers per warp: a division by zero.
    const KernelLaunch registers{128, 1 << 27, 0, 4.0};
    QCOMPARE(maxActiveBlocksPerSmSm90Model(d, registers), std::nullopt);
    QCOMPARE(maxActiveBlocksPerSm(d, registers), std::nullopt);
    QCOMPARE(estAchievedOccupancyPct(d, registers), std::nullopt);
    const KernelLaunch threads{std::numeric_limits<int>::max(), 32, 0, 4.0};
    QCOMPARE(maxActiveBlocksPerSmSm90Model(d, threads), std::nullopt);
    const KernelLaunch notANumber{128, 32, 0, std::nan("")};
    QCOMPARE(estAchievedOccupancyPct(d, notANumber), std::nullopt);

    const KernelLaunch fine{128, 32, 0, 4.0};
    DeviceProperties wide = d;
    wide.warpSize = 1 << 30;
    QCOMPARE(maxActiveBlocksPerSmSm90Model(wide, fine), std::nullopt);
    QCOMPARE(estAchievedOccupancyPct(wide, fine), std::nullopt);
    DeviceProperties huge = d;
    huge.maxThreadsPerMultiprocessor = std::numeric_limits<int>::max();
    QCOMPARE(estAchievedOccupancyPct(huge, fine), std::nullopt);
    QCOMPARE(estAchievedOccupancyPct(d, fine), std::optional<int>(25)); // 4 blocks × 128 / 2048
    QCOMPARE(warpsPerSm(fine), 16.0);
}

QTEST_GUILESS_MAIN(TestOccupancy)
#include "tst_occupancy.moc"
