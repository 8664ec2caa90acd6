#pragma once
// The "Operator memory" table of each device, with the TensorBoard plugin's columns: every
// [memory] event counts for the innermost op or range around it on its thread (self) and for
// every op and range enclosing that one (total). Unlike the plugin, events on the autograd
// thread and those directly inside ProfilerStep, Optimizer or module ranges count too
// (docs/memory.md), and events outside any op count for "<unknown>": a device's self
// allocation sizes add up to all of its allocations.
#include "core/analysis/memoryreport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ks::analysis {

struct OperatorMemoryRow {
    std::string name;
    std::uint64_t calls = 0; // instances of the name in the trace (0 for "<unknown>")
    std::int64_t sizeIncrease = 0, selfSizeIncrease = 0; // bytes allocated minus freed
    std::uint64_t allocationCount = 0, selfAllocationCount = 0;
    std::int64_t allocationSize = 0, selfAllocationSize = 0; // bytes allocated
};

struct OperatorMemoryTable {
    std::string device; // "CPU", "GPU0"
    std::vector<OperatorMemoryRow> rows; // by self allocation size, then allocation size, largest first
};

// One table per device of the report, in its order.
std::vector<OperatorMemoryTable> makeOperatorMemoryTables(const MemoryReport& report);

} // namespace ks::analysis
