#pragma once
// The points of the roofline view: one per op name and input shapes with a FLOP count and
// device time (composite ops such as linear left out: their children are the points), with
// the kernels their calls launched, against the device's roofs (docs/roofline.md).
#include "core/analysis/opcosts.h"
#include "core/facts/tracefacts.h"

#include <string>
#include <vector>

namespace ks::analysis {

struct RooflinePoint {
    std::string name, shapes;
    std::optional<PeakKind> roof;
    double flops = 0.0, bytes = 0.0, deviceNs = 0.0;
    double tflopsPerS = 0.0, flopsPerByte = 0.0;
    std::optional<double> peakFraction;
    Bound bound = Bound::Unknown;
    std::uint64_t calls = 0;
    std::vector<SliceId> kernels; // launched by the calls themselves, by start time
};

struct Roofline {
    DevicePeaks peaks;
    std::vector<RooflinePoint> points; // by device time, largest first
};

Roofline computeRoofline(const facts::TraceFacts& facts, const OpCosts& costs, const PeakOverrides& overrides = {});

} // namespace ks::analysis
