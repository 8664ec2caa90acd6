#include "core/analysis/criticalpathbuilder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace ks::analysis {

namespace {

bool isHostClass(SliceClass c)
{
    return c == SliceClass::CpuOp || c == SliceClass::UserAnnotation || c == SliceClass::CudaRuntime
        || c == SliceClass::CudaDriver;
}

bool isGpuClass(SliceClass c) { return c == SliceClass::Kernel || c == SliceClass::Memcpy || c == SliceClass::Memset; }

bool isSyncCall(std::string_view name) { return name.find("Synchronize") != std::string_view::npos; }

PathKind hostKind(SliceClass c, std::string_view name)
{
    if (c == SliceClass::CudaRuntime || c == SliceClass::CudaDriver)
        return isSyncCall(name) ? PathKind::SyncWait : PathKind::Launch;
    return PathKind::CpuOp; // ops, and annotations' own time (Python between ops)
}

PathKind gpuKind(SliceClass c)
{
    return c == SliceClass::Memcpy ? PathKind::Memcpy : c == SliceClass::Memset ? PathKind::Memset : PathKind::Kernel;
}

// One build: the items of the window, their nodes (item i: start 2 + 2i, end 3 + 2i) and edges.
class WindowGraph {
public:
    WindowGraph(const std::vector<PathMember>& members, TimeNs start, TimeNs end)
        : m_members(members)
        , m_start(start)
        , m_end(end)
        , m_byMember(members.size())
    {
    }

    void collect()
    {
        for (std::uint32_t m = 0; m < m_members.size(); ++m)
            collectMember(m);
        for (auto& lookup : m_byMember)
            std::sort(lookup.begin(), lookup.end());
        collectLaunchesBefore();
        g.nodeTime.resize(2 + 2 * m_item.size());
        g.source = 0;
        g.sink = 1;
        g.nodeTime[0] = m_start;
        g.nodeTime[1] = m_end;
        for (std::uint32_t i = 0; i < m_item.size(); ++i) {
            g.nodeTime[startNode(i)] = m_item[i].start;
            g.nodeTime[endNode(i)] = m_item[i].end;
            g.items.push_back({m_item[i].member, m_item[i].slice});
        }
        g.itemParent.assign(m_item.size(), kNoIndex);
        g.itemCalledBefore.resize(m_item.size());
        for (std::uint32_t i = 0; i < m_item.size(); ++i)
            g.itemCalledBefore[i] = m_item[i].calledBefore ? 1 : 0;
        m_ownEdge.assign(m_item.size(), kNoIndex);
        m_gapEdge.assign(m_item.size(), kNoIndex);
        m_eventDep.assign(m_item.size(), kNoIndex);
        m_collectiveArrival.assign(m_item.size(), kNoId);
    }

    void addHostEdges(const std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>& linkedTracks)
    {
        for (const auto& [key, items] : m_tracks) {
            if (key.gpu)
                continue;
            addThreadEdges(items);
            findEventWaits(key, items);
        }
        for (std::uint32_t m = 0; m < m_members.size(); ++m)
            for (const auto& [a, b] : linkedTracks[m])
                addHandOffs(m, a, b);
    }

    void markCollectives(const CollectiveMatching* matching)
    {
        if (!matching)
            return;
        for (const auto& c : matching->collectives) {
            const CollectiveParticipant* last = nullptr;
            for (const auto& p : c.ranks)
                if (p.rank == c.lastRank)
                    last = &p;
            if (!last || c.mismatch)
                continue;
            const auto lastItem = itemOf(std::uint32_t(last->member), last->slice);
            if (lastItem == kNoIndex)
                continue;
            for (const auto& p : c.ranks) {
                const auto item = itemOf(std::uint32_t(p.member), p.slice);
                if (&p == last || item == kNoIndex)
                    continue;
                const TimeNs arrival = m_item[lastItem].start;
                if (arrival > m_item[item].start && arrival <= m_item[item].end) {
                    m_collectiveArrival[item] = arrival;
                    m_lastArrivalItem.emplace_back(item, lastItem);
                }
            }
        }
    }

