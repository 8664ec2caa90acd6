#pragma once
// Framing of the collector's byte stream: `u32 payload length | u16 type | u16 flags |
// payload`, all little-endian. Qt-free and CUPTI-free: shared by the injection library
// (encoder) and the host (decoder).
#include "collector/protocol/fieldreader.h"
#include "collector/protocol/fieldwriter.h"
#include "collector/protocol/records.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace ks::wire {

inline constexpr std::size_t kFrameHeaderBytes = 8;
// Larger lengths can only come from garbage: the biggest record is a HELLO with argv.
inline constexpr std::uint32_t kMaxPayloadBytes = 16u << 20;

// Appends one complete frame holding `record` to `out`.
template <class Record>
void appendFrame(std::vector<std::uint8_t>& out, const Record& record, std::uint16_t flags = 0)
{
    const std::size_t headerAt = out.size();
    out.resize(headerAt + kFrameHeaderBytes);
    detail::FieldWriter writer(out);
    Record::fields(record, writer);
    const auto payloadBytes = static_cast<std::uint32_t>(out.size() - headerAt - kFrameHeaderBytes);
    detail::writeHeader(out.data() + headerAt, payloadBytes, Record::kType, flags);
}

// Decodes a payload into `record`. Trailing bytes (fields a newer sender appended) are
// ignored; a payload that is too short fails.
template <class Record>
bool decodePayload(std::span<const std::uint8_t> payload, Record& record)
{
    detail::FieldReader reader(payload);
    Record::fields(record, reader);
    return reader.ok();
}

} // namespace ks::wire
