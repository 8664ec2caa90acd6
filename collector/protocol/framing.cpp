#include "collector/protocol/framing.h"

namespace ks::wire {
namespace detail {

void FieldWriter::operator()(const std::string& text)
{
    (*this)(static_cast<std::uint32_t>(text.size()));
    m_out.insert(m_out.end(), text.begin(), text.end());
}

void FieldWriter::operator()(const std::vector<std::string>& list)
{
    (*this)(static_cast<std::uint32_t>(list.size()));
    for (const auto& text : list)
        (*this)(text);
}

bool FieldReader::take(std::size_t n)
{
    if (!m_ok || m_data.size() - m_pos < n) {
        m_ok = false;
        return false;
    }
    m_pos += n;
    return true;
}

void FieldReader::operator()(std::string& text)
{
    std::uint32_t size = 0;
    (*this)(size);
    if (!take(size))
        return;
    text.assign(reinterpret_cast<const char*>(m_data.data() + m_pos - size), size);
}

void FieldReader::operator()(std::vector<std::string>& list)
{
    std::uint32_t count = 0;
    (*this)(count);
    // Each entry needs at least its 4-byte length: reject counts the payload cannot hold
    // before reserving anything.
    if (!m_ok || count > (m_data.size() - m_pos) / 4) {
        m_ok = false;
        return;
    }
    list.assign(count, {});
    for (auto& text : list)
        (*this)(text);
}

void writeHeader(std::uint8_t* at, std::uint32_t payloadBytes, RecordType type, std::uint16_t flags)
{
    const auto typeBits = static_cast<std::uint16_t>(type);
    for (int i = 0; i < 4; ++i)
        at[i] = static_cast<std::uint8_t>(payloadBytes >> (8 * i));
    at[4] = static_cast<std::uint8_t>(typeBits);
    at[5] = static_cast<std::uint8_t>(typeBits >> 8);
    at[6] = static_cast<std::uint8_t>(flags);
    at[7] = static_cast<std::uint8_t>(flags >> 8);
}

} // namespace detail

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
