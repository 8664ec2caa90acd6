#include "collector/host/capturerange.h"

#include "collector/host/recordedprocess.h"

#include <algorithm>
#include <unordered_map>

namespace ks::collector {
namespace {

constexpr std::string_view kNvtxPrefix = "nvtx:";

bool isApi(const RecordedSlice& s)
{
    return s.category == EventCategory::Runtime || s.category == EventCategory::Driver;
}

// Sorts and joins overlapping windows.
TimeWindows normalized(TimeWindows windows)
{
    std::sort(windows.begin(), windows.end(),
              [](const TimeWindow& a, const TimeWindow& b) { return a.start < b.start; });
    TimeWindows out;
    for (const auto& w : windows) {
        if (w.end <= w.start)
            continue;
        if (!out.empty() && w.start <= out.back().end)
            out.back().end = std::max(out.back().end, w.end);
        else
            out.push_back(w);
    }
    return out;
}

TimeWindows profilerApiWindows(const RecordedProcess& process)
{
    struct Mark {
        TimeNs start, end;
        bool isStart;
    };
    std::vector<Mark> marks;
    for (const auto& s : process.slices) {
        if (!isApi(s))
            continue;
        const std::string& name = process.names[s.name];
        const bool start = name == "cudaProfilerStart" || name == "cuProfilerStart";
        if (start || name == "cudaProfilerStop" || name == "cuProfilerStop")
            marks.push_back({s.start, s.start + s.duration, start});
    }
    std::sort(marks.begin(), marks.end(), [](const Mark& a, const Mark& b) { return a.start < b.start; });
    TimeWindows windows;
    bool open = false;
    for (const auto& m : marks) {
        if (m.isStart && !open) {
            windows.push_back({m.start, TimeWindow().end});
            open = true;
        } else if (!m.isStart && open) {
            windows.back().end = m.end;
            open = false;
        } else if (!m.isStart && !windows.empty() && m.start < windows.back().end) {
            // The runtime's cudaProfilerStop ends after the driver's cuProfilerStop inside it.
            windows.back().end = std::max(windows.back().end, m.end);
        }
    }
    return windows;
}

TimeWindows nvtxWindows(const RecordedProcess& process, const std::string& name)
{
    TimeWindows windows;
    for (const auto& s : process.slices) {
        if (s.category == EventCategory::Annotation && s.duration > 0 && process.names[s.name] == name)
            windows.push_back({s.start, s.start + s.duration});
    }
    return normalized(std::move(windows));
}

TimeWindows intersect(const TimeWindows& windows, const TimeWindow& limit)
{
    TimeWindows out;
    for (const auto& w : windows) {
        const TimeWindow cut{std::max(w.start, limit.start), std::min(w.end, limit.end)};
        if (cut.end > cut.start)
            out.push_back(cut);
    }
    return out;
}

TimeWindows subtract(const TimeWindows& windows, const TimeWindows& holes)
{
    TimeWindows out;
    for (auto w : windows) {
        for (const auto& h : holes) {
            if (h.end <= w.start || h.start >= w.end)
                continue;
            if (h.start > w.start)
                out.push_back({w.start, h.start});
            w.start = h.end;
            if (w.start >= w.end)
                break;
        }
        if (w.end > w.start)
            out.push_back(w);
    }
    return out;
}

bool inside(const TimeWindows& windows, TimeNs t)
{
    const auto it = std::upper_bound(windows.begin(), windows.end(), t,
                                     [](TimeNs time, const TimeWindow& w) { return time < w.start; });
    return it != windows.begin() && std::prev(it)->contains(t);
}

} // namespace

std::optional<CaptureSpec> parseCaptureRange(std::string_view text, std::string& error)
{
    CaptureSpec spec;
    if (text == "none")
        return spec;
    if (text == "cudaProfilerApi") {
        spec.range = CaptureRange::CudaProfilerApi;
        return spec;
    }
    if (text.substr(0, kNvtxPrefix.size()) == kNvtxPrefix && text.size() > kNvtxPrefix.size()) {
        spec.range = CaptureRange::Nvtx;
        spec.nvtxName = std::string(text.substr(kNvtxPrefix.size()));
        return spec;
    }
    error = "capture range '" + std::string(text) + "': expected cudaProfilerApi, nvtx:NAME or none";
    return std::nullopt;
}

std::string captureRangeText(const CaptureSpec& spec)
{
    switch (spec.range) {
    case CaptureRange::Everything: return "none";
    case CaptureRange::CudaProfilerApi: return "cudaProfilerApi";
    case CaptureRange::Nvtx: return std::string(kNvtxPrefix) + spec.nvtxName;
    }
    return {};
}

TimeWindows captureWindows(const RecordedProcess& process, const CaptureSpec& spec)
{
    TimeWindows windows;
    switch (spec.range) {
    case CaptureRange::Everything: windows.push_back({std::numeric_limits<TimeNs>::min(), TimeWindow().end}); break;
    case CaptureRange::CudaProfilerApi: windows = profilerApiWindows(process); break;
    case CaptureRange::Nvtx: windows = nvtxWindows(process, spec.nvtxName); break;
    }
    return subtract(intersect(windows, spec.time), normalized(spec.paused));
}

void keepInside(RecordedProcess& process, const TimeWindows& windows, CaptureOutcome& outcome)
{
    auto& slices = process.slices;
    // A GPU operation follows the call that launched it.
    std::unordered_map<std::int64_t, bool> launchKept;
    for (const auto& s : slices) {
        if (isApi(s) && s.correlation != kNoId) {
            bool& kept = launchKept[s.correlation];
            kept = kept || inside(windows, s.start);
        }
    }
    std::vector<std::int64_t> newIndex(slices.size(), -1);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < slices.size(); ++i) {
        const auto& s = slices[i];
        const auto launch =
            isGpuCategory(s.category) && s.correlation != kNoId ? launchKept.find(s.correlation) : launchKept.end();
        const bool keep = launch != launchKept.end() ? launch->second : inside(windows, s.start);
        if (!keep)
            continue;
        newIndex[i] = static_cast<std::int64_t>(kept);
        slices[kept++] = s;
    }
    outcome.keptSlices += kept;
    outcome.droppedSlices += slices.size() - kept;
    slices.resize(kept);
    std::erase_if(process.flows, [&](RecordedFlow& f) {
        if (newIndex[f.slice] < 0)
            return true;
        f.slice = static_cast<std::uint32_t>(newIndex[f.slice]);
        return false;
    });
    std::erase_if(process.instants,
                  [&](const RecordedInstant& i) { return !i.fromCollector && !inside(windows, i.time); });
}

CaptureOutcome applyCapture(std::vector<RecordedProcess>& processes, const CaptureSpec& spec)
{
    CaptureOutcome outcome;
    if (!spec.filters())
        return outcome;
    for (auto& process : processes) {
        const TimeWindows windows = captureWindows(process, spec);
        outcome.windows += windows.size();
        if (!windows.empty())
            ++outcome.processesWithWindows;
        keepInside(process, windows, outcome);
    }
    return outcome;
}

} // namespace ks::collector
