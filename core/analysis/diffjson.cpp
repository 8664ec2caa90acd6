#include "core/analysis/diffjson.h"

#include <cmath>

namespace ks::analysis {

namespace {

double us(double ns) { return std::round(ns) / 1000.0; }

nlohmann::json sideJson(const DiffSide& side)
{
    return {{"file", side.file},
            {"steps", side.steps},
            {"steps_source", side.stepsSource},
            {"step_time_us", us(side.stepTimeNs)},
            {"device", side.device}};
}

template <class Fill>
nlohmann::json rowsJson(const std::vector<DiffRow>& rows, std::size_t top, Fill fill)
{
    nlohmann::json out = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size() && (top == 0 || i < top); ++i) {
        const auto& r = rows[i];
        nlohmann::json row = {{"name", r.name}};
        fill(r, row);
        row["delta_us"] = us(r.deltaNs());
        row["delta_pct"] = r.deltaPercent();
        out.push_back(std::move(row));
    }
    return out;
}

} // namespace

nlohmann::json diffReportJson(const DiffReport& r, std::size_t top, bool families, bool groupByShape)
{
    nlohmann::json j;
    j["base"] = sideJson(r.base);
    j["new"] = sideJson(r.neu);
    j["steps"] = {{"base", r.base.steps}, {"new", r.neu.steps}};
    j["steps_source"] = {{"base", r.base.stepsSource}, {"new", r.neu.stepsSource}};
    j["speedup"] = r.speedup;
    j["summary"] = r.summary;
    j["notes"] = r.notes;
    j["per_step"] = "times are per-step averages; counts are totals over the steps";
    j["categories"] = rowsJson(r.categories, 0, [](const auto& row, auto& out) {
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
    });
    auto kernel = [&](const DiffRow& row, nlohmann::json& out) {
        out["base_count"] = row.baseCount;
        out["new_count"] = row.newCount;
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
        out["base_mean_us"] = us(r.meanPerCallNs(row, true));
        out["new_mean_us"] = us(r.meanPerCallNs(row, false));
        if (!row.detail.empty())
            out["detail"] = row.detail;
    };
    j["kernels"] = rowsJson(r.kernels, top, kernel);
    j["kernel_families"] = rowsJson(families ? r.kernels : r.kernelFamilies, top, kernel);
    j["ops"] = rowsJson(r.ops, top, [&](const DiffRow& row, nlohmann::json& out) {
        if (groupByShape)
            out["input_shapes"] = row.detail;
        out["base_calls"] = row.baseCount;
        out["new_calls"] = row.newCount;
        out["base_self_cpu_us"] = us(row.baseNs);
        out["new_self_cpu_us"] = us(row.newNs);
        out["base_cpu_total_us"] = us(row.baseTotalCpuNs);
        out["new_cpu_total_us"] = us(row.newTotalCpuNs);
        out["base_device_us"] = us(row.baseDeviceNs);
        out["new_device_us"] = us(row.newDeviceNs);
    });
    j["memcpy"] = rowsJson(r.memcpy, top, [](const DiffRow& row, nlohmann::json& out) {
        out["base_count"] = row.baseCount;
        out["new_count"] = row.newCount;
        out["base_us"] = us(row.baseNs);
        out["new_us"] = us(row.newNs);
        out["base_bytes"] = row.baseBytes;
        out["new_bytes"] = row.newBytes;
    });
    return j;
}

void addDiffSideRanks(nlohmann::json& json, int baseRank, int newRank)
{
    if (baseRank >= 0)
        json["base_rank"] = baseRank;
    if (newRank >= 0)
        json["new_rank"] = newRank;
}

} // namespace ks::analysis
