#include "core/analysis/memoryoptable.h"

#include <algorithm>
#include <tuple>

namespace ks::analysis {

namespace {

// Rows of one device keyed by name id (kNoIndex: "<unknown>").
class TableBuilder {
public:
    explicit TableBuilder(const Trace& trace)
        : m_trace(trace)
    {
    }

    OperatorMemoryRow& rowOf(StringId name)
    {
        if (name == kNoIndex) {
            if (m_unknown == kNoIndex) {
                m_unknown = static_cast<std::uint32_t>(m_rows.size());
                m_rows.push_back({std::string(kUnknownOp)});
            }
            return m_rows[m_unknown];
        }
        if (name >= m_rowOfName.size())
            m_rowOfName.resize(name + 1, kNoIndex);
        if (m_rowOfName[name] == kNoIndex) {
            m_rowOfName[name] = static_cast<std::uint32_t>(m_rows.size());
            m_rows.push_back({std::string(m_trace.str(name))});
        }
        return m_rows[m_rowOfName[name]];
    }

    // Calls: every op or range of a row's name on the host.
    void countCalls()
    {
        const auto& slices = m_trace.slices();
        for (SliceId s = 0; s < slices.size(); ++s) {
            const StringId name = slices.name[s];
            if (name < m_rowOfName.size() && m_rowOfName[name] != kNoIndex && isMemoryOwnerClass(m_trace.classOf(s)))
                ++m_rows[m_rowOfName[name]].calls;
        }
    }

    std::vector<OperatorMemoryRow> take() { return std::move(m_rows); }

private:
    const Trace& m_trace;
    std::vector<std::uint32_t> m_rowOfName;
    std::vector<OperatorMemoryRow> m_rows;
    std::uint32_t m_unknown = kNoIndex;
};

void addEvent(OperatorMemoryRow& row, std::int64_t bytes, bool self)
{
    const bool allocation = bytes > 0;
    if (self) {
        row.selfSizeIncrease = addBytes(row.selfSizeIncrease, bytes);
        row.selfAllocationCount += allocation;
        row.selfAllocationSize = addBytes(row.selfAllocationSize, allocation ? bytes : 0);
    }
    row.sizeIncrease = addBytes(row.sizeIncrease, bytes);
    row.allocationCount += allocation;
    row.allocationSize = addBytes(row.allocationSize, allocation ? bytes : 0);
}

} // namespace

std::vector<OperatorMemoryTable> makeOperatorMemoryTables(const MemoryReport& report)
{
    const Trace& trace = *report.facts->trace;
    const auto& all = report.events();
    std::vector<OperatorMemoryTable> tables;
    std::vector<SliceId> chain;
    for (const DeviceMemory& device : report.devices) {
        TableBuilder builder(trace);
        for (const std::uint32_t index : device.events) {
            const MemoryEvent& e = all[index];
            opChainAt(trace, trace.instants().track[e.instant], e.time, chain);
            if (chain.empty()) {
                addEvent(builder.rowOf(kNoIndex), e.bytes, true);
                continue;
            }
            for (std::size_t k = 0; k < chain.size(); ++k)
                addEvent(builder.rowOf(trace.slices().name[chain[k]]), e.bytes, k + 1 == chain.size());
        }
        builder.countCalls();
        OperatorMemoryTable table{device.name, builder.take()};
        std::sort(table.rows.begin(), table.rows.end(), [](const OperatorMemoryRow& a, const OperatorMemoryRow& b) {
            return std::tie(b.selfAllocationSize, b.allocationSize, a.name)
                < std::tie(a.selfAllocationSize, a.allocationSize, b.name);
        });
        tables.push_back(std::move(table));
    }
    return tables;
}

} // namespace ks::analysis
