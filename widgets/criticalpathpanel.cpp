#include "widgets/criticalpathpanel.h"

#include "core/analysis/rankscriticalpath.h"
#include "core/facts/tracefacts.h"

#include "widgets/criticalpathbreakdownmodel.h"
#include "widgets/criticalpathsegmentsmodel.h"
#include "widgets/jobtracker.h"
#include "widgets/timelinewidget.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

// `fitContents`: columns sized to their contents, for short tables only (sizing a path's
// thousands of segments would hold the GUI thread).
QTableView* makeTable(QAbstractItemModel* model, int stretchColumn, bool fitContents, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setSectionResizeMode(fitContents ? QHeaderView::ResizeToContents
                                                               : QHeaderView::Interactive);
    view->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    view->setWordWrap(false);
    return view;
}

} // namespace

CriticalPathPanel::CriticalPathPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_breakdown(new CriticalPathBreakdownModel(this))
    , m_segments(new CriticalPathSegmentsModel(this))
    , m_stepBox(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_breakdownView(makeTable(m_breakdown, CriticalPathBreakdownModel::CategoryColumn, true, this))
    , m_segmentsView(makeTable(m_segments, CriticalPathSegmentsModel::NameColumn, false, this))
    , m_kind(new QComboBox(this))
    , m_pattern(new QLineEdit(this))
    , m_factor(new QDoubleSpinBox(this))
    , m_add(new QPushButton(tr("Add"), this))
    , m_whatIfList(new QListWidget(this))
    , m_remove(new QPushButton(tr("Remove"), this))
{
    m_kind->addItem(tr("Kernel"), QStringLiteral("kernel"));
    m_kind->addItem(tr("Op"), QStringLiteral("op"));
    m_kind->addItem(tr("Kernel family"), QStringLiteral("family"));
    m_kind->addItem(tr("Category"), QStringLiteral("category"));
    m_pattern->setPlaceholderText(tr("regex, family (GEMM) or category (sync_wait)"));
    m_factor->setRange(0.0, 100.0);
    m_factor->setSingleStep(0.1);
    m_factor->setDecimals(2);
    m_factor->setValue(0.5);
    m_factor->setToolTip(tr("Scale the matching time: 0 removes it, 0.5 halves it"));
    m_whatIfList->setMaximumHeight(fontMetrics().height() * 3); // the tables above get the height
    m_summary->setWordWrap(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_stepBox);
    top->addWidget(m_summary, 1);
    auto* editor = new QHBoxLayout;
    editor->addWidget(m_kind);
    editor->addWidget(m_pattern, 1);
    editor->addWidget(m_factor);
    editor->addWidget(m_add);
    auto* list = new QHBoxLayout;
    list->addWidget(m_whatIfList, 1);
    list->addWidget(m_remove, 0, Qt::AlignTop);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_breakdownView);
    splitter->addWidget(m_segmentsView);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    layout->addLayout(editor);
    layout->addLayout(list);

    connect(m_stepBox, &QComboBox::currentIndexChanged, this, [this] { showCurrentStep(); });
    connect(m_segmentsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectSegment(current.row()); });
    connect(m_add, &QPushButton::clicked, this, &CriticalPathPanel::addWhatIfFromEditor);
    connect(m_pattern, &QLineEdit::returnPressed, this, &CriticalPathPanel::addWhatIfFromEditor);
    connect(m_remove, &QPushButton::clicked, this, [this] { removeWhatIf(m_whatIfList->currentRow()); });
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, [this](std::shared_ptr<const Trace> trace) {
            m_member = 0; // new traces: the picker shows the primary one again
            m_ranks.reset(); // until told they are ranks
            m_trace = std::move(trace);
            analyze();
        });
        connect(timeline, &TimelineWidget::rangeSelected, this, [this](TimeNs start, TimeNs end) {
            m_range = std::make_pair(start, end);
            analyze();
        });
        connect(timeline, &TimelineWidget::rangeCleared, this, [this] {
            m_range.reset();
            analyze();
        });
        connect(timeline, &TimelineWidget::stepRulesChanged, this, [this](std::uint32_t trace) {
            if (trace == m_member) // the user chose the steps of the trace shown (issue 35)
                analyze();
        });
        m_trace = timeline->trace();
    }
    analyze();
}

CriticalPathPanel::~CriticalPathPanel() = default;

int CriticalPathPanel::currentStep() const { return m_stepBox->currentIndex(); }

void CriticalPathPanel::setMember(std::uint32_t member)
{
    if (!m_timeline || member >= m_timeline->traceCount() || member == m_member)
        return;
    clearHighlight();
    m_member = member;
    m_trace = m_timeline->traceAt(member);
    analyze();
}

void CriticalPathPanel::setRanks(const analysis::Workspace& ranks)
{
    if (ranks.size() > 1 && m_timeline && ranks.size() == m_timeline->traceCount())
        m_ranks = std::make_shared<const analysis::Workspace>(ranks);
    else
        m_ranks.reset();
    analyze();
}

std::uint32_t CriticalPathPanel::timelineTraceOf(std::uint32_t pathMember) const
{
    return m_ranks ? pathMember : m_member;
}

