// The ring of completed CUPTI buffers: FIFO order across wrap-around, a hard capacity, and
// no allocation in push/pop (they run inside CUPTI's callback).
#include "allocationcounter.h"
#include "collector/injection/bufferqueue.h"

#include <QTest>

using ks::injection::BufferQueue;
using ks::injection::CompletedBuffer;
using ks::testing::g_allocations;

namespace {
std::uint8_t g_buffers[8];
CompletedBuffer completed(int i) { return {&g_buffers[i], std::size_t(100 + i)}; }
} // namespace

class TestBufferQueue : public QObject {
    Q_OBJECT
private slots:
    void fifoAcrossWrapAround()
    {
        BufferQueue queue(3);
        QCOMPARE(queue.capacity(), std::size_t(3));
        const long before = g_allocations.load();
        int next = 0, expected = 0;
        CompletedBuffer out;
        for (int round = 0; round < 4; ++round) {
            while (queue.size() < 3)
                QVERIFY(queue.push(completed(next++ % 8)));
            QVERIFY(!queue.push(completed(7))); // full: refused, nothing overwritten
            for (int i = 0; i < 2; ++i) {
                QVERIFY(queue.pop(out));
                QCOMPARE(out.buffer, &g_buffers[expected % 8]);
                QCOMPARE(out.validBytes, std::size_t(100 + expected % 8));
                ++expected;
            }
        }
        while (queue.pop(out))
            ++expected;
        QCOMPARE(expected, next);
        QVERIFY(queue.empty());
        QVERIFY(!queue.pop(out));
        QCOMPARE(g_allocations.load() - before, 0L);
    }

    void zeroCapacityHoldsOne()
    {
        BufferQueue queue(0);
        QVERIFY(queue.push(completed(0)));
        QVERIFY(!queue.push(completed(1)));
    }
};

QTEST_GUILESS_MAIN(TestBufferQueue)
#include "tst_bufferqueue.moc"
