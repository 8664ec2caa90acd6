#include "core/writing/idplan.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

namespace ks {

namespace {

// Moved ids start at the next multiple of this above every id already written, so that a
// moved id still reads like the original (rank 1's correlation 1234 → 1001234).
constexpr std::int64_t kIdStride = 1000000;

std::int64_t roundOffsetAbove(std::int64_t maxTaken) { return (maxTaken / kIdStride + 1) * kIdStride; }

// One id space (correlation, External id or flow id): which ids are written so far.
class IdSpace {
public:
    // The offset for a domain with these ids: 0 when none of them is taken yet.
    std::int64_t claim(const std::vector<std::int64_t>& ids)
    {
        std::int64_t offset = 0;
        for (const auto id : ids) {
            if (m_taken.count(id)) {
                offset = roundOffsetAbove(m_max);
                break;
            }
        }
        for (const auto id : ids) {
            m_taken.insert(id + offset);
            m_max = std::max(m_max, id + offset);
        }
        return offset;
    }

private:
    std::unordered_set<std::int64_t> m_taken;
    std::int64_t m_max = 0;
};

} // namespace

IdPlan::IdPlan(std::vector<const Trace*> inputs, bool normalize)
    : m_inputs(std::move(inputs))
    , m_normalize(normalize || m_inputs.size() > 1)
{
    m_inputsPlan.resize(m_inputs.size());
    m_renamed.resize(m_inputs.size());
    for (const Trace* t : m_inputs)
        m_ac2g.push_back(t->strings().find("ac2g"));
    if (!m_normalize)
        return;
    // Fresh pids go above every numeric pid of any input.
    for (const Trace* t : m_inputs) {
        for (const auto& p : t->processes()) {
            if (!p.pid.isText)
                m_nextFresh = std::max(m_nextFresh, p.pid.number + 1);
        }
    }
    for (std::size_t k = 0; k < m_inputs.size(); ++k) {
        planDomains(k);
        planOverflow(k);
    }
    planOffsets();
}

std::int64_t IdPlan::freshPid()
{
    while (m_claimedPids.count(m_nextFresh))
        ++m_nextFresh;
    return m_nextFresh++;
}

OrderedJson IdPlan::pid(std::size_t k, const JsonId& pid)
{
    if (!m_normalize)
        return pid.isText ? OrderedJson(std::string(m_inputs[k]->str(pid.text))) : OrderedJson(pid.number);
    const auto [it, inserted] = m_pidOf.try_emplace({k, pid}, 0);
    if (inserted) {
        if (!pid.isText && !m_claimedPids.count(pid.number)) {
            it->second = pid.number;
        } else {
            it->second = freshPid();
            if (pid.isText)
                m_renamed[k].emplace_back(it->second, std::string(m_inputs[k]->str(pid.text)));
        }
        m_claimedPids.insert(it->second);
    }
    return it->second;
}

OrderedJson IdPlan::pid(std::size_t k, const OrderedJson& value)
{
    if (!m_normalize)
        return value;
    if (value.is_number_integer())
        return pid(k, JsonId::fromNumber(value.get<std::int64_t>()));
    if (value.is_string()) {
        // A text pid that no event of the model uses still gets an integer of its own.
        const auto& text = value.get_ref<const std::string&>();
        const StringId id = m_inputs[k]->strings().find(text);
        if (id != std::numeric_limits<StringId>::max())
            return pid(k, JsonId::fromText(id));
        const std::int64_t fresh = freshPid();
        m_claimedPids.insert(fresh);
        m_renamed[k].emplace_back(fresh, text);
        return fresh;
    }
    return value;
}

void IdPlan::planDomains(std::size_t k)
{
    const Trace& t = *m_inputs[k];
    const auto& slices = t.slices();
    auto& domain = m_inputsPlan[k].domain;
    domain.assign(slices.size(), kNoIndex);
    // Correlation → the one host process that has a CPU slice with it (kNoIndex if several).
    std::unordered_map<std::int64_t, std::uint32_t> hostOfCorrelation;
    for (SliceId s = 0; s < slices.size(); ++s) {
        const auto& track = t.tracks()[t.trackOf(s)];
        if (track.kind == TrackKind::GpuStream)
            continue;
        domain[s] = track.process;
        if (slices.correlation[s] == kNoId)
            continue;
        const auto [it, inserted] = hostOfCorrelation.try_emplace(slices.correlation[s], track.process);
        if (!inserted && it->second != track.process)
            it->second = kNoIndex;
    }
    for (SliceId s = 0; s < slices.size(); ++s) {
        if (domain[s] != kNoIndex)
            continue;
        for (const auto f : t.incomingFlows(s)) {
            const auto& flow = t.flows()[f];
            if (flow.category == m_ac2g[k] && flow.from != kNoSlice && domain[flow.from] != kNoIndex) {
                domain[s] = domain[flow.from];
                break;
            }
        }
        if (domain[s] == kNoIndex) {
            const auto it = hostOfCorrelation.find(slices.correlation[s]);
            domain[s] =
                it != hostOfCorrelation.end() && it->second != kNoIndex ? it->second : t.tracks()[t.trackOf(s)].process;
        }
    }
}

void IdPlan::planOffsets()
{
    IdSpace correlations, externals, flows;
    for (std::size_t k = 0; k < m_inputs.size(); ++k) {
        const Trace& t = *m_inputs[k];
        const auto& slices = t.slices();
        const std::size_t domains = t.processes().size();
        std::vector<std::vector<std::int64_t>> corr(domains), ext(domains), flow(domains);
        auto& plan = m_inputsPlan[k];
        for (SliceId s = 0; s < slices.size(); ++s) {
            if (slices.correlation[s] != kNoId)
                corr[plan.domain[s]].push_back(slices.correlation[s]);
            if (slices.externalId[s] != kNoId)
                ext[plan.domain[s]].push_back(slices.externalId[s]);
        }
        for (const auto& f : t.flows()) {
            if (f.category != m_ac2g[k] && f.from != kNoSlice)
                flow[plan.domain[f.from]].push_back(static_cast<std::int64_t>(f.id));
        }
        for (const auto& h : t.unpairedFlowHalves()) {
            if (h.category != m_ac2g[k] && h.slice != kNoSlice)
                flow[plan.domain[h.slice]].push_back(static_cast<std::int64_t>(h.id));
        }
        plan.correlationOffset.resize(domains);
        plan.externalOffset.resize(domains);
        plan.flowOffset.resize(domains);
        for (std::size_t d = 0; d < domains; ++d) {
            plan.correlationOffset[d] = correlations.claim(corr[d]);
            plan.externalOffset[d] = externals.claim(ext[d]);
            plan.flowOffset[d] = flows.claim(flow[d]);
        }
    }
}

// Overhead slices in an overflow lane (they partially overlap a sibling, which Perfetto drops)
// go on tids above the track's own: one per lane.
void IdPlan::planOverflow(std::size_t k)
{
    const Trace& t = *m_inputs[k];
    for (std::uint32_t ti = 0; ti < t.tracks().size(); ++ti) {
        const auto& track = t.tracks()[ti];
        if (track.lanes.size() < 2 || track.tid.isText)
            continue;
        std::int64_t maxTid = track.tid.number;
        for (const auto other : t.processes()[track.process].tracks) {
            if (!t.tracks()[other].tid.isText)
                maxTid = std::max(maxTid, t.tracks()[other].tid.number);
        }
        m_inputsPlan[k].overflowTidBase[ti] = maxTid;
    }
}

std::optional<OrderedJson> IdPlan::overflowTid(std::size_t k, SliceId s) const
{
    if (!m_normalize || m_inputs[k]->classOf(s) != SliceClass::Overhead)
        return std::nullopt;
    const Trace& t = *m_inputs[k];
    const Row& row = t.rowOf(s);
    const auto& track = t.tracks()[row.track];
    if (track.lanes[row.lane].kind != LaneKind::Overflow)
        return std::nullopt;
    const auto it = m_inputsPlan[k].overflowTidBase.find(row.track);
    if (it == m_inputsPlan[k].overflowTidBase.end())
        return std::nullopt;
    return OrderedJson(it->second + row.lane);
}

std::int64_t IdPlan::correlation(std::size_t k, SliceId s) const
{
    const std::int64_t c = m_inputs[k]->slices().correlation[s];
    if (!m_normalize || c == kNoId)
        return c;
    return c + m_inputsPlan[k].correlationOffset[domainOf(k, s)];
}

std::int64_t IdPlan::externalId(std::size_t k, SliceId s) const
{
    const std::int64_t e = m_inputs[k]->slices().externalId[s];
    if (!m_normalize || e == kNoId)
        return e;
    return e + m_inputsPlan[k].externalOffset[domainOf(k, s)];
}

std::uint64_t IdPlan::flowId(std::size_t k, std::uint32_t domain, StringId category, std::uint64_t id) const
{
    if (!m_normalize)
        return id;
    const auto& plan = m_inputsPlan[k];
    return id
        + static_cast<std::uint64_t>(category == m_ac2g[k] ? plan.correlationOffset[domain] : plan.flowOffset[domain]);
}

} // namespace ks
