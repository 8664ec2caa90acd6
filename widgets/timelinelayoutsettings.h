#pragma once
// The user's track layout (pinned tracks, group order, GPU first, folded Python lanes,
// collapsed counter and GPU metric tracks),
// remembered in QSettings per kind of trace ("gpu": it has GPU streams; "cpu": it has
// none). Processes and tracks are named by what survives a new run of the same program:
// "GPU 0", a process name, a thread's place in its process, a stream number, not pids.
#include "core/timeline/tracklayout.h"

#include <QString>

namespace ks {

class TimelineLayoutSettings {
public:
    static QString traceKind(const Trace& trace);
    // The saved layout mapped onto this trace (names it lacks are dropped); keeps
    // `options.metricTracks` as given. Never saved: GPU traces show their GPU groups first
    // and fold their Python lanes.
    static void load(const Trace& trace, LayoutOptions& options);
    static void save(const Trace& trace, const LayoutOptions& options);
    // Forgets the layout saved for this trace's kind (back to the defaults).
    static void forget(const Trace& trace);

    static QString processKey(const Trace& trace, std::uint32_t process);
    static QString trackKey(const Trace& trace, std::uint32_t track);
    // "GPU 0/metric 1", "<process>/<counter name>".
    static QString metricKey(const Trace& trace, std::uint32_t process, std::uint32_t metric);
    static QString counterKey(const Trace& trace, std::uint32_t counter);
};

} // namespace ks
