#include "bench/tiler/tracetiler.h"

#include "core/loading/loader.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
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

// Integers no real trace holds, replaced by the shifted ids once the body is dumped.
constexpr std::int64_t kHoleBase = 7'340'912'663'118'200'000;
constexpr std::int64_t kIdsPerCopy = 100'000'000;
constexpr std::string_view kStepPrefix = "ProfilerStep#";

std::optional<long long> stepNumberOf(const nlohmann::json& e)
{
    const auto name = e.value("name", std::string());
    if (!name.starts_with(kStepPrefix))
        return std::nullopt;
    const std::string digits = name.substr(kStepPrefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 15)
        return std::nullopt;
    return std::stoll(digits);
}

} // namespace

// An event's text with holes where each copy writes its own time, ids and step number:
// rendering it once and filling the holes per copy keeps tiling to a few GB quick (no JSON
// per copy).
struct TraceTiler::EventTemplate {
    struct Hole {
        std::int64_t value = 0;
        bool step = false; // a ProfilerStep number (shifted by the stride), else an id
    };
    std::vector<std::string> pieces; // pieces.size() == holes.size() + 1
    std::vector<Hole> holes; // values written between pieces, shifted per copy
    std::int64_t ts = 0, dur = 0;
    bool hasTs = false, hasDur = false;
    std::int64_t nextNcclStart = -1; // a NCCL kernel: the next one's start on its stream, in this copy
    bool nextNcclInNextCopy = false; // or the stream's first kernel of the next copy (add the period)
};

TraceTiler::EventTemplate TraceTiler::makeTemplate(nlohmann::json e)
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
    std::vector<EventTemplate::Hole> values;
    auto hole = [&](nlohmann::json& obj, const char* key) {
        auto it = obj.find(key);
        if (it == obj.end() || !it->is_number_integer())
            return;
        values.push_back({it->get<std::int64_t>(), false});
        *it = kHoleBase + static_cast<std::int64_t>(values.size() - 1);
    };
    hole(e, "id");
    if (auto a = e.find("args"); a != e.end() && a->is_object()) {
        for (const char* key : {"correlation", "External id", "Python id", "Python parent id"})
            hole(*a, key);
    }
    if (const auto step = stepNumberOf(e)) {
        values.push_back({*step, true});
        e["name"] = std::string(kStepPrefix) + std::to_string(kHoleBase + static_cast<std::int64_t>(values.size() - 1));
    }
    const std::string body = e.dump().substr(1);
    std::vector<std::pair<std::size_t, EventTemplate::Hole>> holes; // (where in the body, value): in text order
    for (std::size_t i = 0; i < values.size(); ++i)
        holes.emplace_back(body.find(std::to_string(kHoleBase + static_cast<std::int64_t>(i))), values[i]);
    std::sort(holes.begin(), holes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::size_t markerLength = std::to_string(kHoleBase).size();
    std::size_t from = 0;
    for (const auto& [at, value] : holes) {
        t.pieces.push_back(body.substr(from, at - from));
        t.holes.push_back(value);
        from = at + markerLength;
    }
    t.pieces.push_back(body.substr(from));
    return t;
}

TraceTiler::TraceTiler(const std::string& sourcePath)
{
    auto doc = nlohmann::json::parse(readGzip(sourcePath), nullptr, false);
    if (!doc.is_object() || !doc.contains("traceEvents")) {
        m_error = "cannot read " + sourcePath;
        return;
    }
    const auto& events = doc["traceEvents"];
    std::int64_t lo = INT64_MAX, hi = INT64_MIN;
    long long firstStep = LLONG_MAX, lastStep = LLONG_MIN;
    // NCCL kernels per (pid, tid): template index, for the slow link's clamp.
    std::map<std::string, std::vector<std::size_t>> ncclByStream;
    for (const auto& e : events) {
        if (e.value("ph", "") == "M") {
            m_metadata.push_back(makeTemplate(e));
            continue;
        }
        if (!e.contains("ts"))
            continue; // events with neither ts nor ph M are dropped
        const auto ts = toNs(e["ts"]);
        lo = std::min(lo, ts);
        hi = std::max(hi, ts + (e.contains("dur") ? toNs(e["dur"]) : 0));
        if (const auto step = stepNumberOf(e)) {
            firstStep = std::min(firstStep, *step);
            lastStep = std::max(lastStep, *step);
        }
        if (e.value("cat", "") == "kernel" && e.value("name", "").starts_with("nccl"))
            ncclByStream[e.value("pid", nlohmann::json()).dump() + "/" + e.value("tid", nlohmann::json()).dump()]
                .push_back(m_timed.size());
        m_timed.push_back(makeTemplate(e));
    }
    m_period = m_timed.empty() ? 0 : (hi - lo) + 1'000'000; // 1 ms gap between copies
    m_stepStride = firstStep <= lastStep ? lastStep - firstStep + 1 : 0;
    for (auto& [stream, kernels] : ncclByStream) {
        std::sort(kernels.begin(), kernels.end(),
                  [&](std::size_t a, std::size_t b) { return m_timed[a].ts < m_timed[b].ts; });
        for (std::size_t i = 0; i < kernels.size(); ++i) {
            auto& kernel = m_timed[kernels[i]];
            kernel.nextNcclInNextCopy = i + 1 == kernels.size();
            kernel.nextNcclStart = m_timed[kernels[kernel.nextNcclInNextCopy ? 0 : i + 1]].ts;
        }
    }
    m_header = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": "
        + doc.value("deviceProperties", nlohmann::json::array()).dump();
    m_baseTimeNs = doc.value("baseTimeNanoseconds", std::int64_t(0));
    if (doc.contains("distributedInfo"))
        m_distributedInfo = doc["distributedInfo"];
}

