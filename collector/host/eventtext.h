#pragma once
// The kineto-compatible JSON text of one collected event, built for every record on the
// receiving thread, so it is cheap: keys are our own literals (nothing to escape), numbers
// are written with std::to_chars (integers exactly, doubles shortest round-trip), and every
// string value goes through nlohmann::json for escaping. ts/dur are written exactly by
// ks::formatMicroseconds, negative values clamped to 0 as kineto does.
#include "core/model/time.h"

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ks::collector {

// The "args" object of an event.
class ArgsText {
public:
    template <class T>
        requires std::is_integral_v<T>
    ArgsText& add(std::string_view key, T value)
    {
        char buffer[24];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        return raw(key, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
    }
    ArgsText& add(std::string_view key, double value);
    ArgsText& add(std::string_view key, const std::int32_t (&xyz)[3]);
    ArgsText& addText(std::string_view key, std::string_view value);
    // `json` must already be valid JSON (the caller built it).
    ArgsText& addJson(std::string_view key, std::string_view json) { return raw(key, json); }

    bool empty() const { return m_text.empty(); }
    // "{...}", or "" when no argument was added.
    std::string text() const { return m_text.empty() ? std::string() : "{" + m_text + "}"; }

private:
    ArgsText& raw(std::string_view key, std::string_view json);
    std::string m_text;
};

// JSON string literal for `text` (escaped, invalid UTF-8 replaced).
std::string jsonQuoted(std::string_view text);

// A category or name already written as a JSON string literal: names repeat for every
// launch (and can be KB long), so callers escape each one once and reuse it.
struct QuotedJson {
    std::string_view literal;
};

std::string completeEventText(QuotedJson category, QuotedJson name, std::int64_t pid, std::int64_t tid,
                              TimeNs start, TimeNs duration, const ArgsText& args);

std::string instantEventText(QuotedJson category, QuotedJson name, std::int64_t pid, std::int64_t tid, TimeNs time,
                             const ArgsText& args);

} // namespace ks::collector
