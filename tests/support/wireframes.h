#pragma once
// Frames as the collector receives them, for the injection's tests: decoded from the bytes
// sent, filtered by record type, string ids resolved.
#include "collector/protocol/framedecoder.h"
#include "collector/protocol/framing.h"

#include <string>
#include <vector>

namespace ks::testing {

struct DecodedFrame {
    wire::RecordType type;
    std::vector<std::uint8_t> payload;
};

inline std::vector<DecodedFrame> decodeAll(const std::vector<std::uint8_t>& bytes)
{
    wire::FrameDecoder decoder;
    decoder.append(bytes.data(), bytes.size());
    std::vector<DecodedFrame> frames;
    wire::Frame frame;
    while (decoder.next(frame) == wire::FrameDecoder::Status::Frame)
        frames.push_back({frame.type, {frame.payload.begin(), frame.payload.end()}});
    return frames;
}

template <class Record>
std::vector<Record> recordsOf(const std::vector<DecodedFrame>& frames)
{
    std::vector<Record> records;
    for (const auto& f : frames) {
        Record r;
        if (f.type == Record::kType && wire::decodePayload(f.payload, r))
            records.push_back(r);
    }
    return records;
}

inline std::string stringText(const std::vector<DecodedFrame>& frames, std::uint32_t id)
{
    for (const auto& s : recordsOf<wire::StringDef>(frames))
        if (s.id == id)
            return s.text;
    return "<undefined " + std::to_string(id) + ">";
}

} // namespace ks::testing
