#include "widgets/jobviewpanel.h"

#include "widgets/rankspanel.h"
#include "widgets/waitheatmap.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace ks {

namespace {

QString rankList(const std::vector<int>& ranks)
{
    QStringList names;
    for (int r : ranks)
        names << QString::number(r);
    return names.join(QStringLiteral(", "));
}

} // namespace

JobViewPanel::JobViewPanel(QWidget* parent)
    : QWidget(parent)
    , m_errors(new QLabel(this))
    , m_ranks(new RanksPanel(this))
    , m_heatMap(new WaitHeatMap(this))
    , m_openSuggested(new QPushButton(tr("Open Suggested Ranks in Full"), this))
    , m_openSelected(new QPushButton(tr("Open Selected Ranks in Full"), this))
    , m_progress(new QProgressBar(this))
    , m_loadText(new QLabel(this))
{
    // Not the Ranks dock's "open several ranks": this dock's ranks come from a job folder.
    m_ranks->setEmptyText(tr("No job open: the ranks of a folder of rank summaries, their collectives and "
                             "the straggler appear here."));
    m_errors->setWordWrap(true);
    m_errors->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errors->setStyleSheet(QStringLiteral("color: #b03020"));
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(160);
    m_openSuggested->setToolTip(tr("The straggler, the two ranks that waited most and rank 0: each loads "
                                   "its whole trace; the other ranks stay one row of collectives each"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_openSuggested);
    buttons->addWidget(m_openSelected);
    buttons->addWidget(m_progress);
    buttons->addWidget(m_loadText, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_ranks);
    splitter->addWidget(m_heatMap);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_errors);
    layout->addWidget(splitter, 1);
    layout->addLayout(buttons);

    connect(m_openSuggested, &QPushButton::clicked, this, [this] {
        if (m_job)
            Q_EMIT openRanksRequested(m_job->suggestedRanks());
    });
    connect(m_openSelected, &QPushButton::clicked, this, [this] {
        if (!m_job)
            return;
        std::vector<int> ranks;
        for (std::size_t member : m_ranks->selectedMembers()) {
            if (member < m_job->ranks.size())
                ranks.push_back(m_job->ranks[member].identity.rank);
        }
        if (!ranks.empty())
            Q_EMIT openRanksRequested(ranks);
    });
    // The Ranks table's own links (the straggler's worst step, a rank row) open that rank in full.
    connect(m_ranks, &RanksPanel::stepRequested, this, [this](std::size_t member, long long) {
        if (m_job && member < m_job->ranks.size())
            Q_EMIT openRanksRequested({m_job->ranks[member].identity.rank});
    });
    connect(m_heatMap, &WaitHeatMap::rankActivated, this, [this](int rank) {
        if (m_job)
            Q_EMIT openRanksRequested({rank});
    });
    clear();
}

void JobViewPanel::clear()
{
    m_job.reset();
    m_ranks->clear();
    m_heatMap->setMap({});
    m_errors->hide();
    m_openSuggested->setEnabled(false);
    m_openSelected->setEnabled(false);
    setLoadProgress(-1, tr("Open a folder of rank summaries (File ▸ Open Job Folder)."));
}

void JobViewPanel::setJob(std::shared_ptr<const analysis::JobView> job)
{
    clear();
    m_job = std::move(job);
    if (!m_job)
        return;
    QStringList labels;
    for (const auto& r : m_job->ranks)
        labels << QString::fromStdString(r.identity.label());
    m_ranks->setAlignmentText(
        tr("%n rank summaries of %1, aligned by the absolute clock", nullptr, int(m_job->ranks.size()))
            .arg(QString::fromStdString(m_job->folder)));
    m_ranks->setReport(std::shared_ptr<const analysis::RanksReport>(m_job, &m_job->report), labels);
    m_heatMap->setMap(m_job->heatMap);
    if (!m_job->errors.empty()) {
        QStringList lines;
        for (const auto& e : m_job->errors)
            lines << QString::fromStdString(e);
        m_errors->setText(tr("%n summary(ies) left out of the job:\n", nullptr, int(lines.size()))
                          + lines.join(QLatin1Char('\n')));
        m_errors->show();
    }
    m_openSuggested->setEnabled(!m_job->ranks.empty());
    m_openSelected->setEnabled(!m_job->ranks.empty());
    setLoadProgress(-1, tr("Suggested: rank(s) %1").arg(rankList(m_job->suggestedRanks())));
}

void JobViewPanel::setOpenRanks(const std::vector<int>& ranks)
{
    setLoadProgress(-1, ranks.empty() ? QString() : tr("Open in full: rank(s) %1").arg(rankList(ranks)));
}

void JobViewPanel::setLoadProgress(int percent, const QString& text)
{
    m_progress->setVisible(percent >= 0);
    m_progress->setValue(std::max(percent, 0));
    m_loadText->setText(text);
}

} // namespace ks
