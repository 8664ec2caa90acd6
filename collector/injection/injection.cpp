// Entry points the CUDA driver and NVTX call in every process started with
// CUDA_INJECTION64_PATH / NVTX_INJECTION64_PATH pointing at this library. C ABI, no
// exceptions across it. Neither reports our own failure: returning 0 from
// InitializeInjection crashed the target on the H200 we tested, and on 0 NVTX dlcloses
// the library while our threads may be running in it. InitializeInjectionNvtx2 passes on
// CUPTI's answer when it can forward, else returns 1 (the markers then stay NVTX no-ops);
// with nvtx=own (the default) it installs our own handlers instead and returns 1.
// kinetoscope_torch_ops hands the PyTorch observer library (torchopsabi.h) our recorder.
// kinetoscope_pause_cupti pauses and resumes CUPTI's records, for benchmarks that time one
// loop with and without the collector in one process.
#include "collector/injection/activitycollector.h"
#include "collector/injection/cuptiactivityapi.h"
#include "collector/injection/nvtxhandlers.h"
#include "collector/injection/torchopsabi.h"

#include <cupti.h>
#include <dlfcn.h>
#include <mutex>
#include <pthread.h>

namespace {

ks::injection::ActivityCollector* g_active = nullptr;
std::once_flag g_startOnce;

void stopAtExit()
{
    if (g_active)
        g_active->shutdown();
}

void inForkedChild()
{
    if (g_active)
        g_active->forkedChild();
}

// Runs once per process, from whichever entry point comes first. Inside cuInit: only
// CUPTI calls and the socket, never a CUDA call.
void startOnce()
{
    std::call_once(g_startOnce, [] {
        try {
            ks::injection::CollectorOptions options;
            if (!ks::injection::optionsFromEnvironment(options))
                return;
            static ks::injection::CuptiActivityApi cupti; // never destroyed before our threads stop
            g_active = ks::injection::ActivityCollector::start(cupti, options);
            if (g_active) {
                pthread_atfork(nullptr, nullptr, inForkedChild);
                std::atexit(stopAtExit);
            }
        } catch (...) {
            g_active = nullptr; // out of memory or similar: the program runs untraced
        }
    });
}

ks::injection::NvtxRecorder* g_torchOps = nullptr; // set once, before the observer gets the api

int beginTorchOp(const KinetoscopeTorchOp* op)
{
    return op && op->size >= sizeof(KinetoscopeTorchOp) && g_torchOps->beginTorchOp(*op) ? 1 : 0;
}

void endTorchOp() { g_torchOps->endTorchOp(); }

using NvtxInitialize = int (*)(const void* (*)(std::uint32_t));

// NVTX must reach the CUPTI the process already loaded (torch ships its own copy; loading
// a second one breaks every CUPTI call): find it through a CUPTI symbol we are bound to.
NvtxInitialize cuptiNvtxEntry()
{
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) || !info.dli_fname)
        return nullptr;
    void* cupti = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    return cupti ? reinterpret_cast<NvtxInitialize>(dlsym(cupti, "InitializeInjectionNvtx2")) : nullptr;
}

} // namespace

// NOLINTNEXTLINE(readability-identifier-naming): the name the CUDA driver looks up
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    startOnce();
    return 1;
}

// NOLINTBEGIN(readability-identifier-naming): the name NVTX looks up
extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(const void* (*getExportTable)(std::uint32_t))
// NOLINTEND(readability-identifier-naming)
{
    startOnce();
    // nvtx=own: our handlers record NVTX (much cheaper per range than CUPTI's MARKER records).
    ks::injection::NvtxRecorder* recorder = g_active ? g_active->nvtxRecorder() : nullptr;
    if (recorder && ks::injection::installNvtxHandlers(getExportTable, *recorder))
        return 1;
    const NvtxInitialize forward = cuptiNvtxEntry();
    return forward ? forward(getExportTable) : 1;
}

// 0 when done; -1 without a collector (not launched by `collect`, detached, a forked child).
// NOLINTNEXTLINE(readability-identifier-naming): a C symbol, named as the library's others
extern "C" __attribute__((visibility("default"))) int kinetoscope_pause_cupti(int paused)
{
    try {
        return g_active && g_active->pauseCupti(paused != 0) ? 0 : -1;
    } catch (...) {
        return -1; // out of memory or a failed lock: nothing crosses the C boundary
    }
}

// NOLINTNEXTLINE(readability-identifier-naming): the name the observer library looks up
extern "C" __attribute__((visibility("default"))) const KinetoscopeTorchOpsApi* kinetoscope_torch_ops(void)
{
    startOnce();
    static const KinetoscopeTorchOpsApi api{sizeof(KinetoscopeTorchOpsApi), &beginTorchOp, &endTorchOp};
    g_torchOps = g_active ? g_active->torchOpRecorder() : nullptr;
    return g_torchOps ? &api : nullptr;
}
