#include "core/timeline/flowlinks.h"

#include <algorithm>
#include <limits>

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
    const auto byOtherStart = [&](const FlowLink& a, const FlowLink& b) { return start[a.other] < start[b.other]; };
    std::stable_sort(links.begin(), links.begin() + incomingCount, byOtherStart);
    std::stable_sort(links.begin() + incomingCount, links.end(), byOtherStart);
    return links;
}

std::optional<LaunchTiming> launchTiming(const Trace& trace, const Flow& flow)
{
    const SliceClass from = trace.classOf(flow.from), to = trace.classOf(flow.to);
    if ((from != SliceClass::CudaRuntime && from != SliceClass::CudaDriver)
        || (to != SliceClass::Kernel && to != SliceClass::Memcpy && to != SliceClass::Memset))
        return std::nullopt;
    const SliceTable& slices = trace.slices();
    const TimeNs launchEnd = slices.end(flow.from);
    LaunchTiming timing;
    timing.launchDelay = slices.start[flow.to] - launchEnd;
    // The stream was busy until the latest end of its earlier GPU ops. Each row of the stream
    // holds non-overlapping slices in start order, so its last one starting before this op is
    // the latest to end; rows of GPU-side annotations are skipped.
    const TimeNs opStart = slices.start[flow.to];
    const Track& stream = trace.tracks()[trace.trackOf(flow.to)];
    TimeNs busyUntil = std::numeric_limits<TimeNs>::min();
    for (std::uint32_t r = stream.rowBegin; r < stream.rowEnd; ++r) {
        const Row& row = trace.rows()[r];
        const auto first = slices.start.begin() + row.begin, last = slices.start.begin() + row.end;
        const auto after = std::lower_bound(first, last, opStart);
        if (after == first)
            continue;
        const SliceId previous = SliceId(after - slices.start.begin()) - 1;
        const SliceClass kind = trace.classOf(previous);
        if (kind == SliceClass::Kernel || kind == SliceClass::Memcpy || kind == SliceClass::Memset)
            busyUntil = std::max(busyUntil, slices.end(previous));
    }
    if (busyUntil != std::numeric_limits<TimeNs>::min())
        timing.queueTime = std::clamp<TimeNs>(busyUntil - launchEnd, 0, std::max<TimeNs>(timing.launchDelay, 0));
    return timing;
}

} // namespace ks
