#pragma once
// One section of nvprof's summary ("GPU activities" or "API calls") as a table: Time(%),
// Time, Calls, Avg, Min, Max, Name, with the CLI's text (`kinetoscope-cli gpu`) and the
// number itself under Qt::UserRole (ns, calls, percent) for sorting.
#include "core/gpu/gpureport.h"

#include <QAbstractTableModel>

#include <memory>

namespace ks {

class NvprofModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum class Section { GpuActivities, ApiCalls };
    enum Column { TimePercent, Time, Calls, Average, Min, Max, Name, ColumnCount };

    explicit NvprofModel(Section section, QObject* parent = nullptr);
    void setReport(std::shared_ptr<const gpu::GpuReport> report);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    const std::vector<gpu::NvprofRow>* rows() const;

    Section m_section;
    std::shared_ptr<const gpu::GpuReport> m_report;
};

} // namespace ks
