#pragma once
// A diff of two call trees (BASE and NEW of a comparison): one merged tree whose nodes are
// the call paths of either, matched by frame label, with each side's time per step (issue
// 38's diff flame graph: width by NEW, colour by the change, vanished paths shown with BASE's
// width). Frames are matched by text, so the trees may come from different traces.
#include "core/analysis/calltree.h"
#include "core/analysis/calltreefolded.h"

#include <string>
#include <vector>

namespace ks::analysis {

struct CallTreeDiff {
    static constexpr std::uint32_t kRoot = 0;

    std::vector<std::uint32_t> parent; // CallTree::kNone for the root
    std::vector<std::uint32_t> firstChild, nextSibling; // CallTree::kNone at the end
    std::vector<std::string> label; // callFrameLabel of either side
    std::vector<CallFrameKind> kind;
    // Total time per step (CPU or GPU, as asked), ns; 0 where that side lacks the path.
    std::vector<double> base, next;
    FoldedTime time = FoldedTime::Cpu;

    std::size_t size() const { return parent.size(); }
    bool vanished(std::uint32_t n) const { return next[n] <= 0 && base[n] > 0; }
    bool appeared(std::uint32_t n) const { return base[n] <= 0 && next[n] > 0; }
    // NEW over BASE minus 1 (-1: vanished; +inf: appeared; 0: neither has time).
    double change(std::uint32_t n) const;
};

// Merges BASE's and NEW's trees (both top-down or both bottom-up). Times are per step: each
// tree's totals over its stepCount.
CallTreeDiff diffCallTrees(const Trace& baseTrace, const CallTree& base, const Trace& newTrace, const CallTree& next,
                           FoldedTime time);

} // namespace ks::analysis
