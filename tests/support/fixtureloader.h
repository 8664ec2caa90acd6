#pragma once
// Loads fixture traces and the plugin's reference numbers for the GPU analysis tests.
#include "core/loading/loader.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <fstream>
#include <map>
#include <memory>
#include <string>

namespace ks::testing {

// Fixtures are loaded once per test executable: big takes a moment.
inline std::shared_ptr<const Trace> fixtureTrace(const std::string& name)
{
    static std::map<std::string, std::shared_ptr<const Trace>> cache;
    auto& slot = cache[name];
    if (!slot) {
        const LoadResult result = loadTraceFile(std::string(KS_TEST_DATA) + "/" + name + ".pt.trace.json.gz");
        slot = result.trace;
    }
    return slot;
}

inline const nlohmann::json& pluginReference()
{
    static const nlohmann::json reference = [] {
        std::ifstream in(std::string(KS_TEST_DATA) + "/reference/plugin_gpu_metrics.json");
        return nlohmann::json::parse(in);
    }();
    return reference;
}

// Reference times are the trace's µs as float64; ours are integer ns.
inline double nsToUs(std::int64_t ns) { return double(ns) / 1000.0; }

} // namespace ks::testing
