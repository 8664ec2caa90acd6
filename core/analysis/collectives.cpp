#include "core/analysis/collectives.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>

namespace ks::analysis {

namespace {

constexpr std::size_t kWarningsPerKind = 10;
constexpr const char* kUnknownGroup = "?";

int dtypeBytes(std::string_view dtype)
{
    static const std::map<std::string_view, int> sizes = {
        {"Float", 4},          {"Int", 4},           {"UInt32", 4},      {"Double", 8},
        {"Long", 8},           {"UInt64", 8},        {"Half", 2},        {"BFloat16", 2},
        {"Short", 2},          {"UInt16", 2},        {"Byte", 1},        {"Char", 1},
        {"Bool", 1},           {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1}, {"ComplexFloat", 8},
        {"ComplexDouble", 16},
    };
    auto it = sizes.find(dtype);
    return it == sizes.end() ? -1 : it->second;
}

std::string stringArg(const nlohmann::json& args, const char* key)
{
    auto it = args.find(key);
    if (it == args.end())
        return {};
    return it->is_string() ? it->get<std::string>()
                           : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::int64_t intArg(const nlohmann::json& args, const char* key)
{
    auto it = args.find(key);
    return it != args.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

void readArgs(std::string_view text, CollectiveKernel& k)
{
    const auto event = nlohmann::json::parse(text, nullptr, false);
    if (!event.is_object() || !event.contains("args") || !event["args"].is_object())
        return;
    const auto& args = event["args"];
    if (!args.contains("Collective name"))
        return;
    k.attributed = true;
    k.name = stringArg(args, "Collective name");
    k.processGroup = stringArg(args, "Process Group Name");
    k.groupRanks = stringArg(args, "Process Group Ranks");
    k.dtype = stringArg(args, "dtype");
    k.inElements = intArg(args, "In msg nelems");
    k.outElements = intArg(args, "Out msg nelems");
}

// A bounded list of warnings of one kind, with the number left out at the end.
class WarningList {
public:
    explicit WarningList(std::vector<std::string>& out)
        : m_out(out)
    {
    }
    ~WarningList()
    {
        if (m_count > kWarningsPerKind)
            m_out.push_back("... and " + std::to_string(m_count - kWarningsPerKind) + " more like this");
    }
    void add(std::string text)
    {
        if (++m_count <= kWarningsPerKind)
            m_out.push_back(std::move(text));
    }

private:
    std::vector<std::string>& m_out;
    std::size_t m_count = 0;
};

std::string describe(const CollectiveKernel& k)
{
    if (!k.attributed)
        return k.name + " (no args: launched before the profiling window)";
    return k.name + " of " + std::to_string(k.inElements) + "/" + std::to_string(k.outElements) + " " + k.dtype;
}

std::size_t leadingUnattributed(const std::vector<const CollectiveKernel*>& list)
{
    std::size_t n = 0;
    while (n < list.size() && !list[n]->attributed)
        ++n;
    return n;
}

// The shift s (member kernel j is reference kernel j + s) that best agrees in name and size.
// Only kernels without args (launched before the window) justify a shift, so |s| is bounded
// by their number; with none, this is plain issue order.
long long bestShift(const std::vector<const CollectiveKernel*>& ref, const std::vector<const CollectiveKernel*>& other)
{
    constexpr std::size_t kMaxShift = 16; // kernels before the window are a handful, not thousands
    const std::size_t leading = std::max(leadingUnattributed(ref), leadingUnattributed(other));
    if (leading == ref.size() || leading == other.size()) // nothing with args to compare: issue order
        return 0;
    const long long bound = static_cast<long long>(std::min(leading, kMaxShift));
    long long best = 0, bestScore = LLONG_MIN;
    for (long long s = -bound; s <= bound; ++s) {
        long long score = 0;
        for (long long j = 0; j < static_cast<long long>(other.size()); ++j) {
            const long long i = j + s;
            if (i < 0 || i >= static_cast<long long>(ref.size()))
                continue;
            if (ref[i]->attributed && other[j]->attributed)
                score += ref[i]->sameCollectiveAs(*other[j]) ? 1 : -2;
        }
        if (score > bestScore || (score == bestScore && std::llabs(s) < std::llabs(best))) {
            bestScore = score;
            best = s;
        }
    }
    return best;
}

} // namespace

std::int64_t CollectiveKernel::bytes() const
{
    const int size = dtypeBytes(dtype);
    return inElements < 0 || size < 0 ? -1 : inElements * size;
}

bool CollectiveKernel::sameCollectiveAs(const CollectiveKernel& o) const
{
    return name == o.name && inElements == o.inElements && outElements == o.outElements && dtype == o.dtype;
}

bool isNcclKernelName(std::string_view name)
{
    return name.starts_with("ncclDevKernel_") || name.starts_with("ncclKernel_");
}

std::string collectiveNameFromKernel(std::string_view kernelName)
{
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
        if (kernelName.starts_with(prefix)) {
            std::string_view rest = kernelName.substr(prefix.size());
            rest = rest.substr(0, rest.find_first_of("_("));
            std::string out;
            for (char c : rest)
                out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return out;
        }
    }
    return {};
}

std::vector<CollectiveKernel> collectiveKernelsOf(const WorkspaceMember& member)
{
    const Trace& trace = *member.trace;
    std::vector<SliceId> ids;
    for (const Track& track : trace.tracks()) {
        if (track.kind != TrackKind::GpuStream)
            continue;
        for (SliceId s = track.sliceBegin; s < track.sliceEnd; ++s) {
            if (trace.classOf(s) == SliceClass::Kernel && isNcclKernelName(trace.str(trace.slices().name[s])))
                ids.push_back(s);
        }
    }
    std::map<SliceId, CollectiveKernel> bySlice;
    for (SliceId s : ids) {
        CollectiveKernel k;
        k.slice = s;
        k.start = trace.slices().start[s];
        k.end = trace.slices().end(s);
        if (const GpuOpInfo* info = trace.gpuOpInfo(s))
            k.stream = info->stream;
        bySlice.emplace(s, std::move(k));
    }
    trace.forEachEventText(ids, [&](SliceId s, std::string_view text) { readArgs(text, bySlice[s]); });
    std::vector<CollectiveKernel> out;
    out.reserve(bySlice.size());
    for (auto& [s, k] : bySlice) {
        if (k.name.empty())
            k.name = collectiveNameFromKernel(trace.str(trace.slices().name[s]));
        out.push_back(std::move(k));
    }
    std::sort(out.begin(), out.end(),
              [](const CollectiveKernel& a, const CollectiveKernel& b) { return a.start < b.start; });
    return out;
}

CollectiveMatching matchCollectives(const Workspace& workspace)
{
    std::vector<RankCollectives> ranks;
    for (const auto& m : workspace.members())
        ranks.push_back({m.identity.label(), m.identity.rank, m.offset, m.trace->startTime(), collectiveKernelsOf(m)});
    return matchCollectives(std::move(ranks));
}

CollectiveMatching matchCollectives(std::vector<RankCollectives> members)
{
    CollectiveMatching result;
    for (auto& m : members)
        result.kernels.push_back(std::move(m.kernels));
    const auto clockStart = std::chrono::steady_clock::now();

    // Kernels without args join the group that owns their stream on that rank.
    std::map<std::string, std::vector<std::vector<std::size_t>>> groups; // group -> per member -> kernels
    WarningList unplaced(result.warnings);
    for (std::size_t m = 0; m < members.size(); ++m) {
        std::map<std::int64_t, std::set<std::string>> groupsOfStream;
        std::set<std::string> memberGroups;
        for (const auto& k : result.kernels[m]) {
            if (k.attributed) {
                groupsOfStream[k.stream].insert(k.processGroup);
                memberGroups.insert(k.processGroup);
            }
        }
        for (std::size_t i = 0; i < result.kernels[m].size(); ++i) {
            const auto& k = result.kernels[m][i];
            std::string group = k.processGroup;
            if (!k.attributed) {
                const auto& onStream = groupsOfStream[k.stream];
                if (onStream.size() == 1)
                    group = *onStream.begin();
                else if (memberGroups.size() == 1)
                    group = *memberGroups.begin();
                else if (memberGroups.empty()) // no args at all (collector traces): one group, issue order
                    group = kUnknownGroup;
                else {
                    unplaced.add(members[m].label + ": NCCL kernel without args at "
                                 + formatDuration(k.start - members[m].traceStart)
                                 + " (launched before the profiling window) belongs to no known process group");
                    continue;
                }
            }
            auto& perMember = groups[group];
            perMember.resize(members.size());
            perMember[m].push_back(i);
        }
    }

    WarningList mismatches(result.warnings);
    WarningList missing(result.warnings);
    for (auto& groupEntry : groups) {
        const auto& group = groupEntry.first;
        auto& perMember = groupEntry.second; // not a structured binding: clang 14 cannot capture those
        std::vector<std::size_t> taking; // members with kernels in this group
        for (std::size_t m = 0; m < members.size(); ++m) {
            if (!perMember[m].empty())
                taking.push_back(m);
        }
        auto listOf = [&](std::size_t m) {
            std::vector<const CollectiveKernel*> list;
            for (std::size_t i : perMember[m])
                list.push_back(&result.kernels[m][i]);
            return list;
        };
        const auto reference = listOf(taking.front());
        std::vector<long long> shift(members.size(), 0);
        long long minShift = 0;
        for (std::size_t m : taking) {
            if (m == taking.front())
                continue;
            shift[m] = bestShift(reference, listOf(m));
            minShift = std::min(minShift, shift[m]);
            if (shift[m] != 0)
                result.warnings.push_back("process group " + group + ": " + members[m].label + " matched "
                                          + std::to_string(std::llabs(shift[m])) + " collective(s) "
                                          + (shift[m] > 0 ? "later" : "earlier")
                                          + " than in issue order, because of "
                                            "kernels launched before the profiling window");
        }
        std::map<long long, MatchedCollective> bySeq;
        for (std::size_t m : taking) {
            for (std::size_t j = 0; j < perMember[m].size(); ++j) {
                const long long seq = static_cast<long long>(j) + shift[m] - minShift;
                const std::size_t index = perMember[m][j];
                const CollectiveKernel& k = result.kernels[m][index];
                MatchedCollective& c = bySeq[seq];
                c.processGroup = group;
                c.seq = static_cast<std::size_t>(seq);
                CollectiveParticipant p;
                p.member = m;
                p.rank = members[m].rank;
                p.kernel = index;
                p.slice = k.slice;
                p.start = k.start + members[m].offset;
                p.end = k.end + members[m].offset;
                c.ranks.push_back(p);
            }
        }
        for (auto& [seq, c] : bySeq) {
            const CollectiveKernel* first = nullptr;
            for (const auto& p : c.ranks) {
                const CollectiveKernel& k = result.kernels[p.member][p.kernel];
                if (!first || (!first->attributed && k.attributed))
                    first = &k;
            }
            c.name = first->name;
            c.bytes = first->bytes();
            c.dtype = first->dtype;
            for (const auto& p : c.ranks) {
                const CollectiveKernel& k = result.kernels[p.member][p.kernel];
                const bool differs = k.attributed && first->attributed
                    ? !k.sameCollectiveAs(*first)
                    : !k.attributed && !first->attributed && k.name != first->name;
                if (differs) {
                    c.mismatch = true;
                    mismatches.add("process group " + group + " collective #" + std::to_string(seq) + ": "
                                   + describe(*first) + " on one rank but " + describe(k) + " on "
                                   + members[p.member].label);
                }
            }
            c.complete = c.ranks.size() == taking.size();
            if (!c.complete)
                missing.add("process group " + group + " collective #" + std::to_string(seq) + " (" + c.name
                            + ") is on " + std::to_string(c.ranks.size()) + " of " + std::to_string(taking.size())
                            + " ranks");
            const auto last = std::max_element(c.ranks.begin(), c.ranks.end(),
                                               [](const auto& a, const auto& b) { return a.start < b.start; });
            c.lastRank = last->rank;
            c.lastStart = last->start;
            for (auto& p : c.ranks) {
                p.wait = c.lastStart - p.start;
                c.maxWait = std::max(c.maxWait, p.wait);
            }
            std::sort(c.ranks.begin(), c.ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
            result.collectives.push_back(std::move(c));
        }
    }
    result.matchSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clockStart).count();
    return result;
}

} // namespace ks::analysis
