#include "collector/host/recordtextwriter.h"

namespace ks::collector {
namespace {

constexpr std::string_view kUserAnnotation = "\"user_annotation\"";
constexpr std::string_view kCollector = "\"collector\"";

std::string_view quotedCategory(EventCategory category)
{
    static const auto table = [] {
        std::vector<std::string> quoted;
        for (int c = 0; c <= static_cast<int>(EventCategory::GpuAnnotation); ++c)
            quoted.push_back(jsonQuoted(categoryName(static_cast<EventCategory>(c))));
        return quoted;
    }();
    return table[static_cast<std::size_t>(category)];
}

double bandwidthGBs(std::uint64_t bytes, TimeNs duration)
{
    return duration > 0 ? static_cast<double>(bytes) / static_cast<double>(duration) : 0.0;
}

// kineto's args of a copy or a memset.
template <typename TransferRecord>
EventText transferArgs(const TransferRecord& r, TimeNs duration)
{
    EventText args;
    args.add("device", r.device)
        .add("context", r.context)
        .add("stream", r.stream)
        .add("correlation", r.correlation)
        .add("bytes", r.bytes)
        .add("memory bandwidth (GB/s)", bandwidthGBs(r.bytes, duration));
    return args;
}

} // namespace

RecordTextWriter::RecordTextWriter(std::shared_ptr<TextArena> arena)
    : m_arena(std::move(arena))
{
}

RecordTextWriter::Span RecordTextWriter::slice(const RecordedSlice& slice, const EventText& args)
{
    return m_arena->append(completeEventText(quotedCategory(slice.category), m_quotedNames[slice.name], slice.pid,
                                             slice.tid, slice.start, slice.duration, args));
}

RecordTextWriter::Span RecordTextWriter::instant(std::string_view quotedCategory, std::int64_t pid,
                                                 const RecordedInstant& instant, const EventText& args)
{
    return m_arena->append(
        instantEventText(quotedCategory, m_quotedNames[instant.name], pid, instant.tid, instant.time, args));
}

RecordTextWriter::Span RecordTextWriter::kernel(const RecordedSlice& s, const wire::Kernel& k, TimeNs queued,
                                                std::int64_t sharedMemory,
                                                const std::optional<KernelOccupancy>& occupancy)
{
    EventText args;
    args.add("queued", queued)
        .add("device", k.device)
        .add("context", k.context)
        .add("stream", k.stream)
        .add("correlation", k.correlation)
        .add("registers per thread", k.registersPerThread)
        .add("shared memory", sharedMemory);
    if (occupancy)
        args.add("blocks per SM", occupancy->blocksPerSm).add("warps per SM", occupancy->warpsPerSm);
    args.add("grid", k.grid).add("block", k.block);
    // A real cluster: every extent positive and one above 1 (no product: the record is untrusted).
    if (k.cluster[0] > 0 && k.cluster[1] > 0 && k.cluster[2] > 0
        && (k.cluster[0] > 1 || k.cluster[1] > 1 || k.cluster[2] > 1))
        args.add("cluster", k.cluster);
    if (occupancy && occupancy->estAchievedPct)
        args.add("est. achieved occupancy %", *occupancy->estAchievedPct);
    if (k.graphId != 0)
        args.add("graph id", k.graphId).add("graph node id", k.graphNodeId);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::memcpy(const RecordedSlice& s, const wire::Memcpy& m)
{
    EventText args = transferArgs(m, s.duration);
    if (m.copyKind == 10) // peer to peer
        args.add("fromDevice", m.srcDevice).add("toDevice", m.dstDevice);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::memset(const RecordedSlice& s, const wire::Memset& m)
{
    return slice(s, transferArgs(m, s.duration));
}

RecordTextWriter::Span RecordTextWriter::api(const RecordedSlice& s, const wire::Api& a)
{
    EventText args;
    args.add("cbid", a.cbid).add("correlation", a.correlation);
    if (a.returnValue != 0)
        args.add("return value", a.returnValue);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::sync(const RecordedSlice& s, const wire::Sync& sync, bool hasStream,
                                              bool hasEvent)
{
    EventText args;
    args.add("device", s.pid).add("context", sync.context).add("correlation", sync.correlation);
    if (hasStream)
        args.add("stream", sync.stream);
    if (hasEvent)
        args.add("event", sync.event);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::range(const RecordedSlice& s, std::optional<std::string_view> domain)
{
    EventText args;
    if (domain)
        args.addText("domain", *domain);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::opRange(const RecordedSlice& s, const TorchOp& op, std::string_view inputDims)
{
    EventText args;
    args.add("External id", op.externalId);
    if (op.sequence >= 0) {
        // kineto's forward thread is RecordFunction's id of the thread that ran the forward
        // op: 0 on forward ops, the main thread's 1 on backward ops (NVTX does not say which
        // thread ran the forward op; training loops run it on the main thread).
        args.add("Sequence number", op.sequence).add("Fwd thread id", op.backward ? 1 : 0);
    }
    if (!inputDims.empty())
        args.validated("Input Dims", inputDims);
    return slice(s, args);
}

RecordTextWriter::Span RecordTextWriter::overhead(const RecordedSlice& s) { return slice(s, EventText()); }

RecordTextWriter::Span RecordTextWriter::mark(std::int64_t pid, const RecordedInstant& i,
                                              std::optional<std::string_view> domain)
{
    EventText args;
    if (domain)
        args.addText("domain", *domain);
    return instant(kUserAnnotation, pid, i, args);
}

RecordTextWriter::Span RecordTextWriter::error(std::int64_t pid, const RecordedInstant& i, std::int32_t code)
{
    return instant(kCollector, pid, i, EventText().add("code", code));
}

RecordTextWriter::Span RecordTextWriter::ending(std::int64_t pid, const RecordedInstant& i, std::string_view reason)
{
    return instant(kCollector, pid, i, EventText().addText("reason", reason));
}

} // namespace ks::collector
