#pragma once
// The part of a trace that some of its processes hold, as a trace of its own: a rank of a
// merged collector file (analysis::Workspace splits one per rank), so that every analysis of
// a whole trace (GPU summary, insights, operators, kernels, memory) works on one rank alone.
#include "core/model/trace.h"

#include <memory>
#include <span>

namespace ks {

// The trace of `processes` (indices into trace.processes(); others and repeats ignored): their
// tracks with their slices, instants and counters, the flows and flow halves between those
// slices; strings, devices, metadata, diagnostics and the text source as in `trace` (event
// texts are read from the same file). Processes, tracks and slices keep their order (slice
// ids are renumbered); the extent is that of what was kept.
std::shared_ptr<const Trace> traceOfProcesses(const Trace& trace, std::span<const std::uint32_t> processes);

} // namespace ks
