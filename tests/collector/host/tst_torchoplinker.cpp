// Operator links updated as records arrive (TorchOpLinker): after every update, in any arrival
// order, they equal the links' definition applied to everything so far (the innermost op
// containing a call's start, the GPU work by correlation id, kineto's fwdbwd pairing), and
// the update names exactly the earlier slices whose External id it changed.
#include "collector/host/recordedprocess.h"
#include "collector/host/torchoplinker.h"
#include "recordstream.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <tuple>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

TimeNs endOf(const RecordedSlice& s) { return s.start + s.duration; }

// The definition, by brute force over every pair of slices.
std::vector<std::int64_t> definedExternalIds(const RecordedProcess& p)
{
    const auto& slices = p.slices;
    std::vector<std::int64_t> ids(slices.size(), kNoId);
    std::map<std::int64_t, std::int64_t> externalOfCorrelation;
    for (std::size_t i = 0; i < slices.size(); ++i) {
        if (slices[i].op >= 0)
            ids[i] = p.ops[std::size_t(slices[i].op)].externalId;
        if (slices[i].op >= 0
            || (slices[i].category != EventCategory::Runtime && slices[i].category != EventCategory::Driver))
            continue;
        std::optional<std::size_t> innermost;
        const auto order = [&](std::size_t o) { return std::tuple(slices[o].start, -slices[o].duration, o); };
        for (std::size_t o = 0; o < slices.size(); ++o) {
            if (slices[o].op >= 0 && slices[o].tid == slices[i].tid && slices[o].start <= slices[i].start
                && slices[i].start <= endOf(slices[o]) && (!innermost || order(o) > order(*innermost)))
                innermost = o;
        }
        if (innermost) {
            ids[i] = p.ops[std::size_t(slices[*innermost].op)].externalId;
            if (slices[i].correlation != kNoId)
                externalOfCorrelation[slices[i].correlation] = ids[i];
        }
    }
    for (std::size_t i = 0; i < slices.size(); ++i) {
        const auto launch = externalOfCorrelation.find(slices[i].correlation);
        if (slices[i].gpuOp >= 0 && launch != externalOfCorrelation.end())
            ids[i] = launch->second;
    }
    return ids;
}

// Per sequence number: the forward op that started last (the later one on a tie) and the
// backward op that ended first (the earlier one on a tie), paired if the forward started first.
std::vector<std::pair<std::uint32_t, std::uint32_t>> definedForwardBackward(const RecordedProcess& p)
{
    std::map<std::int64_t, std::uint32_t> forward, backward;
    for (std::uint32_t i = 0; i < p.slices.size(); ++i) {
        const auto& s = p.slices[i];
        if (s.op < 0 || p.ops[std::size_t(s.op)].sequence < 0)
            continue;
        const TorchOp& op = p.ops[std::size_t(s.op)];
        auto& table = op.backward ? backward : forward;
        const auto known = table.find(op.sequence);
        if (known == table.end()
            || (op.backward ? endOf(s) < endOf(p.slices[known->second]) : s.start >= p.slices[known->second].start))
            table[op.sequence] = i;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (const auto& [sequence, b] : backward) {
        const auto f = forward.find(sequence);
        if (f != forward.end() && p.slices[f->second].start <= p.slices[b].start)
            pairs.emplace_back(f->second, b);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
}

// Ops (some sharing a start and duration), calls with unique correlation ids, kernels of
// those calls arriving before or after them, and plain ranges, on three threads.
std::vector<RecordedSlice> randomRecording(std::mt19937_64& rng, RecordedProcess& p)
{
    std::vector<RecordedSlice> slices(5 + rng() % 150);
    std::int64_t correlation = 0;
    for (std::size_t i = 0; i < slices.size(); ++i) {
        RecordedSlice& s = slices[i];
        s.tid = std::int64_t(rng() % 3);
        s.start = TimeNs(rng() % 1000);
        s.duration = TimeNs(rng() % 300);
        if (i > 0 && rng() % 5 == 0)
            std::tie(s.start, s.duration) = std::pair(slices[i - 1].start, slices[i - 1].duration);
        switch (rng() % 4) {
        case 0:
            s.category = EventCategory::CpuOp;
            s.op = int(p.ops.size());
            p.ops.push_back({std::int64_t(1000 + i), rng() % 3 == 0 ? -1 : std::int64_t(rng() % 10), rng() % 2 == 0});
            break;
        case 1:
            s.category = rng() % 2 ? EventCategory::Runtime : EventCategory::Driver;
            s.correlation = rng() % 5 == 0 ? kNoId : correlation++;
            break;
        case 2:
            s.category = EventCategory::Kernel;
            s.gpuOp = 0;
            s.correlation = std::int64_t(rng() % (slices.size() / 3 + 1));
            break;
        default: s.category = EventCategory::Annotation;
        }
    }
    return slices;
}

} // namespace

class TestTorchOpLinker : public QObject {
    Q_OBJECT
private slots:
    void updatesEqualTheDefinition()
    {
        std::mt19937_64 rng(7);
        for (int recording = 0; recording < 1500; ++recording) {
            RecordedProcess p;
            const std::vector<RecordedSlice> all = randomRecording(rng, p);
            RecordIndex index;
            TorchOpLinker linker;
            std::vector<std::int64_t> before;
            feedInRandomChunks(all, rng, p, index, [&] {
                linker.update(p, index);
                const std::vector<std::int64_t> defined = definedExternalIds(p);
                std::vector<std::int64_t> ids = linker.externalIdOfSlice();
                if (ids.empty()) // no op range yet
                    ids.assign(p.slices.size(), kNoId);
                QCOMPARE(ids, defined);
                QCOMPARE(linker.forwardBackward(), definedForwardBackward(p));
                std::vector<std::uint32_t> changed = linker.changed(), expected;
                std::sort(changed.begin(), changed.end());
                for (std::uint32_t i = 0; i < before.size(); ++i) {
                    if (ids[i] != before[i])
                        expected.push_back(i);
                }
                QCOMPARE(changed, expected);
                before = ids;
            });
        }
    }

    // The usual order: the calls of an operator arrive, then the operator (when it ended),
    // then the operator around it.
    void lateOpsRelinkEarlierCalls()
    {
        RecordedProcess p;
        p.ops = {{7, 3, false}, {8, -1, false}};
        const auto op = [](TimeNs start, TimeNs end, int index) {
            RecordedSlice s = recordedSlice(EventCategory::CpuOp, start, end - start);
            s.op = index;
            return s;
        };
        const RecordedSlice call = recordedSlice(EventCategory::Runtime, 20, 5, 1);
        const RecordedSlice kernel = recordedSlice(EventCategory::Kernel, 0, 0, 1);
        RecordIndex index;
        TorchOpLinker linker;
        p.slices = {call, kernel};
        linker.update(p, index);
        QVERIFY(linker.changed().empty());
        p.slices.push_back(op(10, 30, 1)); // the inner op
        linker.update(p, index);
        QCOMPARE(linker.externalIdOfSlice(), (std::vector<std::int64_t>{8, 8, 8}));
        QCOMPARE(linker.changed(), (std::vector<std::uint32_t>{0, 1}));
        p.slices.push_back(op(0, 40, 0)); // the outer op: the call stays with the inner one
        linker.update(p, index);
        QCOMPARE(linker.externalIdOfSlice(), (std::vector<std::int64_t>{8, 8, 8, 7}));
        QVERIFY(linker.changed().empty());
    }
};

QTEST_APPLESS_MAIN(TestTorchOpLinker)
#include "tst_torchoplinker.moc"
