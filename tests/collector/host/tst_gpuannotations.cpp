// GPU annotations updated as records arrive (GpuAnnotations): after every update, in any
// arrival order, they are what the definition gives for everything so far: per range and
// (device, stream), the span of the GPU ops launched by the calls on the range's thread that
// start inside it (a call without a correlation id launched nothing that can be told apart),
// widened by 1 ns each side.
#include "collector/host/gpuannotations.h"
#include "recordstream.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

TimeNs endOf(const RecordedSlice& s) { return s.start + s.duration; }

bool sameAnnotation(const RecordedSlice& a, const RecordedSlice& b)
{
    return std::tuple(a.pid, a.tid, a.start, a.duration, a.name, a.category, a.op)
        == std::tuple(b.pid, b.tid, b.start, b.duration, b.name, b.category, b.op);
}

// The definition, by brute force over every (range, call, GPU op) triple.
std::vector<RecordedSlice> definedAnnotations(const RecordedProcess& p)
{
    const auto& slices = p.slices;
    std::map<std::tuple<std::uint32_t, std::int64_t, std::int64_t>, std::pair<TimeNs, TimeNs>> spans;
    for (std::uint32_t r = 0; r < slices.size(); ++r) {
        if (slices[r].gpuOp >= 0 || slices[r].category != EventCategory::Annotation)
            continue;
        for (const auto& c : slices) {
            if ((c.category != EventCategory::Runtime && c.category != EventCategory::Driver) || c.tid != slices[r].tid
                || c.start < slices[r].start || c.start > endOf(slices[r]) || c.correlation == kNoId)
                continue;
            for (const auto& g : slices) {
                if (g.gpuOp < 0 || g.correlation != c.correlation)
                    continue;
                const auto [it, inserted] = spans.try_emplace({r, g.pid, g.tid}, g.start, endOf(g));
                it->second = {std::min(it->second.first, g.start), std::max(it->second.second, endOf(g))};
            }
        }
    }
    std::vector<RecordedSlice> out;
    for (const auto& [key, span] : spans) {
        RecordedSlice a;
        a.pid = std::get<1>(key);
        a.tid = std::get<2>(key);
        a.start = span.first - 1;
        a.duration = span.second - span.first + 2;
        a.name = slices[std::get<0>(key)].name;
        a.category = EventCategory::GpuAnnotation;
        a.op = slices[std::get<0>(key)].op;
        out.push_back(a);
    }
    return out;
}

// Nested and overlapping ranges, calls (some sharing a correlation id, as CUDA graph launches
// share theirs among their kernels' records; a few without one, as GPU ops), GPU ops on two
// devices' streams, on two threads.
std::vector<RecordedSlice> randomRecording(std::mt19937_64& rng)
{
    std::vector<RecordedSlice> slices(1 + rng() % 80);
    for (std::size_t i = 0; i < slices.size(); ++i) {
        RecordedSlice& s = slices[i];
        s.start = TimeNs(rng() % 1000);
        s.duration = TimeNs(rng() % 200);
        s.name = std::uint32_t(i);
        switch (rng() % 3) {
        case 0:
            s.category = EventCategory::Annotation;
            s.tid = std::int64_t(rng() % 2);
            s.op = rng() % 2 ? int(i) : -1;
            break;
        case 1:
            s.category = rng() % 2 ? EventCategory::Runtime : EventCategory::Driver;
            s.tid = std::int64_t(rng() % 2);
            s.correlation = rng() % 10 == 0 ? kNoId : std::int64_t(rng() % 30);
            break;
        default:
            s.category = EventCategory::Kernel;
            s.gpuOp = 0;
            s.pid = std::int64_t(rng() % 2);
            s.tid = std::int64_t(7 + rng() % 2);
            s.correlation = rng() % 10 == 0 ? kNoId : std::int64_t(rng() % 30);
        }
    }
    return slices;
}

} // namespace

class TestGpuAnnotations : public QObject {
    Q_OBJECT
private slots:
    void updatesEqualTheDefinition()
    {
        std::mt19937_64 rng(11);
        for (int recording = 0; recording < 1500; ++recording) {
            const std::vector<RecordedSlice> all = randomRecording(rng);
            RecordedProcess p;
            RecordIndex index;
            GpuAnnotations annotations;
            feedInRandomChunks(all, rng, p, index, [&] {
                annotations.update(p, index);
                const auto got = annotations.slices(p);
                const auto defined = definedAnnotations(p);
                QCOMPARE(got.size(), defined.size());
                QVERIFY(std::equal(got.begin(), got.end(), defined.begin(), sameAnnotation));
            });
        }
    }

    // A step's range is recorded when it ends, after its calls; the kernels come later still.
    void rangeAfterItsCallsAndBeforeTheirKernels()
    {
        RecordedProcess p;
        const RecordedSlice call = recordedSlice(EventCategory::Runtime, 10, 2, 1);
        const RecordedSlice range = recordedSlice(EventCategory::Annotation, 5, 20);
        const RecordedSlice kernel = recordedSlice(EventCategory::Kernel, 30, 4, 1, 7);
        RecordIndex index;
        GpuAnnotations annotations;
        p.slices = {call};
        annotations.update(p, index);
        p.slices.push_back(range);
        annotations.update(p, index);
        QVERIFY(annotations.slices(p).empty()); // nothing launched ran yet
        p.slices.push_back(kernel);
        annotations.update(p, index);
        const auto got = annotations.slices(p);
        QCOMPARE(got.size(), std::size_t(1));
        QCOMPARE(got[0].tid, std::int64_t(7));
        QCOMPARE(got[0].start, TimeNs(29));
        QCOMPARE(got[0].duration, TimeNs(6));
    }
};

QTEST_APPLESS_MAIN(TestGpuAnnotations)
#include "tst_gpuannotations.moc"
