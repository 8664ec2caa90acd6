#include "widgets/memberpicker.h"

#include "widgets/timelinewidget.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QToolButton>

namespace ks {

MemberPicker::MemberPicker(TimelineWidget* timeline, QWidget* parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_combo(new QComboBox(this))
    , m_pin(new QToolButton(this))
{
    m_combo->setObjectName(QStringLiteral("memberPicker"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_combo->setToolTip(tr("The trace this panel shows; it follows the selection unless pinned"));
    m_pin->setText(tr("Pin"));
    m_pin->setCheckable(true);
    m_pin->setToolTip(tr("Keep this trace when the selection moves to another one"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 0);
    layout->addWidget(new QLabel(tr("Trace:"), this));
    layout->addWidget(m_combo);
    layout->addWidget(m_pin);
    layout->addStretch(1);

    connect(m_combo, &QComboBox::activated, this, [this](int index) { pin(std::uint32_t(index)); });
    connect(m_pin, &QToolButton::toggled, this, [this](bool on) {
        if (!on)
            unpin();
    });
    if (timeline) {
        connect(timeline, &TimelineWidget::traceChanged, this, &MemberPicker::rebuild);
        connect(timeline, &TimelineWidget::currentTraceChanged, this, [this](std::uint32_t index) {
            if (!isPinned())
                showMember(index);
        });
    }
    rebuild();
}

bool MemberPicker::isPinned() const { return m_pin->isChecked(); }

void MemberPicker::pin(std::uint32_t member)
{
    {
        const QSignalBlocker blocker(m_pin);
        m_pin->setChecked(true);
    }
    showMember(member);
}

void MemberPicker::unpin()
{
    {
        const QSignalBlocker blocker(m_pin);
        m_pin->setChecked(false);
    }
    if (m_timeline)
        showMember(m_timeline->currentTrace());
}

void MemberPicker::rebuild()
{
    const std::uint32_t count = m_timeline ? m_timeline->traceCount() : 0;
    {
        const QSignalBlocker blocker(m_combo);
        m_combo->clear();
        for (std::uint32_t i = 0; i < count; ++i)
            m_combo->addItem(m_timeline->traceTitle(i));
        m_combo->setCurrentIndex(count > 0 ? 0 : -1);
    }
    {
        const QSignalBlocker blocker(m_pin);
        m_pin->setChecked(false);
    }
    m_member = 0;
    setVisible(count > 1);
}

void MemberPicker::showMember(std::uint32_t member)
{
    if (!m_timeline || member >= m_timeline->traceCount())
        return;
    {
        const QSignalBlocker blocker(m_combo);
        m_combo->setCurrentIndex(int(member));
    }
    if (member == m_member)
        return;
    m_member = member;
    Q_EMIT memberChanged(member);
}

} // namespace ks
