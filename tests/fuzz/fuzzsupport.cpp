#include "tests/fuzz/fuzzsupport.h"

#include "core/analysis/shapeargs.h"
#include "core/model/utf8.h"
#include "core/stats/traceinfo.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

// Per-input cost: every target allocates and frees a lot per input; ASan's default 256 MiB
// quarantine then touches fresh pages on every allocation, and it fills each new block's
// first 4 KiB. A smaller quarantine still catches use after free; ASAN_OPTIONS overrides.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=16:max_malloc_fill_size=0"; }

namespace ks::fuzz {

void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

MemFile::MemFile(std::string_view bytes)
{
    m_fd = memfd_create("fuzz-input", 0);
    check(m_fd >= 0, "memfd_create failed");
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = write(m_fd, bytes.data() + done, bytes.size() - done);
        check(n > 0, "write to memfd failed");
        done += static_cast<std::size_t>(n);
    }
    m_path = "/proc/self/fd/" + std::to_string(m_fd);
}

MemFile::~MemFile() { close(m_fd); }

std::string gzipped(std::string_view bytes)
{
    z_stream z{};
    check(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 1, Z_DEFAULT_STRATEGY) == Z_OK, "deflateInit2");
    std::string out(deflateBound(&z, bytes.size()) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    check(deflate(&z, Z_FINISH) == Z_STREAM_END, "deflate");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

LoadResult loadLikeTheGui(const MemFile& file)
{
    LoadProgress progress;
    return loadTraceFile(file.path(), &progress);
}

namespace {

void checkValid(std::string_view text, const char* what)
{
    if (utf8::firstInvalid(text) != utf8::kValid)
        fail(std::string("invalid UTF-8 handed out: ") + what);
}

void checkEventText(std::string_view text)
{
    if (text.empty())
        return;
    if (utf8::firstInvalidJson(text) != utf8::kValid)
        fail("event text with invalid UTF-8 or a lone surrogate escape");
    // As the details panel decodes it: a depth guard, no exceptions.
    const auto depthGuard = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) { return depth <= 64; };
    const auto event = nlohmann::json::parse(text, depthGuard, false);
    (void)event.dump(); // throws (and so aborts) on invalid UTF-8
}

} // namespace

void checkTextsAreValid(const Trace& trace)
{
    for (StringId id = 0; id < trace.strings().size(); ++id)
        checkValid(trace.str(id), "interned string");
    for (const auto& [key, value] : trace.metadata()) {
        checkValid(key, "metadata key");
        check(utf8::firstInvalidJson(value) == utf8::kValid, "metadata value");
    }
    for (const auto& d : trace.diagnostics().items())
        checkValid(d.message, "diagnostic");
    for (const auto& c : trace.phaseCategoryCounts())
        checkValid(c.key, "phase/category key");
    for (const auto& p : trace.deviceProperties())
        checkValid(p.name, "device name");
    for (const auto& track : trace.tracks())
        checkValid(track.name, "thread name");
    for (const auto& process : trace.processes()) {
        checkValid(process.name, "process name");
        checkValid(process.labels, "process labels");
    }
    for (const auto& counter : trace.counters())
        checkValid(counter.name, "counter name");

    std::vector<SliceId> slices(trace.slices().size());
    std::iota(slices.begin(), slices.end(), SliceId(0));
    // One slice at a time as the details panel reads it (a file opened per call): a few are
    // enough for that path; all of them go through the batched read below.
    for (SliceId s = 0; s < std::min<std::size_t>(slices.size(), 8); ++s)
        checkEventText(trace.eventText(s));
    trace.forEachEventText(slices, [&](SliceId s, std::string_view text) {
        checkEventText(text);
        // The loader's shape args of an op are what the FLOP pass would find in its text.
        if (const std::uint32_t id = trace.slices().shapeArgs[s]; id != kNoIndex) {
            const auto raw = analysis::findShapeArgs(text);
            check(raw && *raw == trace.shapeArgs().view(id), "an op's kept shape args differ from its text's");
        }
    });
    std::vector<std::uint32_t> instants(trace.instants().size());
    std::iota(instants.begin(), instants.end(), 0u);
    trace.forEachInstantText(instants, [](std::uint32_t, std::string_view text) { checkEventText(text); });

    (void)traceInfoJson(trace, "fuzz.json").dump(2);
    (void)traceInfoText(trace, "fuzz.json");
}

} // namespace ks::fuzz
