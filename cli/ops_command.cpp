// kinetoscope-cli ops: the operator table torch's key_averages().table() prints.
#include "cli/command.h"
#include "core/loading/loader.h"
#include "core/stats/operatortable.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ks::cli {

namespace {

struct OpsOptions {
    std::string path;
    std::string sort;
    std::size_t top = 0; // 0: all rows
    bool groupByShape = false;
    bool json = false;
};

void printOpsUsage(std::FILE* out)
{
    std::fprintf(out,
                 "usage: kinetoscope-cli ops [--sort COLUMN] [--top N] [--group-by-shape] [--json] FILE\n\n"
                 "The operator table of torch's key_averages().table(), computed from a trace.\n\n"
                 "  --sort COLUMN     self_cpu, cpu_total, cpu_avg, self_cuda, cuda_total, cuda_avg,\n"
                 "                    calls, name, or torch's sort_by names (cuda_time_total, ...);\n"
                 "                    default cuda_total when the trace has GPU activities, else cpu_total\n"
                 "  --top N           print the first N rows only\n"
                 "  --group-by-shape  one row per name and input shapes (needs record_shapes)\n"
                 "  --json            rows as JSON: name, calls, self_cpu_us, cpu_total_us,\n"
                 "                    self_cuda_us, cuda_total_us (and memory bytes, input_shapes)\n");
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
    constexpr double kb = 1024.0, mb = kb * 1024, gb = mb * 1024;
    const double magnitude = std::abs(double(bytes));
    char buffer[48];
    if (magnitude >= gb)
        std::snprintf(buffer, sizeof buffer, "%.2f Gb", double(bytes) / gb);
    else if (magnitude >= mb)
        std::snprintf(buffer, sizeof buffer, "%.2f Mb", double(bytes) / mb);
    else if (magnitude >= kb)
        std::snprintf(buffer, sizeof buffer, "%.2f Kb", double(bytes) / kb);
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
    struct Column { std::string header; std::size_t width; };
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

void printText(const OperatorTable& table, const std::vector<OperatorRow>& rows, bool shapes)
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
    if (shapes)
        text.addColumn("Input Shapes", kShapesWidth);

    std::vector<std::vector<std::string>> cells;
    for (const auto& r : rows) {
        std::vector<std::string> c{truncated(r.name, kNameWidth),
                                   formatPercent(r.selfCpu, table.selfCpuTotal),
                                   formatTime(r.selfCpu),
                                   formatPercent(r.cpuTotal, table.selfCpuTotal),
                                   formatTime(r.cpuTotal),
                                   formatTime(r.cpuAverage()),
                                   formatTime(r.selfDevice),
                                   formatPercent(r.selfDevice, table.selfDeviceTotal),
                                   formatTime(r.deviceTotal),
                                   formatTime(r.deviceAverage())};
        if (table.hasMemory) {
            for (const auto bytes : {r.cpuMemory, r.selfCpuMemory, r.deviceMemory, r.selfDeviceMemory})
                c.push_back(formatMemory(bytes));
        }
        c.push_back(std::to_string(r.calls));
        if (shapes)
            c.push_back(truncated(r.inputShapes, kShapesWidth));
        cells.push_back(std::move(c));
    }
    text.print(cells);
    std::cout << "Self CPU time total: " << formatTime(table.selfCpuTotal) << '\n';
    if (table.hasDeviceTime)
        std::cout << "Self CUDA time total: " << formatTime(table.selfDeviceTotal) << '\n';
}

void printJson(const OperatorTable& table, const std::vector<OperatorRow>& rows, bool shapes)
{
    const auto us = [](TimeNs ns) { return double(ns) / 1000.0; };
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
        nlohmann::ordered_json j{{"name", r.name}, {"calls", r.calls}, {"self_cpu_us", us(r.selfCpu)},
                         {"cpu_total_us", us(r.cpuTotal)}, {"self_cuda_us", us(r.selfDevice)},
                         {"cuda_total_us", us(r.deviceTotal)}, {"device", r.isDevice}};
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
    std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

bool parseOptions(const std::vector<std::string>& args, OpsOptions& options)
{
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json") {
            options.json = true;
        } else if (a == "--group-by-shape") {
            options.groupByShape = true;
        } else if ((a == "--sort" || a == "--top") && i + 1 < args.size()) {
            const std::string& value = args[++i];
            if (a == "--sort") {
                options.sort = value;
            } else {
                char* end = nullptr;
                options.top = std::strtoull(value.c_str(), &end, 10);
                if (value.empty() || *end) {
                    std::fprintf(stderr, "kinetoscope-cli ops: --top needs a number, got '%s'\n", value.c_str());
                    return false;
                }
            }
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "kinetoscope-cli ops: unknown or incomplete option '%s'\n", a.c_str());
            return false;
        } else if (options.path.empty()) {
            options.path = a;
        } else {
            std::fprintf(stderr, "kinetoscope-cli ops: more than one FILE given\n");
            return false;
        }
    }
    if (options.path.empty()) {
        std::fprintf(stderr, "kinetoscope-cli ops: no FILE given\n");
        return false;
    }
    return true;
}

} // namespace

int runOps(const std::vector<std::string>& args)
{
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            printOpsUsage(stdout);
            return 0;
        }
    }
    OpsOptions options;
    if (!parseOptions(args, options)) {
        printOpsUsage(stderr);
        return 2;
    }
    std::optional<OperatorSortKey> sortKey;
    if (!options.sort.empty()) {
        sortKey = operatorSortKeyFromName(options.sort);
        if (!sortKey) {
            std::fprintf(stderr, "kinetoscope-cli ops: unknown sort column '%s'\n", options.sort.c_str());
            return 2;
        }
    }
    const auto loaded = loadTraceFile(options.path);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli ops: %s: %s\n", options.path.c_str(),
                     loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
        return 1;
    }
    OperatorTableOptions tableOptions;
    tableOptions.groupByInputShapes = options.groupByShape;
    const OperatorTable table = computeOperatorTable(*loaded.trace, tableOptions);
    std::vector<OperatorRow> rows = table.rows;
    sortOperatorRows(rows, sortKey.value_or(table.hasDeviceTime ? OperatorSortKey::DeviceTotal : OperatorSortKey::CpuTotal));
    if (options.top && rows.size() > options.top)
        rows.resize(options.top);
    if (options.json)
        printJson(table, rows, options.groupByShape);
    else
        printText(table, rows, options.groupByShape);
    return 0;
}

} // namespace ks::cli
