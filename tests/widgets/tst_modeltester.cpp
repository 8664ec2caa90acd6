// Every table model of the docks under QAbstractItemModelTester, filled from real traces and
// refilled (a reset), so that views never see an inconsistent model. The models' own values
// are asserted where they are cheap to know independently.
#include "core/analysis/calltree.h"
#include "core/analysis/criticalpath.h"
#include "core/analysis/diff.h"
#include "core/analysis/insights.h"
#include "core/analysis/memoryoptable.h"
#include "core/analysis/memoryreport.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/gpureport.h"
#include "core/loading/loader.h"
#include "core/timeline/namesearch.h"
#include "widgets/calltreemodel.h"
#include "widgets/criticalpathbreakdownmodel.h"
#include "widgets/criticalpathsegmentsmodel.h"
#include "widgets/difftablemodel.h"
#include "widgets/flamegraphdata.h"
#include "widgets/insightsmodel.h"
#include "widgets/liveallocationsmodel.h"
#include "widgets/nvprofmodel.h"
#include "widgets/operatormemorymodel.h"
#include "widgets/queryresultmodel.h"
#include "widgets/searchresultsmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace ks;

namespace {

std::shared_ptr<const Trace> fixture(const char* name)
{
    return loadTraceFile(std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz").trace;
}

// Reads every cell in the roles a view asks for (the tester checks their types), children
// included (tree models).
void readEveryCell(const QAbstractItemModel& model, const QModelIndex& parent = {})
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        for (int column = 0; column < model.columnCount(parent); ++column) {
            const QModelIndex index = model.index(row, column, parent);
            for (const int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::TextAlignmentRole)})
                (void)model.data(index, role);
        }
        readEveryCell(model, model.index(row, 0, parent));
    }
}

} // namespace

