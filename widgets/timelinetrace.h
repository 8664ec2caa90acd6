#pragma once
// One trace shown on the timeline's shared time axis.
#include "core/facts/stepfinder.h"
#include "core/model/time.h"
#include "core/model/trace.h"

#include <QString>

#include <memory>
#include <vector>

namespace ks {

struct TimelineTrace {
    std::shared_ptr<const Trace> trace;
    TimeNs offset = 0; // added to the trace's times on the shared axis
    QString title; // its group header ("Rank 0 · host", "BASE · file")
    facts::StepRules stepRules{}; // the user's steps for it (its file's remembered choice)
};

} // namespace ks
