#include "core/writing/eventtext.h"

#include "core/loading/jsonscan.h"
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

// Invalid UTF-8 (older kineto names) becomes U+FFFD, so that the text is valid JSON again.
std::string repairUtf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned c = *p;
        int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
        bool valid = extra >= 0 && end - p > extra;
        for (int i = 1; valid && i <= extra; ++i)
            valid = (p[i] & 0xC0) == 0x80;
        if (!valid) {
            out += "\xEF\xBF\xBD";
            ++p;
            continue;
        }
        out.append(reinterpret_cast<const char*>(p), static_cast<std::size_t>(extra + 1));
        p += extra + 1;
    }
    return out;
}

// NaN and Infinity (outside strings) are not JSON: they become null, so that every other
// reader still gets the entry. Returns whether anything changed.
bool nullNonFiniteNumbers(std::string& text)
{
    std::string out;
    bool inString = false, changed = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"')
            inString = true;
        const std::string_view rest(text.data() + i, text.size() - i);
        bool replaced = false;
        for (const std::string_view token : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
            if (!replaced && rest.starts_with(token)) {
                out += "null";
                i += token.size() - 1;
                changed = replaced = true;
            }
        }
        if (!replaced)
            out += c;
    }
    if (changed)
        text = std::move(out);
    return changed;
}

} // namespace ks