    void addGpuEdges()
    {
        const TimeNs typical = typicalLaunchLatency();
        for (const auto& [key, items] : m_tracks)
            if (key.gpu)
                addStreamEdges(items, typical);
        for (const auto& [item, lastItem] : m_lastArrivalItem) {
            const auto join =
                g.addEdge(startNode(lastItem), m_arrivalNode[item], 0, PathKind::CollectiveWait, item, false, true);
            if (join != kNoIndex)
                g.collectiveJoins.push_back({join, startNode(item), lastItem});
        }
    }

    void addWaits()
    {
        for (auto& [member, byEnd] : m_gpuByEnd)
            std::sort(byEnd.begin(), byEnd.end(), [&](auto a, auto b) { return m_item[a].end < m_item[b].end; });
        for (std::uint32_t w = 0; w < m_item.size(); ++w) {
            const Item& it = m_item[w];
            if (it.gpu || (it.cls != SliceClass::CudaRuntime && it.cls != SliceClass::CudaDriver))
                continue;
            const std::uint32_t target = waitTarget(w);
            if (target == kNoIndex)
                continue;
            const TimeNs tail = it.end - std::max(m_item[target].end, it.start);
            g.addEdge(endNode(target), endNode(w), it.end - m_item[target].end, PathKind::SyncWait, w, true, true);
            if (m_ownEdge[w] != kNoIndex && g.edgeFrom[m_ownEdge[w]] == startNode(w))
                g.edgeWeight[m_ownEdge[w]] = std::min(g.edgeWeight[m_ownEdge[w]], tail);
        }
    }

    void addSinkEdges(std::uint32_t primary)
    {
        std::uint32_t latest = kNoIndex;
        for (const auto& [key, items] : m_tracks) {
            if (key.member != primary || items.empty())
                continue;
            // A thread's top-level items and a stream's ops end in order: the last one ends last.
            std::uint32_t last = items.front();
            for (auto i : items)
                if (m_item[i].end >= m_item[last].end)
                    last = i;
            g.addEdge(endNode(last), g.sink, 0, PathKind::Other, kNoIndex);
            if (latest == kNoIndex || m_item[last].end > m_item[latest].end)
                latest = last;
        }
        const std::uint32_t from = latest == kNoIndex ? g.source : endNode(latest);
        if (g.nodeTime[from] < m_end)
            g.addEdge(from, g.sink, m_end - g.nodeTime[from], PathKind::Other, kNoIndex);
    }

    CriticalPathGraph g;

private:
    struct Item {
        std::uint32_t member = 0;
        SliceId slice = kNoSlice;
        TimeNs start = 0, end = 0; // clamped to the window, on the axis
        std::uint16_t depth = 0;
        SliceClass cls = SliceClass::Other;
        bool gpu = false;
        std::uint32_t track = 0;
        bool calledBefore = false; // a launch call that ended before the window, kept at its start
    };
    struct TrackKey {
        std::uint32_t member = 0;
        std::uint32_t track = 0;
        bool gpu = false;
        bool operator<(const TrackKey& o) const { return std::tie(member, track) < std::tie(o.member, o.track); }
    };

    static std::uint32_t startNode(std::uint32_t item) { return 2 + 2 * item; }
    static std::uint32_t endNode(std::uint32_t item) { return 3 + 2 * item; }

    const Trace& traceOf(std::uint32_t member) const { return *m_members[member].facts->trace; }
    std::string_view nameOf(std::uint32_t item) const
    {
        const Trace& t = traceOf(m_item[item].member);
        return t.str(t.slices().name[m_item[item].slice]);
    }

