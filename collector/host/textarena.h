#pragma once
// Append-only store for the JSON text of collected events. Live snapshots of the trace
// share it with the collector: text is only ever appended and never moves, so offsets
// handed out stay valid for every snapshot. Thread-safe.
#include "core/model/trace.h"

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace ks::collector {

class TextArena final : public EventTextSource {
public:
    struct Span {
        std::uint64_t offset = 0;
        std::uint32_t length = 0;
    };

    Span append(std::string_view text);
    bool read(std::uint64_t offset, std::uint32_t length, std::string& out) const override;
    std::size_t bytes() const;

private:
    static constexpr std::size_t kFirstChunkBytes = 1 << 12;
    static constexpr std::size_t kChunkBytes = 1 << 20;
    struct Chunk {
        std::unique_ptr<char[]> data;
        std::size_t capacity = 0;
        std::size_t used = 0;
    };
    mutable std::mutex m_mutex;
    std::vector<Chunk> m_chunks;
    std::size_t m_bytes = 0;
};

} // namespace ks::collector
