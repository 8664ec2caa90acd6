#pragma once
// The critical path over the ranks of one run (issue 36), as `kinetoscope-cli critical-path`
// with several files and the Critical Path dock with a workspace of ranks both solve it: the
// ranks on their absolute clock (the collectives' true order, whatever the timeline shows),
// their collectives matched, and one graph joining them at the last-arriving rank.
#include "core/analysis/criticalpath.h"
#include "core/analysis/workspace.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ks::analysis {

class RanksCriticalPath {
public:
    // Takes a copy of the workspace (the traces are shared) and aligns it; a single member
    // gets no matching.
    explicit RanksCriticalPath(Workspace workspace);

    const CriticalPathAnalysis& analysis() const { return *m_analysis; }
    const Workspace& workspace() const { return m_workspace; }
    // The workspace's and the matching's warnings.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    // The member that is rank `rank`, if any.
    std::optional<std::uint32_t> memberOfRank(int rank) const;
    // A member's own time on the analysis' axis.
    TimeNs toAxis(std::uint32_t member, TimeNs memberTime) const;

private:
    Workspace m_workspace;
    std::unique_ptr<CollectiveMatching> m_matching; // the analysis points at it
    std::vector<std::string> m_warnings;
    std::optional<CriticalPathAnalysis> m_analysis;
};

} // namespace ks::analysis
