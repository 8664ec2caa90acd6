#pragma once
// Back/Forward over selected slices, like a browser: selecting something new after
// going back drops the forward entries.
#include "core/model/trace.h"

#include <cstddef>
#include <vector>

namespace ks {

class NavigationHistory {
public:
    // Records a new current entry (ignored when it equals the current one).
    void visit(SliceId slice);
    bool canGoBack() const { return m_current > 0; }
    bool canGoForward() const { return m_current + 1 < m_entries.size(); }
    // Return the new current entry, or kNoSlice when there is nowhere to go.
    SliceId back();
    SliceId forward();
    SliceId current() const;
    void clear();

private:
    static constexpr std::size_t kMaxEntries = 256;
    std::vector<SliceId> m_entries;
    std::size_t m_current = 0; // meaningful only when m_entries is not empty
};

} // namespace ks
