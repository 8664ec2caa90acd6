#pragma once
// FLOPs and bytes of the op calls of an operator table (flopcount.h per call, from the shape
// args each op's event text carries), and per row what they make of its device time:
// achieved TFLOP/s, the fraction of its precision's peak, FLOPs per byte and whether the row
// sits under the compute or the memory roof (docs/roofline.md).
#include "core/analysis/devicepeaks.h"
#include "core/analysis/flopcount.h"
#include "core/stats/operatortable.h"

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ks::analysis {

// The costs of op calls, looked up by slice.
class OpCosts {
public:
    // Reads the event texts of the CPU ops in `rows` that have a rule (flopcount.h), in one pass.
    static OpCosts ofRows(const Trace& trace, std::span<const OperatorRow> rows);
    // The same for the given op slices.
    static OpCosts ofOps(const Trace& trace, std::vector<SliceId> ops);
    // Every CPU op of the trace that has a rule: computed once per trace (reading the texts is
    // most of the cost), then every operator table of it (ranges, shapes) only looks up.
    static OpCosts ofTrace(const Trace& trace);

    const OpCost* find(SliceId op) const; // nullptr for an op without a rule
    bool empty() const { return m_costs.empty(); }
    // Ops whose shape args were absurd (negative sizes, element counts past 2^63): counted,
    // with the first few messages, so that tools can warn once.
    std::size_t absurdOps() const { return m_absurdOps; }
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    // By slice, each an index into m_distinct: the calls of a loop share a few costs, and the
    // GUI keeps these for the whole trace (8 bytes a call).
    std::vector<std::pair<SliceId, std::uint32_t>> m_costs;
    std::vector<OpCost> m_distinct;
    std::size_t m_absurdOps = 0;
    std::vector<std::string> m_warnings;
};

enum class Bound : std::uint8_t { Unknown, Compute, Memory };
std::string_view boundName(Bound bound); // "unknown", "compute", "memory"

// One operator row (or shape group) against the device's roofs. Every figure is missing when
// one of the row's calls has no count (no shapes, no rule, shapes the rule cannot read).
struct RowRoofline {
    CostRule rule = CostRule::None;
    std::optional<std::int64_t> flops, bytes; // over the row's calls
    std::optional<ElementType> type; // when all calls share it
    std::optional<PeakKind> peakKind; // the roof the row's math runs against
    std::optional<double> tflopsPerS; // FLOPs / device time of the calls' kernels
    std::optional<double> tbPerS; // bytes / the same time
    std::optional<double> peakFraction; // of peakKind's roof
    std::optional<double> tf32PeakFraction; // fp32 rows: of the TF32 roof as well
    std::optional<double> flopsPerByte;
    Bound bound = Bound::Unknown;
    bool composite = false; // linear, matmul, conv2d: their children carry the work too
    std::string unknownReason; // the first call's, when flops are missing

    bool hasFlops() const { return flops.has_value(); }
};

RowRoofline rooflineOfRow(const OperatorRow& row, const OpCosts& costs, const DevicePeaks& peaks);

// The kernels one op call launched: those its runtime calls (itself or nested in it) point to
// by flow, by start time. From the model, for one call (Details): no per-trace pass.
std::vector<SliceId> kernelsLaunchedBy(const Trace& trace, SliceId op);
// One call against the roofs, over the device time of the kernels it launched (as its own
// one-call row of the operator table); `row.deviceTotal` is that time.
RowRoofline rooflineOfCall(const Trace& trace, SliceId op, const DevicePeaks& peaks, OperatorRow* row = nullptr);

} // namespace ks::analysis
