#include "core/analysis/calltreefolded.h"

#include "core/model/saturating.h"

namespace ks::analysis {

std::string foldedFrame(std::string_view name)
{
    std::string out(name);
    for (char& c : out) {
        if (c == ';')
            c = ':';
        else if (c == '\n' || c == '\r')
            c = ' ';
    }
    return out;
}

TimeNs foldedValue(const CallTree& tree, std::uint32_t node, FoldedTime time)
{
    const auto& self = time == FoldedTime::Cpu ? tree.cpuSelf : tree.gpuSelf;
    const auto& total = time == FoldedTime::Cpu ? tree.cpuTotal : tree.gpuTotal;
    if (!tree.bottomUp) {
        if (time == FoldedTime::Gpu && tree.gpuFrames)
            return tree.kind[node] == CallFrameKind::Gpu ? self[node] : 0;
        return self[node];
    }
    TimeNs value = total[node];
    for (std::uint32_t c = tree.firstChild[node]; c != CallTree::kNone; c = tree.nextSibling[c])
        value = saturatingSubtract(value, total[c]);
    return value;
}

TimeNs writeFoldedStacks(const Trace& trace, const CallTree& tree, FoldedTime time, std::ostream& out)
{
    TimeNs sum = 0;
    std::string stack;
    // Depth first without recursion: each entry is a node and the stack text's length before it.
    std::vector<std::pair<std::uint32_t, std::size_t>> pending;
    for (std::uint32_t c = tree.firstChild[CallTree::kRoot]; c != CallTree::kNone; c = tree.nextSibling[c])
        pending.emplace_back(c, 0);
    while (!pending.empty()) {
        const auto [node, length] = pending.back();
        pending.pop_back();
        stack.resize(length);
        if (length > 0)
            stack += ';';
        stack += foldedFrame(callFrameLabel(trace, tree, node));
        if (const TimeNs value = foldedValue(tree, node, time); value > 0) {
            out << stack << ' ' << value << '\n';
            sum = saturatingAdd(sum, value);
        }
        for (std::uint32_t c = tree.firstChild[node]; c != CallTree::kNone; c = tree.nextSibling[c])
            pending.emplace_back(c, stack.size());
    }
    return sum;
}

} // namespace ks::analysis