    std::uint32_t itemOf(std::uint32_t member, SliceId s) const
    {
        if (member >= m_byMember.size() || s == kNoSlice)
            return kNoIndex;
        const auto& lookup = m_byMember[member];
        const auto it = std::lower_bound(lookup.begin(), lookup.end(), std::make_pair(s, std::uint32_t(0)));
        return it != lookup.end() && it->first == s ? it->second : kNoIndex;
    }

    void collectMember(std::uint32_t m)
    {
        const PathMember& member = m_members[m];
        const Trace& trace = *member.facts->trace;
        const auto& slices = trace.slices();
        const TimeNs lo = m_start - member.offset, hi = m_end - member.offset;
        for (std::uint32_t t = 0; t < trace.tracks().size(); ++t) {
            const Track& track = trace.tracks()[t];
            if (track.kind == TrackKind::Other)
                continue;
            const bool gpu = track.kind == TrackKind::GpuStream;
            auto& items = m_tracks[TrackKey{m, t, gpu}];
            for (const Lane& lane : track.lanes) {
                if (lane.kind != LaneKind::Main)
                    continue;
                const std::uint32_t firstRow = track.rowBegin + lane.firstRow;
                for (std::uint32_t r = firstRow; r < firstRow + lane.depthCount; ++r) {
                    const Row& row = trace.rows()[r];
                    for (SliceId s = trace.firstEndingAfter(r, lo); s < row.end && slices.start[s] < hi; ++s) {
                        const SliceClass c = trace.classOf(s);
                        if (gpu ? !isGpuClass(c) : !isHostClass(c))
                            continue;
                        const auto index = std::uint32_t(m_item.size());
                        m_item.push_back({m, s, std::max(slices.start[s], lo) + member.offset,
                                          std::min(slices.end(s), hi) + member.offset, row.depth, c, gpu, t});
                        m_byMember[m].emplace_back(s, index);
                        items.push_back(index);
                        if (gpu)
                            m_gpuByEnd[m].push_back(index);
                    }
                }
            }
            std::sort(items.begin(), items.end(), [&](auto a, auto b) {
                return std::tie(m_item[a].start, m_item[a].depth) < std::tie(m_item[b].start, m_item[b].depth);
            });
        }
    }

    // The launch calls of the window's GPU ops that ended before the window (a range that
    // starts between a launch and its kernel): a zero-length item at the window's start each,
    // on no thread's chain, so that the GPU op keeps its launch dependency (a launch segment
    // from the window's start) instead of an unexplained gap.
    void collectLaunchesBefore()
    {
        std::vector<std::pair<std::uint32_t, SliceId>> before; // (member, launch call)
        for (const auto& [m, gpuItems] : m_gpuByEnd) {
            const PathMember& member = m_members[m];
            const auto& slices = member.facts->trace->slices();
            for (const auto i : gpuItems) {
                const SliceId launch = member.facts->links.launchOf(m_item[i].slice);
                if (launch != kNoSlice && itemOf(m, launch) == kNoIndex
                    && slices.end(launch) + member.offset <= m_start)
                    before.emplace_back(m, launch);
            }
        }
        std::sort(before.begin(), before.end());
        before.erase(std::unique(before.begin(), before.end()), before.end());
        for (const auto& [m, launch] : before) {
            const Trace& trace = traceOf(m);
            const auto index = std::uint32_t(m_item.size());
            Item item{m, launch, m_start, m_start, 0, trace.classOf(launch), false, trace.trackOf(launch)};
            item.calledBefore = true;
            m_item.push_back(item);
            m_byMember[m].emplace_back(launch, index);
        }
        for (auto& lookup : m_byMember)
            std::sort(lookup.begin(), lookup.end());
    }

