#pragma once
// Case-insensitive substring search over slice names. The interned strings are searched
// once, then the name column is scanned for the matching ids, so the cost does not
// depend on how long the names are.
#include "core/model/trace.h"

#include <string_view>
#include <vector>

namespace ks {

struct NameSearchResult {
    std::vector<bool> nameMatches; // indexed by StringId
    std::vector<SliceId> slices; // matching slices ordered by (start, track, depth)
};

// ASCII case folding: names are demangled C++ and Python identifiers.
NameSearchResult searchSliceNames(const Trace& trace, std::string_view needle);

} // namespace ks
