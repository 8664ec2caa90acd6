#include "collector/host/eventtext.h"

#include "core/writing/writer.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace ks::collector {
namespace {

std::string commonFields(char phase, QuotedJson category, QuotedJson name, std::int64_t pid, std::int64_t tid,
                         TimeNs time)
{
    std::string text = "{\"ph\":\"";
    text += phase;
    text += "\",\"cat\":";
    text += category.literal;
    text += ",\"name\":";
    text += name.literal;
    text += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
    text += ",\"ts\":" + formatMicroseconds(std::max<TimeNs>(time, 0));
    return text;
}

void appendArgs(std::string& text, const ArgsText& args)
{
    if (!args.empty())
        text += ",\"args\":" + args.text();
    text += '}';
}

} // namespace

std::string jsonQuoted(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ArgsText& ArgsText::raw(std::string_view key, std::string_view json)
{
    if (!m_text.empty())
        m_text += ',';
    m_text += '"';
    m_text += key;
    m_text += "\":";
    m_text += json;
    return *this;
}

ArgsText& ArgsText::add(std::string_view key, double value)
{
    if (!std::isfinite(value)) // JSON has no inf/nan: kineto writes them as strings
        return addText(key, std::isnan(value) ? "nan" : "inf");
    // The shortest text that reads back as the same double ("2" for 2.0, as nlohmann writes).
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return raw(key, std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
}

ArgsText& ArgsText::add(std::string_view key, const std::int32_t (&xyz)[3])
{
    std::string list = "[";
    for (int i = 0; i < 3; ++i) {
        if (i)
            list += ',';
        list += std::to_string(xyz[i]);
    }
    list += ']';
    return raw(key, list);
}

ArgsText& ArgsText::addText(std::string_view key, std::string_view value)
{
    return raw(key, jsonQuoted(value));
}

std::string completeEventText(QuotedJson category, QuotedJson name, std::int64_t pid, std::int64_t tid,
                              TimeNs start, TimeNs duration, const ArgsText& args)
{
    std::string text = commonFields('X', category, name, pid, tid, start);
    text += ",\"dur\":" + formatMicroseconds(std::max<TimeNs>(duration, 0));
    appendArgs(text, args);
    return text;
}

std::string instantEventText(QuotedJson category, QuotedJson name, std::int64_t pid, std::int64_t tid, TimeNs time,
                             const ArgsText& args)
{
    std::string text = commonFields('i', category, name, pid, tid, time);
    text += ",\"s\":\"t\"";
    appendArgs(text, args);
    return text;
}

} // namespace ks::collector
