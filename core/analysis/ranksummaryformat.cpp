#include "core/analysis/ranksummaryformat.h"

#include "core/analysis/columnarjson.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <tuple>

namespace ks::analysis {

namespace {

using Json = nlohmann::json;

// The run's key is the trace's distributedInfo (4 kB for 1,024 ranks: its process groups list
// every rank); the summary keeps a stable hash (FNV-1a 64), enough to tell runs apart.
std::string runKeyHash(const std::string& key)
{
    if (key.empty())
        return {};
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : key)
        h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

// A collective's kind: everything but its times, listed once per summary.
using CollectiveKind =
    std::tuple<std::string, std::string, std::string, std::string, std::int64_t, std::int64_t, std::int64_t, bool>;
CollectiveKind kindOf(const CollectiveKernel& k)
{
    return {k.name, k.processGroup, k.groupRanks, k.dtype, k.stream, k.inElements, k.outElements, k.attributed};
}

Json collectivesToJson(const std::vector<CollectiveKernel>& collectives, TimeNs traceStart)
{
    std::map<CollectiveKind, std::size_t> kinds;
    Json starts = Json::array(), durations = Json::array(), kindOfRow = Json::array();
    Json names = Json::array(), groups = Json::array(), groupRanks = Json::array(), dtypes = Json::array(),
         streams = Json::array(), in = Json::array(), out = Json::array(), attributed = Json::array();
    TimeNs previous = traceStart;
    for (const auto& k : collectives) {
        const auto [it, added] = kinds.emplace(kindOf(k), kinds.size());
        if (added) {
            names.push_back(k.name);
            groups.push_back(k.processGroup);
            groupRanks.push_back(k.groupRanks);
            dtypes.push_back(k.dtype);
            streams.push_back(k.stream);
            in.push_back(k.inElements);
            out.push_back(k.outElements);
            attributed.push_back(k.attributed);
        }
        starts.push_back(k.start - previous);
        durations.push_back(k.end - k.start);
        kindOfRow.push_back(it->second);
        previous = k.start;
    }
    return {{"start", std::move(starts)},
            {"dur", std::move(durations)},
            {"kind", std::move(kindOfRow)},
            {"kinds",
             {{"name", std::move(names)},
              {"group", std::move(groups)},
              {"group_ranks", std::move(groupRanks)},
              {"dtype", std::move(dtypes)},
              {"stream", std::move(streams)},
              {"in_elements", std::move(in)},
              {"out_elements", std::move(out)},
              {"attributed", std::move(attributed)}}}};
}

// The fields of a parsed summary; the first one missing or of the wrong type is remembered.
class SummaryFields {
public:
    explicit SummaryFields(const ColumnarJson& doc)
        : m_doc(doc)
    {
    }
    const std::string& problem() const { return m_problem; }

