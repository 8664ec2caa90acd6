#include "widgets/flamegraphpanel.h"

#include "core/analysis/calltreediff.h"
#include "core/facts/tracefacts.h"
#include "widgets/calltreemodel.h"
#include "widgets/flamegraphwidget.h"
#include "widgets/jobtracker.h"
#include "widgets/statsformat.h"
#include "widgets/timelinewidget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

constexpr int kWholeTrace = -1, kSelectedRange = -2;

enum class Frames { Ops, Python, Modules };

struct TreeRequest {
    analysis::CallTreeOptions options;
    bool bottomUp = false;
    analysis::FoldedTime time = analysis::FoldedTime::Cpu;
};

analysis::CallTree buildTree(const facts::TraceFacts& facts, const TreeRequest& request)
{
    analysis::CallTree tree = analysis::buildCallTree(facts, request.options);
    return request.bottomUp ? analysis::invertCallTree(tree) : tree;
}

} // namespace

FlameGraphPanel::FlameGraphPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this, sharedAnalysisPool()))
    , m_scope(new QComboBox(this))
    , m_direction(new QComboBox(this))
    , m_time(new QComboBox(this))
    , m_frames(new QComboBox(this))
    , m_diff(new QCheckBox(tr("Diff BASE → NEW"), this))
    , m_search(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_tree(new QTreeView(this))
    , m_model(new CallTreeModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_flame(new FlameGraphWidget(this))
{
    m_direction->addItem(tr("Top-down"));
    m_direction->addItem(tr("Bottom-up"));
    m_time->addItem(tr("CPU time"));
    m_time->addItem(tr("GPU time"));
    m_frames->addItem(tr("Ops"), int(Frames::Ops));
    m_frames->addItem(tr("Ops + Python"), int(Frames::Python));
    m_frames->addItem(tr("Ops + nn.Module"), int(Frames::Modules));
    m_diff->setEnabled(false);
    m_diff->setToolTip(tr("Open two traces with kinetoscope --diff BASE NEW: width by NEW, red slower, "
                          "blue faster per step, hatched: gone in NEW"));
    m_search->setPlaceholderText(tr("Search frames"));
    m_search->setClearButtonEnabled(true);
    fillScopes({});

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CallTreeModel::SortRole);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);

    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_flame);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);

    auto* tools = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{m_scope, m_direction, m_time, m_frames, m_diff})
        tools->addWidget(w);
    tools->addWidget(m_search, 1);
    tools->addWidget(m_status);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_tree);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(tools);
    layout->addWidget(splitter, 1);

    for (QComboBox* box : {m_scope, m_direction, m_time, m_frames})
        connect(box, &QComboBox::currentIndexChanged, this, &FlameGraphPanel::recompute);
    connect(m_diff, &QCheckBox::toggled, this, &FlameGraphPanel::recompute);
    connect(m_search, &QLineEdit::textChanged, m_flame, &FlameGraphWidget::setSearchText);
    connect(m_flame, &FlameGraphWidget::nodeClicked, this, &FlameGraphPanel::selectInTree);
    connect(m_flame, &FlameGraphWidget::occurrencesRequested, this, &FlameGraphPanel::showOccurrences);
    connect(m_tree, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const std::uint32_t node = m_model->nodeOf(m_proxy->mapToSource(index));
        m_flame->setCurrentNode(node);
        m_flame->zoomTo(node);
    });
    connect(m_tree, &QTreeView::doubleClicked, this,
            [this](const QModelIndex& index) { showOccurrences(m_model->nodeOf(m_proxy->mapToSource(index))); });
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &FlameGraphPanel::setTrace);
        connect(timeline, &TimelineWidget::rangeSelected, this, &FlameGraphPanel::setRange);
        connect(timeline, &TimelineWidget::rangeCleared, this, &FlameGraphPanel::clearRange);
        connect(timeline, &TimelineWidget::stepRulesChanged, this, [this](std::uint32_t trace) {
            if (trace == 0) // its steps (the Scope choices) are the user's (issue 35)
                setTrace(m_trace);
        });
        if (timeline->trace())
            setTrace(timeline->trace());
    }
}

