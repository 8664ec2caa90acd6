#include "widgets/detailspanel.h"

#include "core/analysis/opcosts.h"
#include "widgets/peaksettings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

namespace ks {

namespace {

constexpr int kLinkRole = Qt::UserRole + 1;
constexpr int kSectionLinkRole = Qt::UserRole + 2;
// Real args nest 4 levels; anything deeper is shown as raw text, never recursed into.
constexpr int kMaxArgsDepth = 32;
constexpr std::size_t kInlineArrayChars = 120;
// Times above this (≈ 1970-01-12 in ns) are already absolute epoch times.
constexpr std::int64_t kEpochThresholdNs = 1'000'000'000'000'000;

QString qstr(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

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
        const std::string dumped =
            container ? child.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) : std::string();
        if (!container || (child.is_array() && dumped.size() <= kInlineArrayChars)) {
            item->setText(1, container ? QString::fromStdString(dumped) : jsonScalarText(child));
        } else {
            item->setText(1,
                          child.is_array() ? QObject::tr("[%n item(s)]", nullptr, int(child.size()))
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
    m_tree->setTextElideMode(Qt::ElideMiddle);
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
    addField(tr("Track"),
             qstr(m_trace->processDisplayName(m_trace->tracks()[m_trace->trackOf(slice)].process))
                 + QStringLiteral(" / ") + qstr(m_trace->trackDisplayName(m_trace->trackOf(slice))));
    addField(tr("Start"), qstr(formatDuration(start - m_trace->startTime())));
    const std::int64_t epoch = m_trace->baseTimeNs() != 0 ? m_trace->baseTimeNs() + start
        : start > kEpochThresholdNs                       ? start
                                                          : 0;
    addField(tr("Start (absolute)"),
             epoch != 0 ? formatEpochNs(epoch) : QString::number(start) + QStringLiteral(" ns"));
    addField(tr("Duration"), qstr(formatDuration(slices.duration[slice])));
    addField(tr("Self time"), qstr(formatDuration(m_trace->selfTime(slice))));
    addField(tr("Depth"), QString::number(m_trace->rowOf(slice).depth));
    if (slices.correlation[slice] != kNoId)
        addField(tr("Correlation"), QString::number(slices.correlation[slice]));
    const std::string text = m_trace->eventText(slice);
    addArgsTree(parseArgs(text));
    if (m_trace->classOf(slice) == SliceClass::CpuOp)
        addCostFields(m_trace->str(slices.name[slice]), text);
    addFlows();
}

// One call's FLOPs and bytes from its shape args (docs/roofline.md); nothing for ops without a rule.
void DetailsPanel::addCostFields(std::string_view name, std::string_view eventText)
{
    if (analysis::costRuleOf(name) == analysis::CostRule::None)
        return;
    const analysis::OpCost cost = analysis::costOf(name, analysis::parseShapeArgs(eventText));
    if (!cost.flops) {
        addField(tr("FLOPs"), tr("unknown: %1").arg(qstr(cost.unknownReason)));
        return;
    }
    const QString rule = qstr(std::string(analysis::costRuleName(cost.rule)));
    addField(tr("FLOPs"),
             tr("%1 GFLOP (%2 rule%3)")
                 .arg(double(*cost.flops) * 1e-9, 0, 'f', 3)
                 .arg(rule, cost.composite ? tr(", composite: its children carry them") : QString()));
    if (cost.bytes) {
        addField(tr("Bytes (min. traffic)"), tr("%1 MB").arg(double(*cost.bytes) * 1e-6, 0, 'f', 3));
        if (*cost.bytes > 0)
            addField(tr("FLOPs per byte"), QString::number(double(*cost.flops) / double(*cost.bytes), 'f', 1));
    }
    // Against the device's roofs (the user's overrides first), over the kernels it launched.
    const analysis::DevicePeaks peaks = analysis::resolveDevicePeaks(*m_trace, PeakSettings::load().overrides());
    OperatorRow call;
    const analysis::RowRoofline f = analysis::rooflineOfCall(*m_trace, m_slice, peaks, &call);
    if (!f.tflopsPerS)
        return;
    addField(tr("Achieved"),
             tr("%1 TFLOP/s over %2 of %n kernel(s)", nullptr, int(call.kernels))
                 .arg(*f.tflopsPerS, 0, 'f', 2)
                 .arg(qstr(formatDuration(call.deviceTotal))));
    if (f.peakFraction && f.peakKind) {
        QString text = tr("%1 % of %2 peak (%3 TFLOP/s of %4)")
                           .arg(100.0 * *f.peakFraction, 0, 'f', 1)
                           .arg(qstr(std::string(analysis::peakKindName(*f.peakKind))),
                                QString::number(*peaks.peakTflops(*f.peakKind)),
                                qstr(peaks.name.empty() ? std::string("the overrides") : peaks.name));
        if (f.tf32PeakFraction)
            text += tr("; %1 % of TF32 peak").arg(100.0 * *f.tf32PeakFraction, 0, 'f', 1);
        addField(tr("% of peak"), text);
    }
}

void DetailsPanel::showInstant(std::uint32_t instant)
{
    m_tree->clear();
    m_links.clear();
    m_slice = kNoSlice;
    if (!m_trace || instant >= m_trace->instants().size())
        return;
    const InstantTable& instants = m_trace->instants();
    const QString name = qstr(m_trace->str(instants.name[instant]));
    addField(tr("Name"), name);
    addField(tr("Category"), qstr(m_trace->str(instants.category[instant])));
    if (instants.track[instant] != kNoIndex) {
        const std::uint32_t track = instants.track[instant];
        addField(tr("Track"),
                 qstr(m_trace->processDisplayName(m_trace->tracks()[track].process)) + QStringLiteral(" / ")
                     + qstr(m_trace->trackDisplayName(track)));
    }
    addField(tr("Time"), qstr(formatDuration(instants.time[instant] - m_trace->startTime())));
    const nlohmann::json args = parseArgs(m_trace->instantText(instant));
    if (name == QLatin1String("[memory]") && args.is_object())
        addMemoryFields(args);
    addArgsTree(args);
}

void DetailsPanel::addMemoryFields(const nlohmann::json& args)
{
    const auto number = [&](const char* key) -> std::optional<double> {
        const auto it = args.find(key);
        return it != args.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    const auto bytesText = [this](double bytes) {
        const QString size = locale().formattedDataSize(qint64(std::abs(bytes)));
        return tr("%1%2 (%L3 bytes)").arg(bytes < 0 ? QStringLiteral("−") : QString(), size).arg(qint64(bytes));
    };
    if (const auto bytes = number("Bytes"))
        addField(*bytes < 0 ? tr("Freed") : tr("Allocated"), bytesText(*bytes));
    if (const auto total = number("Total Allocated"))
        addField(tr("Total allocated"), bytesText(*total));
    if (const auto reserved = number("Total Reserved"))
        addField(tr("Total reserved"), bytesText(*reserved));
    // kineto: Device Type 0 is the CPU, 1 a CUDA device (Device Id).
    const auto type = number("Device Type");
    const auto id = number("Device Id");
    if (type)
        addField(tr("Device"), *type == 0 ? tr("CPU") : tr("GPU %1").arg(id ? int(*id) : 0));
}

nlohmann::json DetailsPanel::parseArgs(const std::string& text)
{
    if (text.empty())
        return nlohmann::json(nlohmann::json::value_t::discarded);
    const auto depthGuard = [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        return depth <= kMaxArgsDepth;
    };
    nlohmann::json event = nlohmann::json::parse(text, depthGuard, false);
    if (event.is_discarded()) {
        addField(tr("Arguments"), tr("(could not decode: %1)").arg(QString::fromStdString(text.substr(0, 200))));
        return event;
    }
    const auto it = event.find("args");
    return it != event.end() && it->is_object() ? *it : nlohmann::json(nlohmann::json::value_t::null);
}

void DetailsPanel::addArgsTree(const nlohmann::json& args)
{
    if (args.is_discarded())
        return;
    QTreeWidgetItem* item = addField(tr("Arguments"), QString());
    if (!args.is_object()) {
        item->setText(1, tr("(none)"));
        return;
    }
    item->setText(1, tr("%n key(s)", nullptr, int(args.size())));
    addJsonChildren(item, args);
    item->setExpanded(true);
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
        // "Start to start", not "delay": a launch's own delay (below) is counted from the end
        // of the launch call, and the two differ by that call's duration.
        const QString format =
            link.incoming ? tr("%1: from %2 on %3 (start to start %4)") : tr("%1: to %2 on %3 (start to start %4)");
        // The whole name: the view elides it in the middle, the tooltip has all of it.
        const QString value =
            format.arg(qstr(m_trace->str(flow.category)), qstr(m_trace->str(m_trace->slices().name[link.other])),
                       qstr(m_trace->trackDisplayName(m_trace->trackOf(link.other))), qstr(formatDuration(link.delay)));
        QTreeWidgetItem* item = addField(link.incoming ? tr("Incoming flow") : tr("Outgoing flow"), value);
        item->setData(0, kLinkRole, int(i));
        item->setFont(1, linkFont);
        item->setForeground(1, linkColor);
        item->setToolTip(1,
                         tr("%1\n\nStart to start: the flow's target starts this long after its source "
                            "starts.\nClick to go to the other end of this flow")
                             .arg(value.left(2000)));
        if (const std::optional<LaunchTiming> timing = launchTiming(*m_trace, flow)) {
            auto* delay = new QTreeWidgetItem(item, {tr("Launch delay"), qstr(formatDuration(timing->launchDelay))});
            const QString definition = tr("Launch delay: the GPU op's start minus the end of its launch call "
                                          "(start to start, less the launch call's own duration)");
            delay->setToolTip(0, definition);
            delay->setToolTip(1, definition);
            auto* queue = new QTreeWidgetItem(item, {tr("Queue time"), qstr(formatDuration(timing->queueTime))});
            queue->setToolTip(1, tr("The part of the launch delay the stream spent finishing earlier work"));
            item->setExpanded(true);
        }
    }
}

void DetailsPanel::addSection(const QString& title, const QList<SectionRow>& rows)
{
    QTreeWidgetItem* section = addField(title, QString());
    QFont linkFont = m_tree->font();
    linkFont.setUnderline(true);
    for (const SectionRow& row : rows) {
        auto* item = new QTreeWidgetItem(section);
        item->setText(0, row.field);
        item->setText(1, row.value);
        if (row.target >= 0) {
            item->setData(0, kSectionLinkRole, row.target);
            item->setFont(1, linkFont);
            item->setForeground(1, palette().color(QPalette::Link));
        }
    }
    section->setExpanded(true);
}

void DetailsPanel::onItemClicked(QTreeWidgetItem* item)
{
    const QVariant link = item->data(0, kLinkRole);
    if (link.isValid())
        activateFlowLink(link.toInt());
    const QVariant sectionLink = item->data(0, kSectionLinkRole);
    if (sectionLink.isValid())
        Q_EMIT sectionLinkActivated(sectionLink.toInt());
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
