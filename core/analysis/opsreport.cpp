#include "core/analysis/opsreport.h"

namespace ks::analysis {

namespace {

// JSON null for a figure the shapes do not give.
template <class T>
nlohmann::ordered_json orNull(const std::optional<T>& value)
{
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

} // namespace

OpsReport computeOpsReport(const facts::TraceFacts& facts, const OperatorReportOptions& options,
                           const PeakOverrides& overrides)
{
    const Trace& trace = *facts.trace;
    OpsReport report;
    OperatorTableOptions tableOptions;
    tableOptions.groupByInputShapes = options.groupByShape;
    report.table = computeOperatorTable(facts, tableOptions);
    report.rows = operatorReportRows(report.table, options);
    const OpCosts costs = OpCosts::ofRows(trace, report.rows);
    report.absurdOps = costs.absurdOps();
    if (!costs.warnings().empty())
        report.firstWarning = costs.warnings().front();
    report.peaks = resolveDevicePeaks(trace, overrides);
    report.roofline.reserve(report.rows.size());
    for (const OperatorRow& row : report.rows)
        report.roofline.push_back(rooflineOfRow(row, costs, report.peaks));
    return report;
}

void addRooflineJson(nlohmann::ordered_json& j, const RowRoofline& f)
{
    j["flops"] = orNull(f.flops);
    j["bytes"] = orNull(f.bytes);
    j["tflops_per_s"] = orNull(f.tflopsPerS);
    j["peak_fraction"] = orNull(f.peakFraction);
    j["bound"] =
        f.bound == Bound::Unknown ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(boundName(f.bound));
    if (f.rule == CostRule::None)
        return;
    j["flop_rule"] = costRuleName(f.rule);
    j["flops_per_byte"] = orNull(f.flopsPerByte);
    j["tb_per_s"] = orNull(f.tbPerS);
    j["peak"] = f.peakKind ? nlohmann::ordered_json(peakKindKey(*f.peakKind)) : nlohmann::ordered_json(nullptr);
    if (f.tf32PeakFraction)
        j["tf32_peak_fraction"] = *f.tf32PeakFraction;
    if (f.composite)
        j["composite"] = true;
    if (!f.flops)
        j["unknown_reason"] = f.unknownReason;
}

nlohmann::ordered_json opsReportJson(const OpsReport& report, bool shapes)
{
    nlohmann::ordered_json out = operatorRowsJson(report.table, report.rows, shapes);
    for (std::size_t i = 0; i < report.rows.size(); ++i)
        addRooflineJson(out[i], report.roofline[i]);
    return out;
}

} // namespace ks::analysis
