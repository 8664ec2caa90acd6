#pragma once
// Helpers shared by the core tests: fixture paths and an independent count of a
// fixture's traceEvents entries (through nlohmann's DOM, which the loader never uses).
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <map>
#include <string>

namespace kstest {

inline std::string fixture(const char* name) { return std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz"; }

inline std::string gunzipFile(const std::string& path)
{
    std::string out;
    gzFile f = gzopen(path.c_str(), "rb");
    char buf[1 << 16];
    int n;
    while (f && (n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, static_cast<std::size_t>(n));
    if (f)
        gzclose(f);
    return out;
}

// "<ph>/<cat>" -> number of traceEvents entries.
inline std::map<std::string, std::uint64_t> domPhaseCategoryCounts(const std::string& text)
{
    std::map<std::string, std::uint64_t> counts;
    const auto doc = nlohmann::json::parse(text);
    for (const auto& e : doc["traceEvents"]) {
        const std::string ph = e.contains("ph") ? e["ph"].get<std::string>().substr(0, 1) : "?";
        const std::string cat = e.contains("cat") ? e["cat"].get<std::string>() : "";
        ++counts[ph + "/" + cat];
    }
    return counts;
}

} // namespace kstest
