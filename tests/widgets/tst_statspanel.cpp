// The Operators and Kernels tables: models checked with QAbstractItemModelTester, the
// panel's filter, range following, occurrence stepping and copy.
#include "core/loading/loader.h"
#include "widgets/kerneltablemodel.h"
#include "widgets/opstablemodel.h"
#include "widgets/statsformat.h"
#include "widgets/statspanel.h"
#include "widgets/statsrangemodel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLocale>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

#include <limits>

using namespace ks;

namespace {

std::shared_ptr<const Trace> load(const char* name)
{
    return loadTraceFile(std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz").trace;
}

int proxyRowOf(const StatsPanel& panel, const QString& name, const QString& side = QStringLiteral("CPU"))
{
    const auto* proxy = panel.proxy();
    for (int r = 0; r < proxy->rowCount(); ++r) {
        if (proxy->index(r, OperatorTableModel::Name).data().toString() == name
            && proxy->index(r, OperatorTableModel::Side).data().toString() == side)
            return r;
    }
    return -1;
}

} // namespace

class TestStatsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        m_mlp = load("mlp_ops");
        m_transformer = load("transformer");
        QVERIFY(m_mlp && m_transformer);
    }

    // Bytes as the tables show them, down to the most negative count (which has no opposite).
    void bytesText()
    {
        QCOMPARE(statsBytes(512), QLocale().formattedDataSize(512));
        QCOMPARE(statsBytes(-(4 << 20)), QLatin1Char('-') + QLocale().formattedDataSize(4 << 20));
        QCOMPARE(statsBytes(std::numeric_limits<std::int64_t>::min()),
                 QLatin1Char('-') + QLocale().formattedDataSize(std::numeric_limits<qint64>::max()));
    }

    void operatorModel()
    {
        OperatorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTable(computeOperatorTable(*m_mlp));
        QCOMPARE(model.rowCount(), 81);
        QCOMPARE(model.columnCount(), 13); // no memory, no input shapes; Tensor Cores Used (kernels)
        QCOMPARE(model.headerData(OperatorTableModel::SelfDevice, Qt::Horizontal).toString(),
                 QStringLiteral("Self CUDA"));
        int addmm = -1;
        for (int r = 0; r < model.rowCount(); ++r) {
            if (model.index(r, OperatorTableModel::Name).data().toString() == QLatin1String("aten::addmm"))
                addmm = r;
        }
        QVERIFY(addmm >= 0);
        QCOMPARE(model.visibleColumn(OperatorTableModel::CpuMemory), -1);
        QCOMPARE(model.index(addmm, model.visibleColumn(OperatorTableModel::Calls)).data().toString(),
                 QStringLiteral("8"));
        QCOMPARE(model.index(addmm, OperatorTableModel::SelfCpu).data(StatsTableModel::kSortRole).toLongLong(), 542522);
        QCOMPARE(model.index(addmm, OperatorTableModel::SelfDevicePct).data().toString(), QStringLiteral("33.25%"));
        QCOMPARE(model.index(addmm, OperatorTableModel::CpuTotal).data().toString(),
                 QString::fromStdString(formatDuration(4019403)));
        QCOMPARE(model.occurrences(addmm).size(), std::size_t(8));
        // mlp_ops' fp16 steps run aten::addmm on nvjet (tensor-core) kernels.
        QCOMPARE(model.index(addmm, model.visibleColumn(OperatorTableModel::TensorCores)).data().toString(),
                 QStringLiteral("Yes"));

        model.setTable(computeOperatorTable(*m_transformer)); // [memory] events: 4 more columns
        QCOMPARE(model.columnCount(), 17);
        QCOMPARE(model.headerData(15, Qt::Horizontal).toString(), QStringLiteral("# of Calls"));
        QCOMPARE(model.headerData(16, Qt::Horizontal).toString(), QStringLiteral("Tensor Cores Used"));
        QCOMPARE(model.columnAt(14), OperatorTableModel::SelfDeviceMemory);
    }

    void kernelModel()
    {
        KernelTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(computeKernelStats(*m_transformer));
        QCOMPARE(model.rowCount(), 35);
        const auto column = [&](KernelTableModel::Column c) { return model.visibleColumn(c); };
        QCOMPARE(model.index(0, column(KernelTableModel::Calls)).data().toString(), QStringLiteral("12"));
        QCOMPARE(model.index(0, column(KernelTableModel::Total)).data(StatsTableModel::kSortRole).toLongLong(), 545473);
        QCOMPARE(model.index(0, column(KernelTableModel::Grid)).data().toString(), QStringLiteral("[2, 1, 128] *"));
        QCOMPARE(model.index(0, column(KernelTableModel::Registers)).data().toString(), QStringLiteral("190"));
        QCOMPARE(model.index(1, column(KernelTableModel::Occupancy)).data().toString(), QStringLiteral("12.00"));
    }

    // Whole trace: a kernel's total over all tracks equals the Kernels table's; one busy
    // row per GPU stream with the union of its GPU work.
    void rangeModel()
    {
        auto* range = new RangeAggregateModel;
        StatsPanel panel(range); // owns the model
        QAbstractItemModelTester tester(range, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const RangeAggregateModel& model = *range;
        QSignalSpy updated(&panel, &StatsPanel::rowsUpdated);
        panel.setTrace(m_transformer);
        QTRY_COMPARE(updated.count(), 1);
        const auto kernels = computeKernelStats(*m_transformer);
        const auto& aggregates = model.aggregates();
        QVERIFY(!aggregates.streams.empty());
        QCOMPARE(model.rowCount(), int(aggregates.rows.size() + aggregates.streams.size()));
        bool found = false;
        for (int r = 0; r < int(aggregates.rows.size()); ++r) {
            if (aggregates.rows[r].name == kernels[0].name) {
                QCOMPARE(aggregates.rows[r].count, kernels[0].calls);
                QCOMPARE(model.index(r, RangeAggregateModel::Total).data(StatsTableModel::kSortRole).toLongLong(),
                         qint64(kernels[0].total));
                found = true;
            }
        }
        QVERIFY(found);
        const int busyRow = int(aggregates.rows.size());
        QVERIFY(model.index(busyRow, RangeAggregateModel::Name).data().toString().endsWith(QLatin1String("(busy)")));
        QVERIFY(model.occurrences(busyRow).empty());

        // A range of one kernel: that kernel, clipped to itself.
        const SliceId k = kernels[0].slices.front();
        panel.setRange(m_transformer->slices().start[k], m_transformer->slices().end(k));
        QTRY_COMPARE(updated.count(), 2);
        bool kernelInRange = false;
        for (const auto& row : model.aggregates().rows) {
            if (row.name == kernels[0].name) {
                QCOMPARE(row.count, 1u);
                QCOMPARE(row.total, m_transformer->slices().duration[k]);
                kernelInRange = true;
            }
        }
        QVERIFY(kernelInRange);
    }

    void kernelGroupingOption()
    {
        auto* model = new KernelTableModel;
        StatsPanel panel(model);
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy updated(&panel, &StatsPanel::rowsUpdated);
        panel.setTrace(m_transformer);
        QTRY_COMPARE(updated.count(), 1);
        QCOMPARE(model->visibleColumn(KernelTableModel::Operator), -1);
        QCOMPARE(model->options().size(), 1);
        model->options().front()->trigger(); // what the panel's tool button does
        QTRY_COMPARE(updated.count(), 2);
        QVERIFY(model->groupByOperatorAndLaunchConfig());
        QCOMPARE(model->visibleColumn(KernelTableModel::Operator), 1);
        QCOMPARE(model->headerData(1, Qt::Horizontal).toString(), QStringLiteral("Operator"));
        QVERIFY(model->rowCount() > 35);
        // Sorted by total: the default column moved with the new one.
        QCOMPARE(panel.proxy()->sortColumn(), model->visibleColumn(KernelTableModel::Total));
    }

    void delimitedText()
    {
        KernelTableModel model;
        model.setRows(computeKernelStats(*m_transformer));
        const QString csv = statsDelimitedText(model, {0}, QLatin1Char(','));
        const QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY(lines[0].startsWith(QLatin1String("Name,Calls,Total Duration,")));
        // The launch configuration "[2, 1, 128] *" has commas, so it is quoted.
        QVERIFY(lines[1].contains(QLatin1String(",\"[2, 1, 128] *\",")));
        const QString tsv = statsDelimitedText(model, {0, 1}, QLatin1Char('\t'));
        QCOMPARE(tsv.count(QLatin1Char('\n')), 3);
        QCOMPARE(tsv.section(QLatin1Char('\n'), 1, 1).count(QLatin1Char('\t')), model.columnCount() - 1);
    }

    void panelComputesFiltersAndSteps()
    {
        StatsPanel panel(new OperatorTableModel);
        QSignalSpy updated(&panel, &StatsPanel::rowsUpdated);
        panel.setTrace(m_mlp);
        QTRY_COMPARE(updated.count(), 1);
        QCOMPARE(panel.proxy()->rowCount(), 81);
        // Sorted by CUDA total like torch's table: the GPU-side fp16_step first.
        QCOMPARE(panel.proxy()->index(0, OperatorTableModel::Name).data().toString(), QStringLiteral("fp16_step"));
        QCOMPARE(panel.proxy()->index(0, OperatorTableModel::Side).data().toString(), QStringLiteral("GPU"));

        panel.setFilterText(QStringLiteral("ATEN::MM"));
        QCOMPARE(panel.proxy()->rowCount(), 1);
        panel.view()->setCurrentIndex(panel.proxy()->index(0, 0));
        const auto occurrences = panel.currentOccurrences();
        QCOMPARE(occurrences.size(), std::size_t(12));
        QSignalSpy requested(&panel, &StatsPanel::occurrenceRequested);
        panel.nextOccurrence();
        panel.nextOccurrence();
        panel.previousOccurrence();
        panel.previousOccurrence(); // wraps to the last
        QCOMPARE(requested.count(), 4);
        QCOMPARE(requested[0][0].value<SliceId>(), occurrences[0]);
        QCOMPARE(requested[1][0].value<SliceId>(), occurrences[1]);
        QCOMPARE(requested[3][0].value<SliceId>(), occurrences[11]);
        for (std::size_t i = 1; i < occurrences.size(); ++i)
            QVERIFY(m_mlp->slices().start[occurrences[i - 1]] <= m_mlp->slices().start[occurrences[i]]);

        panel.setLongestFirst(true);
        panel.nextOccurrence();
        const SliceId longest = requested.last()[0].value<SliceId>();
        for (const SliceId s : occurrences)
            QVERIFY(m_mlp->slices().duration[s] <= m_mlp->slices().duration[longest]);
    }

    void panelFollowsRange()
    {
        StatsPanel panel(new OperatorTableModel);
        QSignalSpy updated(&panel, &StatsPanel::rowsUpdated);
        panel.setTrace(m_mlp);
        QTRY_COMPARE(updated.count(), 1);
        const int step = proxyRowOf(panel, QStringLiteral("fp32_step"));
        QVERIFY(step >= 0);
        const int calls = static_cast<OperatorTableModel*>(panel.model())->visibleColumn(OperatorTableModel::Calls);
        QCOMPARE(panel.proxy()->index(step, calls).data().toString(), QStringLiteral("2"));
        panel.view()->setCurrentIndex(panel.proxy()->index(step, 0));
        const SliceId first = panel.currentOccurrences().front();

        panel.setRange(m_mlp->slices().start[first], m_mlp->slices().end(first));
        QTRY_COMPARE(updated.count(), 2);
        const int inRange = proxyRowOf(panel, QStringLiteral("fp32_step"));
        QCOMPARE(panel.proxy()->index(inRange, calls).data().toString(), QStringLiteral("1"));
        QCOMPARE(proxyRowOf(panel, QStringLiteral("fp16_step")), -1);

        panel.clearRange();
        QTRY_COMPARE(updated.count(), 3);
        QCOMPARE(panel.proxy()->rowCount(), 81);

        // The visible range counts only while "Visible range only" is on.
        panel.setVisibleRange(m_mlp->slices().start[first], m_mlp->slices().end(first));
        QTest::qWait(250);
        QCOMPARE(updated.count(), 3);
        panel.setFollowVisibleRange(true);
        QTRY_COMPARE(updated.count(), 4);
        QCOMPARE(proxyRowOf(panel, QStringLiteral("fp16_step")), -1);
        QVERIFY(panel.effectiveRange());
    }

    void groupByShapesAddsColumn()
    {
        auto* model = new OperatorTableModel;
        StatsPanel panel(model);
        QSignalSpy updated(&panel, &StatsPanel::rowsUpdated);
        panel.setTrace(load("square"));
        QTRY_COMPARE(updated.count(), 1);
        const int columns = model->columnCount();
        model->setGroupByInputShapes(true);
        QTRY_COMPARE(updated.count(), 2);
        QCOMPARE(model->columnCount(), columns + 1);
        QCOMPARE(model->headerData(columns, Qt::Horizontal).toString(), QStringLiteral("Input Shapes"));
    }

private:
    std::shared_ptr<const Trace> m_mlp, m_transformer;
};

QTEST_MAIN(TestStatsPanel)
#include "tst_statspanel.moc"
