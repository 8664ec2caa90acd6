#include "core/analysis/diff.h"

#include "core/facts/tracefacts.h"
#include "core/gpu/nvprofsummary.h"
#include "core/gpu/stepbreakdown.h"
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ks::analysis {

namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Inductor names its Triton kernels triton_<kind>_fused_<ops>_<n>: one family per kind, since a
// fused kernel's ops (a layer norm, a GELU and an add at once) name no single eager family.
std::string_view tritonFamily(std::string_view name)
{
    const std::string_view kind = name.substr(7, 4);
    if (kind == "poi_")
        return "Triton pointwise";
    if (kind == "red_" || kind == "per_")
        return "Triton reduction";
    if (kind == "tem_")
        return "GEMM"; // Inductor's templates are matmuls and convolutions (attention is above)
    if (kind == "for_")
        return "Triton foreach";
    return "Triton (other)";
}

// What one side contributes: its window, step count and GPU breakdown.
struct SideData {
    DiffSide side;
    std::shared_ptr<const facts::TraceFacts> facts; // slice kinds and the plugin's step windows
    gpu::StepBreakdown breakdown;
    double perStep = 1.0; // divisor turning window totals into per-step figures
    // The CPU ops counted: those starting in the steps' host ranges. The window above starts
    // where the first step's GPU work does, often after the step's own outer ops began.
    TimeNs opsStart = 0, opsEnd = 0;
};

SideData analyzeSide(const WorkspaceMember& member)
{
    const Trace& trace = *member.trace;
    SideData d;
    d.side.file = member.identity.file;
    d.facts = facts::sharedTraceFacts(member.trace, member.stepRules);
    const auto& windows = d.facts->windows;
    d.breakdown = gpu::computeStepBreakdown(trace, d.facts->kinds, windows);
    const bool hasSteps = d.facts->hasSteps() && !member.steps.empty();
    d.side.steps = hasSteps ? windows.steps.size() : 0;
    d.side.stepsSource = hasSteps ? windows.sourceName : std::string("none");
    d.side.windowStart = hasSteps ? windows.stepsStart : trace.startTime();
    d.side.windowEnd = hasSteps ? windows.stepsEnd : trace.endTime();
    d.opsStart = hasSteps ? windows.steps.front().hostStart : d.side.windowStart;
    d.opsEnd = hasSteps ? windows.steps.back().hostEnd : d.side.windowEnd;
    if (hasSteps) {
        double sum = 0;
        for (const auto& s : member.steps)
            sum += double(s.end - s.start);
        d.side.stepTimeNs = sum / double(member.steps.size());
    } else {
        d.side.stepTimeNs = double(d.side.windowEnd - d.side.windowStart);
    }
    d.perStep = double(std::max<std::size_t>(d.side.steps, 1));
    if (!trace.deviceProperties().empty())
        d.side.device = trace.deviceProperties().front().name;
    return d;
}

// Rows of both sides joined by key, in first-seen order.
class RowJoin {
public:
    DiffRow& at(const std::string& key, const std::string& name, bool isBase)
    {
        auto [it, inserted] = m_index.try_emplace(key, m_rows.size());
        if (inserted) {
            m_rows.emplace_back();
            m_rows.back().name = name;
        }
        DiffRow& row = m_rows[it->second];
        (isBase ? row.basePresent : row.newPresent) = true;
        return row;
    }
    std::vector<DiffRow> sortedByDelta()
    {
        std::stable_sort(m_rows.begin(), m_rows.end(), [](const DiffRow& a, const DiffRow& b) {
            return std::fabs(a.deltaNs()) > std::fabs(b.deltaNs());
        });
        return std::move(m_rows);
    }

private:
    std::map<std::string, std::size_t> m_index;
    std::vector<DiffRow> m_rows;
};

void addKernels(RowJoin& join, const Trace& trace, const SideData& d, bool isBase)
{
    KernelStatsOptions options;
    options.rangeStart = d.side.windowStart;
    options.rangeEnd = d.side.windowEnd;
    for (KernelRow& k : computeKernelStats(trace, options)) {
        DiffRow& row = join.at(k.name, k.name, isBase);
        (isBase ? row.baseSlices : row.newSlices) = std::move(k.slices);
        (isBase ? row.baseCount : row.newCount) += k.calls;
        (isBase ? row.baseNs : row.newNs) += double(k.total) / d.perStep;
    }
}

void addOps(RowJoin& join, const SideData& d, bool isBase, const DiffOptions& diffOptions)
{
    OperatorTableOptions options;
    options.groupByInputShapes = diffOptions.groupOpsByInputShapes;
    options.rangeStart = d.opsStart;
    options.rangeEnd = d.opsEnd;
    for (OperatorRow& op : computeOperatorTable(*d.facts, options).rows) {
        if (op.isDevice)
            continue;
        DiffRow& row = join.at(op.name + '\0' + op.inputShapes, op.name, isBase);
        (isBase ? row.baseSlices : row.newSlices) = std::move(op.slices);
        row.detail = op.inputShapes;
        (isBase ? row.baseCount : row.newCount) += op.calls;
        (isBase ? row.baseNs : row.newNs) += double(op.selfCpu) / d.perStep;
        (isBase ? row.baseTotalCpuNs : row.newTotalCpuNs) += double(op.cpuTotal) / d.perStep;
        (isBase ? row.baseDeviceNs : row.newDeviceNs) += double(op.deviceTotal) / d.perStep;
    }
}

void addCopies(RowJoin& join, const Trace& trace, const SideData& d, bool isBase)
{
    const auto& slices = trace.slices();
    for (SliceId s = 0; s < slices.size(); ++s) {
        const facts::PluginKind kind = d.facts->kinds[s];
        const bool copy = kind == facts::PluginKind::Memcpy;
        if ((!copy && kind != facts::PluginKind::Memset) || slices.start[s] < d.side.windowStart
            || slices.start[s] >= d.side.windowEnd)
            continue;
        const std::string name = copy ? gpu::nvprofMemcpyName(trace.str(slices.name[s])) : "[CUDA memset]";
        DiffRow& row = join.at(name, name, isBase);
        (isBase ? row.baseSlices : row.newSlices).push_back(s);
        ++(isBase ? row.baseCount : row.newCount);
        (isBase ? row.baseNs : row.newNs) += double(slices.duration[s]) / d.perStep;
        const GpuOpInfo* info = trace.gpuOpInfo(s);
        std::int64_t& bytes = isBase ? row.baseBytes : row.newBytes;
        if (info && info->bytes >= 0)
            bytes = std::max<std::int64_t>(bytes, 0) + std::llround(double(info->bytes) / d.perStep);
    }
}

std::vector<DiffRow> familiesOf(const std::vector<DiffRow>& kernels)
{
    RowJoin join;
    std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> names;
    for (const DiffRow& k : kernels) {
        const std::string family = kernelFamily(k.name);
        for (bool isBase : {true, false}) {
            if (!(isBase ? k.basePresent : k.newPresent))
                continue;
            DiffRow& row = join.at(family, family, isBase);
            (isBase ? row.baseCount : row.newCount) += isBase ? k.baseCount : k.newCount;
            (isBase ? row.baseNs : row.newNs) += isBase ? k.baseNs : k.newNs;
            const auto& slices = isBase ? k.baseSlices : k.newSlices;
            auto& into = isBase ? row.baseSlices : row.newSlices;
            into.insert(into.end(), slices.begin(), slices.end());
            (isBase ? names[family].first : names[family].second).insert(k.name);
        }
    }
    auto rows = join.sortedByDelta();
    for (DiffRow& row : rows) {
        const auto& [base, neu] = names[row.name];
        row.detail = std::to_string(base.size()) + " \xE2\x86\x92 " + std::to_string(neu.size()) + " kernel names";
    }
    return rows;
}

std::string signedDuration(double ns)
{
    const std::string magnitude = formatDuration(static_cast<TimeNs>(std::llround(std::fabs(ns))));
    return (ns < 0 ? "\xE2\x88\x92" : "+") + magnitude;
}

std::string contributionName(const DiffRow& row, bool isFamily)
{
    if (isFamily)
        return row.name + " kernels";
    if (row.name.starts_with("[CUDA ") && row.name.ends_with("]"))
        return row.name.substr(6, row.name.size() - 7);
    return row.name;
}

std::string summarize(const DiffReport& r)
{
    struct Contribution {
        std::string name;
        double deltaNs;
    };
    std::vector<Contribution> all;
    for (const auto& row : r.kernelFamilies)
        all.push_back({contributionName(row, true), row.deltaNs()});
    for (const auto& row : r.memcpy)
        all.push_back({contributionName(row, false), row.deltaNs()});
    for (const auto& row : r.ops) {
        if (row.name.starts_with("cuda") || row.name.starts_with("cu")) // runtime/driver calls: syncs, copies
            all.push_back({row.name, row.deltaNs()});
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const auto& a, const auto& b) { return std::fabs(a.deltaNs) > std::fabs(b.deltaNs); });
    std::string text = (r.base.steps && r.neu.steps ? "step time " : "span ")
        + formatDuration(TimeNs(std::llround(r.base.stepTimeNs))) + " \xE2\x86\x92 "
        + formatDuration(TimeNs(std::llround(r.neu.stepTimeNs)));
    if (r.speedup > 0) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (%.2f\xC3\x97 %s)", r.speedup >= 1 ? r.speedup : 1.0 / r.speedup,
                      r.speedup >= 1 ? "faster" : "slower");
        text += buf;
    }
    for (std::size_t i = 0; i < std::min<std::size_t>(3, all.size()); ++i)
        text += (i == 0 ? "; " : ", ") + all[i].name + " " + signedDuration(all[i].deltaNs) + "/step";
    return text;
}

} // namespace

