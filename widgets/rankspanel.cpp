#include "widgets/rankspanel.h"

#include "widgets/statsformat.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

namespace {

constexpr int kSortRole = Qt::UserRole + 1;
constexpr int kIndexRole = Qt::UserRole + 2;

QStandardItem* textItem(const QString& text)
{
    auto* item = new QStandardItem(text);
    item->setData(text, kSortRole);
    item->setEditable(false);
    return item;
}

QStandardItem* numberItem(double value, const QString& text)
{
    auto* item = new QStandardItem(text);
    item->setData(value, kSortRole);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setEditable(false);
    return item;
}

QStandardItem* durationItem(TimeNs ns) { return numberItem(double(ns), statsDuration(ns)); }

QTableView* makeView(QStandardItemModel* model, QWidget* parent)
{
    auto* view = new QTableView(parent);
    model->setSortRole(kSortRole);
    view->setModel(model);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(20);
    view->horizontalHeader()->setStretchLastSection(true);
    measureColumnsFromLeadingRows(*view); // 8 ranks give thousands of collectives
    return view;
}

} // namespace

RanksPanel::RanksPanel(QWidget* parent)
    : QWidget(parent)
    , m_alignment(new QLabel(this))
    , m_verdict(new QLabel(this))
    , m_emptyText(tr("Open several ranks of a run (File ▸ Open Folder, or several files)."))
    , m_stepButton(new QPushButton(tr("Show its step"), this))
    , m_rankModel(new QStandardItemModel(this))
    , m_collectiveModel(new QStandardItemModel(this))
{
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_alignment->setWordWrap(true);
    m_rankView = makeView(m_rankModel, this);
    m_collectiveView = makeView(m_collectiveModel, this);

    auto* top = new QHBoxLayout;
    top->addWidget(m_verdict, 1);
    top->addWidget(m_stepButton);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_rankView);
    splitter->addWidget(m_collectiveView);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_alignment);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);

    connect(m_stepButton, &QPushButton::clicked, this, [this] {
        if (m_report && m_report->straggler.rank && m_report->straggler.worstStep >= 0) {
            for (const analysis::RankSummary& rank : m_report->ranks) {
                if (rank.rank == *m_report->straggler.rank)
                    Q_EMIT stepRequested(rank.member, m_report->straggler.worstStep);
            }
        }
    });
    connect(m_collectiveView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const QVariant which = m_collectiveModel->item(index.row(), 0)->data(kIndexRole);
        if (which.isValid())
            Q_EMIT collectiveActivated(std::size_t(which.toULongLong()));
    });
    clear();
}

void RanksPanel::clear()
{
    m_report.reset();
    m_rankModel->clear();
    m_collectiveModel->clear();
    m_verdict->setText(m_emptyText);
    m_alignment->clear();
    m_stepButton->setEnabled(false);
}

std::vector<std::size_t> RanksPanel::selectedMembers() const
{
    std::vector<std::size_t> members;
    for (const QModelIndex& index : m_rankView->selectionModel()->selectedRows()) {
        const QVariant member = m_rankModel->item(index.row(), 0)->data(kIndexRole);
        if (member.isValid())
            members.push_back(std::size_t(member.toULongLong()));
    }
    return members;
}

void RanksPanel::setAlignmentText(const QString& text) { m_alignment->setText(text); }

void RanksPanel::setEmptyText(const QString& text)
{
    m_emptyText = text;
    if (!m_report)
        m_verdict->setText(text);
}

void RanksPanel::setReport(std::shared_ptr<const analysis::RanksReport> report, const QStringList& labels)
{
    const QString alignment = m_alignment->text();
    clear();
    m_alignment->setText(alignment);
    m_report = std::move(report);
    if (!m_report)
        return;
    const analysis::StragglerVerdict& verdict = m_report->straggler;
    m_verdict->setText(QString::fromStdString(verdict.text));
    m_stepButton->setEnabled(verdict.rank.has_value() && verdict.worstStep >= 0);
    if (verdict.worstStep >= 0)
        m_stepButton->setText(tr("Show its step %1").arg(verdict.worstStep));

    m_rankModel->setHorizontalHeaderLabels({tr("Rank"), tr("Steps"), tr("Step time"), tr("Compute"), tr("Collectives"),
                                            tr("Wait"), tr("Idle"), tr("Wait caused"), tr("Last arrivals")});
    m_rankModel->horizontalHeaderItem(2)->setToolTip(
        tr("Mean step (ProfilerStep, else step labels or Optimizer.step); without steps, the span of the rank's "
           "GPU work (the others are totals over it)"));
    for (const analysis::RankSummary& rank : m_report->ranks) {
        const QString label = labels.value(int(rank.member), QString::number(rank.rank));
        QList<QStandardItem*> row{textItem(label),
                                  numberItem(double(rank.steps), QString::number(rank.steps)),
                                  durationItem(rank.stepTimeMean),
                                  durationItem(rank.kernelTime),
                                  durationItem(rank.collectiveTime),
                                  durationItem(rank.collectiveWait),
                                  durationItem(rank.idleTime),
                                  durationItem(rank.waitCaused),
                                  numberItem(double(rank.lastArrivals), QString::number(rank.lastArrivals))};
        row.front()->setData(qulonglong(rank.member), kIndexRole);
        if (verdict.rank && rank.rank == *verdict.rank) {
            for (QStandardItem* item : row) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
                item->setForeground(readableAccent(QColor(180, 30, 30)));
            }
            // Named the straggler only when the analysis says the waiting is consistently its.
            row.front()->setText(label + (verdict.consistent ? tr(" (straggler)") : tr(" (caused most waiting)")));
        }
        m_rankModel->appendRow(row);
    }
    m_rankView->resizeColumnsToContents();

    m_collectiveModel->setHorizontalHeaderLabels(
        {tr("Group"), tr("#"), tr("Collective"), tr("Size"), tr("Last rank"), tr("Max wait")});
    const auto& collectives = m_report->matching.collectives;
    for (std::size_t i = 0; i < collectives.size(); ++i) {
        const analysis::MatchedCollective& c = collectives[i];
        QList<QStandardItem*> row{
            textItem(QString::fromStdString(c.processGroup)),
            numberItem(double(c.seq), QString::number(c.seq)),
            textItem(QString::fromStdString(c.name) + (c.mismatch ? tr(" ⚠ mismatch") : QString())),
            numberItem(double(c.bytes), c.bytes >= 0 ? statsBytes(c.bytes) : QString()),
            numberItem(c.lastRank, QString::number(c.lastRank)),
            durationItem(c.maxWait)};
        row.front()->setData(qulonglong(i), kIndexRole);
        m_collectiveModel->appendRow(row);
    }
    m_collectiveView->resizeColumnsToContents();
}

} // namespace ks
