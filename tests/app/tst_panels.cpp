// The panels, docks and help around the timeline (issue 19), driven through the real main
// window on real fixtures; expected values are computed from the fixture JSON.
#include "app/commandpalette.h"
#include "app/mainwindow.h"
#include "app/shortcutshelp.h"
#include "app/shortcutsoverlay.h"
#include "fixturejson.h"
#include "widgets/detailspanel.h"
#include "widgets/diagnosticspanel.h"
#include "widgets/gpustepbreakdownmodel.h"
#include "widgets/gpustepchart.h"
#include "widgets/gpusummarypanel.h"
#include "widgets/nvprofmodel.h"
#include "widgets/opstablemodel.h"
#include "widgets/searchbar.h"
#include "widgets/statspanel.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>

#include <cmath>

#include <map>
#include <tuple>

using namespace ks;

namespace {

QString fixturePath(const char* name)
{
    return QStringLiteral(KS_TEST_DATA "/%1.pt.trace.json.gz").arg(QLatin1String(name));
}

// Opens a fixture in `window` and waits for it.
bool openFixture(MainWindow& window, const char* name) { return kstest::openAndWait(window, fixturePath(name)); }

// Flow halves with no partner: per (cat, name, id), the s and f events that do not pair up.
std::uint64_t orphanFlowHalves(const nlohmann::json& doc)
{
    std::map<std::tuple<std::string, std::string, std::string>, std::pair<std::uint64_t, std::uint64_t>> groups;
    for (const auto& e : doc["traceEvents"]) {
        const std::string ph = e.value("ph", "");
        if (ph != "s" && ph != "f" && ph != "t")
            continue;
        auto& [starts, ends] = groups[{e.value("cat", ""), e.value("name", ""), e["id"].dump()}];
        ++(ph == "s" ? starts : ends);
    }
    std::uint64_t orphans = 0;
    for (const auto& [key, counts] : groups)
        orphans += counts.first > counts.second ? counts.first - counts.second : counts.second - counts.first;
    return orphans;
}

TimeNs ns(double us) { return TimeNs(std::llround(us * 1000.0)); }

GpuSummaryPanel* gpuSummary(const MainWindow& window) { return window.findChild<GpuSummaryPanel*>(); }

// Waits until the GPU report of the shown trace reached the summary panel.
bool waitForGpuReport(const MainWindow& window)
{
    return QTest::qWaitFor(
        [&] {
            const GpuSummaryPanel* panel = gpuSummary(window);
            return panel && (panel->gpuActivitiesModel()->rowCount() > 0 || panel->showsNoGpuMessage());
        },
        30000);
}

StatsPanel* statsPanel(const MainWindow& window, const char* dock)
{
    auto* d = window.findChild<QDockWidget*>(QLatin1String(dock));
    return d ? d->findChild<StatsPanel*>() : nullptr;
}

QTreeWidgetItem* topLevelField(const QTreeWidget& tree, const QString& field)
{
    for (int i = 0; i < tree.topLevelItemCount(); ++i) {
        if (tree.topLevelItem(i)->text(0) == field)
            return tree.topLevelItem(i);
    }
    return nullptr;
}

} // namespace

