#pragma once
// Carries batches from the reader to the assembler in stream order. A batch that ends in raw
// traceEvents entries is parsed first: by parse workers while earlier batches are assembled,
// or by whoever assembles it. The model is built on one thread, in stream order, so the
// result never depends on how many threads parsed.
#include "core/loading/entryparser.h"
#include "core/loading/eventassembler.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ks {

struct LoadProgress;

class BatchPipe {
public:
    // No assembling thread: push() parses and assembles on the caller's thread. Parse workers
    // need the assembling thread.
    BatchPipe(EventAssembler& assembler, LoadProgress* progress, bool assembleThread, unsigned parseWorkers);
    ~BatchPipe();
    BatchPipe(const BatchPipe&) = delete;
    BatchPipe& operator=(const BatchPipe&) = delete;

    void push(ParsedBatch&& batch);
    // A batch to fill, with the storage of one already assembled when there is one (fresh
    // multi-MB windows would be faulted in again each time).
    ParsedBatch spare();
    // A batch ended in a syntax error: nothing after it is assembled, so reading can stop.
    bool stopped() const { return m_stopped.load(std::memory_order_relaxed); }
    // Waits until every batch has been assembled; rethrows what a parse or the assembler threw.
    void finish();

private:
    struct Slot {
        ParsedBatch batch;
        bool parsed = false;
        bool taken = false; // by a parse worker
    };

    void assembleLoop() noexcept;
    void parseLoop() noexcept;
    void assemble(ParsedBatch& batch);
    void recycle(ParsedBatch&& batch);
    void close();
    void fail(std::exception_ptr e);

    EventAssembler& m_assembler;
    LoadProgress* m_progress;
    EntryParser m_parser; // for batches that reach the assembler unparsed
    std::size_t m_depth; // batches in flight at most
    std::mutex m_mutex;
    // One condition per kind of waiter, so that a change wakes only the thread that can act on it
    // (one for all of them woke every thread on every batch: thousands of context switches).
    std::condition_variable m_roomFreed; // the reader: a slot was assembled
    std::condition_variable m_batchQueued; // parse workers: a batch to parse, or the end
    std::condition_variable m_batchParsed; // the assembler: a batch is ready, or the end
    std::deque<Slot> m_slots; // in stream order; references stay valid while others come and go
    std::vector<ParsedBatch> m_spare;
    bool m_closed = false;
    std::atomic<bool> m_stopped{false};
    std::exception_ptr m_failure;
    std::vector<std::thread> m_threads; // last: started once the members above exist
};

} // namespace ks
