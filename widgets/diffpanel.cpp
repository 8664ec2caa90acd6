#include "widgets/diffpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

DiffPanel::DiffPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_notes(new QLabel(this))
    , m_filter(new QLineEdit(this))
    , m_families(new QCheckBox(tr("Kernel families"), this))
    , m_tabs(new QTabWidget(this))
    , m_members(new QWidget(this))
    , m_base(new QComboBox(m_members))
    , m_new(new QComboBox(m_members))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_summary->font();
    bold.setBold(true);
    m_summary->setFont(bold);
    m_notes->setWordWrap(true);
    m_notes->hide();
    m_filter->setPlaceholderText(tr("Filter by name…"));
    m_filter->setClearButtonEnabled(true);
    m_families->setToolTip(tr("Group kernels whose names differ only in template or tile parameters "
                              "(all GEMMs, all attention kernels, …)"));

    auto* clearHighlight = new QPushButton(tr("Clear Highlight"), this);
    clearHighlight->setToolTip(tr("Double-click a row to highlight its occurrences in both timelines"));
    connect(clearHighlight, &QPushButton::clicked, this, &DiffPanel::highlightCleared);
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_filter, 1);
    controls->addWidget(m_families);
    controls->addWidget(clearHighlight);
    auto* pair = new QHBoxLayout(m_members);
    pair->setContentsMargins(0, 0, 0, 0);
    pair->addWidget(new QLabel(tr("Compare"), m_members));
    pair->addWidget(m_base);
    pair->addWidget(new QLabel(tr("with"), m_members));
    pair->addWidget(m_new);
    pair->addStretch(1);
    for (QComboBox* box : {m_base, m_new})
        box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_base->setToolTip(tr("BASE: the rank the differences are measured from"));
    m_new->setToolTip(tr("NEW: the rank compared with BASE"));
    const auto chosen = [this] { Q_EMIT membersChosen(m_base->currentIndex(), m_new->currentIndex()); };
    connect(m_base, &QComboBox::activated, this, chosen);
    connect(m_new, &QComboBox::activated, this, chosen);
    m_members->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_members);
    layout->addWidget(m_summary);
    layout->addWidget(m_notes);
    layout->addLayout(controls);
    layout->addWidget(m_tabs, 1);

    const std::pair<DiffTableModel::Kind, QString> kinds[] = {
        {DiffTableModel::Kind::Categories, tr("Categories")},
        {DiffTableModel::Kind::Operators, tr("Operators")},
        {DiffTableModel::Kind::Kernels, tr("Kernels")},
        {DiffTableModel::Kind::Memcpy, tr("Memcpy / Memset")},
    };
    for (const auto& [kind, title] : kinds) {
        Table table;
        table.model = new DiffTableModel(kind, this);
        table.proxy = new QSortFilterProxyModel(this);
        table.proxy->setSourceModel(table.model);
        table.proxy->setSortRole(DiffTableModel::kSortRole);
        table.proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
        table.proxy->setFilterKeyColumn(0);
        table.view = new QTableView(this);
        table.view->setModel(table.proxy);
        table.view->setSortingEnabled(true);
        table.view->sortByColumn(table.model->deltaColumn(), Qt::DescendingOrder);
        table.view->setSelectionBehavior(QAbstractItemView::SelectRows);
        table.view->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table.view->verticalHeader()->hide();
        table.view->verticalHeader()->setDefaultSectionSize(20);
        table.view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
        table.view->horizontalHeader()->resizeSection(0, 380);
        table.view->setWordWrap(false);
        table.view->setTextElideMode(Qt::ElideMiddle);
        m_tabs->addTab(table.view, title);
        connect(table.view, &QTableView::doubleClicked, this,
                [this, kind = kind, proxy = table.proxy, model = table.model](const QModelIndex& index) {
                    const QModelIndex source = proxy->mapToSource(index);
                    if (!source.isValid())
                        return;
                    const bool family = kind == DiffTableModel::Kind::Kernels && m_families->isChecked();
                    Q_EMIT rowActivated(kind, QString::fromStdString(model->diffRow(source.row()).name), family);
                });
        connect(m_filter, &QLineEdit::textChanged, table.proxy, &QSortFilterProxyModel::setFilterFixedString);
        m_tables.push_back(table);
    }
    m_tabs->setCurrentIndex(int(DiffTableModel::Kind::Kernels));
    connect(m_families, &QCheckBox::toggled, this, &DiffPanel::fillKernels);
    clear();
}

QTableView* DiffPanel::view(DiffTableModel::Kind kind) const { return m_tables[std::size_t(kind)].view; }

DiffTableModel* DiffPanel::model(DiffTableModel::Kind kind) const { return m_tables[std::size_t(kind)].model; }

void DiffPanel::clear()
{
    m_report.reset();
    for (const Table& table : m_tables)
        table.model->setRows({});
    m_summary->setText(tr("Open a comparison with File ▸ Compare With…"));
    m_notes->hide();
}

void DiffPanel::setMembers(const QStringList& titles, int base, int neu)
{
    for (QComboBox* box : {m_base, m_new}) {
        box->clear();
        box->addItems(titles);
    }
    m_base->setCurrentIndex(base);
    m_new->setCurrentIndex(neu);
    m_members->show();
    if (!m_report)
        m_summary->setText(tr("Comparing %1 with %2…").arg(titles.value(base), titles.value(neu)));
}

void DiffPanel::hideMembers()
{
    m_members->hide();
    m_base->clear();
    m_new->clear();
}

void DiffPanel::setReport(std::shared_ptr<const analysis::DiffReport> report)
{
    m_report = std::move(report);
    if (!m_report) {
        clear();
        return;
    }
    m_summary->setText(QString::fromStdString(m_report->summary));
    QStringList notes;
    for (const std::string& note : m_report->notes)
        notes << QString::fromStdString(note);
    m_notes->setText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty());
    model(DiffTableModel::Kind::Categories)->setRows(m_report->categories);
    model(DiffTableModel::Kind::Operators)->setRows(m_report->ops);
    model(DiffTableModel::Kind::Memcpy)->setRows(m_report->memcpy);
    fillKernels();
}

void DiffPanel::fillKernels()
{
    if (m_report)
        model(DiffTableModel::Kind::Kernels)
            ->setRows(m_families->isChecked() ? m_report->kernelFamilies : m_report->kernels);
    // Numbers fit their columns; names keep a wide, elided first column.
    for (const Table& table : m_tables) {
        table.view->resizeColumnsToContents();
        table.view->horizontalHeader()->resizeSection(0, 380);
    }
}

} // namespace ks
