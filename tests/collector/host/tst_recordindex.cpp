// The index the operator links and GPU annotations share (RecordIndex, RangesByStart): after
// every update of random recordings fed in random chunks, what it answers equals a search of
// every record.
#include "collector/host/recordindex.h"
#include "recordstream.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <random>
#include <tuple>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

bool isCall(const RecordedSlice& s)
{
    return s.category == EventCategory::Runtime || s.category == EventCategory::Driver;
}

// Calls, GPU ops (a few without a correlation id) and ranges (some sharing a start) on two threads.
std::vector<RecordedSlice> randomRecording(std::mt19937_64& rng)
{
    std::vector<RecordedSlice> slices(1 + rng() % 100);
    for (std::size_t i = 0; i < slices.size(); ++i) {
        const auto category = std::array{EventCategory::Runtime, EventCategory::Driver, EventCategory::Kernel,
                                         EventCategory::Annotation}[rng() % 4];
        slices[i] = recordedSlice(category, TimeNs(rng() % 50), TimeNs(rng() % 20),
                                  rng() % 8 == 0 ? kNoId : std::int64_t(rng() % 12), std::int64_t(rng() % 2));
    }
    return slices;
}

} // namespace

class TestRecordIndex : public QObject {
    Q_OBJECT
private slots:
    void answersEqualASearchOfEveryRecord()
    {
        std::mt19937_64 rng(5);
        for (int recording = 0; recording < 1000; ++recording) {
            const std::vector<RecordedSlice> all = randomRecording(rng);
            RecordedProcess p;
            RecordIndex index, updatedAhead; // the check below updates `index` itself
            feedInRandomChunks(all, rng, p, updatedAhead, [&] {
                index.update(p);
                const auto& slices = p.slices;
                for (const std::int64_t tid : {0, 1}) {
                    std::vector<std::uint32_t> calls;
                    for (std::uint32_t i = 0; i < slices.size(); ++i) {
                        if (isCall(slices[i]) && slices[i].tid == tid)
                            calls.push_back(i);
                    }
                    std::sort(calls.begin(), calls.end(), [&](std::uint32_t a, std::uint32_t b) {
                        return std::pair(slices[a].start, a) < std::pair(slices[b].start, b);
                    });
                    const auto got = index.callsOf(tid);
                    QCOMPARE(std::vector<std::uint32_t>(got.begin(), got.end()), calls);
                }
                for (std::int64_t correlation = -1; correlation < 12; ++correlation) {
                    std::vector<std::uint32_t> gpuOps, got;
                    for (std::uint32_t i = 0; i < slices.size(); ++i) {
                        if (slices[i].gpuOp >= 0 && slices[i].correlation == correlation && correlation != kNoId)
                            gpuOps.push_back(i);
                    }
                    index.forEachGpuOp(correlation, [&](std::uint32_t i) { got.push_back(i); });
                    std::sort(got.begin(), got.end());
                    QCOMPARE(got, gpuOps);
                }
            });
        }
    }

    // The ranges running at a time, found by walking back from it, are every range that
    // started before it (or at it) and ends at it or later, the latest started first.
    void rangesRunningAtATime()
    {
        std::mt19937_64 rng(9);
        for (int recording = 0; recording < 1000; ++recording) {
            RecordedProcess p;
            p.slices = randomRecording(rng);
            RangesByStart ranges;
            std::vector<std::uint32_t> fresh;
            for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
                fresh.push_back(i);
                if (rng() % 4 == 0 || i + 1 == p.slices.size()) {
                    ranges.insert(p, fresh);
                    fresh.clear();
                }
            }
            const auto& sorted = ranges.ranges();
            QCOMPARE(sorted.size(), p.slices.size());
            QVERIFY(std::is_sorted(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
                const auto& x = p.slices[a];
                const auto& y = p.slices[b];
                return std::tuple(x.start, -x.duration, a) < std::tuple(y.start, -y.duration, b);
            }));
            for (TimeNs at = -1; at <= 72; ++at) {
                for (const bool orAt : {false, true}) {
                    const std::size_t count = ranges.startedBefore(p, at, orAt);
                    std::vector<std::uint32_t> got, expected;
                    ranges.forEachRunningAt(p, count, at, [&](std::uint32_t r) { got.push_back(r); });
                    for (std::size_t k = sorted.size(); k > 0; --k) {
                        const auto& s = p.slices[sorted[k - 1]];
                        if ((orAt ? s.start <= at : s.start < at) && s.start + s.duration >= at)
                            expected.push_back(sorted[k - 1]);
                    }
                    QCOMPARE(got, expected);
                }
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestRecordIndex)
#include "tst_recordindex.moc"
