#pragma once
// Shared by the fuzz targets: inputs as real files (the GUI's entry point reads paths),
// gzip, and the invariants every loaded trace must keep whatever the input was.
#include "core/loading/loader.h"

#include <string>
#include <string_view>

namespace ks::fuzz {

// Stops the run with a message: libFuzzer records the input as a crash.
[[noreturn]] void fail(const std::string& what);
inline void check(bool ok, const char* what)
{
    if (!ok)
        fail(what);
}

// An anonymous in-memory file (memfd) with `bytes`, reachable by path while alive.
class MemFile {
public:
    explicit MemFile(std::string_view bytes);
    ~MemFile();
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    int m_fd = -1;
    std::string m_path;
};

std::string gzipped(std::string_view bytes);

// Loads through loadTraceFile(), as File ▸ Open does. The trace reads its event texts back
// from the file, so `file` must outlive every text check on the result.
LoadResult loadLikeTheGui(const MemFile& file);

// Every text the model keeps or hands out is valid UTF-8, and args decode as the details
// panel decodes them; dump() with the default (throwing) handler must not throw.
void checkTextsAreValid(const Trace& trace);

} // namespace ks::fuzz
