#pragma once
// The operator table with each row's FLOPs, bytes and place on the roofline: what
// `kinetoscope-cli ops` prints, the Python module's ops() returns and the Operators dock shows
// (docs/roofline.md). One implementation for the three.
#include "core/analysis/opcosts.h"
#include "core/facts/tracefacts.h"
#include "core/stats/operatortablejson.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace ks::analysis {

struct OpsReport {
    OperatorTable table;
    std::vector<OperatorRow> rows; // sorted and cut as asked
    std::vector<RowRoofline> roofline; // one per row
    DevicePeaks peaks;
    std::size_t absurdOps = 0; // ops whose shapes were absurd (no FLOPs), see OpCosts
    std::string firstWarning;
};

OpsReport computeOpsReport(const facts::TraceFacts& facts, const OperatorReportOptions& options,
                           const PeakOverrides& overrides = {});

// The roofline fields of one `ops --json` row: flops, bytes, tflops_per_s, peak_fraction, bound
// (null where the shapes give no count), and with a FLOP rule flop_rule, flops_per_byte,
// tb_per_s, peak, tf32_peak_fraction (fp32), composite, unknown_reason.
void addRooflineJson(nlohmann::ordered_json& row, const RowRoofline& roofline);

// The report's rows as `ops --json` prints them: operatorRowsJson's fields and the roofline's.
nlohmann::ordered_json opsReportJson(const OpsReport& report, bool shapes);

} // namespace ks::analysis
