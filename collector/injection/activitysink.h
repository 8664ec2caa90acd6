#pragma once
// What the records of one CUPTI activity buffer are decoded into, across the seam of
// ActivityApi (RecordTranslator in the injection, fakes in the tests).
#include "collector/protocol/records.h"

namespace ks::injection {

struct KernelActivity {
    wire::Kernel record; // `name` is left 0
    const char* name = nullptr;
};

struct MarkerActivity {
    wire::Marker record; // `name` and `domain` are left 0
    const char* name = nullptr;
    const char* domain = nullptr;
};

// Receives the records of one activity buffer, in buffer order.
class ActivitySink {
public:
    virtual ~ActivitySink() = default;
    virtual void kernel(const KernelActivity& activity) = 0;
    virtual void memcpy(const wire::Memcpy& record) = 0;
    virtual void memset(const wire::Memset& record) = 0;
    virtual void api(const wire::Api& record) = 0; // `name` is left 0
    virtual void sync(const wire::Sync& record) = 0;
    virtual void marker(const MarkerActivity& activity) = 0;
    virtual void overhead(const wire::Overhead& record) = 0;
    virtual void device(const wire::Device& record) = 0;
    virtual void unknownKind() = 0; // a kind we do not translate
};

} // namespace ks::injection
