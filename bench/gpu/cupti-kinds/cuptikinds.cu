// What each CUPTI activity configuration costs a launch-bound program, per launch, measured in
// one process (issue 34: where CUPTI's floor under `collect` comes from).
//
// A "step" is what PyTorch's eager dispatch does around a kernel: cudaGetDevice, the launch of an
// empty kernel, cudaGetLastError. Every configuration is enabled in turn (rotated every round),
// the same steps timed, then disabled and CUPTI flushed outside the timer. Prints per
// configuration the median ns per step over the rounds and [min-max], and the difference to
// CUPTI switched off measured in the same round (median of the rounds' differences): for the
// whole step (wall, the GPU's time included) and for the three calls alone (the syncs left out:
// what a launch-bound program, whose GPU waits for its CPU, pays).
//
// usage: cuptikinds [ROUNDS [STEPS]]      build: nvcc -O2 -o cuptikinds cuptikinds.cu -lcupti
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

__global__ void emptyKernel() { }

namespace {

std::size_t g_records = 0;

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords)
{
    constexpr std::size_t kSize = 8u << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kSize));
    *size = kSize;
    *maxRecords = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid)
{
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
        ++g_records;
    std::free(buffer);
}

void check(CUptiResult result, const char* what)
{
    if (result == CUPTI_SUCCESS)
        return;
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    std::fprintf(stderr, "%s: %s\n", what, text ? text : "?");
    std::exit(1);
}

const CUpti_ActivityKind kKineto[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                      CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET,
                                      CUPTI_ACTIVITY_KIND_RUNTIME,
                                      CUPTI_ACTIVITY_KIND_DRIVER,
                                      CUPTI_ACTIVITY_KIND_OVERHEAD,
                                      CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
const CUpti_ActivityKind kAll[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                   CUPTI_ACTIVITY_KIND_MEMCPY,
                                   CUPTI_ACTIVITY_KIND_MEMSET,
                                   CUPTI_ACTIVITY_KIND_RUNTIME,
                                   CUPTI_ACTIVITY_KIND_DRIVER,
                                   CUPTI_ACTIVITY_KIND_OVERHEAD,
                                   CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                   CUPTI_ACTIVITY_KIND_MEMCPY2,
                                   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
const CUpti_CallbackId kQuietRuntime[] = {CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
                                          CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020};
const CUpti_CallbackId kLaunchRuntime[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000};

void enableKinds(std::initializer_list<CUpti_ActivityKind> kinds)
{
    for (auto kind : kinds)
        check(cuptiActivityEnable(kind), "cuptiActivityEnable");
}

void quietRuntime()
{
    for (auto cbid : kQuietRuntime)
        cuptiActivityEnableRuntimeApi(cbid, 0);
}

// Driver calls but launches left out, as `collect --collector-options api=kineto` does.
void quietDriver()
{
    for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name
            && std::string(name).rfind("cuLaunch", 0) != 0)
            cuptiActivityEnableDriverApi(cbid, 0);
    }
}

void disableEverything()
{
    for (auto kind : kAll)
        cuptiActivityDisable(kind);
    for (auto cbid : kLaunchRuntime)
        cuptiActivityEnableRuntimeApi(cbid, 0);
    for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid)
        cuptiActivityEnableDriverApi(cbid, 0);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

struct Configuration {
    const char* name;
    std::function<void()> enable;
};