    // Nesting and order on one thread: parent start -> first child, child end -> next child,
    // last child end -> parent end (the parent's own time); leaves their duration.
    void addThreadEdges(const std::vector<std::uint32_t>& items)
    {
        struct Open {
            std::uint32_t item;
            std::uint32_t lastChildEnd; // node, kNoIndex before the first child
        };
        std::vector<Open> stack;
        std::uint32_t previousTop = kNoIndex; // end node of the last closed top-level item
        auto close = [&] {
            const Open top = stack.back();
            stack.pop_back();
            const Item& it = m_item[top.item];
            const PathKind kind = hostKind(it.cls, nameOf(top.item));
            if (top.lastChildEnd == kNoIndex)
                m_ownEdge[top.item] =
                    g.addEdge(startNode(top.item), endNode(top.item), it.end - it.start, kind, top.item, true);
            else
                m_ownEdge[top.item] = g.addEdge(top.lastChildEnd, endNode(top.item),
                                                it.end - g.nodeTime[top.lastChildEnd], kind, top.item, true);
            if (stack.empty())
                previousTop = endNode(top.item);
            else
                stack.back().lastChildEnd = endNode(top.item);
        };
        for (const auto i : items) {
            while (!stack.empty() && m_item[stack.back().item].depth >= m_item[i].depth)
                close();
            const Item& it = m_item[i];
            if (!stack.empty()) {
                const Open& parent = stack.back();
                g.itemParent[i] = parent.item;
                const std::uint32_t from =
                    parent.lastChildEnd == kNoIndex ? startNode(parent.item) : parent.lastChildEnd;
                const Item& p = m_item[parent.item];
                m_gapEdge[i] = g.addEdge(from, startNode(i), it.start - g.nodeTime[from],
                                         hostKind(p.cls, nameOf(parent.item)), parent.item, true);
            } else {
                const std::uint32_t from = previousTop == kNoIndex ? g.source : previousTop;
                m_gapEdge[i] = g.addEdge(from, startNode(i), it.start - g.nodeTime[from], PathKind::Other, i);
            }
            stack.push_back({i, kNoIndex});
        }
        while (!stack.empty())
            close();
    }

    // What a thread's event calls say so far: cudaEventRecord remembers the GPU op last
    // launched from the thread; after a cudaStreamWaitEvent, the next GPU op launched waits for it.
    struct EventCalls {
        std::uint32_t lastLaunched = kNoIndex, recorded = kNoIndex, waitingFor = kNoIndex; // GPU items
    };

    void followEventCall(std::uint32_t member, SliceId call, EventCalls& state)
    {
        const Trace& trace = traceOf(member);
        const std::string_view name = trace.str(trace.slices().name[call]);
        if (name.starts_with("cudaEventRecord")) {
            state.recorded = state.lastLaunched;
            return;
        }
        if (name.starts_with("cudaStreamWaitEvent")) {
            state.waitingFor = state.recorded;
            return;
        }
        for (const SliceId op : m_members[member].facts->links.gpuOpsOf(call)) {
            const auto gi = itemOf(member, op);
            if (gi == kNoIndex)
                continue;
            const auto waitingFor = std::exchange(state.waitingFor, kNoIndex);
            // A guess that ends after the op started is wrong: the event was recorded on
            // another stream than the last launch's (DDP records on the compute stream right
            // after launching an all-reduce on NCCL's). Which one is not in the trace, so the
            // op keeps its stream and launch dependencies only.
            if (waitingFor != kNoIndex && m_eventDep[gi] == kNoIndex && m_item[waitingFor].end <= m_item[gi].start)
                m_eventDep[gi] = waitingFor;
            state.lastLaunched = gi;
        }
    }

