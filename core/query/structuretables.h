#pragma once
// The SQL tables of the trace's structure and of the events that are not slices: `process`,
// `thread` (CPU threads), `track` (every timeline track: threads, GPU streams, others), `flow`
// (arrows between slices) and `counter` (one row per sample of every counter series).
#include "core/query/virtualtable.h"

namespace ks::query {

std::unique_ptr<TraceTable> makeProcessTable(const Trace& trace);
std::unique_ptr<TraceTable> makeThreadTable(const Trace& trace);
std::unique_ptr<TraceTable> makeTrackTable(const Trace& trace);
std::unique_ptr<TraceTable> makeFlowTable(const Trace& trace);
std::unique_ptr<TraceTable> makeCounterTable(const Trace& trace);

} // namespace ks::query
