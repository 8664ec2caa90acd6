#pragma once
// Which host ranges are a trace's steps, when the trace has no ProfilerStep#N of its own (a
// plain `with profile():`, a collected trace). The rules, first match wins:
//   1. ProfilerStep#N ranges (torch.profiler's step(); the collector's --step-marker writes
//      these too and says so in the trace's "stepMarker" metadata);
//   2. the user's choice: slices whose name is the pattern, else that match it as a regex;
//   3. top-level record_function labels repeating with a counter: step0, train_step_12,
//      "iteration 3", "Iteration #3" (the label names a step, an iteration or a batch);
//   4. repeated Optimizer.step#... ranges: a step ends when the optimizer's step does;
//   else none (the whole trace is one step).
#include "core/model/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace ks::facts {

enum class StepSource : std::uint8_t { None, ProfilerStep, StepMarker, User, Labels, OptimizerStep };

// What the user asked for; part of what a trace's facts are built from.
struct StepRules {
    std::string userPattern; // a slice name or an ECMAScript regex matching whole names; "": none

    bool operator==(const StepRules&) const = default;
};

// Why `pattern` is not a usable regex ("" when it is, or when it is empty).
std::string stepPatternError(const std::string& pattern);

// One step's host range, in time order.
struct FoundStep {
    long long number = -1; // ProfilerStep#N's or the label's N; else the step's index
    TimeNs start = 0, end = 0;
    SliceId slice = kNoSlice; // the range that marks it (Optimizer.step: the optimizer's range)
};

struct FoundSteps {
    std::vector<FoundStep> steps;
    StepSource source = StepSource::None;
    std::string detail; // the user's pattern, the label template ("step<N>"), the marker name

    // "ProfilerStep", "step-marker", "user:PATTERN", "labels:step<N>", "Optimizer.step", "none".
    std::string sourceName() const;
};

// Where a trace's ProfilerStep ranges come from: torch.profiler, or the collector's
// --step-marker (its "stepMarker" metadata; detail: the marker's name). No steps in it.
FoundSteps profilerStepOrigin(const Trace& trace);

class StepFinder {
public:
    // An invalid user pattern counts as none (check it with stepPatternError first).
    explicit StepFinder(StepRules rules = {});

    // Steps of the trace's host threads, by the first rule that gives two steps or more (one
    // for ProfilerStep and the user's choice).
    FoundSteps find(const Trace& trace) const;

private:
    StepRules m_rules;
};

} // namespace ks::facts
