// Kinetoscope's PyTorch observer, loaded by the collector's sitecustomize once the program has
// imported torch. It registers one global RecordFunction callback, as torch.profiler's CPU side
// does, and hands every operator to the injection library (torchopsabi.h), which records it into
// the calling thread's NVTX ring as the range emit_nvtx would have pushed. On the program's
// thread it only reads the op's name pointer, sequence number, handle and (ops-shapes) input
// sizes: no string is formatted and no NVTX call made. C entry points; no exception crosses them.
//
// While it records, the thread that started it (and the autograd threads, which inherit its
// state) also holds a profiler state as emit_nvtx's: torch records some ranges only while a
// profiler is on (torch.compile's "Pregraph bytecode" and "AOTDispatcher Runtime Wrapper
// Prologue"), and torch.profiler shows them.
#include "collector/injection/torchopsabi.h"

#include <ATen/core/ivalue.h>
#include <ATen/record_function.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include <atomic>
#include <cstdio>
#include <dlfcn.h>
#include <vector>

namespace {

const KinetoscopeTorchOpsApi* g_api = nullptr;
at::CallbackHandle g_callback = 0;
// For the benchmark only (kinetoscope_observer_forward): false, the callbacks read the operator
// and stop short of the injection, so that the rings' cost can be told from the observer's own.
std::atomic<bool> g_forward{true};

namespace profiler = torch::profiler::impl;

// The state emit_nvtx's profiler keeps (NVTX type): "a profiler is on", nothing recorded by it.
struct OperatorsState final : profiler::ProfilerStateBase {
    explicit OperatorsState(bool withShapes)
        : ProfilerStateBase(profiler::ProfilerConfig(profiler::ProfilerState::NVTX, withShapes))
    {
    }
    profiler::ActiveProfilerType profilerType() override { return profiler::ActiveProfilerType::NVTX; }
    void reportMemoryUsage(void*, int64_t, size_t, size_t, c10::Device) override { }
};
std::shared_ptr<profiler::ProfilerStateBase> g_state;

// On the calling thread, where no other profiler is on. Best effort: without it only the
// profiler-only ranges are missing.
void pushState()
{
    try {
        if (g_state && !profiler::ProfilerStateBase::get())
            profiler::ProfilerStateBase::push(std::shared_ptr<profiler::ProfilerStateBase>(g_state));
    } catch (...) {
    }
}

void popState()
{
    try {
        if (g_state && profiler::ProfilerStateBase::get(/*global=*/false) == g_state.get())
            profiler::ProfilerStateBase::pop(/*global=*/false);
    } catch (...) {
    }
}

struct Shapes {
    std::vector<std::uint32_t> ranks;
    std::vector<std::int64_t> dims;

    void add(const at::Tensor& tensor)
    {
        const auto sizes = tensor.sizes();
        ranks.push_back(static_cast<std::uint32_t>(sizes.size()));
        dims.insert(dims.end(), sizes.begin(), sizes.end());
    }
};
thread_local Shapes t_shapes; // reused: allocates only for more inputs than seen before

// As torch's inputSizes(fn, /*flatten_list_enabled=*/true), which emit_nvtx(record_shapes=True)
// writes: one entry per input, a list's defined tensors flattened in its place.
void collectShapes(const at::RecordFunction& fn, Shapes& shapes)
{
    shapes.ranks.clear();
    shapes.dims.clear();
    for (const c10::IValue& input : fn.inputs()) {
        if (input.isTensor()) {
            if (input.toTensor().defined())
                shapes.add(input.toTensor());
            else
                shapes.ranks.push_back(0);
        } else if (input.isList()) {
            const std::size_t before = shapes.ranks.size();
            for (const c10::IValue& item : input.toListRef())
                if (item.isTensor() && item.toTensor().defined())
                    shapes.add(item.toTensor());
            if (shapes.ranks.size() == before)
                shapes.ranks.push_back(0);
        } else {
            shapes.ranks.push_back(0);
        }
    }
}

template <bool withShapes>
std::unique_ptr<at::ObserverContext> onEnter(const at::RecordFunction& fn)
{
    KinetoscopeTorchOp op{};
    op.size = sizeof op;
    op.name = fn.name();
    op.sequence = fn.seqNr();
    op.opId = fn.handle();
    if constexpr (withShapes) {
        Shapes& shapes = t_shapes;
        try {
            collectShapes(fn, shapes);
            op.shapeCount = static_cast<std::uint32_t>(shapes.ranks.size());
            op.ranks = shapes.ranks.data();
            op.dims = shapes.dims.data();
            op.dimCount = static_cast<std::uint32_t>(shapes.dims.size());
        } catch (...) { // sizes of a nested or symbolic tensor, out of memory: the op without sizes
            op.shapeCount = 0;
        }
    }
    if (g_forward.load(std::memory_order_relaxed))
        g_api->begin(&op);
    return nullptr;
}

void onExit(const at::RecordFunction&, at::ObserverContext*)
{
    if (g_forward.load(std::memory_order_relaxed))
        g_api->end();
}

// The callback's configuration, shared with the benchmark's empty one: operator scopes only,
// ids (op_id), inputs only for shapes.
using StartFn = std::unique_ptr<at::ObserverContext> (*)(const at::RecordFunction&);
using EndFn = void (*)(const at::RecordFunction&, at::ObserverContext*);
at::RecordFunctionCallback observerCallback(StartFn start, EndFn end, bool withShapes)
{
    return at::RecordFunctionCallback(start, end)
        .needsInputs(withShapes)
        .needsIds(true)
        .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION, at::RecordScope::USER_SCOPE});
}

