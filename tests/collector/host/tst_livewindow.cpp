// A live view's window (LiveTraceBuilder::setWindow): past a number of slices, each snapshot
// holds only the most recent records, and what it holds is what the whole recording's build holds
// of them: the same slices with the same External ids, the flows between them, the GPU annotations
// that reach into it. Turning the window off gives the whole build again, byte for byte.
#include "core/writing/writer.h"
#include "recordstream.h"

#include <QTest>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace ks;
using namespace ks::collector;
using namespace ks::collector::test;

namespace {

using SliceKey = std::tuple<TimeNs, std::string, std::string>; // start, name, category

SliceKey keyOf(const Trace& t, SliceId s)
{
    return {t.slices().start[s], std::string(t.str(t.slices().name[s])), std::string(t.str(t.slices().category[s]))};
}

// Each slice of a trace by its key, with its External id.
std::map<SliceKey, std::int64_t> externalIds(const Trace& t)
{
    std::map<SliceKey, std::int64_t> ids;
    for (SliceId s = 0; s < t.slices().size(); ++s)
        ids.emplace(keyOf(t, s), t.slices().externalId[s]);
    return ids;
}

std::set<std::tuple<std::string, SliceKey, SliceKey>> flowsOf(const Trace& t)
{
    std::set<std::tuple<std::string, SliceKey, SliceKey>> flows;
    for (const auto& f : t.flows())
        flows.emplace(std::string(t.str(f.category)), keyOf(t, f.from), keyOf(t, f.to));
    return flows;
}

std::string writtenText(const Trace& trace)
{
    std::ostringstream json;
    return writeTraceJson(trace, json).ok ? json.str() : std::string();
}

// One training step at `atUs`: a forward op launching a kernel inside a user range, and its
// backward op (the forward's sequence number, on the autograd thread) launching another.
void recordStep(Stream& s, int step)
{
    using M = wire::Marker;
    const auto n = static_cast<std::uint32_t>(step);
    const std::int64_t t = std::int64_t(step) * 1000;
    const std::uint32_t forward = 100 + 2 * n, backward = forward + 1, correlation = 1 + 2 * n;
    s.string(forward,
             "aten::mm, seq = " + std::to_string(step) + ", op_id = " + std::to_string(10 * step + 1)
                 + ", sizes = [[8, 16], [16, 4]]");
    s.string(backward, "MmBackward0, seq = " + std::to_string(step) + ", op_id = " + std::to_string(10 * step + 2));
    s.setThread(kTid);
    s.marker(3 * n + 1, M::Start, t + 5, 14); // "my range": a GPU annotation of its kernel
    s.marker(3 * n + 2, M::Start, t + 10, forward);
    s.api(correlation, t + 20, 5);
    s.marker(3 * n + 2, M::End, t + 40);
    s.marker(3 * n + 1, M::End, t + 45);
    s.kernel(correlation, t + 30, 20);
    s.setThread(kTid + 1);
    s.marker(3 * n + 3, M::Start, t + 60, backward);
    s.api(correlation + 1, t + 70, 5);
    s.marker(3 * n + 3, M::End, t + 90);
    s.kernel(correlation + 1, t + 80, 10);
}

constexpr std::size_t kSlicesPerStep = 7; // 2 ops, 2 calls, 2 kernels, the range

} // namespace

