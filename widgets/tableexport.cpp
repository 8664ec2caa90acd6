#include "widgets/tableexport.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QMessageBox>
#include <QSaveFile>
#include <QTableView>

namespace ks {

namespace {

QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n'))
        && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

QString modelToCsv(QAbstractItemModel& model)
{
    while (model.canFetchMore({}))
        model.fetchMore({});
    QString out;
    const int columns = model.columnCount();
    for (int c = 0; c < columns; ++c) {
        if (c)
            out += QLatin1Char(',');
        out += csvField(model.headerData(c, Qt::Horizontal).toString());
    }
    out += QStringLiteral("\r\n");
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < columns; ++c) {
            if (c)
                out += QLatin1Char(',');
            out += csvField(model.index(r, c).data().toString());
        }
        out += QStringLiteral("\r\n");
    }
    return out;
}

bool writeModelCsv(QAbstractItemModel& model, const QString& path, QString* error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(modelToCsv(model).toUtf8()) < 0 || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void copyModelCsv(QAbstractItemModel& model) { QApplication::clipboard()->setText(modelToCsv(model)); }

bool exportModelCsvInteractively(QAbstractItemModel& model, const QString& suggestedName, QWidget* parent)
{
    const QString path =
        QFileDialog::getSaveFileName(parent, QObject::tr("Export as CSV"), suggestedName + QStringLiteral(".csv"),
                                     QObject::tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty())
        return false;
    QString error;
    if (!writeModelCsv(model, path, &error)) {
        QMessageBox::warning(parent, QObject::tr("Export as CSV"), QObject::tr("Cannot write %1: %2").arg(path, error));
        return false;
    }
    return true;
}

void addTableExportMenu(QTableView* view, const QString& suggestedName)
{
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(QObject::tr("Copy as CSV"), view);
    QObject::connect(copy, &QAction::triggered, view, [view] {
        if (view->model())
            copyModelCsv(*view->model());
    });
    auto* save = new QAction(QObject::tr("Export as CSV…"), view);
    QObject::connect(save, &QAction::triggered, view, [view, suggestedName] {
        if (view->model())
            exportModelCsvInteractively(*view->model(), suggestedName, view);
    });
    view->addAction(copy);
    view->addAction(save);
}

} // namespace ks
