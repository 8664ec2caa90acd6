#include "core/facts/stepfinder.h"

#include "core/facts/pluginkind.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <regex>

namespace ks::facts {

namespace {

constexpr std::string_view kOptimizerStep = "Optimizer.step#";

bool isHostRange(SliceClass c) { return c == SliceClass::CpuOp || c == SliceClass::UserAnnotation; }

// The host ranges a rule looks at: slices of the CPU threads.
template <class Visit>
void forEachHostSlice(const Trace& trace, Visit visit)
{
    for (const Track& track : trace.tracks()) {
        if (track.kind != TrackKind::CpuThread)
            continue;
        for (SliceId s = track.sliceBegin; s < track.sliceEnd; ++s)
            visit(s);
    }
}

// True when no op or label of its thread encloses `s` (python frames and others may).
bool isTopLevel(const Trace& trace, SliceId s)
{
    const Row& row = trace.rowOf(s);
    const Track& track = trace.tracks()[row.track];
    const Lane& lane = track.lanes[row.lane];
    if (lane.kind != LaneKind::Main)
        return false;
    const auto& slices = trace.slices();
    for (int depth = int(row.depth) - 1; depth >= 0; --depth) {
        const SliceId outer = trace.sliceAt(track.rowBegin + lane.firstRow + std::uint32_t(depth), slices.start[s]);
        if (outer != kNoSlice && slices.end(outer) >= slices.end(s) && isHostRange(trace.classOf(outer)))
            return false;
    }
    return true;
}

// Where the loop's first iteration began, given its first two optimizer steps: the ops beside
// them (same thread, same depth: top-level ops, or the children of a label around each
// iteration) that run after the first optimizer step up to the second, matched name by name
// backwards from the second against those before the first; the earliest op matched starts
// step 1. Nothing matched (the op right before the second optimizer step never ran before
// the first): nullopt.
std::optional<TimeNs> firstIterationStart(const Trace& trace, SliceId firstOptimizer, SliceId secondOptimizer)
{
    const Row& row = trace.rowOf(firstOptimizer);
    const auto& slices = trace.slices();
    std::vector<SliceId> before, second; // host ranges of its row before each optimizer step
    for (SliceId s = row.begin; s < row.end; ++s) {
        if (!isHostRange(trace.classOf(s)))
            continue;
        if (slices.end(s) <= slices.start[firstOptimizer])
            before.push_back(s);
        else if (slices.start[s] >= slices.end(firstOptimizer) && slices.end(s) <= slices.start[secondOptimizer])
            second.push_back(s);
    }
    std::size_t matched = 0;
    while (matched < before.size() && matched < second.size()
           && slices.name[before[before.size() - 1 - matched]] == slices.name[second[second.size() - 1 - matched]])
        ++matched;
    if (matched == 0)
        return std::nullopt;
    return slices.start[before[before.size() - matched]];
}

// Ranges sorted by start, each one starting after the previous kept one ended (nested or
// overlapping matches, e.g. on another thread, are not steps of their own).
std::vector<FoundStep> inTimeOrder(const Trace& trace, std::vector<SliceId> ranges, bool ordinalNumbers,
                                   long long (*numberOf)(std::string_view) = nullptr)
{
    const auto& slices = trace.slices();
    std::sort(ranges.begin(), ranges.end(), [&](SliceId a, SliceId b) {
        return slices.start[a] != slices.start[b] ? slices.start[a] < slices.start[b] : a < b;
    });
    std::vector<FoundStep> steps;
    for (SliceId s : ranges) {
        if (!steps.empty() && slices.start[s] < steps.back().end)
            continue;
        const long long number =
            ordinalNumbers || !numberOf ? (long long)steps.size() : numberOf(trace.str(slices.name[s]));
        steps.push_back({number, slices.start[s], slices.end(s), s});
    }
    return steps;
}

// "train_step_12" -> ("train_step_", 12) when the prefix names a step, an iteration or a batch.
struct CounterLabel {
    std::string prefix;
    long long number = -1;
};

std::optional<CounterLabel> counterLabel(std::string_view name)
{
    std::size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1])))
        --digits;
    if (digits == name.size() || name.size() - digits > 18)
        return std::nullopt;
    std::string lowered(name.substr(0, digits));
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    const bool namesStep = lowered.find("step") != std::string::npos || lowered.find("iter") != std::string::npos
        || lowered.find("batch") != std::string::npos;
    if (!namesStep || lowered.starts_with(std::string_view("profilerstep#")))
        return std::nullopt;
    CounterLabel label{std::string(name.substr(0, digits)), 0};
    std::from_chars(name.data() + digits, name.data() + name.size(), label.number);
    return label;
}

