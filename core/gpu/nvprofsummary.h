#pragma once
// nvprof's summary mode: "GPU activities" (each kernel name, one row per memcpy kind such as
// "[CUDA memcpy HtoD]", "[CUDA memset]") and "API calls" (runtime and driver), each row
// with Time(%), Time, Calls, Avg, Min, Max, Name, sorted by total time.
#include "core/facts/pluginkind.h"
#include "core/model/saturating.h"
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ks::gpu {

struct NvprofRow {
    std::string name;
    TimeNs total = 0;
    std::uint64_t calls = 0;
    TimeNs min = 0, max = 0;
    std::int64_t bytes = -1; // memcpy/memset rows: total bytes moved or set; -1 otherwise
    double timePercent = 0.0; // of the section's total
    double average() const { return calls ? double(total) / double(calls) : 0.0; }
};

struct NvprofSummary {
    std::vector<NvprofRow> gpuActivities;
    std::vector<NvprofRow> apiCalls;
    TimeNs gpuTotal = 0;
    TimeNs apiTotal = 0;
};

// "Memcpy HtoD (Pageable -> Device)" -> "[CUDA memcpy HtoD]".
std::string nvprofMemcpyName(std::string_view kinetoName);

NvprofSummary computeNvprofSummary(const Trace& trace);
// The same from the trace's kinds (classifySlices, e.g. TraceFacts::kinds).
NvprofSummary computeNvprofSummary(const Trace& trace, const std::vector<facts::PluginKind>& kinds);

// A time as nvprof prints it: 4 significant digits and a unit ("1.211ms", "812.3us", "950ns").
std::string formatNvprofTime(double ns);

} // namespace ks::gpu
