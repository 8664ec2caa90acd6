#include "widgets/querypanel.h"

#include "core/query/slicelookup.h"
#include "core/query/tracedatabase.h"
#include "widgets/jobtracker.h"
#include "widgets/queryresultmodel.h"
#include "widgets/timelinewidget.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

namespace {

const QString kSavedQueriesKey = QStringLiteral("query/saved"); // a map: name -> SQL

QVariant toVariant(const query::QueryValue& v)
{
    switch (v.type) {
    case query::QueryValue::Type::Integer: return QVariant(qlonglong(v.integer));
    case query::QueryValue::Type::Real: return QVariant(v.real);
    case query::QueryValue::Type::Text: return QString::fromUtf8(v.text.data(), qsizetype(v.text.size()));
    case query::QueryValue::Type::Blob: return QByteArray(v.text.data(), qsizetype(v.text.size())).toHex();
    case query::QueryValue::Type::Null: break;
    }
    return {};
}

} // namespace

// A query in progress: its database and its cursor, used by one job at a time (the tracker
// runs one), kept between pages.
struct QuerySession {
    explicit QuerySession(std::shared_ptr<const Trace> trace)
        : db(std::move(trace))
    {
    }
    query::TraceDatabase db;
    std::unique_ptr<query::QueryCursor> cursor;
};

namespace {

struct QueryPage {
    QStringList columns;
    std::vector<QVariantList> rows;
    bool atEnd = false;
    QString error;
};

QueryPage readPage(QuerySession& session, int pageSize)
{
    QueryPage page;
    query::QueryError error;
    auto& cursor = *session.cursor;
    for (const auto& name : cursor.columns())
        page.columns << QString::fromStdString(name);
    const int count = int(cursor.columns().size());
    while (int(page.rows.size()) < pageSize) {
        if (!cursor.next(error)) {
            page.atEnd = true;
            break;
        }
        QVariantList row;
        row.reserve(count);
        for (int c = 0; c < count; ++c)
            row << toVariant(cursor.value(c));
        page.rows.push_back(std::move(row));
    }
    if (error.failed())
        page.error = QString::fromStdString(error.message);
    return page;
}

} // namespace

QueryPanel::QueryPanel(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_jobs(new JobTracker(this))
    , m_model(new QueryResultModel(this))
    , m_editor(new QPlainTextEdit(this))
    , m_run(new QPushButton(tr("Run"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_saved(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_view(new QTableView(this))
{
    m_editor->setPlaceholderText(tr("SELECT name, count(*), sum(dur) FROM slice GROUP BY name ORDER BY 3 DESC"));
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setToolTip(tr("SQL over the trace: tables slice, kernel, op, thread, process, track, flow, counter; "
                            "times in ns. Ctrl+Return runs it."));
    m_run->setToolTip(tr("Run the query (Ctrl+Return)"));
    m_stop->setEnabled(false);
    m_saved->setToolTip(tr("Saved queries"));
    m_saved->setMinimumContentsLength(12);
    auto* save = new QPushButton(tr("Save…"), this);
    auto* remove = new QPushButton(tr("Delete"), this);
    remove->setToolTip(tr("Delete the saved query shown"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setWordWrap(false);

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_run);
    tools->addWidget(m_stop);
    tools->addWidget(m_status, 1);
    tools->addWidget(m_saved);
    tools->addWidget(save);
    tools->addWidget(remove);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_editor);
    splitter->addWidget(m_view);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(tools);
    layout->addWidget(splitter, 1);

    connect(m_run, &QPushButton::clicked, this, &QueryPanel::run);
    connect(m_stop, &QPushButton::clicked, this, &QueryPanel::stop);
    auto* runShortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), m_editor);
    runShortcut->setContext(Qt::WidgetShortcut);
    connect(runShortcut, &QShortcut::activated, this, &QueryPanel::run);
    connect(m_model, &QueryResultModel::moreRowsWanted, this, &QueryPanel::fetchNextPage);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectRowOnTimeline(current.row()); });
    connect(m_saved, &QComboBox::activated, this, [this](int index) {
        const auto saved = QSettings().value(kSavedQueriesKey).toMap();
        const QString name = m_saved->itemText(index);
        if (saved.contains(name))
            m_editor->setPlainText(saved.value(name).toString());
    });
    connect(save, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name =
            QInputDialog::getText(this, tr("Save Query"), tr("Name:"), QLineEdit::Normal, m_saved->currentText(), &ok);
        if (ok && !name.trimmed().isEmpty())
            saveQuery(name.trimmed());
    });
    connect(remove, &QPushButton::clicked, this, [this] { deleteSavedQuery(m_saved->currentText()); });
    reloadSavedQueries();

    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &QueryPanel::setTrace);
        setTrace(timeline->trace());
    }
    updateStatus();
}

QueryPanel::~QueryPanel() = default;

QString QueryPanel::statusText() const { return m_status->text(); }

void QueryPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    m_jobs->cancel();
    m_session.reset();
    m_trace = std::move(trace);
    m_running = false;
    m_error.clear();
    m_model->reset({});
    m_model->finish();
    updateStatus();
}

