#pragma once
// The rank summary file (format version 2, docs/rank-summaries.md): JSON whose per-collective
// and per-step data are columns (arrays of numbers, times as deltas) and whose collective kinds
// (name, group, sizes, stream) are listed once, so that it is small and read by SAX straight
// into RankSummaryFile. A reader refuses another format version with a message naming both.
#include "core/analysis/ranksummaryfile.h"

#include <string>
#include <string_view>
#include <variant>

namespace ks::analysis {

nlohmann::json rankSummaryToJson(const RankSummaryFile& summary);
// The summary, or why not ("WHERE: not valid JSON", another format or version, malformed).
// The view is skipped (RankSummaryFile::view stays empty).
std::variant<RankSummaryFile, std::string> rankSummaryFromText(std::string_view text, const std::string& where);
std::variant<RankSummaryFile, std::string> readRankSummary(const std::string& path);

} // namespace ks::analysis
