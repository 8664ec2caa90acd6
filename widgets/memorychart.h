#pragma once
// One device's memory over time: the allocator's allocated and reserved totals as step plots,
// the y-axis in MB or GB, the peak marked; hovering shows the values in force, a click picks a
// time (the Memory dock then lists what is alive). Colours follow the palette.
#include "core/analysis/memoryreport.h"

#include <qcustomplot.h>

#include <cmath>

namespace ks {

class MemoryChart : public QCustomPlot {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);
    // The device's curves (nullptr: empty); times are drawn in ms from the trace's start.
    void setDevice(const analysis::MemoryReport* report, const analysis::DeviceMemory* device);
    // A vertical line at the chosen time (trace ns); < 0 hides it.
    void setChosenTime(TimeNs time);
    // Bytes per axis unit (1e6 or 1e9) and its name, for tests.
    double unitBytes() const { return m_unit; }
    QString unitName() const;
    // What hovering at a time shows.
    QString toolTipAt(TimeNs time) const;

Q_SIGNALS:
    void timeClicked(ks::TimeNs time);

private:
    TimeNs timeOf(double key) const { return m_origin + TimeNs(std::llround(key * 1e6)); }

    const analysis::MemoryReport* m_report = nullptr;
    const analysis::DeviceMemory* m_device = nullptr;
    QCPGraph* m_allocated;
    QCPGraph* m_reserved;
    QCPItemStraightLine* m_peakLine;
    QCPItemText* m_peakLabel;
    QCPItemStraightLine* m_chosenLine;
    TimeNs m_origin = 0;
    double m_unit = 1e6;
};

} // namespace ks
