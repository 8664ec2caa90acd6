#include "core/analysis/devicepeaks.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace ks::analysis {

namespace {

// Dense (not sparse) tensor-core figures; FP64 is the FP64 tensor-core/matrix rate where the
// part has one (what DGEMM runs at), FP32 the non-tensor (SIMT / vector) rate that fp32 GEMMs
// without TF32 reach. "Half" is BF16 and FP16 with FP32 accumulation. 0: not in the datasheet.
//                                  FP64    FP32    TF32    BF16    FP8      TB/s
const DevicePeaks kPeaks[] = {
    {"NVIDIA A100 SXM4 80GB",
     {19.5, 19.5, 156, 312, 0},
     2.039,
     "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf)"},
    {"NVIDIA A100 PCIe 80GB", {19.5, 19.5, 156, 312, 0}, 1.935, "NVIDIA A100 Tensor Core GPU datasheet"},
    {"NVIDIA A100 40GB", {19.5, 19.5, 156, 312, 0}, 1.555, "NVIDIA A100 Tensor Core GPU datasheet"},
    {"NVIDIA H100 PCIe",
     {51, 51, 378, 756, 1513},
     2.0,
     "NVIDIA H100 Tensor Core GPU datasheet (h100-datasheet-2430615), PCIe column, sparse figures halved"},
    {"NVIDIA H100 SXM",
     {67, 67, 494.5, 989.5, 1979},
     3.35,
     "NVIDIA H100 Tensor Core GPU datasheet (h100-datasheet-2430615), SXM column, sparse figures halved"},
    {"NVIDIA H200",
     {67, 67, 494.5, 989.5, 1979},
     4.8,
     "NVIDIA H200 Tensor Core GPU datasheet (SXM column), sparse figures halved"},
    {"NVIDIA B200",
     {37, 75, 1100, 2250, 4500},
     8.0,
     "NVIDIA HGX B200 datasheet (8 GPUs: FP64 296 TF, FP32 600 TF, TF32 18 PF, BF16 36 PF, FP8 72 PF sparse,"
     " 64 TB/s) per GPU, sparse figures halved"},
    {"NVIDIA L4", {0, 30.3, 60, 121, 242.5}, 0.3, "NVIDIA L4 Tensor Core GPU datasheet, sparse figures halved"},
    {"NVIDIA L40S", {0, 91.6, 183, 362.05, 733}, 0.864, "NVIDIA L40S datasheet, sparse figures halved"},
    {"NVIDIA GeForce RTX 4090",
     {0, 82.6, 82.6, 165.2, 330.3},
     1.008,
     "NVIDIA Ada Lovelace GPU Architecture whitepaper v2.02, Appendix A (FP32 accumulate)"},
    {"NVIDIA GeForce RTX 5090",
     {0, 104.8, 104.8, 209.5, 419},
     1.792,
     "NVIDIA RTX Blackwell GPU Architecture whitepaper v1.0, Appendix A (FP32 accumulate)"},
    {"AMD Instinct MI300X",
     {163.4, 163.4, 653.7, 1307.4, 2614.9},
     5.3,
     "AMD Instinct MI300X accelerator data sheet (matrix rates, dense)"},
};

std::string upper(std::string_view text)
{
    std::string out(text);
    for (char& c : out)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

// `token` occurs in `name` as a whole word (not "L4" inside "L40S").
bool hasToken(const std::string& name, std::string_view token)
{
    for (std::size_t at = name.find(token); at != std::string::npos; at = name.find(token, at + 1)) {
        const std::size_t end = at + token.size();
        const bool startOk = at == 0 || !std::isalnum(static_cast<unsigned char>(name[at - 1]));
        const bool endOk = end == name.size() || !std::isalnum(static_cast<unsigned char>(name[end]));
        if (startOk && endOk)
            return true;
    }
    return false;
}

const DevicePeaks* byName(std::string_view name)
{
    for (const DevicePeaks& p : kPeaks) {
        if (p.name == name)
            return &p;
    }
    return nullptr;
}

std::optional<double> parsePositive(std::string_view text)
{
    while (!text.empty() && text.front() == ' ')
        text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ')
        text.remove_suffix(1);
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0 || value > 1e7)
        return std::nullopt;
    return value;
}

} // namespace

std::string_view peakKindName(PeakKind kind)
{
    switch (kind) {
    case PeakKind::Fp64: return "FP64";
    case PeakKind::Fp32: return "FP32";
    case PeakKind::Tf32: return "TF32";
    case PeakKind::Half: return "BF16/FP16";
    case PeakKind::Fp8: return "FP8";
    }
    return "";
}

