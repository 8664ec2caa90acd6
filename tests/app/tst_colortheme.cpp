// View ▸ Theme: the dark and light palettes reach every view of the main window at once (the
// timeline, the charts, the tables), the choice is kept, and System restores the look the
// application started with.
#include "app/colortheme.h"
#include "app/mainwindow.h"
#include "widgets/timelinewidget.h"
#include "windowtesting.h"

#include <QApplication>
#include <QMenuBar>
#include <QStyle>
#include <qcustomplot.h>

#include <memory>

using namespace ks;

namespace {

// Mean lightness (0-255) of what `widget` shows: backgrounds dominate every view.
double meanLightness(QWidget& widget)
{
    const QImage image = widget.grab().toImage();
    double sum = 0;
    std::size_t n = 0;
    for (int y = 0; y < image.height(); y += 4) {
        for (int x = 0; x < image.width(); x += 4, ++n)
            sum += QColor(image.pixel(x, y)).lightness();
    }
    return n ? sum / double(n) : 0;
}

// Every chart of the window (GPU steps, memory, roofline, the GPU metric tracks) draws its axes
// in this palette's text on its base.
bool chartsFollow(MainWindow& window, const QPalette& palette)
{
    const auto charts = window.findChildren<QCustomPlot*>();
    if (charts.size() < 3)
        return false;
    for (QCustomPlot* chart : charts) {
        if (chart->xAxis->basePen().color() != palette.color(QPalette::Text)
            || chart->yAxis->tickLabelColor() != palette.color(QPalette::Text)
            || chart->legend->brush().color() != palette.color(QPalette::Base))
            return false;
    }
    return true;
}

QAction* themeAction(MainWindow& window, const QString& key)
{
    for (QAction* action : window.menuBar()->findChildren<QAction*>()) {
        if (action->data().toString() == key && action->isCheckable())
            return action;
    }
    return nullptr;
}

} // namespace

class TestColorTheme : public QObject {
    Q_OBJECT
private:
    QString m_startStyle;
    QPalette m_startPalette;

private Q_SLOTS:
    void initTestCase()
    {
        kstest::useTestSettings();
        m_startStyle = QApplication::style()->name();
        m_startPalette = QApplication::palette();
    }
    void cleanup() { applyColorTheme(ColorTheme::System); }

    void keysRoundTrip()
    {
        for (const ColorTheme theme : {ColorTheme::System, ColorTheme::Light, ColorTheme::Dark})
            QCOMPARE(colorThemeFromKey(colorThemeKey(theme)), theme);
        QCOMPARE(colorThemeFromKey(QStringLiteral("purple")), ColorTheme::System);
        QCOMPARE(colorThemeFromKey(QString()), ColorTheme::System);
    }

    // The menu switches the whole window with a trace open, keeps the choice and shows it.
    void menuSwitchesEveryViewAndIsKept()
    {
        QSettings().remove(QStringLiteral("view/theme"));
        auto window = std::make_unique<MainWindow>();
        QVERIFY(kstest::showActive(*window, {1400, 900}));
        QVERIFY(kstest::openAndWait(*window, QStringLiteral(KS_TEST_DATA "/cudagraphs.pt.trace.json.gz")));
        QAction* system = themeAction(*window, QStringLiteral("system"));
        QAction* dark = themeAction(*window, QStringLiteral("dark"));
        QAction* light = themeAction(*window, QStringLiteral("light"));
        QVERIFY(system && dark && light);
        QVERIFY(system->isChecked());

        dark->trigger();
        QVERIFY(dark->isChecked() && !system->isChecked());
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
        QCOMPARE(QApplication::style()->name(), QStringLiteral("fusion"));
        QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
        QCoreApplication::processEvents();
        const double inDark = meanLightness(*window);
        const double timelineInDark = meanLightness(*window->timeline());
        QVERIFY2(inDark < 90, std::to_string(inDark).c_str());
        QVERIFY2(timelineInDark < 90, std::to_string(timelineInDark).c_str());
        QVERIFY(chartsFollow(*window, QApplication::palette()));

        light->trigger();
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("light"));
        QCoreApplication::processEvents();
        const double inLight = meanLightness(*window);
        QVERIFY2(inLight > 180, std::to_string(inLight).c_str());
        QVERIFY2(meanLightness(*window->timeline()) > 180, std::to_string(inLight).c_str());
        QVERIFY(chartsFollow(*window, QApplication::palette()));

        // A new window (the next start) shows the kept choice checked.
        window.reset();
        auto next = std::make_unique<MainWindow>();
        QVERIFY(themeAction(*next, QStringLiteral("light"))->isChecked());
        QCOMPARE(savedColorTheme(), ColorTheme::Light);
    }

    void systemRestoresTheStartupLook()
    {
        applyColorTheme(ColorTheme::Dark);
        QVERIFY(QApplication::palette() != m_startPalette);
        applyColorTheme(ColorTheme::System);
        QCOMPARE(QApplication::style()->name(), m_startStyle);
        QVERIFY(QApplication::palette() == m_startPalette);
    }
};

QTEST_MAIN(TestColorTheme)
#include "tst_colortheme.moc"
