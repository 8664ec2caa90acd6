#include "core/model/trace.h"
#include "core/model/utf8.h"

#include <algorithm>

namespace ks {

SliceClass classifyCategory(std::string_view c)
{
    // Exact kineto names first (the hot path), then the legacy aliases TensorBoard accepted.
    if (c == "cpu_op" || c == "Operator" || c == "operator")
        return SliceClass::CpuOp;
    if (c == "python_function")
        return SliceClass::PythonFunction;
    if (c == "user_annotation")
        return SliceClass::UserAnnotation;
    if (c == "cuda_runtime" || c == "Runtime" || c == "runtime")
        return SliceClass::CudaRuntime;
    if (c == "cuda_driver")
        return SliceClass::CudaDriver;
    if (c == "kernel" || c == "Kernel")
        return SliceClass::Kernel;
    if (c == "gpu_memcpy" || c == "Memcpy" || c == "memcpy")
        return SliceClass::Memcpy;
    if (c == "gpu_memset" || c == "Memset" || c == "memset")
        return SliceClass::Memset;
    if (c == "gpu_user_annotation")
        return SliceClass::GpuUserAnnotation;
    if (c == "overhead")
        return SliceClass::Overhead;
    return SliceClass::Other;
}

bool isDeviceCategory(std::string_view c)
{
    switch (classifyCategory(c)) {
    case SliceClass::Kernel:
    case SliceClass::Memcpy:
    case SliceClass::Memset:
    case SliceClass::GpuUserAnnotation: return true;
    default: return c == "cuda_sync" || c == "cuda_event";
    }
}

const std::string* Trace::metadataValue(std::string_view key) const
{
    for (const auto& [k, v] : m_metadata) {
        if (k == key)
            return &v;
    }
    return nullptr;
}

SliceClass Trace::classOf(SliceId s) const { return m_categoryClass[m_slices.category[s]]; }

TimeNs Trace::selfTime(SliceId s) const
{
    const auto rowIndex = m_slices.row[s];
    const auto& row = m_rows[rowIndex];
    TimeNs self = m_slices.duration[s];
    if (rowIndex + 1 >= m_rows.size())
        return self;
    const auto& child = m_rows[rowIndex + 1];
    if (child.track != row.track || child.lane != row.lane)
        return self;
    const TimeNs start = m_slices.start[s];
    const TimeNs end = m_slices.end(s);
    auto first = m_slices.start.begin() + child.begin;
    auto last = m_slices.start.begin() + child.end;
    for (auto it = std::lower_bound(first, last, start); it != last && *it < end; ++it) {
        const auto c = static_cast<SliceId>(it - m_slices.start.begin());
        self -= std::min(end, m_slices.end(c)) - *it;
    }
    return std::max<TimeNs>(self, 0);
}

SliceId Trace::firstEndingAfter(std::uint32_t rowIndex, TimeNs t) const
{
    const auto& row = m_rows[rowIndex];
    // Within a row slices do not overlap, so their ends are sorted like their starts.
    SliceId lo = row.begin, hi = row.end;
    while (lo < hi) {
        const SliceId mid = lo + (hi - lo) / 2;
        if (m_slices.end(mid) > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

SliceId Trace::sliceAt(std::uint32_t rowIndex, TimeNs t) const
{
    const SliceId s = firstEndingAfter(rowIndex, t);
    if (s < m_rows[rowIndex].end && m_slices.start[s] <= t)
        return s;
    return kNoSlice;
}

const GpuOpInfo* Trace::gpuOpInfo(SliceId s) const
{
    auto it = std::lower_bound(m_gpuOpSlices.begin(), m_gpuOpSlices.end(), s);
    if (it == m_gpuOpSlices.end() || *it != s)
        return nullptr;
    return &m_gpuOpRecords[m_gpuOpRecordOf[static_cast<std::size_t>(it - m_gpuOpSlices.begin())]];
}

std::string Trace::eventText(SliceId s) const
{
    std::string out;
    if (m_textSource && m_slices.rawLength[s])
        m_textSource->read(m_slices.rawOffset[s], m_slices.rawLength[s], out);
    // Valid UTF-8 for every consumer, whatever the file held (core/model/utf8.h).
    if (utf8::firstInvalidJson(out) != utf8::kValid)
        out = utf8::sanitizedJson(out);
    return out;
}

std::string Trace::instantText(std::uint32_t i) const
{
    std::string out;
    if (m_textSource && m_instants.rawLength[i])
        m_textSource->read(m_instants.rawOffset[i], m_instants.rawLength[i], out);
    // Valid UTF-8 for every consumer, whatever the file held (core/model/utf8.h).
    if (utf8::firstInvalidJson(out) != utf8::kValid)
        out = utf8::sanitizedJson(out);
    return out;
}

namespace {

std::span<const std::uint32_t> flowRange(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& index,
                                         SliceId s, SliceId Flow::*end)
{
    auto lo = std::partition_point(index.begin(), index.end(), [&](std::uint32_t f) { return flows[f].*end < s; });
    auto hi = std::partition_point(lo, index.end(), [&](std::uint32_t f) { return flows[f].*end == s; });
    return {index.data() + (lo - index.begin()), static_cast<std::size_t>(hi - lo)};
}

std::string idText(const Trace& trace, JsonId id)
{
    return id.isText ? std::string(trace.str(id.text)) : std::to_string(id.number);
}

std::string trimmed(std::string_view s)
{
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    return std::string(s);
}

} // namespace

std::span<const std::uint32_t> Trace::incomingFlows(SliceId s) const
{
    return flowRange(m_flows, m_flowsByTo, s, &Flow::to);
}

std::span<const std::uint32_t> Trace::outgoingFlows(SliceId s) const
{
    return flowRange(m_flows, m_flowsByFrom, s, &Flow::from);
}

std::span<const FlowHalf> Trace::unpairedFlowHalves(SliceId s) const
{
    auto range =
        std::equal_range(m_unpairedHalves.begin(), m_unpairedHalves.end(), FlowHalf{0, 0, 0, s, kNoIndex, false},
                         [](const FlowHalf& a, const FlowHalf& b) { return a.slice < b.slice; });
    return {m_unpairedHalves.data() + (range.first - m_unpairedHalves.begin()),
            static_cast<std::size_t>(range.second - range.first)};
}

const DeviceProperties* Trace::deviceFor(int deviceIndex) const
{
    for (const auto& d : m_deviceProperties) {
        if (d.id == deviceIndex)
            return &d;
    }
    return nullptr;
}

std::string Trace::processDisplayName(std::uint32_t process) const
{
    const auto& p = m_processes[process];
    if (p.isDevice) {
        std::string out = p.deviceIndex >= 0 ? "GPU " + std::to_string(p.deviceIndex) : idText(*this, p.pid);
        if (const auto* d = deviceFor(p.deviceIndex); d && !d->name.empty())
            out += " · " + d->name;
        return out;
    }
    if (p.pid.isText)
        return idText(*this, p.pid);
    if (p.pid.number < 0 && p.name.empty())
        return "CUPTI overhead (pid " + std::to_string(p.pid.number) + ")";
    return (p.name.empty() ? std::string("Process") : p.name) + " (" + std::to_string(p.pid.number) + ")";
}

std::string Trace::trackDisplayName(std::uint32_t track) const
{
    const auto& t = m_tracks[track];
    if (!t.name.empty())
        return trimmed(t.name);
    if (t.tid.isText) // async tracks and string tids name themselves
        return idText(*this, t.tid);
    switch (t.kind) {
    case TrackKind::GpuStream: return "stream " + idText(*this, t.tid);
    case TrackKind::CpuThread: return "thread " + idText(*this, t.tid);
    case TrackKind::Other: break;
    }
    return idText(*this, t.tid);
}

Trace::MemoryUse Trace::memoryUse() const
{
    // Elements in use: the loader reserves columns for the largest plausible event count, and
    // capacity that was never written is address space, not memory.
    auto bytes = [](const auto& v) { return v.size() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
    MemoryUse m;
    m.strings = m_strings.memoryBytes() + m_shapeArgs.memoryBytes();
    const auto& t = m_slices;
    m.slices = bytes(t.start) + bytes(t.duration) + bytes(t.name) + bytes(t.category) + bytes(t.row)
        + bytes(t.correlation) + bytes(t.externalId) + bytes(t.shapeArgs);
    const auto& i = m_instants;
    m.instants = bytes(i.time) + bytes(i.name) + bytes(i.category) + bytes(i.track) + bytes(i.process) + bytes(i.scope);
    m.textOffsets = bytes(t.rawOffset) + bytes(t.rawLength) + bytes(i.rawOffset) + bytes(i.rawLength);
    for (const auto& c : m_counters)
        m.counters += bytes(c.time) + bytes(c.value) + c.name.capacity();
    m.kept = bytes(m_keptEntries);
    m.flows = bytes(m_flows) + bytes(m_flowsByTo) + bytes(m_flowsByFrom) + bytes(m_unpairedHalves) + bytes(m_flowTexts);
    m.lanes = bytes(m_rows) + bytes(m_tracks) + bytes(m_processes);
    for (const auto& tr : m_tracks)
        m.lanes += bytes(tr.lanes) + tr.name.capacity();
    m.gpuOps = bytes(m_gpuOpSlices) + bytes(m_gpuOpRecordOf) + m_gpuOpRecordOf.size() * sizeof(GpuOpInfo);
    return m;
}

} // namespace ks
