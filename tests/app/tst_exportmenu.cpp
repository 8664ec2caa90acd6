// File ▸ Export (issue 41): the timeline as PNG and SVG, and every table of every dock as CSV
// (a dock with several tables lists each under its own name); every one of those tables also
// copies and exports itself from its context menu.
#include "app/exportmenu.h"
#include "app/mainwindow.h"
#include "tests/support/windowtesting.h"

#include <QDockWidget>
#include <QMenuBar>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace ks;

namespace {

QMenu* exportMenu(MainWindow& window)
{
    for (QAction* top : window.menuBar()->actions()) {
        if (!top->menu())
            continue;
        for (QAction* item : top->menu()->actions()) {
            if (item->menu() && item->text() == QStringLiteral("&Export"))
                return item->menu();
        }
    }
    return nullptr;
}

} // namespace

class TstExportMenu : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
    }

    void listsTheTimelineAndEveryTable()
    {
        MainWindow window;
        window.show();
        QVERIFY(kstest::openAndWait(window, QStringLiteral(KS_TEST_DATA "/train_baseline.pt.trace.json.gz")));
        QMenu* menu = exportMenu(window);
        QVERIFY(menu);
        Q_EMIT menu->aboutToShow();
        QStringList csv;
        QStringList timeline;
        for (QAction* action : menu->actions()) {
            if (action->text().endsWith(QStringLiteral(" as CSV…")))
                csv << action->text();
            else if (action->text().startsWith(QStringLiteral("Timeline as ")))
                timeline << action->text() + (action->isEnabled() ? QString() : QStringLiteral(" (off)"));
        }
        QCOMPARE(timeline, (QStringList{QStringLiteral("Timeline as PNG…"), QStringLiteral("Timeline as SVG…")}));

        // Every table of every dock: one entry each, under names that differ, and a context menu.
        int tables = 0;
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            for (QTableView* view : dock->findChildren<QTableView*>()) {
                QVERIFY(view->model());
                ++tables;
                QCOMPARE(view->contextMenuPolicy(), Qt::ActionsContextMenu);
                QStringList menuTexts;
                for (QAction* action : view->actions())
                    menuTexts << action->text();
                QVERIFY2(menuTexts.contains(QStringLiteral("Copy as CSV")), qPrintable(dock->windowTitle()));
                QVERIFY(menuTexts.contains(QStringLiteral("Export as CSV…")));
            }
        }
        QCOMPARE(QSet<QString>(csv.begin(), csv.end()).size(), csv.size());
        QCOMPARE(csv.size(), tables);
        QVERIFY(tables >= 12);
        QVERIFY(csv.contains(QStringLiteral("Operators as CSV…")));
        QVERIFY(csv.contains(QStringLiteral("Notes as CSV…")));
        QVERIFY(csv.contains(QStringLiteral("GPU Summary (GPU activities) as CSV…")));
        // The Memory dock holds two tables: each is named by its first columns.
        QVERIFY(std::count_if(csv.begin(), csv.end(),
                              [](const QString& t) { return t.startsWith(QStringLiteral("Memory (")); })
                >= 2);
    }
};

QTEST_MAIN(TstExportMenu)
#include "tst_exportmenu.moc"
