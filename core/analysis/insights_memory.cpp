// Memory findings: memory-growth (allocations made in a step and never freed, by the same op
// step after step: a leak that ends in out-of-memory).
#include "core/analysis/insights_detectors.h"
#include "core/analysis/memoryreport.h"

#include <algorithm>
#include <map>

namespace ks::analysis::detail {

namespace {

// What one op left behind on one device: bytes per step, and its allocations as evidence.
struct Retained {
    std::vector<std::int64_t> bytesPerStep;
    std::vector<SliceId> ops;
    int steps() const
    {
        return int(std::count_if(bytesPerStep.begin(), bytesPerStep.end(), [](std::int64_t b) { return b > 0; }));
    }
};

std::string megabytes(double bytes) { return printfString("%.3g MB", bytes / 1e6); }

} // namespace

std::optional<Insight> detectMemoryGrowth(const InsightContext& context)
{
    const auto& steps = context.facts.windows.steps;
    if (steps.size() < 2 || context.facts.memory.empty())
        return std::nullopt;
    const MemoryReport report = makeMemoryReport(context.facts);
    const Trace& trace = context.trace;
    const DeviceMemory* worstDevice = nullptr;
    std::map<std::string, Retained> worst; // by op name, of the device that grows most
    std::int64_t worstBytes = 0;
    for (const DeviceMemory& device : report.devices) {
        std::map<std::string, Retained> byOp;
        for (const Allocation& a : device.allocations) {
            if (a.ended())
                continue;
            const int step = context.facts.hostStepOf(a.time, a.time);
            if (step < 0)
                continue;
            const std::string name(allocationOpName(trace, a.op));
            Retained& r = byOp[name];
            r.bytesPerStep.resize(steps.size());
            r.bytesPerStep[std::size_t(step)] += a.bytes;
            if (a.op != kNoSlice)
                r.ops.push_back(a.op);
        }
        // An op that keeps memory in one step only is a cache, optimizer state or the last
        // step's gradients; growth is the same op keeping more step after step.
        std::erase_if(byOp, [](const auto& entry) { return entry.second.steps() < thresholds::kMemoryGrowthMinSteps; });
        std::int64_t grown = 0;
        for (const auto& [name, r] : byOp) {
            for (const std::int64_t b : r.bytesPerStep)
                grown += b;
        }
        if (grown >= thresholds::kMemoryGrowthMinBytes && grown > worstBytes) {
            worstBytes = grown;
            worstDevice = &device;
            worst = std::move(byOp);
        }
    }
    if (!worstDevice)
        return std::nullopt;
    std::vector<std::pair<std::int64_t, std::string>> ops; // bytes, name: largest first
    int growingSteps = 0;
    for (const auto& [name, r] : worst) {
        std::int64_t bytes = 0;
        for (const std::int64_t b : r.bytesPerStep)
            bytes += b;
        ops.emplace_back(bytes, name);
        growingSteps = std::max(growingSteps, r.steps());
    }
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Insight insight;
    insight.id = "memory-growth";
    for (const auto& [name, r] : worst) {
        for (const SliceId op : r.ops)
            insight.evidence.push_back(evidenceFor(context.facts, op));
    }
    std::sort(insight.evidence.begin(), insight.evidence.end(),
              [](const Evidence& a, const Evidence& b) { return a.start < b.start; });
    const double perStep = double(worstBytes) / double(growingSteps);
    insight.severity = perStep >= thresholds::kMemoryGrowthHighShareOfPeak * double(worstDevice->peakAllocated)
        ? Severity::High
        : Severity::Medium;
    std::string names;
    for (std::size_t k = 0; k < ops.size() && k < 3; ++k)
        names += (k ? ", " : "") + ops[k].second;
    insight.title = printfString("%s grows by %s per step, never freed (%s)", worstDevice->name.c_str(),
                                 megabytes(perStep).c_str(), names.c_str());
    insight.explanation = "Memory allocated in one step is still allocated at the end of the trace, and the same ops "
                          "leave more behind step after step: at this rate the run ends in out-of-memory. Usual "
                          "causes are tensors kept across steps (appending the loss or outputs to a list without "
                          ".item() or .detach(), a growing cache, hooks that store activations).";
    insight.advice =
        "Look at the ops in the evidence and what keeps their outputs alive: store loss.item() "
        "instead of loss, detach() what is kept for logging, clear caches each step. The Memory dock lists "
        "what is alive at any time you pick, with the op and stack that allocated it.";
    insight.figures = {{"bytes_per_step", perStep}, {"steps", double(growingSteps)}, {"bytes", double(worstBytes)}};
    return insight;
}

} // namespace ks::analysis::detail
