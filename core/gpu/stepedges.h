#pragma once
// The input of a StepFunction.
#include "core/model/time.h"

#include <cstdint>
#include <vector>

namespace ks::gpu {

class StepFunction;

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

} // namespace ks::gpu
