#pragma once
// Helpers for writing traceEvents entries as text: one entry built field by field with exact
// times, the raw args of a source event, and repairs that make source text valid JSON. The
// one builder of kineto JSON entries: the writer (Save As, convert) and the collector (one
// entry per received record) both use EventText.
#include "core/model/time.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ks {

// nlohmann's dump; invalid UTF-8 in names (older kineto) becomes U+FFFD instead of throwing.
std::string dumpJson(const nlohmann::ordered_json& value);

// The raw text of the top-level "args" value of one event ("" if none or unreadable).
std::string_view rawArgs(std::string_view event);

// Source text that the loader reads but strict JSON (nlohmann) rejects, re-emitted token by
// token as the loader reads it (core/loading/jsonscan), so the strict JSON means what the
// loader read: invalid UTF-8, lone surrogate and broken escapes become U+FFFD; raw control
// characters are escaped; missing commas are added and repeated ones dropped; NaN and Infinity
// become null, numbers only the loader reads ("1.", "01") their value, other bare words strings
// (null where EventParser reads no value from one: ph, ts, dur, ids, flags), and numbers it
// reads no ts, dur or id from null ("ts":0e401, a pid of 2^64-1). A key the entry repeats is
// written once, with the member EventParser's reading came from.
// A nested value not even that reads is kept as the string of its text. Not JSON (discarded by
// the caller) where the loader could not read the entry either.
struct RepairedJson {
    std::string text;
    bool nulledNonFinite = false;
};
RepairedJson repairJson(std::string_view source);

// Whether `text` is JSON as nlohmann accepts it, less what its lexer lets through: it ends the
// input at a NUL and skips a leading UTF-8 BOM ("1\0" and "\xEF\xBB\xBF1" pass as 1), so
// such text copied whole would not be JSON.
bool isStrictJson(std::string_view text);

// JSON string literal for `text` (escaped, invalid UTF-8 replaced).
std::string jsonQuoted(std::string_view text);

// One traceEvents entry, or one JSON object inside it (args). field() writes any JSON value
// through nlohmann's dump; add() writes typed values with no JSON value in between, cheap
// enough for every record the collector receives: integers exactly, doubles shortest
// round-trip ("2" for 2.0), NaN and infinities as the strings kineto writes. ts and dur are
// inserted as exact fixed-point numbers, which a JSON value cannot carry without passing
// through double.
class EventText {
public:
    EventText& field(std::string_view key, const nlohmann::ordered_json& value)
    {
        separate(key);
        m_text += dumpJson(value);
        return *this;
    }
    // JSON text already validated by nlohmann (args copied byte for byte from the source).
    EventText& validated(std::string_view key, std::string_view jsonText)
    {
        separate(key);
        m_text += jsonText;
        return *this;
    }
    EventText& time(std::string_view key, TimeNs ns);

    template <class T>
    requires std::is_integral_v<T> EventText& add(std::string_view key, T value)
    {
        char buffer[24];
        const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
        return validated(key, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
    }
    EventText& add(std::string_view key, double value);
    EventText& add(std::string_view key, const std::int32_t (&xyz)[3]);
    EventText& addText(std::string_view key, std::string_view value) { return validated(key, jsonQuoted(value)); }

    bool empty() const { return m_text.size() == 1; } // no field yet
    std::string text() const { return m_text + '}'; }
    std::string finish() { return std::move(m_text) + '}'; }

private:
    void separate(std::string_view key)
    {
        m_text += m_text.size() > 1 ? ",\"" : "\"";
        m_text += key; // keys are fixed ASCII identifiers of the format
        m_text += "\":";
    }
    std::string m_text = "{";
};

// The entries of collected events, in kineto's field order. Category and name are JSON
// string literals (jsonQuoted): names repeat for every launch (and can be KB long), so the
// collector escapes each one once. Times before the session start are written as 0, as
// kineto does.
std::string completeEventText(std::string_view quotedCategory, std::string_view quotedName, std::int64_t pid,
                              std::int64_t tid, TimeNs start, TimeNs duration, const EventText& args);
std::string instantEventText(std::string_view quotedCategory, std::string_view quotedName, std::int64_t pid,
                             std::int64_t tid, TimeNs time, const EventText& args);

} // namespace ks
