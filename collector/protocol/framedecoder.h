// Frames out of the collector's byte stream (see framing.h for the layout).
#pragma once
#include "collector/protocol/framing.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ks::wire {

struct Frame {
    RecordType type = RecordType::Hello;
    std::uint16_t flags = 0;
    std::span<const std::uint8_t> payload; // valid until the next append() or next()
};

// Reassembles frames from a byte stream that arrives in arbitrary pieces.
class FrameDecoder {
public:
    enum class Status { Frame, NeedMore, Corrupt };

    void append(const void* data, std::size_t bytes);
    // Corrupt is final: a stream of unknown framing cannot be resynchronised.
    Status next(Frame& frame);
    const std::string& error() const { return m_error; }
    std::size_t bufferedBytes() const { return m_buffer.size() - m_pos; }

private:
    std::vector<std::uint8_t> m_buffer;
    std::size_t m_pos = 0;
    std::string m_error;
};

} // namespace ks::wire
