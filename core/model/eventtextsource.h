#pragma once
#include <cstdint>
#include <string>

namespace ks {

// Where the raw JSON text of each event can be re-read on demand (args are not kept in
// memory): the original file, a gzip file through a seek index, or an in-memory arena.
class EventTextSource {
public:
    virtual ~EventTextSource() = default;
    // Returns false (and leaves `out` empty) if the text cannot be read any more.
    virtual bool read(std::uint64_t offset, std::uint32_t length, std::string& out) const = 0;
    // The most bytes that batched reads (forEachEventText) fetch at once: the reader's buffer,
    // so a transient of every analysis that reads texts. Sources whose reads restart at a cost
    // (gzip: inflating from a checkpoint) ask for more.
    virtual std::uint32_t batchBytes() const { return 1u << 20; }
};

} // namespace ks