std::unique_ptr<at::ObserverContext> onEnterEmpty(const at::RecordFunction&) { return nullptr; }
void onExitEmpty(const at::RecordFunction&, at::ObserverContext*) { }
at::CallbackHandle g_emptyCallback = 0;

void say(char* error, std::size_t errorBytes, const char* what, const char* detail)
{
    if (error && errorBytes)
        std::snprintf(error, errorBytes, "%s%s", what, detail ? detail : "");
}

} // namespace

// The major.minor release of torch this library was built against: only a program importing
// the same release may load it (the callbacks read RecordFunction's fields inline).
extern "C" __attribute__((visibility("default"))) const char* kinetoscope_observer_torch_release(void)
{
    return KS_TORCH_RELEASE;
}

// 0: operators are recorded from now on. 1: the injection declines (collector options ops=nvtx
// or nvtx=cupti, or the collector is off): use emit_nvtx. 2: a failure, described in `error`.
extern "C" __attribute__((visibility("default"))) int
kinetoscope_observer_start(const char* injectionPath, int withShapes, char* error, std::size_t errorBytes)
{
    if (g_api)
        return 0;
    // The library the CUDA driver and NVTX load by this path later: the same copy.
    void* injection = injectionPath ? dlopen(injectionPath, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!injection) {
        say(error, errorBytes, "cannot load the injection library: ", dlerror());
        return 2;
    }
    const auto entry = reinterpret_cast<KinetoscopeTorchOpsEntry>(dlsym(injection, KINETOSCOPE_TORCH_OPS_ENTRY));
    if (!entry) {
        say(error, errorBytes, "the injection library has no " KINETOSCOPE_TORCH_OPS_ENTRY, nullptr);
        return 2;
    }
    const KinetoscopeTorchOpsApi* api = entry();
    if (!api)
        return 1;
    if (api->size < sizeof(KinetoscopeTorchOpsApi)) {
        say(error, errorBytes, "the injection library is older than this observer", nullptr);
        return 2;
    }
    try {
        g_api = api;
        g_callback = at::addGlobalCallback(
            observerCallback(withShapes ? &onEnter<true> : &onEnter<false>, &onExit, withShapes != 0));
        g_state = std::make_shared<OperatorsState>(withShapes != 0);
        pushState();
        return 0;
    } catch (const std::exception& e) {
        g_api = nullptr;
        say(error, errorBytes, "cannot add the RecordFunction callback: ", e.what());
        return 2;
    } catch (...) {
        g_api = nullptr;
        say(error, errorBytes, "cannot add the RecordFunction callback", nullptr);
        return 2;
    }
}

// While torch.profiler runs, the collector's operators pause (as emit_nvtx's did), and its
// profiler state steps aside (torch.profiler refuses to start over another).
extern "C" __attribute__((visibility("default"))) void kinetoscope_observer_pause(int paused)
{
    if (!g_api)
        return;
    try {
        if (paused) {
            at::disableCallback(g_callback);
            popState();
        } else {
            at::reenableCallback(g_callback);
            pushState();
        }
    } catch (...) {
        // an unknown handle: nothing to pause
    }
}

// For the benchmark (bench/gpu/collector-overhead, paired mode collect-nop): 0, the callbacks do
// all their work but hand nothing to the injection; 1 (the default), they do. Switch it only
// while no operator is open (between the benchmark's blocks).
extern "C" __attribute__((visibility("default"))) void kinetoscope_observer_forward(int on)
{
    g_forward.store(on != 0, std::memory_order_relaxed);
}

// For the benchmark (bench/gpu/collector-overhead, modes rf-empty and rf-empty-shapes): a global
// callback of the observer's configuration that does nothing, without the injection, so that
// RecordFunction's own cost per operator (the floor under any operator source built on it) can
// be told from ours. on=1 adds it, on=0 removes it. 0 when done, 1 on failure.
extern "C" __attribute__((visibility("default"))) int kinetoscope_observer_empty_callback(int withShapes, int on)
{
    try {
        if (on && !g_emptyCallback)
            g_emptyCallback = at::addGlobalCallback(observerCallback(&onEnterEmpty, &onExitEmpty, withShapes != 0));
        else if (!on && g_emptyCallback) {
            at::removeCallback(g_emptyCallback);
            g_emptyCallback = 0;
        }
        return 0;
    } catch (...) {
        return 1;
    }
}