class TestPanels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { kstest::useTestSettings(); }

    // Kineto's orphan flow halves are information, not warnings.
    void warningsCountOnlyWhatIsWrong()
    {
        const std::uint64_t orphans = orphanFlowHalves(kstest::readGz(kstest::fixture("transformer.pt.trace.json.gz")));
        QCOMPARE(orphans, std::uint64_t(28));
        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QVERIFY(openFixture(window, "transformer"));
        const DiagnosticsPanel& panel = *window.diagnosticsPanel();
        QCOMPARE(panel.warningCount(), std::uint64_t(0));
        QCOMPARE(panel.infoCount(), orphans);
        QCOMPARE(window.trace()->diagnostics().warningCount(), std::uint64_t(0));
        auto* button = window.statusBar()->findChild<QToolButton*>(QStringLiteral("warningsButton"));
        QVERIFY(button);
        QVERIFY(!button->text().contains(QStringLiteral("⚠")));
        QVERIFY(button->text().contains(QStringLiteral("28")));
        // One group per kind, with its severity.
        QCOMPARE(panel.topLevelItemCount(), 1);
        QCOMPARE(panel.topLevelItem(0)->text(1), QStringLiteral("info"));
        QCOMPARE(panel.topLevelItem(0)->text(2), QStringLiteral("unpaired-flow"));
    }

    // The overlay is built from the actions: every action with a key is listed with its keys,
    // and the README's keyboard table is covered.
    void shortcutsOverlayListsEveryKeyedAction()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QTest::keyClick(&window, Qt::Key_Question);
        auto* overlay = window.findChild<ShortcutsOverlay*>();
        QVERIFY(overlay);
        QTRY_VERIFY(overlay->isVisible());
        QSet<QString> listed;
        QStringList allKeys;
        for (int i = 0; i < overlay->list()->topLevelItemCount(); ++i) {
            const QTreeWidgetItem* item = overlay->list()->topLevelItem(i);
            listed.insert(item->text(0) + QLatin1Char('|') + item->text(1));
            allKeys << item->text(1).split(QStringLiteral(", "));
        }
        int keyed = 0;
        for (QAction* action : window.findChildren<QAction*>()) {
            if (action->shortcuts().isEmpty())
                continue;
            ++keyed;
            QStringList keys;
            for (const QKeySequence& key : action->shortcuts())
                keys << key.toString(QKeySequence::NativeText);
            const QString entry = actionLabel(*action) + QLatin1Char('|') + keys.join(QStringLiteral(", "));
            QVERIFY2(listed.contains(entry), qPrintable(entry));
        }
        QVERIFY(keyed >= 15);
        for (const char* key : {"W", "S", "A", "D", "0", "Home", "F", "[", "]", "Alt+Left", "Alt+Right", "Ctrl+F", "/",
                                "?", "Ctrl+Shift+P", "Ctrl+O"})
            QVERIFY2(allKeys.contains(QLatin1String(key)), key);
        overlay->close();

        // Toolbar actions name their keys in their tooltips.
        auto* toolbar = window.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(toolbar);
        bool fitAllSeen = false;
        for (QAction* action : toolbar->actions()) {
            if (action->objectName() == QLatin1String("fitAllAction")) {
                fitAllSeen = true;
                QCOMPARE(action->toolTip(), QStringLiteral("Fit All (0, Home)"));
            }
        }
        QVERIFY(fitAllSeen);
    }

    // Ctrl+Shift+P, type, Enter: the action runs.
    void commandPaletteRunsAnAction()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(openFixture(window, "transformer"));
        TimelineWidget& timeline = *window.timeline();
        const TimeNs span = window.trace()->endTime() - window.trace()->startTime();
        timeline.setVisibleRange(window.trace()->startTime() + span / 2,
                                 window.trace()->startTime() + span / 2 + span / 100);
        QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier);
        auto* palette = window.findChild<CommandPalette*>();
        QVERIFY(palette);
        QTRY_VERIFY(palette->isVisible());
        QTest::keyClicks(palette->filter(), QStringLiteral("fit all"));
        QCOMPARE(palette->list()->count(), 1);
        QVERIFY(palette->list()->item(0)->text().startsWith(QStringLiteral("Fit All")));
        QTest::keyClick(palette->filter(), Qt::Key_Return);
        QTRY_VERIFY(!palette->isVisible());
        QVERIFY(timeline.timeScale().viewStart() <= window.trace()->startTime() + span / 100);
    }

    // W/S/A/D/0/F work whichever panel has focus, and yield to text fields.
    void timelineKeysAreWindowWide()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(openFixture(window, "transformer"));
        TimelineWidget& timeline = *window.timeline();
        StatsPanel* ops = statsPanel(window, "operatorsDock");
        QVERIFY(ops);
        ops->window()->activateWindow();
        ops->view()->setFocus();
        QTRY_VERIFY(ops->view()->hasFocus());
        timeline.fitAll();
        const double before = timeline.timeScale().nsPerPixel();
        QTest::keyClick(ops->view(), Qt::Key_W);
        QVERIFY2(timeline.timeScale().nsPerPixel() < before * 0.95, "W zooms in from the Operators table");
        const TimeNs zoomedStart = timeline.timeScale().viewStart();
        QTest::keyClick(ops->view(), Qt::Key_D);
        QVERIFY(timeline.timeScale().viewStart() > zoomedStart);
        QTest::keyClick(ops->view(), Qt::Key_0);
        QVERIFY(qFuzzyCompare(timeline.timeScale().nsPerPixel(), before));

        // A text field keeps its letters.
        window.searchBar()->activate();
        auto* field = window.searchBar()->findChild<QLineEdit*>();
        QVERIFY(field);
        QTRY_VERIFY(field->hasFocus());
        field->clear();
        const TimeNs shownStart = timeline.timeScale().viewStart();
        const double shownScale = timeline.timeScale().nsPerPixel();
        QTest::keyClicks(field, QStringLiteral("wasd0"));
        QCOMPARE(field->text(), QStringLiteral("wasd0"));
        QCOMPARE(timeline.timeScale().viewStart(), shownStart);
        QCOMPARE(timeline.timeScale().nsPerPixel(), shownScale);
    }

    // A second double-click on a row goes on to its second occurrence.
    void doubleClickWalksOccurrences()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(openFixture(window, "transformer"));
        StatsPanel* ops = statsPanel(window, "operatorsDock");
        QVERIFY(ops);
        QTRY_VERIFY(ops->proxy()->rowCount() > 0);
        int row = -1;
        for (int r = 0; r < ops->proxy()->rowCount() && row < 0; ++r) {
            ops->view()->setCurrentIndex(ops->proxy()->index(r, 0));
            if (ops->currentOccurrences().size() >= 3)
                row = r;
        }
        QVERIFY(row >= 0);
        const std::vector<SliceId> occurrences = ops->currentOccurrences();
        QSignalSpy requested(ops, &StatsPanel::occurrenceRequested);
        const QModelIndex index = ops->proxy()->index(row, 0);
        for (int i = 0; i < 3; ++i)
            Q_EMIT ops->view()->doubleClicked(index);
        QCOMPARE(requested.count(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(requested.at(i).at(0).value<SliceId>(), occurrences[std::size_t(i)]);
        QCOMPARE(window.timeline()->selectedSlice(), occurrences[2]);
    }

    // The nvprof tab shows the numbers of `kinetoscope-cli gpu`.
    void nvprofTabMatchesTheCli()
    {
        QProcess cli;
        cli.start(QStringLiteral(KS_CLI),
                  {QStringLiteral("gpu"), QStringLiteral("--json"), fixturePath("multistream")});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const auto json = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());

        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QVERIFY(openFixture(window, "multistream"));
        QVERIFY(waitForGpuReport(window));
        GpuSummaryPanel* panel = gpuSummary(window);
        QCOMPARE(panel->tabs()->tabText(2), QStringLiteral("GPU Activities / API Calls"));
        const auto compare = [](const NvprofModel& model, const nlohmann::json& rows) {
            QCOMPARE(model.rowCount(), int(rows.size()));
            for (int r = 0; r < model.rowCount(); ++r) {
                const auto& row = rows[std::size_t(r)];
                QCOMPARE(model.index(r, NvprofModel::Name).data(Qt::UserRole).toString().toStdString(),
                         row["name"].get<std::string>());
                QCOMPARE(model.index(r, NvprofModel::Calls).data(Qt::UserRole).toULongLong(),
                         row["calls"].get<qulonglong>());
                QCOMPARE(model.index(r, NvprofModel::Time).data(Qt::UserRole).toLongLong(),
                         qlonglong(ns(row["time_us"].get<double>())));
                QCOMPARE(model.index(r, NvprofModel::Max).data(Qt::UserRole).toLongLong(),
                         qlonglong(ns(row["max_us"].get<double>())));
                QVERIFY(std::abs(model.index(r, NvprofModel::TimePercent).data(Qt::UserRole).toDouble()
                                 - row["time_pct"].get<double>())
                        < 1e-9);
            }
        };
        compare(*panel->gpuActivitiesModel(), json["nvprof"]["gpu_activities"]);
        compare(*panel->apiCallsModel(), json["nvprof"]["api_calls"]);
        // The first GPU activity of multistream, as nvprof prints it.
        QCOMPARE(panel->gpuActivitiesModel()->index(0, NvprofModel::Time).data().toString(), QStringLiteral("45.17ms"));
        QCOMPARE(panel->gpuActivitiesModel()->index(0, NvprofModel::Calls).data().toString(), QStringLiteral("8"));
    }

    // A trace without GPU activity: one line, no empty chart, the Operators tab in front.
    void traceWithoutGpuSaysSo()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("cpu_only.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 20, "dur": 7}]})");
        file.close();
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(kstest::openAndWait(window, file.fileName()));
        QVERIFY(waitForGpuReport(window));
        GpuSummaryPanel* panel = gpuSummary(window);
        QVERIFY(panel->showsNoGpuMessage());
        QVERIFY(!panel->tabs()->isVisible());
        QVERIFY(!panel->chart()->isVisible());
        auto* ops = window.findChild<QDockWidget*>(QStringLiteral("operatorsDock"));
        QTRY_VERIFY(ops->widget()->isVisible());
        // Issue 35: the empty Kernels table says why in one line; Operators has its two rows.
        StatsPanel* kernels = statsPanel(window, "kernelsDock");
        QTRY_VERIFY(!kernels->emptyLabel()->isHidden());
        QCOMPARE(kernels->model()->rowCount(), 0);
        QVERIFY(kernels->emptyLabel()->text().startsWith(QStringLiteral("No GPU kernels in this trace")));
        StatsPanel* operators = statsPanel(window, "operatorsDock");
        QTRY_COMPARE(operators->model()->rowCount(), 2);
        QVERIFY(operators->emptyLabel()->isHidden());

        // A trace with GPUs shows the tabs again, and the kernels without the line.
        QVERIFY(openFixture(window, "transformer"));
        QTRY_VERIFY(!panel->showsNoGpuMessage());
        QTRY_VERIFY(kernels->model()->rowCount() > 0);
        QVERIFY(kernels->emptyLabel()->isHidden());
    }

    // Steps: a click selects the ProfilerStep (Back/Forward history), a double-click zooms to it;
    // the chart's tooltip lists the parts of the step.
    void stepRowsSelectAndZoom()
    {
        const auto doc = kstest::readGz(kstest::fixture("transformer.pt.trace.json.gz"));
        std::map<std::string, TimeNs> stepStarts; // "ProfilerStep#N" of the host side -> start
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("ph", "") == "X" && e.value("name", "").rfind("ProfilerStep#", 0) == 0
                && e.value("cat", "") != "gpu_user_annotation")
                stepStarts[e["name"].get<std::string>()] = ns(e["ts"].get<double>());
        }
        QVERIFY(stepStarts.size() >= 2);

        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        QVERIFY(openFixture(window, "transformer"));
        QVERIFY(waitForGpuReport(window));
        GpuSummaryPanel* panel = gpuSummary(window);
        TimelineWidget& timeline = *window.timeline();
        const SliceTable& slices = window.trace()->slices();

        window.findChild<QDockWidget*>(QStringLiteral("gpuSummaryDock"))->raise();
        panel->tabs()->setCurrentIndex(1);
        QTableView* table = panel->breakdownView();
        const auto stepName = [&](int row) { return "ProfilerStep#" + panel->breakdownModel()->stepRow(row)->name; };
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(panel->breakdownModel()->index(0, 0)).center());
        const SliceId first = timeline.selectedSlice();
        QVERIFY(first != kNoSlice);
        QCOMPARE(std::string(window.trace()->str(slices.name[first])), stepName(0));
        QCOMPARE(slices.start[first], stepStarts.at(stepName(0)));
        QCOMPARE(window.detailsPanel()->slice(), first);

        panel->activateStep(1);
        const SliceId second = timeline.selectedSlice();
        QCOMPARE(std::string(window.trace()->str(slices.name[second])), stepName(1));
        QCOMPARE(slices.start[second], stepStarts.at(stepName(1)));
        QVERIFY(timeline.canGoBack());
        const TimeNs shownStart = timeline.timeScale().viewStart();
        QVERIFY(std::abs(shownStart - panel->breakdownModel()->stepRow(1)->start)
                <= TimeNs(timeline.timeScale().nsPerPixel()) + 1);
        timeline.goBack();
        QCOMPARE(timeline.selectedSlice(), first);

        const gpu::StepBreakdownRow& row = *panel->breakdownModel()->stepRow(0);
        const QString tip = panel->chart()->barToolTip(0);
        QVERIFY(tip.contains(QStringLiteral("Step ") + QString::fromStdString(row.name)));
        for (std::size_t r = 0; r < gpu::kStepRoleCount; ++r) {
            const QString part = QString::fromLatin1(gpu::stepRoleName(gpu::StepRole(r)).data());
            QCOMPARE(tip.contains(part), row.parts[r] > 0.0);
        }
        QVERIFY(tip.contains(QString::fromStdString(
            formatDuration(TimeNs(std::llround(row.parts[std::size_t(gpu::StepRole::Kernel)]))))));
    }

    // Details of a kernel and of its launch: launch delay and queue time, from the fixture.
    void detailsShowLaunchDelayAndQueueTime()
    {
        const auto doc = kstest::readGz(kstest::fixture("transformer.pt.trace.json.gz"));
        std::map<std::int64_t, const nlohmann::json*> launches;
        std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const nlohmann::json*>> streams; // GPU ops
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("ph", "") != "X" || !e.contains("args") || !e["args"].contains("correlation"))
                continue;
            const std::string cat = e.value("cat", "");
            if (cat == "cuda_runtime")
                launches[e["args"]["correlation"].get<std::int64_t>()] = &e;
            else if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset")
                streams[{e["args"]["device"].get<std::int64_t>(), e["args"]["stream"].get<std::int64_t>()}].push_back(
                    &e);
        }
        const auto start = [](const nlohmann::json* e) { return ns((*e)["ts"].get<double>()); };
        const auto end = [&](const nlohmann::json* e) { return start(e) + ns((*e)["dur"].get<double>()); };
        // The kernel that waited longest behind earlier work on its stream.
        const nlohmann::json* kernel = nullptr;
        TimeNs expectedDelay = 0, expectedQueue = -1;
        for (auto& [stream, ops] : streams) {
            for (const nlohmann::json* op : ops) {
                const auto it = launches.find((*op)["args"]["correlation"].get<std::int64_t>());
                if ((*op)["cat"] != "kernel" || it == launches.end())
                    continue;
                const TimeNs launchEnd = end(it->second);
                const TimeNs delay = start(op) - launchEnd;
                TimeNs busyUntil = launchEnd;
                for (const nlohmann::json* earlier : ops) {
                    if (start(earlier) < start(op))
                        busyUntil = std::max(busyUntil, end(earlier));
                }
                const TimeNs queue = std::min(busyUntil - launchEnd, std::max<TimeNs>(delay, 0));
                if (queue > expectedQueue) {
                    kernel = op;
                    expectedDelay = delay;
                    expectedQueue = queue;
                }
            }
        }
        QVERIFY(kernel);
        QVERIFY(expectedQueue > 0);

        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QVERIFY(openFixture(window, "transformer"));
        const Trace& trace = *window.trace();
        SliceId kernelSlice = kNoSlice;
        for (SliceId s = 0; s < trace.slices().size(); ++s) {
            if (trace.slices().correlation[s] == (*kernel)["args"]["correlation"].get<std::int64_t>()
                && trace.classOf(s) == SliceClass::Kernel)
                kernelSlice = s;
        }
        QVERIFY(kernelSlice != kNoSlice);
        const auto check = [&](const QString& linkField) {
            QTreeWidgetItem* link = topLevelField(*window.detailsPanel()->tree(), linkField);
            QVERIFY(link);
            QCOMPARE(link->childCount(), 2);
            QCOMPARE(link->child(0)->text(0), QStringLiteral("Launch delay"));
            QCOMPARE(link->child(0)->text(1), QString::fromStdString(formatDuration(expectedDelay)));
            QCOMPARE(link->child(1)->text(0), QStringLiteral("Queue time"));
            QCOMPARE(link->child(1)->text(1), QString::fromStdString(formatDuration(expectedQueue)));
            QVERIFY(link->toolTip(1).contains(link->text(1)));
        };
        window.revealSlice(kernelSlice);
        check(QStringLiteral("Incoming flow"));
        QCOMPARE(window.detailsPanel()->tree()->textElideMode(), Qt::ElideMiddle);
        window.timeline()->followIncomingFlow();
        QCOMPARE(trace.classOf(window.timeline()->selectedSlice()), SliceClass::CudaRuntime);
        check(QStringLiteral("Outgoing flow"));
    }

    // A [memory] instant in Details: bytes, totals and device, as the fixture wrote them.
    void memoryInstantDetails()
    {
        const auto doc = kstest::readGz(kstest::fixture("transformer.pt.trace.json.gz"));
        const nlohmann::json* sample = nullptr;
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("name", "") == "[memory]" && e["args"].value("Device Type", 0) == 1) {
                sample = &e;
                break;
            }
        }
        QVERIFY(sample);
        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QVERIFY(openFixture(window, "transformer"));
        const Trace& trace = *window.trace();
        std::uint32_t instant = kNoIndex;
        for (std::uint32_t i = 0; i < trace.instants().size() && instant == kNoIndex; ++i) {
            if (trace.str(trace.instants().name[i]) == "[memory]"
                && trace.instants().time[i] == ns((*sample)["ts"].get<double>()))
                instant = i;
        }
        QVERIFY(instant != kNoIndex);
        DetailsPanel& details = *window.detailsPanel();
        details.showInstant(instant);
        const auto bytes = [](const nlohmann::json& value) {
            return QLocale().toString(value.get<qlonglong>()) + QStringLiteral(" bytes)");
        };
        const auto& args = (*sample)["args"];
        QVERIFY(details.fieldValue(QStringLiteral("Allocated")).endsWith(bytes(args["Bytes"])));
        QVERIFY(details.fieldValue(QStringLiteral("Total allocated")).endsWith(bytes(args["Total Allocated"])));
        QVERIFY(details.fieldValue(QStringLiteral("Total reserved")).endsWith(bytes(args["Total Reserved"])));
        QCOMPARE(details.fieldValue(QStringLiteral("Device")),
                 QStringLiteral("GPU %1").arg(args["Device Id"].get<int>()));
        QCOMPARE(details.fieldValue(QStringLiteral("Name")), QStringLiteral("[memory]"));
    }

    // 1280×720: the bottom docks leave the timeline at least half the height; the step chart
    // keeps a readable height; an empty window and an empty trace say so.
    void smallScreenLayoutAndEmptyHints()
    {
        MainWindow window;
        QVERIFY(kstest::showActive(window, kstest::kSmallScreen));
        auto* hint = window.findChild<QLabel*>(QStringLiteral("emptyTraceHint"));
        QVERIFY(hint);
        QTRY_VERIFY(hint->isVisible());
        QVERIFY(hint->text().contains(QStringLiteral("No trace open")));
        QVERIFY(openFixture(window, "transformer"));
        QVERIFY(!hint->isVisible());
        QTRY_VERIFY(window.timeline()->height() >= window.height() / 2);
        QVERIFY(waitForGpuReport(window));
        gpuSummary(window)->tabs()->setCurrentIndex(1);
        QTRY_VERIFY(gpuSummary(window)->chart()->height() >= gpuSummary(window)->chart()->fontMetrics().height() * 7);

        QTemporaryDir dir;
        QFile file(dir.filePath(QStringLiteral("empty.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"traceEvents": []})");
        file.close();
        QVERIFY(kstest::openAndWait(window, file.fileName()));
        QTRY_VERIFY(hint->isVisible());
        QVERIFY(hint->text().contains(QStringLiteral("no events")));
    }

    // The step chart follows a dark palette.
    void stepChartFollowsThePalette()
    {
        GpuStepChart chart;
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        chart.setPalette(dark);
        QCOMPARE(chart.xAxis->tickLabelColor(), QColor(230, 230, 230));
        QCOMPARE(chart.legend->brush().color(), QColor(30, 30, 30));
    }

    // Operators: "Tensor Cores Used" from the names of the kernels each op launched.
    void operatorsShowTensorCores()
    {
        // Independently: kernel -> launch (correlation) -> External id -> op name.
        const auto doc = kstest::readGz(kstest::fixture("mlp_ops.pt.trace.json.gz"));
        std::map<std::int64_t, std::int64_t> externalOfCorrelation;
        std::map<std::int64_t, std::string> opOfExternal;
        for (const auto& e : doc["traceEvents"]) {
            const std::string cat = e.value("cat", "");
            if ((cat == "cuda_runtime" || cat == "cuda_driver") && e["args"].contains("correlation")
                && e["args"].contains("External id"))
                externalOfCorrelation[e["args"]["correlation"].get<std::int64_t>()] =
                    e["args"]["External id"].get<std::int64_t>();
            if (cat == "cpu_op" && e.value("ph", "") == "X" && e["args"].contains("External id"))
                opOfExternal.emplace(e["args"]["External id"].get<std::int64_t>(), e["name"].get<std::string>());
        }
        std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> expected; // op -> (kernels, nvjet kernels)
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("cat", "") != "kernel")
                continue;
            const auto external = externalOfCorrelation.find(e["args"]["correlation"].get<std::int64_t>());
            if (external == externalOfCorrelation.end() || !opOfExternal.count(external->second))
                continue;
            auto& [kernels, tensorCore] = expected[opOfExternal[external->second]];
            ++kernels;
            tensorCore += e["name"].get<std::string>().rfind("nvjet_sm90", 0) == 0 ? 1 : 0;
        }
        QVERIFY(expected["aten::addmm"].second > 0);
        QCOMPARE(expected["aten::gelu"].second, std::uint64_t(0));

        MainWindow window;
        QVERIFY(kstest::showActive(window));
        QVERIFY(openFixture(window, "mlp_ops"));
        StatsPanel* ops = statsPanel(window, "operatorsDock");
        QTRY_VERIFY(ops->model()->rowCount() > 0);
        auto* model = qobject_cast<OperatorTableModel*>(ops->model());
        QVERIFY(model);
        const int column = model->visibleColumn(OperatorTableModel::TensorCores);
        QVERIFY(column >= 0);
        QCOMPARE(model->headerData(column, Qt::Horizontal).toString(), QStringLiteral("Tensor Cores Used"));
        int checked = 0;
        for (int r = 0; r < model->rowCount(); ++r) {
            const OperatorRow& row = model->table().rows[std::size_t(r)];
            if (row.isDevice || !(row.name == "aten::addmm" || row.name == "aten::mm" || row.name == "aten::gelu"))
                continue;
            ++checked;
            // Counted like CUDA total (children's launches included): at least the direct ones.
            QVERIFY2(row.kernels >= expected[row.name].first, row.name.c_str());
            QVERIFY2(row.tensorCoreKernels >= expected[row.name].second, row.name.c_str());
            QCOMPARE(row.tensorCoreKernels > 0, expected[row.name].second > 0);
            QCOMPARE(model->index(r, column).data().toString(),
                     expected[row.name].second > 0 ? QStringLiteral("Yes") : QStringLiteral("No"));
        }
        QCOMPARE(checked, 3);
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
