#include "collector/protocol/injectionoptions.h"

#include <charconv>

namespace ks::wire {
namespace {

bool positive(std::string_view value, long& out)
{
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
    return ec == std::errc() && end == value.data() + value.size() && out > 0;
}

// One of two words for a switch; false when `value` is neither.
bool choice(std::string_view value, std::string_view off, std::string_view on, bool& out)
{
    if (value != off && value != on)
        return false;
    out = value == on;
    return true;
}

bool parseItem(std::string_view key, std::string_view value, InjectionOptions& options)
{
    long number = 0;
    if (key == "buffer_mb" && positive(value, number) && number <= 1024) {
        options.bufferBytes = static_cast<std::size_t>(number) << 20;
        return true;
    }
    if (key == "max_buffers" && positive(value, number) && number <= 4096) {
        options.maxBuffers = static_cast<std::size_t>(number);
        return true;
    }
    if (key == "flush_ms" && positive(value, number) && number <= 3600000) {
        options.flushPeriodMs = static_cast<int>(number);
        return true;
    }
    if (key == "consumer")
        return choice(value, "translate", "drop", options.dropBuffers);
    if (key == "kinds")
        return choice(value, "all", "kineto", options.kinetoKindsOnly);
    if (key == "thread_ids") {
        bool cupti = false;
        if (!choice(value, "system", "cupti", cupti))
            return false;
        options.systemThreadIds = !cupti;
        return true;
    }
    if (key == "api")
        return choice(value, "kineto", "all", options.allApiCalls);
    if (key == "nvtx") {
        bool cupti = false;
        if (!choice(value, "own", "cupti", cupti))
            return false;
        options.ownNvtx = !cupti;
        return true;
    }
    if (key == "ops") {
        bool nvtx = false;
        if (!choice(value, "observer", "nvtx", nvtx))
            return false;
        options.torchObserver = !nvtx;
        return true;
    }
    if (key == "stats")
        return choice(value, "0", "1", options.stats);
    if (key == "clock")
        return choice(value, "realtime", "cupti", options.cuptiClock);
    return false;
}

} // namespace

bool parseInjectionOptions(std::string_view text, InjectionOptions& options, std::string& error)
{
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.empty())
            continue;
        const auto eq = item.find('=');
        if (eq == std::string_view::npos || !parseItem(item.substr(0, eq), item.substr(eq + 1), options)) {
            error = "bad collector option '" + std::string(item)
                + "': expected buffer_mb=1..1024, max_buffers=1..4096, flush_ms=1..3600000, "
                  "consumer=translate|drop, kinds=all|kineto, api=kineto|all, nvtx=own|cupti, ops=observer|nvtx, "
                  "thread_ids=system|cupti, clock=realtime|cupti or stats=0|1";
            return false;
        }
    }
    return true;
}

} // namespace ks::wire
