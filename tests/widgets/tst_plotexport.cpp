// Charts to PNG, SVG and PDF (widgets/plotexport): each file is of its format, at the size
// asked or the chart's own, and the charts of the window offer the export in their menu.
#include "widgets/memorychart.h"
#include "widgets/plotexport.h"

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

class TestPlotExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void writesEachFormat()
    {
        QCustomPlot plot;
        plot.resize(500, 300);
        QCPGraph* graph = plot.addGraph();
        graph->setData({0, 1, 2, 3}, {1, 4, 2, 8});
        plot.xAxis->setLabel(QStringLiteral("time (ms)"));
        plot.rescaleAxes();
        QTemporaryDir dir;
        QString error;

        const QString png = dir.filePath(QStringLiteral("chart.png"));
        QVERIFY2(savePlot(plot, png, QSize(640, 480), &error), qPrintable(error));
        QCOMPARE(QImage(png).size(), QSize(640, 480));
        const QString own = dir.filePath(QStringLiteral("own.png"));
        QVERIFY(savePlot(plot, own));
        QCOMPARE(QImage(own).size(), QSize(500, 300));

        const QString svg = dir.filePath(QStringLiteral("chart.svg"));
        QVERIFY2(savePlot(plot, svg, QSize(640, 480), &error), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgText = svgFile.readAll();
        QVERIFY(svgText.contains("viewBox=\"0 0 640 480\""));
        QVERIFY(svgText.contains("time (ms)"));

        const QString pdf = dir.filePath(QStringLiteral("chart.pdf"));
        QVERIFY(savePlot(plot, pdf, QSize(640, 480), &error));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.read(5) == "%PDF-");

        QVERIFY(!savePlot(plot, dir.filePath(QStringLiteral("no/dir.svg")), {}, &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!savePlot(plot, dir.filePath(QStringLiteral("no/dir.png")), {}, &error));
    }

    void chartsOfferTheExportInTheirMenu()
    {
        MemoryChart chart;
        QCOMPARE(chart.contextMenuPolicy(), Qt::CustomContextMenu);
    }
};

QTEST_MAIN(TestPlotExport)
#include "tst_plotexport.moc"
