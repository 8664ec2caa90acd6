// TraceBuilder's processes and tracks: made from the track keys, named from the metadata
// events, and ordered as kineto's viewers order them (kept apart from tracebuilder.cpp, which
// collects the events and reorders the columns).
#include "core/model/tracebuilder.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace ks {
namespace {

// The device of a GPU process whose pid is not its index (a merged collector file numbers one
// process per traced process and GPU): its process_labels "GPU 3". -1 for any other label.
int deviceIndexFromLabels(std::string_view labels)
{
    constexpr std::string_view kPrefix = "GPU ";
    if (labels.size() <= kPrefix.size() || labels.size() > kPrefix.size() + 6 || !labels.starts_with(kPrefix))
        return -1;
    int index = 0;
    for (const char c : labels.substr(kPrefix.size())) {
        if (c < '0' || c > '9')
            return -1;
        index = index * 10 + (c - '0');
    }
    return index;
}

int processRank(const Process& p)
{
    if (p.isDevice)
        return 1;
    if (p.pid.isText || p.pid.number < 0)
        return 2; // kineto's "Spans" and the pid -1 CUPTI overhead row go last
    return 0;
}

} // namespace

void TraceBuilder::buildProcessesAndTracks()
{
    auto& processes = m_trace.m_processes;
    auto& tracks = m_trace.m_tracks;
    std::map<std::pair<JsonId, bool>, std::uint32_t> processIndex;
    tracks.resize(m_trackKeys.size());
    for (std::uint32_t ti = 0; ti < m_trackKeys.size(); ++ti) {
        const auto& key = m_trackKeys[ti];
        auto [it, inserted] =
            processIndex.try_emplace({key.pid, key.device}, static_cast<std::uint32_t>(processes.size()));
        if (inserted) {
            Process p;
            p.pid = key.pid;
            p.isDevice = key.device;
            if (key.device && !key.pid.isText)
                p.deviceIndex = static_cast<int>(key.pid.number);
            if (auto m = m_processMeta.find(key.pid); m != m_processMeta.end()) {
                p.name = m->second.name;
                p.labels = m->second.labels;
                p.sortIndex = m->second.sortIndex;
                p.hasSortIndex = m->second.hasSortIndex;
                if (const int labelled = deviceIndexFromLabels(p.labels); key.device && labelled >= 0)
                    p.deviceIndex = labelled;
            }
            processes.push_back(std::move(p));
        }
        auto& track = tracks[ti];
        track.process = it->second;
        track.tid = key.tid;
        const auto& process = processes[track.process];
        track.kind = key.device         ? TrackKind::GpuStream
            : processRank(process) == 2 ? TrackKind::Other
                                        : TrackKind::CpuThread;
        if (auto m = m_threadMeta.find({key.pid, key.tid}); m != m_threadMeta.end()) {
            track.name = m->second.name;
            track.sortIndex = m->second.sortIndex;
            track.hasSortIndex = m->second.hasSortIndex;
        }
        processes[track.process].tracks.push_back(ti);
    }

    auto trackLess = [&](std::uint32_t a, std::uint32_t b) {
        const auto& x = tracks[a];
        const auto& y = tracks[b];
        const auto kx = x.hasSortIndex ? x.sortIndex : x.tid.number;
        const auto ky = y.hasSortIndex ? y.sortIndex : y.tid.number;
        return std::tie(kx, x.tid) < std::tie(ky, y.tid);
    };
    for (auto& p : processes)
        std::sort(p.tracks.begin(), p.tracks.end(), trackLess);

    // Processes in display order: CPU, GPU, then the rest; by sort index, else pid.
    std::vector<std::uint32_t> processOrder(processes.size());
    std::iota(processOrder.begin(), processOrder.end(), 0);
    std::stable_sort(processOrder.begin(), processOrder.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto& x = processes[a];
        const auto& y = processes[b];
        const auto kx = x.hasSortIndex ? x.sortIndex : x.pid.number;
        const auto ky = y.hasSortIndex ? y.sortIndex : y.pid.number;
        return std::tuple(processRank(x), kx, x.pid) < std::tuple(processRank(y), ky, y.pid);
    });
    std::vector<std::uint32_t> newProcessIndex(processes.size());
    std::vector<Process> sortedProcesses;
    for (std::uint32_t i = 0; i < processOrder.size(); ++i) {
        newProcessIndex[processOrder[i]] = i;
        sortedProcesses.push_back(std::move(processes[processOrder[i]]));
    }
    processes = std::move(sortedProcesses);

    // Renumber tracks to display order so track indices read top to bottom.
    std::vector<std::uint32_t> newTrackIndex(tracks.size());
    std::vector<Track> sortedTracks;
    for (auto& p : processes) {
        for (auto& ti : p.tracks) {
            newTrackIndex[ti] = static_cast<std::uint32_t>(sortedTracks.size());
            sortedTracks.push_back(std::move(tracks[ti]));
            ti = newTrackIndex[ti];
        }
    }
    for (auto& track : sortedTracks)
        track.process = newProcessIndex[track.process];
    tracks = std::move(sortedTracks);
    for (auto& ti : m_sliceTrack)
        ti = newTrackIndex[ti];
    std::vector<TrackKey> keys(m_trackKeys.size());
    for (std::uint32_t old = 0; old < m_trackKeys.size(); ++old)
        keys[newTrackIndex[old]] = m_trackKeys[old];
    m_trackKeys = std::move(keys);
    m_trackIndex.clear();
    for (std::uint32_t ti = 0; ti < m_trackKeys.size(); ++ti)
        m_trackIndex.emplace(m_trackKeys[ti], ti);
    m_lastTrack = m_trackBeforeLast = kNoIndex;
}

} // namespace ks
