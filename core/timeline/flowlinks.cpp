#include "core/timeline/flowlinks.h"

#include <algorithm>

namespace ks {

std::vector<FlowLink> flowLinksOf(const Trace& trace, SliceId slice)
{
    std::vector<FlowLink> links;
    if (slice == kNoSlice || slice >= trace.slices().size())
        return links;
    const auto& flows = trace.flows();
    const auto& start = trace.slices().start;
    for (std::uint32_t f : trace.incomingFlows(slice))
        links.push_back({f, flows[f].from, true, start[slice] - start[flows[f].from]});
    const auto incomingCount = static_cast<std::ptrdiff_t>(links.size());
    for (std::uint32_t f : trace.outgoingFlows(slice))
        links.push_back({f, flows[f].to, false, start[flows[f].to] - start[slice]});
    const auto byOtherStart = [&](const FlowLink& a, const FlowLink& b) {
        return start[a.other] < start[b.other];
    };
    std::stable_sort(links.begin(), links.begin() + incomingCount, byOtherStart);
    std::stable_sort(links.begin() + incomingCount, links.end(), byOtherStart);
    return links;
}

} // namespace ks
