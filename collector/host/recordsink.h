#pragma once
// What the collector's receiving thread hands its frames to (CollectorSession in the app and
// the CLI, test sinks in the tests).
#include "collector/protocol/framedecoder.h"
#include "collector/protocol/records.h"

#include <cstdint>
#include <string>

namespace ks::collector {

using ConnectionId = std::uint32_t;

// Called on the receiving thread, in stream order per connection.
class RecordSink {
public:
    virtual ~RecordSink() = default;
    virtual void connectionAccepted(ConnectionId id, wire::Hello hello) = 0;
    virtual void frameReceived(ConnectionId id, const wire::Frame& frame) = 0;
    // `byCollector`: we closed it (stop()), else the traced process did or died.
    virtual void connectionClosed(ConnectionId id, bool byCollector) = 0;
    // A peer that was turned away: wrong uid, bad token, garbage, wrong protocol version.
    virtual void connectionRejected(const std::string& reason) = 0;
    // The receiving thread ended on an exception (out of memory, a sink that threw): every
    // connection was closed (traced processes detach and run on), nothing more arrives.
    virtual void receiverFailed(const std::string& error) = 0;
};

} // namespace ks::collector
