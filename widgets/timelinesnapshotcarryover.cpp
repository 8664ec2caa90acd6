#include "widgets/timelinesnapshotcarryover.h"

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

TimelineSnapshotCarryOver::TimelineSnapshotCarryOver(const Trace& older, const Trace& newer)
    : m_older(older)
    , m_newer(newer)
{
    m_processes = matchItems(
        older.processes().size(), newer.processes().size(), [&](std::uint32_t p) { return processIdentity(older, p); },
        [&](std::uint32_t p) { return processIdentity(newer, p); });
    m_tracks = matchItems(
        older.tracks().size(), newer.tracks().size(), [&](std::uint32_t t) { return trackIdentity(older, t); },
        [&](std::uint32_t t) { return trackIdentity(newer, t); });
    m_counters = matchItems(
        older.counters().size(), newer.counters().size(), [&](std::uint32_t c) { return counterIdentity(older, c); },
        [&](std::uint32_t c) { return counterIdentity(newer, c); });
}

LayoutOptions TimelineSnapshotCarryOver::layoutOptions(const LayoutOptions& older, LayoutOptions options) const
{
    options.gpuFirst = older.gpuFirst;
    options.pinnedTracks = mapped(older.pinnedTracks, m_tracks);
    options.groupOrder = mapped(older.groupOrder, m_processes);
    options.foldedPythonLanes.resize(m_newer.tracks().size(), false);
    carryOver(older.foldedPythonLanes, m_tracks, options.foldedPythonLanes);
    options.collapsedMetrics.resize(m_newer.processes().size(), 0);
    carryOver(older.collapsedMetrics, m_processes, options.collapsedMetrics);
    options.collapsedCounters.resize(m_newer.counters().size(), false);
    carryOver(older.collapsedCounters, m_counters, options.collapsedCounters);
    return options;
}

void TimelineSnapshotCarryOver::carryCollapsed(const std::vector<bool>& older, std::vector<bool>& newer) const
{
    carryOver(older, m_processes, newer);
}

SliceId TimelineSnapshotCarryOver::slice(SliceId s) const
{
    if (s == kNoSlice || s >= m_older.slices().size())
        return kNoSlice;
    const std::uint32_t track = m_tracks[m_older.trackOf(s)];
    return track == kNoIndex
        ? kNoSlice
        : findSlice(m_newer, track, m_older.slices().start[s], m_older.str(m_older.slices().name[s]));
}

void TimelineSnapshotCarryOver::remap(NavigationHistory& history) const
{
    history.remap([&](TraceSlice entry) { return TraceSlice{0, entry.trace == 0 ? slice(entry.slice) : kNoSlice}; });
}

} // namespace ks
