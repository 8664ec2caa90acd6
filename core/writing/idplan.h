#pragma once
// How the ids of one or more traces are written into one file. Plain Save As writes pids,
// tids and ids as they were. Merged and converted files are made unambiguous for other
// tools: integer pids, disjoint between inputs (text pids get a fresh integer, their text
// becomes the process name); correlation ids, External ids and flow ids unique in the file
// (each process keeps its ids unless they collide with ids already written, else they move
// by a round offset); overhead slices that partially overlap a sibling on a tid of their own.
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace ks {

using OrderedJson = nlohmann::ordered_json;

class IdPlan {
public:
    IdPlan(std::vector<const Trace*> inputs, bool normalize);

    bool normalizing() const { return m_normalize; }
    std::size_t inputCount() const { return m_inputs.size(); }

    // The pid value written for a pid of input `k` (identity unless normalizing).
    OrderedJson pid(std::size_t k, const JsonId& pid);
    // The same for a pid as JSON (kept entries); null/absent pids stay as they are.
    OrderedJson pid(std::size_t k, const OrderedJson& value);
    // Text pids of input k that became integers: (written pid, name to give it).
    const std::vector<std::pair<std::int64_t, std::string>>& renamedTextPids(std::size_t k) const
    {
        return m_renamed[k];
    }

    // The process whose ids a slice belongs to: CPU slices their own process, GPU work the
    // process of the call that launched it (ac2g flow, else the one CPU slice with its correlation).
    std::uint32_t domainOf(std::size_t k, SliceId s) const { return m_normalize ? m_inputsPlan[k].domain[s] : 0; }
    std::int64_t correlation(std::size_t k, SliceId s) const;
    std::int64_t externalId(std::size_t k, SliceId s) const;
    std::uint64_t flowId(std::size_t k, std::uint32_t domain, StringId category, std::uint64_t id) const;
    // An extra tid for a slice that partially overlaps a sibling (normalizing only), else none.
    std::optional<OrderedJson> overflowTid(std::size_t k, SliceId s) const;

private:
    struct InputPlan {
        std::vector<std::uint32_t> domain; // per slice (normalizing only)
        std::vector<std::int64_t> correlationOffset, externalOffset, flowOffset; // per domain
        std::map<std::uint32_t, std::int64_t> overflowTidBase; // per track with overflow lanes
    };
    void planDomains(std::size_t k);
    void planOffsets();
    void planOverflow(std::size_t k);
    std::int64_t freshPid();

    std::vector<const Trace*> m_inputs;
    bool m_normalize;
    std::vector<InputPlan> m_inputsPlan;
    std::map<std::pair<std::size_t, JsonId>, std::int64_t> m_pidOf; // (input, pid) → written pid
    std::set<std::int64_t> m_claimedPids;
    std::int64_t m_nextFresh = 0;
    std::vector<std::vector<std::pair<std::int64_t, std::string>>> m_renamed;
    std::vector<StringId> m_ac2g; // per input
};

} // namespace ks
