#pragma once
// Streaming loader for PyTorch profiler traces and Chrome Trace Event JSON
// (.json or .json.gz, object or bare-array form). Never builds a DOM of the file:
// each traceEvents entry is parsed in place from a bounded window of the stream.
#include "core/model/trace.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>

namespace ks {

class ByteSource;

// Shared with the thread that watches the load (the GUI polls it from a timer).
struct LoadProgress {
    std::atomic<std::uint64_t> bytesDone{0}; // compressed bytes consumed
    std::atomic<std::uint64_t> bytesTotal{0}; // file size, 0 if unknown
    std::atomic<std::uint64_t> eventsDone{0};
    std::atomic<bool> cancelRequested{false};
};

struct LoadResult {
    std::shared_ptr<const Trace> trace; // null only on a fatal error or cancel
    std::optional<Diagnostic> fatal; // why nothing could be loaded
    bool cancelled = false;
    bool ok() const { return trace != nullptr; }
};

struct LoadOptions {
    std::size_t chunkBytes = 1 << 18; // read granularity (tests use tiny chunks)
    bool readInBackgroundThread = true; // inflate/read on a second thread, where that pays (not plain files)
    bool assembleInParallel = true; // build the model on another thread while parsing goes on
    // Cut traceEvents into runs of whole entries, parsed on worker threads (one per core) when
    // assembleInParallel, else on the assembling thread: the model is the same either way.
    bool parseInChunks = true;
    unsigned parseWorkers = 0; // with parseInChunks and assembleInParallel; 0: one per usable core
};

// The cores this process may run on (taskset, cgroups' cpusets; at least 1): more threads than
// that only take turns on them (8 parse workers on 2 pinned cores loaded slower than one thread).
unsigned usableCores();

LoadResult loadTraceFile(const std::string& path, LoadProgress* progress = nullptr, const LoadOptions& options = {});

// For tests and the collector: parse JSON text already in memory, delivered to the
// parser in chunks of `options.chunkBytes`.
LoadResult loadTraceFromMemory(std::string text, const std::string& displayName, LoadProgress* progress = nullptr,
                               const LoadOptions& options = {});

} // namespace ks
