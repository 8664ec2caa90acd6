#include "core/gpu/nvprofsummary.h"

#include "core/facts/pluginkind.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace ks::gpu {

namespace {

class RowTable {
public:
    NvprofRow& row(const std::string& name)
    {
        const auto [it, added] = m_index.emplace(name, m_rows.size());
        if (added) {
            m_rows.emplace_back();
            m_rows.back().name = name;
        }
        return m_rows[it->second];
    }
    void add(const std::string& name, TimeNs duration, std::int64_t bytes)
    {
        NvprofRow& r = row(name);
        r.min = r.calls ? std::min(r.min, duration) : duration;
        r.max = r.calls ? std::max(r.max, duration) : duration;
        r.total = saturatingAdd(r.total, duration);
        ++r.calls;
        if (bytes >= 0)
            r.bytes = saturatingAdd(std::max<std::int64_t>(r.bytes, 0), bytes);
    }
    // Sorted by total time (then name, so ties print the same every run), with Time(%).
    std::vector<NvprofRow> finish(TimeNs& total)
    {
        total = 0;
        for (const auto& r : m_rows)
            total = saturatingAdd(total, r.total);
        for (auto& r : m_rows)
            r.timePercent = total > 0 ? 100.0 * double(r.total) / double(total) : 0.0;
        std::sort(m_rows.begin(), m_rows.end(), [](const NvprofRow& a, const NvprofRow& b) {
            return a.total != b.total ? a.total > b.total : a.name < b.name;
        });
        return std::move(m_rows);
    }

private:
    std::vector<NvprofRow> m_rows;
    std::unordered_map<std::string, std::size_t> m_index;
};

bool isDriverCategory(std::string_view category) { return category == "cuda_driver"; }

} // namespace

std::string nvprofMemcpyName(std::string_view kinetoName)
{
    constexpr std::string_view kPrefix = "Memcpy ";
    if (kinetoName.substr(0, kPrefix.size()) != kPrefix)
        return "[CUDA memcpy]";
    std::string_view kind = kinetoName.substr(kPrefix.size());
    kind = kind.substr(0, kind.find(' '));
    return "[CUDA memcpy " + std::string(kind) + "]";
}

NvprofSummary computeNvprofSummary(const Trace& trace)
{
    return computeNvprofSummary(trace, facts::classifySlices(trace));
}

NvprofSummary computeNvprofSummary(const Trace& trace, const std::vector<facts::PluginKind>& kinds)
{
    const auto& slices = trace.slices();
    RowTable gpu, api;
    for (SliceId s = 0; s < slices.size(); ++s) {
        const TimeNs duration = slices.duration[s];
        const std::string_view name = trace.str(slices.name[s]);
        const GpuOpInfo* op = facts::isDeviceKind(kinds[s]) ? trace.gpuOpInfo(s) : nullptr;
        const std::int64_t bytes = op ? op->bytes : -1;
        switch (kinds[s]) {
        case facts::PluginKind::Kernel: gpu.add(std::string(name), duration, -1); break;
        case facts::PluginKind::Memcpy:
            gpu.add(nvprofMemcpyName(name), duration, std::max<std::int64_t>(bytes, 0));
            break;
        case facts::PluginKind::Memset: gpu.add("[CUDA memset]", duration, std::max<std::int64_t>(bytes, 0)); break;
        case facts::PluginKind::Runtime: api.add(std::string(name), duration, -1); break;
        default:
            if (isDriverCategory(trace.str(slices.category[s])))
                api.add(std::string(name), duration, -1);
            break;
        }
    }
    NvprofSummary summary;
    summary.gpuActivities = gpu.finish(summary.gpuTotal);
    summary.apiCalls = api.finish(summary.apiTotal);
    return summary;
}

std::string formatNvprofTime(double ns)
{
    char text[32];
    if (ns >= 1e9)
        std::snprintf(text, sizeof text, "%.4gs", ns / 1e9);
    else if (ns >= 1e6)
        std::snprintf(text, sizeof text, "%.4gms", ns / 1e6);
    else if (ns >= 1e3)
        std::snprintf(text, sizeof text, "%.4gus", ns / 1e3);
    else
        std::snprintf(text, sizeof text, "%.4gns", ns);
    return text;
}

} // namespace ks::gpu