void CriticalPathPanel::analyze()
{
    if (!m_trace) {
        m_jobs->cancel();
        apply({});
        return;
    }
    m_summary->setText(tr("Computing the critical path…"));
    // The range in the member's own time (the timeline reports the primary trace's).
    auto range = m_range;
    if (range && m_timeline)
        range = std::make_pair(m_timeline->toTraceTime(m_member, range->first),
                               m_timeline->toTraceTime(m_member, range->second));
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline && m_timeline->showsNewerSnapshot()),
        [trace = m_trace, rules = m_timeline ? m_timeline->stepRules(m_member) : facts::StepRules{},
         whatIfs = m_whatIfs, range, ranks = m_ranks, member = m_member] {
            std::vector<analysis::StepCriticalPath> steps;
            if (ranks) { // every rank in one graph, on their absolute clock
                const analysis::RanksCriticalPath paths(*ranks);
                steps = paths.analysis().analyzeSteps(whatIfs, member);
                if (range)
                    steps.push_back(paths.analysis().analyzeRange(
                        paths.toAxis(member, range->first), paths.toAxis(member, range->second), whatIfs, member));
            } else {
                const auto analysis = analysis::criticalPathOf(facts::sharedTraceFacts(trace, rules));
                steps = analysis.analyzeSteps(whatIfs);
                if (range)
                    steps.push_back(analysis.analyzeRange(range->first, range->second, whatIfs));
            }
            if (range)
                steps.back().label = "selected range";
            return steps;
        },
        [this](std::vector<analysis::StepCriticalPath> steps) { apply(std::move(steps)); },
        [this](const QString& error) {
            apply({});
            m_summary->setText(tr("The critical path could not be computed: %1").arg(error));
        });
}

void CriticalPathPanel::apply(std::vector<analysis::StepCriticalPath> steps)
{
    const int previous = std::max(0, m_stepBox->currentIndex());
    m_steps = std::move(steps);
    {
        const QSignalBlocker blocker(m_stepBox);
        m_stepBox->clear();
        for (const auto& s : m_steps)
            m_stepBox->addItem(s.label == "whole trace"          ? tr("Whole trace")
                                   : s.label == "selected range" ? tr("Selected range")
                                                                 : tr("Step %1").arg(s.step));
        if (!m_steps.empty())
            m_stepBox->setCurrentIndex(std::min(previous, int(m_steps.size()) - 1));
    }
    showCurrentStep();
    Q_EMIT pathsReady();
}

void CriticalPathPanel::selectStep(int index)
{
    if (index >= 0 && index < m_stepBox->count())
        m_stepBox->setCurrentIndex(index);
}

void CriticalPathPanel::showCurrentStep()
{
    const int index = m_stepBox->currentIndex();
    if (index < 0 || std::size_t(index) >= m_steps.size()) {
        m_breakdown->clear();
        m_segments->setPath({}, 0);
        m_summary->setText(m_trace ? tr("No critical path.") : QString());
        updateHighlight();
        return;
    }
    const auto& step = m_steps[std::size_t(index)];
    m_breakdown->setStep(step);
    m_segments->setPath(step.whatIf ? *step.whatIf : step.path, step.start);
    QString text = tr("Step time %1").arg(QString::fromStdString(formatDuration(step.path.length)));
    if (step.whatIf) {
        const double change =
            step.path.length ? 100.0 * (double(step.whatIf->length) / double(step.path.length) - 1.0) : 0.0;
        text += tr("; with the what-ifs %1 (%2 %)")
                    .arg(QString::fromStdString(formatDuration(step.whatIf->length)))
                    .arg(change, 0, 'f', 1);
    }
    m_summary->setText(text);
    updateHighlight();
}

void CriticalPathPanel::addWhatIfFromEditor()
{
    const std::string text = m_kind->currentData().toString().toStdString() + ":" + m_pattern->text().toStdString()
        + "=" + QString::number(m_factor->value()).toStdString();
    std::string error;
    if (const auto whatIf = analysis::WhatIf::parse(text, error)) {
        addWhatIf(*whatIf);
        m_pattern->clear();
    } else {
        m_summary->setText(tr("What-if not added: %1").arg(QString::fromStdString(error)));
    }
}

void CriticalPathPanel::addWhatIf(const analysis::WhatIf& whatIf)
{
    m_whatIfs.push_back(whatIf);
    m_whatIfList->addItem(QString::fromStdString(whatIf.text()));
    analyze();
}

void CriticalPathPanel::removeWhatIf(int index)
{
    if (index < 0 || std::size_t(index) >= m_whatIfs.size())
        return;
    m_whatIfs.erase(m_whatIfs.begin() + index);
    delete m_whatIfList->takeItem(index);
    analyze();
}

void CriticalPathPanel::selectSegment(int row)
{
    const analysis::PathSegment* s = m_segments->segmentAt(row);
    if (s && m_timeline && s->item.slice != kNoSlice)
        m_timeline->revealTraceSlice({timelineTraceOf(s->item.member), s->item.slice});
}

void CriticalPathPanel::setPathHighlighted(bool on)
{
    if (m_highlight == on)
        return;
    if (!on)
        clearHighlight();
    m_highlight = on;
    updateHighlight();
}

void CriticalPathPanel::clearHighlight()
{
    if (m_highlight && m_timeline && m_member < m_timeline->traceCount())
        m_timeline->setHighlightedSlices(m_member, {});
}

// The path's ops, calls and GPU ops on the trace shown (the timeline highlights one trace: a
// path through other ranks lights up its part on this one); not the annotations around them
// (a ProfilerStep would light up the whole step).
void CriticalPathPanel::updateHighlight()
{
    if (!m_highlight || !m_timeline || !m_trace)
        return;
    std::vector<SliceId> slices;
    const int index = m_stepBox->currentIndex();
    if (index >= 0 && std::size_t(index) < m_steps.size()) {
        const auto& step = m_steps[std::size_t(index)];
        for (const auto& s : (step.whatIf ? *step.whatIf : step.path).segments)
            if (s.item.slice != kNoSlice && timelineTraceOf(s.item.member) == m_member
                && m_trace->classOf(s.item.slice) != SliceClass::UserAnnotation)
                slices.push_back(s.item.slice);
    }
    m_timeline->setHighlightedSlices(m_member, std::move(slices));
}

} // namespace ks