class TestModelTester : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void nvprofModel()
    {
        const auto report = gpu::makeGpuReport(fixture("train_baseline"));
        QVERIFY(report);
        for (const auto section : {NvprofModel::Section::GpuActivities, NvprofModel::Section::ApiCalls}) {
            NvprofModel model(section);
            QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setReport(report);
            QVERIFY(model.rowCount() > 0);
            readEveryCell(model);
            model.setReport(nullptr);
            QCOMPARE(model.rowCount(), 0);
            model.setReport(report);
        }
    }

    void insightsModel()
    {
        auto insights = analysis::findInsights(*facts::makeTraceFacts(fixture("train_baseline")));
        QVERIFY(!insights.empty());
        const std::size_t count = insights.size();
        InsightsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setInsights(std::move(insights));
        QCOMPARE(model.rowCount(), int(count));
        readEveryCell(model);
        QCOMPARE(model.data(model.index(0, 0), InsightsModel::kIdRole).toString().toStdString(),
                 model.insights().front().id);
        model.setInsights({});
        QCOMPARE(model.rowCount(), 0);
    }

    void searchResultsModel()
    {
        const auto trace = fixture("mlp_ops");
        QVERIFY(trace);
        const auto found = searchSliceNames(*trace, "aten::mm");
        QVERIFY(!found.slices.empty());
        SearchResultsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResults(trace, found.slices);
        QCOMPARE(model.rowCount(), int(found.slices.size()));
        readEveryCell(model);
        QCOMPARE(model.sliceAt(0), found.slices.front());
        QVERIFY(model.data(model.index(0, SearchResultsModel::Name)).toString().contains(QStringLiteral("aten::mm")));
        model.setResults(trace, {});
        QCOMPARE(model.rowCount(), 0);
    }

    void diffTableModel()
    {
        const auto loaded = analysis::loadDiffPair(KS_TEST_DATA "/train_baseline.pt.trace.json.gz",
                                                   KS_TEST_DATA "/train_optimized.pt.trace.json.gz");
        QVERIFY(!loaded.error);
        const auto report = analysis::diffTraces(loaded.workspace.members()[0], loaded.workspace.members()[1]);
        const std::pair<DiffTableModel::Kind, const std::vector<analysis::DiffRow>*> tables[] = {
            {DiffTableModel::Kind::Categories, &report.categories},
            {DiffTableModel::Kind::Operators, &report.ops},
            {DiffTableModel::Kind::Kernels, &report.kernels},
            {DiffTableModel::Kind::Memcpy, &report.memcpy},
        };
        for (const auto& [kind, rows] : tables) {
            DiffTableModel model(kind);
            QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
            model.setRows(*rows);
            QCOMPARE(model.rowCount(), int(rows->size()));
            QVERIFY(model.rowCount() > 0);
            readEveryCell(model);
            model.setRows({});
            QCOMPARE(model.rowCount(), 0);
        }
    }

    void callTreeModel()
    {
        const auto facts = facts::makeTraceFacts(fixture("mlp_ops"));
        analysis::CallTreeOptions options;
        options.gpuFrames = true;
        const auto tree = analysis::buildCallTree(*facts, options);
        CallTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setData(makeFlameGraphData(*facts->trace, tree, analysis::FoldedTime::Gpu));
        QVERIFY(model.rowCount() > 0);
        readEveryCell(model);
        model.setData(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void criticalPathModels()
    {
        const auto steps = analysis::criticalPathOf(facts::makeTraceFacts(fixture("train_baseline"))).analyzeSteps();
        QVERIFY(!steps.empty());
        CriticalPathBreakdownModel breakdown;
        QAbstractItemModelTester breakdownTester(&breakdown, QAbstractItemModelTester::FailureReportingMode::QtTest);
        breakdown.setStep(steps.front());
        QVERIFY(breakdown.rowCount() > 0);
        readEveryCell(breakdown);
        breakdown.clear();
        QCOMPARE(breakdown.rowCount(), 0);
        CriticalPathSegmentsModel segments;
        QAbstractItemModelTester segmentsTester(&segments, QAbstractItemModelTester::FailureReportingMode::QtTest);
        segments.setPath(steps.front().path, steps.front().start);
        QCOMPARE(segments.rowCount(), int(steps.front().path.segments.size()));
        readEveryCell(segments);
        segments.setPath({}, 0);
        QCOMPARE(segments.rowCount(), 0);
    }

    void memoryModels()
    {
        const auto report = std::make_shared<const analysis::MemoryReport>(
            analysis::makeMemoryReport(facts::makeTraceFacts(fixture("train_baseline"))));
        QVERIFY(!report->devices.empty());
        const analysis::DeviceMemory& device = report->devices.front();
        LiveAllocationsModel live;
        QAbstractItemModelTester liveTester(&live, QAbstractItemModelTester::FailureReportingMode::QtTest);
        live.setPeak(report, &device);
        QCOMPARE(live.rowCount(), int(analysis::liveAllocations(device, device.peakEvent).size()));
        QVERIFY(live.rowCount() > 0);
        readEveryCell(live);
        live.clear();
        QCOMPARE(live.rowCount(), 0);
        auto tables = analysis::makeOperatorMemoryTables(*report);
        const std::size_t rows = tables.front().rows.size();
        OperatorMemoryModel ops;
        QAbstractItemModelTester opsTester(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ops.setTable(std::move(tables.front()));
        QCOMPARE(ops.rowCount(), int(rows));
        readEveryCell(ops);
        ops.setTable({});
        QCOMPARE(ops.rowCount(), 0);
    }

    // Pages arrive one after the other (the Query dock's paging); a new query resets.
    void queryResultModel()
    {
        QueryResultModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.reset({QStringLiteral("name"), QStringLiteral("n")});
        QCOMPARE(model.columnCount(), 2);
        model.appendRows({{QStringLiteral("aten::mm"), 3}, {QStringLiteral("aten::add"), 2}}, false);
        model.appendRows({{QStringLiteral("aten::relu"), 1}}, true);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.value(2, 0).toString(), QStringLiteral("aten::relu"));
        readEveryCell(model);
        model.reset({QStringLiteral("x")});
        QCOMPARE(model.rowCount(), 0);
        model.finish();
    }
};

QTEST_MAIN(TestModelTester)
#include "tst_modeltester.moc"
