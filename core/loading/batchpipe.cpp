#include "core/loading/batchpipe.h"

#include "core/loading/loader.h"

namespace ks {

BatchPipe::BatchPipe(EventAssembler& assembler, LoadProgress* progress, bool assembleThread, unsigned parseWorkers)
    : m_assembler(assembler)
    , m_progress(progress)
    , m_depth(parseWorkers + 3)
{
    if (!assembleThread)
        return;
    m_threads.emplace_back([this] { assembleLoop(); });
    for (unsigned i = 0; i < parseWorkers; ++i)
        m_threads.emplace_back([this] { parseLoop(); });
}

BatchPipe::~BatchPipe()
{
    close();
    for (auto& t : m_threads)
        t.join();
}

void BatchPipe::push(ParsedBatch&& batch)
{
    if (m_threads.empty()) {
        assemble(batch);
        recycle(std::move(batch));
        if (m_failure)
            std::rethrow_exception(m_failure);
        return;
    }
    std::unique_lock lock(m_mutex);
    m_roomFreed.wait(lock, [this] { return m_slots.size() < m_depth; });
    const bool parsed = !batch.hasRawEntries() || m_threads.size() == 1;
    m_slots.push_back({std::move(batch), parsed, false});
    lock.unlock();
    if (parsed)
        m_batchParsed.notify_one();
    else
        m_batchQueued.notify_one();
}

ParsedBatch BatchPipe::spare()
{
    std::lock_guard lock(m_mutex);
    if (m_spare.empty())
        return {};
    ParsedBatch b = std::move(m_spare.back());
    m_spare.pop_back();
    return b;
}

void BatchPipe::finish()
{
    close();
    for (auto& t : m_threads)
        t.join();
    m_threads.clear();
    // The batches kept for reuse go: building the trace is the load's memory peak.
    std::vector<ParsedBatch>().swap(m_spare);
    if (m_failure)
        std::rethrow_exception(m_failure);
}

void BatchPipe::close()
{
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
    }
    m_batchQueued.notify_all();
    m_batchParsed.notify_all();
}

void BatchPipe::fail(std::exception_ptr e)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_failure)
            m_failure = std::move(e);
    }
    m_stopped = true;
}

void BatchPipe::assemble(ParsedBatch& batch)
{
    if (m_stopped.load(std::memory_order_relaxed))
        return;
    try {
        if (batch.hasRawEntries())
            m_parser.parseRawEntries(batch);
        m_assembler.apply(batch);
    } catch (...) { // out of memory: reported by finish() or push(), on the loading thread
        fail(std::current_exception());
        return;
    }
    if (batch.stopsLoad)
        m_stopped = true;
    if (m_progress)
        m_progress->eventsDone.store(static_cast<std::uint64_t>(m_assembler.entriesAssembled()),
                                     std::memory_order_relaxed);
}

void BatchPipe::recycle(ParsedBatch&& batch)
{
    batch.clear();
    std::lock_guard lock(m_mutex);
    if (m_spare.size() < m_depth + 1)
        m_spare.push_back(std::move(batch));
}

void BatchPipe::assembleLoop() noexcept
{
    while (true) {
        std::unique_lock lock(m_mutex);
        m_batchParsed.wait(
            lock, [this] { return (!m_slots.empty() && m_slots.front().parsed) || (m_closed && m_slots.empty()); });
        if (m_slots.empty())
            return;
        ParsedBatch batch = std::move(m_slots.front().batch);
        m_slots.pop_front();
        const bool drained = m_closed && m_slots.empty();
        lock.unlock();
        m_roomFreed.notify_one();
        if (drained) // the workers wait for this to end
            m_batchQueued.notify_all();
        assemble(batch);
        recycle(std::move(batch));
    }
}

void BatchPipe::parseLoop() noexcept
{
    EntryParser parser;
    while (true) {
        std::unique_lock lock(m_mutex);
        Slot* slot = nullptr;
        m_batchQueued.wait(lock, [&] {
            for (auto& s : m_slots) {
                if (!s.parsed && !s.taken) {
                    slot = &s;
                    return true;
                }
            }
            return m_closed && m_slots.empty();
        });
        if (!slot)
            return;
        slot->taken = true;
        lock.unlock();
        try {
            parser.parseRawEntries(slot->batch);
        } catch (...) {
            fail(std::current_exception());
        }
        lock.lock();
        slot->parsed = true;
        lock.unlock();
        m_batchParsed.notify_one();
    }
}

} // namespace ks
