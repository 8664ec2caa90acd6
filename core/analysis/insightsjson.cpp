#include "core/analysis/insightsjson.h"

namespace ks::analysis {

nlohmann::ordered_json insightsToJson(const std::vector<Insight>& insights,
                                      const std::vector<std::shared_ptr<const facts::TraceFacts>>& traces,
                                      const std::vector<std::string>& files)
{
    const auto us = [](TimeNs ns) { return double(ns) / 1000.0; };
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Insight& insight : insights) {
        const Trace& trace = *traces.at(std::size_t(insight.traceIndex))->trace;
        nlohmann::ordered_json evidence = nlohmann::ordered_json::array();
        for (const Evidence& e : insight.evidence) {
            nlohmann::ordered_json j{{"name", e.name},
                                     {"ts_us", us(e.start)},
                                     {"dur_us", us(e.duration)},
                                     {"track", e.track == kNoIndex ? std::string() : trace.trackDisplayName(e.track)}};
            if (!e.context.empty())
                j["context"] = e.context;
            if (e.bytes >= 0)
                j["bytes"] = e.bytes;
            evidence.push_back(std::move(j));
        }
        nlohmann::ordered_json figures = nlohmann::ordered_json::object();
        for (const auto& [key, value] : insight.figures)
            figures[key] = value;
        nlohmann::ordered_json j{{"id", insight.id},
                                 {"severity", std::string(severityName(insight.severity))},
                                 {"title", insight.title},
                                 {"time_us", insight.timeUs},
                                 {"share", insight.share},
                                 {"evidence", std::move(evidence)},
                                 {"advice", insight.advice},
                                 {"explanation", insight.explanation},
                                 {"figures", std::move(figures)},
                                 {"trace", insight.traceIndex}};
        if (!insight.cause.empty())
            j["cause"] = insight.cause;
        if (std::size_t(insight.traceIndex) < files.size() && !files[std::size_t(insight.traceIndex)].empty())
            j["file"] = files[std::size_t(insight.traceIndex)];
        list.push_back(std::move(j));
    }
    // The steps "per step" divides by: the first trace's at the top, each trace's in "traces".
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    nlohmann::ordered_json perTrace = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < traces.size(); ++i) {
        nlohmann::ordered_json t{{"steps", traces[i]->hasSteps() ? traces[i]->windows.steps.size() : 0},
                                 {"steps_source", traces[i]->windows.sourceName},
                                 {"mean_step_us", double(traces[i]->meanStepTime()) / 1000.0}};
        if (i < files.size() && !files[i].empty())
            t["file"] = files[i];
        if (i == 0) {
            out["steps"] = t["steps"];
            out["steps_source"] = t["steps_source"];
        }
        perTrace.push_back(std::move(t));
    }
    out["insights"] = std::move(list);
    out["traces"] = std::move(perTrace);
    return out;
}

} // namespace ks::analysis
