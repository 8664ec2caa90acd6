#include "core/facts/memoryevents.h"

#include "core/loading/jsonscan.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

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

// Built in place: the events' instants sorted by (time, index), each event's bytes written at
// its place and summed up after. No event array beside the result (a copy of the events, their
// sort buffer and separate sums were a few MB of transient memory on a 200 MB trace).
MemoryTimeline::MemoryTimeline(const Trace& trace)
{
    const StringId memoryName = trace.strings().find("[memory]");
    const auto& instants = trace.instants();
    std::vector<std::uint32_t> byTime;
    for (std::uint32_t i = 0; i < instants.size(); ++i) {
        if (instants.name[i] == memoryName)
            byTime.push_back(i);
    }
    const auto earlier = [&](std::uint32_t a, std::uint32_t b) {
        return std::pair(instants.time[a], a) < std::pair(instants.time[b], b);
    };
    std::sort(byTime.begin(), byTime.end(), earlier);
    m_times.resize(byTime.size());
    m_before.resize(byTime.size() + 1);
    for (std::size_t k = 0; k < byTime.size(); ++k)
        m_times[k] = instants.time[byTime[k]];
    trace.forEachInstantText(byTime, [&](std::uint32_t i, std::string_view text) {
        const auto [bytes, deviceType] = memoryArgsOf(text);
        // c10::DeviceType: CPU 0, MKLDNN 2, IDEEP 5 count as CPU; CUDA 1, HIP 6, PrivateUse1 20 as device.
        const bool cpu = deviceType == 0 || deviceType == 2 || deviceType == 5;
        const bool device = deviceType == 1 || deviceType == 6 || deviceType == 20;
        const auto k = std::size_t(std::lower_bound(byTime.begin(), byTime.end(), i, earlier) - byTime.begin());
        m_before[k + 1] = {cpu ? bytes : 0, device ? bytes : 0};
    });
    for (std::size_t k = 0; k < byTime.size(); ++k)
        m_before[k + 1] += m_before[k];
}

MemoryBytes MemoryTimeline::within(TimeNs start, TimeNs end) const
{
    if (m_times.empty())
        return {};
    const auto lo = std::lower_bound(m_times.begin(), m_times.end(), start);
    const auto hi = std::max(lo, std::upper_bound(m_times.begin(), m_times.end(), end));
    return m_before[std::size_t(hi - m_times.begin())] - m_before[std::size_t(lo - m_times.begin())];
}

} // namespace ks
