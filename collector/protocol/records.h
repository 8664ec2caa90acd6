#pragma once
// The collector's wire records: compact fixed-field records of our own, not CUPTI structs
// (pointers are meaningless in another process, CUPTI layouts change between versions and
// the host side must build without CUPTI). Each record lists its fields once, in wire
// order, in a static `fields` template that both the encoder and the decoder walk.
// New fields may only be appended: a decoder ignores trailing bytes it does not know.
#include <cstdint>
#include <string>
#include <vector>

namespace ks::wire {

inline constexpr std::uint32_t kMagic = 0x4B53434Cu; // "KSCL"
inline constexpr std::uint32_t kProtocolVersion = 1;

enum class RecordType : std::uint16_t {
    Hello = 1,
    String,
    Device,
    Kernel,
    Memcpy,
    Memset,
    Api,
    Sync,
    Marker,
    Overhead,
    Clock,
    Dropped,
    Error,
    Goodbye,
};

// Clocks read together, to relate CUPTI timestamps to the host clocks (NTP steps).
struct ClockSample {
    std::int64_t realtimeNs = 0;
    std::int64_t monotonicNs = 0;
    std::int64_t cuptiNs = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.realtimeNs);
        f(r.monotonicNs);
        f(r.cuptiNs);
    }
};

struct Hello {
    static constexpr RecordType kType = RecordType::Hello;
    std::uint32_t magic = kMagic;
    std::uint32_t version = kProtocolVersion;
    std::string token;
    std::int64_t pid = 0;
    std::int64_t ppid = 0;
    std::string executable;
    std::vector<std::string> arguments;
    std::string host;
    std::uint32_t cuptiVersion = 0; // cuptiGetVersion() of the loaded libcupti
    std::uint32_t cuptiCompiledVersion = 0; // CUPTI_API_VERSION the library was built with
    std::int32_t driverVersion = 0;
    std::int32_t runtimeVersion = 0;
    ClockSample clock;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.magic);
        f(r.version);
        f(r.token);
        f(r.pid);
        f(r.ppid);
        f(r.executable);
        f(r.arguments);
        f(r.host);
        f(r.cuptiVersion);
        f(r.cuptiCompiledVersion);
        f(r.driverVersion);
        f(r.runtimeVersion);
        ClockSample::fields(r.clock, f);
    }
};

// Interned text (kernel, API, marker and domain names): sent once per connection; records
// refer to it by id. Id 0 means "no string".
struct StringDef {
    static constexpr RecordType kType = RecordType::String;
    std::uint32_t id = 0;
    std::string text;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.id);
        f(r.text);
    }
};

struct Device {
    static constexpr RecordType kType = RecordType::Device;
    std::uint32_t id = 0;
    std::string name;
    std::int64_t totalGlobalMem = 0;
    std::int32_t computeMajor = 0, computeMinor = 0;
    std::int32_t numSms = 0;
    std::int32_t maxThreadsPerBlock = 0, maxThreadsPerMultiprocessor = 0;
    std::int32_t maxBlocksPerMultiprocessor = 0, maxWarpsPerMultiprocessor = 0;
    std::int32_t regsPerBlock = 0, regsPerMultiprocessor = 0;
    std::int32_t warpSize = 32;
    std::int64_t sharedMemPerBlock = 0, sharedMemPerMultiprocessor = 0;
    std::int64_t sharedMemPerBlockOptin = 0, reservedSharedMemPerBlock = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.id);
        f(r.name);
        f(r.totalGlobalMem);
        f(r.computeMajor);
        f(r.computeMinor);
        f(r.numSms);
        f(r.maxThreadsPerBlock);
        f(r.maxThreadsPerMultiprocessor);
        f(r.maxBlocksPerMultiprocessor);
        f(r.maxWarpsPerMultiprocessor);
        f(r.regsPerBlock);
        f(r.regsPerMultiprocessor);
        f(r.warpSize);
        f(r.sharedMemPerBlock);
        f(r.sharedMemPerMultiprocessor);
        f(r.sharedMemPerBlockOptin);
        f(r.reservedSharedMemPerBlock);
    }
};

// GPU operations carry the correlation id of the API call that issued them.
struct Kernel {
    static constexpr RecordType kType = RecordType::Kernel;
    std::int64_t start = 0, end = 0, queued = 0; // epoch ns; queued 0 when unknown
    std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    std::uint32_t name = 0; // StringDef id of the (mangled) name
    std::int32_t grid[3] = {0, 0, 0};
    std::int32_t block[3] = {0, 0, 0};
    std::int32_t cluster[3] = {0, 0, 0};
    std::int32_t registersPerThread = 0;
    std::int32_t staticSharedMemory = 0, dynamicSharedMemory = 0;
    std::uint32_t graphId = 0;
    std::uint64_t graphNodeId = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.queued);
        f(r.device);
        f(r.context);
        f(r.stream);
        f(r.correlation);
        f(r.name);
        for (int i = 0; i < 3; ++i)
            f(r.grid[i]);
        for (int i = 0; i < 3; ++i)
            f(r.block[i]);
        for (int i = 0; i < 3; ++i)
            f(r.cluster[i]);
        f(r.registersPerThread);
        f(r.staticSharedMemory);
        f(r.dynamicSharedMemory);
        f(r.graphId);
        f(r.graphNodeId);
    }
};

