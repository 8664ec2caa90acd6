#include "core/timeline/argsearch.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>

namespace ks {

namespace {

// Slices per batch between checks of the cancel flag.
constexpr std::size_t kBatch = 16384;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

char fold(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// The needle folded and without white space.
std::string squeeze(std::string_view needle)
{
    std::string out;
    for (char c : needle) {
        if (!isSpace(c))
            out.push_back(fold(c));
    }
    return out;
}

bool containsSqueezed(std::string_view text, const std::string& needle)
{
    if (needle.empty())
        return false;
    for (std::size_t start = 0; start < text.size(); ++start) {
        if (fold(text[start]) != needle[0])
            continue;
        std::size_t i = start, j = 0;
        while (i < text.size() && j < needle.size()) {
            if (isSpace(text[i])) {
                ++i;
                continue;
            }
            if (fold(text[i]) != needle[j])
                break;
            ++i;
            ++j;
        }
        if (j == needle.size())
            return true;
    }
    return false;
}

} // namespace

bool containsLoosely(std::string_view text, std::string_view needle) { return containsSqueezed(text, squeeze(needle)); }

std::vector<SliceId> searchSliceArgs(const Trace& trace, std::string_view needle, ArgSearchControl& control)
{
    std::vector<SliceId> found;
    const std::string squeezed = squeeze(needle);
    const SliceTable& slices = trace.slices();
    if (squeezed.empty() || !trace.hasTextSource())
        return found;
    std::vector<SliceId> order(slices.size());
    std::iota(order.begin(), order.end(), SliceId(0));
    std::sort(order.begin(), order.end(),
              [&](SliceId a, SliceId b) { return slices.rawOffset[a] < slices.rawOffset[b]; });
    for (std::size_t first = 0; first < order.size() && !control.cancelled.load(std::memory_order_relaxed);
         first += kBatch) {
        const std::size_t count = std::min(kBatch, order.size() - first);
        trace.forEachEventText(
            std::span<const SliceId>(order.data() + first, count), [&](SliceId s, std::string_view text) {
                const std::size_t args = text.find("\"args\"");
                if (args != std::string_view::npos && containsSqueezed(text.substr(args + 6), squeezed))
                    found.push_back(s);
            });
        control.done.store(first + count, std::memory_order_relaxed);
    }
    std::sort(found.begin(), found.end(), [&](SliceId a, SliceId b) {
        return slices.start[a] != slices.start[b] ? slices.start[a] < slices.start[b] : a < b;
    });
    return found;
}

} // namespace ks