    // The thread's runtime calls that ended before the window, replayed from its last
    // kEventReplay ones: an event recorded and waited for before the window (its GPU ops
    // still running in it) still holds for the GPU op launched next, inside the window or
    // before it (a launch called before the window).
    EventCalls eventCallsBefore(const TrackKey& key)
    {
        constexpr std::size_t kEventReplay = 256;
        constexpr SliceId kScanLimit = 4096; // slices looked at per row, calls or not
        const PathMember& member = m_members[key.member];
        const Trace& trace = *member.facts->trace;
        const TimeNs lo = m_start - member.offset;
        std::vector<SliceId> calls;
        for (const Lane& lane : trace.tracks()[key.track].lanes) {
            if (lane.kind != LaneKind::Main)
                continue;
            const std::uint32_t firstRow = trace.tracks()[key.track].rowBegin + lane.firstRow;
            for (std::uint32_t r = firstRow; r < firstRow + lane.depthCount; ++r) {
                const Row& row = trace.rows()[r];
                std::size_t found = 0;
                const SliceId first = trace.firstEndingAfter(r, lo);
                for (SliceId s = first; s > row.begin && first - s < kScanLimit && found < kEventReplay; --s) {
                    const SliceClass c = trace.classOf(s - 1);
                    if (c == SliceClass::CudaRuntime || c == SliceClass::CudaDriver) {
                        calls.push_back(s - 1);
                        ++found;
                    }
                }
            }
        }
        const auto& start = trace.slices().start;
        std::sort(calls.begin(), calls.end(), [&](SliceId a, SliceId b) { return start[a] < start[b]; });
        EventCalls state;
        for (std::size_t i = calls.size() > kEventReplay ? calls.size() - kEventReplay : 0; i < calls.size(); ++i)
            followEventCall(key.member, calls[i], state);
        return state;
    }

    void findEventWaits(const TrackKey& key, const std::vector<std::uint32_t>& items)
    {
        EventCalls state = eventCallsBefore(key);
        for (const auto i : items) {
            const Item& it = m_item[i];
            if (it.cls == SliceClass::CudaRuntime || it.cls == SliceClass::CudaDriver)
                followEventCall(it.member, it.slice, state);
        }
    }

    // Ends on `b` of the threads joined to `a` by fwdbwd flows, by time.
    void addHandOffs(std::uint32_t member, std::uint32_t a, std::uint32_t b)
    {
        const auto ta = m_tracks.find(TrackKey{member, a, false});
        const auto tb = m_tracks.find(TrackKey{member, b, false});
        if (ta == m_tracks.end() || tb == m_tracks.end())
            return;
        std::vector<std::uint32_t> ends(tb->second.begin(), tb->second.end());
        std::sort(ends.begin(), ends.end(), [&](auto x, auto y) { return m_item[x].end < m_item[y].end; });
        // A gap on thread a (before an op, inside its parent or not) that one of b's items ends
        // inside: a resumed when b handed over (the main thread after backward, the autograd
        // thread after the forward).
        for (const auto i : ta->second) {
            const auto gap = m_gapEdge[i];
            if (gap == kNoIndex)
                continue;
            const TimeNs gapStart = g.nodeTime[g.edgeFrom[gap]], resume = m_item[i].start;
            auto it = std::upper_bound(ends.begin(), ends.end(), resume,
                                       [&](TimeNs t, std::uint32_t x) { return t < m_item[x].end; });
            if (it == ends.begin() || m_item[*(it - 1)].end <= gapStart)
                continue;
            const auto from = *(it - 1);
            g.addEdge(endNode(from), startNode(i), resume - m_item[from].end, PathKind::Other, i);
            g.edgeWeight[gap] = 0;
        }
    }

    TimeNs typicalLaunchLatency() const
    {
        std::vector<TimeNs> latencies;
        for (const auto& [key, items] : m_tracks) {
            if (!key.gpu)
                continue;
            TimeNs streamFree = kNoId;
            for (const auto i : items) {
                const auto launch = launchItem(i);
                const auto event = m_eventDep[i];
                const TimeNs ready = std::max(streamFree, event == kNoIndex ? kNoId : m_item[event].end);
                if (launch != kNoIndex && !m_item[launch].calledBefore && m_item[launch].start >= ready
                    && m_item[launch].start <= m_item[i].start)
                    latencies.push_back(m_item[i].start - m_item[launch].start);
                streamFree = m_item[i].end;
            }
        }
        if (latencies.empty())
            return 0;
        auto mid = latencies.begin() + std::ptrdiff_t(latencies.size() / 2);
        std::nth_element(latencies.begin(), mid, latencies.end());
        return *mid;
    }

