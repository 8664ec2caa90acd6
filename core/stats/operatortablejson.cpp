#include "core/stats/operatortablejson.h"

namespace ks {

std::vector<OperatorRow> operatorReportRows(const OperatorTable& table, const OperatorReportOptions& options)
{
    std::vector<OperatorRow> rows = table.rows;
    sortOperatorRows(
        rows, options.sort.value_or(table.hasDeviceTime ? OperatorSortKey::DeviceTotal : OperatorSortKey::CpuTotal));
    if (options.top && rows.size() > options.top)
        rows.resize(options.top);
    return rows;
}

nlohmann::ordered_json operatorRowsJson(const OperatorTable& table, const std::vector<OperatorRow>& rows, bool shapes)
{
    const auto us = [](TimeNs ns) { return double(ns) / 1000.0; };
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        nlohmann::ordered_json j{{"name", r.name},
                                 {"calls", r.calls},
                                 {"self_cpu_us", us(r.selfCpu)},
                                 {"cpu_total_us", us(r.cpuTotal)},
                                 {"self_cuda_us", us(r.selfDevice)},
                                 {"cuda_total_us", us(r.deviceTotal)},
                                 {"device", r.isDevice}};
        if (shapes)
            j["input_shapes"] = r.inputShapes;
        if (table.hasMemory) {
            j["cpu_memory_bytes"] = r.cpuMemory;
            j["self_cpu_memory_bytes"] = r.selfCpuMemory;
            j["cuda_memory_bytes"] = r.deviceMemory;
            j["self_cuda_memory_bytes"] = r.selfDeviceMemory;
        }
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace ks
