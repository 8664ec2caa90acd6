#pragma once
// Loads a fixture trace from tests/data for the widget tests.
#include "core/loading/loader.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace ks::test {

inline std::shared_ptr<const Trace> loadFixture(const char* name)
{
    const std::string path = std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz";
    LoadResult result = loadTraceFile(path);
    if (!result.ok()) {
        std::fprintf(stderr, "cannot load fixture %s\n", path.c_str());
        std::abort();
    }
    return result.trace;
}

// The slice with this category and correlation id, or kNoSlice.
inline SliceId findByCorrelation(const Trace& trace, std::string_view category, std::int64_t correlation)
{
    const SliceTable& slices = trace.slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (slices.correlation[s] == correlation && trace.str(slices.category[s]) == category)
            return s;
    }
    return kNoSlice;
}

} // namespace ks::test
