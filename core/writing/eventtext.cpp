#include "core/writing/eventtext.h"

#include "core/loading/jsonscan.h"
#include "core/model/timelimits.h"
#include "core/writing/writer.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

bool isStrictJson(std::string_view text)
{
    return text.find('\0') == std::string_view::npos && !text.starts_with("\xEF\xBB\xBF")
        && nlohmann::json::accept(text);
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

// Re-emits source text token by token with the loader's own scanner (core/loading/jsonscan),
// so that the strict JSON written is what the loader read, however the source strayed from
// JSON: members need no commas and repeated ones are skipped (as EventParser does), strings
// are decoded as the loader decodes them (broken escapes and lone surrogates → U+FFFD) and
// re-escaped, scalars are read by their spelling (NaN/Infinity → null, "1." → 1, other words
// → a string, or null where the field parser reads no value). The entry's own members are
// written once per key, as EventParser read them (a bad ts before a good one still hides it). A nested value that even this cannot read (the loader skips nested values by
// their brackets alone) is kept as the string of its source text; so is one nested deeper
// than kMaxNesting (recursion is bounded).
class StrictReEmitter {
public:
    explicit StrictReEmitter(std::string_view text)
        : m_c{text.data(), text.data() + text.size()}
    {
    }

    RepairedJson run()
    {
        if (!value(0))
            m_out.text = "!"; // not JSON: the caller discards it, as the loader did
        return std::move(m_out);
    }

private:
    static constexpr int kMaxNesting = 256;

    // `entryKey`: the key of the entry member this is the value of, if it is one.
    bool value(int depth, std::string_view entryKey = {})
    {
        if (!json::skipSpace(m_c))
            return false;
        const char first = *m_c.p;
        if (first == '"')
            return string();
        if (first != '{' && first != '[')
            return scalar(entryKey);
        const char* start = m_c.p;
        const std::size_t outStart = m_out.text.size();
        if (depth < kMaxNesting && container(depth))
            return true;
        if (depth == 0)
            return false;
        m_c.p = start; // kept as its source text
        if (json::skipValue(m_c) != json::Status::Ok)
            return false;
        m_out.text.resize(outStart);
        m_out.text += jsonQuoted(std::string_view(start, static_cast<std::size_t>(m_c.p - start)));
        return true;
    }

    bool container(int depth)
    {
        const bool isObject = *m_c.p == '{';
        if (isObject && depth == 0)
            return entry();
        const char close = isObject ? '}' : ']';
        m_out.text += *m_c.p++;
        bool first = true;
        while (json::skipSpace(m_c)) {
            if (*m_c.p == close) {
                m_out.text += *m_c.p++;
                return true;
            }
            if (*m_c.p == ',') {
                ++m_c.p;
                continue;
            }
            if (!first)
                m_out.text += ',';
            first = false;
            if (isObject && !key())
                return false;
            if (!value(depth + 1))
                return false;
        }
        return false;
    }

    // `"key":` re-emitted; the decoded key is left in m_key.
    bool key()
    {
        std::string_view decoded;
        if (*m_c.p != '"' || json::parseString(m_c, decoded, m_scratch) != json::Status::Ok || !json::skipSpace(m_c)
            || *m_c.p != ':')
            return false;
        ++m_c.p;
        m_key.assign(decoded);
        m_out.text += jsonQuoted(decoded);
        m_out.text += ':';
        return true;
    }

    // The entry's own members, each key written once: strict JSON keeps the last of a repeated
    // key, EventParser does not always (see entryFieldWins).
    bool entry()
    {
        ++m_c.p;
        std::vector<Member> members;
        while (json::skipSpace(m_c)) {
            if (*m_c.p == '}') {
                ++m_c.p;
                m_out.text += '{';
                for (std::size_t i = 0; i < members.size(); ++i) {
                    if (i)
                        m_out.text += ',';
                    m_out.text += members[i].text;
                }
                m_out.text += '}';
                return true;
            }
            if (*m_c.p == ',') {
                ++m_c.p;
                continue;
            }
            const std::size_t start = m_out.text.size();
            if (!key() || !json::skipSpace(m_c))
                return false;
            const std::string key = m_key;
            const char* valueStart = m_c.p;
            if (!value(1, key))
                return false;
            Member member{key, m_out.text.substr(start),
                          entryFieldReadable(key, std::string_view(valueStart, std::size_t(m_c.p - valueStart)))};
            m_out.text.resize(start);
            const auto same =
                std::find_if(members.begin(), members.end(), [&](const Member& m) { return m.key == member.key; });
            if (same == members.end())
                members.push_back(std::move(member));
            else if (entryFieldWins(member, *same))
                *same = std::move(member);
        }
        return false;
    }

    bool string()
    {
        std::string_view decoded;
        if (json::parseString(m_c, decoded, m_scratch) != json::Status::Ok)
            return false;
        m_out.text += jsonQuoted(decoded);
        return true;
    }

    bool scalar(std::string_view entryKey)
    {
        std::string_view token;
        const json::Status scanned = json::scanScalar(m_c, token);
        if (scanned == json::Status::Incomplete) { // a top-level scalar ends with the text
            token = std::string_view(m_c.p, static_cast<std::size_t>(m_c.end - m_c.p));
            m_c.p = m_c.end;
        } else if (scanned != json::Status::Ok) {
            return false;
        }
        std::int64_t i = 0;
        std::uint64_t u = 0;
        double d = 0;
        const bool isNumber = json::parseDouble(token, d);
        if (isNumber && !std::isfinite(d)) {
            m_out.text += "null";
            m_out.nulledNonFinite = true;
            // NOLINTNEXTLINE(bugprone-branch-clone): null for another reason than the bare-word case below
        } else if (!entryKey.empty() && !entryFieldReadable(entryKey, token)) {
            // A time or id EventParser reads no value from reads as none again only as null:
            // a number keeps its meaning but not its spelling through the writer's DOM
            // ("ts":0e401, out of range, becomes 0.0).
            m_out.text += "null";
        } else if (isStrictJson(token))
            m_out.text += token;
        else if (json::parseInt64(token, i))
            m_out.text += std::to_string(i);
        else if (json::parseUint64(token, u))
            m_out.text += std::to_string(u);
        else if (isNumber)
            m_out.text += dumpJson(d);
        else if (readsAsNoValue(entryKey, token))
            m_out.text += "null";
        else
            m_out.text += jsonQuoted(token);
        return true;
    }

    // A bare word (no number, no literal) that EventParser reads as no value under this key
    // (ts, ids, flags) or as a phase that is no letter: as a string it would read as one.
    static bool readsAsNoValue(std::string_view entryKey, std::string_view token)
    {
        if (entryKey == "ph")
            return !token.empty(); // an empty one reads as no phase, as "" does
        return entryKey == "ts" || entryKey == "dur" || entryKey == "pid" || entryKey == "tid" || entryKey == "id"
            || entryKey == "bind_id" || entryKey == "flow_in" || entryKey == "flow_out";
    }

    struct Member {
        std::string key;
        std::string text; // `"key":value`, re-emitted
        bool fieldReadable; // whether EventParser reads a value from it
    };

    // Whether EventParser reads a value from this entry member (source text of the value):
    // for ts and dur a time, for pid, tid, id and bind_id an id; other keys always.
    static bool entryFieldReadable(std::string_view key, std::string_view value)
    {
        const bool time = key == "ts" || key == "dur";
        const bool flowId = key == "id" || key == "bind_id";
        if (!time && !flowId && key != "pid" && key != "tid")
            return true;
        if (value.empty() || value[0] == '{' || value[0] == '[')
            return false;
        std::string scratch;
        std::string_view token = value;
        if (value[0] == '"') {
            json::Cursor c{value.data(), value.data() + value.size()};
            if (json::parseString(c, token, scratch) != json::Status::Ok)
                return false;
            if (!time)
                return true; // text ids
        } else {
            json::Cursor c{value.data(), value.data() + value.size()};
            if (json::scanScalar(c, token) == json::Status::Incomplete)
                token = value;
        }
        std::int64_t i = 0;
        std::uint64_t u = 0;
        if (time)
            return json::decimalToScaled(token, 3, i) && i >= -kMaxTimeNs && i <= kMaxTimeNs;
        return json::parseInt64(token, i) || (flowId && json::parseUint64(token, u));
    }

    // Which of two members with one key decides what EventParser reads: the last, except that
    // an unreadable ts or dur hides the entry whatever follows it, and an unreadable id is
    // ignored (the id read before it stays).
    static bool entryFieldWins(const Member& later, const Member& earlier)
    {
        if (later.key == "ts" || later.key == "dur")
            return earlier.fieldReadable;
        return later.fieldReadable || !earlier.fieldReadable;
    }

    json::Cursor m_c;
    RepairedJson m_out;
    std::string m_scratch;
    std::string m_key; // the key key() read last
};

} // namespace

RepairedJson repairJson(std::string_view source) { return StrictReEmitter(source).run(); }

} // namespace ks
