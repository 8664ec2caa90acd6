// Notes and views kept with the trace (issue 41): a mark added in the Notes dock and a view
// saved by name are written beside the trace, come back when the trace is opened again (the
// mark on the ruler, the view's range, selection and layout), `--view NAME` opens a view;
// another trace's sidecar is refused in the status bar, left untouched, and the trace opens.
#include "app/mainwindow.h"
#include "app/notescontroller.h"
#include "core/notes/sidecar.h"
#include "tests/support/windowtesting.h"
#include "widgets/notesmodel.h"
#include "widgets/notespanel.h"
#include "widgets/timelinewidget.h"

#include <QDockWidget>
#include <QFile>
#include <QListWidget>
#include <QPainter>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

namespace {

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A range to mark: the longest slice in the middle half of the trace (a view around it is
// not cut by the trace's ends).
SliceId longestSlice(const Trace& trace)
{
    const TimeNs quarter = (trace.endTime() - trace.startTime()) / 4;
    SliceId best = 0;
    for (SliceId s = 0; s < trace.slices().size(); ++s) {
        const bool inMiddle =
            trace.slices().start[s] > trace.startTime() + quarter && trace.slices().end(s) < trace.endTime() - quarter;
        if (inMiddle && trace.slices().duration[s] > trace.slices().duration[best])
            best = s;
    }
    return best;
}

// The time range the timeline shows (not the selected range, which focusRange() prefers).
TimeExtent visibleRange(const TimelineWidget& timeline)
{
    const TimeScale scale = timeline.timeScale();
    return {scale.viewStart(), scale.viewEnd(timeline.timeAreaWidth())};
}

} // namespace

class TstNotesController : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_trace;
    TimeExtent m_savedVisible;
    TimeExtent m_marked;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(m_dir.isValid());
        m_trace = m_dir.filePath(QStringLiteral("train.pt.trace.json.gz"));
        QVERIFY(QFile::copy(QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz"), m_trace));
    }

    void aMarkAndAViewComeBackWithTheTrace()
    {
        {
            MainWindow window;
            QVERIFY(kstest::openAndWait(window, m_trace));
            NotesPanel* panel = window.notes()->panel();
            QVERIFY(panel->isAvailable());
            QCOMPARE(panel->model()->rowCount(), 0);
            TimelineWidget* timeline = window.timeline();
            const Trace& trace = *window.trace();
            const SliceId slice = longestSlice(trace);
            m_marked = {trace.slices().start[slice], trace.slices().end(slice)};
            timeline->setSelectedRange(m_marked.start, m_marked.end);
            panel->addMarkAt(m_marked.start, m_marked.end, QString());
            QVERIFY(panel->model()->setData(panel->model()->index(0, NotesModel::NoteColumn),
                                            QStringLiteral("the long one — why?")));
            panel->addMarkAt(m_marked.start - 1000, m_marked.start - 1000, QStringLiteral("before"));
            panel->deleteCurrentMark();
            QCOMPARE(panel->model()->rowCount(), 1);

            // A view: zoomed to the slice's second half, its process collapsed, track 0 pinned.
            const std::uint32_t process = trace.tracks()[trace.rows()[trace.slices().row[slice]].track].process;
            timeline->setVisibleRange(m_marked.start + (m_marked.end - m_marked.start) / 2, m_marked.end);
            timeline->setTrackPinned(0, true);
            timeline->setProcessCollapsed(process, true);
            m_savedVisible = visibleRange(*timeline);
            panel->saveViewAs(QStringLiteral("second half"));
            QCOMPARE(panel->viewList()->count(), 1);
            QVERIFY(QFile::exists(m_trace + QStringLiteral(".kinetoscope.json")));
            QVERIFY(readAll(m_trace + QStringLiteral(".kinetoscope.json")).contains("the long one"));
            QVERIFY(window.statusBar()->currentMessage().isEmpty());
        }
        QSettings().clear(); // the view's layout must come from the sidecar, not the settings
        MainWindow window;
        window.show();
        QVERIFY(kstest::openAndWait(window, m_trace));
        NotesPanel* panel = window.notes()->panel();
        QVERIFY(window.findChild<QDockWidget*>(QStringLiteral("notesDock"))->isVisible());
        QCOMPARE(panel->model()->rowCount(), 1);
        const notes::Mark& mark = panel->model()->marks().front();
        QCOMPARE(mark.start, m_marked.start);
        QCOMPARE(mark.end, m_marked.end);
        QCOMPARE(mark.note, std::string("the long one — why?"));
        TimelineWidget* timeline = window.timeline();
        QCOMPARE(timeline->marks().marks().size(), std::size_t(1));
        QVERIFY(!timeline->isTrackPinned(0));

        // The ruler shows it: the flag's colour at the mark's x.
        timeline->setVisibleRange(m_marked.start - 1000, m_marked.end + 1000);
        QImage frame(timeline->viewport()->size(), QImage::Format_ARGB32_Premultiplied);
        {
            QPainter painter(&frame);
            timeline->renderTo(painter);
        }
        const int x = int(std::lround(timeline->viewportXOf(m_marked.start)));
        QCOMPARE(QColor(frame.pixel(x, TimelineRenderer::kRulerHeight - 4)), QColor(214, 92, 20));
        QCOMPARE(timeline->toolTipTextAt(QPoint(x, TimelineRenderer::kRulerHeight - 4)),
                 QStringLiteral("the long one — why?"));

        QCOMPARE(panel->viewList()->item(0)->text(), QStringLiteral("second half"));
        QVERIFY(panel->openView(QStringLiteral("second half")));
        const TimeExtent visible = visibleRange(*timeline);
        QVERIFY(std::abs(visible.start - m_savedVisible.start) <= 2);
        QVERIFY(std::abs(visible.end - m_savedVisible.end) <= 2);
        QVERIFY(timeline->isTrackPinned(0));
        const Trace& trace = *window.trace();
        const SliceId slice = longestSlice(trace);
        QVERIFY(timeline->isProcessCollapsed(trace.tracks()[trace.rows()[trace.slices().row[slice]].track].process));
        QVERIFY(timeline->hasSelectedRange());
        QCOMPARE(timeline->selectedRange().start, m_marked.start);
        QCOMPARE(timeline->selectedRange().end, m_marked.end);

        // A click on the mark zooms to it with a tenth on each side and selects it.
        timeline->clearSelectedRange();
        panel->showMark(0);
        QCOMPARE(timeline->selectedRange().end, m_marked.end);
        const TimeNs tenth = (m_marked.end - m_marked.start) / 10;
        const TimeExtent shown = visibleRange(*timeline);
        QVERIFY(m_marked.end - m_marked.start > 100000);
        QVERIFY(std::abs(shown.start - (m_marked.start - tenth)) <= 2);
        QVERIFY(std::abs(shown.end - (m_marked.end + tenth)) <= 2);
    }

    void viewOptionOpensTheNamedView()
    {
        MainWindow window;
        window.show();
        window.notes()->openViewOnLoad(QStringLiteral("second half")); // what main() does for --view
        QVERIFY(kstest::openAndWait(window, m_trace));
        const TimeExtent shown = visibleRange(*window.timeline());
        QVERIFY(std::abs(shown.start - m_savedVisible.start) <= 2);
        QVERIFY(std::abs(shown.end - m_savedVisible.end) <= 2);
        QVERIFY(window.timeline()->hasSelectedRange()); // the selected range came with it
        QCOMPARE(window.timeline()->selectedRange().end, m_marked.end);

        window.notes()->openViewOnLoad(QStringLiteral("no such view"));
        QVERIFY(kstest::openAndWait(window, m_trace));
        QCOMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("No view named \"no such view\" in train.pt.trace.json.gz.kinetoscope.json"));

        // The program's own check: --view needs exactly one file.
        QProcess app;
        app.setProcessEnvironment([] {
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
            return env;
        }());
        app.start(QStringLiteral(KS_APP), {QStringLiteral("--view"), QStringLiteral("x")});
        QVERIFY(app.waitForFinished(30000));
        QCOMPARE(app.exitCode(), 2);
        QVERIFY(app.readAllStandardError().contains("--view NAME needs one trace: FILE"));
    }

