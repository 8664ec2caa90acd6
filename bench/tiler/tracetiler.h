#pragma once
// Makes large realistic traces for benchmarks: copies of a real kineto trace laid end to
// end in time, with flow, correlation and External ids shifted so every copy stays
// self-consistent (its own launches, kernels and arrows).
#include "core/model/trace.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ks::bench {

struct TileResult {
    std::uint64_t events = 0;
    std::uint64_t bytes = 0;
    std::string error;
};

// Writes uncompressed JSON at `outPath` holding about `targetEvents` traceEvents, or exactly
// `copies` whole copies when that is nonzero. The source's distributedInfo is kept.
TileResult tileTrace(const std::string& sourcePath, const std::string& outPath, std::uint64_t targetEvents,
                     std::uint64_t copies = 0);

// The path of a tiled copy of tests/data/big.pt.trace.json.gz with ~745k events (the
// size of the "huge" kineto trace), made on first use under the system temp directory.
std::string largeTracePath(const std::string& testDataDir);

// Loads argv[1], or the large trace above, and prints its size and load time; null (with
// a message on stderr) when it cannot be loaded.
std::shared_ptr<const Trace> loadBenchTrace(int argc, char** argv, const std::string& testDataDir);

} // namespace ks::bench
