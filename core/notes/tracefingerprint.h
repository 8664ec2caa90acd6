#pragma once
// Recognizes a trace file without reading it all: its size and a hash of its first and last
// bytes (FNV-1a, 64 bits). A sidecar records it so that the notes of one trace are never
// applied to another (a trace re-recorded under the same name differs in size or in those bytes).
#include <cstdint>
#include <optional>
#include <string>

namespace ks::notes {

struct TraceFingerprint {
    std::uint64_t size = 0;
    std::string headTailHash; // 16 hex digits

    bool operator==(const TraceFingerprint&) const = default;
};

// Bytes hashed at each end (all of a file up to twice this size).
inline constexpr std::uint64_t kFingerprintBytes = 64 * 1024;

// Nullopt with `error` set when the file cannot be read.
std::optional<TraceFingerprint> fingerprintFile(const std::string& path, std::string* error = nullptr);

} // namespace ks::notes
