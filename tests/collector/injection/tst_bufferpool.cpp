// The injection's buffer pool: its cap, reuse of zeroed buffers, and no allocation on the
// path CUPTI's buffer callback takes on application threads.
#include "allocationcounter.h"
#include "collector/injection/bufferpool.h"

#include <QTest>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

using ks::injection::BufferPool;
using ks::testing::g_allocations;

class TestBufferPool : public QObject {
    Q_OBJECT
private slots:
    void capAndZeroedReuse()
    {
        BufferPool pool(4096, 2);
        std::uint8_t* a = pool.acquire();
        std::uint8_t* b = pool.acquire();
        QVERIFY(a && b && a != b);
        QCOMPARE(pool.acquire(), nullptr);
        QCOMPARE(pool.requested(), std::uint64_t(3));
        QCOMPARE(pool.refused(), std::uint64_t(1));
        std::memset(a, 0xab, 100);
        pool.release(a, 100);
        QCOMPARE(pool.acquire(), a);
        QVERIFY(std::all_of(a, a + 4096, [](std::uint8_t v) { return v == 0; }));
    }

    void acquireAndReleaseNeverAllocate()
    {
        BufferPool pool(64, 16);
        std::vector<std::uint8_t*> held;
        held.reserve(32);
        const long before = g_allocations.load();
        for (int round = 0; round < 3; ++round) {
            for (int i = 0; i < 17; ++i) // one over the cap
                held.push_back(pool.acquire());
            for (auto* buffer : held) {
                if (buffer)
                    pool.release(buffer, 64);
            }
            held.clear();
        }
        QCOMPARE(g_allocations.load() - before, 0L);
        QCOMPARE(pool.requested(), std::uint64_t(51));
        QCOMPARE(pool.refused(), std::uint64_t(3));
    }

    void concurrentCallersRespectTheCap()
    {
        BufferPool pool(1024, 4);
        std::vector<std::uint8_t*> got(16, nullptr);
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < got.size(); ++i)
            threads.emplace_back([&pool, &got, i] { got[i] = pool.acquire(); });
        for (auto& t : threads)
            t.join();
        const auto firstBuffer = std::remove(got.begin(), got.end(), nullptr);
        got.erase(firstBuffer, got.end());
        QCOMPARE(got.size(), std::size_t(4));
        std::sort(got.begin(), got.end());
        QVERIFY(std::adjacent_find(got.begin(), got.end()) == got.end());
        QCOMPARE(pool.refused(), std::uint64_t(12));
    }
};

QTEST_GUILESS_MAIN(TestBufferPool)
#include "tst_bufferpool.moc"
