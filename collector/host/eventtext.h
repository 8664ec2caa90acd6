#pragma once
// The kineto-compatible JSON text of one collected event. Strings and args go through
// nlohmann::json (no hand escaping); ts/dur are written exactly by ks::formatMicroseconds,
// negative values clamped to 0 as kineto does.
#include "core/time.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ks::collector {

std::string completeEventText(std::string_view category, std::string_view name, std::int64_t pid,
                              std::int64_t tid, TimeNs start, TimeNs duration, const nlohmann::json& args);

std::string instantEventText(std::string_view category, std::string_view name, std::int64_t pid,
                             std::int64_t tid, TimeNs time, const nlohmann::json& args);

} // namespace ks::collector
