#pragma once
// Sources of the uncompressed JSON stream, read in chunks, and the matching
// EventTextSources that read an event's text back later (args are decoded on demand).
#include "core/model/trace.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ks {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to `capacity` bytes; 0 at the end of the stream or on error (see error()).
    virtual std::size_t read(char* dest, std::size_t capacity) = 0;
    // Input consumed so far and in total (compressed bytes for gzip), for progress.
    virtual std::uint64_t inputConsumed() const = 0;
    virtual std::uint64_t inputSize() const = 0;
    // About how many bytes the stream holds (uncompressed), to size the model up front.
    virtual std::uint64_t expectedSize() const { return inputSize(); }
    // A read or decompression error; the stream is treated as truncated there.
    virtual std::string error() const = 0;
    // After the stream has been read to its end: a source that can read event text back.
    virtual std::shared_ptr<const EventTextSource> textSource() = 0;
    // Whether a thread of its own reading ahead (prefetchingSource) gains time: inflating does.
    virtual bool worthReadingAhead() const { return true; }
};

struct OpenedSource {
    std::unique_ptr<ByteSource> source;
    std::string error; // why it could not be opened
};

// Opens a file, detecting gzip by its magic bytes (not the extension).
OpenedSource openFileSource(const std::string& path);
std::unique_ptr<ByteSource> memorySource(std::string text, std::size_t chunkBytes);
// Reads `inner` ahead on a thread of its own, so inflating overlaps parsing.
std::unique_ptr<ByteSource> prefetchingSource(std::unique_ptr<ByteSource> inner, std::size_t chunkBytes);

} // namespace ks
