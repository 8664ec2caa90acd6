#pragma once
// Call trees: where the CPU and GPU time of a range goes by call path (issue 38).
//
// The top-down tree merges every occurrence of a call path (CPU ops, record_function ranges,
// runtime/driver calls, optionally Python frames or only nn.Module frames) of the chosen
// threads into one node per distinct path. Every kernel, memcpy and memset is credited to the
// node of the op that launched it (facts.links: GPU op -> runtime call -> op with its External
// id, the operator table's rule; a CUDA graph launch credits each of its N kernels), so the
// self GPU of a node is torch's "Self CUDA" of those occurrences. The bottom-up tree
// (invertCallTree) lists each frame's self time by the paths that called it.
//
// Nodes are compact parallel arrays (parent, first child, next sibling, name id) indexed by
// node; a child always has a larger index than its parent. Nesting follows the operator
// table's (per thread, by (start, -end)), so per op name the self CPU and self GPU sums equal
// its rows. Occurrences are counted when they start in the range.
#include "core/model/trace.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ks::facts {
struct TraceFacts;
}

namespace ks::analysis {

enum class CallFrameKind : std::uint8_t {
    Root, // the whole range (no name)
    Op, // cpu_op
    Annotation, // record_function range (user_annotation)
    Step, // a ProfilerStep#N range: every step is one frame, "ProfilerStep*" (torch's key)
    Runtime, // cuda_runtime / cuda_driver call
    Python, // python_function frame (nn.Module frames too)
    Gpu, // a kernel, memcpy or memset under the node that launched it (gpuFrames)
    Unattributed, // GPU work whose launching op is unknown (missing flow) or outside the tree
};

struct CallTreeOptions {
    // Occurrences that start in [rangeStart, rangeEnd) count; GPU work that starts there.
    TimeNs rangeStart = std::numeric_limits<TimeNs>::min();
    TimeNs rangeEnd = std::numeric_limits<TimeNs>::max();
    std::vector<std::uint32_t> tracks; // CPU threads (track indices); empty: all of them
    bool python = false; // python_function frames (with_stack=True)
    bool modulesOnly = false; // of those, only the "nn.Module: ..." frames (with_modules=True)
    bool gpuFrames = false; // a leaf per kernel/memcpy/memset name under its launching node
};

// What could not be nested or linked: counted, the rest of the tree is still built.
struct CallTreeProblems {
    std::uint64_t unbalanced = 0; // events that overlap an enclosing one partially
    std::uint64_t gpuWithoutLaunch = 0; // GPU ops with no runtime call (missing flow)
    std::uint64_t gpuWithoutOp = 0; // GPU ops whose launch has no op in the tree
};

struct CallTree {
    static constexpr std::uint32_t kRoot = 0;
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

    // Per node.
    std::vector<std::uint32_t> parent; // kNone for the root
    std::vector<std::uint32_t> firstChild; // kNone for a leaf
    std::vector<std::uint32_t> nextSibling; // kNone for the last child
    std::vector<StringId> name; // in the trace's string pool (kEmptyString for Root/Unattributed)
    std::vector<CallFrameKind> kind;
    std::vector<std::uint64_t> calls;
    std::vector<TimeNs> cpuTotal, cpuSelf; // wall time of the occurrences; minus their children's
    // Self GPU: the GPU work the node's occurrences launched themselves (a Gpu leaf: its own
    // time); total: the node's and its descendants'. A Gpu leaf's time is also in its
    // launching node's self GPU, so totals never add it twice.
    std::vector<TimeNs> gpuTotal, gpuSelf;

    // (slice, node) of every occurrence counted (GPU ops under Gpu and Unattributed nodes),
    // for "select the node's occurrences on the timeline".
    std::vector<std::pair<SliceId, std::uint32_t>> occurrences;

    CallTreeProblems problems;
    bool gpuFrames = false;
    bool bottomUp = false;
    std::size_t stepCount = 1; // steps in the range, for per-step figures (at least 1)

    std::size_t size() const { return parent.size(); }
    std::uint32_t depthOf(std::uint32_t node) const;
    // Slices counted in the node (a bottom-up node has none of its own: see topDownNodes).
    std::vector<SliceId> occurrencesOf(std::uint32_t node) const;
    // The child of `node` named `frameName` of kind `frameKind`, made when missing.
    std::uint32_t childOf(std::uint32_t node, StringId frameName, CallFrameKind frameKind);
    std::uint32_t addRoot();

private:
    void growIndex();
    std::vector<std::uint32_t> m_childIndex; // open addressing by (parent, name, kind): node + 1
};

// The top-down tree of the range, threads and frames of `options`.
CallTree buildCallTree(const facts::TraceFacts& facts, const CallTreeOptions& options = {});

// The bottom-up tree: its first level is every frame with self time (CPU or GPU), its
// children the frames that called it, and so on up to the top of the stack. A node's totals
// are the self times of the top-down nodes at the end of its path; only the first level has
// self times. With Gpu leaves the GPU time is theirs only (the launching op's is not added).
CallTree invertCallTree(const CallTree& topDown);

// The top-down nodes whose path ends with the bottom-up node's path (for their occurrences).
std::vector<std::uint32_t> topDownNodesOf(const CallTree& topDown, const CallTree& bottomUp, std::uint32_t node);

// A node's frame as shown and written: the name, "[gpu] NAME" for a Gpu leaf, "[no launching
// op]" for unattributed GPU work, "ProfilerStep*" for the steps, "all" for the root.
std::string callFrameLabel(const Trace& trace, const CallTree& tree, std::uint32_t node);

} // namespace ks::analysis
