// Batched read-back of raw event text (Trace::forEachEventText / forEachInstantText).
#include "core/model/trace.h"
#include "core/model/utf8.h"

#include <algorithm>
#include <numeric>

namespace ks {

namespace {

template <class Id>
void readInBlocks(const EventTextSource* source, std::span<const Id> ids, const std::vector<std::uint64_t>& offsets,
                  const std::vector<std::uint32_t>& lengths, const std::function<void(Id, std::string_view)>& sink)
{
    std::vector<Id> order(ids.begin(), ids.end());
    std::stable_sort(order.begin(), order.end(), [&](Id a, Id b) { return offsets[a] < offsets[b]; });
    // Neighbouring texts are fetched as one block of at most the source's batch: one inflater
    // restart per block instead of one per event, with memory bounded by the block (reserved
    // once: growing a string doubles it, and one doubling made this a 16 MB transient).
    const std::uint64_t blockBytes = source ? source->batchBytes() : 0;
    std::string block, sanitized;
    block.reserve(blockBytes);
    std::size_t i = 0;
    while (i < order.size()) {
        const Id first = order[i];
        if (!source || lengths[first] == 0) {
            sink(first, {});
            ++i;
            continue;
        }
        const std::uint64_t begin = offsets[first];
        std::uint64_t end = begin + lengths[first];
        std::size_t j = i + 1;
        while (j < order.size() && lengths[order[j]] != 0
               && offsets[order[j]] + lengths[order[j]] - begin <= blockBytes) {
            end = std::max(end, offsets[order[j]] + lengths[order[j]]);
            ++j;
        }
        if (!source->read(begin, static_cast<std::uint32_t>(end - begin), block))
            block.clear();
        for (; i < j; ++i) {
            const Id id = order[i];
            const std::uint64_t from = offsets[id] - begin;
            const std::string_view text = from + lengths[id] <= block.size()
                ? std::string_view(block).substr(from, lengths[id])
                : std::string_view();
            sink(id, utf8::validJsonView(text, sanitized));
        }
    }
}

} // namespace

void Trace::forEachEventText(std::span<const SliceId> slices,
                             const std::function<void(SliceId, std::string_view)>& sink) const
{
    readInBlocks<SliceId>(m_textSource.get(), slices, m_slices.rawOffset, m_slices.rawLength, sink);
}

void Trace::forEachInstantText(std::span<const std::uint32_t> instants,
                               const std::function<void(std::uint32_t, std::string_view)>& sink) const
{
    readInBlocks<std::uint32_t>(m_textSource.get(), instants, m_instants.rawOffset, m_instants.rawLength, sink);
}

bool Trace::isKeptOffset(std::uint64_t offset) const
{
    const auto it = std::lower_bound(m_keptEntries.begin(), m_keptEntries.end(), offset,
                                     [](const KeptEntry& e, std::uint64_t o) { return e.offset < o; });
    return it != m_keptEntries.end() && it->offset == offset;
}

void Trace::forEachText(std::span<const TextSpan> spans,
                        const std::function<void(std::uint32_t, std::string_view)>& sink) const
{
    std::vector<std::uint64_t> offsets(spans.size());
    std::vector<std::uint32_t> lengths(spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        offsets[i] = spans[i].offset;
        lengths[i] = spans[i].length;
    }
    std::vector<std::uint32_t> ids(spans.size());
    std::iota(ids.begin(), ids.end(), 0u);
    readInBlocks<std::uint32_t>(m_textSource.get(), ids, offsets, lengths, sink);
}

} // namespace ks
