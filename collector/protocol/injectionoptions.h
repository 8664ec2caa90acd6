#pragma once
// The injection library's options, as `collect --collector-options` writes them into
// KINETOSCOPE_COLLECTOR_OPTIONS: comma-separated key=value items. One parser for both ends:
// the host rejects a bad list with a message before it starts anything, the injection (which
// has nobody to tell) keeps its defaults for what it cannot read.
#include <cstddef>
#include <string>
#include <string_view>

namespace ks::wire {

struct InjectionOptions {
    std::size_t bufferBytes = 8u << 20; // buffer_mb
    std::size_t maxBuffers = 32; // max_buffers: 256 MB at most in flight
    int flushPeriodMs = 100; // flush_ms
    // consumer=drop: completed buffers go back to CUPTI unread (no translation, nothing sent):
    // what CUPTI itself costs the program, the floor under any consumer of ours.
    bool dropBuffers = false;
    // kinds=kineto: only what torch.profiler enables (kernels, copies, memsets, runtime and
    // driver calls, overhead) plus DEVICE and MARKER; kinds=all adds SYNCHRONIZATION and peer copies.
    bool kinetoKindsOnly = false;
    // api=kineto (default): CUDA calls torch.profiler would show: no cudaGetLastError,
    // cudaGetDevice, cudaSetDevice, cudaEventCreate/Destroy, and of the driver calls only those that
    // launch, copy, set, allocate or wait (cuBLAS's own queries are hundreds a step); api=all: every call.
    bool allApiCalls = false;
    // thread_ids=cupti: CUPTI's own thread ids instead of the system's (gettid, as torch writes
    // them); for measurement only: the trace's CPU threads no longer match /proc's.
    bool systemThreadIds = true;
    // nvtx=own: NVTX ranges and marks are recorded by the injection itself (a per-thread ring,
    // no lock); nvtx=cupti leaves them to CUPTI's MARKER records (several µs a range).
    bool ownNvtx = true;
    // ops=observer: PyTorch operators come from the observer library (RecordFunction callbacks,
    // no text formatted on the program's threads) where it was built and nvtx=own; ops=nvtx:
    // always from emit_nvtx's NVTX ranges (the sitecustomize's fallback).
    bool torchObserver = true;
    // stats=1: the injection prints its per-stage counters and timers on stderr at exit.
    bool stats = false;
    // clock=realtime: the injection's own records (NVTX ranges, PyTorch operators) read
    // clock_gettime(CLOCK_REALTIME), the clock CUPTI itself reads on Linux, where both agree;
    // clock=cupti: cuptiGetTimestamp() for each (two calls an operator, ~1 µs each on the GPU
    // machine). For measurement.
    bool cuptiClock = false;
};

// False with a message naming the bad item; `options` keeps what was read before it.
bool parseInjectionOptions(std::string_view text, InjectionOptions& options, std::string& error);

} // namespace ks::wire
