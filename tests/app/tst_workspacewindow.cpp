// The main window with several traces (issues 12, 13), driven like a user would:
// `--diff` on the baseline/optimized fixtures (aligned at the first common step, a
// kernel row double-clicked in the Diff dock), the two DDP ranks (groups in rank order,
// a collective selected and its cross-rank link followed from Details), a merged collected
// file opened as its ranks (gloo on one GPU; NCCL on two, its Ranks dock), and a folder with a
// corrupt file among three.
#include "app/mainwindow.h"
#include "app/workspacecontroller.h"
#include "core/loading/loader.h"
#include "fixturejson.h"
#include "widgets/detailspanel.h"
#include "widgets/diffpanel.h"
#include "widgets/rankspanel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <charconv>
#include <map>

using namespace ks;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

std::shared_ptr<const Trace> load(const char* name) { return loadTraceFile(fixture(name).toStdString()).trace; }

// ProfilerStep#N -> start, from the fixture's own slices.
std::map<long long, TimeNs> stepStarts(const Trace& trace)
{
    std::map<long long, TimeNs> starts;
    constexpr std::string_view prefix = "ProfilerStep#";
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        const std::string_view name = trace.str(trace.slices().name[s]);
        if (!name.starts_with(prefix))
            continue;
        long long n = -1;
        std::from_chars(name.data() + prefix.size(), name.data() + name.size(), n);
        const auto it = starts.find(n);
        if (it == starts.end() || trace.slices().start[s] < it->second)
            starts[n] = trace.slices().start[s];
    }
    return starts;
}

std::vector<SliceId> kernelsNamed(const Trace& trace, std::string_view prefix)
{
    std::vector<SliceId> found;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        if (trace.str(trace.slices().name[s]).starts_with(prefix))
            found.push_back(s);
    }
    std::sort(found.begin(), found.end(),
              [&](SliceId a, SliceId b) { return trace.slices().start[a] < trace.slices().start[b]; });
    return found;
}

constexpr StringId kMissing = ~StringId(0);

StringId idOf(const Trace& trace, std::string_view name)
{
    for (StringId id = 0; id < trace.strings().size(); ++id) {
        if (trace.str(id) == name)
            return id;
    }
    return kMissing;
}

using kstest::visibleMessageBox;

} // namespace

class TestWorkspaceWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { kstest::useTestSettings(); }

    void comparisonAlignsAtTheCommonStepAndHighlightsBothSides()
    {
        const auto base = load("train_baseline");
        const auto neu = load("train_optimized");
        const auto baseSteps = stepStarts(*base);
        const auto newSteps = stepStarts(*neu);
        long long common = -1;
        for (const auto& [n, start] : baseSteps) {
            if (newSteps.count(n)) {
                common = n;
                break;
            }
        }
        QVERIFY(common >= 0);

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openComparison(fixture("train_baseline"), fixture("train_optimized"));
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        TimelineWidget& timeline = *window.timeline();
        QCOMPARE(timeline.traceCount(), 2u);
        QCOMPARE(window.workspace()->titles(),
                 (QStringList{QStringLiteral("BASE · train_baseline.pt.trace.json.gz"),
                              QStringLiteral("NEW · train_optimized.pt.trace.json.gz")}));
        // BASE above NEW, and both step starts at the same x.
        QVERIFY(timeline.stackedLayout().headerTop(0) < timeline.stackedLayout().headerTop(1));
        const double baseX = timeline.viewportXOf(0, baseSteps.at(common));
        const double newX = timeline.viewportXOf(1, newSteps.at(common));
        QVERIFY2(std::abs(baseX - newX) < 0.5, qPrintable(QStringLiteral("%1 vs %2").arg(baseX).arg(newX)));

        // The summary is on top; the kernel table is sorted by |Δ|. BASE and NEW are fixed.
        DiffPanel& diff = *window.diffPanel();
        QVERIFY(!diff.baseMemberBox()->isVisible());
        QVERIFY(diff.summaryLabel()->text().contains(QStringLiteral("→")));
        QTableView* kernels = diff.view(DiffTableModel::Kind::Kernels);
        diff.tabs()->setCurrentWidget(kernels);
        // Double-click the first row whose kernel runs on both sides.
        int row = -1;
        QString name;
        for (int r = 0; r < kernels->model()->rowCount() && row < 0; ++r) {
            const QModelIndex index = kernels->model()->index(r, 0);
            name = index.data().toString();
            if (idOf(*base, name.toStdString()) != kMissing && idOf(*neu, name.toStdString()) != kMissing)
                row = r;
        }
        QVERIFY(row >= 0);
        kernels->scrollTo(kernels->model()->index(row, 0));
        const QPoint pos = kernels->visualRect(kernels->model()->index(row, 0)).center();
        QVERIFY(kernels->isVisible());
        // A double click is a press, a release and a second press that double-clicks.
        QTest::mouseClick(kernels->viewport(), Qt::LeftButton, {}, pos);
        QTest::mouseDClick(kernels->viewport(), Qt::LeftButton, {}, pos);
        const StringId baseId = idOf(*base, name.toStdString());
        const StringId newId = idOf(*neu, name.toStdString());
        QVERIFY(timeline.highlightedNames(0).size() > baseId);
        QVERIFY(timeline.highlightedNames(0)[baseId]);
        QVERIFY(timeline.highlightedNames(1)[newId]);
        // Only that name on each side.
        QCOMPARE(std::count(timeline.highlightedNames(0).begin(), timeline.highlightedNames(0).end(), true), 1);
        QCOMPARE(std::count(timeline.highlightedNames(1).begin(), timeline.highlightedNames(1).end(), true), 1);
    }

    void ranksOpenInOrderAndCollectivesLinkAcrossRanks()
    {
        const auto rank0 = load("ddp_rank0");
        const auto rank1 = load("ddp_rank1");
        const auto kernels0 = kernelsNamed(*rank0, "ncclDevKernel");
        const auto kernels1 = kernelsNamed(*rank1, "ncclDevKernel");
        QCOMPARE(kernels0.size(), std::size_t(6));

        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        // Given in reverse: groups still come in rank order.
        window.openFiles({fixture("ddp_rank1"), fixture("ddp_rank0")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        TimelineWidget& timeline = *window.timeline();
        QCOMPARE(timeline.traceCount(), 2u);
        const QStringList titles = window.workspace()->titles();
        QVERIFY2(titles[0].startsWith(QStringLiteral("Rank 0")), qPrintable(titles[0]));
        QVERIFY2(titles[1].startsWith(QStringLiteral("Rank 1")), qPrintable(titles[1]));
        QCOMPARE(timeline.traceAt(0)->slices().size(), rank0->slices().size());
        QCOMPARE(timeline.crossLinks().size(), std::size_t(6));

        // Click rank 0's third collective kernel on the timeline.
        const SliceId k0 = kernels0[2];
        timeline.revealTraceSlice({0, k0});
        timeline.clearSelection();
        const SliceTable& s0 = rank0->slices();
        const int x = int((timeline.viewportXOf(0, s0.start[k0]) + timeline.viewportXOf(0, s0.end(k0))) / 2);
        QTest::mouseClick(timeline.viewport(), Qt::LeftButton, {}, QPoint(x, timeline.viewportYOfRow(0, s0.row[k0])));
        QCOMPARE(timeline.selection(), (TraceSlice{0, k0}));

        // Details lists both ranks' start, end and wait; rank 1's row leads to its kernel.
        QTreeWidget* tree = window.detailsPanel()->tree();
        QTreeWidgetItem* section = nullptr;
        for (int i = 0; i < tree->topLevelItemCount(); ++i) {
            if (tree->topLevelItem(i)->text(0).startsWith(QStringLiteral("Collective")))
                section = tree->topLevelItem(i);
        }
        QVERIFY(section);
        QTreeWidgetItem* rank1Row = nullptr;
        for (int i = 0; i < section->childCount(); ++i) {
            if (section->child(i)->text(0).startsWith(QStringLiteral("Rank 1")))
                rank1Row = section->child(i);
        }
        QVERIFY(rank1Row);
        QVERIFY(rank1Row->text(1).contains(QStringLiteral("waited")));
        tree->scrollToItem(rank1Row);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(rank1Row).center());
        QCOMPARE(timeline.selection(), (TraceSlice{1, kernels1[2]}));
        // And `[` comes back along the link... after the kernel's own launch flow: Back does.
        timeline.goBack();
        QCOMPARE(timeline.selection(), (TraceSlice{0, k0}));
        timeline.followOutgoingFlow();
        QCOMPARE(timeline.selection(), (TraceSlice{1, kernels1[2]}));

        // Selecting ProfilerStep#3 on rank 1 outlines rank 0's ProfilerStep#3.
        const auto steps0 = kernelsNamed(*rank0, "ProfilerStep#3");
        const auto steps1 = kernelsNamed(*rank1, "ProfilerStep#3");
        QVERIFY(!steps0.empty() && !steps1.empty());
        timeline.revealTraceSlice({1, steps1.front()});
        QCOMPARE(timeline.markedSlices(0), std::vector<SliceId>{steps0.front()});
        QVERIFY(timeline.markedSlices(1).empty());
        QVERIFY(!timeline.isProcessCollapsed(0, rank0->tracks()[rank0->trackOf(steps0.front())].process));
    }

    // The ranks of a run: the Diff dock compares rank 0 with rank 1 at first (rank 1 waits
    // 2.573 ms a step longer in its NCCL kernels), and the other way round once the user picks
    // rank 1 as BASE; each time the report is core's diff of those two members, and a row
    // double-clicked is highlighted on those two ranks only (a third, rank 1's file as rank 2,
    // has the same kernels).
    void diffDockComparesTwoRanksOfARun()
    {
        QTemporaryDir dir;
        auto doc = kstest::readGz(fixture("ddp_rank1").toStdString());
        doc["distributedInfo"]["rank"] = 2;
        doc["distributedInfo"]["world_size"] = 3;
        const QString rank2 = dir.filePath(QStringLiteral("ddp_rank2.pt.trace.json"));
        QFile out(rank2);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QByteArray::fromStdString(doc.dump()));
        out.close();
        MainWindow window;
        window.resize(1600, 1000);
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("ddp_rank1"), rank2, fixture("ddp_rank0")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        DiffPanel& diff = *window.diffPanel();
        window.findChild<QDockWidget*>(QStringLiteral("diffDock"))->raise();
        QTRY_VERIFY_WITH_TIMEOUT(diff.report() != nullptr, 30000);
        QVERIFY(diff.baseMemberBox()->isVisible());
        QCOMPARE(diff.baseMemberBox()->count(), 3);
        QVERIFY(diff.baseMemberBox()->currentText().startsWith(QStringLiteral("Rank 0")));
        QVERIFY(diff.newMemberBox()->currentText().startsWith(QStringLiteral("Rank 1")));
        const analysis::Workspace& ranks = window.workspace()->workspace();
        const auto ncclDelta = [&](const analysis::DiffReport& report) {
            for (const analysis::DiffRow& row : report.kernels) {
                if (row.name.starts_with("ncclDevKernel_AllReduce"))
                    return row.deltaNs();
            }
            return 0.0;
        };
        const analysis::DiffReport forward = analysis::diffTraces(ranks.members()[0], ranks.members()[1]);
        QCOMPARE(diff.summaryLabel()->text(), QString::fromStdString(forward.summary));
        QCOMPARE(diff.model(DiffTableModel::Kind::Kernels)->rowCount(), int(forward.kernels.size()));
        QCOMPARE(ncclDelta(*diff.report()), ncclDelta(forward));
        QVERIFY2(std::abs(ncclDelta(forward) - 2573000.0) < 1000.0, qPrintable(QString::number(ncclDelta(forward))));

        const auto* first = diff.report().get();
        QComboBox* base = diff.baseMemberBox();
        base->setFocus();
        QTest::keyClick(base, Qt::Key_Down); // the user picks rank 1 as BASE...
        QCOMPARE(base->currentIndex(), 1);
        diff.newMemberBox()->setFocus();
        QTest::keyClick(diff.newMemberBox(), Qt::Key_Up); // ...and rank 0 as NEW
        QCOMPARE(diff.newMemberBox()->currentIndex(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(
            diff.report().get() != first && diff.summaryLabel()->text().contains(QStringLiteral("faster")), 30000);
        const analysis::DiffReport backward = analysis::diffTraces(ranks.members()[1], ranks.members()[0]);
        QCOMPARE(diff.summaryLabel()->text(), QString::fromStdString(backward.summary));
        QCOMPARE(ncclDelta(*diff.report()), -ncclDelta(forward));

        QTableView* kernels = diff.view(DiffTableModel::Kind::Kernels);
        diff.tabs()->setCurrentWidget(kernels);
        const QPoint pos = kernels->visualRect(kernels->model()->index(0, 0)).center();
        QTest::mouseClick(kernels->viewport(), Qt::LeftButton, {}, pos);
        QTest::mouseDClick(kernels->viewport(), Qt::LeftButton, {}, pos);
        TimelineWidget& timeline = *window.timeline();
        const auto highlighted = [&](std::uint32_t member) {
            const auto& names = timeline.highlightedNames(member);
            return std::count(names.begin(), names.end(), true);
        };
        QCOMPARE(highlighted(0), 1);
        QCOMPARE(highlighted(1), 1);
        QCOMPARE(highlighted(2), 0);
    }

    // One merged collected file of a 2-rank torchrun (gloo, one GPU) opens as its ranks, named
    // by its distributedRanks, with torchrun and the CUPTI overhead rows apart.
    void mergedCollectedFileOpensAsItsRanks()
    {
        MainWindow window;
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({fixture("collected_gloo_merged")});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        QCOMPARE(window.timeline()->traceCount(), 3u);
        const QStringList titles = window.workspace()->titles();
        QCOMPARE(titles.value(0), QStringLiteral("Rank 0 \u00B7 python3.12 (888)"));
        QCOMPARE(titles.value(1), QStringLiteral("Rank 1 \u00B7 python3.12 (889)"));
        QVERIFY2(titles.value(2).endsWith(QStringLiteral("(other processes)")), qPrintable(titles.value(2)));
        QVERIFY(window.windowFilePath().endsWith(QStringLiteral("collected_gloo_merged.pt.trace.json.gz")));
        QVERIFY(!visibleMessageBox(window));
    }

    // The same with NCCL on two GPUs: the Ranks dock lists both ranks, torchrun's process
    // apart, and the 15 collectives matched without kineto's args; without ProfilerStep each
    // rank's steps are its 10 Optimizer.step#SGD.step iterations. Also when the file does not
    // name its ranks (no distributedRanks: the collector could not read torchrun's
    // environment): each GPU's launching process is a rank.
    void ncclMergedFileFillsTheRanksDock_data()
    {
        QTest::addColumn<bool>("namesRanks");
        QTest::newRow("distributedRanks") << true;
        QTest::newRow("inferred") << false;
    }

    void ncclMergedFileFillsTheRanksDock()
    {
        QFETCH(bool, namesRanks);
        QTemporaryDir dir;
        QString path = fixture("collected_nccl_merged");
        if (!namesRanks) {
            auto doc = kstest::readGz(path.toStdString());
            QVERIFY(doc.erase("distributedRanks") == 1);
            path = dir.filePath(QStringLiteral("merged.pt.trace.json"));
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(doc.dump()));
        }
        MainWindow window;
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({path});
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        RanksPanel* panel = window.ranksPanel(); // the Ranks dock's (the Job dock has one too)
        QVERIFY(panel);
        QTRY_VERIFY_WITH_TIMEOUT(panel->report(), 30000);
        const auto report = panel->report();
        const QAbstractItemModel* ranks = panel->rankTable()->model();
        QCOMPARE(ranks->rowCount(), 3);
        QCOMPARE(panel->collectiveTable()->model()->rowCount(), 15);
        QCOMPARE(report->matching.collectives.size(), std::size_t(15));
        const auto& members = window.workspace()->workspace().members();
        for (int row = 0; row < 2; ++row) {
            const analysis::RankSummary& r = report->ranks[std::size_t(row)];
            QCOMPARE(ranks->index(row, 1).data().toString(), QStringLiteral("10")); // steps
            QCOMPARE(members[r.member].stepsSource, std::string("Optimizer.step"));
            // Each step ends with the rank's optimizer step: their mean is the step time.
            const Trace& trace = *members[r.member].trace;
            std::vector<TimeNs> optimizerEnds;
            for (SliceId s = 0; s < trace.slices().size(); ++s) {
                const std::uint32_t process = trace.tracks()[trace.trackOf(s)].process;
                if (!trace.processes()[process].isDevice
                    && trace.str(trace.slices().name[s]) == "Optimizer.step#SGD.step")
                    optimizerEnds.push_back(trace.slices().end(s));
            }
            std::sort(optimizerEnds.begin(), optimizerEnds.end());
            QCOMPARE(optimizerEnds.size(), std::size_t(10));
            QCOMPARE(members[r.member].steps.back().end, optimizerEnds.back());
            QCOMPARE(members[r.member].steps[1].start, optimizerEnds[0]);
            QVERIFY(r.collectiveTime > 0);
        }
        // The processes are the ranks', named by them; the launcher is apart.
        QVERIFY(ranks->index(0, 0).data().toString().startsWith(QStringLiteral("Rank 0 \u00B7 python3.12 (")));
        QVERIFY(ranks->index(1, 0).data().toString().startsWith(QStringLiteral("Rank 1 \u00B7 python3.12 (")));
        const QStringList titles = window.workspace()->titles();
        QVERIFY(titles.value(0).startsWith(QStringLiteral("Rank 0")));
        QVERIFY(titles.value(1).startsWith(QStringLiteral("Rank 1")));
        QVERIFY2(titles.value(2).endsWith(QStringLiteral("(other processes)")), qPrintable(titles.value(2)));
        // The straggler verdict, as the analysis gave it.
        QVERIFY(!report->straggler.text.empty());
        QVERIFY2(panel->verdictLabel()->text().contains(QString::fromStdString(report->straggler.text).left(30)),
                 qPrintable(panel->verdictLabel()->text()));
    }

    void corruptFileAmongThreeNamesItselfAndTheOthersOpen()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(fixture("ddp_rank0"), dir.filePath(QStringLiteral("ddp_rank0.pt.trace.json.gz"))));
        QVERIFY(QFile::copy(fixture("ddp_rank1"), dir.filePath(QStringLiteral("ddp_rank1.pt.trace.json.gz"))));
        QFile bad(dir.filePath(QStringLiteral("broken.pt.trace.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("42\n");
        bad.close();

        MainWindow window;
        window.show();
        QSignalSpy ready(window.workspace(), &WorkspaceController::analysisReady);
        window.openFiles({dir.path()}); // File ▸ Open Folder
        QTRY_VERIFY_WITH_TIMEOUT(ready.count() >= 1, 30000);
        QCOMPARE(window.timeline()->traceCount(), 2u);
        QMessageBox* box = visibleMessageBox(window);
        QVERIFY(box);
        QVERIFY(!box->isModal());
        QVERIFY2(box->informativeText().contains(QStringLiteral("broken.pt.trace.json")),
                 qPrintable(box->informativeText()));
        QVERIFY2(box->informativeText().contains(QStringLiteral("byte")), qPrintable(box->informativeText()));
        QVERIFY(!box->informativeText().contains(QStringLiteral("ddp_rank0")));
    }
};

QTEST_MAIN(TestWorkspaceWindow)
#include "tst_workspacewindow.moc"
