#include "widgets/flamegraphwidget.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ks {

namespace {

constexpr double kMinWidthPx = 0.5; // narrower nodes (and so their children) are not drawn
constexpr int kMinTextPx = 24;

// A stable hue per label within the kind's band, so a frame keeps its colour across views.
int hueOf(const QString& label, int from, int span) { return from + int(qHash(label) % uint(span)); }

} // namespace

FlameGraphWidget::FlameGraphWidget(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_rowHeight = fontMetrics().height() + 4;
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

QSize FlameGraphWidget::sizeHint() const { return {600, m_rowHeight * 12}; }

void FlameGraphWidget::setData(std::shared_ptr<const FlameGraphData> data)
{
    m_data = std::move(data);
    m_zoom = FlameGraphData::kRoot;
    m_current = FlameGraphData::kNone;
    m_searching = false;
    m_matches.clear();
    updateHeight();
    update();
}

void FlameGraphWidget::updateHeight()
{
    int rows = 1;
    if (m_data) {
        std::vector<std::uint16_t> depth(m_data->size(), 0);
        for (std::size_t n = 1; n < m_data->size(); ++n) {
            depth[n] = std::uint16_t(std::min(depth[m_data->parent[n]] + 1, 60000));
            rows = std::max(rows, depth[n] + 1);
        }
    }
    setMinimumHeight(rows * m_rowHeight + 2);
}

int FlameGraphWidget::ancestorRows() const
{
    int rows = 0;
    if (m_data) {
        for (std::uint32_t n = m_zoom; n != FlameGraphData::kRoot; n = m_data->parent[n])
            ++rows;
    }
    return rows;
}

void FlameGraphWidget::zoomTo(std::uint32_t node)
{
    if (!m_data || node >= m_data->size())
        return;
    m_zoom = node;
    update();
}

void FlameGraphWidget::setCurrentNode(std::uint32_t node)
{
    m_current = node;
    update();
}

void FlameGraphWidget::setSearchText(const QString& text)
{
    m_searching = !text.isEmpty() && m_data;
    m_matches.clear();
    if (m_searching) {
        m_matches.resize(m_data->size());
        for (std::size_t n = 0; n < m_data->size(); ++n)
            m_matches[n] = m_data->label[n].contains(text, Qt::CaseInsensitive);
    }
    update();
}

QColor FlameGraphWidget::fillOf(std::uint32_t node) const
{
    const FlameGraphData& d = *m_data;
    QColor color;
    if (d.isDiff) {
        if (d.vanished(node)) {
            color = QColor(170, 190, 235);
        } else {
            const double change = std::clamp(d.change(node), -1.0, 1.0); // saturates at ±100 %
            const int fade = int(std::lround(200.0 * (1.0 - std::abs(change))));
            color = change >= 0 ? QColor(255, 55 + fade, 55 + fade) : QColor(55 + fade, 55 + fade, 255);
        }
    } else {
        const QString& label = d.label[node];
        switch (d.kind[node]) {
        case analysis::CallFrameKind::Root:
        case analysis::CallFrameKind::Unattributed: color = QColor(200, 200, 200); break;
        case analysis::CallFrameKind::Annotation: color = QColor::fromHsv(hueOf(label, 45, 12), 150, 240); break;
        case analysis::CallFrameKind::Step: color = QColor(235, 215, 120); break;
        case analysis::CallFrameKind::Runtime: color = QColor::fromHsv(hueOf(label, 20, 15), 90, 225); break;
        case analysis::CallFrameKind::Python: color = QColor::fromHsv(hueOf(label, 85, 50), 110, 225); break;
        case analysis::CallFrameKind::Gpu: color = QColor::fromHsv(hueOf(label, 200, 70), 120, 240); break;
        case analysis::CallFrameKind::Op: color = QColor::fromHsv(hueOf(label, 0, 40), 150, 245); break;
        }
    }
    if (m_searching && !m_matches[node])
        color = QColor::fromHsv(color.hsvHue(), color.hsvSaturation() / 6, 235);
    return color;
}

void FlameGraphWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_data || m_data->size() == 0 || m_data->width[m_zoom] <= 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, m_data ? tr("No time in this range") : tr("No call tree"));
        return;
    }
    const FlameGraphData& d = *m_data;
    const QFontMetrics metrics = fontMetrics();
    const double fullWidth = width();
    const int visibleBottom = height();
    const QColor textColor(20, 20, 20);
    const QBrush hatch(QColor(60, 80, 140), Qt::BDiagPattern);
    const auto drawNode = [&](std::uint32_t n, double x, double w, int depth) {
        const QRectF box(x, depth * m_rowHeight, std::max(w - 1.0, 1.0), m_rowHeight - 1);
        painter.fillRect(box, fillOf(n));
        if (d.vanished(n))
            painter.fillRect(box, hatch);
        if (n == m_current) {
            painter.setPen(QPen(palette().color(QPalette::Highlight), 2));
            painter.drawRect(box.adjusted(1, 1, -1, -1));
        }
        if (w >= kMinTextPx) {
            painter.setPen(textColor);
            painter.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                             metrics.elidedText(d.label[n], Qt::ElideRight, int(w) - 5));
        }
    };
    // The zoomed node's ancestors as full-width rows above it.
    const int above = ancestorRows();
    int depth = above - 1;
    for (std::uint32_t a = m_zoom == FlameGraphData::kRoot ? FlameGraphData::kNone : d.parent[m_zoom];
         a != FlameGraphData::kNone; a = d.parent[a])
        drawNode(a, 0, fullWidth, depth--);
    // Depth first without recursion: (node, x, width in px, row).
    struct Pending {
        std::uint32_t node;
        double x, w;
        int depth;
    };
    std::vector<Pending> pending{{m_zoom, 0.0, fullWidth, above}};
    while (!pending.empty()) {
        const Pending p = pending.back();
        pending.pop_back();
        drawNode(p.node, p.x, p.w, p.depth);
        if ((p.depth + 1) * m_rowHeight >= visibleBottom || d.width[p.node] <= 0)
            continue;
        const double scale = p.w / d.width[p.node];
        double x = p.x;
        for (std::size_t i = 0; i < d.childCount(p.node); ++i) {
            const std::uint32_t c = d.child(p.node, i);
            const double w = d.width[c] * scale;
            if (w < kMinWidthPx)
                break; // widest first: the rest are narrower still
            pending.push_back({c, x, w, p.depth + 1});
            x += w;
        }
    }
}

