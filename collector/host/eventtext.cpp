#include "collector/host/eventtext.h"

#include "core/writer.h"

#include <algorithm>

namespace ks::collector {
namespace {

std::string quoted(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string commonFields(char phase, std::string_view category, std::string_view name, std::int64_t pid,
                         std::int64_t tid, TimeNs time)
{
    std::string text = "{\"ph\":\"";
    text += phase;
    text += "\",\"cat\":" + quoted(category) + ",\"name\":" + quoted(name);
    text += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
    text += ",\"ts\":" + formatMicroseconds(std::max<TimeNs>(time, 0));
    return text;
}

void appendArgs(std::string& text, const nlohmann::json& args)
{
    if (!args.is_null() && !args.empty())
        text += ",\"args\":" + args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '}';
}

} // namespace

std::string completeEventText(std::string_view category, std::string_view name, std::int64_t pid,
                              std::int64_t tid, TimeNs start, TimeNs duration, const nlohmann::json& args)
{
    std::string text = commonFields('X', category, name, pid, tid, start);
    text += ",\"dur\":" + formatMicroseconds(std::max<TimeNs>(duration, 0));
    appendArgs(text, args);
    return text;
}

std::string instantEventText(std::string_view category, std::string_view name, std::int64_t pid,
                             std::int64_t tid, TimeNs time, const nlohmann::json& args)
{
    std::string text = commonFields('i', category, name, pid, tid, time);
    text += ",\"s\":\"t\"";
    appendArgs(text, args);
    return text;
}

} // namespace ks::collector
