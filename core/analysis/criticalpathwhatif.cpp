#include "core/analysis/criticalpathwhatif.h"

#include "core/analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ks::analysis {

namespace {

std::string_view targetName(WhatIf::Target t)
{
    switch (t) {
    case WhatIf::Target::Op: return "op";
    case WhatIf::Target::Kernel: return "kernel";
    case WhatIf::Target::Family: return "family";
    case WhatIf::Target::Category: return "category";
    case WhatIf::Target::Events: return "events";
    }
    return "";
}

bool isGpuKind(PathKind k) { return k == PathKind::Kernel || k == PathKind::Memcpy || k == PathKind::Memset; }
bool isHostKind(PathKind k) { return k == PathKind::CpuOp || k == PathKind::Launch || k == PathKind::SyncWait; }

std::string_view itemName(const std::vector<PathMember>& members, const PathItem& item)
{
    const Trace& t = *members[item.member].facts->trace;
    return t.str(t.slices().name[item.slice]);
}

} // namespace

std::string WhatIf::text() const
{
    char factorText[32];
    std::snprintf(factorText, sizeof factorText, "%g", factor);
    const std::string what = target == Target::Events ? std::to_string(events.size()) + " events" : pattern;
    return std::string(targetName(target)) + ":" + what + "=" + factorText;
}

std::optional<WhatIf> WhatIf::parse(const std::string& text, std::string& error)
{
    const auto colon = text.find(':');
    const auto equals = text.rfind('=');
    if (colon == std::string::npos || equals == std::string::npos || equals < colon) {
        error = "needs KIND:PATTERN=FACTOR (kind op, kernel, family or category), got '" + text + "'";
        return std::nullopt;
    }
    WhatIf w;
    const std::string kind = text.substr(0, colon);
    if (kind == "op")
        w.target = Target::Op;
    else if (kind == "kernel")
        w.target = Target::Kernel;
    else if (kind == "family")
        w.target = Target::Family;
    else if (kind == "category")
        w.target = Target::Category;
    else {
        error = "unknown kind '" + kind + "' in '" + text + "' (op, kernel, family or category)";
        return std::nullopt;
    }
    w.pattern = text.substr(colon + 1, equals - colon - 1);
    const std::string factor = text.substr(equals + 1);
    char* end = nullptr;
    w.factor = std::strtod(factor.c_str(), &end);
    if (factor.empty() || end != factor.c_str() + factor.size() || !std::isfinite(w.factor) || w.factor < 0
        || w.factor > 1e6) {
        error = "needs a factor between 0 and 1e6 after '=', got '" + factor + "' in '" + text + "'";
        return std::nullopt;
    }
    if (w.pattern.empty()) {
        error = "empty pattern in '" + text + "'";
        return std::nullopt;
    }
    PathKind category{};
    if (w.target == Target::Category && !pathKindFromName(w.pattern, category)) {
        error = "unknown category '" + w.pattern
            + "' (cpu_op, launch, kernel, memcpy, memset, sync_wait, gpu_idle, collective_wait, other)";
        return std::nullopt;
    }
    if (w.target == Target::Op || w.target == Target::Kernel) {
        try {
            std::regex probe(w.pattern);
        } catch (const std::regex_error& e) {
            error = "bad regular expression '" + w.pattern + "': " + e.what();
            return std::nullopt;
        }
    }
    return w;
}

WhatIfScaler::WhatIfScaler(std::vector<WhatIf> whatIfs)
    : m_whatIfs(std::move(whatIfs))
{
    for (const auto& w : m_whatIfs) {
        if (w.target == WhatIf::Target::Op || w.target == WhatIf::Target::Kernel)
            m_regex.emplace_back(std::regex(w.pattern, std::regex::ECMAScript | std::regex::optimize));
        else
            m_regex.emplace_back();
    }
}

std::vector<float> WhatIfScaler::factors(const CriticalPathGraph& graph, const std::vector<PathMember>& members) const
{
    std::vector<float> f(graph.edgeCount(), 1.0f);
    for (std::size_t w = 0; w < m_whatIfs.size(); ++w) {
        // Per item: -1 unknown, 0 no, 1 the op or one around it on its thread matches.
        std::vector<std::int8_t> opMemo(graph.items.size(), -1);
        for (std::uint32_t e = 0; e < graph.edgeCount(); ++e)
            if (matches(w, graph, members, e, opMemo))
                f[e] *= float(m_whatIfs[w].factor);
    }
    return f;
}

bool WhatIfScaler::matches(std::size_t w, const CriticalPathGraph& graph, const std::vector<PathMember>& members,
                           std::uint32_t edge, std::vector<std::int8_t>& opMemo) const
{
    const WhatIf& whatIf = m_whatIfs[w];
    const PathKind kind = graph.edgeKind[edge];
    if (whatIf.target == WhatIf::Target::Category)
        return pathKindName(kind) == whatIf.pattern;
    const std::uint32_t item = graph.edgeItem[edge];
    if (!graph.edgeScalable[edge] || item == kNoIndex)
        return false;
    const PathItem& it = graph.items[item];
    switch (whatIf.target) {
    case WhatIf::Target::Kernel:
        return isGpuKind(kind)
            && std::regex_search(itemName(members, it).begin(), itemName(members, it).end(), *m_regex[w]);
    case WhatIf::Target::Family:
        return kind == PathKind::Kernel && kernelFamily(itemName(members, it)) == whatIf.pattern;
    case WhatIf::Target::Events:
        return std::any_of(whatIf.events.begin(), whatIf.events.end(),
                           [&](const PathItem& p) { return p.member == it.member && p.slice == it.slice; });
    case WhatIf::Target::Op: {
        if (!isHostKind(kind))
            return false;
        // Walk up to the first item whose answer is known, then fill in the chain.
        std::vector<std::uint32_t> chain;
        std::int8_t answer = 0;
        for (auto i = item; i != kNoIndex; i = graph.itemParent[i]) {
            if (opMemo[i] >= 0) {
                answer = opMemo[i];
                break;
            }
            chain.push_back(i);
        }
        for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
            if (!answer) {
                const auto name = itemName(members, graph.items[*c]);
                answer = std::regex_search(name.begin(), name.end(), *m_regex[w]) ? 1 : 0;
            }
            opMemo[*c] = answer;
        }
        return answer == 1;
    }
    case WhatIf::Target::Category: break;
    }
    return false;
}

} // namespace ks::analysis
