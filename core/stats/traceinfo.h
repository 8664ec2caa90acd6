#pragma once
// The summary behind `kinetoscope-cli info` (and the GUI's trace properties).
#include "core/model/trace.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ks {

nlohmann::json traceInfoJson(const Trace& trace, const std::string& path);
std::string traceInfoText(const Trace& trace, const std::string& path);

} // namespace ks
