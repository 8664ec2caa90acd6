#pragma once
// What-ifs for the critical path: scale the time of matching ops, kernels, a kernel family, a
// whole category or chosen events by a factor (0 removes, 0.5 halves), then re-solve.
#include "core/analysis/criticalpathbuilder.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace ks::analysis {

struct WhatIf {
    enum class Target : std::uint8_t {
        Op, // CPU ops (and annotations) whose name matches, with everything they do on their thread
        Kernel, // GPU ops (kernels, copies, memsets) whose name matches
        Family, // kernels of a family (kernelFamily(), e.g. "GEMM")
        Category, // every segment of a breakdown category ("sync_wait", "gpu_idle", ...)
        Events, // the chosen slices
    };
    Target target = Target::Kernel;
    std::string pattern; // regex (op, kernel; searched in the name), family or category name
    double factor = 1.0;
    std::vector<PathItem> events; // Target::Events

    // "kernel:sgemm=0.5", the syntax parse() reads.
    std::string text() const;
    // "kernel:REGEX=F", "op:REGEX=F", "family:NAME=F", "category:NAME=F" (F finite, >= 0).
    // nullopt and a one-line reason on bad input.
    static std::optional<WhatIf> parse(const std::string& text, std::string& error);
};

// Per-edge factors of a set of what-ifs (they multiply where several apply).
class WhatIfScaler {
public:
    explicit WhatIfScaler(std::vector<WhatIf> whatIfs);
    bool empty() const { return m_whatIfs.empty(); }
    std::vector<float> factors(const CriticalPathGraph& graph, const std::vector<PathMember>& members) const;

private:
    bool matches(std::size_t w, const CriticalPathGraph& graph, const std::vector<PathMember>& members,
                 std::uint32_t edge, std::vector<std::int8_t>& opMemo) const;

    std::vector<WhatIf> m_whatIfs;
    std::vector<std::optional<std::regex>> m_regex;
};

} // namespace ks::analysis
