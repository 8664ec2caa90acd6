#include "core/analysis/ranksjson.h"

namespace ks::analysis {

nlohmann::json ranksReportJson(const Workspace& ws, const RanksReport& r, const std::vector<FileError>& errors,
                               const AlignmentReport& alignment)
{
    std::vector<TraceIdentity> identities;
    std::vector<std::string> stepsSources;
    for (const auto& m : ws.members()) {
        identities.push_back(m.identity);
        stepsSources.push_back(m.stepsSource);
    }
    return ranksReportJson(identities, ws.warnings(), r, errors, alignment, stepsSources);
}

nlohmann::json ranksReportJson(const std::vector<TraceIdentity>& identities, const std::vector<std::string>& warnings,
                               const RanksReport& r, const std::vector<FileError>& errors,
                               const AlignmentReport& alignment, const std::vector<std::string>& stepsSources)
{
    nlohmann::json j;
    j["ranks"] = nlohmann::json::array();
    for (const auto& s : r.ranks) {
        const auto& id = identities[s.member];
        j["ranks"].push_back({{"rank", s.rank},
                              {"file", id.file},
                              {"label", id.label()},
                              {"world_size", id.worldSize},
                              {"rank_inferred", id.rankInferred},
                              {"steps", s.steps},
                              {"steps_source", s.member < stepsSources.size() ? stepsSources[s.member] : ""},
                              {"step_time_us", toMicros(s.stepTimeMean)},
                              {"kernel_time_us", toMicros(s.kernelTime)},
                              {"collective_time_us", toMicros(s.collectiveTime)},
                              {"collective_wait_us", toMicros(s.collectiveWait)},
                              {"idle_time_us", toMicros(s.idleTime)},
                              {"wait_caused_us", toMicros(s.waitCaused)},
                              {"last_arrivals", s.lastArrivals}});
    }
    j["collectives"] = nlohmann::json::array();
    for (const auto& c : r.matching.collectives) {
        nlohmann::json ranks = nlohmann::json::array();
        for (const auto& p : c.ranks)
            ranks.push_back({{"rank", p.rank},
                             {"start_us", toMicros(p.start)},
                             {"end_us", toMicros(p.end)},
                             {"wait_us", toMicros(p.wait)}});
        j["collectives"].push_back({{"process_group", c.processGroup},
                                    {"seq", c.seq},
                                    {"name", c.name},
                                    {"bytes", c.bytes},
                                    {"dtype", c.dtype},
                                    {"ranks", std::move(ranks)},
                                    {"last_rank", c.lastRank},
                                    {"max_wait_us", toMicros(c.maxWait)},
                                    {"complete", c.complete},
                                    {"mismatch", c.mismatch}});
    }
    const auto& v = r.straggler;
    j["straggler"] = {{"rank", v.rank ? nlohmann::json(*v.rank) : nlohmann::json(nullptr)},
                      {"wait_caused_us", toMicros(v.waitCaused)},
                      {"total_wait_us", toMicros(v.totalWait)},
                      {"share", v.share},
                      {"consistent", v.consistent},
                      {"balanced", v.balanced},
                      {"steps_led", v.stepsLed},
                      {"steps_with_wait", v.stepsWithWait},
                      {"worst_step", v.worstStep},
                      {"worst_step_wait_caused_us", toMicros(v.worstStepWaitCaused)},
                      {"verdict", v.text}};
    // The rule that gave the members' steps; "mixed" when they differ, "none" when no member
    // has steps. ("steps" below is the per-step waits; each rank has its count.)
    std::string source;
    for (std::size_t m = 0; m < stepsSources.size(); ++m) {
        if (stepsSources[m].empty() || stepsSources[m] == "none")
            continue;
        source = source.empty() || source == stepsSources[m] ? stepsSources[m] : "mixed";
    }
    j["steps_source"] = source.empty() ? "none" : source;
    j["steps"] = nlohmann::json::array();
    for (const auto& s : r.steps)
        j["steps"].push_back({{"step", s.step},
                              {"rank", s.rank},
                              {"wait_caused_us", toMicros(s.waitCaused)},
                              {"total_wait_us", toMicros(s.totalWait)}});
    j["alignment"] = {{"mode", alignment.mode == Alignment::AbsoluteClock ? "absolute_clock" : "step_starts"},
                      {"step", alignment.step},
                      {"start_spread_us", toMicros(alignment.startSpread)},
                      {"description", alignment.description}};
    j["warnings"] = warnings;
    for (const auto& w : r.matching.warnings)
        j["warnings"].push_back(w);
    j["errors"] = nlohmann::json::array();
    for (const auto& e : errors)
        j["errors"].push_back({{"file", e.file}, {"message", e.message}});
    j["match_ms"] = r.matching.matchSeconds * 1000.0;
    return j;
}

} // namespace ks::analysis
