#pragma once
// Back/Forward over selected slices, like a browser: selecting something new after
// going back drops the forward entries. Entries name their trace, so history crosses
// between the traces of a comparison or the ranks of a run.
#include "core/timeline/traceslice.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace ks {

class NavigationHistory {
public:
    // Records a new current entry (ignored when it equals the current one).
    void visit(TraceSlice entry);
    bool canGoBack() const { return m_current > 0; }
    bool canGoForward() const { return m_current + 1 < m_entries.size(); }
    // Return the new current entry, or an invalid one when there is nowhere to go.
    TraceSlice back();
    TraceSlice forward();
    TraceSlice current() const;
    void clear();
    // Renumbers every entry (for a newer snapshot of the trace, which numbers its slices
    // anew); entries mapped to an invalid slice are dropped, the current one then falls back
    // to the nearest earlier entry.
    void remap(const std::function<TraceSlice(TraceSlice)>& map);

private:
    static constexpr std::size_t kMaxEntries = 256;
    std::vector<TraceSlice> m_entries;
    std::size_t m_current = 0; // meaningful only when m_entries is not empty
};

} // namespace ks
