#include "core/analysis/opcosts.h"

#include "core/gpu/tensorcores.h"

#include <algorithm>
#include <deque>
#include <unordered_map>

namespace ks::analysis {

namespace {

constexpr std::size_t kMaxWarnings = 5;

bool hasRuleRow(const OperatorRow& row)
{
    return !row.isDevice && !row.isUserAnnotation && costRuleOf(row.name) != CostRule::None;
}

} // namespace

OpCosts OpCosts::ofRows(const Trace& trace, std::span<const OperatorRow> rows)
{
    std::vector<SliceId> ops;
    for (const OperatorRow& row : rows) {
        if (hasRuleRow(row))
            ops.insert(ops.end(), row.slices.begin(), row.slices.end());
    }
    return ofOps(trace, std::move(ops));
}

OpCosts OpCosts::ofTrace(const Trace& trace)
{
    std::vector<SliceId> ops;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (trace.classOf(s) == SliceClass::CpuOp)
            ops.push_back(s);
    }
    return ofOps(trace, std::move(ops));
}

namespace {

// Each distinct (op name, raw shape args) once: the calls of a training loop repeat a few
// shapes, and a parse is most of the time per call. Looked up by hash, without an allocation
// for a call whose args were seen.
class DistinctArgs {
public:
    struct Entry {
        StringId name;
        std::string dims, types, concrete;
        std::uint32_t cost = 0; // in OpCosts' distinct costs
        std::string warning;
        std::uint32_t nextWithHash = kNoIndex;
    };

    // The entry of these args, or nullptr the first time they are seen.
    const Entry* find(StringId name, const RawShapeArgs& raw, std::size_t hash) const
    {
        const auto it = m_firstWithHash.find(hash);
        for (std::uint32_t e = it == m_firstWithHash.end() ? kNoIndex : it->second; e != kNoIndex;
             e = m_entries[e].nextWithHash) {
            const Entry& entry = m_entries[e];
            if (entry.name == name && entry.dims == raw.dims && entry.types == raw.types
                && entry.concrete == raw.concrete)
                return &entry;
        }
        return nullptr;
    }
    const Entry& add(StringId name, const RawShapeArgs& raw, std::size_t hash, std::uint32_t cost, std::string warning)
    {
        auto [it, inserted] = m_firstWithHash.try_emplace(hash, std::uint32_t(m_entries.size()));
        m_entries.push_back({name, std::string(raw.dims), std::string(raw.types), std::string(raw.concrete), cost,
                             std::move(warning), inserted ? kNoIndex : it->second});
        it->second = std::uint32_t(m_entries.size() - 1);
        return m_entries.back();
    }
    static std::size_t hashOf(StringId name, const RawShapeArgs& raw)
    {
        std::size_t h = std::hash<StringId>()(name);
        for (const std::string_view part : {raw.dims, raw.types, raw.concrete})
            h = h * 1000003u ^ std::hash<std::string_view>()(part);
        return h;
    }

private:
    std::unordered_map<std::size_t, std::uint32_t> m_firstWithHash;
    std::deque<Entry> m_entries; // stable: callers keep references
};

} // namespace

namespace {

// The costs of the loader's shape args (Trace::shapeArgs()) by (op name, id): what a parse of
// each call's text would give, parsed once per distinct pair.
class PooledArgsCosts {
public:
    struct Entry {
        StringId name;
        std::uint32_t cost; // in OpCosts' distinct costs
        std::string warning;
        std::uint32_t nextWithId = kNoIndex;
    };
    explicit PooledArgsCosts(std::size_t ids)
        : m_firstWithId(ids, kNoIndex)
    {
    }
    const Entry* find(StringId name, std::uint32_t id) const
    {
        for (std::uint32_t e = m_firstWithId[id]; e != kNoIndex; e = m_entries[e].nextWithId) {
            if (m_entries[e].name == name)
                return &m_entries[e];
        }
        return nullptr;
    }
    const Entry& add(StringId name, std::uint32_t id, std::uint32_t cost, std::string warning)
    {
        m_entries.push_back({name, cost, std::move(warning), m_firstWithId[id]});
        m_firstWithId[id] = std::uint32_t(m_entries.size() - 1);
        return m_entries.back();
    }

private:
    std::vector<std::uint32_t> m_firstWithId;
    std::deque<Entry> m_entries; // stable: callers keep references
};

} // namespace

