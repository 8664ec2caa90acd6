#include "app/emptyhint.h"

#include <QEvent>

namespace ks {

EmptyTraceHint::EmptyTraceHint(QWidget* area)
    : QLabel(area)
{
    setObjectName(QStringLiteral("emptyTraceHint"));
    setAlignment(Qt::AlignCenter);
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setForegroundRole(QPalette::PlaceholderText);
    setAttribute(Qt::WA_TransparentForMouseEvents, false);
    connect(this, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("open"))
            Q_EMIT openRequested();
        else if (link == QLatin1String("demo"))
            Q_EMIT demoRequested();
        else if (link == QLatin1String("record"))
            Q_EMIT recordRequested();
    });
    area->installEventFilter(this);
    setTrace(nullptr);
}

void EmptyTraceHint::setTrace(const std::shared_ptr<const Trace>& trace)
{
    if (!trace) {
        setText(tr("<h3>No trace open</h3>"
                   "<p><a href=\"open\">Open a trace</a> (Ctrl+O, or drop a <tt>*.pt.trace.json[.gz]</tt> here), "
                   "open the <a href=\"demo\">demo trace</a>, or <a href=\"record\">record a program</a>.</p>"
                   "<p>Press <b>?</b> for the keyboard shortcuts.</p>"));
    } else if (trace->slices().size() == 0 && trace->instants().size() == 0 && trace->counters().empty()) {
        setText(tr("<h3>This trace has no events</h3>"
                   "<p>Nothing to draw: it has no slices, instants or counters. "
                   "<a href=\"open\">Open another trace</a> or <a href=\"record\">record a program</a>.</p>"));
    } else {
        hide();
        return;
    }
    place();
    show();
    raise();
}

bool EmptyTraceHint::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parent() && event->type() == QEvent::Resize)
        place();
    return QLabel::eventFilter(watched, event);
}

void EmptyTraceHint::place()
{
    const QWidget* area = parentWidget();
    const int width = std::min(area->width() - 20, fontMetrics().averageCharWidth() * 70);
    const int height = std::min(area->height(), heightForWidth(width) + fontMetrics().height());
    setGeometry((area->width() - width) / 2, (area->height() - height) / 3, std::max(width, 0), std::max(height, 0));
}

} // namespace ks
