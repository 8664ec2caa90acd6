#pragma once
// The user's peak overrides for % of peak and the roofline (docs/roofline.md), kept in the
// settings in the CLI's syntax: "989" (every precision) or "bf16=900,fp32=60", and TB/s.
#include "core/analysis/devicepeaks.h"

#include <QString>

namespace ks {

struct PeakSettings {
    QString tflops; // --peak-tflops' text, "" for the datasheet
    QString tbps; // --peak-tbps' text

    static PeakSettings load();
    void save() const;
    // The overrides the texts give; what does not parse is left to the datasheet.
    analysis::PeakOverrides overrides() const;
};

} // namespace ks
