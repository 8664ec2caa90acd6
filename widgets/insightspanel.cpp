#include "widgets/insightspanel.h"

#include "core/facts/tracefacts.h"

#include "widgets/insightsmodel.h"
#include "widgets/jobtracker.h"
#include "widgets/timelinewidget.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include <utility>

namespace ks {

InsightsPanel::InsightsPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_model(new InsightsModel(this))
    , m_view(new QTableView(this))
    , m_details(new QTextBrowser(this))
    , m_visibleOnly(new QCheckBox(tr("Visible range only"), this))
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_evidenceLabel(new QLabel(this))
    , m_countLabel(new QLabel(this))
{
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    // The dock is narrow: numbers take what they need, the finding gets the rest.
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(InsightsModel::TitleColumn, QHeaderView::Stretch);
    m_view->setWordWrap(false);
    m_details->setOpenLinks(false);
    // Arrows only: the row shares a narrow dock with the checkbox and the evidence count.
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("Select and reveal the previous evidence event"));
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("Select and reveal the next evidence event"));

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_visibleOnly);
    tools->addStretch(1);
    tools->addWidget(m_evidenceLabel);
    tools->addWidget(m_previous);
    tools->addWidget(m_next);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(tools);
    layout->addWidget(splitter, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectInsight(current.row()); });
    connect(m_previous, &QToolButton::clicked, this, &InsightsPanel::previousEvidence);
    connect(m_next, &QToolButton::clicked, this, &InsightsPanel::nextEvidence);
    connect(m_visibleOnly, &QCheckBox::toggled, this, &InsightsPanel::setVisibleRangeOnly);
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &InsightsPanel::analyze);
        connect(timeline, &TimelineWidget::stepRulesChanged, this, [this] {
            if (m_timeline->trace())
                analyze(m_timeline->trace());
        });
        connect(timeline, &TimelineWidget::visibleRangeChanged, this, &InsightsPanel::onVisibleRangeChanged);
        if (timeline->trace())
            analyze(timeline->trace());
    }
    updateLabels();
}

InsightsPanel::~InsightsPanel() = default;

void InsightsPanel::analyze(std::shared_ptr<const Trace> trace)
{
    m_hasResult = false;
    if (!trace) {
        m_jobs->cancel();
        apply({});
        return;
    }
    m_countLabel->setText(tr("Insights: analysing…"));
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline && m_timeline->showsNewerSnapshot()),
        [trace = std::move(trace), rules = m_timeline ? m_timeline->stepRules() : facts::StepRules{}] {
            return analysis::findInsights(*facts::sharedTraceFacts(trace, rules));
        },
        [this](std::vector<analysis::Insight> insights) { apply(std::move(insights)); },
        [this](const QString& error) {
            apply({});
            m_countLabel->setText(tr("Insights failed"));
            m_details->setPlainText(tr("Insights could not be computed: %1").arg(error));
        });
}

void InsightsPanel::apply(std::vector<analysis::Insight> insights)
{
    m_hasResult = m_timeline && m_timeline->trace();
    m_model->setInsights(std::move(insights));
    selectInsight(-1);
    updateLabels();
    Q_EMIT insightsReady(m_model->rowCount());
}

void InsightsPanel::selectInsight(int row)
{
    if (m_view->currentIndex().row() != row && row >= 0)
        m_view->setCurrentIndex(m_model->index(row, 0)); // comes back here through the selection model
    refreshCurrent();
}

