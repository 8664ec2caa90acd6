#pragma once
// The allocations of one device alive at a chosen time, largest first: size, the op that
// allocated each, its Python stack (with_stack traces) and its age at that time. The Memory
// dock shows it; a row's op can be selected on the timeline (opAt).
#include "core/analysis/memoryreport.h"

#include <QAbstractTableModel>

#include <memory>

namespace ks {

class LiveAllocationsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { SizeColumn, OpColumn, AgeColumn, AllocatedAtColumn, StackColumn, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole; // numbers for the proxy's sort

    using QAbstractTableModel::QAbstractTableModel;

    // The allocations of `device` alive right after the events at or before `time`.
    void setTime(std::shared_ptr<const analysis::MemoryReport> report, const analysis::DeviceMemory* device,
                 TimeNs time);
    // The same right after the device's peak event.
    void setPeak(std::shared_ptr<const analysis::MemoryReport> report, const analysis::DeviceMemory* device);
    void clear();

    TimeNs time() const { return m_time; }
    std::int64_t totalBytes() const { return m_totalBytes; }
    // The op that allocated a row's block (kNoSlice when none).
    SliceId opAt(int row) const;
    // Whether the trace has Python frames (with_stack) for StackColumn to show.
    bool hasPythonStacks() const { return m_hasPythonStacks; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void setRows(std::shared_ptr<const analysis::MemoryReport> report, const analysis::DeviceMemory* device,
                 std::vector<std::uint32_t> live, TimeNs time);
    const analysis::Allocation& allocation(int row) const { return m_device->allocations[m_live[std::size_t(row)]]; }

    std::shared_ptr<const analysis::MemoryReport> m_report;
    const analysis::DeviceMemory* m_device = nullptr;
    std::vector<std::uint32_t> m_live;
    TimeNs m_time = 0;
    std::int64_t m_totalBytes = 0;
    bool m_hasPythonStacks = false;
};

} // namespace ks