double DiffRow::deltaPercent() const { return baseNs != 0 ? 100.0 * (newNs - baseNs) / baseNs : 0.0; }

double DiffReport::meanPerCallNs(const DiffRow& row, bool baseSide) const
{
    const std::uint64_t count = baseSide ? row.baseCount : row.newCount;
    const double steps = double(std::max<std::size_t>(baseSide ? base.steps : neu.steps, 1));
    return count ? (baseSide ? row.baseNs : row.newNs) * steps / double(count) : 0.0;
}

std::string kernelFamily(std::string_view name)
{
    if (name.starts_with("ncclDevKernel_") || name.starts_with("ncclKernel_"))
        return "NCCL";
    if (contains(name, "sdpa") || contains(name, "flash") || contains(name, "fmha") || contains(name, "attention")
        || contains(name, "cudnn::fusion"))
        return "attention (SDPA/flash)";
    if (name.starts_with("triton_"))
        return std::string(tritonFamily(name));
    if (contains(name, "gemm") || contains(name, "gemv") || name.starts_with("nvjet") || contains(name, "splitKreduce"))
        return "GEMM";
    if (contains(name, "softmax"))
        return "softmax";
    if (contains(name, "elementwise_kernel"))
        return "elementwise";
    if (contains(name, "reduce_kernel"))
        return "reduce";
    if (contains(name, "layer_norm") || contains(name, "GammaBeta"))
        return "layer norm";
    if (contains(name, "multi_tensor_apply"))
        return "optimizer (multi-tensor)";
    // Otherwise the name without its template and argument lists.
    if (name.starts_with("void "))
        name.remove_prefix(5);
    return std::string(name.substr(0, name.find_first_of("<(")));
}

