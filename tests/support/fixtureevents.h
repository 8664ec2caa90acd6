#pragma once
// The insights tests' independent view of a fixture: its raw traceEvents through nlohmann's
// DOM (the loader never uses it), with the ProfilerStep ranges to count "inside steps".
#include "testtraces.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kstest {

struct FixtureEvents {
    std::vector<nlohmann::json> slices; // complete ("X") events
    std::vector<std::pair<double, double>> steps; // ProfilerStep# user_annotation [ts, ts + dur] (µs)

    explicit FixtureEvents(const char* name)
    {
        const auto doc = nlohmann::json::parse(gunzipFile(fixture(name)));
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("ph", "") != "X")
                continue;
            slices.push_back(e);
            if (e.value("cat", "") == "user_annotation" && e.value("name", "").rfind("ProfilerStep#", 0) == 0)
                steps.emplace_back(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
        }
    }

    bool insideStep(const nlohmann::json& e) const
    {
        const double ts = e["ts"].get<double>(), end = ts + e.value("dur", 0.0);
        for (const auto& [a, b] : steps) {
            if (a <= ts && end <= b)
                return true;
        }
        return false;
    }

    // Slices of a category whose name satisfies `pred`, inside the steps when there are any.
    template <typename Pred>
    std::vector<nlohmann::json> select(const std::string& cat, Pred pred) const
    {
        std::vector<nlohmann::json> out;
        for (const auto& e : slices) {
            if (e.value("cat", "") == cat && pred(e.value("name", "")) && (steps.empty() || insideStep(e)))
                out.push_back(e);
        }
        return out;
    }
};

} // namespace kstest
