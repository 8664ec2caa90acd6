#include "app/jobcontroller.h"

#include "widgets/jobtracker.h"
#include "widgets/jobviewpanel.h"
#include "widgets/timelinewidget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

namespace ks {

JobController::JobController(TimelineWidget* timeline, JobViewPanel* panel, QObject* parent)
    : QObject(parent)
    , m_timeline(timeline)
    , m_panel(panel)
    , m_reader(new JobTracker(this))
    , m_loader(new TraceLoadJob(this))
{
    connect(m_panel, &JobViewPanel::openRanksRequested, this, &JobController::openRanks);
    connect(m_loader, &TraceLoadJob::finished, this, &JobController::onRanksLoaded);
    connect(m_loader, &TraceLoadJob::progressChanged, this,
            [this](quint64 bytesDone, quint64 bytesTotal, quint64 events, int filesDone, int files) {
                m_panel->setLoadProgress(
                    bytesTotal > 0 ? int(bytesDone * 100 / bytesTotal) : 0,
                    tr("Loading %1 of %2 rank(s) in full, %L3 events").arg(filesDone).arg(files).arg(events));
            });
    connect(m_loader, &TraceLoadJob::cancelled, this, [this] {
        m_loadingRankOf.clear();
        m_panel->setOpenRanks(fullRanks());
    });
}

JobController::~JobController() = default;

std::vector<int> JobController::fullRanks() const
{
    std::vector<int> ranks;
    for (const auto& [rank, full] : m_full)
        ranks.push_back(rank);
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

const LoadedFile* JobController::fullRank(int rank) const
{
    const auto it = std::find_if(m_full.begin(), m_full.end(), [rank](const auto& open) { return open.first == rank; });
    return it == m_full.end() ? nullptr : &it->second;
}

void JobController::clear()
{
    m_reader->cancel();
    m_loader->cancel();
    m_loadingRankOf.clear();
    m_full.clear();
    m_summaryRows.clear();
    const bool wasActive = m_job != nullptr;
    m_job.reset();
    m_panel->clear();
    if (wasActive)
        m_timeline->setTrace(nullptr);
}

void JobController::open(const QString& folder)
{
    clear();
    m_panel->setLoadProgress(0, tr("Reading the rank summaries of %1…").arg(folder));
    const std::string path = QFile::encodeName(folder).toStdString();
    m_reader->start([path] { return std::make_shared<const analysis::JobView>(analysis::openJobView(path)); },
                    [this, folder](std::shared_ptr<const analysis::JobView> job) {
                        m_job = std::move(job);
                        m_panel->setJob(m_job);
                        showOnTimeline(true);
                        Q_EMIT statusMessage(
                            m_job->ranks.empty()
                                ? tr("No rank summary could be read in %1").arg(folder)
                                : tr("Job of %n rank(s) from summaries: %1", nullptr, int(m_job->ranks.size()))
                                      .arg(QString::fromStdString(m_job->report.straggler.text)));
                        Q_EMIT jobShown(folder);
                    },
                    [this](const QString& message) {
                        m_panel->setLoadProgress(-1, message);
                        Q_EMIT statusMessage(tr("The job could not be opened: %1").arg(message));
                    });
}

QString JobController::traceFileOf(int rank) const
{
    const analysis::RankSummaryFile* summary = m_job ? m_job->rank(rank) : nullptr;
    if (!summary)
        return {};
    const QString named = QFile::decodeName(summary->identity.file.c_str());
    const QDir folder(QFile::decodeName(m_job->folder.c_str()));
    const QString name = QFileInfo(named).fileName();
    for (const QString& candidate : {named, folder.filePath(name), folder.filePath(QStringLiteral("../") + name)}) {
        if (QFileInfo(candidate).isFile())
            return QDir::cleanPath(candidate);
    }
    return {};
}

void JobController::openRanks(const std::vector<int>& ranks)
{
    if (!m_job || m_loader->isRunning())
        return;
    QStringList paths, missing;
    for (int rank : ranks) {
        if (fullRank(rank))
            continue;
        const QString path = traceFileOf(rank);
        if (path.isEmpty()) {
            missing << QString::number(rank);
            continue;
        }
        if (!m_loadingRankOf.count(path))
            paths << path;
        m_loadingRankOf[path] = rank;
    }
    if (!missing.isEmpty())
        Q_EMIT statusMessage(tr("No trace found for rank(s) %1 (looked where their summaries say, and beside them)")
                                 .arg(missing.join(QStringLiteral(", "))));
    if (paths.isEmpty())
        return;
    m_panel->setLoadProgress(0, tr("Loading %n rank(s) in full…", nullptr, int(paths.size())));
    m_loader->start(paths);
}

void JobController::onRanksLoaded(const std::vector<LoadedFile>& files)
{
    QStringList failures;
    const bool first = m_full.empty();
    for (const LoadedFile& file : files) {
        const auto it = m_loadingRankOf.find(file.path);
        if (it == m_loadingRankOf.end())
            continue;
        if (!file.trace) {
            failures << tr("%1: %2").arg(file.path, file.error);
            continue;
        }
        // One rank of a merged file shows only its own processes.
        analysis::Workspace members;
        members.add(file.trace, file.path.toStdString());
        LoadedFile full = file;
        if (const analysis::WorkspaceMember* member = members.memberOfRank(it->second); member && members.size() > 1)
            full.trace = member->trace;
        m_full.emplace_back(it->second, full); // openRanks() asks only for ranks not open yet
    }
    m_loadingRankOf.clear();
    showOnTimeline(false);
    if (first && !m_full.empty()) { // the docks follow the timeline's first trace
        const LoadedFile& shown = m_full.front().second;
        Q_EMIT rankTraceOpened(shown.trace, shown.path);
    }
    m_panel->setOpenRanks(fullRanks());
    if (!failures.isEmpty())
        Q_EMIT statusMessage(tr("Not loaded: %1").arg(failures.join(QStringLiteral("; "))));
    Q_EMIT ranksOpened();
}

// The summary rows of the ranks not open in full, then each full rank on the absolute clock.
void JobController::showOnTimeline(bool fit)
{
    if (!m_job)
        return;
    std::vector<TimelineTrace> traces;
    std::vector<std::uint32_t>& summaryRows = m_summaryRows;
    summaryRows.clear();
    for (std::size_t i = 0; i < m_job->ranks.size(); ++i) {
        if (!fullRank(m_job->ranks[i].identity.rank))
            summaryRows.push_back(std::uint32_t(i));
    }
    // The ranks open in full first, in the order they were opened (the docks show the first),
    // then one trace of the others' summary rows.
    for (const auto& [rank, full] : m_full) {
        const auto* summary = m_job->rank(rank);
        traces.push_back({full.trace,
                          full.trace->baseTimeNs() - m_job->axisBaseTimeNs(),
                          QString::fromStdString(summary ? summary->identity.label() : std::to_string(rank)),
                          {}});
    }
    if (!summaryRows.empty())
        traces.push_back({m_job->collectiveRowsFor(summaryRows),
                          0,
                          tr("Collectives of %n rank(s), from summaries", nullptr, int(summaryRows.size())),
                          {}});
    m_timeline->setTraces(std::move(traces));
    if (fit)
        m_timeline->fitAll();
}

} // namespace ks