DiffReport diffTraces(const WorkspaceMember& base, const WorkspaceMember& neu, const DiffOptions& options)
{
    DiffReport r;
    const SideData b = analyzeSide(base), n = analyzeSide(neu);
    r.base = b.side;
    r.neu = n.side;
    if (r.neu.stepTimeNs > 0)
        r.speedup = r.base.stepTimeNs / r.neu.stepTimeNs;

    const bool communication = b.breakdown.hasCommunication || n.breakdown.hasCommunication;
    for (std::size_t role = 0; role < gpu::kStepRoleCount; ++role) {
        if (gpu::StepRole(role) == gpu::StepRole::Communication && !communication)
            continue;
        DiffRow row;
        row.name = std::string(gpu::stepRoleName(gpu::StepRole(role)));
        row.basePresent = row.newPresent = true;
        row.baseNs = b.breakdown.average.parts[role];
        row.newNs = n.breakdown.average.parts[role];
        r.categories.push_back(std::move(row));
    }

    RowJoin kernels, ops, copies;
    addKernels(kernels, *base.trace, b, true);
    addKernels(kernels, *neu.trace, n, false);
    r.kernels = kernels.sortedByDelta();
    r.kernelFamilies = familiesOf(r.kernels);
    if (options.kernelFamilies)
        std::swap(r.kernels, r.kernelFamilies);
    addOps(ops, b, true, options);
    addOps(ops, n, false, options);
    r.ops = ops.sortedByDelta();
    addCopies(copies, *base.trace, b, true);
    addCopies(copies, *neu.trace, n, false);
    r.memcpy = copies.sortedByDelta();

    for (const auto* side : {&r.base, &r.neu}) {
        if (side->steps == 0)
            r.notes.push_back(std::string(side == &r.base ? "BASE" : "NEW")
                              + " has no steps: its whole span is compared as one step");
    }
    if (!r.base.device.empty() && !r.neu.device.empty() && r.base.device != r.neu.device)
        r.notes.push_back("the runs used different GPUs: BASE " + r.base.device + ", NEW " + r.neu.device);
    if (options.kernelFamilies)
        std::swap(r.kernels, r.kernelFamilies); // the summary always speaks of families
    r.summary = summarize(r);
    if (options.kernelFamilies)
        std::swap(r.kernels, r.kernelFamilies);
    return r;
}

