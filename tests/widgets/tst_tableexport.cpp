// Tables to CSV (widgets/tableexport): the CSV of a real operator table holds every cell the
// model shows, quoted where needed; a paged model is read to its end; the clipboard gets it.
#include "core/stats/kernelstats.h"
#include "core/stats/operatortable.h"
#include "fixture.h"
#include "widgets/kerneltablemodel.h"
#include "widgets/opstablemodel.h"
#include "widgets/queryresultmodel.h"
#include "widgets/tableexport.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;

namespace {

// RFC 4180 records (quoted fields may hold commas, quotes and line breaks).
QList<QStringList> parseCsv(const QString& text)
{
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
        } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text[i + 1] == QLatin1Char('\n')) {
            record << field;
            field.clear();
            records << record;
            record.clear();
            ++i;
        } else {
            field += c;
        }
    }
    return records;
}

} // namespace

class TestTableExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void operatorTableCsvEqualsTheModel()
    {
        const auto trace = test::loadFixture("mlp_ops");
        OperatorTableModel model;
        model.setTable(computeOperatorTable(*trace));
        QVERIFY(model.rowCount() > 40);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("operators.csv"));
        QVERIFY(writeModelCsv(model, path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto records = parseCsv(QString::fromUtf8(file.readAll()));
        QCOMPARE(records.size(), model.rowCount() + 1);
        for (int c = 0; c < model.columnCount(); ++c)
            QCOMPARE(records[0][c], model.headerData(c, Qt::Horizontal).toString());
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(records[r + 1].size(), model.columnCount());
            for (int c = 0; c < model.columnCount(); ++c)
                QCOMPARE(records[r + 1][c], model.index(r, c).data().toString());
        }
        // aten::mm is there with its 12 calls.
        bool foundMm = false;
        for (const auto& record : records)
            foundMm = foundMm || (record[0] == QStringLiteral("aten::mm") && record.contains(QStringLiteral("12")));
        QVERIFY(foundMm);
        QVERIFY(!writeModelCsv(model, dir.filePath(QStringLiteral("no/such/folder.csv"))));
    }

    // A second real table, through the clipboard: the Kernels table of a GPU trace, whose calls
    // add up to the trace's kernel slices counted here.
    void kernelTableCsvToTheClipboard()
    {
        const auto trace = test::loadFixture("train_baseline");
        KernelTableModel model;
        model.setRows(computeKernelStats(*trace));
        QVERIFY(model.rowCount() > 5);
        copyModelCsv(model);
        const auto records = parseCsv(QApplication::clipboard()->text());
        QCOMPARE(records.size(), model.rowCount() + 1);
        QCOMPARE(records[0][0], QStringLiteral("Name"));
        const int calls = model.visibleColumn(KernelTableModel::Calls);
        QVERIFY(calls >= 0);
        QCOMPARE(records[0][calls], model.headerData(calls, Qt::Horizontal).toString());
        std::uint64_t callSum = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(records[r + 1].size(), model.columnCount());
            QCOMPARE(records[r + 1][0], QString::fromStdString(model.rows()[std::size_t(r)].name));
            QCOMPARE(records[r + 1][calls], model.index(r, calls).data().toString());
            callSum += model.rows()[std::size_t(r)].calls;
        }
        std::uint64_t kernels = 0;
        for (SliceId s = 0; s < trace->slices().size(); ++s)
            kernels += trace->str(trace->slices().category[s]) == "kernel";
        QVERIFY(kernels > 0);
        QCOMPARE(callSum, kernels);
    }

    void pagedModelIsReadToTheEndAndQuoted()
    {
        QueryResultModel model;
        model.reset({QStringLiteral("name"), QStringLiteral("n")});
        model.appendRows({{QStringLiteral("a,\"b\""), 1}}, false);
        int pages = 0;
        connect(&model, &QueryResultModel::moreRowsWanted, this, [&] {
            ++pages;
            model.appendRows({{QStringLiteral("line\nbreak"), 2}}, true);
        });
        copyModelCsv(model);
        QCOMPARE(pages, 1);
        QCOMPARE(QApplication::clipboard()->text(),
                 QStringLiteral("name,n\r\n\"a,\"\"b\"\"\",1\r\n\"line\nbreak\",2\r\n"));
    }
};

QTEST_MAIN(TestTableExport)
#include "tst_tableexport.moc"
