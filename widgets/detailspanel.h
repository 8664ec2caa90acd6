#pragma once
// Details of the selected slice: name, category, track, times, self time, depth, the
// event's args (decoded from its raw JSON only when shown) and its flows as clickable
// links. Every value can be selected and copied (Ctrl+C or the context menu).
#include "core/timeline/flowlinks.h"

#include <QWidget>

#include <nlohmann/json_fwd.hpp>

#include <memory>
#include <string_view>
#include <vector>

class QTreeWidget;
class QTreeWidgetItem;

namespace ks {

class DetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget* parent = nullptr);
    void setTrace(std::shared_ptr<const Trace> trace);
    QTreeWidget* tree() const { return m_tree; }
    SliceId slice() const { return m_slice; }
    // The flow links listed for the current slice, in display order.
    const std::vector<FlowLink>& flowLinks() const { return m_links; }
    // The value shown for a top-level field ("Name", "Duration", ...), empty if absent.
    QString fieldValue(const QString& field) const;

    // Rows about the shown slice from another view (a collective's ranks), under a
    // top-level `title`; rows given a target are links (sectionLinkActivated).
    struct SectionRow {
        QString field;
        QString value;
        int target = -1; // >= 0: a link reported with this number
    };
    void addSection(const QString& title, const QList<SectionRow>& rows);

public Q_SLOTS:
    void showSlice(ks::SliceId slice);
    // An instant event (a [memory] sample shows its bytes, totals and device).
    void showInstant(std::uint32_t instant);
    void activateFlowLink(int index);
    void copySelection() const;

Q_SIGNALS:
    // The user clicked an incoming/outgoing flow entry: the slice at its other end.
    void flowTargetActivated(ks::SliceId target);
    // A link row of addSection() was clicked.
    void sectionLinkActivated(int target);

private:
    void onItemClicked(QTreeWidgetItem* item);
    QTreeWidgetItem* addField(const QString& field, const QString& value);
    // The event's args object; null when it has none, discarded (and said so) when unreadable.
    nlohmann::json parseArgs(const std::string& text);
    void addArgsTree(const nlohmann::json& args);
    void addMemoryFields(const nlohmann::json& args);
    void addCostFields(std::string_view name, std::string_view eventText);
    void addFlows();

    std::shared_ptr<const Trace> m_trace;
    SliceId m_slice = kNoSlice;
    std::vector<FlowLink> m_links;
    QTreeWidget* m_tree = nullptr;
};

// "2026-11-21 12:34:56.123456789 UTC" for Unix-epoch nanoseconds.
QString formatEpochNs(std::int64_t epochNs);

} // namespace ks
