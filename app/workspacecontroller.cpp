#include "app/workspacecontroller.h"

#include "app/stepchoices.h"
#include "core/gpu/nvprofsummary.h"
#include "widgets/detailspanel.h"
#include "widgets/diffpanel.h"
#include "widgets/jobtracker.h"
#include "widgets/rankspanel.h"
#include "widgets/statsformat.h"
#include "widgets/timelinewidget.h"

#include <QFileInfo>

#include <algorithm>

namespace ks {

namespace {

QString qstr(std::string_view text) { return QString::fromUtf8(text.data(), qsizetype(text.size())); }

// The number of the step `slice` marks in `member` (ProfilerStep#N, a step0 label, an
// Optimizer.step range: whatever its steps were found by), else -1.
long long stepNumberOf(const analysis::WorkspaceMember& member, SliceId slice)
{
    const auto it = std::find_if(member.steps.begin(), member.steps.end(),
                                 [&](const analysis::StepSpan& step) { return step.slice == slice; });
    return it != member.steps.end() ? it->number : -1;
}

} // namespace

WorkspaceController::WorkspaceController(TimelineWidget* timeline, DetailsPanel* details, DiffPanel* diff,
                                         RanksPanel* ranks, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
    , m_details(details)
    , m_diff(diff)
    , m_ranks(ranks)
    , m_jobs(new JobTracker(this))
    , m_diffJobs(new JobTracker(this))
{
    connect(m_diff, &DiffPanel::membersChosen, this, &WorkspaceController::diffMembers);
    connect(m_diff, &DiffPanel::rowActivated, this, &WorkspaceController::highlightDiffRow);
    connect(m_diff, &DiffPanel::highlightCleared, m_timeline, &TimelineWidget::clearHighlights);
    connect(m_ranks, &RanksPanel::stepRequested, this, &WorkspaceController::revealStep);
    connect(m_ranks, &RanksPanel::collectiveActivated, this, &WorkspaceController::revealCollective);
    connect(m_timeline, &TimelineWidget::traceSelectionChanged, this, &WorkspaceController::onSelection);
    connect(m_timeline, &TimelineWidget::visibleRangeChanged, this, &WorkspaceController::applyStepUnderView);
    // The user chose a member's steps: its step spans, the alignment and the analysis follow.
    connect(m_timeline, &TimelineWidget::stepRulesChanged, this,
            [this](std::uint32_t member, const facts::StepRules& rules) {
                if (!isActive() || member >= m_workspace.size())
                    return;
                m_workspace.setStepRules(member, rules);
                applyAlignment();
                if (m_kind == Kind::Ranks) {
                    diffMembers(m_diffPair.first, m_diffPair.second); // per step: by the new steps
                    Q_EMIT ranksChanged(m_workspace);
                }
            });
    connect(m_details, &DetailsPanel::sectionLinkActivated, this, [this](int target) {
        if (target >= 0 && std::size_t(target) < m_collectiveTargets.size())
            m_timeline->revealTraceSlice(m_collectiveTargets[std::size_t(target)]);
    });
}

WorkspaceController::~WorkspaceController() = default;

QStringList WorkspaceController::titles() const
{
    QStringList titles;
    for (std::size_t i = 0; i < m_workspace.size(); ++i) {
        const analysis::WorkspaceMember& member = m_workspace.members()[i];
        if (m_kind == Kind::Comparison)
            titles << (i == 0 ? tr("BASE · %1") : tr("NEW · %1"))
                          .arg(QFileInfo(QString::fromStdString(member.identity.file)).fileName());
        else
            titles << QString::fromStdString(member.identity.label());
    }
    return titles;
}

QStringList WorkspaceController::open(const std::vector<LoadedFile>& files, Kind kind)
{
    clear();
    m_kind = kind;
    for (const LoadedFile& file : files) {
        if (!file.trace)
            continue;
        const std::size_t added = m_workspace.add(file.trace, file.path.toStdString());
        for (std::size_t m = m_workspace.size() - added; m < m_workspace.size(); ++m)
            m_workspace.setStepRules(m, StepChoices::rulesFor(file.path)); // the user's steps for this file
    }
    if (kind == Kind::Ranks)
        m_workspace.sortByRank();
    QStringList warnings;
    if (kind == Kind::Ranks) {
        for (const std::string& warning : m_workspace.warnings())
            warnings << QString::fromStdString(warning);
    }
    std::vector<TimelineTrace> traces;
    const QStringList names = titles();
    for (std::size_t i = 0; i < m_workspace.size(); ++i) {
        const analysis::WorkspaceMember& member = m_workspace.members()[i];
        traces.push_back({member.trace, 0, names.value(int(i)), member.stepRules});
    }
    m_timeline->setTraces(std::move(traces));
    m_align = kind == Kind::Comparison ? Align::StepStarts : Align::AbsoluteClock;
    applyAlignment();
    m_timeline->fitAll();
    if (kind == Kind::Ranks && isActive()) {
        m_diff->setMembers(names, m_diffPair.first, m_diffPair.second);
        diffMembers(m_diffPair.first, m_diffPair.second);
    }
    Q_EMIT ranksChanged(kind == Kind::Ranks ? m_workspace : analysis::Workspace{});
    return warnings;
}

void WorkspaceController::clear()
{
    m_jobs->cancel();
    m_workspace = {};
    m_ranksReport.reset();
    m_collectiveOf.clear();
    m_collectiveTargets.clear();
    m_eachStep = false;
    m_alignedStep = -1;
    m_alignmentText.clear();
    m_diffJobs->cancel();
    m_diffPair = {0, 1};
    m_diff->clear();
    m_diff->hideMembers();
    m_ranks->clear();
}

void WorkspaceController::setAlignment(Align align)
{
    if (!isActive())
        return;
    m_align = align;
    applyAlignment();
}

void WorkspaceController::setAlignEachStep(bool on)
{
    m_eachStep = on;
    m_alignedStep = -1;
    if (!isActive())
        return;
    if (on)
        applyStepUnderView();
    else
        applyAlignment();
}

void WorkspaceController::applyAlignment()
{
    if (!isActive())
        return;
    const analysis::AlignmentReport report =
        m_align == Align::AbsoluteClock ? m_workspace.alignAbsoluteClock() : m_workspace.alignAtStep();
    std::vector<TimeNs> offsets;
    for (const analysis::WorkspaceMember& member : m_workspace.members())
        offsets.push_back(member.offset);
    m_alignedStep = -1;
    m_applyingStep = true;
    m_timeline->setTraceOffsets(offsets);
    m_applyingStep = false;
    m_alignmentText = QString::fromStdString(report.description);
    m_ranks->setAlignmentText(m_alignmentText);
    Q_EMIT statusMessage(m_alignmentText);
    startAnalysis();
    if (m_eachStep)
        applyStepUnderView();
}

// Per-step alignment: the step of BASE at the centre of the view decides NEW's offset,
// so stepping through the run keeps step k of NEW under step k of BASE.
void WorkspaceController::applyStepUnderView()
{
    if (!m_eachStep || m_applyingStep || !isActive())
        return;
    const TimeScale scale = m_timeline->timeScale(); // member 0's time
    const TimeNs centre = scale.viewStart() + TimeNs(scale.nsPerPixel() * m_timeline->timeAreaWidth() / 2);
    const auto& steps = m_workspace.members()[0].steps;
    long long number = -1;
    for (const analysis::StepSpan& step : steps) {
        if (step.start <= centre)
            number = step.number;
    }
    if (number < 0 && !steps.empty())
        number = steps.front().number;
    if (number < 0 || number == m_alignedStep)
        return;
    std::vector<TimeNs> offsets{0};
    for (std::size_t m = 1; m < m_workspace.size(); ++m)
        offsets.push_back(m_workspace.stepOffset(m, number).value_or(m_timeline->traceOffset(std::uint32_t(m))));
    m_alignedStep = number;
    m_applyingStep = true;
    m_timeline->setTraceOffsets(offsets);
    m_applyingStep = false;
    Q_EMIT statusMessage(tr("Each step aligned separately: step %1 of every trace starts together").arg(number));
}

void WorkspaceController::startAnalysis()
{
    if (m_kind == Kind::Comparison) {
        diffMembers(0, 1);
        return;
    }
    const analysis::Workspace workspace = m_workspace; // shares the immutable traces
    m_jobs->start(
        [workspace] { return std::make_shared<const analysis::RanksReport>(analysis::analyzeRanks(workspace)); },
        [this](std::shared_ptr<const analysis::RanksReport> report) {
            setRanksReport(std::move(report));
            Q_EMIT analysisReady();
        },
        [this](const QString& message) { analysisFailed(message); });
}

void WorkspaceController::analysisFailed(const QString& message)
{
    Q_EMIT statusMessage(tr("Analysis failed: %1").arg(message));
}

void WorkspaceController::setRanksReport(std::shared_ptr<const analysis::RanksReport> report)
{
    m_ranksReport = std::move(report);
    m_collectiveOf.clear();
    std::vector<CrossTraceLink> links;
    const analysis::CollectiveMatching& matching = m_ranksReport->matching;
    for (std::size_t c = 0; c < matching.collectives.size(); ++c) {
        const auto& ranks = matching.collectives[c].ranks;
        for (std::size_t j = 0; j < ranks.size(); ++j) {
            const SliceId slice = matching.kernels[ranks[j].member][ranks[j].kernel].slice;
            m_collectiveOf[{ranks[j].member, slice}] = c;
            if (j + 1 < ranks.size()) {
                const SliceId next = matching.kernels[ranks[j + 1].member][ranks[j + 1].kernel].slice;
                links.push_back({{std::uint32_t(ranks[j].member), slice}, {std::uint32_t(ranks[j + 1].member), next}});
            }
        }
    }
    m_timeline->setCrossLinks(std::move(links));
    m_ranks->setReport(m_ranksReport, titles());
}

void WorkspaceController::diffMembers(int base, int neu)
{
    const auto size = int(m_workspace.size());
    if (base < 0 || neu < 0 || base >= size || neu >= size)
        return;
    m_diffPair = {base, neu};
    const analysis::Workspace workspace = m_workspace; // shares the immutable traces
    m_diffJobs->start(
        [workspace, base, neu] {
            return std::make_shared<const analysis::DiffReport>(
                analysis::diffTraces(workspace.members()[std::size_t(base)], workspace.members()[std::size_t(neu)]));
        },
        [this](std::shared_ptr<const analysis::DiffReport> report) {
            m_diff->setReport(std::move(report));
            if (m_kind == Kind::Comparison) // the ranks' own report is theirs to announce
                Q_EMIT analysisReady();
        },
        [this](const QString& message) { analysisFailed(message); });
}

void WorkspaceController::highlightDiffRow(DiffTableModel::Kind kind, const QString& name, bool family)
{
    if (!isActive() || kind == DiffTableModel::Kind::Categories)
        return;
    const std::string wanted = name.toStdString();
    const auto matches = [&](std::string_view text) {
        if (family)
            return analysis::kernelFamily(text) == wanted;
        if (kind == DiffTableModel::Kind::Memcpy)
            return wanted == "[CUDA memset]" ? text.starts_with("Memset") : gpu::nvprofMemcpyName(text) == wanted;
        return text == wanted;
    };
    std::size_t occurrences = 0;
    for (std::uint32_t i = 0; i < m_workspace.size(); ++i) {
        const Trace& trace = *m_workspace.members()[i].trace;
        std::vector<bool> names(trace.strings().size(), false);
        // Only the two the Diff dock compares (a comparison's BASE and NEW, or two ranks of a run).
        const bool compared = int(i) == m_diffPair.first || int(i) == m_diffPair.second;
        for (StringId id = 0; compared && id < names.size(); ++id)
            names[id] = matches(trace.str(id));
        for (SliceId s = 0; s < trace.slices().size(); ++s)
            occurrences += names[trace.slices().name[s]] ? 1 : 0;
        m_timeline->setHighlightedNames(i, std::move(names));
    }
    Q_EMIT statusMessage(
        tr("%1: %n occurrence(s) highlighted in both timelines", nullptr, int(occurrences)).arg(name.left(80)));
}

void WorkspaceController::onSelection(TraceSlice selection)
{
    if (!isActive())
        return;
    markSameStep(selection);
    describeCollective(selection);
}

// Selecting the range of step N on one rank (ProfilerStep#N, stepN, its Optimizer.step)
// outlines step N on every other.
void WorkspaceController::markSameStep(TraceSlice selection)
{
    const long long number = selection.valid() && selection.trace < m_workspace.size()
        ? stepNumberOf(m_workspace.members()[selection.trace], selection.slice)
        : -1;
    for (std::uint32_t m = 0; m < m_workspace.size(); ++m) {
        const analysis::StepSpan* step = number >= 0 ? m_workspace.members()[m].step(number) : nullptr;
        if (step && m != selection.trace) {
            const Trace& trace = *m_workspace.members()[m].trace;
            m_timeline->setProcessCollapsed(m, trace.tracks()[trace.trackOf(step->slice)].process, false);
        }
        m_timeline->setMarkedSlices(
            m, step && m != selection.trace ? std::vector<SliceId>{step->slice} : std::vector<SliceId>{});
    }
}

void WorkspaceController::describeCollective(TraceSlice selection)
{
    m_collectiveTargets.clear();
    if (!m_ranksReport || !selection.valid())
        return;
    const auto it = m_collectiveOf.find({selection.trace, selection.slice});
    if (it == m_collectiveOf.end())
        return;
    const analysis::MatchedCollective& c = m_ranksReport->matching.collectives[it->second];
    const QStringList names = titles();
    QList<DetailsPanel::SectionRow> rows;
    rows.append({tr("Process group"), QString::fromStdString(c.processGroup)});
    rows.append({tr("Sequence"), QString::number(c.seq)});
    if (c.bytes >= 0)
        rows.append({tr("Message"), statsBytes(c.bytes) + QStringLiteral(" ") + QString::fromStdString(c.dtype)});
    rows.append({tr("Last to arrive"), tr("rank %1").arg(c.lastRank)});
    // Times from the first arrival, so every figure is a plain duration.
    TimeNs origin = c.ranks.empty() ? 0 : c.ranks.front().start;
    for (const analysis::CollectiveParticipant& p : c.ranks)
        origin = std::min(origin, p.start);
    for (const analysis::CollectiveParticipant& p : c.ranks) {
        const auto& kernel = m_ranksReport->matching.kernels[p.member][p.kernel];
        m_collectiveTargets.push_back({std::uint32_t(p.member), kernel.slice});
        rows.append({names.value(int(p.member)),
                     tr("waited %1 · start +%2 · end +%3")
                         .arg(statsDuration(p.wait), qstr(formatDuration(p.start - origin)),
                              qstr(formatDuration(p.end - origin))),
                     int(m_collectiveTargets.size() - 1)});
    }
    m_details->addSection(tr("Collective %1 across ranks").arg(QString::fromStdString(c.name)), rows);
}

void WorkspaceController::revealStep(std::size_t member, long long number)
{
    if (member >= m_workspace.size())
        return;
    if (const analysis::StepSpan* step = m_workspace.members()[member].step(number)) {
        m_timeline->revealTraceSlice({std::uint32_t(member), step->slice});
        m_timeline->fitSelection();
    }
}

void WorkspaceController::revealCollective(std::size_t collective)
{
    if (!m_ranksReport || collective >= m_ranksReport->matching.collectives.size())
        return;
    const analysis::MatchedCollective& c = m_ranksReport->matching.collectives[collective];
    // The last arrival: the rank everyone waited for.
    for (const analysis::CollectiveParticipant& p : c.ranks) {
        if (p.rank == c.lastRank) {
            m_timeline->revealTraceSlice(
                {std::uint32_t(p.member), m_ranksReport->matching.kernels[p.member][p.kernel].slice});
            return;
        }
    }
}

} // namespace ks