void QueryPanel::run()
{
    if (!m_trace) {
        onFailure(tr("No trace is open."));
        return;
    }
    if (m_editor->toPlainText().trimmed().isEmpty()) // Run on the empty editor: the example it shows
        m_editor->setPlainText(m_editor->placeholderText());
    const std::string sql = m_editor->toPlainText().toStdString();
    std::shared_ptr<QuerySession> session;
    try {
        session = std::make_shared<QuerySession>(m_trace);
    } catch (const std::exception& e) {
        onFailure(QString::fromUtf8(e.what()));
        return;
    }
    m_session = session;
    m_error.clear();
    m_running = true;
    m_model->reset({});
    updateStatus();
    m_jobs->start(
        [session, sql, pageSize = m_pageSize] {
            query::QueryError error;
            session->cursor = session->db.query(sql, error);
            if (!session->cursor) {
                QueryPage failed;
                failed.error = QString::fromStdString(error.located(sql));
                return failed;
            }
            return readPage(*session, pageSize);
        },
        [this](QueryPage page) {
            if (!page.error.isEmpty() && page.rows.empty() && page.columns.isEmpty()) {
                onFailure(page.error);
                return;
            }
            m_model->reset(page.columns);
            m_model->appendRows(std::move(page.rows), page.atEnd);
            if (!page.error.isEmpty())
                onFailure(page.error);
            m_running = false;
            updateStatus();
            Q_EMIT pageReady();
        },
        [this](const QString& error) { onFailure(error); }, [session] { session->db.interrupt(); });
}

void QueryPanel::fetchNextPage()
{
    const auto session = m_session;
    if (!session || !session->cursor) {
        m_model->finish();
        return;
    }
    m_running = true;
    updateStatus();
    m_jobs->start([session, pageSize = m_pageSize] { return readPage(*session, pageSize); },
                  [this](QueryPage page) {
                      m_model->appendRows(std::move(page.rows), page.atEnd);
                      if (!page.error.isEmpty())
                          onFailure(page.error);
                      m_running = false;
                      updateStatus();
                      Q_EMIT pageReady();
                  },
                  [this](const QString& error) { onFailure(error); }, [session] { session->db.interrupt(); });
}

void QueryPanel::stop()
{
    if (!m_running)
        return;
    m_jobs->cancel(); // interrupts SQLite; the result is dropped
    m_model->finish();
    m_running = false;
    m_error = tr("Stopped.");
    updateStatus();
}

void QueryPanel::onFailure(const QString& message)
{
    m_model->finish();
    m_running = false;
    m_error = message;
    updateStatus();
    Q_EMIT queryFailed(message);
}

void QueryPanel::selectRowOnTimeline(int row)
{
    const int ts = m_model->columnNamed(QStringLiteral("ts"));
    const int track = m_model->columnNamed(QStringLiteral("track"));
    if (!m_timeline || !m_trace || ts < 0 || track < 0 || m_timeline->trace() != m_trace)
        return;
    bool tsOk = false, trackOk = false;
    const qlonglong start = m_model->value(row, ts).toLongLong(&tsOk);
    const qlonglong trackIndex = m_model->value(row, track).toLongLong(&trackOk);
    if (!tsOk || !trackOk)
        return;
    const SliceId slice = query::sliceStartingAt(*m_trace, trackIndex, start);
    if (slice != kNoSlice)
        m_timeline->revealTraceSlice({0, slice});
}

void QueryPanel::saveQuery(const QString& name)
{
    QSettings settings;
    auto saved = settings.value(kSavedQueriesKey).toMap();
    saved.insert(name, m_editor->toPlainText());
    settings.setValue(kSavedQueriesKey, saved);
    reloadSavedQueries();
    m_saved->setCurrentText(name);
}

void QueryPanel::deleteSavedQuery(const QString& name)
{
    QSettings settings;
    auto saved = settings.value(kSavedQueriesKey).toMap();
    if (saved.remove(name) == 0)
        return;
    settings.setValue(kSavedQueriesKey, saved);
    reloadSavedQueries();
}

void QueryPanel::reloadSavedQueries()
{
    m_saved->clear();
    m_saved->addItems(QSettings().value(kSavedQueriesKey).toMap().keys()); // sorted by name
}

void QueryPanel::updateStatus()
{
    m_run->setEnabled(m_trace != nullptr);
    m_stop->setEnabled(m_running);
    if (m_running) {
        m_status->setText(tr("Running…"));
    } else if (!m_error.isEmpty()) {
        m_status->setText(m_error.section(QLatin1Char('\n'), 0, 0));
        m_status->setToolTip(m_error);
        return;
    } else if (m_model->columnCount() > 0) {
        m_status->setText(m_model->atEnd() ? tr("%n row(s)", nullptr, m_model->rowCount())
                                           : tr("%n row(s) so far (more on scrolling)", nullptr, m_model->rowCount()));
    } else {
        m_status->setText(m_trace ? tr("Ready") : tr("No trace"));
    }
    m_status->setToolTip({});
}

} // namespace ks