// copyKind/srcKind/dstKind use CUPTI's numbering (CUpti_ActivityMemcpyKind / MemoryKind).
struct Memcpy {
    static constexpr RecordType kType = RecordType::Memcpy;
    std::int64_t start = 0, end = 0;
    std::uint64_t bytes = 0;
    std::uint8_t copyKind = 0, srcKind = 0, dstKind = 0, flags = 0; // flags bit 0: async
    std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    std::uint32_t srcDevice = 0, dstDevice = 0; // peer copies only
    std::uint32_t graphId = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.bytes);
        f(r.copyKind);
        f(r.srcKind);
        f(r.dstKind);
        f(r.flags);
        f(r.device);
        f(r.context);
        f(r.stream);
        f(r.correlation);
        f(r.srcDevice);
        f(r.dstDevice);
        f(r.graphId);
    }
};

struct Memset {
    static constexpr RecordType kType = RecordType::Memset;
    std::int64_t start = 0, end = 0;
    std::uint64_t bytes = 0;
    std::uint32_t value = 0;
    std::uint16_t memoryKind = 0, flags = 0;
    std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    std::uint32_t graphId = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.bytes);
        f(r.value);
        f(r.memoryKind);
        f(r.flags);
        f(r.device);
        f(r.context);
        f(r.stream);
        f(r.correlation);
        f(r.graphId);
    }
};

enum class ApiDomain : std::uint8_t { Runtime = 1, Driver = 2 };

struct Api {
    static constexpr RecordType kType = RecordType::Api;
    std::int64_t start = 0, end = 0;
    std::uint8_t domain = 0; // ApiDomain
    std::uint32_t cbid = 0;
    std::uint32_t name = 0; // StringDef id of CUPTI's callback name ("cudaLaunchKernel_v7000")
    std::uint32_t correlation = 0;
    std::uint64_t threadId = 0; // gettid()
    std::int32_t returnValue = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.domain);
        f(r.cbid);
        f(r.name);
        f(r.correlation);
        f(r.threadId);
        f(r.returnValue);
    }
};

// type: CUpti_ActivitySynchronizationType (1 event, 2 stream wait event, 3 stream, 4 context).
struct Sync {
    static constexpr RecordType kType = RecordType::Sync;
    std::int64_t start = 0, end = 0;
    std::uint32_t type = 0;
    std::uint32_t context = 0, stream = 0, event = 0, correlation = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.type);
        f(r.context);
        f(r.stream);
        f(r.event);
        f(r.correlation);
    }
};

// NVTX: flags 1 instant, 2 range start, 4 range end; start and end share the id and only
// the start has a name. domain 0 is NVTX's default domain.
struct Marker {
    static constexpr RecordType kType = RecordType::Marker;
    enum Flags : std::uint32_t { Instant = 1, Start = 2, End = 4 };
    std::int64_t time = 0;
    std::uint32_t id = 0;
    std::uint32_t flags = 0;
    std::uint32_t name = 0, domain = 0;
    std::uint64_t threadId = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.time);
        f(r.id);
        f(r.flags);
        f(r.name);
        f(r.domain);
        f(r.threadId);
    }
};

// CUPTI's own overhead; kind is CUpti_ActivityOverheadKind.
struct Overhead {
    static constexpr RecordType kType = RecordType::Overhead;
    std::int64_t start = 0, end = 0;
    std::uint32_t kind = 0;
    std::uint64_t threadId = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.start);
        f(r.end);
        f(r.kind);
        f(r.threadId);
    }
};

struct Clock {
    static constexpr RecordType kType = RecordType::Clock;
    ClockSample sample;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        ClockSample::fields(r.sample, f);
    }
};

// Running totals since the start of the connection (the receiver keeps the latest).
struct Dropped {
    static constexpr RecordType kType = RecordType::Dropped;
    std::uint64_t cuptiRecords = 0; // CUPTI had no buffer (our pool was exhausted), or an NVTX ring was full
    std::uint64_t poolExhausted = 0; // buffer requests we refused, completed buffers we could not queue
    std::uint64_t zeroTimestamps = 0; // GPU records with start = end = 0
    std::uint64_t undecodable = 0; // records of kinds we do not translate
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.cuptiRecords);
        f(r.poolExhausted);
        f(r.zeroTimestamps);
        f(r.undecodable);
    }
};

enum class ErrorCode : std::int32_t {
    CuptiInUse = 1, // another CUPTI client owns the process
    CuptiVersion = 2, // libcupti's version differs from the one we were built with
    CuptiFailure = 3, // a CUPTI call failed
    CuptiTakenOver = 4, // our buffers stopped coming back: another client re-registered
};

struct Error {
    static constexpr RecordType kType = RecordType::Error;
    std::int32_t code = 0; // ErrorCode
    std::string message;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.code);
        f(r.message);
    }
};

struct Goodbye {
    static constexpr RecordType kType = RecordType::Goodbye;
    std::uint64_t records = 0; // records sent on this connection
    std::uint64_t buffersRequested = 0;
    std::uint64_t buffersCompleted = 0;
    template <class R, class F>
    static void fields(R& r, F& f)
    {
        f(r.records);
        f(r.buffersRequested);
        f(r.buffersCompleted);
    }
};

} // namespace ks::wire
