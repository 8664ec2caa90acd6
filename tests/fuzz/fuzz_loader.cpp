// The loader on any bytes, through the GUI's entry point (a file, gzip detected by its
// magic). Plain input is also loaded from memory in tiny chunks and as gzip: the result
// must not depend on where chunks split or on compression. Then every event's args are
// decoded lazily, and every text the model hands out must be valid UTF-8.
#include "tests/fuzz/fuzzsupport.h"

#include <cstdint>
#include <map>

using namespace ks;

namespace {

std::map<std::string, std::uint64_t> summary(const LoadResult& r)
{
    if (!r.ok())
        return {{"fatal", 1}};
    const Trace& t = *r.trace;
    std::map<std::string, std::uint64_t> m = t.diagnostics().counts();
    m["#slices"] = t.slices().size();
    m["#instants"] = t.instants().size();
    m["#counters"] = t.counters().size();
    m["#flows"] = t.flows().size();
    m["#entries"] = t.traceEventCount();
    m["#strings"] = t.strings().size();
    return m;
}

void checkSame(const LoadResult& a, const LoadResult& b, const char* what)
{
    const auto sa = summary(a), sb = summary(b);
    if (sa == sb)
        return;
    std::string detail = what;
    for (const auto& [k, v] : sa)
        detail += "\n  a " + k + "=" + std::to_string(v);
    for (const auto& [k, v] : sb)
        detail += "\n  b " + k + "=" + std::to_string(v);
    fuzz::fail(detail);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const fuzz::MemFile file(input);
    const LoadResult fromFile = fuzz::loadLikeTheGui(file);
    const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (!gzip) {
        LoadOptions tiny;
        tiny.chunkBytes = 1 + size % 13;
        tiny.readInBackgroundThread = false;
        // A thread per input costs more than the load (its stacks are mapped and unmapped, with
        // TLB shootdowns): one input in 16 goes through the parallel assembler.
        tiny.assembleInParallel = size % 16 == 0;
        tiny.parseInChunks = size % 2 == 0; // cut into chunks, parsed on this thread or on workers
        checkSame(fromFile, loadTraceFromMemory(std::string(input), "fuzz", nullptr, tiny), "file vs tiny chunks");
        checkSame(fromFile, fuzz::loadLikeTheGui(fuzz::MemFile(fuzz::gzipped(input))), "plain vs gzip");
    }
    if (fromFile.ok())
        fuzz::checkTextsAreValid(*fromFile.trace);
    return 0;
}
