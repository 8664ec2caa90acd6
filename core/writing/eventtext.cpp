#include "core/writing/eventtext.h"

#include "core/loading/jsonscan.h"
#include "core/model/utf8.h"
#include "core/writing/writer.h"

#include <algorithm>
#include <cmath>

namespace ks {

using Json = nlohmann::ordered_json;

std::string dumpJson(const Json& value)
{
    // Invalid UTF-8 in names (older kineto) becomes U+FFFD instead of throwing.
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The raw text of the top-level "args" value of one event ("" if none or unreadable).
std::string_view rawArgs(std::string_view event)
{
    json::Cursor c{event.data(), event.data() + event.size()};
    if (!json::skipSpace(c) || *c.p != '{')
        return {};
    ++c.p;
    std::string scratch;
    while (json::skipSpace(c) && *c.p != '}') {
        std::string_view key;
        if (json::parseString(c, key, scratch) != json::Status::Ok || !json::skipSpace(c) || *c.p != ':')
            return {};
        ++c.p;
        if (!json::skipSpace(c))
            return {};
        const char* valueStart = c.p;
        if (json::skipValue(c) != json::Status::Ok)
            return {};
        if (key == "args")
            return {valueStart, std::size_t(c.p - valueStart)};
        if (json::skipSpace(c) && *c.p == ',')
            ++c.p;
    }
    return {};
}

std::string jsonQuoted(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

EventText& EventText::time(std::string_view key, TimeNs ns)
{
    separate(key);
    m_text += formatMicroseconds(ns);
    return *this;
}

EventText& EventText::add(std::string_view key, double value)
{
    if (!std::isfinite(value)) // JSON has no inf/nan: kineto writes them as strings
        return addText(key, std::isnan(value) ? "nan" : "inf");
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return validated(key, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

EventText& EventText::add(std::string_view key, const std::int32_t (&xyz)[3])
{
    std::string list = "[";
    for (int i = 0; i < 3; ++i) {
        if (i)
            list += ',';
        list += std::to_string(xyz[i]);
    }
    list += ']';
    return validated(key, list);
}

namespace {

EventText collectedEvent(std::string_view phase, std::string_view quotedCategory, std::string_view quotedName,
                         std::int64_t pid, std::int64_t tid, TimeNs time)
{
    EventText text;
    text.validated("ph", phase).validated("cat", quotedCategory).validated("name", quotedName);
    text.add("pid", pid).add("tid", tid).time("ts", std::max<TimeNs>(time, 0));
    return text;
}

std::string withArgs(EventText& text, const EventText& args)
{
    if (!args.empty())
        text.validated("args", args.text());
    return text.finish();
}

} // namespace

std::string completeEventText(std::string_view quotedCategory, std::string_view quotedName, std::int64_t pid,
                              std::int64_t tid, TimeNs start, TimeNs duration, const EventText& args)
{
    EventText text = collectedEvent("\"X\"", quotedCategory, quotedName, pid, tid, start);
    text.time("dur", std::max<TimeNs>(duration, 0));
    return withArgs(text, args);
}

std::string instantEventText(std::string_view quotedCategory, std::string_view quotedName, std::int64_t pid,
                             std::int64_t tid, TimeNs time, const EventText& args)
{
    EventText text = collectedEvent("\"i\"", quotedCategory, quotedName, pid, tid, time);
    text.validated("s", "\"t\"");
    return withArgs(text, args);
}

namespace {

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool isDelimiter(char c)
{
    return c == ',' || c == '}' || c == ']' || c == ':' || c == '"' || c == '{' || c == '[' || json::isSpace(c);
}

// One escape at text[i] == '\\' (the text is valid UTF-8 already): copied when JSON has it,
// else U+FFFD. Lone surrogates were replaced by sanitizedJson(). Returns the next index.
std::size_t repairEscape(std::string_view text, std::size_t i, std::string& out)
{
    if (i + 1 >= text.size()) {
        out += "\\ufffd";
        return text.size();
    }
    const char e = text[i + 1];
    if (e == 'u') {
        const bool hex = i + 6 <= text.size() && isHex(text[i + 2]) && isHex(text[i + 3]) && isHex(text[i + 4])
                      && isHex(text[i + 5]);
        if (!hex) {
            out += "\\ufffd"; // as the loader reads it: the characters after "\u" stay
            return i + 2;
        }
        out.append(text.substr(i, 6));
        return i + 6;
    }
    if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        out.append(text.substr(i, 2));
        return i + 2;
    }
    out += "\\ufffd"; // with the whole escaped character, however many bytes it has
    std::size_t next = i + 2;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80)
        ++next;
    return next;
}

} // namespace

RepairedJson repairJson(std::string_view source)
{
    std::string utf8Repaired;
    const std::string_view text = utf8::validJsonView(source, utf8Repaired);
    RepairedJson out;
    out.text.reserve(text.size());
    bool inString = false;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                i = repairEscape(text, i, out.text);
                continue;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                static constexpr char kHex[] = "0123456789abcdef";
                out.text += "\\u00";
                out.text += kHex[(c >> 4) & 0xF];
                out.text += kHex[c & 0xF];
            } else {
                out.text += c;
            }
            inString = c != '"';
            ++i;
            continue;
        }
        if (c == ',') { // the loader skips repeated and trailing commas
            std::size_t next = i + 1;
            while (next < text.size() && json::isSpace(text[next]))
                ++next;
            if (next < text.size() && text[next] != ',' && text[next] != '}' && text[next] != ']')
                out.text += c;
            ++i;
            continue;
        }
        if (c == '"' || isDelimiter(c)) {
            inString = c == '"';
            out.text += c;
            ++i;
            continue;
        }
        // A scalar token: numbers the loader reads that JSON has not (NaN, Infinity, inf) → null;
        // other words the loader reads by their spelling (numeric names) → that spelling quoted.
        std::size_t end = i;
        while (end < text.size() && !isDelimiter(text[end]))
            ++end;
        const std::string_view token = text.substr(i, end - i);
        double value = 0;
        if (json::parseDouble(token, value) && !std::isfinite(value)) {
            out.text += "null";
            out.nulledNonFinite = true;
        } else if (nlohmann::json::accept(token)) {
            out.text += token;
        } else {
            out.text += dumpJson(std::string(token));
        }
        i = end;
    }
    return out;
}

} // namespace ks