FlameGraphPanel::~FlameGraphPanel() = default;

void FlameGraphPanel::fillScopes(const std::vector<facts::StepWindow>& steps)
{
    const QVariant current = m_scope->currentData();
    const QSignalBlocker block(m_scope);
    m_scope->clear();
    m_scope->addItem(tr("Whole trace"), kWholeTrace);
    m_scope->addItem(tr("Selected range"), kSelectedRange);
    for (std::size_t i = 0; i < steps.size(); ++i)
        m_scope->addItem(tr("Step %1").arg(QString::fromStdString(steps[i].name)), int(i));
    m_steps = steps;
    const int index = current.isValid() ? m_scope->findData(current) : 0;
    m_scope->setCurrentIndex(std::max(index, 0));
}

void FlameGraphPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    m_steps.clear();
    fillScopes({});
    recompute();
}

void FlameGraphPanel::setRange(TimeNs from, TimeNs to)
{
    m_range = std::pair(std::min(from, to), std::max(from, to));
    if (const int i = m_scope->findData(kSelectedRange); i >= 0 && m_scope->currentIndex() != i)
        m_scope->setCurrentIndex(i); // recomputes
    else
        recompute();
}

void FlameGraphPanel::clearRange()
{
    m_range.reset();
    if (m_scope->currentData().toInt() == kSelectedRange)
        recompute();
}

void FlameGraphPanel::setComparison(std::shared_ptr<const Trace> base, std::shared_ptr<const Trace> next)
{
    m_base = std::move(base);
    m_next = std::move(next);
    const bool comparison = m_base && m_next;
    m_diff->setEnabled(comparison);
    if (!comparison && m_diff->isChecked())
        m_diff->setChecked(false); // recomputes
    else if (comparison && !m_diff->isChecked())
        m_diff->setChecked(true);
}

void FlameGraphPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        recompute();
}

void FlameGraphPanel::recompute()
{
    m_stale = !isVisible();
    if (m_stale) {
        m_jobs->cancel();
        return;
    }
    TreeRequest request;
    request.bottomUp = m_direction->currentIndex() == 1;
    request.time = m_time->currentIndex() == 1 ? analysis::FoldedTime::Gpu : analysis::FoldedTime::Cpu;
    request.options.gpuFrames = request.time == analysis::FoldedTime::Gpu;
    const auto frames = Frames(m_frames->currentData().toInt());
    request.options.python = frames != Frames::Ops;
    request.options.modulesOnly = frames == Frames::Modules;
    const bool diff = m_diff->isChecked() && m_base && m_next;
    const int scope = m_scope->currentData().toInt();
    if (!diff && scope == kSelectedRange && m_range) {
        request.options.rangeStart = m_range->first;
        request.options.rangeEnd = m_range->second;
    } else if (!diff && scope >= 0 && std::size_t(scope) < m_steps.size()) {
        request.options.rangeStart = m_steps[std::size_t(scope)].hostStart;
        request.options.rangeEnd = m_steps[std::size_t(scope)].hostEnd;
    }
    m_scope->setEnabled(!diff);
    if (!diff && !m_trace) {
        m_jobs->cancel();
        apply({});
        return;
    }
    m_status->setText(tr("Computing…"));
    const auto onFailure = [this](const QString& error) {
        apply({});
        m_status->setText(tr("Call tree failed: %1").arg(error));
    };
    if (diff) {
        m_jobs->start(
            [base = m_base, next = m_next, request] {
                const auto baseFacts = facts::sharedTraceFacts(base);
                const auto newFacts = facts::sharedTraceFacts(next);
                const auto baseTree = buildTree(*baseFacts, request);
                const auto newTree = buildTree(*newFacts, request);
                Result result;
                result.data =
                    makeFlameGraphData(analysis::diffCallTrees(*base, baseTree, *next, newTree, request.time));
                return result;
            },
            [this](Result result) { apply(std::move(result)); }, onFailure);
        return;
    }
    m_jobs->start(
        JobTracker::letFinishIf(m_timeline && m_timeline->showsNewerSnapshot()),
        [trace = m_trace, rules = m_timeline ? m_timeline->stepRules() : facts::StepRules{}, request] {
            const auto facts = facts::sharedTraceFacts(trace, rules);
            Result result;
            auto topDown = std::make_shared<analysis::CallTree>(analysis::buildCallTree(*facts, request.options));
            result.topDown = topDown;
            result.shown = request.bottomUp
                ? std::make_shared<const analysis::CallTree>(analysis::invertCallTree(*topDown))
                : result.topDown;
            result.data = makeFlameGraphData(*trace, *result.shown, request.time);
            if (facts->hasSteps())
                result.steps = facts->windows.steps;
            result.stepCount = result.shown->stepCount;
            return result;
        },
        [this](Result result) { apply(std::move(result)); }, onFailure);
}

