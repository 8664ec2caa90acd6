#include "widgets/insightspanel.h"

#include "core/analysis/jobview.h"
#include "core/facts/tracefacts.h"

#include "widgets/insightsmodel.h"
#include "widgets/jobtracker.h"
#include "widgets/peaksettings.h"
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

#include <algorithm>
#include <span>
#include <utility>

namespace ks {

namespace {

// Evidence that is a range of its own (an idle gap), not the span of its slice.
bool isGap(const Trace& trace, const analysis::Evidence& e)
{
    return e.slice == kNoSlice || trace.slices().start[e.slice] != e.start;
}

} // namespace

InsightsPanel::InsightsPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_model(new InsightsModel(this))
    , m_view(new QTableView(this))
    , m_details(new QTextBrowser(this))
    , m_visibleOnly(new QCheckBox(tr("Visible range only"), this))
    , m_allMembers(new QCheckBox(tr("All traces"), this))
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
    // A finding's title wraps in its row rather than being cut (issue 35: right docks are narrow).
    m_view->setWordWrap(true);
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setColumnHidden(InsightsModel::MemberColumn, true);
    m_details->setOpenLinks(false);
    m_allMembers->setToolTip(tr("List the findings of every open trace (ranks, BASE and NEW) with their trace, "
                                "and those across ranks (straggler)"));
    m_allMembers->hide(); // until several traces are open
    // Arrows only: the row shares a narrow dock with the checkbox and the evidence count.
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("Select and reveal the previous evidence event"));
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("Select and reveal the next evidence event"));

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_visibleOnly);
    tools->addWidget(m_allMembers);
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
    connect(m_allMembers, &QCheckBox::toggled, this, &InsightsPanel::setAllMembers);
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &InsightsPanel::analyze);
        connect(timeline, &TimelineWidget::stepRulesChanged, this, &InsightsPanel::forgetMember);
        connect(timeline, &TimelineWidget::visibleRangeChanged, this, &InsightsPanel::onVisibleRangeChanged);
        if (timeline->trace())
            analyze(timeline->trace());
    }
    updateLabels();
}

InsightsPanel::~InsightsPanel() = default;

bool InsightsPanel::allMembers() const { return m_allMembers->isChecked() && m_memberInsights.size() > 1; }

void InsightsPanel::analyze(std::shared_ptr<const Trace> trace)
{
    m_hasResult = false;
    m_member = 0;
    const std::uint32_t count = trace && m_timeline ? m_timeline->traceCount() : 0;
    m_memberInsights.assign(count, std::nullopt);
    m_allInsights.reset();
    QStringList names;
    for (std::uint32_t i = 0; i < count; ++i)
        names << m_timeline->traceTitle(i);
    m_model->setMemberNames(names);
    m_allMembers->setVisible(count > 1);
    if (!trace) {
        m_jobs->cancel();
        apply({});
        return;
    }
    request();
}

void InsightsPanel::request()
{
    if (!m_timeline || m_memberInsights.empty())
        return;
    // low-gemm-efficiency measures against the user's roofs (the Roofline panel's overrides):
    // findings computed with other roofs are computed again.
    const analysis::PeakOverrides peaks = PeakSettings::load().overrides();
    if (peaks != m_peaks) {
        m_peaks = peaks;
        m_memberInsights.assign(m_memberInsights.size(), std::nullopt);
        m_allInsights.reset();
    }
    const bool all = allMembers();
    if (all ? m_allInsights.has_value() : m_memberInsights[m_member].has_value()) {
        apply(all ? *m_allInsights : *m_memberInsights[m_member]);
        return;
    }
    m_countLabel->setText(tr("Insights: analysing…"));
    const auto onFailure = [this](const QString& error) {
        apply({});
        m_countLabel->setText(tr("Insights failed"));
        m_details->setPlainText(tr("Insights could not be computed: %1").arg(error));
    };
    if (!all) {
        const std::uint32_t member = m_member;
        m_jobs->start(
            JobTracker::letFinishIf(m_timeline->showsNewerSnapshot()),
            [trace = m_timeline->traceAt(member), rules = m_timeline->stepRules(member), peaks] {
                return analysis::findInsights(*facts::sharedTraceFacts(trace, rules), peaks);
            },
            [this, member](std::vector<analysis::Insight> insights) {
                for (analysis::Insight& insight : insights)
                    insight.traceIndex = int(member);
                if (member >= m_memberInsights.size())
                    return;
                m_memberInsights[member] = insights;
                if (!allMembers() && member == m_member) // not left for another (cached) one meanwhile
                    apply(std::move(insights));
            },
            onFailure);
        return;
    }
    // Each distinct trace once (a merged file's ranks share theirs); findings name the first
    // member showing it.
    std::vector<std::shared_ptr<const Trace>> traces;
    std::vector<facts::StepRules> rules; // each trace's steps
    std::vector<std::uint32_t> memberOf;
    for (std::uint32_t i = 0; i < m_memberInsights.size(); ++i) {
        std::shared_ptr<const Trace> trace = m_timeline->traceAt(i);
        if (std::find(traces.begin(), traces.end(), trace) == traces.end()) {
            traces.push_back(std::move(trace));
            rules.push_back(m_timeline->stepRules(i));
            memberOf.push_back(i);
        }
    }
    m_jobs->start(
        [traces = std::move(traces), rules = std::move(rules), peaks] {
            std::vector<std::shared_ptr<const facts::TraceFacts>> facts;
            for (std::size_t i = 0; i < traces.size(); ++i)
                facts.push_back(facts::sharedTraceFacts(traces[i], rules[i]));
            return analysis::findInsights(std::span<const std::shared_ptr<const facts::TraceFacts>>(facts), peaks);
        },
        [this, memberOf = std::move(memberOf)](std::vector<analysis::Insight> insights) {
            for (analysis::Insight& insight : insights)
                insight.traceIndex = int(memberOf.at(std::size_t(insight.traceIndex)));
            m_allInsights = insights;
            if (allMembers())
                apply(std::move(insights));
        },
        onFailure);
}

