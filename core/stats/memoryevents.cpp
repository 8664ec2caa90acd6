#include "core/stats/memoryevents.h"

#include "core/loading/jsonscan.h"

#include <algorithm>
#include <charconv>
#include <string>

namespace ks {

namespace {

// Calls member(key, cursor) at each value of the JSON object at the cursor; member parses or
// skips the value. Error on anything that is not a well-formed object.
template <class Member>
json::Status forEachMember(json::Cursor& c, Member member)
{
    using json::Status;
    std::string scratch;
    if (!json::skipSpace(c) || *c.p != '{')
        return Status::Error;
    ++c.p;
    for (bool first = true;; first = false) {
        if (!json::skipSpace(c))
            return Status::Error;
        if (*c.p == '}') {
            ++c.p;
            return Status::Ok;
        }
        if (!first && *c.p++ != ',')
            return Status::Error;
        std::string_view key;
        if (!json::skipSpace(c) || *c.p != '"' || json::parseString(c, key, scratch) != Status::Ok)
            return Status::Error;
        if (!json::skipSpace(c) || *c.p++ != ':' || !json::skipSpace(c))
            return Status::Error;
        if (member(key, c) != Status::Ok)
            return Status::Error;
    }
}

struct MemoryArgs {
    std::int64_t bytes = 0;
    std::int64_t deviceType = 0;
};

// "Bytes" and "Device Type" of the event's args as a DOM would give them (the last of duplicate
// keys), each 0 when missing or not an integer, both 0 when the text is not a JSON object.
// Scanned in place: a profile_memory trace has 10^5 of these events, and a DOM of each took
// most of the operator table's time.
MemoryArgs memoryArgsOf(std::string_view text)
{
    MemoryArgs found;
    const auto integer = [](json::Cursor& c, std::int64_t& out) {
        out = 0;
        if (*c.p == '"' || *c.p == '{' || *c.p == '[')
            return json::skipValue(c);
        std::string_view token;
        if (const auto st = json::scanScalar(c, token); st != json::Status::Ok)
            return st;
        std::int64_t value = 0;
        const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
        if (error == std::errc() && end == token.data() + token.size())
            out = value;
        return json::Status::Ok;
    };
    const auto arg = [&](std::string_view key, json::Cursor& c) {
        if (key == "Bytes")
            return integer(c, found.bytes);
        if (key == "Device Type")
            return integer(c, found.deviceType);
        return json::skipValue(c);
    };
    json::Cursor c{text.data(), text.data() + text.size()};
    const auto st = forEachMember(c, [&](std::string_view key, json::Cursor& value) {
        if (key != "args")
            return json::skipValue(value);
        found = {};
        return *value.p == '{' ? forEachMember(value, arg) : json::skipValue(value);
    });
    return st == json::Status::Ok ? found : MemoryArgs{};
}

} // namespace

std::vector<MemoryEvent> readMemoryEvents(const Trace& trace)
{
    const StringId memoryName = trace.strings().find("[memory]");
    const auto& instants = trace.instants();
    std::vector<std::uint32_t> memoryInstants;
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
        if (instants.name[i] == memoryName)
            memoryInstants.push_back(i);
    }
    std::vector<MemoryEvent> events;
    events.reserve(memoryInstants.size());
    trace.forEachInstantText(memoryInstants, [&](std::uint32_t i, std::string_view text) {
        const auto [bytes, deviceType] = memoryArgsOf(text);
        // c10::DeviceType: CPU 0, MKLDNN 2, IDEEP 5 count as CPU; CUDA 1, HIP 6, PrivateUse1 20 as device.
        const bool cpu = deviceType == 0 || deviceType == 2 || deviceType == 5;
        const bool device = deviceType == 1 || deviceType == 6 || deviceType == 20;
        events.push_back({instants.time[i], {cpu ? bytes : 0, device ? bytes : 0}});
    });
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
    return events;
}

} // namespace ks
