// A live recording shows a newer snapshot of its trace every 100 ms: the user's view of the
// previous one carries over, so a user can scroll down to a GPU stream, fold groups, select
// a range or a kernel and keep them while the recording goes on. The snapshots are separate
// traces: their processes, tracks and counters are matched by pid, tid and name, and a
// selected slice (whose id may differ) by its track, start and name.
#include "widgets/timelinewidget.h"

#include <QHash>
#include <QString>

#include <algorithm>

namespace ks {

namespace {

QString idText(const Trace& trace, const JsonId& id)
{
    if (!id.isText)
        return QString::number(id.number);
    const std::string_view text = trace.str(id.text);
    return QLatin1Char('"') + QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString processIdentity(const Trace& trace, std::uint32_t process)
{
    if (process >= trace.processes().size())
        return QString();
    const Process& p = trace.processes()[process];
    return (p.isDevice ? QStringLiteral("gpu ") : QStringLiteral("pid ")) + idText(trace, p.pid);
}

QString trackIdentity(const Trace& trace, std::uint32_t track)
{
    const Track& t = trace.tracks()[track];
    return processIdentity(trace, t.process) + QStringLiteral("/tid ") + idText(trace, t.tid);
}

QString counterIdentity(const Trace& trace, std::uint32_t counter)
{
    const CounterSeries& series = trace.counters()[counter];
    return processIdentity(trace, series.process) + QLatin1Char('/') + QString::fromStdString(series.name);
}

// For each item of the older trace, its index in the newer one, or kNoIndex.
template <class OlderIdentity, class NewerIdentity>
std::vector<std::uint32_t> matchItems(std::size_t olderCount, std::size_t newerCount,
                                      const OlderIdentity& olderIdentity, const NewerIdentity& newerIdentity)
{
    QHash<QString, std::uint32_t> newer;
    newer.reserve(qsizetype(newerCount));
    for (std::uint32_t i = 0; i < newerCount; ++i)
        newer.insert(newerIdentity(i), i);
    std::vector<std::uint32_t> match(olderCount, kNoIndex);
    for (std::uint32_t i = 0; i < olderCount; ++i)
        match[i] = newer.value(olderIdentity(i), kNoIndex);
    return match;
}

// Entries of `older` (indexed by the older trace's items) copied onto `newer` through `match`.
template <class T>
void carryOver(const std::vector<T>& older, const std::vector<std::uint32_t>& match, std::vector<T>& newer)
{
    for (std::size_t i = 0; i < older.size() && i < match.size(); ++i) {
        if (match[i] < newer.size())
            newer[match[i]] = older[i];
    }
}

std::vector<std::uint32_t> mapped(const std::vector<std::uint32_t>& older, const std::vector<std::uint32_t>& match)
{
    std::vector<std::uint32_t> newer;
    for (std::uint32_t i : older) {
        if (i < match.size() && match[i] != kNoIndex)
            newer.push_back(match[i]);
    }
    return newer;
}

// The slice of `track` in `trace` starting at `start` with this name, or kNoSlice.
SliceId findSlice(const Trace& trace, std::uint32_t track, TimeNs start, std::string_view name)
{
    const Track& t = trace.tracks()[track];
    const SliceTable& slices = trace.slices();
    for (SliceId s = t.sliceBegin; s < t.sliceEnd; ++s) {
        if (slices.start[s] == start && trace.str(slices.name[s]) == name)
            return s;
    }
    return kNoSlice;
}

} // namespace

TimelineWidget::SnapshotView TimelineWidget::snapshotView() const
{
    SnapshotView view;
    if (m_lanes.size() != 1)
        return view; // a comparison or the ranks of a run are not live
    view.trace = m_lanes[0].source.trace;
    view.options = m_lanes[0].layout.options();
    view.collapsed = m_lanes[0].collapsed;
    view.scrollY = m_state.scrollY;
    view.hasRange = m_range.active;
    view.range = selectedRange();
    if (m_selection.trace == 0)
        view.selected = m_selection.slice;
    view.history = m_history;
    return view;
}

void TimelineWidget::restoreSnapshotView(const SnapshotView& view)
{
    if (!view.trace || m_lanes.size() != 1)
        return;
    const Trace& older = *view.trace;
    Lane& lane = m_lanes[0];
    const Trace& newer = *lane.source.trace;

    const auto processes = matchItems(
        older.processes().size(), newer.processes().size(), [&](std::uint32_t p) { return processIdentity(older, p); },
        [&](std::uint32_t p) { return processIdentity(newer, p); });
    const auto tracks = matchItems(
        older.tracks().size(), newer.tracks().size(), [&](std::uint32_t t) { return trackIdentity(older, t); },
        [&](std::uint32_t t) { return trackIdentity(newer, t); });
    const auto counters = matchItems(
        older.counters().size(), newer.counters().size(), [&](std::uint32_t c) { return counterIdentity(older, c); },
        [&](std::uint32_t c) { return counterIdentity(newer, c); });

    // Items new in this snapshot keep what the newer trace got (saved settings, defaults).
    LayoutOptions options = lane.layout.options();
    options.gpuFirst = view.options.gpuFirst;
    options.pinnedTracks = mapped(view.options.pinnedTracks, tracks);
    options.groupOrder = mapped(view.options.groupOrder, processes);
    options.foldedPythonLanes.resize(newer.tracks().size(), false);
    carryOver(view.options.foldedPythonLanes, tracks, options.foldedPythonLanes);
    options.collapsedMetrics.resize(newer.processes().size(), 0);
    carryOver(view.options.collapsedMetrics, processes, options.collapsedMetrics);
    options.collapsedCounters.resize(newer.counters().size(), false);
    carryOver(view.options.collapsedCounters, counters, options.collapsedCounters);
    lane.layout.setOptions(std::move(options));
    carryOver(view.collapsed, processes, lane.collapsed);
    m_state.scrollY = view.scrollY;
    rebuildLayout(); // clamps the scroll to the new height

    if (view.hasRange)
        setSelectedRange(view.range.start, view.range.end);
    // A slice of the older snapshot in the newer one: same track, start and name.
    const auto inNewer = [&](SliceId s) {
        if (s == kNoSlice || s >= older.slices().size())
            return kNoSlice;
        const std::uint32_t track = tracks[older.trackOf(s)];
        return track == kNoIndex ? kNoSlice
                                 : findSlice(newer, track, older.slices().start[s], older.str(older.slices().name[s]));
    };
    if (const SliceId found = inNewer(view.selected); found != kNoSlice)
        select({0, found}, false);
    m_history = view.history;
    m_history.remap([&](TraceSlice entry) {
        return TraceSlice{0, entry.trace == 0 ? inNewer(entry.slice) : kNoSlice};
    });
    Q_EMIT historyChanged();
}

} // namespace ks