    std::int64_t integer(const std::string& path, std::int64_t min = INT64_MIN)
    {
        const std::int64_t* v = m_doc.integer(path);
        if (!v || *v < min)
            return fail(path, min == 0 ? "a non-negative integer" : "an integer"), 0;
        return *v;
    }
    std::string text(const std::string& path)
    {
        const std::string* v = m_doc.string(path);
        return v ? *v : (fail(path, "a string"), std::string());
    }
    bool flag(const std::string& path)
    {
        const auto v = m_doc.boolean(path);
        return v ? *v : (fail(path, "true or false"), false);
    }
    // An array of `size` integers (any size when `size` is npos); empty when it is not.
    const std::vector<std::int64_t>& numbers(const std::string& path, std::size_t size = std::string::npos)
    {
        const auto* c = m_doc.column(path);
        if (!c || c->mixed || !c->strings.empty() || (size != std::string::npos && c->numbers.size() != size))
            return fail(path, "an array of integers" + sizeNote(size)), m_none;
        return c->numbers;
    }
    const std::vector<std::string>& strings(const std::string& path, std::size_t size)
    {
        const auto* c = m_doc.column(path);
        if (!c || c->mixed || !c->numbers.empty() || c->strings.size() != size) {
            static const std::vector<std::string> none;
            return fail(path, "an array of strings" + sizeNote(size)), none;
        }
        return c->strings;
    }
    // Row i's time: the previous row's plus delta i (the first: `from` plus delta 0).
    std::vector<TimeNs> times(const std::string& path, TimeNs from, std::size_t size)
    {
        std::vector<TimeNs> out;
        const auto& deltas = numbers(path, size);
        out.reserve(deltas.size());
        for (const std::int64_t d : deltas) {
            if (__builtin_add_overflow(from, d, &from))
                return fail(path, "times that fit 64 bits"), std::vector<TimeNs>();
            out.push_back(from);
        }
        return out;
    }
    void fail(const std::string& path, const std::string& what)
    {
        if (m_problem.empty())
            m_problem = "\"" + path + "\" is not " + what;
    }

private:
    static std::string sizeNote(std::size_t size)
    {
        return size == std::string::npos ? std::string() : " of " + std::to_string(size);
    }
    const ColumnarJson& m_doc;
    std::string m_problem;
    const std::vector<std::int64_t> m_none;
};

std::string describe(const ColumnarJson::Scalar* v)
{
    if (!v)
        return "?";
    if (const auto* n = std::get_if<std::int64_t>(v))
        return std::to_string(*n);
    if (const auto* d = std::get_if<double>(v))
        return Json(*d).dump(-1, ' ', false, Json::error_handler_t::replace);
    if (const auto* s = std::get_if<std::string>(v))
        return Json(*s).dump(-1, ' ', false, Json::error_handler_t::replace);
    return "?";
}

void readSteps(SummaryFields& f, RankSummaryFile& s)
{
    const auto& numbers = f.numbers("steps.number");
    const auto starts = f.times("steps.start", s.traceStart, numbers.size());
    const auto& durations = f.numbers("steps.dur", numbers.size());
    if (!f.problem().empty())
        return;
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        TimeNs end = 0;
        if (__builtin_add_overflow(starts[i], durations[i], &end))
            return f.fail("steps.dur", "durations that fit 64 bits");
        s.steps.push_back({numbers[i], starts[i], end});
    }
}

void readCollectives(SummaryFields& f, RankSummaryFile& s)
{
    const auto& names = f.strings("collectives.kinds.name", f.numbers("collectives.kinds.stream").size());
    const std::size_t kinds = names.size();
    const auto& groups = f.strings("collectives.kinds.group", kinds);
    const auto& groupRanks = f.strings("collectives.kinds.group_ranks", kinds);
    const auto& dtypes = f.strings("collectives.kinds.dtype", kinds);
    const auto& streams = f.numbers("collectives.kinds.stream", kinds);
    const auto& in = f.numbers("collectives.kinds.in_elements", kinds);
    const auto& out = f.numbers("collectives.kinds.out_elements", kinds);
    const auto& attributed = f.numbers("collectives.kinds.attributed", kinds);
    const auto& kindOfRow = f.numbers("collectives.kind");
    const auto starts = f.times("collectives.start", s.traceStart, kindOfRow.size());
    const auto& durations = f.numbers("collectives.dur", kindOfRow.size());
    if (!f.problem().empty())
        return;
    s.collectives.resize(kindOfRow.size());
    for (std::size_t i = 0; i < kindOfRow.size(); ++i) {
        const auto kind = static_cast<std::size_t>(kindOfRow[i]);
        CollectiveKernel& k = s.collectives[i];
        if (kindOfRow[i] < 0 || kind >= kinds || durations[i] < 0
            || __builtin_add_overflow(starts[i], durations[i], &k.end))
            return f.fail("collectives", "valid at row " + std::to_string(i) + " (kind or duration)");
        k.start = starts[i];
        k.stream = streams[kind];
        k.name = names[kind];
        k.processGroup = groups[kind];
        k.groupRanks = groupRanks[kind];
        k.dtype = dtypes[kind];
        k.inElements = in[kind];
        k.outElements = out[kind];
        k.attributed = attributed[kind] != 0;
    }
}

} // namespace

