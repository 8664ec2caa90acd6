#include "core/analysis/calltree.h"

#include "core/facts/tracefacts.h"
#include "core/model/saturating.h"
#include "core/stats/operatortable.h"

#include <algorithm>
#include <tuple>

namespace ks::analysis {

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";
constexpr std::string_view kStepPrefix = "ProfilerStep#";

std::uint64_t mix(std::uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

std::uint64_t childHash(std::uint32_t parent, StringId name, CallFrameKind kind)
{
    return mix((std::uint64_t(parent) << 32 | name) * 8 + std::uint64_t(kind));
}

bool isGpuActivity(SliceClass c)
{
    return c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset;
}

// Builds the top-down tree one thread at a time: the thread's frames in torch's order
// (start, -end, id) nested with a stack, as the operator table nests them.
class CallTreeBuilder {
public:
    CallTreeBuilder(const facts::TraceFacts& facts, const CallTreeOptions& options)
        : m_facts(facts)
        , m_trace(*facts.trace)
        , m_options(options)
    {
    }

    CallTree build()
    {
        m_tree.gpuFrames = m_options.gpuFrames;
        m_tree.addRoot();
        m_frameKind.assign(m_trace.strings().size(), kUndecided);
        placeOverheads();
        if (m_options.tracks.empty()) {
            for (std::uint32_t t = 0; t < m_trace.tracks().size(); ++t)
                nestThread(t);
        } else {
            for (const std::uint32_t t : m_options.tracks) {
                if (t < m_trace.tracks().size())
                    nestThread(t);
            }
        }
        m_events = {};
        creditGpuWork();
        sumTotals();
        countSteps();
        return std::move(m_tree);
    }

private:
    static constexpr std::uint8_t kUndecided = 0xff, kSkipped = 0xfe;

    struct Frame {
        std::uint32_t node;
        TimeNs start, end, childCpu;
    };
    struct OverheadThreadOrder {
        bool operator()(const std::pair<std::uint32_t, SliceId>& o, std::uint32_t t) const { return o.first < t; }
        bool operator()(std::uint32_t t, const std::pair<std::uint32_t, SliceId>& o) const { return t < o.first; }
    };

    bool inRange(TimeNs start) const { return start >= m_options.rangeStart && start < m_options.rangeEnd; }

    // The frame kind of a CPU-side slice, or kSkipped; decided once per (name, class).
    std::uint8_t frameKindOf(SliceId s)
    {
        const SliceClass c = m_trace.classOf(s);
        CallFrameKind kind = CallFrameKind::Op;
        switch (c) {
        case SliceClass::CpuOp:
        case SliceClass::Overhead: kind = CallFrameKind::Op; break;
        case SliceClass::UserAnnotation: kind = CallFrameKind::Annotation; break;
        case SliceClass::CudaRuntime:
        case SliceClass::CudaDriver: kind = CallFrameKind::Runtime; break;
        case SliceClass::PythonFunction:
            if (!m_options.python)
                return kSkipped;
            kind = CallFrameKind::Python;
            break;
        default: return kSkipped;
        }
        const StringId name = m_trace.slices().name[s];
        std::uint8_t& known = m_frameKind[name];
        if (known == kUndecided) {
            const std::string_view text = m_trace.str(name);
            const bool skipped = kind == CallFrameKind::Python
                ? m_options.modulesOnly && text.substr(0, kModulePrefix.size()) != kModulePrefix
                : keyAveragesSkips(text);
            known = skipped ? kSkipped : std::uint8_t(kind);
        }
        if (known == kSkipped)
            return kSkipped;
        // Steps merge into one frame, as the operator table's ProfilerStep* row.
        if (kind == CallFrameKind::Annotation && m_trace.str(name).substr(0, kStepPrefix.size()) == kStepPrefix)
            return std::uint8_t(CallFrameKind::Step);
        return std::uint8_t(kind); // a name is of one class in practice
    }

    bool hasSliceAt(std::uint32_t track, TimeNs at) const
    {
        const Track& t = m_trace.tracks()[track];
        for (std::uint32_t row = t.rowBegin; row < t.rowEnd; ++row) {
            if (m_trace.sliceAt(row, at) != kNoSlice)
                return true;
        }
        return false;
    }

    // The thread an overhead ran on, as the operator table finds it: the CPU thread with its
    // tid, else a host process's main thread (tid == pid), busy at its start; kNoIndex if none.
    std::uint32_t threadOfOverhead(SliceId s) const
    {
        const auto& tracks = m_trace.tracks();
        const std::uint32_t own = m_trace.trackOf(s);
        const TimeNs at = m_trace.slices().start[s];
        const auto isMainThread = [&](std::uint32_t t) {
            const JsonId& pid = m_trace.processes()[tracks[t].process].pid;
            return !pid.isText && !tracks[t].tid.isText && tracks[t].tid.number == pid.number;
        };
        for (const bool sameTid : {true, false}) {
            for (std::uint32_t t = 0; t < tracks.size(); ++t) {
                const bool candidate = sameTid ? tracks[t].tid == tracks[own].tid : isMainThread(t);
                if (t != own && tracks[t].kind == TrackKind::CpuThread && candidate && hasSliceAt(t, at))
                    return t;
            }
        }
        return kNoIndex;
    }

    // CUPTI overhead records (kineto writes them as pid -1, tid 0) nest on the thread of the
    // op they ran in, as torch nests them, so that op's self time is the table's.
    void placeOverheads()
    {
        for (SliceId s = 0; s < m_trace.slices().size(); ++s) {
            if (m_trace.classOf(s) != SliceClass::Overhead || !inRange(m_trace.slices().start[s])
                || frameKindOf(s) == kSkipped)
                continue;
            if (const std::uint32_t thread = threadOfOverhead(s); thread != kNoIndex)
                m_movedOverheads.emplace_back(thread, s);
        }
        std::sort(m_movedOverheads.begin(), m_movedOverheads.end());
    }

    bool isMovedOverhead(SliceId s) const
    {
        return m_trace.classOf(s) == SliceClass::Overhead
            && std::any_of(m_movedOverheads.begin(), m_movedOverheads.end(),
                           [s](const auto& o) { return o.second == s; });
    }

    void nestThread(std::uint32_t track)
    {
        const Track& t = m_trace.tracks()[track];
        if (t.kind != TrackKind::CpuThread)
            return;
        const auto& slices = m_trace.slices();
        m_events.clear();
        for (SliceId s = t.sliceBegin; s < t.sliceEnd; ++s) {
            if (inRange(slices.start[s]) && frameKindOf(s) != kSkipped && !isMovedOverhead(s))
                m_events.push_back(s);
        }
        const auto moved =
            std::equal_range(m_movedOverheads.begin(), m_movedOverheads.end(), track, OverheadThreadOrder{});
        for (auto it = moved.first; it != moved.second; ++it)
            m_events.push_back(it->second);
        std::sort(m_events.begin(), m_events.end(), [&](SliceId a, SliceId b) {
            return std::tuple(slices.start[a], -slices.end(a), a) < std::tuple(slices.start[b], -slices.end(b), b);
        });
        for (const SliceId s : m_events) {
            const TimeNs start = slices.start[s], end = slices.end(s);
            bool partial = false;
            while (!m_open.empty() && (start >= m_open.back().end || end > m_open.back().end)) {
                partial = partial || start < m_open.back().end;
                close();
            }
            m_tree.problems.unbalanced += partial ? 1 : 0;
            const std::uint32_t parent = m_open.empty() ? CallTree::kRoot : m_open.back().node;
            const auto kind = CallFrameKind(frameKindOf(s));
            const std::uint32_t node =
                m_tree.childOf(parent, kind == CallFrameKind::Step ? kEmptyString : slices.name[s], kind);
            ++m_tree.calls[node];
            m_tree.cpuTotal[node] = saturatingAdd(m_tree.cpuTotal[node], end - start);
            m_tree.occurrences.emplace_back(s, node);
            if ((kind == CallFrameKind::Op || kind == CallFrameKind::Annotation || kind == CallFrameKind::Step)
                && slices.externalId[s] != kNoId)
                m_nodeOfExternalId.emplace_back(slices.externalId[s], node);
            m_open.push_back({node, start, end, 0});
        }
        while (!m_open.empty())
            close();
    }

    void close()
    {
        const Frame f = m_open.back();
        m_open.pop_back();
        const TimeNs duration = f.end - f.start;
        m_tree.cpuSelf[f.node] = saturatingAdd(m_tree.cpuSelf[f.node], saturatingSubtract(duration, f.childCpu));
        if (m_open.empty())
            m_tree.cpuTotal[CallTree::kRoot] = saturatingAdd(m_tree.cpuTotal[CallTree::kRoot], duration);
        else
            m_open.back().childCpu = saturatingAdd(m_open.back().childCpu, duration);
    }

    // The operator table's rule: a GPU op counts for the op with its launch's External id,
    // else with its own.
    std::uint32_t launchingNode(SliceId gpuOp)
    {
        const auto& slices = m_trace.slices();
        const SliceId launch = m_facts.links.launchOf(gpuOp);
        std::int64_t external = slices.externalId[gpuOp];
        if (launch != kNoSlice && slices.externalId[launch] != kNoId)
            external = slices.externalId[launch];
        if (launch == kNoSlice)
            ++m_tree.problems.gpuWithoutLaunch;
        const auto it = std::lower_bound(m_nodeOfExternalId.begin(), m_nodeOfExternalId.end(),
                                         std::pair(external, std::uint32_t(0)));
        if (external != kNoId && it != m_nodeOfExternalId.end() && it->first == external)
            return it->second;
        if (launch != kNoSlice)
            ++m_tree.problems.gpuWithoutOp;
        return m_tree.childOf(CallTree::kRoot, kEmptyString, CallFrameKind::Unattributed);
    }

    void creditGpuWork()
    {
        std::sort(m_nodeOfExternalId.begin(), m_nodeOfExternalId.end());
        const auto& slices = m_trace.slices();
        for (const Track& t : m_trace.tracks()) {
            if (t.kind != TrackKind::GpuStream)
                continue;
            for (SliceId s = t.sliceBegin; s < t.sliceEnd; ++s) {
                if (!isGpuActivity(m_trace.classOf(s)) || !inRange(slices.start[s])
                    || keyAveragesSkips(m_trace.str(slices.name[s])))
                    continue;
                const TimeNs duration = slices.duration[s];
                std::uint32_t node = launchingNode(s);
                m_tree.gpuSelf[node] = saturatingAdd(m_tree.gpuSelf[node], duration);
                if (m_tree.kind[node] == CallFrameKind::Unattributed)
                    ++m_tree.calls[node];
                if (m_options.gpuFrames) {
                    node = m_tree.childOf(node, slices.name[s], CallFrameKind::Gpu);
                    ++m_tree.calls[node];
                    m_tree.gpuSelf[node] = saturatingAdd(m_tree.gpuSelf[node], duration);
                }
                m_tree.occurrences.emplace_back(s, node);
            }
        }
        m_nodeOfExternalId = {};
    }

    // Children come after their parents: one backward pass sums the GPU totals. A Gpu leaf's
    // time is in its parent's self already.
    void sumTotals()
    {
        for (std::size_t n = 0; n < m_tree.size(); ++n)
            m_tree.gpuTotal[n] = m_tree.gpuSelf[n];
        for (std::size_t n = m_tree.size(); n-- > 1;) {
            if (m_tree.kind[n] == CallFrameKind::Gpu)
                continue;
            const std::uint32_t p = m_tree.parent[n];
            m_tree.gpuTotal[p] = saturatingAdd(m_tree.gpuTotal[p], m_tree.gpuTotal[n]);
        }
    }

    void countSteps()
    {
        std::size_t steps = 0;
        if (m_facts.hasSteps()) {
            for (const auto& step : m_facts.windows.steps)
                steps += inRange(step.hostStart) ? 1 : 0;
        }
        m_tree.stepCount = std::max<std::size_t>(steps, 1);
    }

    const facts::TraceFacts& m_facts;
    const Trace& m_trace;
    const CallTreeOptions& m_options;
    CallTree m_tree;
    std::vector<SliceId> m_events; // the thread's frames in range, reused
    std::vector<Frame> m_open;
    std::vector<std::pair<std::int64_t, std::uint32_t>> m_nodeOfExternalId;
    std::vector<std::uint8_t> m_frameKind; // by name id
    std::vector<std::pair<std::uint32_t, SliceId>> m_movedOverheads; // (thread, overhead), sorted
};

} // namespace

std::uint32_t CallTree::addRoot()
{
    parent.assign(1, kNone);
    firstChild.assign(1, kNone);
    nextSibling.assign(1, kNone);
    name.assign(1, kEmptyString);
    kind.assign(1, CallFrameKind::Root);
    calls.assign(1, 0);
    cpuTotal.assign(1, 0);
    cpuSelf.assign(1, 0);
    gpuTotal.assign(1, 0);
    gpuSelf.assign(1, 0);
    m_childIndex.assign(64, 0);
    return kRoot;
}

void CallTree::growIndex()
{
    std::vector<std::uint32_t> index(m_childIndex.size() * 2, 0);
    const std::size_t mask = index.size() - 1;
    for (std::uint32_t n = 1; n < size(); ++n) {
        std::size_t slot = childHash(parent[n], name[n], kind[n]) & mask;
        while (index[slot] != 0)
            slot = (slot + 1) & mask;
        index[slot] = n + 1;
    }
    m_childIndex = std::move(index);
}

std::uint32_t CallTree::childOf(std::uint32_t node, StringId frameName, CallFrameKind frameKind)
{
    const std::size_t mask = m_childIndex.size() - 1;
    std::size_t slot = childHash(node, frameName, frameKind) & mask;
    for (; m_childIndex[slot] != 0; slot = (slot + 1) & mask) {
        const std::uint32_t n = m_childIndex[slot] - 1;
        if (parent[n] == node && name[n] == frameName && kind[n] == frameKind)
            return n;
    }
    const auto child = std::uint32_t(size());
    m_childIndex[slot] = child + 1;
    parent.push_back(node);
    firstChild.push_back(kNone);
    nextSibling.push_back(firstChild[node]);
    firstChild[node] = child;
    name.push_back(frameName);
    kind.push_back(frameKind);
    calls.push_back(0);
    cpuTotal.push_back(0);
    cpuSelf.push_back(0);
    gpuTotal.push_back(0);
    gpuSelf.push_back(0);
    if (size() * 2 > m_childIndex.size())
        growIndex();
    return child;
}

std::uint32_t CallTree::depthOf(std::uint32_t node) const
{
    std::uint32_t depth = 0;
    for (; node != kRoot && node != kNone; node = parent[node])
        ++depth;
    return depth;
}

std::vector<SliceId> CallTree::occurrencesOf(std::uint32_t node) const
{
    std::vector<SliceId> out;
    for (const auto& [slice, n] : occurrences) {
        if (n == node)
            out.push_back(slice);
    }
    return out;
}

CallTree buildCallTree(const facts::TraceFacts& facts, const CallTreeOptions& options)
{
    return CallTreeBuilder(facts, options).build();
}

CallTree invertCallTree(const CallTree& topDown)
{
    CallTree out;
    out.addRoot();
    out.bottomUp = true;
    out.gpuFrames = topDown.gpuFrames;
    out.stepCount = topDown.stepCount;
    out.problems = topDown.problems;
    for (std::uint32_t n = 1; n < topDown.size(); ++n) {
        const TimeNs cpu = topDown.cpuSelf[n];
        const bool ownGpu = !topDown.gpuFrames || topDown.kind[n] == CallFrameKind::Gpu;
        const TimeNs gpu = ownGpu ? topDown.gpuSelf[n] : 0;
        if (cpu == 0 && gpu == 0)
            continue;
        std::uint32_t at = CallTree::kRoot;
        for (std::uint32_t a = n; a != CallTree::kRoot; a = topDown.parent[a]) {
            at = out.childOf(at, topDown.name[a], topDown.kind[a]);
            out.calls[at] += topDown.calls[n];
            out.cpuTotal[at] = saturatingAdd(out.cpuTotal[at], cpu);
            out.gpuTotal[at] = saturatingAdd(out.gpuTotal[at], gpu);
            if (a == n) {
                out.cpuSelf[at] = saturatingAdd(out.cpuSelf[at], cpu);
                out.gpuSelf[at] = saturatingAdd(out.gpuSelf[at], gpu);
            }
        }
        out.cpuTotal[CallTree::kRoot] = saturatingAdd(out.cpuTotal[CallTree::kRoot], cpu);
        out.gpuTotal[CallTree::kRoot] = saturatingAdd(out.gpuTotal[CallTree::kRoot], gpu);
    }
    return out;
}

std::vector<std::uint32_t> topDownNodesOf(const CallTree& topDown, const CallTree& bottomUp, std::uint32_t node)
{
    std::vector<std::uint32_t> out;
    if (node == CallTree::kRoot || node >= bottomUp.size())
        return out;
    // The bottom-up path from its first level down to `node` is a top-down path read upwards.
    std::vector<std::uint32_t> path;
    for (std::uint32_t b = node; b != CallTree::kRoot; b = bottomUp.parent[b])
        path.push_back(b);
    std::reverse(path.begin(), path.end());
    for (std::uint32_t n = 1; n < topDown.size(); ++n) {
        std::uint32_t a = n;
        bool matches = true;
        for (const std::uint32_t level : path) {
            if (a == CallTree::kRoot || topDown.name[a] != bottomUp.name[level]
                || topDown.kind[a] != bottomUp.kind[level]) {
                matches = false;
                break;
            }
            a = topDown.parent[a];
        }
        if (matches)
            out.push_back(n);
    }
    return out;
}

std::string callFrameLabel(const Trace& trace, const CallTree& tree, std::uint32_t node)
{
    switch (tree.kind[node]) {
    case CallFrameKind::Root: return "all";
    case CallFrameKind::Unattributed: return "[no launching op]";
    case CallFrameKind::Step: return "ProfilerStep*";
    case CallFrameKind::Gpu: return "[gpu] " + std::string(trace.str(tree.name[node]));
    default: return std::string(trace.str(tree.name[node]));
    }
}

} // namespace ks::analysis
