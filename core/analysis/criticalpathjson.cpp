// `kinetoscope-cli critical-path --json` and the Python module's critical_path().
#include "core/analysis/criticalpathjson.h"

namespace ks::analysis {

namespace {

nlohmann::json breakdownJson(const CriticalPath& path)
{
    nlohmann::json j = nlohmann::json::object();
    for (int k = 0; k < kPathKindCount; ++k)
        j[std::string(pathKindName(PathKind(k)))] = toMicros(path.breakdown[std::size_t(k)]);
    return j;
}

nlohmann::json segmentsJson(const CriticalPath& path)
{
    nlohmann::json segments = nlohmann::json::array();
    for (const auto& s : path.segments) {
        nlohmann::json j = {{"kind", pathKindName(s.kind)},
                            {"name", s.name},
                            {"start_us", toMicros(s.start)},
                            {"dur_us", toMicros(s.duration)},
                            {"track", s.track}};
        if (!s.family.empty())
            j["family"] = s.family;
        segments.push_back(std::move(j));
    }
    return segments;
}

} // namespace

void appendStepWarnings(const std::vector<StepCriticalPath>& steps, std::vector<std::string>& warnings)
{
    for (const auto& s : steps)
        if (s.warnings > 0)
            warnings.push_back("step " + std::to_string(s.step) + ": " + std::to_string(s.warnings)
                               + " dependencies against time or in cycles were ignored (broken flows or clock skew)");
}

nlohmann::json criticalPathReportJson(const std::vector<StepCriticalPath>& steps, const std::vector<WhatIf>& whatIfs,
                                      const std::vector<std::string>& warnings)
{
    nlohmann::json j;
    j["steps"] = nlohmann::json::array();
    for (const auto& s : steps) {
        nlohmann::json step = {{"step", s.step},
                               {"start_us", toMicros(s.start)},
                               {"end_us", toMicros(s.end)},
                               {"length_us", toMicros(s.path.length)},
                               {"breakdown", breakdownJson(s.path)},
                               {"segments", segmentsJson(s.path)},
                               {"warnings", s.warnings}};
        if (s.whatIf) {
            step["what_if_length_us"] = toMicros(s.whatIf->length);
            step["what_if_breakdown"] = breakdownJson(*s.whatIf);
            step["what_if_segments"] = segmentsJson(*s.whatIf);
        }
        j["steps"].push_back(std::move(step));
    }
    j["what_if"] = nlohmann::json::array();
    for (const auto& w : whatIfs)
        j["what_if"].push_back(w.text());
    j["warnings"] = warnings;
    return j;
}

} // namespace ks::analysis
