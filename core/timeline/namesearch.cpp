#include "core/timeline/namesearch.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ks {

namespace {

bool containsIgnoringCase(std::string_view haystack, std::string_view lowerNeedle)
{
    const auto it = std::search(haystack.begin(), haystack.end(), lowerNeedle.begin(), lowerNeedle.end(),
                                [](char h, char n) { return std::tolower(static_cast<unsigned char>(h)) == n; });
    return it != haystack.end();
}

} // namespace

NameSearchResult searchSliceNames(const Trace& trace, std::string_view needle)
{
    NameSearchResult result;
    if (needle.empty())
        return result;
    std::string lowerNeedle(needle);
    for (char& c : lowerNeedle)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));

    const StringPool& strings = trace.strings();
    result.nameMatches.assign(strings.size(), false);
    bool any = false;
    for (StringId id = 0; id < strings.size(); ++id) {
        if (containsIgnoringCase(strings.view(id), lowerNeedle)) {
            result.nameMatches[id] = true;
            any = true;
        }
    }
    if (!any)
        return result;

    const SliceTable& slices = trace.slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (result.nameMatches[slices.name[s]])
            result.slices.push_back(s);
    }
    // Slice ids are ordered by track first; users step through matches in time.
    std::stable_sort(result.slices.begin(), result.slices.end(),
                     [&](SliceId a, SliceId b) { return slices.start[a] < slices.start[b]; });
    return result;
}

} // namespace ks
