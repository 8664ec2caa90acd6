#include "collector/protocol/framedecoder.h"

namespace ks::wire {

void FrameDecoder::append(const void* data, std::size_t bytes)
{
    // Drop consumed bytes first so the buffer only ever holds one partial frame plus the
    // new data.
    if (m_pos > 0) {
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + static_cast<std::ptrdiff_t>(m_pos));
        m_pos = 0;
    }
    const auto* p = static_cast<const std::uint8_t*>(data);
    m_buffer.insert(m_buffer.end(), p, p + bytes);
}

FrameDecoder::Status FrameDecoder::next(Frame& frame)
{
    if (!m_error.empty())
        return Status::Corrupt;
    if (bufferedBytes() < kFrameHeaderBytes)
        return Status::NeedMore;
    const std::uint8_t* h = m_buffer.data() + m_pos;
    const std::uint32_t length =
        std::uint32_t(h[0]) | std::uint32_t(h[1]) << 8 | std::uint32_t(h[2]) << 16 | std::uint32_t(h[3]) << 24;
    const auto type = static_cast<std::uint16_t>(h[4] | h[5] << 8);
    const auto flags = static_cast<std::uint16_t>(h[6] | h[7] << 8);
    if (length > kMaxPayloadBytes) {
        m_error = "frame of " + std::to_string(length) + " bytes exceeds the limit";
        return Status::Corrupt;
    }
    if (type == 0) {
        m_error = "frame with record type 0";
        return Status::Corrupt;
    }
    if (bufferedBytes() < kFrameHeaderBytes + length)
        return Status::NeedMore;
    frame.type = static_cast<RecordType>(type);
    frame.flags = flags;
    frame.payload = std::span<const std::uint8_t>(h + kFrameHeaderBytes, length);
    m_pos += kFrameHeaderBytes + length;
    return Status::Frame;
}

} // namespace ks::wire
