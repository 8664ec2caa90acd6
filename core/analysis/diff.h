#pragma once
// Before/after comparison of two traces (issue 12): step time, the step-time breakdown per
// category, operators, kernels (by name or by family) and memcpy/memset kinds, each BASE /
// NEW / Δ, plus a one-line summary of the largest contributions.
//
// Everything is counted inside each side's steps window (the TensorBoard plugin's [S, E],
// which covers the GPU work of the steps) and times are averages per step, so runs with
// different step counts compare; counts are totals inside the window. Steps are ProfilerStep#N,
// else what facts::StepFinder finds; without steps the whole spans are compared (one "step"
// each) and the notes say so.
#include "core/analysis/workspace.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::analysis {

struct DiffSide {
    std::string file;
    std::size_t steps = 0; // steps in the window; 0: whole span compared
    std::string stepsSource = "none"; // the rule that found them (facts::FoundSteps::sourceName)
    double stepTimeNs = 0; // mean step duration (the span when no steps)
    TimeNs windowStart = 0, windowEnd = 0;
    std::string device; // first GPU's name, "" if unknown
};

// One row of a diff table. A side that lacks the row has count 0 and present false.
struct DiffRow {
    std::string name;
    std::string detail; // ops: input shapes when grouped by shape; families: member count
    bool basePresent = false, newPresent = false;
    std::uint64_t baseCount = 0, newCount = 0; // calls / kernel launches / copies (window totals)
    double baseNs = 0, newNs = 0; // per step: kernel total, op self CPU, copy time
    // Ops only (per step): CPU total and device time.
    double baseTotalCpuNs = 0, newTotalCpuNs = 0;
    double baseDeviceNs = 0, newDeviceNs = 0;
    std::int64_t baseBytes = -1, newBytes = -1; // memcpy/memset kinds: bytes per step
    // The occurrences counted on each side (to highlight them on the timelines); none for categories.
    std::vector<SliceId> baseSlices, newSlices;

    double deltaNs() const { return newNs - baseNs; }
    double deltaPercent() const; // of base; 0 when base is 0
};

struct DiffOptions {
    bool groupOpsByInputShapes = false;
    bool kernelFamilies = false; // kernels grouped by family instead of full name
};

struct DiffReport {
    DiffSide base, neu;
    double speedup = 0; // base step time / new step time; 0 when unknown
    std::vector<DiffRow> categories; // the step breakdown's roles, in their order
    std::vector<DiffRow> kernels; // sorted by |Δ|
    std::vector<DiffRow> kernelFamilies; // always computed, sorted by |Δ|
    std::vector<DiffRow> ops; // CPU-side rows of the operator table, sorted by |Δ| self CPU
    std::vector<DiffRow> memcpy; // "[CUDA memcpy HtoD]", "[CUDA memset]", sorted by |Δ|
    std::vector<std::string> notes; // no steps, devices differ, ...
    std::string summary; // "step time 12.29 ms → 7.16 ms (1.72× faster); GEMM kernels −3.47 ms/step, ..."

    // Mean duration per call of a row's kernel/copy (its per-step time back to a window total).
    double meanPerCallNs(const DiffRow& row, bool baseSide) const;
};

// The family of a kernel: names that differ only in template or tile parameters share it
// ("GEMM" for sgemm/xmma/cutlass/nvjet, "attention (SDPA/flash)", "elementwise", ...).
std::string kernelFamily(std::string_view kernelName);

// Each side counts per step by its member's steps (WorkspaceMember::stepRules).
DiffReport diffTraces(const WorkspaceMember& base, const WorkspaceMember& neu, const DiffOptions& options = {});

// BASE and NEW as `diff --base-rank/--new-rank` pick them from `pair` (diffWorkspace's): the
// whole trace of a side, or (rank >= 0) rank N of a merged collected file, split off as the
// Ranks dock splits it. The sides point into `pair` or into the ranks held here (not copyable).
class DiffSides {
public:
    DiffSides(const Workspace& pair, int baseRank, int newRank);
    DiffSides(const DiffSides&) = delete;
    DiffSides& operator=(const DiffSides&) = delete;
    // Null when `error` says which side lacks its rank ("NEW run.json has no rank 3 (its ranks: 0, 1)").
    const WorkspaceMember* base() const { return m_sides[0]; }
    const WorkspaceMember* neu() const { return m_sides[1]; }
    const std::optional<std::string>& error() const { return m_error; }

private:
    Workspace m_ranks[2];
    const WorkspaceMember* m_sides[2] = {};
    std::optional<std::string> m_error;
};

// Loads BASE and NEW in parallel; on failure, the error names the side ("BASE file.json: ...").
struct LoadedDiff {
    Workspace workspace; // member 0 BASE, member 1 NEW, aligned at the first common step
    std::optional<std::string> error;
};
// Two loaded traces as loadDiffPair pairs them: member 0 BASE, member 1 NEW, aligned at the
// first common step.
Workspace diffWorkspace(std::shared_ptr<const Trace> base, const std::string& basePath,
                        std::shared_ptr<const Trace> neu, const std::string& newPath,
                        const facts::StepRules& stepRules = {});
LoadedDiff loadDiffPair(const std::string& basePath, const std::string& newPath, MultiLoadProgress* progress = nullptr,
                        const facts::StepRules& stepRules = {});

} // namespace ks::analysis
