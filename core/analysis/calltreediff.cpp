#include "core/analysis/calltreediff.h"

#include <limits>
#include <unordered_map>

namespace ks::analysis {

namespace {

class CallTreeDiffer {
public:
    CallTreeDiffer(const Trace& baseTrace, const CallTree& base, const Trace& newTrace, const CallTree& next,
                   FoldedTime time)
        : m_baseTrace(baseTrace)
        , m_base(base)
        , m_newTrace(newTrace)
        , m_next(next)
    {
        m_out.time = time;
    }

    CallTreeDiff build()
    {
        add(CallTree::kNone, "all", CallFrameKind::Root);
        setValues(CallTreeDiff::kRoot, CallTree::kRoot, CallTree::kRoot);
        // Depth first without recursion: (diff node, BASE node, NEW node), kNone where absent.
        std::vector<Pair> pending{{CallTreeDiff::kRoot, CallTree::kRoot, CallTree::kRoot}};
        std::unordered_map<std::string, std::uint32_t> byLabel; // the diff node's children
        while (!pending.empty()) {
            const Pair at = pending.back();
            pending.pop_back();
            byLabel.clear();
            if (at.base != CallTree::kNone) {
                for (std::uint32_t c = m_base.firstChild[at.base]; c != CallTree::kNone; c = m_base.nextSibling[c]) {
                    const std::uint32_t node =
                        childOf(at.diff, callFrameLabel(m_baseTrace, m_base, c), m_base.kind[c], byLabel);
                    m_baseOf[node] = c;
                }
            }
            if (at.next != CallTree::kNone) {
                for (std::uint32_t c = m_next.firstChild[at.next]; c != CallTree::kNone; c = m_next.nextSibling[c]) {
                    const std::uint32_t node =
                        childOf(at.diff, callFrameLabel(m_newTrace, m_next, c), m_next.kind[c], byLabel);
                    m_newOf[node] = c;
                }
            }
            for (std::uint32_t c = m_out.firstChild[at.diff]; c != CallTree::kNone; c = m_out.nextSibling[c]) {
                setValues(c, m_baseOf[c], m_newOf[c]);
                pending.push_back({c, m_baseOf[c], m_newOf[c]});
            }
        }
        return std::move(m_out);
    }

private:
    struct Pair {
        std::uint32_t diff, base, next;
    };

    std::uint32_t add(std::uint32_t parent, std::string label, CallFrameKind kind)
    {
        const auto node = std::uint32_t(m_out.size());
        m_out.parent.push_back(parent);
        m_out.firstChild.push_back(CallTree::kNone);
        m_out.nextSibling.push_back(parent == CallTree::kNone ? CallTree::kNone : m_out.firstChild[parent]);
        if (parent != CallTree::kNone)
            m_out.firstChild[parent] = node;
        m_out.label.push_back(std::move(label));
        m_out.kind.push_back(kind);
        m_out.base.push_back(0);
        m_out.next.push_back(0);
        m_baseOf.push_back(CallTree::kNone);
        m_newOf.push_back(CallTree::kNone);
        return node;
    }

    std::uint32_t childOf(std::uint32_t parent, std::string label, CallFrameKind kind,
                          std::unordered_map<std::string, std::uint32_t>& byLabel)
    {
        const auto it = byLabel.find(label);
        if (it != byLabel.end())
            return it->second;
        const std::uint32_t node = add(parent, label, kind);
        byLabel.emplace(std::move(label), node);
        return node;
    }

    static double perStep(const CallTree& tree, std::uint32_t node, FoldedTime time)
    {
        if (node == CallTree::kNone)
            return 0;
        const TimeNs total = time == FoldedTime::Cpu ? tree.cpuTotal[node] : tree.gpuTotal[node];
        return double(total) / double(std::max<std::size_t>(tree.stepCount, 1));
    }

    void setValues(std::uint32_t node, std::uint32_t base, std::uint32_t next)
    {
        m_out.base[node] = perStep(m_base, base, m_out.time);
        m_out.next[node] = perStep(m_next, next, m_out.time);
    }

    const Trace& m_baseTrace;
    const CallTree& m_base;
    const Trace& m_newTrace;
    const CallTree& m_next;
    CallTreeDiff m_out;
    std::vector<std::uint32_t> m_baseOf, m_newOf; // by diff node
};

} // namespace

double CallTreeDiff::change(std::uint32_t n) const
{
    if (base[n] <= 0)
        return next[n] > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    return next[n] / base[n] - 1.0;
}

CallTreeDiff diffCallTrees(const Trace& baseTrace, const CallTree& base, const Trace& newTrace, const CallTree& next,
                           FoldedTime time)
{
    return CallTreeDiffer(baseTrace, base, newTrace, next, time).build();
}

} // namespace ks::analysis
