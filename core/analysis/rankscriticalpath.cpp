#include "core/analysis/rankscriticalpath.h"

#include <algorithm>

namespace ks::analysis {

RanksCriticalPath::RanksCriticalPath(Workspace workspace)
    : m_workspace(std::move(workspace))
    , m_warnings(m_workspace.warnings())
{
    if (m_workspace.size() > 1) {
        m_workspace.alignAbsoluteClock();
        m_matching = std::make_unique<CollectiveMatching>(matchCollectives(m_workspace));
        m_warnings.insert(m_warnings.end(), m_matching->warnings.begin(), m_matching->warnings.end());
    }
    m_analysis.emplace(criticalPathOf(m_workspace, m_matching.get()));
}

std::optional<std::uint32_t> RanksCriticalPath::memberOfRank(int rank) const
{
    const auto& members = m_workspace.members();
    const auto found =
        std::find_if(members.begin(), members.end(), [&](const WorkspaceMember& m) { return m.identity.rank == rank; });
    if (found == members.end())
        return std::nullopt;
    return std::uint32_t(found - members.begin());
}

TimeNs RanksCriticalPath::toAxis(std::uint32_t member, TimeNs memberTime) const
{
    return member < m_workspace.size() ? memberTime + m_workspace.members()[member].offset : memberTime;
}

} // namespace ks::analysis