    // Add Mark (M): the selected range, else the selected slice (its name the note), else the
    // middle of the view.
    void addMarkTakesTheSelection()
    {
        const QString path = m_dir.filePath(QStringLiteral("mlp.pt.trace.json.gz"));
        QVERIFY(QFile::copy(QStringLiteral(KS_TEST_DATA "/mlp_ops.pt.trace.json.gz"), path));
        MainWindow window;
        window.show();
        QVERIFY(kstest::openAndWait(window, path));
        NotesPanel* panel = window.notes()->panel();
        TimelineWidget* timeline = window.timeline();
        const Trace& trace = *window.trace();
        const SliceId slice = longestSlice(trace);
        const TimeNs start = trace.slices().start[slice], end = trace.slices().end(slice);

        timeline->setSelectedRange(start + 10, end - 10);
        panel->addMarkAction()->trigger();
        timeline->clearSelectedRange();
        timeline->revealSlice(slice);
        panel->addMarkAction()->trigger();
        timeline->clearSelection();
        timeline->setVisibleRange(start, start + 2000);
        panel->addMarkAction()->trigger();

        const auto& marks = panel->model()->marks(); // by start
        QCOMPARE(marks.size(), std::size_t(3));
        QCOMPARE(marks[0].start, start);
        QCOMPARE(marks[0].end, end);
        QCOMPARE(marks[0].note, std::string(trace.str(trace.slices().name[slice])));
        QCOMPARE(marks[1].start, start + 10);
        QCOMPARE(marks[1].end, end - 10);
        QVERIFY(marks[1].note.empty());
        QVERIFY(!marks[2].isRange());
        QVERIFY(std::abs(marks[2].start - (start + 1000)) <= 2);
        // Each one is in the sidecar already, and on the ruler.
        QCOMPARE(notes::readSidecar(QFile::encodeName(path).toStdString()).notes.marks.size(), std::size_t(3));
        QCOMPARE(timeline->marks().marks().size(), std::size_t(3));
        panel->view()->setCurrentIndex(panel->model()->index(1, 0));
        panel->deleteCurrentMark();
        QCOMPARE(notes::readSidecar(QFile::encodeName(path).toStdString()).notes.marks.size(), std::size_t(2));
        QCOMPARE(timeline->marks().marks()[1].start, marks[1].start);
    }

