#pragma once
// A piecewise-constant function of time with a prefix integral, built by sweeping
// weighted intervals. Any integral over [a, b] costs two binary searches, so metrics for
// any range and any bucket width never rescan the kernels.
#include "core/model/time.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ks::gpu {

// The intervals a step function is swept from, as edges: each interval adds its weight from
// its start to its end. Sized for the number of intervals up front, so building a function
// holds one exact array of edges and nothing else.
class StepEdges {
public:
    explicit StepEdges(std::size_t intervals) { m_edges.reserve(2 * intervals); }
    // Weights are integers, so the running sum never drifts off zero. Empty intervals and
    // zero weights change no integral and are left out.
    void add(TimeNs start, TimeNs end, std::int64_t weight)
    {
        if (end <= start || weight == 0)
            return;
        m_edges.push_back({start, weight});
        m_edges.push_back({end, -weight});
    }

private:
    friend class StepFunction;
    struct Edge {
        TimeNs time;
        std::int64_t delta;
    };
    std::vector<Edge> m_edges;
};

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
