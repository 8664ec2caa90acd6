// kinetoscope-cli memory: per device the allocator's peaks, what is alive at the peak and which
// op allocated it, and the Operator memory table (profile_memory=True traces; docs/memory.md).
#include "cli/command.h"
#include "core/analysis/memoryjson.h"
#include "core/loading/loader.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace ks::cli {

namespace {

// "512 B", "1.5 KB", "33.6 MB", "1.32 GB" (powers of 1000, as the GUI's axis).
std::string humanBytes(std::int64_t bytes)
{
    const double b = double(bytes), magnitude = std::abs(b);
    char text[32];
    if (magnitude < 1e3)
        std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
    else if (magnitude < 1e6)
        std::snprintf(text, sizeof text, "%.1f KB", b / 1e3);
    else if (magnitude < 1e9)
        std::snprintf(text, sizeof text, "%.1f MB", b / 1e6);
    else
        std::snprintf(text, sizeof text, "%.2f GB", b / 1e9);
    return text;
}

void printText(const analysis::MemoryReport& report, const std::vector<analysis::OperatorMemoryTable>& tables)
{
    if (report.devices.empty()) {
        std::cout << "No [memory] events (record with profile_memory=True).\n";
        return;
    }
    constexpr std::size_t kShown = 10;
    const TimeNs origin = report.facts->trace->startTime();
    for (std::size_t d = 0; d < report.devices.size(); ++d) {
        const analysis::DeviceMemory& device = report.devices[d];
        std::printf("%s: peak %s allocated at %.3f ms, %s reserved; %zu events, %zu allocations, %llu never freed\n",
                    device.name.c_str(), humanBytes(device.peakAllocated).c_str(),
                    toMicros(device.peakTime - origin) / 1000.0, humanBytes(device.peakReserved).c_str(),
                    device.events.size(), device.allocations.size(),
                    static_cast<unsigned long long>(device.neverFreed));
        if (device.anomalies.total() > 0)
            std::printf("  anomalies: %llu unmatched frees, %llu reused addresses, %llu size mismatches, %llu "
                        "negative totals, %llu absurd sizes, %llu without address\n",
                        static_cast<unsigned long long>(device.anomalies.unmatchedFrees),
                        static_cast<unsigned long long>(device.anomalies.reusedAddresses),
                        static_cast<unsigned long long>(device.anomalies.sizeMismatches),
                        static_cast<unsigned long long>(device.anomalies.negativeTotals),
                        static_cast<unsigned long long>(device.anomalies.absurdSizes),
                        static_cast<unsigned long long>(device.anomalies.withoutAddress));
        const auto live = analysis::liveAllocations(device, device.peakEvent);
        std::printf("  alive at the peak (%zu), largest first:\n", live.size());
        for (std::size_t k = 0; k < live.size() && k < kShown; ++k) {
            const analysis::Allocation& a = device.allocations[live[k]];
            std::printf("    %12s  %-40s allocated at %.3f ms\n", humanBytes(a.bytes).c_str(),
                        std::string(analysis::allocationOpName(*report.facts->trace, a.op)).c_str(),
                        toMicros(a.time - origin) / 1000.0);
        }
        std::printf("  operators by self allocation size:\n    %-40s %8s %14s %14s %10s %14s\n", "Name", "Calls",
                    "Size Increase", "Self Increase", "Self Allocs", "Self Size");
        const auto& rows = tables[d].rows;
        for (std::size_t k = 0; k < rows.size() && k < kShown; ++k)
            std::printf("    %-40s %8llu %14s %14s %10llu %14s\n", rows[k].name.c_str(),
                        static_cast<unsigned long long>(rows[k].calls), humanBytes(rows[k].sizeIncrease).c_str(),
                        humanBytes(rows[k].selfSizeIncrease).c_str(),
                        static_cast<unsigned long long>(rows[k].selfAllocationCount),
                        humanBytes(rows[k].selfAllocationSize).c_str());
        std::cout << '\n';
    }
}

struct MemoryOptions {
    std::string file;
    bool json = false;
};

int runMemory(const MemoryOptions& options)
{
    const auto loaded = loadTraceFile(options.file);
    if (!loaded.ok()) {
        std::fprintf(stderr, "kinetoscope-cli memory: %s: %s\n", options.file.c_str(),
                     loaded.fatal ? loaded.fatal->located().c_str() : "cancelled");
        return 1;
    }
    const auto report = analysis::makeMemoryReport(facts::makeTraceFacts(loaded.trace));
    const auto tables = analysis::makeOperatorMemoryTables(report);
    if (options.json)
        std::cout << analysis::memoryReportToJson(report, tables)
                         .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    else
        printText(report, tables);
    return 0;
}

} // namespace

void addMemoryCommand(CLI::App& app)
{
    auto options = std::make_shared<MemoryOptions>();
    auto* command = app.add_subcommand("memory", "memory per device: peaks, what is alive at the peak, per-op memory");
    command->footer("Needs a trace recorded with profile_memory=True.\n\n"
                    "--json: {\"devices\":[{\"device\",\"peak_allocated_bytes\",\"peak_reserved_bytes\",\n"
                    "        \"peak_time_us\",\"events\",\"never_freed\",\"live_at_peak\":[{\"bytes\",\"op\",\n"
                    "        \"alloc_time_us\"}]}],\"ops\":[{\"device\",\"name\",\"calls\",\"size_increase_bytes\",\n"
                    "        \"self_size_increase_bytes\",\"allocation_count\",\"self_allocation_count\",\n"
                    "        \"allocation_size_bytes\",\"self_allocation_size_bytes\"}]}");
    command->add_flag("--json", options->json, "machine-readable output");
    command->add_option("FILE", options->file, "trace file (.json or .json.gz)")->type_name("")->required();
    command->callback([options] { exitWith(runMemory(*options)); });
}

} // namespace ks::cli
