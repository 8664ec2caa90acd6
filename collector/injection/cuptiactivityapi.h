#pragma once
// ActivityApi on the real CUPTI: the only code of the injection library that calls CUPTI.
#include "collector/injection/activityapi.h"

#include <cupti.h>
#include <string_view>

#include <atomic>

namespace ks::injection {

class CuptiActivityApi final : public ActivityApi {
public:
    std::uint32_t loadedVersion() override;
    std::uint32_t compiledVersion() override { return CUPTI_API_VERSION; }
    std::int64_t timestampNs() override;
    std::int32_t driverVersion() override;
    std::int32_t runtimeVersion() override;
    ApiResult subscribe() override;
    void unsubscribe() override;
    ApiResult enable(BufferRequestedFn requested, BufferCompletedFn completed,
                     const ActivitySelection& selection) override;
    void disable() override;
    void flush(bool forced) override;
    std::size_t droppedRecords(void* context, std::uint32_t streamId) override;
    void decode(const std::uint8_t* buffer, std::size_t validBytes, ActivitySink& sink) override;
    std::string callbackName(wire::ApiDomain domain, std::uint32_t cbid) override;

private:
    // CUPTI's clock is CLOCK_REALTIME on Linux (cuptiActivityRegisterTimestampCallback's
    // documentation): read directly once enable() saw both agree, without cuptiGetTimestamp.
    std::atomic<bool> m_realtime{false};
    CUpti_SubscriberHandle m_subscriber = nullptr;
};

// Whether CUPTI's clock reads as CLOCK_REALTIME here (the documented Linux default; WSL's is
// CLOCK_MONOTONIC_RAW): one read of each, apart by the calls' own time only. Then the
// injection's own records read CLOCK_REALTIME directly (collector option clock=realtime).
bool cuptiClockIsRealtime();

// api=kineto: whether a driver call is recorded (launches, copies, memsets, allocations, waits).
bool isTracedDriverCall(std::string_view name);

// One CUPTI record in our terms (the layouts of the CUPTI release we build against).
// Needs only CUPTI's headers: tests feed it records they fill in themselves.
void decodeCuptiRecord(const CUpti_Activity& record, ActivitySink& sink);

} // namespace ks::injection