void InsightsPanel::refreshCurrent()
{
    const analysis::Insight* insight = m_model->insightAt(m_view->currentIndex().row());
    m_evidence.clear();
    m_evidenceIndex = -1;
    if (!insight) {
        showOverview();
        if (m_timeline)
            m_timeline->setHighlightedSlices({});
        updateLabels();
        return;
    }
    const bool visibleOnly = m_visibleOnly->isChecked() && m_viewEnd > m_viewStart;
    std::vector<SliceId> highlighted;
    for (const auto& e : insight->evidence) {
        if (visibleOnly && (e.start + e.duration < m_viewStart || e.start > m_viewEnd))
            continue;
        m_evidence.push_back(e);
        if (e.slice != kNoSlice)
            highlighted.push_back(e.slice);
    }
    if (m_timeline)
        m_timeline->setHighlightedSlices(std::move(highlighted));

    const QModelIndex current = m_view->currentIndex();
    QString html = QStringLiteral("<p><b>%1</b> <small>(%2, %3)</small></p>")
                       .arg(QString::fromStdString(insight->title).toHtmlEscaped(),
                            QString::fromStdString(insight->id).toHtmlEscaped(),
                            tr("%1 severity").arg(current.data(InsightsModel::kSeverityRole).toString()));
    html +=
        QStringLiteral("<p>") + QString::fromStdString(insight->explanation).toHtmlEscaped() + QStringLiteral("</p>");
    html +=
        QStringLiteral("<p><b>%1</b> %2</p>").arg(tr("Fix:"), QString::fromStdString(insight->advice).toHtmlEscaped());
    if (!insight->figures.empty()) {
        QStringList figures;
        for (const auto& [key, value] : insight->figures)
            figures << QStringLiteral("%1 = %2").arg(QString::fromStdString(key)).arg(value, 0, 'g', 4);
        html += QStringLiteral("<p><small>") + figures.join(QStringLiteral(", ")).toHtmlEscaped()
            + QStringLiteral("</small></p>");
    }
    m_details->setHtml(html);
    updateLabels();
}

// Without a selection the text pane lists every finding in full (the table elides titles).
void InsightsPanel::showOverview()
{
    if (m_model->rowCount() == 0) {
        m_details->setHtml(m_hasResult ? tr("<p>Nothing to fix found in this trace.</p>") : QString());
        return;
    }
    QString html = QStringLiteral("<p>") + tr("Select a finding to highlight its evidence on the timeline.")
        + QStringLiteral("</p><ul>");
    for (const auto& insight : m_model->insights()) {
        html += QStringLiteral("<li><b>%1</b> %2 <small>(%3 per step)</small></li>")
                    .arg(QString::fromStdString(insight.id).toHtmlEscaped(),
                         QString::fromStdString(insight.title).toHtmlEscaped(), InsightsModel::timePerStep(insight));
    }
    m_details->setHtml(html + QStringLiteral("</ul>"));
}

void InsightsPanel::nextEvidence() { stepEvidence(+1); }

void InsightsPanel::previousEvidence() { stepEvidence(-1); }

void InsightsPanel::stepEvidence(int delta)
{
    if (m_evidence.empty())
        return;
    const int count = int(m_evidence.size());
    m_evidenceIndex = m_evidenceIndex < 0 ? (delta > 0 ? 0 : count - 1) : (m_evidenceIndex + delta + count) % count;
    const analysis::Evidence& e = m_evidence[std::size_t(m_evidenceIndex)];
    if (m_timeline) {
        if (e.slice != kNoSlice)
            m_timeline->revealSlice(e.slice);
        // An idle gap is its own range: show it with its cause.
        if (e.slice == kNoSlice || m_timeline->trace()->slices().start[e.slice] != e.start) {
            const TimeNs margin = std::max<TimeNs>(e.duration, 1000);
            TimeNs from = e.start - margin, to = e.start + e.duration + margin;
            if (e.slice != kNoSlice) {
                from = std::min(from, m_timeline->trace()->slices().start[e.slice]);
                to = std::max(to, m_timeline->trace()->slices().end(e.slice));
            }
            m_timeline->setVisibleRange(from, to);
        }
    }
    updateLabels();
}

void InsightsPanel::setVisibleRangeOnly(bool on)
{
    if (m_visibleOnly->isChecked() != on)
        m_visibleOnly->setChecked(on);
    refreshCurrent();
}

void InsightsPanel::onVisibleRangeChanged(TimeNs start, TimeNs end)
{
    m_viewStart = start;
    m_viewEnd = end;
    // Walking the evidence moves the view; the set only follows the view when asked to.
    if (m_visibleOnly->isChecked() && m_evidenceIndex < 0)
        refreshCurrent();
}

void InsightsPanel::updateLabels()
{
    const int count = m_model->rowCount();
    m_countLabel->setText(count == 1 ? tr("1 insight") : tr("%1 insights").arg(count));
    const bool any = !m_evidence.empty();
    m_previous->setEnabled(any);
    m_next->setEnabled(any);
    m_evidenceLabel->setText(
        any ? tr("evidence %1 / %2")
                  .arg(m_evidenceIndex < 0 ? QStringLiteral("–") : QString::number(m_evidenceIndex + 1))
                  .arg(m_evidence.size())
            : QString());
}

} // namespace ks
