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
    return nlohmann::ordered_json{{"insights", std::move(list)}};
}

} // namespace ks::analysis
