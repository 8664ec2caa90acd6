#pragma once
// Makes large realistic traces for benchmarks: copies of a real kineto trace laid end to
// end in time, with flow, correlation and External ids shifted so every copy stays
// self-consistent (its own launches, kernels and arrows).
#include "bench/tiler/rankvariant.h"
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ks::bench {

struct TileResult {
    std::uint64_t events = 0;
    std::uint64_t bytes = 0;
    std::string error;
};

// A source trace read once, written as many times as needed (1,024 generated ranks of one job
// come from two real rank traces).
class TraceTiler {
public:
    explicit TraceTiler(const std::string& sourcePath);
    ~TraceTiler();
    TraceTiler(TraceTiler&&) noexcept;
    const std::string& error() const { return m_error; } // empty when the source was read
    std::int64_t period() const { return m_period; } // ns from one copy to the next
    long long stepStride() const { return m_stepStride; } // ProfilerStep numbers per copy
    void setPeriod(std::int64_t ns) { m_period = std::max(m_period, ns); } // never less than one copy's span

    // Writes uncompressed JSON at `outPath` holding about `targetEvents` traceEvents, or
    // exactly `copies` whole copies when that is nonzero. The source's distributedInfo is kept,
    // with the variant's rank and world size when it names one.
    TileResult write(const std::string& outPath, std::uint64_t targetEvents, std::uint64_t copies,
                     const RankVariant& variant = {}) const;

private:
    struct EventTemplate;
    static EventTemplate makeTemplate(nlohmann::json event);

    std::string m_error;
    std::string m_header; // up to the deviceProperties
    std::int64_t m_baseTimeNs = 0;
    nlohmann::json m_distributedInfo;
    std::vector<EventTemplate> m_timed, m_metadata; // events with neither ts nor ph M are dropped
    std::int64_t m_period = 0;
    long long m_stepStride = 0;
};

// Tilers of the ranks of one job with one period, the longest (its ranks' copies stay in step:
// the DDP fixtures' ranks span 41 and 47 ms).
std::vector<TraceTiler> tilersInStep(const std::vector<std::string>& sourcePaths);

// TraceTiler(sourcePath).write(outPath, targetEvents, copies).
TileResult tileTrace(const std::string& sourcePath, const std::string& outPath, std::uint64_t targetEvents,
                     std::uint64_t copies = 0);

// The path of a tiled copy of tests/data/big.pt.trace.json.gz with ~745k events (the
// size of the "huge" kineto trace), made on first use under the system temp directory.
std::string largeTracePath(const std::string& testDataDir);

// Loads argv[1], or the large trace above, and prints its size and load time; null (with
// a message on stderr) when it cannot be loaded.
std::shared_ptr<const Trace> loadBenchTrace(int argc, char** argv, const std::string& testDataDir);

} // namespace ks::bench
