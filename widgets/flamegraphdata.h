#pragma once
// What the flame graph and the call tree view show of a CallTree or a CallTreeDiff: labels,
// children in display order (widest first) and the numbers of each node. Built off the GUI
// thread, then shared read-only by the views.
#include "core/analysis/calltree.h"
#include "core/analysis/calltreediff.h"

#include <QString>

#include <memory>
#include <vector>

namespace ks {

struct FlameGraphData {
    static constexpr std::uint32_t kRoot = 0;
    static constexpr std::uint32_t kNone = analysis::CallTree::kNone;

    bool isDiff = false;
    bool bottomUp = false;
    analysis::FoldedTime time = analysis::FoldedTime::Cpu;
    std::vector<std::uint32_t> parent;
    std::vector<std::uint32_t> childBegin; // children of n: childList[childBegin[n] .. childBegin[n + 1])
    std::vector<std::uint32_t> childList;
    std::vector<std::uint32_t> row; // index among its parent's children
    std::vector<QString> label;
    std::vector<analysis::CallFrameKind> kind;
    // Width: the chosen time (a diff: NEW's per step, or BASE's for a vanished node), widened
    // where the children need more (a vanished child inside a node of NEW).
    std::vector<double> width;
    // A tree: calls, CPU total/self, GPU total/self. A diff: BASE and NEW per step.
    std::vector<quint64> calls;
    std::vector<double> cpuTotal, cpuSelf, gpuTotal, gpuSelf;
    std::vector<double> base, next;
    std::vector<std::uint32_t> sourceNode; // the CallTree node (a tree), for its occurrences

    std::size_t size() const { return parent.size(); }
    std::size_t childCount(std::uint32_t n) const { return childBegin[n + 1] - childBegin[n]; }
    std::uint32_t child(std::uint32_t n, std::size_t i) const { return childList[childBegin[n] + i]; }
    bool vanished(std::uint32_t n) const { return isDiff && next[n] <= 0 && base[n] > 0; }
    // NEW over BASE minus 1 (diff only; +inf when it appeared).
    double change(std::uint32_t n) const;
    // The tooltip text of a node.
    QString describe(std::uint32_t n) const;
};

std::shared_ptr<const FlameGraphData> makeFlameGraphData(const Trace& trace, const analysis::CallTree& tree,
                                                         analysis::FoldedTime time);
std::shared_ptr<const FlameGraphData> makeFlameGraphData(const analysis::CallTreeDiff& diff);

} // namespace ks
