#pragma once
// The summary behind `kinetoscope-cli info` (and the GUI's trace properties).
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace ks {

// Events per kind, for round-trip checks and `info`: what the model draws (slices, async
// ranges, instants, flows, counter samples) and the entries it keeps verbatim, by kind
// (object snapshots, legacy async, samples, ...). Save As keeps every count.
std::vector<std::pair<std::string, std::uint64_t>> entryKinds(const Trace& trace);

nlohmann::json traceInfoJson(const Trace& trace, const std::string& path);
std::string traceInfoText(const Trace& trace, const std::string& path);

} // namespace ks