OpCosts OpCosts::ofOps(const Trace& trace, std::vector<SliceId> ops)
{
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    // Rules are looked up once per name, not per call.
    const SliceTable& slices = trace.slices();
    std::vector<std::int8_t> ruleOfName(trace.strings().size(), -1);
    std::erase_if(ops, [&](SliceId s) {
        const StringId name = slices.name[s];
        if (ruleOfName[name] < 0)
            ruleOfName[name] = costRuleOf(trace.str(name)) != CostRule::None ? 1 : 0;
        return ruleOfName[name] == 0;
    });
    OpCosts costs;
    costs.m_costs.reserve(ops.size());
    // The first warnings in file order, wherever each call's args came from.
    std::vector<std::pair<std::uint64_t, std::string>> firstWarnings;
    const auto count = [&](SliceId s, std::uint32_t cost, const std::string& warning) {
        if (!warning.empty()) {
            ++costs.m_absurdOps;
            const std::uint64_t offset = slices.rawOffset[s];
            if (firstWarnings.size() < kMaxWarnings || offset < firstWarnings.back().first) {
                if (firstWarnings.size() == kMaxWarnings)
                    firstWarnings.pop_back();
                const auto at = std::upper_bound(firstWarnings.begin(), firstWarnings.end(), offset,
                                                 [](std::uint64_t o, const auto& w) { return o < w.first; });
                firstWarnings.emplace(at, offset, std::string(trace.str(slices.name[s])) + ": " + warning);
            }
        }
        costs.m_costs.emplace_back(s, cost);
    };
    const auto costOfArgs = [&](SliceId s, const ShapeArgs& args) {
        costs.m_distinct.push_back(costOf(trace.str(slices.name[s]), args));
        return std::uint32_t(costs.m_distinct.size() - 1);
    };
    const auto firstWarning = [](const ShapeArgs& args) { return args.warnings.empty() ? "" : args.warnings.front(); };

    // Calls whose shape args the loader kept: no text to read.
    std::vector<SliceId> unpooled;
    PooledArgsCosts pooled(trace.shapeArgs().size());
    for (const SliceId s : ops) {
        const std::uint32_t id = s < slices.shapeArgs.size() ? slices.shapeArgs[s] : kNoIndex;
        if (id == kNoIndex) {
            unpooled.push_back(s);
            continue;
        }
        const StringId name = slices.name[s];
        const PooledArgsCosts::Entry* entry = pooled.find(name, id);
        if (!entry) {
            const ShapeArgs args = parseShapeArgs(trace.shapeArgs().view(id));
            entry = &pooled.add(name, id, costOfArgs(s, args), firstWarning(args));
        }
        count(s, entry->cost, entry->warning);
    }

    // The others' texts, read back.
    DistinctArgs distinct;
    trace.forEachEventText(unpooled, [&](SliceId s, std::string_view text) {
        const auto raw = findShapeArgs(text);
        if (!raw) {
            const ShapeArgs args = parseShapeArgs(text);
            count(s, costOfArgs(s, args), firstWarning(args));
            return;
        }
        const StringId name = slices.name[s];
        const std::size_t hash = DistinctArgs::hashOf(name, *raw);
        const DistinctArgs::Entry* entry = distinct.find(name, *raw, hash);
        if (!entry) {
            const ShapeArgs args = parseShapeArgs(*raw);
            entry = &distinct.add(name, *raw, hash, costOfArgs(s, args), firstWarning(args));
        }
        count(s, entry->cost, entry->warning);
    });
    for (auto& [offset, warning] : firstWarnings)
        costs.m_warnings.push_back(std::move(warning));
    std::sort(costs.m_costs.begin(), costs.m_costs.end());
    costs.m_costs.shrink_to_fit();
    costs.m_distinct.shrink_to_fit();
    return costs;
}

const OpCost* OpCosts::find(SliceId op) const
{
    const auto it = std::lower_bound(m_costs.begin(), m_costs.end(), op,
                                     [](const auto& entry, SliceId s) { return entry.first < s; });
    return it != m_costs.end() && it->first == op ? &m_distinct[it->second] : nullptr;
}

std::string_view boundName(Bound bound)
{
    switch (bound) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Unknown: break;
    }
    return "unknown";
}