void FlameGraphPanel::apply(Result result)
{
    m_result = std::move(result);
    if (m_steps.size() != m_result.steps.size())
        fillScopes(m_result.steps);
    m_model->setData(m_result.data);
    m_flame->setData(m_result.data);
    m_flame->setSearchText(m_search->text());
    if (const FlameGraphData* d = m_result.data.get(); d && d->size() > 0) {
        // Widest first, as the flame graph: the time shown (a diff: NEW's per step).
        const int sortColumn = d->isDiff ? 2 : d->time == analysis::FoldedTime::Gpu ? 4 : 2;
        m_tree->sortByColumn(sortColumn, Qt::DescendingOrder);
    }
    m_tree->expandToDepth(1);
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_tree->resizeColumnToContents(c);
    // Frame names can be very long (kernel names): the numbers stay in view.
    m_tree->setColumnWidth(0, std::min(m_tree->columnWidth(0), std::max(m_tree->width() / 2, 200)));
    if (const FlameGraphData* d = m_result.data.get(); d && d->size() > 0) {
        if (d->isDiff)
            m_status->setText(tr("BASE %1 → NEW %2 per step")
                                  .arg(statsDuration(TimeNs(d->base[0])), statsDuration(TimeNs(d->next[0]))));
        else
            m_status->setText(tr("%1 frames, %2").arg(d->size() - 1).arg(statsDuration(TimeNs(d->width[0]))));
    } else {
        m_status->clear();
    }
    Q_EMIT treeReady();
}

void FlameGraphPanel::selectInTree(std::uint32_t node)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexOf(node));
    if (!index.isValid())
        return;
    m_tree->setCurrentIndex(index);
    m_tree->scrollTo(index);
}

std::vector<SliceId> FlameGraphPanel::occurrencesOf(std::uint32_t node) const
{
    std::vector<SliceId> slices;
    const FlameGraphData* d = m_result.data.get();
    if (!d || d->isDiff || node >= d->size() || !m_result.topDown || node == FlameGraphData::kRoot)
        return slices;
    const std::uint32_t source = d->sourceNode[node];
    std::vector<std::uint32_t> nodes{source};
    if (m_result.shown->bottomUp)
        nodes = analysis::topDownNodesOf(*m_result.topDown, *m_result.shown, source);
    std::sort(nodes.begin(), nodes.end());
    for (const auto& [slice, n] : m_result.topDown->occurrences) {
        if (std::binary_search(nodes.begin(), nodes.end(), n))
            slices.push_back(slice);
    }
    return slices;
}

void FlameGraphPanel::showOccurrences(std::uint32_t node)
{
    if (!m_timeline || m_timeline->trace() != m_trace)
        return;
    std::vector<SliceId> slices = occurrencesOf(node);
    if (slices.empty())
        return;
    const SliceId first = *std::min_element(slices.begin(), slices.end(), [this](SliceId a, SliceId b) {
        return m_trace->slices().start[a] < m_trace->slices().start[b];
    });
    m_status->setText(tr("%n occurrence(s) highlighted", nullptr, int(slices.size())));
    m_timeline->setHighlightedSlices(std::move(slices));
    m_timeline->revealSlice(first);
}

} // namespace ks