LoadedDiff loadDiffPair(const std::string& basePath, const std::string& newPath, MultiLoadProgress* progress,
                        const facts::StepRules& stepRules)
{
    LoadedDiff out;
    auto results = loadTraceFiles({basePath, newPath}, progress, 2);
    const char* sides[] = {"BASE", "NEW"};
    const std::string* paths[] = {&basePath, &newPath};
    for (int i = 0; i < 2; ++i) {
        const LoadResult& r = results[i];
        std::string why;
        if (r.cancelled)
            why = "loading was cancelled";
        else if (!r.ok())
            why = r.fatal ? r.fatal->located() : "could not be loaded";
        else if (r.trace->slices().size() == 0)
            why = "no events";
        if (!why.empty()) {
            out.error = std::string(sides[i]) + " " + *paths[i] + ": " + why;
            return out;
        }
    }
    out.workspace = diffWorkspace(results[0].trace, basePath, results[1].trace, newPath, stepRules);
    return out;
}

DiffSides::DiffSides(const Workspace& pair, int baseRank, int newRank)
{
    const int rankOf[] = {baseRank, newRank};
    for (std::size_t i = 0; i < 2; ++i) {
        const WorkspaceMember& whole = pair.members()[i];
        m_sides[i] = &whole;
        if (rankOf[i] < 0)
            continue;
        m_ranks[i] = Workspace(pair.stepRules());
        m_ranks[i].add(whole.trace, whole.identity.file);
        m_sides[i] = m_ranks[i].memberOfRank(rankOf[i]);
        if (!m_sides[i] && !m_error)
            m_error = std::string(i == 0 ? "BASE " : "NEW ") + whole.identity.file + " has no rank "
                + std::to_string(rankOf[i]) + " (its ranks: " + m_ranks[i].rankList() + ")";
    }
}

Workspace diffWorkspace(std::shared_ptr<const Trace> base, const std::string& basePath,
                        std::shared_ptr<const Trace> neu, const std::string& newPath, const facts::StepRules& stepRules)
{
    Workspace workspace(stepRules);
    workspace.add(std::move(base), basePath, false);
    workspace.add(std::move(neu), newPath, false);
    workspace.alignAtStep();
    return workspace;
}

} // namespace ks::analysis
