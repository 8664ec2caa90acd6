#include "widgets/timelinelayoutsettings.h"

#include <QSettings>
#include <QStringList>

#include <algorithm>

namespace ks {

namespace {

QString settingsKey(const Trace& trace, const char* name)
{
    return QStringLiteral("timeline/layout/%1/%2").arg(TimelineLayoutSettings::traceKind(trace), QLatin1String(name));
}

} // namespace

QString TimelineLayoutSettings::traceKind(const Trace& trace)
{
    const auto& processes = trace.processes();
    const bool gpu = std::any_of(processes.begin(), processes.end(), [](const Process& p) { return p.isDevice; });
    return gpu ? QStringLiteral("gpu") : QStringLiteral("cpu");
}

QString TimelineLayoutSettings::processKey(const Trace& trace, std::uint32_t process)
{
    const Process& p = trace.processes()[process];
    if (p.isDevice && p.deviceIndex >= 0)
        return QStringLiteral("GPU %1").arg(p.deviceIndex);
    return QString::fromStdString(p.name.empty() ? p.labels : p.name);
}

QString TimelineLayoutSettings::trackKey(const Trace& trace, std::uint32_t track)
{
    const Track& t = trace.tracks()[track];
    const auto& siblings = trace.processes()[t.process].tracks;
    const auto ordinal = std::find(siblings.begin(), siblings.end(), track) - siblings.begin();
    const QString place = t.kind == TrackKind::GpuStream ? QString::fromStdString(trace.trackDisplayName(track))
                                                         : QStringLiteral("#%1").arg(ordinal);
    return processKey(trace, t.process) + QLatin1Char('/') + place;
}

QString TimelineLayoutSettings::metricKey(const Trace& trace, std::uint32_t process, std::uint32_t metric)
{
    return processKey(trace, process) + QStringLiteral("/metric %1").arg(metric);
}

QString TimelineLayoutSettings::counterKey(const Trace& trace, std::uint32_t counter)
{
    const CounterSeries& series = trace.counters()[counter];
    const QString owner = series.process < trace.processes().size() ? processKey(trace, series.process) : QString();
    return owner + QLatin1Char('/') + QString::fromStdString(series.name);
}

void TimelineLayoutSettings::load(const Trace& trace, LayoutOptions& options)
{
    QSettings settings;
    // Never chosen: GPU groups first, so the streams are on the first screen whatever the
    // height of the CPU threads above them.
    options.gpuFirst =
        settings.value(settingsKey(trace, "gpuFirst"), traceKind(trace) == QLatin1String("gpu")).toBool();
    const auto findTrack = [&](const QString& key) {
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            if (trackKey(trace, t) == key)
                return t;
        }
        return kNoIndex;
    };
    options.pinnedTracks.clear();
    for (const QString& key : settings.value(settingsKey(trace, "pinned")).toStringList()) {
        if (const std::uint32_t t = findTrack(key); t != kNoIndex)
            options.pinnedTracks.push_back(t);
    }
    options.foldedPythonLanes.assign(trace.tracks().size(), false);
    const QString foldedKey = settingsKey(trace, "foldedPython");
    if (!settings.contains(foldedKey) && traceKind(trace) == QLatin1String("gpu")) {
        // Never chosen: a GPU trace opens with its Python lanes folded, so that a tall
        // Python stack does not push the GPU streams off the first screen.
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            const auto& lanes = trace.tracks()[t].lanes;
            options.foldedPythonLanes[t] =
                std::any_of(lanes.begin(), lanes.end(), [](const Lane& lane) { return lane.kind == LaneKind::Python; });
        }
    }
    for (const QString& key : settings.value(foldedKey).toStringList()) {
        if (const std::uint32_t t = findTrack(key); t != kNoIndex)
            options.foldedPythonLanes[t] = true;
    }
    options.collapsedMetrics.assign(trace.processes().size(), 0);
    options.collapsedCounters.assign(trace.counters().size(), false);
    const QStringList collapsed = settings.value(settingsKey(trace, "collapsedPlots")).toStringList();
    for (std::uint32_t p = 0; p < trace.processes().size() && !collapsed.isEmpty(); ++p) {
        for (std::uint32_t m = 0; m < 8; ++m) {
            if (collapsed.contains(metricKey(trace, p, m)))
                options.collapsedMetrics[p] |= std::uint8_t(1u << m);
        }
    }
    for (std::uint32_t c = 0; c < trace.counters().size() && !collapsed.isEmpty(); ++c)
        options.collapsedCounters[c] = collapsed.contains(counterKey(trace, c));
    options.groupOrder.clear();
    for (const QString& key : settings.value(settingsKey(trace, "groupOrder")).toStringList()) {
        for (std::uint32_t p = 0; p < trace.processes().size(); ++p) {
            if (processKey(trace, p) == key)
                options.groupOrder.push_back(p);
        }
    }
}

void TimelineLayoutSettings::forget(const Trace& trace)
{
    QSettings().remove(QStringLiteral("timeline/layout/%1").arg(traceKind(trace)));
}

void TimelineLayoutSettings::save(const Trace& trace, const LayoutOptions& options)
{
    QSettings settings;
    settings.setValue(settingsKey(trace, "gpuFirst"), options.gpuFirst);
    QStringList pinned, folded, order;
    for (std::uint32_t t : options.pinnedTracks)
        pinned << trackKey(trace, t);
    for (std::uint32_t t = 0; t < options.foldedPythonLanes.size(); ++t) {
        if (options.foldedPythonLanes[t])
            folded << trackKey(trace, t);
    }
    for (std::uint32_t p : options.groupOrder)
        order << processKey(trace, p);
    order.removeDuplicates();
    QStringList collapsed;
    for (std::uint32_t p = 0; p < options.collapsedMetrics.size(); ++p) {
        for (std::uint32_t m = 0; m < 8; ++m) {
            if (options.collapsedMetrics[p] >> m & 1u)
                collapsed << metricKey(trace, p, m);
        }
    }
    for (std::uint32_t c = 0; c < options.collapsedCounters.size(); ++c) {
        if (options.collapsedCounters[c])
            collapsed << counterKey(trace, c);
    }
    settings.setValue(settingsKey(trace, "collapsedPlots"), collapsed);
    settings.setValue(settingsKey(trace, "pinned"), pinned);
    settings.setValue(settingsKey(trace, "foldedPython"), folded);
    settings.setValue(settingsKey(trace, "groupOrder"), order);
}

} // namespace ks