std::string_view peakKindKey(PeakKind kind)
{
    switch (kind) {
    case PeakKind::Fp64: return "fp64";
    case PeakKind::Fp32: return "fp32";
    case PeakKind::Tf32: return "tf32";
    case PeakKind::Half: return "bf16";
    case PeakKind::Fp8: return "fp8";
    }
    return "";
}

std::optional<PeakKind> peakKindFromKey(std::string_view key)
{
    for (std::size_t k = 0; k < kPeakKindCount; ++k) {
        if (peakKindKey(PeakKind(k)) == key)
            return PeakKind(k);
    }
    if (key == "fp16" || key == "half")
        return PeakKind::Half;
    return std::nullopt;
}

std::optional<PeakKind> peakKindOf(ElementType type, bool tensorCores)
{
    switch (type) {
    case ElementType::Fp64: return PeakKind::Fp64;
    case ElementType::Fp32: return tensorCores ? PeakKind::Tf32 : PeakKind::Fp32;
    case ElementType::Fp16:
    case ElementType::Bf16: return PeakKind::Half;
    case ElementType::Fp8: return PeakKind::Fp8;
    default: return std::nullopt;
    }
}

std::optional<double> DevicePeaks::peakTflops(PeakKind kind) const
{
    const double value = tflops[std::size_t(kind)];
    return value > 0 ? std::optional(value) : std::nullopt;
}

std::span<const DevicePeaks> knownDevicePeaks() { return kPeaks; }

const DevicePeaks* devicePeaksFor(std::string_view deviceName)
{
    const std::string name = upper(deviceName);
    if (hasToken(name, "MI300X"))
        return byName("AMD Instinct MI300X");
    if (hasToken(name, "B200"))
        return byName("NVIDIA B200");
    if (hasToken(name, "H200"))
        return byName("NVIDIA H200");
    if (hasToken(name, "H100"))
        return byName(name.find("PCIE") != std::string::npos ? "NVIDIA H100 PCIe" : "NVIDIA H100 SXM");
    if (hasToken(name, "A100")) {
        if (name.find("40GB") != std::string::npos)
            return byName("NVIDIA A100 40GB");
        return byName(name.find("PCIE") != std::string::npos ? "NVIDIA A100 PCIe 80GB" : "NVIDIA A100 SXM4 80GB");
    }
    if (hasToken(name, "L40S"))
        return byName("NVIDIA L40S");
    if (hasToken(name, "L4"))
        return byName("NVIDIA L4");
    if (hasToken(name, "4090"))
        return byName("NVIDIA GeForce RTX 4090");
    if (hasToken(name, "5090"))
        return byName("NVIDIA GeForce RTX 5090");
    return nullptr;
}

bool PeakOverrides::empty() const
{
    return memoryTBps <= 0 && std::all_of(tflops.begin(), tflops.end(), [](double v) { return v <= 0; });
}

std::optional<std::string> parsePeakTflops(std::string_view text, PeakOverrides& into)
{
    if (text.find('=') == std::string_view::npos) {
        const auto value = parsePositive(text);
        if (!value)
            return "expected a positive number of TFLOP/s or DTYPE=TFLOPS,... (fp64, fp32, tf32, bf16, fp8)";
        into.tflops.fill(*value);
        return std::nullopt;
    }
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        const std::size_t eq = item.find('=');
        const auto kind = eq == std::string_view::npos ? std::nullopt : peakKindFromKey(item.substr(0, eq));
        const auto value = eq == std::string_view::npos ? std::nullopt : parsePositive(item.substr(eq + 1));
        if (!kind || !value)
            return "'" + std::string(item) + "': expected DTYPE=TFLOPS with DTYPE one of fp64, fp32, tf32, bf16, fp8";
        into.tflops[std::size_t(*kind)] = *value;
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return std::nullopt;
}

std::optional<std::string> parsePeakTBps(std::string_view text, PeakOverrides& into)
{
    const auto value = parsePositive(text);
    if (!value)
        return "expected a positive number of TB/s";
    into.memoryTBps = *value;
    return std::nullopt;
}

DevicePeaks resolveDevicePeaks(const Trace& trace, const PeakOverrides& overrides)
{
    DevicePeaks peaks;
    peaks.name = trace.deviceProperties().empty() ? std::string() : trace.deviceProperties().front().name;
    for (const DeviceProperties& device : trace.deviceProperties()) {
        if (const DevicePeaks* known = devicePeaksFor(device.name)) {
            peaks = *known;
            break;
        }
    }
    for (std::size_t k = 0; k < kPeakKindCount; ++k) {
        if (overrides.tflops[k] > 0)
            peaks.tflops[k] = overrides.tflops[k];
    }
    if (overrides.memoryTBps > 0)
        peaks.memoryTBps = overrides.memoryTBps;
    if (!overrides.empty())
        peaks.source += peaks.source.empty() ? "user override" : "; with user overrides";
    return peaks;
}

} // namespace ks::analysis
