#pragma once
// A piecewise-constant function of time with a prefix integral, built by sweeping
// weighted intervals. Any integral over [a, b] costs two binary searches, so metrics for
// any range and any bucket width never rescan the kernels.
#include "core/gpu/stepedges.h"
#include "core/model/time.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ks::gpu {

class StepFunction {
public:
    // Maps the running sum of weights over a gap to the function's value there.
    using ValueOf = std::function<double(std::int64_t sum)>;

    StepFunction() = default;
    // Breakpoints are all distinct endpoint times; neighbouring pieces are not merged,
    // because the plugin's counter series reports every gap as its own segment.
    static StepFunction fromEdges(StepEdges edges, const ValueOf& valueOf);

    // ∫ over [a, b] (clamped to the function's support; 0 outside it).
    double integral(TimeNs a, TimeNs b) const { return b <= a ? 0.0 : primitive(b) - primitive(a); }
    // ∫ from the first breakpoint up to t.
    double primitive(TimeNs t) const;
    double valueAt(TimeNs t) const;

    std::size_t pieceCount() const { return m_values.size(); }
    TimeNs pieceStart(std::size_t i) const { return m_times[i]; }
    TimeNs pieceEnd(std::size_t i) const { return m_times[i + 1]; }
    double pieceValue(std::size_t i) const { return m_values[i]; }
    bool empty() const { return m_values.empty(); }

private:
    std::vector<TimeNs> m_times; // strictly increasing breakpoints
    std::vector<double> m_values; // value on [m_times[i], m_times[i+1])
    std::vector<double> m_prefix; // ∫ from m_times[0] to m_times[i]
};

} // namespace ks::gpu
