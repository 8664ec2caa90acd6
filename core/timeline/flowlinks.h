#pragma once
// The flows attached to one slice, seen from that slice: where each leads and how long
// after (or before) this slice it happened. Used by the details panel, the `[`/`]` keys
// and the arrow overlay.
#include "core/model/trace.h"

#include <optional>
#include <vector>

namespace ks {

struct FlowLink {
    std::uint32_t flow = 0; // index into Trace::flows()
    SliceId other = kNoSlice; // the slice at the other end
    bool incoming = false; // true: `other` is the flow's source
    TimeNs delay = 0; // start of the flow's target minus start of its source
};

// Incoming links first, then outgoing; each group in the order of the other end's start.
std::vector<FlowLink> flowLinksOf(const Trace& trace, SliceId slice);

// How long a GPU op waited after the runtime/driver call that launched it (an ac2g flow).
struct LaunchTiming {
    TimeNs launchDelay = 0; // op start − launch call end; negative when it started before the call returned
    TimeNs queueTime = 0; // the part of that delay its stream was still busy with earlier GPU ops
};
// For a flow from a launch call to a kernel, memcpy or memset; nullopt for other flows.
std::optional<LaunchTiming> launchTiming(const Trace& trace, const Flow& flow);

} // namespace ks