    std::uint32_t launchItem(std::uint32_t gpuItem) const
    {
        const Item& it = m_item[gpuItem];
        return itemOf(it.member, m_members[it.member].facts->links.launchOf(it.slice));
    }

    // A GPU op starts at the latest of: the previous op on its stream ending, its launch (plus
    // the launch latency), the event it waits for. That one's edge is tight; the others keep
    // only what the GPU op could not do without (none for the stream, the typical latency).
    void addStreamEdges(const std::vector<std::uint32_t>& items, TimeNs typicalLatency)
    {
        std::uint32_t previous = kNoIndex;
        for (const auto i : items) {
            const Item& it = m_item[i];
            const auto launch = launchItem(i);
            const auto event = m_eventDep[i];
            enum { None, Stream, Launch, Event } binding = None;
            TimeNs ready = kNoId;
            auto consider = [&](TimeNs t, decltype(binding) which) {
                if (t <= it.start && t > ready) {
                    ready = t;
                    binding = which;
                }
            };
            if (previous != kNoIndex)
                consider(m_item[previous].end, Stream);
            if (launch != kNoIndex)
                consider(m_item[launch].start, Launch);
            if (event != kNoIndex)
                consider(m_item[event].end, Event);
            if (previous != kNoIndex)
                g.addEdge(endNode(previous), startNode(i), binding == Stream ? it.start - m_item[previous].end : 0,
                          PathKind::GpuIdle, i);
            if (launch != kNoIndex) {
                const TimeNs latency = it.start - m_item[launch].start;
                g.addEdge(startNode(launch), startNode(i),
                          binding == Launch ? latency : std::min(latency, typicalLatency), PathKind::Launch, launch);
            }
            if (event != kNoIndex)
                g.addEdge(endNode(event), startNode(i), binding == Event ? it.start - m_item[event].end : 0,
                          PathKind::GpuIdle, i);
            const PathKind kind = gpuKind(it.cls);
            if (m_collectiveArrival[i] != kNoId) {
                // Waiting for the last rank (nothing this rank could shorten: the edge from the
                // last rank's kernel sets it), then the collective itself.
                const auto arrival = g.addNode(m_collectiveArrival[i]);
                m_arrivalNode[i] = arrival;
                g.addEdge(startNode(i), arrival, 0, PathKind::CollectiveWait, i);
                m_ownEdge[i] = g.addEdge(arrival, endNode(i), it.end - m_collectiveArrival[i], kind, i, true);
            } else {
                m_ownEdge[i] = g.addEdge(startNode(i), endNode(i), it.end - it.start, kind, i, true);
            }
            previous = i;
        }
    }

    // Whether a copy call returns only once its copy is done (or staged): the synchronous API
    // (cudaMemcpy, cudaMemcpy2D, ...), or an async one from or to pageable memory. An async
    // copy between device and pinned memory returns at once, even when the copy happens to
    // end inside the call.
    bool blocksOnCopy(std::uint32_t call, std::uint32_t copy) const
    {
        return nameOf(call).find("Async") == std::string_view::npos
            || nameOf(copy).find("Pageable") != std::string_view::npos;
    }

