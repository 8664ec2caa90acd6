#pragma once
// The flows attached to one slice, seen from that slice: where each leads and how long
// after (or before) this slice it happened. Used by the details panel, the `[`/`]` keys
// and the arrow overlay.
#include "core/model/trace.h"

#include <vector>

namespace ks {

struct FlowLink {
    std::uint32_t flow = 0;   // index into Trace::flows()
    SliceId other = kNoSlice; // the slice at the other end
    bool incoming = false;    // true: `other` is the flow's source
    TimeNs delay = 0;         // start of the flow's target minus start of its source
};

// Incoming links first, then outgoing; each group in the order of the other end's start.
std::vector<FlowLink> flowLinksOf(const Trace& trace, SliceId slice);

} // namespace ks