TraceTiler::~TraceTiler() = default;
TraceTiler::TraceTiler(TraceTiler&&) noexcept = default;

TileResult TraceTiler::write(const std::string& outPath, std::uint64_t targetEvents, std::uint64_t copies,
                             const RankVariant& variant) const
{
    TileResult result;
    if (!m_error.empty()) {
        result.error = m_error;
        return result;
    }
    std::ofstream out(outPath, std::ios::binary);
    out << m_header << ",\n  \"baseTimeNanoseconds\": " << m_baseTimeNs;
    if (!m_distributedInfo.is_null()) {
        nlohmann::json info = m_distributedInfo;
        if (variant.rank >= 0) {
            info["rank"] = variant.rank;
            info["world_size"] = variant.worldSize;
            std::vector<int> all(static_cast<std::size_t>(std::max(variant.worldSize, 0)));
            std::iota(all.begin(), all.end(), 0);
            if (auto groups = info.find("pg_config"); groups != info.end() && groups->is_array()) {
                for (auto& group : *groups) {
                    group["pg_size"] = variant.worldSize;
                    group["ranks"] = all;
                }
            }
        }
        out << ",\n  \"distributedInfo\": " << info.dump();
    }
    out << ",\n  \"traceEvents\": [\n";
    if (copies > 0)
        targetEvents = UINT64_MAX;
    bool first = true;
    std::string text;
    auto emit = [&](const EventTemplate& t, std::int64_t copy) {
        text.assign(first ? "  {\n    " : ",\n  {\n    ");
        if (t.hasTs) {
            const std::int64_t shift = copy * m_period + variant.shiftOf(copy);
            text += "\"ts\": " + microseconds(t.ts + shift);
            if (t.hasDur) {
                const std::int64_t next = t.nextNcclStart + (t.nextNcclInNextCopy ? m_period : 0);
                const std::int64_t end = t.nextNcclStart >= 0 ? variant.ncclEnd(t.ts + t.dur, next) : t.ts + t.dur;
                text += ", \"dur\": " + microseconds(end - t.ts);
            }
            text += ",\n    ";
        }
        text += t.pieces[0];
        for (std::size_t i = 0; i < t.holes.size(); ++i) {
            const auto& hole = t.holes[i];
            text += std::to_string(hole.step ? hole.value + (variant.renumberSteps ? copy * m_stepStride : 0)
                                             : hole.value + copy * kIdsPerCopy);
            text += t.pieces[i + 1];
        }
        out << text;
        first = false;
        ++result.events;
    };
    for (std::int64_t copy = 0; result.events < targetEvents && (copies == 0 || std::uint64_t(copy) < copies); ++copy) {
        for (const auto& t : m_timed) {
            if (result.events >= targetEvents)
                break;
            emit(t, copy);
        }
        if (m_timed.empty())
            break;
    }
    for (const auto& t : m_metadata)
        emit(t, 0);
    out << "\n  ],\n  \"traceName\": \"tiled\"\n}\n";
    out.close();
    if (!out)
        result.error = "cannot write " + outPath;
    else
        result.bytes = std::filesystem::file_size(outPath);
    return result;
}

std::vector<TraceTiler> tilersInStep(const std::vector<std::string>& sourcePaths)
{
    std::vector<TraceTiler> tilers;
    std::int64_t period = 0;
    for (const auto& path : sourcePaths) {
        tilers.emplace_back(path);
        period = std::max(period, tilers.back().period());
    }
    for (auto& tiler : tilers)
        tiler.setPeriod(period);
    return tilers;
}

TileResult tileTrace(const std::string& sourcePath, const std::string& outPath, std::uint64_t targetEvents,
                     std::uint64_t copies)
{
    return TraceTiler(sourcePath).write(outPath, targetEvents, copies);
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