RowRoofline rooflineOfRow(const OperatorRow& row, const OpCosts& costs, const DevicePeaks& peaks)
{
    RowRoofline out;
    if (row.isDevice || row.isUserAnnotation || row.slices.empty())
        return out;
    std::optional<std::int64_t> flops = 0, bytes = 0;
    std::optional<ElementType> type;
    bool mixedTypes = false;
    for (const SliceId s : row.slices) {
        const OpCost* cost = costs.find(s);
        if (!cost)
            return out;
        out.rule = cost->rule;
        out.composite = cost->composite;
        if (!cost->flops && out.unknownReason.empty())
            out.unknownReason = cost->unknownReason;
        flops = checkedAdd(flops, cost->flops);
        bytes = checkedAdd(bytes, cost->bytes);
        if (type && *type != cost->type)
            mixedTypes = true;
        type = cost->type;
    }
    out.flops = flops;
    out.bytes = bytes;
    if (!mixedTypes)
        out.type = type;
    if (!flops)
        return out;
    // fp32 math on tensor cores is TF32 (the kernels' names tell, gpu::usesTensorCores).
    const bool tensorCores = row.tensorCoreKernels > 0;
    if (out.type)
        out.peakKind = peakKindOf(*out.type, tensorCores);
    const double seconds = double(row.deviceTotal) * 1e-9;
    if (seconds > 0) {
        out.tflopsPerS = double(*flops) / seconds * 1e-12;
        if (bytes)
            out.tbPerS = double(*bytes) / seconds * 1e-12;
        if (out.peakKind) {
            if (const auto peak = peaks.peakTflops(*out.peakKind))
                out.peakFraction = *out.tflopsPerS / *peak;
        }
        if (out.type == ElementType::Fp32) {
            if (const auto peak = peaks.peakTflops(PeakKind::Tf32))
                out.tf32PeakFraction = *out.tflopsPerS / *peak;
        }
    }
    if (bytes && *bytes > 0)
        out.flopsPerByte = double(*flops) / double(*bytes);
    // Under the memory roof while the intensity is left of the ridge (peak FLOP/s / peak B/s).
    const auto peak = out.peakKind ? peaks.peakTflops(*out.peakKind) : std::nullopt;
    if (out.flopsPerByte && peak && peaks.peakTBps())
        out.bound = *out.flopsPerByte >= *peak / *peaks.peakTBps() ? Bound::Compute : Bound::Memory;
    else if (*flops == 0 && bytes && *bytes > 0)
        out.bound = Bound::Memory; // copies and lookups: no math at all
    return out;
}

std::vector<SliceId> kernelsLaunchedBy(const Trace& trace, SliceId op)
{
    const auto& slices = trace.slices();
    const Row& own = trace.rowOf(op);
    const Track& track = trace.tracks()[own.track];
    const TimeNs start = slices.start[op], end = slices.end(op);
    std::vector<SliceId> kernels;
    for (std::uint32_t r = track.rowBegin; r < track.rowEnd; ++r) {
        const Row& row = trace.rows()[r];
        if (row.lane != own.lane || row.depth < own.depth)
            continue;
        for (SliceId s = trace.firstEndingAfter(r, start); s < row.end && slices.start[s] <= end; ++s) {
            if (slices.start[s] < start || slices.end(s) > end)
                continue;
            for (const std::uint32_t f : trace.outgoingFlows(s)) {
                const SliceId to = trace.flows()[f].to;
                if (to != kNoSlice && trace.classOf(to) == SliceClass::Kernel)
                    kernels.push_back(to);
            }
        }
    }
    std::sort(kernels.begin(), kernels.end());
    kernels.erase(std::unique(kernels.begin(), kernels.end()), kernels.end());
    std::sort(kernels.begin(), kernels.end(),
              [&](SliceId a, SliceId b) { return std::pair(slices.start[a], a) < std::pair(slices.start[b], b); });
    return kernels;
}

RowRoofline rooflineOfCall(const Trace& trace, SliceId op, const DevicePeaks& peaks, OperatorRow* rowOut)
{
    OperatorRow row;
    row.name = trace.str(trace.slices().name[op]);
    row.calls = 1;
    row.slices = {op};
    for (const SliceId k : kernelsLaunchedBy(trace, op)) {
        row.deviceTotal += trace.slices().duration[k];
        ++row.kernels;
        row.tensorCoreKernels += gpu::usesTensorCores(trace.str(trace.slices().name[k])) ? 1 : 0;
    }
    const RowRoofline out = rooflineOfRow(row, OpCosts::ofOps(trace, {op}), peaks);
    if (rowOut)
        *rowOut = std::move(row);
    return out;
}

} // namespace ks::analysis
