// Every table model of the docks under QAbstractItemModelTester, filled from real traces and
// refilled (a reset), so that views never see an inconsistent model. The models' own values
// are asserted where they are cheap to know independently.
#include "core/analysis/diff.h"
#include "core/analysis/insights.h"
#include "core/facts/tracefacts.h"
#include "core/gpu/gpureport.h"
#include "core/loading/loader.h"
#include "core/timeline/namesearch.h"
#include "widgets/difftablemodel.h"
#include "widgets/insightsmodel.h"
#include "widgets/nvprofmodel.h"
#include "widgets/searchresultsmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace ks;

namespace {

std::shared_ptr<const Trace> fixture(const char* name)
{
    return loadTraceFile(std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz").trace;
}

// Reads every cell in the roles a view asks for (the tester checks their types).
void readEveryCell(const QAbstractItemModel& model)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        for (int column = 0; column < model.columnCount(); ++column) {
            const QModelIndex index = model.index(row, column);
            for (const int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::TextAlignmentRole)})
                (void)model.data(index, role);
        }
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
};

QTEST_MAIN(TestModelTester)
#include "tst_modeltester.moc"
