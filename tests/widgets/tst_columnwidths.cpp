// Kernel names run long (issue 35): every name column elides with the full name in its
// tooltip, and column widths the user sets are remembered (QSettings) for the next table.
#include "core/gpu/gpureport.h"
#include "fixture.h"
#include "widgets/columnwidths.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/kerneltablemodel.h"
#include "widgets/nvprofmodel.h"
#include "widgets/opstablemodel.h"
#include "widgets/statspanel.h"

#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace ks;

namespace {

// A panel whose first rows have arrived.
bool fill(StatsPanel& panel, const std::shared_ptr<const Trace>& trace)
{
    QSignalSpy rows(&panel, &StatsPanel::rowsUpdated);
    panel.setTrace(trace);
    return rows.wait(30000) && panel.model()->rowCount() > 0;
}

} // namespace

class TestColumnWidths : public QObject {
    Q_OBJECT
    std::shared_ptr<const Trace> m_trace;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTest"));
        QSettings().clear();
        m_trace = test::loadFixture("transformer");
    }

    void kernelTableKeepsTheWidthsTheUserSets()
    {
        StatsPanel first(new KernelTableModel);
        QVERIFY(fill(first, m_trace));
        const int name = first.model()->nameColumn();
        const int fitted = first.view()->columnWidth(name);
        QVERIFY(fitted > 0);
        // The user drags the name column wider (the header reports it as sectionResized).
        first.view()->horizontalHeader()->resizeSection(name, fitted + 137);

        StatsPanel second(new KernelTableModel);
        QVERIFY(fill(second, m_trace));
        QCOMPARE(second.view()->columnWidth(name), fitted + 137);
        // Another table keeps its own widths.
        StatsPanel operators(new OperatorTableModel);
        QVERIFY(fill(operators, m_trace));
        QVERIFY(operators.view()->columnWidth(operators.model()->nameColumn()) != fitted + 137);
    }

    void longKernelNamesHaveTheirFullNameInATooltip()
    {
        GpuSummaryPanel panel;
        panel.setReport(gpu::makeGpuReport(m_trace));
        const NvprofModel& activities = *panel.gpuActivitiesModel();
        QVERIFY(activities.rowCount() > 0);
        int longest = -1;
        for (int row = 0; row < activities.rowCount(); ++row) {
            const QString name = activities.index(row, NvprofModel::Name).data().toString();
            if (longest < 0 || name.size() > activities.index(longest, NvprofModel::Name).data().toString().size())
                longest = row;
        }
        const QString name = activities.index(longest, NvprofModel::Name).data().toString();
        QVERIFY2(name.size() > 60, qPrintable(name)); // a kernel name longer than the column shows
        QVERIFY(activities.index(longest, NvprofModel::Name).data(Qt::ToolTipRole).toString().contains(name));
        // The kernels table's name tooltip too.
        StatsPanel kernels(new KernelTableModel);
        QVERIFY(fill(kernels, m_trace));
        const int column = kernels.model()->nameColumn();
        for (int row = 0; row < kernels.model()->rowCount(); ++row) {
            const QModelIndex index = kernels.model()->index(row, column);
            QCOMPARE(index.data(Qt::ToolTipRole).toString(), index.data().toString());
        }
    }
};

QTEST_MAIN(TestColumnWidths)
#include "tst_columnwidths.moc"
