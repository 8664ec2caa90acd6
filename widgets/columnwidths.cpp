#include "widgets/columnwidths.h"

#include <QHeaderView>
#include <QSettings>
#include <QTableView>
#include <QVariantMap>

namespace ks {

ColumnWidthMemory::ColumnWidthMemory(QTableView* view, QString key)
    : QObject(view)
    , m_view(view)
    , m_key(QStringLiteral("columnWidths/") + key)
{
    connect(view->horizontalHeader(), &QHeaderView::sectionResized, this,
            [this](int section, int, int width) { remember(section, width); });
}

bool ColumnWidthMemory::restore()
{
    const QVariantMap widths = QSettings().value(m_key).toMap();
    const QAbstractItemModel* model = m_view->model();
    if (widths.isEmpty() || !model)
        return false;
    bool any = false;
    resizeQuietly([&] {
        for (int c = 0; c < model->columnCount(); ++c) {
            const int width = widths.value(model->headerData(c, Qt::Horizontal).toString(), 0).toInt();
            if (width > 0) {
                m_view->setColumnWidth(c, width);
                any = true;
            }
        }
    });
    return any;
}

void ColumnWidthMemory::resizeQuietly(const std::function<void()>& resize)
{
    const bool was = m_quiet;
    m_quiet = true;
    resize();
    m_quiet = was;
}

void ColumnWidthMemory::remember(int section, int width)
{
    const QAbstractItemModel* model = m_view->model();
    const QHeaderView* header = m_view->horizontalHeader();
    // A stretched last column takes the view's width, not one the user chose.
    if (m_quiet || !model || width <= 0 || (header->stretchLastSection() && section == header->count() - 1))
        return;
    QSettings settings;
    QVariantMap widths = settings.value(m_key).toMap();
    widths.insert(model->headerData(section, Qt::Horizontal).toString(), width);
    settings.setValue(m_key, widths);
}

} // namespace ks
