#include "collector/host/torchoplinker.h"

#include "collector/host/recordedprocess.h"

#include <algorithm>
#include <iterator>

namespace ks::collector {

void TorchOpLinker::update(const RecordedProcess& process, RecordIndex& index)
{
    m_changed.clear();
    const auto& slices = process.slices;
    if (process.ops.empty()) {
        m_seen = slices.size(); // nothing is linked before the first op range
        return;
    }
    index.update(process);
    m_externalIds.resize(slices.size(), kNoId);
    std::vector<std::int64_t> sequences; // of the new ops that have one
    for (auto i = static_cast<std::uint32_t>(m_linked); i < slices.size(); ++i)
        addSlice(process, i, sequences);
    for (auto& [tid, thread] : m_threads) {
        if (thread.newFrom != kNoNewRecord)
            relink(process, index, tid, thread);
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
        Thread& thread = m_threads[s.tid];
        thread.newOps.push_back(slice);
        thread.newFrom = std::min(thread.newFrom, s.start);
        if (op.sequence >= 0)
            sequences.push_back(op.sequence);
    } else if (s.category == EventCategory::Runtime || s.category == EventCategory::Driver) {
        Thread& thread = m_threads[s.tid];
        thread.newFrom = std::min(thread.newFrom, s.start);
    } else if (s.gpuOp >= 0 && s.correlation != kNoId) {
        const auto launch = m_externalOfCorrelation.find(s.correlation);
        if (launch != m_externalOfCorrelation.end())
            m_externalIds[slice] = launch->second;
    }
}

// New ops only add containing ranges to calls at or after their start, and a call's range
// depends on the ops that started before it: the calls that start before the earliest new
// record keep theirs, and the sweep resumes there with the ops still running at that time.
void TorchOpLinker::relink(const RecordedProcess& process, const RecordIndex& index, std::int64_t tid, Thread& thread)
{
    const auto& slices = process.slices;
    const auto start = [&](std::uint32_t i) { return slices[i].start; };
    const auto end = [&](std::uint32_t i) { return sliceEnd(slices[i]); };
    const TimeNs from = std::exchange(thread.newFrom, kNoNewRecord);
    thread.ops.insert(process, thread.newOps);
    thread.newOps.clear();
    const auto& ops = thread.ops.ranges();
    const std::size_t firstOp = thread.ops.startedBefore(process, from, false);
    std::vector<std::uint32_t> open; // ops started so far that may still run, innermost last
    thread.ops.forEachRunningAt(process, firstOp, from, [&](std::uint32_t op) { open.push_back(op); });
    std::reverse(open.begin(), open.end());

    std::size_t next = firstOp;
    const auto calls = index.callsOf(tid);
    for (auto call = std::lower_bound(calls.begin(), calls.end(), from,
                                      [&](std::uint32_t c, TimeNs t) { return start(c) < t; });
         call != calls.end(); ++call) {
        const TimeNs at = start(*call);
        for (; next < ops.size() && start(ops[next]) <= at; ++next) {
            while (!open.empty() && end(open.back()) < start(ops[next]))
                open.pop_back();
            open.push_back(ops[next]);
        }
        while (!open.empty() && end(open.back()) < at)
            open.pop_back();
        if (!open.empty()) // every op containing `at` is open; the last one opened is innermost
            setExternalId(process, index, *call, m_externalIds[open.back()]);
    }
}

void TorchOpLinker::setExternalId(const RecordedProcess& process, const RecordIndex& index, std::uint32_t slice,
                                  std::int64_t externalId)
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
    index.forEachGpuOp(correlation, set);
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
