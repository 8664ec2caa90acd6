#pragma once
// Helpers for writing traceEvents entries as text: one entry built field by field with exact
// times, the raw args of a source event, and repairs that make source text valid JSON.
#include "core/model/time.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ks {

// nlohmann's dump; invalid UTF-8 in names (older kineto) becomes U+FFFD instead of throwing.
std::string dumpJson(const nlohmann::ordered_json& value);

// The raw text of the top-level "args" value of one event ("" if none or unreadable).
std::string_view rawArgs(std::string_view event);

// Source text that the loader reads but strict JSON (nlohmann) rejects, made valid: invalid
// UTF-8 and lone surrogate escapes become U+FFFD, so do broken escapes; raw control characters
// in strings are escaped; NaN and Infinity (outside strings) become null, so that every other
// reader still gets the entry.
struct RepairedJson {
    std::string text;
    bool nulledNonFinite = false;
};
RepairedJson repairJson(std::string_view text);

// One traceEvents entry. Variable parts go through nlohmann's dump; ts and dur are inserted
// as exact fixed-point numbers, which a JSON value cannot carry without passing through double.
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

} // namespace ks
