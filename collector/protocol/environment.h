#pragma once
// Environment variables through which the host tells the injection library where to
// connect. They survive exec, so every CUDA process started below the target (torchrun
// workers, multiprocessing, subprocess) connects on its own.
namespace ks::wire {

inline constexpr const char* kCudaInjectionEnv = "CUDA_INJECTION64_PATH";
inline constexpr const char* kNvtxInjectionEnv = "NVTX_INJECTION64_PATH";
inline constexpr const char* kSocketEnv = "KINETOSCOPE_COLLECTOR_SOCKET";
inline constexpr const char* kTokenEnv = "KINETOSCOPE_COLLECTOR_TOKEN";
// Comma-separated key=value options for the injection library, e.g. "buffer_mb=8,max_buffers=32".
inline constexpr const char* kOptionsEnv = "KINETOSCOPE_COLLECTOR_OPTIONS";

} // namespace ks::wire
