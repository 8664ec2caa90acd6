#pragma once
// What part of a run goes into the trace, like Nsight Systems' --delay, --duration and
// --capture-range: between cudaProfilerStart and cudaProfilerStop (torch.cuda.profiler.start
// and stop), inside NVTX ranges of one name, and not while the GUI's capture is paused.
//
// Applied by the host when the trace is built, not in the traced process: CUPTI keeps
// recording the whole run and records outside the windows are dropped here. That costs the
// collector's usual overhead outside the windows too, but keeps the injection library
// simple and the result exact: records arrive out of order (a kernel after the
// cudaProfilerStop that followed its launch), and a GPU operation is kept when the call
// that launched it lies inside a window, whenever the GPU ran it.
#include "core/model/time.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks::collector {

struct RecordedProcess;

// [start, end) in session time (ns relative to the session's base time).
struct TimeWindow {
    TimeNs start = 0;
    TimeNs end = std::numeric_limits<TimeNs>::max();
    bool contains(TimeNs t) const { return t >= start && t < end; }
};
// Sorted, disjoint.
using TimeWindows = std::vector<TimeWindow>;

enum class CaptureRange : std::uint8_t {
    Everything,
    CudaProfilerApi, // cudaProfilerStart .. cudaProfilerStop (and the driver's cuProfilerStart/Stop)
    Nvtx, // inside NVTX ranges (or record_function labels) named nvtxName
};

struct CaptureSpec {
    CaptureRange range = CaptureRange::Everything;
    std::string nvtxName;
    TimeWindow time{std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max()}; // --delay, --duration
    TimeWindows paused; // the GUI's paused intervals
    bool filters() const
    {
        return range != CaptureRange::Everything || time.start != std::numeric_limits<TimeNs>::min()
            || time.end != std::numeric_limits<TimeNs>::max() || !paused.empty();
    }
};

// "cudaProfilerApi", "nvtx:NAME" or "none"; nullopt with a message otherwise.
std::optional<CaptureSpec> parseCaptureRange(std::string_view text, std::string& error);
// The option's text back ("nvtx:train"), for messages and command lines.
std::string captureRangeText(const CaptureSpec& spec);

// The windows of one process: its range windows (all of time for Everything) within
// spec.time, minus spec.paused.
TimeWindows captureWindows(const RecordedProcess& process, const CaptureSpec& spec);

struct CaptureOutcome {
    int processesWithWindows = 0; // processes where the range opened at least once
    std::size_t windows = 0;
    std::size_t keptSlices = 0, droppedSlices = 0;
};

// Keeps what lies inside the windows: CPU events and unlaunched GPU records by their start,
// GPU operations by the call that launched them (same correlation id), flows with their
// slices; the collector's own marks (errors, termination) always. Indices into gpuOps and
// ops stay valid.
void keepInside(RecordedProcess& process, const TimeWindows& windows, CaptureOutcome& outcome);

// Applies `spec` to every process (nothing when it does not filter).
CaptureOutcome applyCapture(std::vector<RecordedProcess>& processes, const CaptureSpec& spec);

} // namespace ks::collector
