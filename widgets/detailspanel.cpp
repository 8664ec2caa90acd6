#include "widgets/detailspanel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace ks {

namespace {

constexpr int kLinkRole = Qt::UserRole + 1;
// Real args nest 4 levels; anything deeper is shown as raw text, never recursed into.
constexpr int kMaxArgsDepth = 32;
constexpr std::size_t kInlineArrayChars = 120;
// Times above this (≈ 1970-01-12 in ns) are already absolute epoch times.
constexpr std::int64_t kEpochThresholdNs = 1'000'000'000'000'000;

QString qstr(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString jsonScalarText(const nlohmann::json& value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    return QString::fromStdString(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void addJsonChildren(QTreeWidgetItem* parent, const nlohmann::json& value)
{
    const auto addChild = [&](const QString& key, const nlohmann::json& child) {
        auto* item = new QTreeWidgetItem(parent);
        item->setText(0, key);
        const bool container = child.is_object() || child.is_array();
        const std::string dumped = container ? child.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : std::string();
        if (!container || (child.is_array() && dumped.size() <= kInlineArrayChars)) {
            item->setText(1, container ? QString::fromStdString(dumped) : jsonScalarText(child));
        } else {
            item->setText(1, child.is_array() ? QObject::tr("[%n item(s)]", nullptr, int(child.size()))
                                              : QObject::tr("{%n key(s)}", nullptr, int(child.size())));
            addJsonChildren(item, child);
        }
    };
    if (value.is_object()) {
        for (const auto& [key, child] : value.items())
            addChild(QString::fromStdString(key), child);
    } else if (value.is_array()) {
        int i = 0;
        for (const auto& child : value)
            addChild(QString::number(i++), child);
    }
}

} // namespace

QString formatEpochNs(std::int64_t epochNs)
{
    const std::int64_t ms = epochNs / 1'000'000;
    const std::int64_t subMs = epochNs % 1'000'000;
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
    return time.toString(QStringLiteral("yyyy-MM-dd hh:mm:ss.zzz"))
        + QStringLiteral("%1 UTC").arg(subMs, 6, 10, QLatin1Char('0'));
}

DetailsPanel::DetailsPanel(QWidget* parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Field"), tr("Value")});
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tree->setUniformRowHeights(true);
    m_tree->setWordWrap(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(tr("Copy"), m_tree);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, &DetailsPanel::copySelection);
    m_tree->addAction(copy);
    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { onItemClicked(item); });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { onItemClicked(item); });
}

void DetailsPanel::setTrace(std::shared_ptr<const Trace> trace)
{
    m_trace = std::move(trace);
    showSlice(kNoSlice);
}

QTreeWidgetItem* DetailsPanel::addField(const QString& field, const QString& value)
{
    auto* item = new QTreeWidgetItem(m_tree);
    item->setText(0, field);
    item->setText(1, value);
    item->setToolTip(1, value.left(2000));
    return item;
}

QString DetailsPanel::fieldValue(const QString& field) const
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        if (m_tree->topLevelItem(i)->text(0) == field)
            return m_tree->topLevelItem(i)->text(1);
    }
    return {};
}

void DetailsPanel::showSlice(SliceId slice)
{
    m_tree->clear();
    m_links.clear();
    m_slice = slice;
    if (!m_trace || slice == kNoSlice || slice >= m_trace->slices().size())
        return;
    const SliceTable& slices = m_trace->slices();
    const TimeNs start = slices.start[slice];
    addField(tr("Name"), qstr(m_trace->str(slices.name[slice])));
    addField(tr("Category"), qstr(m_trace->str(slices.category[slice])));
    addField(tr("Track"), qstr(m_trace->processDisplayName(m_trace->tracks()[m_trace->trackOf(slice)].process))
                              + QStringLiteral(" / ") + qstr(m_trace->trackDisplayName(m_trace->trackOf(slice))));
    addField(tr("Start"), qstr(formatDuration(start - m_trace->startTime())));
    const std::int64_t epoch = m_trace->baseTimeNs() != 0 ? m_trace->baseTimeNs() + start
                               : start > kEpochThresholdNs ? start : 0;
    addField(tr("Start (absolute)"), epoch != 0 ? formatEpochNs(epoch) : QString::number(start) + QStringLiteral(" ns"));
    addField(tr("Duration"), qstr(formatDuration(slices.duration[slice])));
    addField(tr("Self time"), qstr(formatDuration(m_trace->selfTime(slice))));
    addField(tr("Depth"), QString::number(m_trace->rowOf(slice).depth));
    if (slices.correlation[slice] != kNoId)
        addField(tr("Correlation"), QString::number(slices.correlation[slice]));
    addArgs(slice);
    addFlows();
}

void DetailsPanel::addArgs(SliceId slice)
{
    const std::string text = m_trace->eventText(slice);
    if (text.empty())
        return;
    const auto depthGuard = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        return depth <= kMaxArgsDepth;
    };
    const nlohmann::json event = nlohmann::json::parse(text, depthGuard, false);
    QTreeWidgetItem* args = addField(tr("Arguments"), QString());
    if (event.is_discarded()) {
        args->setText(1, tr("(could not decode: %1)").arg(QString::fromStdString(text.substr(0, 200))));
        return;
    }
    const auto it = event.find("args");
    if (it == event.end() || !it->is_object()) {
        args->setText(1, tr("(none)"));
        return;
    }
    args->setText(1, tr("%n key(s)", nullptr, int(it->size())));
    addJsonChildren(args, *it);
    args->setExpanded(true);
}

void DetailsPanel::addFlows()
{
    m_links = flowLinksOf(*m_trace, m_slice);
    QFont linkFont = m_tree->font();
    linkFont.setUnderline(true);
    const QColor linkColor = palette().color(QPalette::Link);
    for (std::size_t i = 0; i < m_links.size(); ++i) {
        const FlowLink& link = m_links[i];
        const Flow& flow = m_trace->flows()[link.flow];
        const QString format = link.incoming ? tr("%1: from %2 on %3 (delay %4)")
                                             : tr("%1: to %2 on %3 (delay %4)");
        const QString value = format.arg(qstr(m_trace->str(flow.category)),
                                         qstr(m_trace->str(m_trace->slices().name[link.other])).left(120),
                                         qstr(m_trace->trackDisplayName(m_trace->trackOf(link.other))),
                                         qstr(formatDuration(link.delay)));
        QTreeWidgetItem* item = addField(link.incoming ? tr("Incoming flow") : tr("Outgoing flow"), value);
        item->setData(0, kLinkRole, int(i));
        item->setFont(1, linkFont);
        item->setForeground(1, linkColor);
        item->setToolTip(1, tr("Click to go to the other end of this flow"));
    }
}

void DetailsPanel::onItemClicked(QTreeWidgetItem* item)
{
    const QVariant link = item->data(0, kLinkRole);
    if (link.isValid())
        activateFlowLink(link.toInt());
}

void DetailsPanel::activateFlowLink(int index)
{
    if (index < 0 || std::size_t(index) >= m_links.size())
        return;
    Q_EMIT flowTargetActivated(m_links[std::size_t(index)].other);
}

void DetailsPanel::copySelection() const
{
    QStringList lines;
    for (const QTreeWidgetItem* item : m_tree->selectedItems()) {
        int depth = 0;
        for (const QTreeWidgetItem* p = item->parent(); p; p = p->parent())
            ++depth;
        lines << QString(depth * 2, QLatin1Char(' ')) + item->text(0) + QLatin1Char('\t') + item->text(1);
    }
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')));
}

} // namespace ks
