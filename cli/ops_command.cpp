// kinetoscope-cli ops: the operator table torch's key_averages().table() prints.
#include "cli/command.h"
#include "core/analysis/opsreport.h"
#include "core/facts/tracefacts.h"
#include "core/loading/loader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

struct OpsOptions {
    std::string path;
    std::string sort;
    std::size_t top = 0; // 0: all rows
    bool groupByShape = false;
    bool json = false;
    bool roofline = false;
    analysis::PeakOverrides peaks;
    facts::StepRules steps;
};

using analysis::RowRoofline;

std::string formatOptional(const std::optional<double>& value, const char* format, double scale = 1.0)
{
    if (!value)
        return "-";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, format, *value * scale);
    return buffer;
}

// torch's _format_time: µs with three decimals, in us, ms or s.
std::string formatTime(TimeNs ns)
{
    const double us = double(ns) / 1000.0;
    char buffer[64];
    if (us >= 1e6)
        std::snprintf(buffer, sizeof buffer, "%.3fs", us / 1e6);
    else if (us >= 1e3)
        std::snprintf(buffer, sizeof buffer, "%.3fms", us / 1e3);
    else
        std::snprintf(buffer, sizeof buffer, "%.3fus", us);
    return buffer;
}

std::string formatPercent(TimeNs part, TimeNs total)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f%%", total ? 100.0 * double(part) / double(total) : 0.0);
    return buffer;
}

// torch's _format_memory: "12.00 Mb", "-4.00 Kb", "512 b".
std::string formatMemory(std::int64_t bytes)
{
    constexpr double kKb = 1024.0, kMb = kKb * 1024, kGb = kMb * 1024;
    const double magnitude = std::abs(double(bytes));
    char buffer[48];
    if (magnitude >= kGb)
        std::snprintf(buffer, sizeof buffer, "%.2f Gb", double(bytes) / kGb);
    else if (magnitude >= kMb)
        std::snprintf(buffer, sizeof buffer, "%.2f Mb", double(bytes) / kMb);
    else if (magnitude >= kKb)
        std::snprintf(buffer, sizeof buffer, "%.2f Kb", double(bytes) / kKb);
    else
        std::snprintf(buffer, sizeof buffer, "%lld b", static_cast<long long>(bytes));
    return buffer;
}

class TextTable {
public:
    void addColumn(std::string header, std::size_t width) { m_columns.push_back({std::move(header), width}); }
    void print(const std::vector<std::vector<std::string>>& rows) const
    {
        line();
        cells([&](std::size_t c) { return m_columns[c].header; });
        line();
        for (const auto& row : rows)
            cells([&](std::size_t c) { return row[c]; });
        line();
    }

private:
    struct Column {
        std::string header;
        std::size_t width;
    };
    void line() const
    {
        for (const auto& c : m_columns)
            std::cout << std::string(c.width, '-') << "  ";
        std::cout << '\n';
    }
    template <class Cell>
    void cells(Cell cell) const
    {
        for (std::size_t c = 0; c < m_columns.size(); ++c) {
            const std::string text = cell(c);
            std::cout << std::string(text.size() < m_columns[c].width ? m_columns[c].width - text.size() : 0, ' ')
                      << text << "  ";
        }
        std::cout << '\n';
    }
    std::vector<Column> m_columns;
};

std::string truncated(const std::string& text, std::size_t width)
{
    return text.size() > width ? text.substr(0, width - 3) + "..." : text;
}

