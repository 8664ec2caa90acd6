// The GUI on every fuzz seed and committed reproducer (tests/fuzz), so on every malformed
// class of trace-format.md §7: each opens through the real main window and ends in an error
// dialog naming the file, or in a trace with its warnings behind the ⚠ button. Then every
// slice goes through the details panel (lazy args decoding) and the window paints.
#include "app/mainwindow.h"
#include "widgets/detailspanel.h"
#include "windowtesting.h"

#include "hostilefiles.h"

#include <QDir>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

using namespace ks;

namespace {

using kstest::visibleMessageBox;

} // namespace

class TestHostileFiles : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { kstest::useTestSettings(); }

    void opensEachFile_data() { QVERIFY(kstest::addHostileFileRows() >= 20); }

    void opensEachFile()
    {
        QFETCH(std::string, path);
        const QString file = QString::fromStdString(path);
        MainWindow window;
        window.show();
        QSignalSpy changed(&window, &MainWindow::traceChanged);
        window.openFile(file);
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), 30000);
        if (QMessageBox* box = visibleMessageBox(window)) {
            QVERIFY(!window.trace());
            QVERIFY2(box->text().contains(QDir::toNativeSeparators(file)), qPrintable(box->text()));
            box->close();
            return;
        }
        QVERIFY2(window.trace(), "neither a trace nor an error dialog");
        const Trace& trace = *window.trace();
        // The ⚠ button counts what is wrong; expected properties of the format are information.
        const std::uint64_t expectedWarnings = trace.diagnostics().warningCount();
        bool shown = false;
        for (QToolButton* button : window.findChildren<QToolButton*>()) {
            if (button->isVisible() && button->text().startsWith(QStringLiteral("⚠")))
                shown = button->text().contains(QString::number(expectedWarnings));
        }
        QCOMPARE(shown, expectedWarnings > 0);
        if (QFileInfo(file).fileName().startsWith(QLatin1String("utf8-")))
            QVERIFY(trace.diagnostics().count("invalid-utf8") > 0);
        // Details of every slice (args decoded from the file) and a paint of the window.
        const SliceId slices = SliceId(std::min<std::size_t>(trace.slices().size(), 300));
        for (SliceId s = 0; s < slices; ++s) {
            window.revealSlice(s);
            QCOMPARE(window.detailsPanel()->slice(), s);
        }
        QVERIFY(!window.grab().isNull());
    }
};

QTEST_MAIN(TestHostileFiles)
#include "tst_hostilefiles.moc"