Json rankSummaryToJson(const RankSummaryFile& s)
{
    const auto& id = s.identity;
    Json numbers = Json::array(), starts = Json::array(), durations = Json::array();
    TimeNs previous = s.traceStart;
    for (const auto& step : s.steps) {
        numbers.push_back(step.number);
        starts.push_back(step.start - previous);
        durations.push_back(step.end - step.start);
        previous = step.start;
    }
    const auto& t = s.totals;
    return {{"format", kRankSummaryFormat},
            {"version", kRankSummaryVersion},
            {"identity",
             {{"file", id.file},
              {"worker", id.worker},
              {"rank", id.rank},
              {"world_size", id.worldSize},
              {"rank_inferred", id.rankInferred},
              {"backend", id.backend},
              {"run_key", runKeyHash(id.runKey)}}},
            {"base_time_ns", s.baseTimeNs},
            {"trace_start_ns", s.traceStart},
            {"trace_end_ns", s.traceEnd},
            {"trace_bytes", s.traceBytes},
            {"steps", {{"number", std::move(numbers)}, {"start", std::move(starts)}, {"dur", std::move(durations)}}},
            {"totals",
             {{"steps", t.steps},
              {"step_time_mean_ns", t.stepTimeMean},
              {"window_start_ns", t.windowStart},
              {"window_end_ns", t.windowEnd},
              {"kernel_time_ns", t.kernelTime},
              {"collective_time_ns", t.collectiveTime},
              {"idle_time_ns", t.idleTime}}},
            {"collectives", collectivesToJson(s.collectives, s.traceStart)},
            {"view", s.view}};
}

std::variant<RankSummaryFile, std::string> rankSummaryFromText(std::string_view text, const std::string& where)
{
    ColumnarJson doc;
    if (!doc.parse(text, {"view"}))
        return where + ": not valid JSON";
    const std::string* format = doc.string("format");
    if (!doc.isObject() || !format || *format != kRankSummaryFormat)
        return where + ": not a Kinetoscope rank summary";
    const std::int64_t* version = doc.integer("version");
    if (!version || *version != kRankSummaryVersion)
        return where + ": rank summary format version " + describe(doc.scalar("version"))
            + ", this build reads version " + std::to_string(kRankSummaryVersion) + " (summarize the trace again)";
    SummaryFields f(doc);
    RankSummaryFile s;
    s.identity.file = f.text("identity.file");
    s.identity.worker = f.text("identity.worker");
    s.identity.rank = static_cast<int>(f.integer("identity.rank", -1));
    s.identity.worldSize = static_cast<int>(f.integer("identity.world_size", -1));
    s.identity.rankInferred = f.flag("identity.rank_inferred");
    s.identity.backend = f.text("identity.backend");
    s.identity.runKey = f.text("identity.run_key");
    s.baseTimeNs = f.integer("base_time_ns");
    s.traceStart = f.integer("trace_start_ns");
    s.traceEnd = f.integer("trace_end_ns");
    s.traceBytes = static_cast<std::uint64_t>(f.integer("trace_bytes", 0));
    auto& t = s.totals;
    t.rank = s.identity.rank;
    t.steps = static_cast<std::size_t>(f.integer("totals.steps", 0));
    t.stepTimeMean = f.integer("totals.step_time_mean_ns");
    t.windowStart = f.integer("totals.window_start_ns");
    t.windowEnd = f.integer("totals.window_end_ns");
    t.kernelTime = f.integer("totals.kernel_time_ns");
    t.collectiveTime = f.integer("totals.collective_time_ns");
    t.idleTime = f.integer("totals.idle_time_ns");
    if (f.problem().empty())
        readSteps(f, s);
    if (f.problem().empty())
        readCollectives(f, s);
    if (!f.problem().empty())
        return where + ": malformed rank summary: " + f.problem();
    return s;
}

std::variant<RankSummaryFile, std::string> readRankSummary(const std::string& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const auto size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
    std::string text(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    if (size < 0 || !in.seekg(0).read(text.data(), size))
        return path + ": cannot be read";
    return rankSummaryFromText(text, path);
}

} // namespace ks::analysis