void InsightsPanel::forgetMember(std::uint32_t member)
{
    if (member >= m_memberInsights.size())
        return;
    m_memberInsights[member].reset();
    m_allInsights.reset();
    if (allMembers() || member == m_member)
        request();
}

void InsightsPanel::setMember(std::uint32_t member)
{
    if (member == m_member || member >= m_memberInsights.size())
        return;
    m_member = member;
    if (!allMembers())
        request();
}

void InsightsPanel::setAllMembers(bool on)
{
    if (m_allMembers->isChecked() != on) {
        m_allMembers->setChecked(on); // comes back here through toggled
        return;
    }
    request();
}

TimeNs InsightsPanel::primaryTime(const analysis::Insight& insight, TimeNs t) const
{
    return m_timeline ? m_timeline->toPrimaryTime(std::uint32_t(insight.traceIndex), t) : t;
}

void InsightsPanel::apply(std::vector<analysis::Insight> insights)
{
    m_hasResult = m_timeline && m_timeline->trace();
    m_view->setColumnHidden(InsightsModel::MemberColumn, !allMembers());
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
        if (m_timeline) {
            m_timeline->setHighlightedSlices({});
            m_timeline->setShadedRanges(0, {});
        }
        updateLabels();
        return;
    }
    const bool visibleOnly = m_visibleOnly->isChecked() && m_viewEnd > m_viewStart;
    std::vector<SliceId> highlighted;
    std::vector<TimeExtent> gaps;
    const auto member = std::uint32_t(insight->traceIndex);
    const std::shared_ptr<const Trace> trace = m_timeline ? m_timeline->traceAt(member) : nullptr;
    for (const auto& e : insight->evidence) {
        if (visibleOnly
            && (primaryTime(*insight, e.start + e.duration) < m_viewStart
                || primaryTime(*insight, e.start) > m_viewEnd))
            continue;
        m_evidence.push_back(e);
        if (e.slice != kNoSlice)
            highlighted.push_back(e.slice);
        if (trace && isGap(*trace, e))
            gaps.push_back({e.start, e.start + e.duration});
    }
    if (m_timeline) {
        m_timeline->setHighlightedSlices(member, std::move(highlighted));
        m_timeline->setShadedRanges(member, std::move(gaps));
    }

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
        const auto analysed = m_hasResult && m_timeline ? m_timeline->traceAt(m_member) : nullptr;
        if (analysed && analysis::isSummaryRows(*analysed))
            m_details->setHtml(tr("<p>These ranks are drawn from their summaries, which keep no insights: open "
                                  "them in full from the Job dock.</p>"));
        else
            m_details->setHtml(m_hasResult ? tr("<p>Nothing to fix found in this trace.</p>") : QString());
        return;
    }
    QString html = QStringLiteral("<p>") + tr("Select a finding to highlight its evidence on the timeline.")
        + QStringLiteral("</p><ul>");
    const bool all = allMembers();
    for (const auto& insight : m_model->insights()) {
        const QString member = all && m_timeline
            ? m_timeline->traceTitle(std::uint32_t(insight.traceIndex)) + QStringLiteral(": ")
            : QString();
        html += QStringLiteral("<li><b>%1</b> %2%3 <small>(%4 per step)</small></li>")
                    .arg(QString::fromStdString(insight.id).toHtmlEscaped(), member.toHtmlEscaped(),
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
    const analysis::Insight* insight = m_model->insightAt(m_view->currentIndex().row());
    if (m_timeline && insight) {
        const auto member = std::uint32_t(insight->traceIndex);
        const std::shared_ptr<const Trace> trace = m_timeline->traceAt(member);
        if (e.slice != kNoSlice)
            m_timeline->revealTraceSlice({member, e.slice});
        // An idle gap is its own range: show it with its cause.
        if (trace && isGap(*trace, e)) {
            const TimeNs margin = std::max<TimeNs>(e.duration, 1000);
            TimeNs from = e.start - margin, to = e.start + e.duration + margin;
            if (e.slice != kNoSlice) {
                from = std::min(from, trace->slices().start[e.slice]);
                to = std::max(to, trace->slices().end(e.slice));
            }
            m_timeline->setVisibleRange(primaryTime(*insight, from), primaryTime(*insight, to));
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
