#pragma once
// The collapsed-stack ("folded") text of a call tree that flamegraph.pl, inferno and
// speedscope read: one line per stack, frames joined by ';', a space, then the stack's own
// time in ns. Frames never contain ';' or line breaks (replaced by ':' and ' ').
#include "core/analysis/calltree.h"

#include <ostream>
#include <string>

namespace ks::analysis {

enum class FoldedTime : std::uint8_t { Cpu, Gpu };

// The time a node adds on its own, the value of its folded line: top-down, its self time
// (GPU: only the Gpu leaves' when the tree has them); bottom-up, its total less its children's.
TimeNs foldedValue(const CallTree& tree, std::uint32_t node, FoldedTime time);

// Writes one line per node with a non-zero folded value, depth first. Returns the lines' sum.
TimeNs writeFoldedStacks(const Trace& trace, const CallTree& tree, FoldedTime time, std::ostream& out);

// A frame name made safe for the folded format.
std::string foldedFrame(std::string_view name);

} // namespace ks::analysis