void printText(const OperatorTable& table, const std::vector<OperatorRow>& rows, bool shapes,
               const std::vector<RowRoofline>* roofline, const facts::TraceFacts& facts)
{
    constexpr std::size_t kNameWidth = 55, kShapesWidth = 35, kWidth = 12;
    std::size_t nameWidth = 4;
    for (const auto& r : rows)
        nameWidth = std::max(nameWidth, std::min(r.name.size(), kNameWidth));
    TextTable text;
    text.addColumn("Name", nameWidth);
    for (const char* h : {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "Self CUDA",
                          "Self CUDA %", "CUDA total", "CUDA time avg"})
        text.addColumn(h, kWidth);
    if (table.hasMemory) {
        for (const char* h : {"CPU Mem", "Self CPU Mem", "CUDA Mem", "Self CUDA Mem"})
            text.addColumn(h, kWidth);
    }
    text.addColumn("# of Calls", kWidth);
    if (roofline) {
        for (const char* h : {"GFLOPs", "TFLOP/s", "% of peak", "FLOPs/byte", "Bound"})
            text.addColumn(h, kWidth);
    }
    if (shapes)
        text.addColumn("Input Shapes", kShapesWidth);

    std::vector<std::vector<std::string>> cells;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const OperatorRow& r = rows[i];
        std::vector<std::string> c{truncated(r.name, kNameWidth), formatPercent(r.selfCpu, table.selfCpuTotal),
                                   formatTime(r.selfCpu),         formatPercent(r.cpuTotal, table.selfCpuTotal),
                                   formatTime(r.cpuTotal),        formatTime(r.cpuAverage()),
                                   formatTime(r.selfDevice),      formatPercent(r.selfDevice, table.selfDeviceTotal),
                                   formatTime(r.deviceTotal),     formatTime(r.deviceAverage())};
        if (table.hasMemory) {
            for (const auto bytes : {r.cpuMemory, r.selfCpuMemory, r.deviceMemory, r.selfDeviceMemory})
                c.push_back(formatMemory(bytes));
        }
        c.push_back(std::to_string(r.calls));
        if (roofline) {
            const RowRoofline& f = (*roofline)[i];
            const auto flops = f.flops ? std::optional(double(*f.flops)) : std::nullopt;
            c.push_back(formatOptional(flops, "%.3f", 1e-9));
            c.push_back(formatOptional(f.tflopsPerS, "%.2f"));
            c.push_back(formatOptional(f.peakFraction, "%.1f%%", 100.0));
            c.push_back(formatOptional(f.flopsPerByte, "%.1f"));
            c.push_back(f.bound == analysis::Bound::Unknown ? "-" : std::string(boundName(f.bound)));
        }
        if (shapes)
            c.push_back(truncated(r.inputShapes, kShapesWidth));
        cells.push_back(std::move(c));
    }
    text.print(cells);
    std::cout << "Self CPU time total: " << formatTime(table.selfCpuTotal) << '\n';
    if (table.hasDeviceTime)
        std::cout << "Self CUDA time total: " << formatTime(table.selfDeviceTotal) << '\n';
    // The table covers the whole trace (as key_averages does); the steps say what it spans.
    std::cout << "Steps: " << (facts.hasSteps() ? facts.windows.steps.size() : 0) << " from "
              << facts.windows.sourceName << '\n';
}

int runOps(const OpsOptions& options)
{
    const std::optional<OperatorSortKey> sortKey =
        options.sort.empty() ? std::nullopt : operatorSortKeyFromName(options.sort);
    const auto loaded = loadTraceFile(options.path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli ops: %s: %s\n", options.path.c_str(),
                     loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
        return 1;
    }
    const auto facts = facts::makeTraceFacts(loaded.trace, options.steps);
    const analysis::OpsReport report =
        analysis::computeOpsReport(*facts, {sortKey, options.top, options.groupByShape}, options.peaks);
    if (report.absurdOps)
        std::fprintf(stderr, "kinetoscope-cli ops: warning: %zu ops have absurd shapes and get no FLOPs (%s)\n",
                     report.absurdOps, report.firstWarning.c_str());
    if (options.json) {
        std::cout << analysis::opsReportJson(report, options.groupByShape)
                         .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
        return 0;
    }
    printText(report.table, report.rows, options.groupByShape, options.roofline ? &report.roofline : nullptr, *facts);
    const analysis::DevicePeaks& peaks = report.peaks;
    if (options.roofline)
        std::cout << "Peaks: " << (peaks.name.empty() ? std::string("unknown device") : peaks.name) << " ("
                  << (peaks.source.empty() ? std::string("no datasheet entry: use --peak-tflops/--peak-tbps")
                                           : peaks.source)
                  << ")\n";
    return 0;
}

} // namespace

void addOpsCommand(CLI::App& app)
{
    auto options = std::make_shared<OpsOptions>();
    auto* command = app.add_subcommand("ops", "operator table like torch's key_averages().table()");
    const CLI::Validator sortColumn(
        [](const std::string& name) -> std::string {
            return operatorSortKeyFromName(name) ? std::string() : "unknown sort column '" + name + "'";
        },
        "");
    command->footer("The operator table of torch's key_averages().table(), computed from a trace.\n\n"
                    "COLUMN: self_cpu, cpu_total, cpu_avg, self_cuda, cuda_total, cuda_avg, calls, name, or\n"
                    "torch's sort_by names (cuda_time_total, ...); default cuda_total when the trace has GPU\n"
                    "activities, else cpu_total.\n"
                    "--json rows: name, calls, self_cpu_us, cpu_total_us, self_cuda_us, cuda_total_us, device\n"
                    "(and memory bytes, input_shapes), flops, bytes, tflops_per_s, peak_fraction, bound\n"
                    "(null where the shapes give no count; see docs/roofline.md).");
    command->add_option("--sort", options->sort, "sort by COLUMN (see below)")->type_name("COLUMN")->check(sortColumn);
    command->add_option("--top", options->top, "print the first N rows only (0: all)")->type_name("N")->check(kCount);
    command->add_flag("--group-by-shape", options->groupByShape, "one row per name and input shapes (record_shapes)");
    command->add_flag("--json", options->json, "rows as JSON");
    command->add_flag("--roofline", options->roofline,
                      "add GFLOPs, TFLOP/s, % of peak, FLOPs/byte and bound columns (record_shapes)");
    addPeakOptions(command, options->peaks);
    addStepsOption(command, options->steps);
    command->add_option("FILE", options->path, "trace (.json or .json.gz)")->type_name("")->required();
    command->callback([options] { exitWith(runOps(*options)); });
}

} // namespace ks::cli
