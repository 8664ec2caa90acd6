#pragma once
// Dense peak throughput per GPU model (no sparsity), from the vendors' datasheets (each entry
// names its source), matched from the trace's deviceProperties name; the roofs of the
// roofline and the base of "% of peak". Users with other clocks or parts override them
// (--peak-tflops / --peak-tbps, the GUI's settings).
#include "core/analysis/shapeargs.h"
#include "core/model/trace.h"

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ks::analysis {

// The compute roofs: one per math precision the datasheets list.
enum class PeakKind : std::uint8_t { Fp64, Fp32, Tf32, Half, Fp8 };
inline constexpr std::size_t kPeakKindCount = 5;
std::string_view peakKindName(PeakKind kind); // "FP64", "FP32", "TF32", "BF16/FP16", "FP8"
std::string_view peakKindKey(PeakKind kind); // "fp64", "fp32", "tf32", "bf16", "fp8"
std::optional<PeakKind> peakKindFromKey(std::string_view key); // also "fp16", "half"

// The roof an op's math runs against: fp32 with tensor cores is TF32; integers have none.
std::optional<PeakKind> peakKindOf(ElementType type, bool tensorCores);

struct DevicePeaks {
    std::string name; // "NVIDIA H200" (the datasheet's), or "custom"
    std::array<double, kPeakKindCount> tflops{}; // by PeakKind; 0: not listed
    double memoryTBps = 0.0; // 0: not listed
    std::string source; // the datasheet

    std::optional<double> peakTflops(PeakKind kind) const;
    std::optional<double> peakTBps() const { return memoryTBps > 0 ? std::optional(memoryTBps) : std::nullopt; }
};

std::span<const DevicePeaks> knownDevicePeaks();
// The entry for a deviceProperties name ("NVIDIA H100 80GB HBM3"), or nullptr.
const DevicePeaks* devicePeaksFor(std::string_view deviceName);

// User overrides: "--peak-tflops 989" sets every compute roof; "bf16=989,fp32=67" some.
struct PeakOverrides {
    std::array<double, kPeakKindCount> tflops{}; // 0: keep
    double memoryTBps = 0.0; // 0: keep
    bool empty() const;
    bool operator==(const PeakOverrides&) const = default;
};
// Parses --peak-tflops' text; an error message when it is not understood.
std::optional<std::string> parsePeakTflops(std::string_view text, PeakOverrides& into);
std::optional<std::string> parsePeakTBps(std::string_view text, PeakOverrides& into);

// The trace's GPU (its first device with a known entry) with the overrides applied; a device
// that is not known gets only what the overrides give.
DevicePeaks resolveDevicePeaks(const Trace& trace, const PeakOverrides& overrides = {});

} // namespace ks::analysis
