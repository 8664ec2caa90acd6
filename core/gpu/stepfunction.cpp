#include "core/gpu/stepfunction.h"

#include <algorithm>

namespace ks::gpu {

StepFunction StepFunction::fromIntervals(const std::vector<WeightedInterval>& intervals, const ValueOf& valueOf)
{
    struct Edge {
        TimeNs time;
        std::int64_t delta;
    };
    std::vector<Edge> edges;
    edges.reserve(intervals.size() * 2);
    for (const auto& iv : intervals) {
        if (iv.end <= iv.start || iv.weight == 0)
            continue; // zero-length intervals change no integral
        edges.push_back({iv.start, iv.weight});
        edges.push_back({iv.end, -iv.weight});
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.time < b.time; });

    StepFunction f;
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < edges.size();) {
        const TimeNs t = edges[i].time;
        while (i < edges.size() && edges[i].time == t)
            sum += edges[i++].delta;
        f.m_times.push_back(t);
        if (i < edges.size())
            f.m_values.push_back(sum > 0 ? valueOf(sum) : 0.0);
    }
    f.m_prefix.resize(f.m_times.size(), 0.0);
    for (std::size_t i = 0; i < f.m_values.size(); ++i)
        f.m_prefix[i + 1] = f.m_prefix[i] + f.m_values[i] * double(f.m_times[i + 1] - f.m_times[i]);
    return f;
}

double StepFunction::primitive(TimeNs t) const
{
    if (m_values.empty() || t <= m_times.front())
        return 0.0;
    if (t >= m_times.back())
        return m_prefix.back();
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    const std::size_t i = std::size_t(it - m_times.begin()) - 1;
    return m_prefix[i] + m_values[i] * double(t - m_times[i]);
}

double StepFunction::valueAt(TimeNs t) const
{
    if (m_values.empty() || t < m_times.front() || t >= m_times.back())
        return 0.0;
    const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
    return m_values[std::size_t(it - m_times.begin()) - 1];
}

} // namespace ks::gpu
