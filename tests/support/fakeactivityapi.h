#pragma once
// ActivityApi without CUPTI: tests write records of their own into the collector's buffers
// (FakeBufferWriter) and play the application threads that CUPTI would call back on.
#include "collector/injection/activityapi.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace ks::testing {

enum class FakeKind : std::uint32_t { Kernel = 1, Memcpy, Memset, Api, Sync, Marker, Overhead, Device, Unknown };

// The fake's buffer format: [kind u32][payload bytes u32][payload], payload a trivially
// copyable struct (a wire::Device travels as an index into FakeActivityApi::devices).
class FakeBufferWriter {
public:
    template <class T>
    FakeBufferWriter& add(FakeKind kind, const T& record)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        const std::uint32_t header[2] = {static_cast<std::uint32_t>(kind), static_cast<std::uint32_t>(sizeof(T))};
        append(header, sizeof header);
        append(&record, sizeof record);
        return *this;
    }
    const std::vector<std::uint8_t>& bytes() const { return m_bytes; }

private:
    void append(const void* data, std::size_t n)
    {
        const auto* p = static_cast<const std::uint8_t*>(data);
        m_bytes.insert(m_bytes.end(), p, p + n);
    }
    std::vector<std::uint8_t> m_bytes;
};

class FakeActivityApi : public injection::ActivityApi {
public:
    std::uint32_t loaded = 130001;
    std::uint32_t compiled = 130001;
    injection::ApiResult subscribeResult;
    std::vector<wire::Device> devices;
    std::atomic<std::size_t> droppedPerBuffer{0};
    std::atomic<int> disableCalls{0};
    std::atomic<int> enableCalls{0};
    std::atomic<int> flushes{0};
    std::atomic<int> forcedFlushes{0};
    // Runs on the collector's flush thread inside every periodic flush (may throw).
    std::function<void()> onPeriodicFlush;
    // When false, a forced flush no longer returns the outstanding buffers (another client
    // re-registered CUPTI's callbacks).
    bool forcedFlushCompletes = true;

    std::uint32_t loadedVersion() override { return loaded; }
    std::uint32_t compiledVersion() override { return compiled; }
    std::int64_t timestampNs() override { return 1'000'000'000; }
    std::int32_t driverVersion() override { return 13000; }
    std::int32_t runtimeVersion() override { return 12080; }
    injection::ApiResult subscribe() override
    {
        subscribed = subscribeResult.ok();
        return subscribeResult;
    }
    void unsubscribe() override { subscribed = false; }
    bool subscribed = false;
    injection::ActivitySelection selection; // what the collector last asked enable() for
    injection::ApiResult enable(injection::BufferRequestedFn requested, injection::BufferCompletedFn completed,
                                const injection::ActivitySelection& asked) override
    {
        enableCalls.fetch_add(1);
        selection = asked;
        m_requested = requested;
        m_completed = completed;
        return {};
    }
    void disable() override { disableCalls.fetch_add(1); }
    void flush(bool forced) override
    {
        if (!forced) {
            flushes.fetch_add(1);
            if (onPeriodicFlush)
                onPeriodicFlush();
            return;
        }
        forcedFlushes.fetch_add(1);
        if (!forcedFlushCompletes)
            return;
        std::vector<std::uint8_t*> outstanding;
        {
            std::lock_guard lock(m_mutex);
            outstanding.swap(m_outstanding);
        }
        for (auto* buffer : outstanding)
            m_completed(nullptr, 0, buffer, m_bufferBytes, 0);
    }
    std::size_t droppedRecords(void*, std::uint32_t) override { return droppedPerBuffer.exchange(0); }
    void decode(const std::uint8_t* buffer, std::size_t validBytes, injection::ActivitySink& sink) override;
    std::string callbackName(wire::ApiDomain domain, std::uint32_t cbid) override
    {
        if (domain == wire::ApiDomain::Runtime && cbid == 211)
            return "cudaLaunchKernel_v7000";
        if (domain == wire::ApiDomain::Driver && cbid == 307)
            return "cuLaunchKernel";
        return {};
    }

    // An application thread asks for a buffer, as CUPTI would; nullptr when refused.
    std::uint8_t* requestBuffer()
    {
        std::uint8_t* buffer = nullptr;
        std::size_t size = 0, maxRecords = 0;
        m_requested(&buffer, &size, &maxRecords);
        if (buffer) {
            std::lock_guard lock(m_mutex);
            m_outstanding.push_back(buffer);
            m_bufferBytes = size;
        }
        return buffer;
    }
    // Fills a requested buffer and hands it back, as CUPTI does when it is full or flushed.
    void completeBuffer(std::uint8_t* buffer, const FakeBufferWriter& records)
    {
        {
            std::lock_guard lock(m_mutex);
            std::erase(m_outstanding, buffer);
        }
        if (records.bytes().size() > m_bufferBytes)
            throw std::length_error("records do not fit the buffer");
        if (!records.bytes().empty()) // memcpy from an empty vector's null data() is undefined
            std::memcpy(buffer, records.bytes().data(), records.bytes().size());
        m_completed(nullptr, 0, buffer, m_bufferBytes, records.bytes().size());
    }
    // Both at once; false when the collector refused the buffer.
    bool deliver(const FakeBufferWriter& records)
    {
        std::uint8_t* buffer = requestBuffer();
        if (!buffer)
            return false;
        completeBuffer(buffer, records);
        return true;
    }

private:
    injection::BufferRequestedFn m_requested = nullptr;
    injection::BufferCompletedFn m_completed = nullptr;
    std::mutex m_mutex;
    std::vector<std::uint8_t*> m_outstanding;
    std::size_t m_bufferBytes = 0;
};

template <class T>
T readAs(const std::uint8_t* at)
{
    T value;
    std::memcpy(&value, at, sizeof value);
    return value;
}

inline void FakeActivityApi::decode(const std::uint8_t* buffer, std::size_t validBytes, injection::ActivitySink& sink)
{
    std::size_t pos = 0;
    while (pos + 8 <= validBytes) {
        const auto kind = static_cast<FakeKind>(readAs<std::uint32_t>(buffer + pos));
        const auto bytes = readAs<std::uint32_t>(buffer + pos + 4);
        const std::uint8_t* payload = buffer + pos + 8;
        pos += 8 + bytes;
        switch (kind) {
        case FakeKind::Kernel: sink.kernel(readAs<injection::KernelActivity>(payload)); break;
        case FakeKind::Memcpy: sink.memcpy(readAs<wire::Memcpy>(payload)); break;
        case FakeKind::Memset: sink.memset(readAs<wire::Memset>(payload)); break;
        case FakeKind::Api: sink.api(readAs<wire::Api>(payload)); break;
        case FakeKind::Sync: sink.sync(readAs<wire::Sync>(payload)); break;
        case FakeKind::Marker: sink.marker(readAs<injection::MarkerActivity>(payload)); break;
        case FakeKind::Overhead: sink.overhead(readAs<wire::Overhead>(payload)); break;
        case FakeKind::Device: sink.device(devices.at(readAs<std::uint32_t>(payload))); break;
        default: sink.unknownKind(); break;
        }
    }
}

} // namespace ks::testing
