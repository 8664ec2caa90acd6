#pragma once
// Framing of the collector's byte stream: `u32 payload length | u16 type | u16 flags |
// payload`, all little-endian. Qt-free and CUPTI-free: shared by the injection library
// (encoder) and the host (decoder).
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

namespace detail {

class FieldWriter {
public:
    explicit FieldWriter(std::vector<std::uint8_t>& out)
        : m_out(out)
    {
    }
    template <class T>
    requires std::is_integral_v<T>
    void operator()(T value)
    {
        using U = std::make_unsigned_t<T>;
        const U bits = static_cast<U>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i)
            m_out.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }
    void operator()(const std::string& text);
    void operator()(const std::vector<std::string>& list);

private:
    std::vector<std::uint8_t>& m_out;
};

// Reads fields from a payload; any overrun marks the whole decode as failed.
class FieldReader {
public:
    explicit FieldReader(std::span<const std::uint8_t> data)
        : m_data(data)
    {
    }
    template <class T>
    requires std::is_integral_v<T>
    void operator()(T& value)
    {
        using U = std::make_unsigned_t<T>;
        if (!take(sizeof(T)))
            return;
        U bits = 0;
        for (std::size_t i = 0; i < sizeof(T); ++i)
            bits |= static_cast<U>(static_cast<U>(m_data[m_pos - sizeof(T) + i]) << (8 * i));
        value = static_cast<T>(bits);
    }
    void operator()(std::string& text);
    void operator()(std::vector<std::string>& list);
    bool ok() const { return m_ok; }

private:
    bool take(std::size_t n);
    std::span<const std::uint8_t> m_data;
    std::size_t m_pos = 0;
    bool m_ok = true;
};

void writeHeader(std::uint8_t* at, std::uint32_t payloadBytes, RecordType type, std::uint16_t flags);

} // namespace detail

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
