#pragma once
// Kernel-name rules for tensor cores (docs: insights-notes §2; the plugin's allow-list is out
// of date): a GEMM, convolution or attention kernel whose name carries a tensor-core marker
// (wgmma, hmma, nvjet, tf32, bf16, f16, e4m3/e5m2, i8 MMA, the 1688/16816 tiles) uses them;
// one doing fp32 SIMT/FFMA math does not.
#include <string_view>

namespace ks::gpu {

bool usesTensorCores(std::string_view kernelName);
// A GEMM/conv kernel doing fp32 math without tensor cores (the fp32-gemm insight).
bool isFp32GemmKernel(std::string_view kernelName);

} // namespace ks::gpu
