#include "bench/tiler/tracetiler.h"

#include "core/loading/loader.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace ks::bench {

namespace {

std::string readGzip(const std::string& path)
{
    std::string out;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f)
        return out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, static_cast<std::size_t>(n));
    gzclose(f);
    return out;
}

// µs with three decimals from integer ns, as kineto writes them.
std::string microseconds(std::int64_t ns)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%03d", ns / 1000, static_cast<int>(ns % 1000));
    return buf;
}

std::int64_t toNs(const nlohmann::json& v)
{
    // The source's ts are µs with three decimals; round through text to stay exact.
    const std::string s = v.dump();
    const auto dot = s.find('.');
    if (dot == std::string::npos)
        return std::stoll(s) * 1000;
    std::string frac = s.substr(dot + 1, 3);
    frac.resize(3, '0');
    return std::stoll(s.substr(0, dot)) * 1000 + std::stoll(frac);
}

// An event's text with holes where each copy writes its own time and ids: rendering it
// once and filling the holes per copy keeps tiling to a few GB quick (no JSON per copy).
struct EventTemplate {
    std::vector<std::string> pieces; // pieces.size() == ids.size() + 1
    std::vector<std::int64_t> ids; // values written between pieces, shifted per copy
    std::int64_t ts = 0, dur = 0;
    bool hasTs = false, hasDur = false;
};

// Integers no real trace holds, replaced by the shifted ids once the body is dumped.
constexpr std::int64_t kHoleBase = 7'340'912'663'118'200'000;

EventTemplate makeTemplate(nlohmann::json e)
{
    EventTemplate t;
    if (e.contains("ts")) {
        t.hasTs = true;
        t.ts = toNs(e["ts"]);
        if (e.contains("dur")) {
            t.hasDur = true;
            t.dur = toNs(e["dur"]);
        }
        e.erase("ts");
        e.erase("dur");
    }
    auto hole = [&](nlohmann::json& obj, const char* key) {
        auto it = obj.find(key);
        if (it == obj.end() || !it->is_number_integer())
            return;
        t.ids.push_back(it->get<std::int64_t>());
        *it = kHoleBase + static_cast<std::int64_t>(t.ids.size() - 1);
    };
    hole(e, "id");
    if (auto a = e.find("args"); a != e.end() && a->is_object()) {
        for (const char* key : {"correlation", "External id", "Python id", "Python parent id"})
            hole(*a, key);
    }
    const std::string body = e.dump().substr(1);
    std::vector<std::pair<std::size_t, std::int64_t>> holes; // (where in the body, id): in text order
    for (std::size_t i = 0; i < t.ids.size(); ++i)
        holes.emplace_back(body.find(std::to_string(kHoleBase + static_cast<std::int64_t>(i))), t.ids[i]);
    std::sort(holes.begin(), holes.end());
    const std::size_t markerLength = std::to_string(kHoleBase).size();
    std::size_t from = 0;
    t.ids.clear();
    for (const auto& [at, id] : holes) {
        t.pieces.push_back(body.substr(from, at - from));
        t.ids.push_back(id);
        from = at + markerLength;
    }
    t.pieces.push_back(body.substr(from));
    return t;
}

} // namespace

TileResult tileTrace(const std::string& sourcePath, const std::string& outPath, std::uint64_t targetEvents,
                     std::uint64_t copies)
{
    TileResult result;
    const auto doc = nlohmann::json::parse(readGzip(sourcePath), nullptr, false);
    if (!doc.is_object() || !doc.contains("traceEvents")) {
        result.error = "cannot read " + sourcePath;
        return result;
    }
    const auto& events = doc["traceEvents"];
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    std::uint64_t perTile = 0;
    for (const auto& e : events) {
        if (e.value("ph", "") == "M" || !e.contains("ts"))
            continue;
        ++perTile;
        const auto ts = toNs(e["ts"]);
        lo = std::min(lo, ts);
        hi = std::max(hi, ts + (e.contains("dur") ? toNs(e["dur"]) : 0));
    }
    const std::int64_t period = (hi - lo) + 1'000'000; // 1 ms gap between copies

    std::vector<EventTemplate> timed, metadata; // events with neither ts nor ph M are dropped
    for (const auto& e : events) {
        if (e.value("ph", "") == "M")
            metadata.push_back(makeTemplate(e));
        else if (e.contains("ts"))
            timed.push_back(makeTemplate(e));
    }

    std::ofstream out(outPath, std::ios::binary);
    out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": "
        << doc.value("deviceProperties", nlohmann::json::array()).dump()
        << ",\n  \"baseTimeNanoseconds\": " << doc.value("baseTimeNanoseconds", std::int64_t(0));
    if (doc.contains("distributedInfo"))
        out << ",\n  \"distributedInfo\": " << doc["distributedInfo"].dump();
    out << ",\n  \"traceEvents\": [\n";
    if (copies > 0)
        targetEvents = UINT64_MAX;
    bool first = true;
    std::string text;
    auto emit = [&](const EventTemplate& t, std::int64_t copy) {
        const std::int64_t idShift = copy * 100'000'000;
        text.assign(first ? "  {\n    " : ",\n  {\n    ");
        if (t.hasTs) {
            text += "\"ts\": " + microseconds(t.ts + copy * period);
            if (t.hasDur)
                text += ", \"dur\": " + microseconds(t.dur);
            text += ",\n    ";
        }
        text += t.pieces[0];
        for (std::size_t i = 0; i < t.ids.size(); ++i) {
            text += std::to_string(t.ids[i] + idShift);
            text += t.pieces[i + 1];
        }
        out << text;
        first = false;
        ++result.events;
    };
    for (std::int64_t copy = 0; result.events < targetEvents && (copies == 0 || std::uint64_t(copy) < copies); ++copy) {
        for (const auto& t : timed) {
            if (result.events >= targetEvents)
                break;
            emit(t, copy);
        }
        if (perTile == 0)
            break;
    }
    for (const auto& t : metadata)
        emit(t, 0);
    out << "\n  ],\n  \"traceName\": \"tiled\"\n}\n";
    out.close();
    result.bytes = std::filesystem::file_size(outPath);
    return result;
}

std::string largeTracePath(const std::string& testDataDir)
{
    const auto path = (std::filesystem::temp_directory_path() / "kinetoscope-large-745k.pt.trace.json").string();
    if (!std::filesystem::exists(path)) {
        const auto tmp = path + ".tmp";
        const auto r = tileTrace(testDataDir + "/big.pt.trace.json.gz", tmp, 745'038);
        if (!r.error.empty())
            return {};
        std::filesystem::rename(tmp, path);
    }
    return path;
}

std::shared_ptr<const Trace> loadBenchTrace(int argc, char** argv, const std::string& testDataDir)
{
    const std::string path = argc > 1 ? argv[1] : largeTracePath(testDataDir);
    const auto start = std::chrono::steady_clock::now();
    const LoadResult loaded = loadTraceFile(path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "cannot load %s\n", path.c_str());
        return nullptr;
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("%s: %llu events, %zu slices (%.0f ms to load)\n", path.c_str(),
                static_cast<unsigned long long>(loaded.trace->traceEventCount()), loaded.trace->slices().size(), ms);
    return loaded.trace;
}

} // namespace ks::bench
