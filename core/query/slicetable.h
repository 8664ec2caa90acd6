#pragma once
// The SQL tables whose rows are slices: `slice` (every slice), `kernel` (kernels, with their
// launch configuration) and `op` (CPU operators, with what their args say about inputs).
#include "core/query/virtualtable.h"

namespace ks::query {

std::unique_ptr<TraceTable> makeSliceTable(const Trace& trace);
std::unique_ptr<TraceTable> makeKernelTable(const Trace& trace);
std::unique_ptr<TraceTable> makeOpTable(const Trace& trace);

// "cpu_op", "kernel", "cuda_runtime", ...: the slice's class as the `kind` column names it.
std::string_view sliceKindName(SliceClass kind);

} // namespace ks::query
