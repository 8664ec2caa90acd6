#pragma once
// The seam between the collector inside the traced process and CUPTI. Everything that runs
// in users' processes (translation, buffer pool, takeover and detach, fork, drop accounting)
// talks to CUPTI only through ActivityApi, so that it is tested without a GPU or CUPTI
// headers against a fake that synthesizes records. cuptiactivityapi.cpp is the real one.
// Records cross the seam already decoded into our wire structs; texts stay pointers into
// CUPTI's memory until RecordTranslator interns them.
#include "collector/injection/activitysink.h"
#include "collector/protocol/records.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ks::injection {

// CUPTI's buffer callbacks, with the context as an opaque pointer. Both are called on
// application threads and must neither block for long nor throw.
using BufferRequestedFn = void (*)(std::uint8_t** buffer, std::size_t* size, std::size_t* maxNumRecords);
using BufferCompletedFn = void (*)(void* context, std::uint32_t streamId, std::uint8_t* buffer, std::size_t size,
                                   std::size_t validSize);

struct ApiResult {
    enum class Status { Ok, InUse, Failed };
    Status status = Status::Ok;
    std::string error; // what failed, for the collector's ERROR frame
    bool ok() const { return status == Status::Ok; }
};

// Which records CUPTI produces (collector options kinds= and thread_ids=).
struct ActivitySelection {
    bool kinetoKindsOnly = false;
    bool allApiCalls = false;
    bool systemThreadIds = true;
    bool cuptiClock = false; // timestampNs() from cuptiGetTimestamp(), not CLOCK_REALTIME
};

class ActivityApi {
public:
    virtual ~ActivityApi() = default;
    virtual std::uint32_t loadedVersion() = 0; // of the libcupti the process loaded
    virtual std::uint32_t compiledVersion() = 0; // CUPTI_API_VERSION we were built with
    virtual std::int64_t timestampNs() = 0; // CUPTI's clock (read by us where that is cheaper)
    // 0 where unknown; never initializes CUDA (we run inside cuInit).
    virtual std::int32_t driverVersion() = 0;
    virtual std::int32_t runtimeVersion() = 0;
    // Claims CUPTI for this process: InUse when another client (Nsight, a profiler) owns it.
    virtual ApiResult subscribe() = 0;
    // Gives up the claim (for kinetoscope_pause_cupti: torch.profiler cannot start while we hold
    // it). The activity records need no subscriber; the claim is not taken again.
    virtual void unsubscribe() = 0;
    // Registers the buffer callbacks and enables the activity kinds we record.
    virtual ApiResult enable(BufferRequestedFn requested, BufferCompletedFn completed,
                             const ActivitySelection& selection) = 0;
    // Disables every activity kind: no more buffers are requested.
    virtual void disable() = 0;
    // Asks CUPTI to complete its buffers; `forced` also returns records of work still running.
    virtual void flush(bool forced) = 0;
    // Records CUPTI dropped for want of a buffer, for the context and stream of a completed one.
    virtual std::size_t droppedRecords(void* context, std::uint32_t streamId) = 0;
    // Walks the records of a completed buffer.
    virtual void decode(const std::uint8_t* buffer, std::size_t validBytes, ActivitySink& sink) = 0;
    // CUPTI's name of a runtime or driver call ("cudaLaunchKernel_v7000"); empty if unknown.
    virtual std::string callbackName(wire::ApiDomain domain, std::uint32_t cbid) = 0;
};

// Record layouts follow the libcupti the process loaded (torch brings its own): we decode
// only the release we were compiled for. Versions up to CUDA 12.9 count up (v28); from
// CUDA 13 they read xxyyzz (major, minor, CUPTI update), where only xxyy must match.
bool cuptiVersionsCompatible(std::uint32_t loaded, std::uint32_t compiled);
// "13.0 (130001)", "v28".
std::string cuptiVersionText(std::uint32_t version);

} // namespace ks::injection
