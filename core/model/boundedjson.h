#pragma once
// JSON text from a file as a DOM that is safe to copy and dump. nlohmann parses iteratively,
// but its copy, dump and comparison recurse, so a value nested 30,000 deep overflows the
// stack. Values deeper than `maxDepth` are left out (real traces nest 2-5 levels).
#include <nlohmann/json.hpp>

#include <string_view>

namespace ks {

template <class Json = nlohmann::json>
Json parseBoundedJson(std::string_view text, int maxDepth, bool* truncated = nullptr)
{
    const auto guard = [maxDepth, truncated](int depth, typename Json::parse_event_t, Json&) {
        if (depth <= maxDepth)
            return true;
        if (truncated)
            *truncated = true;
        return false;
    };
    return Json::parse(text, guard, false);
}

} // namespace ks
