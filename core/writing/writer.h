#pragma once
// Writes a Trace back out as a kineto-compatible Chrome trace (.pt.trace.json, or gzip when
// the name ends in .gz), keeping every entry it read: what the model draws in canonical form
// (X slices with their original args, instants, flows as s/t/f), everything else (metadata
// events, counters, object snapshots, async, samples, marks, clock syncs, unknown phases,
// events the loader could not show) verbatim, all in file order. Traces built without JSON
// text (the collector) get what kineto would write. Several traces merge into one file.
// Used by the GUI's Save As, `kinetoscope-cli convert` and the collector.
#include "core/model/trace.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ks {

struct TraceWriteOptions {
    enum class Compression { ByExtension, None, Gzip };
    Compression compression = Compression::ByExtension;
    int gzipLevel = 6;
    // Integer pids (text pids named in process_name), correlation / External / flow ids unique
    // in the file, overlapping overhead slices on tids of their own (see IdPlan). Always on
    // when several traces are merged.
    bool normalizeIds = false;
    // Every event text of the traces was written by Kinetoscope's own EventText (a collected
    // trace's): strict JSON, copied without validating it once more. Faster; for such traces only.
    bool strictText = false;
};

// Something that cannot be written back, and how often.
struct WriteLoss {
    std::string what;
    std::uint64_t count = 0;
};

struct TraceWriteResult {
    bool ok = false;
    std::string error; // why the file was not written (the old one is untouched)
    std::uint64_t eventsWritten = 0;
    std::uint64_t unreadableArgs = 0; // events whose stored text could not be re-read or parsed
    std::vector<WriteLoss> lost; // what was left out (empty: nothing)
    std::vector<std::string> notes; // merge decisions (top-level keys that differed, ...)
};

// What writing this trace would leave out, known before writing (Save As shows it and asks):
// empty when every entry can be written.
std::vector<WriteLoss> unwritableParts(const Trace& trace);

// Writes to a temporary file next to `path` and renames it into place only when every byte
// was written and flushed, so a failure never replaces a good file with a partial one.
TraceWriteResult writeTraceFile(const Trace& trace, const std::string& path, const TraceWriteOptions& options = {});

// Several traces in one file, in the order given, with disjoint pids and ids (normalizeIds).
TraceWriteResult writeMergedTraceFile(const std::vector<const Trace*>& traces, const std::string& path,
                                      const TraceWriteOptions& options = {});

// The same JSON document, to a stream (tests, and callers that compress themselves).
TraceWriteResult writeTraceJson(const Trace& trace, std::ostream& out, const TraceWriteOptions& options = {});
TraceWriteResult writeMergedTraceJson(const std::vector<const Trace*>& traces, std::ostream& out,
                                      const TraceWriteOptions& options = {});

// "12.345" µs from 12345 ns: three decimals, exact (never through double).
std::string formatMicroseconds(TimeNs ns);

} // namespace ks