    // The GPU op a host call returned after: for a blocking copy, its copy if that ended inside
    // the call; for a synchronize call, the last GPU op launched before it that ended inside it.
    // (A kernel may end before its launch call returns without the call waiting for it.)
    std::uint32_t waitTarget(std::uint32_t w) const
    {
        const Item& it = m_item[w];
        std::uint32_t target = kNoIndex;
        const bool copy = nameOf(w).find("Memcpy") != std::string_view::npos;
        for (const SliceId op :
             copy ? m_members[it.member].facts->links.gpuOpsOf(it.slice) : std::span<const SliceId>{}) {
            const auto gi = itemOf(it.member, op);
            if (gi != kNoIndex && m_item[gi].end <= it.end && m_item[gi].end > it.start && blocksOnCopy(w, gi)
                && (target == kNoIndex || m_item[gi].end > m_item[target].end))
                target = gi;
        }
        if (target != kNoIndex || !isSyncCall(nameOf(w)))
            return target;
        const auto found = m_gpuByEnd.find(it.member);
        if (found == m_gpuByEnd.end())
            return kNoIndex;
        const auto& byEnd = found->second;
        auto pos = std::upper_bound(byEnd.begin(), byEnd.end(), it.end,
                                    [&](TimeNs t, std::uint32_t x) { return t < m_item[x].end; });
        constexpr int kMaxScan = 256; // ops ending during the wait but launched after it began
        for (int n = 0; pos != byEnd.begin() && n < kMaxScan; ++n) {
            const auto gi = *--pos;
            if (m_item[gi].end <= it.start)
                break;
            const auto launch = launchItem(gi);
            // (A call clamped to the window's start begins with the launches called before it.)
            if (launch == kNoIndex || m_item[launch].calledBefore || m_item[launch].start < it.start)
                return gi;
        }
        return kNoIndex;
    }

    const std::vector<PathMember>& m_members;
    TimeNs m_start, m_end;
    std::vector<Item> m_item;
    std::vector<std::vector<std::pair<SliceId, std::uint32_t>>> m_byMember; // sorted (slice, item)
    std::map<TrackKey, std::vector<std::uint32_t>> m_tracks; // items by (start, depth)
    std::map<std::uint32_t, std::vector<std::uint32_t>> m_gpuByEnd; // per member
    std::vector<std::uint32_t> m_ownEdge; // an item's duration (or own-time) edge
    std::vector<std::uint32_t> m_gapEdge; // a host item's edge from before it on its thread
    std::vector<std::uint32_t> m_eventDep; // GPU item -> GPU item it waits for through an event
    std::vector<TimeNs> m_collectiveArrival; // GPU item -> when the last rank's kernel began
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_lastArrivalItem; // (waiting, last)
    std::map<std::uint32_t, std::uint32_t> m_arrivalNode;
};

} // namespace

CriticalPathGraphBuilder::CriticalPathGraphBuilder(std::vector<PathMember> members, const CollectiveMatching* matching)
    : m_members(std::move(members))
    , m_matching(matching)
    , m_linkedTracks(m_members.size())
{
    for (std::size_t m = 0; m < m_members.size(); ++m) {
        const Trace& trace = *m_members[m].facts->trace;
        const StringId fwdbwd = trace.strings().find("fwdbwd");
        if (fwdbwd == std::numeric_limits<StringId>::max())
            continue;
        auto& pairs = m_linkedTracks[m];
        for (const Flow& f : trace.flows()) {
            if (f.category != fwdbwd || f.from == kNoSlice || f.to == kNoSlice)
                continue;
            const auto a = trace.trackOf(f.from), b = trace.trackOf(f.to);
            if (a == b)
                continue;
            for (auto pair : {std::make_pair(a, b), std::make_pair(b, a)})
                if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end())
                    pairs.push_back(pair);
        }
    }
}

CriticalPathGraph CriticalPathGraphBuilder::build(TimeNs start, TimeNs end, std::uint32_t primary) const
{
    WindowGraph w(m_members, start, std::max(start, end));
    w.collect();
    w.addHostEdges(m_linkedTracks);
    w.markCollectives(m_matching);
    w.addGpuEdges();
    w.addWaits();
    w.addSinkEdges(primary);
    w.g.finish();
    return std::move(w.g);
}

} // namespace ks::analysis