std::uint32_t FlameGraphWidget::nodeAt(QPoint pos) const
{
    if (!m_data || m_data->size() == 0 || pos.x() < 0 || pos.x() >= width() || pos.y() < 0)
        return FlameGraphData::kNone;
    const FlameGraphData& d = *m_data;
    const int row = pos.y() / m_rowHeight;
    const int above = ancestorRows();
    if (row < above) {
        std::uint32_t a = m_zoom;
        for (int depth = above; depth > row; --depth)
            a = d.parent[a];
        return a;
    }
    std::uint32_t n = m_zoom;
    double x = 0, w = width();
    for (int depth = above; depth < row; ++depth) {
        if (d.width[n] <= 0)
            return FlameGraphData::kNone;
        const double scale = w / d.width[n];
        std::uint32_t found = FlameGraphData::kNone;
        for (std::size_t i = 0; i < d.childCount(n) && found == FlameGraphData::kNone; ++i) {
            const std::uint32_t c = d.child(n, i);
            const double cw = d.width[c] * scale;
            if (cw < kMinWidthPx)
                break;
            if (pos.x() >= x && pos.x() < x + cw) {
                found = c;
                w = cw;
            } else {
                x += cw;
            }
        }
        if (found == FlameGraphData::kNone)
            return FlameGraphData::kNone;
        n = found;
    }
    return n;
}

QRectF FlameGraphWidget::nodeRect(std::uint32_t node) const
{
    if (!m_data || node >= m_data->size())
        return {};
    const FlameGraphData& d = *m_data;
    std::vector<std::uint32_t> path; // from the node up to the zoomed one
    std::uint32_t n = node;
    for (; n != m_zoom && n != FlameGraphData::kRoot; n = d.parent[n])
        path.push_back(n);
    if (n != m_zoom)
        return {};
    const int above = ancestorRows();
    double x = 0, w = width();
    int depth = above;
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
        const std::uint32_t p = d.parent[*it];
        const double scale = d.width[p] > 0 ? w / d.width[p] : 0.0;
        for (std::size_t i = 0; i < d.row[*it]; ++i)
            x += d.width[d.child(p, i)] * scale;
        w = d.width[*it] * scale;
        ++depth;
    }
    return QRectF(x, depth * m_rowHeight, w, m_rowHeight);
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const std::uint32_t n = nodeAt(event->position().toPoint());
    if (n == FlameGraphData::kNone)
        return;
    m_current = n;
    // The zoomed node zooms out a level; any other node (an ancestor row too) is zoomed into.
    zoomTo(n == m_zoom && n != FlameGraphData::kRoot ? m_data->parent[n] : n);
    Q_EMIT nodeClicked(n);
}

void FlameGraphWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    const std::uint32_t n = nodeAt(event->position().toPoint());
    if (n != FlameGraphData::kNone && n != FlameGraphData::kRoot)
        Q_EMIT occurrencesRequested(n);
}

void FlameGraphWidget::contextMenuEvent(QContextMenuEvent* event)
{
    const std::uint32_t n = nodeAt(event->pos());
    QMenu menu(this);
    if (n != FlameGraphData::kNone) {
        menu.addAction(tr("Zoom into %1").arg(m_data->label[n].left(60)), this, [this, n] { zoomTo(n); });
        if (n != FlameGraphData::kRoot && !m_data->isDiff)
            menu.addAction(tr("Show occurrences on the timeline"), this, [this, n] { Q_EMIT occurrencesRequested(n); });
    }
    menu.addAction(tr("Reset zoom"), this, &FlameGraphWidget::resetZoom);
    menu.exec(event->globalPos());
}

bool FlameGraphWidget::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const std::uint32_t n = nodeAt(help->pos());
        if (n == FlameGraphData::kNone)
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), m_data->describe(n), this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace ks