const std::vector<Configuration> kConfigurations = {
    {"off", [] {}},
    {"kernels", [] { enableKinds({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL}); }},
    {"kernels+runtime",
     [] {
         enableKinds({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME});
     }},
    {"kernels+runtime-quiet",
     [] {
         enableKinds({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME});
         quietRuntime();
     }},
    {"kernels+launch-only",
     [] {
         enableKinds({CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL});
         for (auto cbid : kLaunchRuntime)
             cuptiActivityEnableRuntimeApi(cbid, 1);
     }},
    {"kineto (torch.profiler's kinds)",
     [] {
         for (auto kind : kKineto)
             check(cuptiActivityEnable(kind), "cuptiActivityEnable");
     }},
    {"collect (api=kineto, kinds=all)",
     [] {
         for (auto kind : kAll)
             if (kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
                 check(cuptiActivityEnable(kind), "cuptiActivityEnable");
         quietRuntime();
         quietDriver();
     }},
    {"collect without the driver kind",
     [] {
         for (auto kind : kAll)
             if (kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION && kind != CUPTI_ACTIVITY_KIND_DRIVER)
                 check(cuptiActivityEnable(kind), "cuptiActivityEnable");
         quietRuntime();
     }},
};

struct StepTimes {
    double wall = 0; // ns a step, the syncs included
    double calls = 0; // ns a step in the three calls only: the launching thread's own cost
};

StepTimes timeSteps(int steps)
{
    using Clock = std::chrono::steady_clock;
    int device = 0;
    cudaDeviceSynchronize();
    const auto start = Clock::now();
    Clock::duration inSync{};
    for (int i = 0; i < steps; ++i) {
        cudaGetDevice(&device);
        emptyKernel<<<1, 1>>>();
        cudaGetLastError();
        if (i % 256 == 255) { // PyTorch's loops sync now and then (.item(), the optimizer)
            const auto before = Clock::now();
            cudaStreamSynchronize(nullptr);
            inSync += Clock::now() - before;
        }
    }
    const auto before = Clock::now();
    cudaDeviceSynchronize();
    const auto end = Clock::now();
    inSync += end - before;
    const double wall = std::chrono::duration<double, std::nano>(end - start).count();
    return {wall / steps, (wall - std::chrono::duration<double, std::nano>(inSync).count()) / steps};
}

} // namespace

int main(int argc, char** argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 9;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 100000;
    cudaFree(nullptr);
    CUpti_SubscriberHandle subscriber;
    check(cuptiSubscribe(
              &subscriber, [](void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}, nullptr),
          "cuptiSubscribe");
    check(cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks");
    const std::size_t n = kConfigurations.size();
    std::vector<std::vector<double>> perStep(n), overOff(n), calls(n), callsOverOff(n);
    for (std::size_t c = 0; c < n; ++c) { // warm-up: every configuration once, untimed
        kConfigurations[c].enable();
        timeSteps(steps / 10);
        disableEverything();
    }
    for (int round = 0; round < rounds; ++round) {
        std::vector<StepTimes> times(n);
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t c = (k + round) % n;
            kConfigurations[c].enable();
            times[c] = timeSteps(steps);
            disableEverything();
        }
        for (std::size_t c = 0; c < n; ++c) {
            perStep[c].push_back(times[c].wall);
            overOff[c].push_back(times[c].wall - times[0].wall);
            calls[c].push_back(times[c].calls);
            callsOverOff[c].push_back(times[c].calls - times[0].calls);
        }
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("%d rounds of %d steps (cudaGetDevice + empty kernel launch + cudaGetLastError), %zu records\n", rounds,
                steps, g_records);
    std::printf("%-34s %8s %13s %9s | %8s %13s %9s\n", "configuration", "wall ns", "[min-max]", "over off", "calls ns",
                "[min-max]", "over off");
    for (std::size_t c = 0; c < n; ++c) {
        const auto [lo, hi] = std::minmax_element(perStep[c].begin(), perStep[c].end());
        const auto [clo, chi] = std::minmax_element(calls[c].begin(), calls[c].end());
        std::printf("%-34s %8.0f %6.0f-%-6.0f %9.0f | %8.0f %6.0f-%-6.0f %9.0f\n", kConfigurations[c].name,
                    median(perStep[c]), *lo, *hi, median(overOff[c]), median(calls[c]), *clo, *chi,
                    median(callsOverOff[c]));
    }
    cuptiUnsubscribe(subscriber);
    return 0;
}
