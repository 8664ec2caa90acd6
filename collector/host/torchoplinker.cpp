#include "collector/host/torchoplinker.h"

#include "collector/host/recordedprocess.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

namespace ks::collector {
namespace {

// Adds `fresh` to `sorted`, both ordered by `before`; `fresh` is left empty.
template <typename Before>
void mergeInto(std::vector<std::uint32_t>& sorted, std::vector<std::uint32_t>& fresh, Before before)
{
    if (fresh.empty())
        return;
    std::sort(fresh.begin(), fresh.end(), before);
    const auto old = static_cast<std::ptrdiff_t>(sorted.size());
    sorted.insert(sorted.end(), fresh.begin(), fresh.end());
    // New records mostly start after the old ones: the merge then moves nothing.
    const auto from = std::upper_bound(sorted.begin(), sorted.begin() + old, fresh.front(), before);
    std::inplace_merge(from, sorted.begin() + old, sorted.end(), before);
    fresh.clear();
}

} // namespace

void TorchOpLinker::update(const RecordedProcess& process)
{
    m_changed.clear();
    const auto& slices = process.slices;
    if (process.ops.empty()) {
        m_seen = slices.size(); // nothing is linked before the first op range
        return;
    }
    m_externalIds.resize(slices.size(), kNoId);
    std::vector<std::int64_t> sequences; // of the new ops that have one
    for (auto i = static_cast<std::uint32_t>(m_linked); i < slices.size(); ++i)
        addSlice(process, i, sequences);
    for (auto& [tid, thread] : m_threads) {
        if (!thread.newOps.empty() || !thread.newCalls.empty())
            relink(process, thread);
    }
    pairForwardBackward(process, std::move(sequences));
    // Slices the caller had before the first op range came are linked for the first time.
    for (auto i = static_cast<std::uint32_t>(m_linked); i < m_seen; ++i) {
        if (m_externalIds[i] != kNoId)
            m_changed.push_back(i);
    }
    m_linked = m_seen = slices.size();
}

void TorchOpLinker::addSlice(const RecordedProcess& process, std::uint32_t slice, std::vector<std::int64_t>& sequences)
{
    const RecordedSlice& s = process.slices[slice];
    if (s.op >= 0) {
        const TorchOp& op = process.ops[static_cast<std::size_t>(s.op)];
        m_externalIds[slice] = op.externalId;
        m_threads[s.tid].newOps.push_back(slice);
        if (op.sequence >= 0)
            sequences.push_back(op.sequence);
    } else if (s.category == EventCategory::Runtime || s.category == EventCategory::Driver) {
        m_threads[s.tid].newCalls.push_back(slice);
    } else if (s.gpuOp >= 0 && s.correlation != kNoId) {
        m_gpuSlicesOfCorrelation.emplace(s.correlation, slice);
        const auto launch = m_externalOfCorrelation.find(s.correlation);
        if (launch != m_externalOfCorrelation.end())
            m_externalIds[slice] = launch->second;
    }
}

// New ops only add containing ranges to calls at or after their start, and a call's range
// depends on the ops that started before it: the calls that start before the earliest new
// record keep theirs, and the sweep resumes there with the ops still running at that time.
void TorchOpLinker::relink(const RecordedProcess& process, Thread& thread)
{
    const auto& slices = process.slices;
    const auto start = [&](std::uint32_t i) { return slices[i].start; };
    const auto end = [&](std::uint32_t i) { return sliceEnd(slices[i]); };
    TimeNs from = std::numeric_limits<TimeNs>::max();
    for (const auto& fresh : {std::cref(thread.newOps), std::cref(thread.newCalls)}) {
        for (const std::uint32_t i : fresh.get())
            from = std::min(from, start(i));
    }
    mergeInto(thread.ops, thread.newOps, [&](std::uint32_t a, std::uint32_t b) {
        return std::tuple(start(a), -slices[a].duration, a) < std::tuple(start(b), -slices[b].duration, b);
    });
    mergeInto(thread.calls, thread.newCalls,
              [&](std::uint32_t a, std::uint32_t b) { return std::pair(start(a), a) < std::pair(start(b), b); });

    const auto startsBefore = [&](std::uint32_t i, TimeNs t) { return start(i) < t; };
    const auto firstOp = static_cast<std::size_t>(
        std::lower_bound(thread.ops.begin(), thread.ops.end(), from, startsBefore) - thread.ops.begin());
    thread.latestEnd.resize(thread.ops.size());
    for (std::size_t i = firstOp; i < thread.ops.size(); ++i)
        thread.latestEnd[i] =
            std::max(i > 0 ? thread.latestEnd[i - 1] : std::numeric_limits<TimeNs>::min(), end(thread.ops[i]));
    std::vector<std::uint32_t> open; // ops started so far that may still run, innermost last
    for (std::size_t i = firstOp; i > 0 && thread.latestEnd[i - 1] >= from; --i) {
        if (end(thread.ops[i - 1]) >= from)
            open.push_back(thread.ops[i - 1]);
    }
    std::reverse(open.begin(), open.end());

    std::size_t next = firstOp;
    for (auto call = std::lower_bound(thread.calls.begin(), thread.calls.end(), from, startsBefore);
         call != thread.calls.end(); ++call) {
        const TimeNs at = start(*call);
        for (; next < thread.ops.size() && start(thread.ops[next]) <= at; ++next) {
            while (!open.empty() && end(open.back()) < start(thread.ops[next]))
                open.pop_back();
            open.push_back(thread.ops[next]);
        }
        while (!open.empty() && end(open.back()) < at)
            open.pop_back();
        if (!open.empty()) // every op containing `at` is open; the last one opened is innermost
            setExternalId(process, *call, m_externalIds[open.back()]);
    }
}

void TorchOpLinker::setExternalId(const RecordedProcess& process, std::uint32_t slice, std::int64_t externalId)
{
    const auto set = [&](std::uint32_t s) {
        if (m_externalIds[s] == externalId)
            return;
        if (s < m_linked)
            m_changed.push_back(s);
        m_externalIds[s] = externalId;
    };
    set(slice);
    const std::int64_t correlation = process.slices[slice].correlation;
    if (correlation == kNoId)
        return;
    m_externalOfCorrelation[correlation] = externalId;
    const auto [first, last] = m_gpuSlicesOfCorrelation.equal_range(correlation);
    for (auto gpu = first; gpu != last; ++gpu)
        set(gpu->second);
}

bool TorchOpLinker::pairOf(const RecordedProcess& process, std::int64_t sequence,
                           std::pair<std::uint32_t, std::uint32_t>& pair) const
{
    const auto forward = m_forwardOf.find(sequence);
    const auto backward = m_backwardOf.find(sequence);
    if (forward == m_forwardOf.end() || backward == m_backwardOf.end()
        || process.slices[forward->second].start > process.slices[backward->second].start)
        return false;
    pair = {forward->second, backward->second};
    return true;
}

// Only the pairs of the sequence numbers the new ops carry can change: those are taken out
// of the sorted list as they were and put back as they are.
void TorchOpLinker::pairForwardBackward(const RecordedProcess& process, std::vector<std::int64_t> sequences)
{
    if (sequences.empty())
        return;
    std::sort(sequences.begin(), sequences.end());
    sequences.erase(std::unique(sequences.begin(), sequences.end()), sequences.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> before, after;
    std::pair<std::uint32_t, std::uint32_t> pair;
    for (const std::int64_t sequence : sequences) {
        if (pairOf(process, sequence, pair))
            before.push_back(pair);
    }
    const auto& slices = process.slices;
    const auto end = [&](std::uint32_t i) { return sliceEnd(slices[i]); };
    for (auto i = static_cast<std::uint32_t>(m_linked); i < slices.size(); ++i) {
        if (slices[i].op < 0)
            continue;
        const TorchOp& op = process.ops[static_cast<std::size_t>(slices[i].op)];
        if (op.sequence < 0)
            continue;
        auto& table = op.backward ? m_backwardOf : m_forwardOf;
        const auto [it, inserted] = table.try_emplace(op.sequence, i);
        if (!inserted && (op.backward ? end(i) < end(it->second) : slices[i].start >= slices[it->second].start))
            it->second = i;
    }
    for (const std::int64_t sequence : sequences) {
        if (pairOf(process, sequence, pair))
            after.push_back(pair);
    }
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> kept;
    kept.reserve(m_fwdbwd.size() + after.size());
    std::set_difference(m_fwdbwd.begin(), m_fwdbwd.end(), before.begin(), before.end(), std::back_inserter(kept));
    m_fwdbwd.clear();
    std::merge(kept.begin(), kept.end(), after.begin(), after.end(), std::back_inserter(m_fwdbwd));
}

} // namespace ks::collector
