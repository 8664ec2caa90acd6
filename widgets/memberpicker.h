#pragma once
// Which member of a workspace (a rank, BASE or NEW) a dock shows: a combo box of the
// timeline's traces, by their group titles. It follows the selection (selecting an event of
// rank 1 switches it to rank 1) until the user picks a member, which pins it; the pin button
// lets go again. Hidden while the timeline shows one trace. GUI thread only.
#include <QPointer>
#include <QWidget>

#include <cstdint>

class QComboBox;
class QToolButton;

namespace ks {

class TimelineWidget;

class MemberPicker : public QWidget {
    Q_OBJECT
public:
    explicit MemberPicker(TimelineWidget* timeline, QWidget* parent = nullptr);

    // The timeline trace shown (0: the primary one).
    std::uint32_t member() const { return m_member; }
    bool isPinned() const;
    QComboBox* comboBox() const { return m_combo; }
    QToolButton* pinButton() const { return m_pin; }

public Q_SLOTS:
    // The user's choice: shows `member` and keeps it when the selection moves.
    void pin(std::uint32_t member);
    // Back to following the selection.
    void unpin();
    // Shows `member` now, pinned or not (a click on its plots asks the Memory dock for it).
    void showMember(std::uint32_t member);

Q_SIGNALS:
    // The dock should show another member (not emitted when new traces come: member 0 then).
    void memberChanged(std::uint32_t member);

private:
    void rebuild();

    QPointer<TimelineWidget> m_timeline;
    QComboBox* m_combo;
    QToolButton* m_pin;
    std::uint32_t m_member = 0;
};

} // namespace ks
