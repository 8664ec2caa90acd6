#include "core/gpu/stepfunction.h"

#include <algorithm>

namespace ks::gpu {

StepFunction StepFunction::fromEdges(StepEdges edges, const ValueOf& valueOf)
{
    auto& e = edges.m_edges;
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
    // Sized exactly: the function is kept as long as the trace, and growing it by doubling
    // would keep up to twice its size.
    std::size_t breakpoints = 0;
    for (std::size_t i = 0; i < e.size(); ++i)
        breakpoints += i == 0 || e[i].time != e[i - 1].time;

    StepFunction f;
    f.m_times.reserve(breakpoints);
    f.m_values.reserve(breakpoints ? breakpoints - 1 : 0);
    std::int64_t sum = 0;
    for (std::size_t i = 0; i < e.size();) {
        const TimeNs t = e[i].time;
        while (i < e.size() && e[i].time == t)
            sum += e[i++].delta;
        f.m_times.push_back(t);
        if (i < e.size())
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
