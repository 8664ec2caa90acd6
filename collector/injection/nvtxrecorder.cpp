#include "collector/injection/nvtxrecorder.h"

#include "collector/injection/torchoppayload.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace ks::injection {
namespace {

std::atomic<std::uint64_t> g_generations{0};

// Marks the observer's operators on a thread's stack of open ranges (never written out: their
// records name the default domain, as emit_nvtx's did).
const char kTorchOpStack = 0;

// The calling thread's state for the recorder of one generation; retires its ring when the
// thread exits (the recorder frees it once drained).
struct ThreadSlot {
    std::uint64_t generation = 0;
    std::shared_ptr<void> owner; // keeps the state alive while the thread runs
    void* state = nullptr;
    void (*retire)(void*) = nullptr;
    ~ThreadSlot()
    {
        if (state)
            retire(state);
    }
};
thread_local ThreadSlot t_slot;

} // namespace

NvtxRecorder::NvtxRecorder(ActivityApi& api, std::size_t ringBytes)
    : m_api(api)
    , m_ringBytes(ringBytes)
    , m_generation(g_generations.fetch_add(1) + 1)
{
}

NvtxRecorder::ThreadState* NvtxRecorder::threadState() noexcept
{
    if (t_slot.generation == m_generation)
        return static_cast<ThreadState*>(t_slot.state);
    try {
        auto state = std::make_shared<ThreadState>(m_ringBytes);
        state->threadId = static_cast<std::uint64_t>(syscall(SYS_gettid));
        state->open.reserve(64);
        {
            std::lock_guard lock(m_threadsMutex);
            m_threads.push_back(state);
        }
        if (t_slot.state)
            t_slot.retire(t_slot.state); // an earlier recorder's (tests make several)
        t_slot.generation = m_generation;
        t_slot.state = state.get();
        t_slot.retire = [](void* s) { static_cast<ThreadState*>(s)->ring.retire(); };
        t_slot.owner = std::move(state);
        return static_cast<ThreadState*>(t_slot.state);
    } catch (...) {
        return nullptr; // out of memory: this thread's records are lost (and counted)
    }
}

bool NvtxRecorder::write(ThreadState& state, std::uint32_t id, std::uint32_t flags, const void* domain,
                         std::string_view text) noexcept
{
    NvtxRecord record;
    record.time = m_api.timestampNs();
    record.id = id;
    record.flags = flags;
    record.domain = domain;
    record.threadId = state.threadId;
    return state.ring.write(record, text);
}

void NvtxRecorder::mark(const void* domain, std::string_view text) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed))
        return;
    if (ThreadState* state = threadState())
        write(*state, m_nextId.fetch_add(1, std::memory_order_relaxed), NvtxRecord::Instant, domain, text);
    else
        m_lost.fetch_add(1, std::memory_order_relaxed);
}

std::uint32_t NvtxRecorder::startRange(const void* domain, std::string_view text) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed))
        return 0;
    const std::uint32_t id = m_nextId.fetch_add(1, std::memory_order_relaxed);
    if (ThreadState* state = threadState())
        write(*state, id, NvtxRecord::Start, domain, text);
    else
        m_lost.fetch_add(1, std::memory_order_relaxed);
    return id;
}

void NvtxRecorder::endRange(std::uint32_t id) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed) || id == 0)
        return;
    // A range may end on another thread than it started on: the end is that thread's record.
    if (ThreadState* state = threadState())
        write(*state, id, NvtxRecord::End, nullptr, {});
    else
        m_lost.fetch_add(1, std::memory_order_relaxed);
}

int NvtxRecorder::push(const void* domain, std::string_view text) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed))
        return 0;
    ThreadState* state = threadState();
    if (!state) {
        m_lost.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
    const std::uint32_t id = m_nextId.fetch_add(1, std::memory_order_relaxed);
    try {
        state->open.emplace_back(domain, id); // allocates only past 64 open ranges
    } catch (...) {
        m_lost.fetch_add(1, std::memory_order_relaxed);
        return static_cast<int>(state->open.size());
    }
    write(*state, id, NvtxRecord::Start, domain, text);
    return static_cast<int>(state->open.size()) - 1;
}

int NvtxRecorder::pop(const void* domain) noexcept { return popRange(domain, domain); }

bool NvtxRecorder::beginTorchOp(const KinetoscopeTorchOp& op) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed) || !op.name)
        return false;
    ThreadState* state = threadState();
    if (!state) {
        m_lost.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    const std::uint32_t id = m_nextId.fetch_add(1, std::memory_order_relaxed);
    try {
        state->open.emplace_back(&kTorchOpStack, id);
    } catch (...) {
        m_lost.fetch_add(1, std::memory_order_relaxed);
        return false;
    }
    TorchOpName name;
    name.id = state->torchOpNames.find(op.name);
    name.sendText = name.id == 0;
    if (name.sendText)
        name.id = m_nextTorchOpName.fetch_add(1, std::memory_order_relaxed);
    if (!encodeTorchOp(op, name, state->torchOpPayload)) {
        m_lost.fetch_add(1, std::memory_order_relaxed);
        return true; // its end still pops the range: the host counts an end without a start
    }
    const std::string_view payload(reinterpret_cast<const char*>(state->torchOpPayload.data()),
                                   state->torchOpPayload.size());
    // A name is known on this thread only once its text is in the ring (a full ring drops it).
    if (write(*state, id, NvtxRecord::Start | NvtxRecord::TorchOp, nullptr, payload) && name.sendText)
        state->torchOpNames.remember(op.name, name.id);
    return true;
}

void NvtxRecorder::endTorchOp() noexcept { popRange(&kTorchOpStack, nullptr); }

int NvtxRecorder::popRange(const void* stackDomain, const void* recordDomain) noexcept
{
    if (m_stopped.load(std::memory_order_relaxed))
        return -1;
    ThreadState* state = threadState();
    if (!state)
        return -1;
    // Ranges nest per domain: the innermost open range of this domain closes.
    auto& open = state->open;
    for (std::size_t i = open.size(); i-- > 0;) {
        if (open[i].first != stackDomain)
            continue;
        const std::uint32_t id = open[i].second;
        open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
        write(*state, id, NvtxRecord::End, recordDomain, {});
        return static_cast<int>(i);
    }
    return -1;
}

std::uint64_t NvtxRecorder::dropped() const
{
    std::lock_guard lock(m_threadsMutex);
    std::uint64_t total = m_lost.load() + m_retiredDropped;
    for (const auto& state : m_threads)
        total += state->ring.dropped();
    return total;
}

} // namespace ks::injection
