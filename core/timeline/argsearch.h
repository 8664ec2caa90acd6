#pragma once
// Search in the args of slices (keys and values: shapes such as "[[16, 128, 512]]",
// "External id", stream numbers). Args are not in the model: each slice's raw event text
// is read back from the trace's source in offset order, in batches, so the cost is one
// pass over the file; run it off the GUI thread. Case and white space are ignored, so
// "[[16,128,512]]" finds what kineto wrote as "[[16, 128, 512]]".
#include "core/model/trace.h"

#include <atomic>
#include <string_view>
#include <vector>

namespace ks {

struct ArgSearchControl {
    std::atomic<bool> cancelled{false};
    std::atomic<std::size_t> done{0}; // slices searched so far, of the trace's total
};

// Matching slices ordered by start; stops early (and returns what it found so far) once
// `control.cancelled` is set.
std::vector<SliceId> searchSliceArgs(const Trace& trace, std::string_view needle, ArgSearchControl& control);

// Whether `text` contains `needle`, ignoring ASCII case and white space in both.
bool containsLoosely(std::string_view text, std::string_view needle);

} // namespace ks
