#pragma once
// The operator table's rows as JSON, times in µs: the part of `kinetoscope-cli ops --json` that
// is the table (core/analysis/opsreport.h adds the FLOPs and the roofline).
#include "core/stats/operatortable.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace ks {

struct OperatorReportOptions {
    std::optional<OperatorSortKey> sort; // default: CUDA total when the trace has GPU time, else CPU total
    std::size_t top = 0; // 0: all rows
    bool groupByShape = false;
};

// The table's rows sorted and cut as the options say.
std::vector<OperatorRow> operatorReportRows(const OperatorTable& table, const OperatorReportOptions& options);

// Rows: name, calls, self_cpu_us, cpu_total_us, self_cuda_us, cuda_total_us, device (and
// input_shapes when grouped by shape, memory bytes when the trace has them).
nlohmann::ordered_json operatorRowsJson(const OperatorTable& table, const std::vector<OperatorRow>& rows, bool shapes);

} // namespace ks