long long labelNumber(std::string_view name) { return counterLabel(name)->number; }

// Candidate groups of step ranges: more ranges win, then the earlier first one.
bool moreSteps(const Trace& trace, const std::vector<SliceId>& a, const std::vector<SliceId>& b)
{
    if (a.size() != b.size())
        return a.size() > b.size();
    const auto first = [&](const std::vector<SliceId>& g) {
        TimeNs t = std::numeric_limits<TimeNs>::max();
        for (SliceId s : g)
            t = std::min(t, trace.slices().start[s]);
        return t;
    };
    return first(a) < first(b);
}

} // namespace

std::string stepPatternError(const std::string& pattern)
{
    try {
        std::regex re(pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        return std::string("not a valid regular expression: ") + e.what();
    }
    return {};
}

std::string FoundSteps::sourceName() const
{
    switch (source) {
    case StepSource::ProfilerStep: return "ProfilerStep";
    case StepSource::StepMarker: return "step-marker";
    case StepSource::User: return "user:" + detail;
    case StepSource::Labels: return "labels:" + detail;
    // detail: why the first step runs from the start ("" when it starts with the loop).
    case StepSource::OptimizerStep: return detail.empty() ? "Optimizer.step" : "Optimizer.step (" + detail + ")";
    case StepSource::None: break;
    }
    return "none";
}

FoundSteps profilerStepOrigin(const Trace& trace)
{
    FoundSteps origin;
    const std::string* marker = trace.metadataValue("stepMarker");
    origin.source = marker ? StepSource::StepMarker : StepSource::ProfilerStep;
    if (marker && marker->size() >= 2)
        origin.detail = marker->substr(1, marker->size() - 2); // the JSON string's text
    return origin;
}

StepFinder::StepFinder(StepRules rules)
    : m_rules(std::move(rules))
{
}

FoundSteps StepFinder::find(const Trace& trace) const
{
    const auto& slices = trace.slices();
    FoundSteps found;

    // 1. ProfilerStep#N (named by torch.profiler or by the collector's --step-marker).
    std::vector<SliceId> ranges;
    forEachHostSlice(trace, [&](SliceId s) {
        if (isHostRange(trace.classOf(s)) && profilerStepNumber(trace.str(slices.name[s])) >= 0)
            ranges.push_back(s);
    });
    if (!ranges.empty()) {
        found = profilerStepOrigin(trace);
        found.steps = inTimeOrder(trace, std::move(ranges), false, profilerStepNumber);
        return found;
    }

    // 2. The user's choice: a name, else a regex over whole names (tested once per name).
    if (!m_rules.userPattern.empty() && stepPatternError(m_rules.userPattern).empty()) {
        const std::regex re(m_rules.userPattern, std::regex::ECMAScript | std::regex::optimize);
        std::vector<std::int8_t> byName(trace.strings().size(), -1); // -1 unknown, 0 no, 1 yes
        std::vector<SliceId> exact, matched;
        forEachHostSlice(trace, [&](SliceId s) {
            const std::string_view name = trace.str(slices.name[s]);
            if (name == m_rules.userPattern)
                exact.push_back(s);
            std::int8_t& m = byName[slices.name[s]];
            if (m < 0)
                m = std::regex_match(name.begin(), name.end(), re) ? 1 : 0;
            if (m == 1)
                matched.push_back(s);
        });
        if (!matched.empty() || !exact.empty()) {
            found.steps = inTimeOrder(trace, exact.empty() ? std::move(matched) : std::move(exact), true);
            found.source = StepSource::User;
            found.detail = m_rules.userPattern;
            return found;
        }
    }

    // 3. Top-level labels with a counter; the template and thread with the most ranges win
    // (one thread's loop: in a merged file of several ranks, the first rank's).
    std::map<std::pair<std::uint32_t, std::string>, std::vector<SliceId>> byTemplate;
    forEachHostSlice(trace, [&](SliceId s) {
        if (trace.classOf(s) != SliceClass::UserAnnotation)
            return;
        const auto label = counterLabel(trace.str(slices.name[s]));
        if (label && isTopLevel(trace, s))
            byTemplate[{trace.trackOf(s), label->prefix}].push_back(s);
    });
    const std::vector<SliceId>* best = nullptr;
    const std::string* bestPrefix = nullptr;
    for (const auto& [key, group] : byTemplate) {
        if (group.size() >= 2 && (!best || moreSteps(trace, group, *best))) {
            best = &group;
            bestPrefix = &key.second;
        }
    }
    if (best) {
        found.steps = inTimeOrder(trace, *best, false, labelNumber);
        if (found.steps.size() >= 2) {
            found.source = StepSource::Labels;
            found.detail = *bestPrefix + "<N>";
            return found;
        }
        found.steps.clear();
    }

    // 4. Optimizer.step#...: each step runs from the previous one's end to the end of its
    // optimizer step. The first starts where the loop's first iteration did (the ops that
    // precede the second optimizer step, matched before the first), so that it leaves out the
    // set-up; failing that, at the first host event of its process (not a launcher's, in a
    // merged file), and the source says so.
    std::map<std::pair<std::uint32_t, std::string_view>, std::vector<SliceId>> byOptimizer;
    std::vector<TimeNs> firstHost(trace.processes().size(), std::numeric_limits<TimeNs>::max());
    forEachHostSlice(trace, [&](SliceId s) {
        const SliceClass c = trace.classOf(s);
        if (c == SliceClass::Other || c == SliceClass::Overhead)
            return;
        TimeNs& first = firstHost[trace.tracks()[trace.trackOf(s)].process];
        first = std::min(first, slices.start[s]);
        const std::string_view name = trace.str(slices.name[s]);
        if (isHostRange(c) && name.starts_with(kOptimizerStep))
            byOptimizer[{trace.trackOf(s), name}].push_back(s);
    });
    const std::vector<SliceId>* optimizer = nullptr;
    std::uint32_t optimizerTrack = 0;
    for (const auto& [key, group] : byOptimizer) {
        if (group.size() >= 2 && (!optimizer || moreSteps(trace, group, *optimizer))) {
            optimizer = &group;
            optimizerTrack = key.first;
        }
    }
    if (optimizer) {
        std::vector<FoundStep> ends = inTimeOrder(trace, *optimizer, true);
        const std::optional<TimeNs> loopStart =
            ends.size() >= 2 ? firstIterationStart(trace, ends[0].slice, ends[1].slice) : std::nullopt;
        if (!loopStart)
            found.detail = "first step from the start";
        TimeNs from = loopStart.value_or(firstHost[trace.tracks()[optimizerTrack].process]);
        for (FoundStep& step : ends) {
            step.start = std::min(from, step.start);
            from = step.end;
        }
        if (ends.size() >= 2) {
            found.steps = std::move(ends);
            found.source = StepSource::OptimizerStep;
        }
    }
    return found;
}

} // namespace ks::facts