class TestLiveWindow : public QObject {
    Q_OBJECT
private slots:
    void snapshotsHoldTheMostRecentRecordsAsTheWholeBuildHoldsThem()
    {
        Stream s;
        s.send(h200());
        s.string(1, "cudaLaunchKernel_v7000");
        s.string(2, "_Z4gemmPfi");
        s.string(14, "my range");
        constexpr std::size_t kWindow = 60;
        std::vector<RecordedProcess> live(1);
        LiveTraceBuilder builder;
        builder.setWindow(kWindow);
        std::size_t windowed = 0, slides = 0, previousFirst = 0;
        for (int step = 0; step < 40; ++step) {
            recordStep(s, step);
            live.front().catchUp(s.recorder().data());
            const Trace snapshot = builder.build(live, {kBase, s.arena(), {}});
            const Trace whole = buildCollectedTrace(live, {kBase, s.arena(), {}});
            const std::size_t recorded = live.front().slices.size();
            QCOMPARE(builder.slicesRecorded(), recorded);
            const std::size_t shown = builder.slicesShown();
            if (shown == recorded) { // the first window: everything so far
                QVERIFY2(recorded <= kWindow + kSlicesPerStep, qPrintable(QString::number(recorded)));
                QVERIFY(!liveWindowOf(snapshot));
                QCOMPARE(writtenText(snapshot), writtenText(whole));
                continue;
            }
            QVERIFY2(shown >= kWindow / 2 && shown <= kWindow + kSlicesPerStep,
                     qPrintable(QStringLiteral("%1 of %2 slices shown").arg(shown).arg(recorded)));
            const auto window = liveWindowOf(snapshot);
            QVERIFY(window);
            QCOMPARE(window->slicesShown, shown);
            QCOMPARE(window->slicesRecorded, recorded);
            const auto& recordedSlices = live.front().slices;
            QCOMPARE(window->shownFrom,
                     std::min_element(recordedSlices.begin() + std::ptrdiff_t(recorded - shown), recordedSlices.end(),
                                      [](const auto& a, const auto& b) { return a.start < b.start; })
                         ->start);
            QCOMPARE(snapshot.startTime(), whole.startTime()); // times count from the recording's start
            QCOMPARE(snapshot.endTime(), whole.endTime());
            ++windowed;

            // The records shown are the last `shown` recorded, each with the whole build's External id.
            const auto wholeIds = externalIds(whole);
            const auto shownIds = externalIds(snapshot);
            const auto& slices = live.front().slices;
            const std::size_t first = recorded - shown;
            slides += first != previousFirst;
            previousFirst = first;
            std::set<SliceKey> recordedKeys;
            for (const auto& [key, id] : shownIds) {
                if (std::get<2>(key) != "gpu_user_annotation")
                    recordedKeys.insert(key);
                QCOMPARE(id, wholeIds.at(key));
            }
            QCOMPARE(recordedKeys.size(), shown);
            for (std::size_t i = first; i < recorded; ++i) {
                const auto start = slices[i].start;
                QVERIFY2(std::any_of(recordedKeys.begin(), recordedKeys.end(),
                                     [&](const SliceKey& k) { return std::get<0>(k) == start; }),
                         qPrintable(QStringLiteral("recorded slice %1 is not shown").arg(i)));
            }
            // The GPU annotations are the whole build's that end in the window.
            std::size_t annotations = 0;
            for (SliceId a = 0; a < whole.slices().size(); ++a) {
                if (whole.classOf(a) == SliceClass::GpuUserAnnotation) {
                    const bool inWindow = whole.slices().end(a) >= slices[first].start;
                    QCOMPARE(shownIds.count(keyOf(whole, a)), std::size_t(inWindow));
                    annotations += inWindow;
                }
            }
            QCOMPARE(snapshot.slices().size(), shown + annotations);

            // Its flows are the whole build's flows between the slices it holds.
            const auto shownFlows = flowsOf(snapshot);
            std::size_t expected = 0;
            for (const auto& flow : flowsOf(whole)) {
                if (shownIds.count(std::get<1>(flow)) && shownIds.count(std::get<2>(flow))) {
                    ++expected;
                    QVERIFY(shownFlows.count(flow));
                }
            }
            QCOMPARE(shownFlows.size(), expected);
            QVERIFY(expected > 0);
        }
        // The second window started at 35 slices (the first held 30 and more) and is shown from
        // 70 (step 9) on, when it holds half the window; each one after it 35 slices (5 steps) later.
        QCOMPARE(windowed, std::size_t(31));
        QCOMPARE(slides, std::size_t(7));

        // No window: the whole recording again, as built in one go.
        builder.setWindow(0);
        const Trace all = builder.build(live, {kBase, s.arena(), {}});
        QVERIFY(!liveWindowOf(all));
        QCOMPARE(builder.slicesShown(), live.front().slices.size());
        QCOMPARE(writtenText(all), writtenText(buildCollectedTrace(live, {kBase, s.arena(), {}})));
    }
};

QTEST_GUILESS_MAIN(TestLiveWindow)
#include "tst_livewindow.moc"
