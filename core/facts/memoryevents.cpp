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
    std::int64_t deviceId = -1;
    std::int64_t address = 0, totalAllocated = 0, totalReserved = 0;
    bool hasDeviceType = false, hasAddress = false, hasAllocated = false, hasReserved = false;
};

// The allocator fields of the event's args as a DOM would give them (the last of duplicate
// keys), each 0 (and not "has") when missing or not an integer, all 0 when the text is not a
// JSON object.
// Scanned in place: a profile_memory trace has 10^5 of these events, and a DOM of each took
// most of the operator table's time.
MemoryArgs memoryArgsOf(std::string_view text)
{
    MemoryArgs found;
    const auto integer = [](json::Cursor& c, std::int64_t& out, bool* has = nullptr) {
        out = 0;
        if (has)
            *has = false;
        if (*c.p == '"' || *c.p == '{' || *c.p == '[')
            return json::skipValue(c);
        std::string_view token;
        if (const auto st = json::scanScalar(c, token); st != json::Status::Ok)
            return st;
        std::int64_t value = 0;
        const char* last = token.data() + token.size();
        if (const auto [end, error] = std::from_chars(token.data(), last, value); error == std::errc() && end == last) {
            out = value;
        } else if (std::uint64_t u = 0; std::from_chars(token.data(), last, u).ptr == last) {
            out = static_cast<std::int64_t>(u); // an address above 2^63
        } else {
            return json::Status::Ok;
        }
        if (has)
            *has = true;
        return json::Status::Ok;
    };
    const auto arg = [&](std::string_view key, json::Cursor& c) {
        if (key == "Bytes")
            return integer(c, found.bytes);
        if (key == "Device Type")
            return integer(c, found.deviceType, &found.hasDeviceType);
        if (key == "Device Id")
            return integer(c, found.deviceId);
        if (key == "Addr")
            return integer(c, found.address, &found.hasAddress);
        if (key == "Total Allocated")
            return integer(c, found.totalAllocated, &found.hasAllocated);
        if (key == "Total Reserved")
            return integer(c, found.totalReserved, &found.hasReserved);
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

std::int16_t clampToInt16(std::int64_t v) { return static_cast<std::int16_t>(std::clamp<std::int64_t>(v, -1, 32767)); }

} // namespace

bool isHostMemoryType(int deviceType) { return deviceType == 0 || deviceType == 2 || deviceType == 5; }

bool isDeviceMemoryType(int deviceType) { return deviceType == 1 || deviceType == 6 || deviceType == 20; }

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
    m_events.resize(byTime.size());
    for (std::size_t k = 0; k < byTime.size(); ++k) {
        m_times[k] = instants.time[byTime[k]];
        m_events[k].time = m_times[k];
        m_events[k].instant = byTime[k];
    }
    trace.forEachInstantText(byTime, [&](std::uint32_t i, std::string_view text) {
        const MemoryArgs args = memoryArgsOf(text);
        const bool cpu = isHostMemoryType(static_cast<int>(args.deviceType));
        const bool device = isDeviceMemoryType(static_cast<int>(args.deviceType));
        const auto k = std::size_t(std::lower_bound(byTime.begin(), byTime.end(), i, earlier) - byTime.begin());
        m_before[k + 1] = {cpu ? args.bytes : 0, device ? args.bytes : 0};
        MemoryEvent& event = m_events[k];
        event.deviceType = args.hasDeviceType ? clampToInt16(args.deviceType) : std::int16_t(-1);
        event.deviceId = clampToInt16(args.deviceId);
        event.hasAddress = args.hasAddress;
        event.hasTotals = args.hasAllocated && args.hasReserved;
        event.bytes = args.bytes;
        event.address = static_cast<std::uint64_t>(args.address);
        event.totalAllocated = args.totalAllocated;
        event.totalReserved = args.totalReserved;
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
