#pragma once
// Test helpers: a fixture's path in tests/data, and a (gzip) fixture read as one JSON DOM, so
// that tests compute their expected values independently of the loader under test.
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <string>

namespace kstest {

inline std::string fixture(const char* name) { return std::string(KS_TEST_DATA "/") + name; }

inline nlohmann::json readGz(const std::string& path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    std::string text;
    char buf[1 << 16];
    int n;
    while (f && (n = gzread(f, buf, sizeof buf)) > 0)
        text.append(buf, static_cast<std::size_t>(n));
    if (f)
        gzclose(f);
    return nlohmann::json::parse(text);
}

} // namespace kstest
