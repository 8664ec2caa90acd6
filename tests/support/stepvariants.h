#pragma once
// train_baseline (ProfilerStep#3..#5, one Optimizer.step#AdamW.step in each) rewritten the way
// users' traces come: its step ranges renamed to step0.., "Iteration N", removed so that only
// Optimizer.step is left, or removed with the optimizer ranges too. Host ranges and their GPU
// copies are rewritten alike; everything else is the real trace.
#include "testtraces.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <string>

namespace kstest {

// `rename(n)` gives ProfilerStep#n's new name, "" to drop it; dropOptimizer drops Optimizer.step.
inline nlohmann::json baselineWithSteps(const std::function<std::string(long long)>& rename, bool dropOptimizer = false)
{
    auto doc = nlohmann::json::parse(gunzipFile(fixture("train_baseline")));
    auto& events = doc["traceEvents"];
    nlohmann::json kept = nlohmann::json::array();
    for (auto& e : events) {
        const std::string name = e.value("name", "");
        if (e.value("ph", "") == "X" && name.starts_with("ProfilerStep#")) {
            const std::string renamed = rename(std::stoll(name.substr(13)));
            if (renamed.empty())
                continue;
            e["name"] = renamed;
        } else if (dropOptimizer && e.value("ph", "") == "X" && name.starts_with("Optimizer.step#")) {
            continue;
        }
        kept.push_back(std::move(e));
    }
    events = std::move(kept);
    return doc;
}

// ProfilerStep#3..#5 -> <prefix>0..2 (a plain loop's counter from 0).
inline nlohmann::json baselineWithLabels(const std::string& prefix)
{
    return baselineWithSteps([&](long long n) { return prefix + std::to_string(n - 3); });
}

// The ProfilerStep#N ranges of train_baseline's host thread: [ts, ts + dur] in µs.
inline std::vector<std::pair<double, double>> baselineStepRanges()
{
    std::vector<std::pair<double, double>> ranges;
    const auto doc = nlohmann::json::parse(gunzipFile(fixture("train_baseline")));
    for (const auto& e : doc["traceEvents"]) {
        if (e.value("ph", "") == "X" && e.value("cat", "") == "user_annotation"
            && e.value("name", "").starts_with("ProfilerStep#"))
            ranges.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
    }
    return ranges;
}

inline void writeJson(const nlohmann::json& doc, const std::string& path) { std::ofstream(path) << doc.dump(); }

} // namespace kstest