    void anotherTracesSidecarIsRefusedAndKept()
    {
        const QString other = m_dir.filePath(QStringLiteral("other.pt.trace.json.gz"));
        QVERIFY(QFile::copy(QStringLiteral(KS_TEST_DATA "/train_optimized.pt.trace.json.gz"), other));
        const QString sidecar = other + QStringLiteral(".kinetoscope.json");
        QVERIFY(QFile::copy(m_trace + QStringLiteral(".kinetoscope.json"), sidecar));
        const QByteArray before = readAll(sidecar);
        MainWindow window;
        window.show();
        QVERIFY(kstest::openAndWait(window, other));
        QVERIFY(window.trace()->slices().size() > 0);
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Notes not loaded: other.pt.trace.json.gz.kinetoscope.json holds "
                                                   "notes of another trace")),
                 qPrintable(message));
        NotesPanel* panel = window.notes()->panel();
        QCOMPARE(panel->model()->rowCount(), 0);
        panel->addMarkAt(1, 1, QStringLiteral("kept in memory"));
        QCOMPARE(panel->model()->rowCount(), 1);
        QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("Notes not saved:")));
        QCOMPARE(readAll(sidecar), before);
    }
};

QTEST_MAIN(TstNotesController)
#include "tst_notescontroller.moc"
