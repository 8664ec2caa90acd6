#pragma once
// Writes a Trace back out as a kineto-compatible Chrome trace (.pt.trace.json, or gzip when
// the name ends in .gz): metadata keys, M events for names and sort indexes, X slices with
// their original args, instants, counters, and ac2g/fwdbwd flows as s/f pairs.
// Used by the GUI's Save As and by the collector.
#include "core/model/trace.h"

#include <cstdint>
#include <ostream>
#include <string>

namespace ks {

struct TraceWriteOptions {
    enum class Compression { ByExtension, None, Gzip };
    Compression compression = Compression::ByExtension;
    int gzipLevel = 6;
};

struct TraceWriteResult {
    bool ok = false;
    std::string error;                // why the file was not written (the old one is untouched)
    std::uint64_t eventsWritten = 0;
    std::uint64_t unreadableArgs = 0; // events whose stored text could not be re-read or parsed
};

// Writes to a temporary file next to `path` and renames it into place only when every byte
// was written and flushed, so a failure never replaces a good file with a partial one.
TraceWriteResult writeTraceFile(const Trace& trace, const std::string& path,
                                const TraceWriteOptions& options = {});

// The same JSON document, to a stream (tests, and callers that compress themselves).
TraceWriteResult writeTraceJson(const Trace& trace, std::ostream& out);

// "12.345" µs from 12345 ns: three decimals, exact (never through double).
std::string formatMicroseconds(TimeNs ns);

} // namespace ks
