#include "core/loading/bytesource.h"

#include <zlib.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ks {

namespace {

std::uint64_t fileSize(std::FILE* f)
{
    struct stat st { };
    return fstat(fileno(f), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

struct FileIdentity {
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    static FileIdentity of(const std::string& path)
    {
        struct stat st { };
        if (stat(path.c_str(), &st) != 0)
            return {};
        return {static_cast<std::uint64_t>(st.st_size),
                std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
    }
    bool operator==(const FileIdentity&) const = default;
};

class FileTextSource final : public EventTextSource {
public:
    explicit FileTextSource(std::string path)
        : m_path(std::move(path))
        , m_identity(FileIdentity::of(m_path))
    {
    }
    bool read(std::uint64_t offset, std::uint32_t length, std::string& out) const override
    {
        out.clear();
        if (!(FileIdentity::of(m_path) == m_identity))
            return false; // the file changed since it was loaded
        std::FILE* f = std::fopen(m_path.c_str(), "rb");
        if (!f)
            return false;
        out.resize(length);
        const bool ok =
            fseeko(f, static_cast<off_t>(offset), SEEK_SET) == 0 && std::fread(out.data(), 1, length, f) == length;
        std::fclose(f);
        if (!ok)
            out.clear();
        return ok;
    }

private:
    std::string m_path;
    FileIdentity m_identity;
};

class FileSource final : public ByteSource {
public:
    FileSource(std::FILE* f, std::string path)
        : m_file(f)
        , m_path(std::move(path))
        , m_size(fileSize(f))
    {
    }
    ~FileSource() override { std::fclose(m_file); }
    std::size_t read(char* dest, std::size_t capacity) override
    {
        const std::size_t n = std::fread(dest, 1, capacity, m_file);
        m_consumed += n;
        if (n == 0 && std::ferror(m_file))
            m_error = "read error";
        return n;
    }
    std::uint64_t inputConsumed() const override { return m_consumed; }
    std::uint64_t inputSize() const override { return m_size; }
    std::string error() const override { return m_error; }
    std::shared_ptr<const EventTextSource> textSource() override { return std::make_shared<FileTextSource>(m_path); }
    // A read is one copy from the page cache (the kernel reads the file ahead itself): done on
    // the reading thread it costs less than a second thread's copy and the handover between them
    // (0.75-0.88 s of CPU for the 201 MB trace on 2 cores, against 0.77-1.19 s read ahead).
    bool worthReadingAhead() const override { return false; }

private:
    std::FILE* m_file;
    std::string m_path;
    std::uint64_t m_size;
    std::uint64_t m_consumed = 0;
    std::string m_error;
};

// A place in a gzip file where inflating can restart: a deflate block boundary with the
// 32 KiB of output before it (the zran technique).
struct GzipCheckpoint {
    std::uint64_t outOffset = 0;
    std::uint64_t inOffset = 0; // first byte holding bits of the next block
    int bits = 0; // bits of that byte already used
    std::vector<unsigned char> window;
};

constexpr std::size_t kWindowBytes = 32768;
constexpr std::uint64_t kCheckpointSpan = 4u << 20;
// Trace JSON compresses 7-16x with gzip (the fixtures); 64x bounds the model sized up front
// for a file whose trailer claims more (deflate itself allows up to ~1032x).
constexpr std::uint64_t kMaxExpectedRatio = 64;

class GzipTextSource final : public EventTextSource {
public:
    GzipTextSource(std::string path, std::vector<GzipCheckpoint> checkpoints)
        : m_path(std::move(path))
        , m_identity(FileIdentity::of(m_path))
        , m_checkpoints(std::move(checkpoints))
    {
    }

    bool read(std::uint64_t offset, std::uint32_t length, std::string& out) const override
    {
        out.clear();
        if (!(FileIdentity::of(m_path) == m_identity))
            return false;
        std::lock_guard lock(m_mutex); // one restart at a time keeps memory bounded
        std::FILE* f = std::fopen(m_path.c_str(), "rb");
        if (!f)
            return false;
        const bool ok = inflateRange(f, offset, length, out);
        std::fclose(f);
        if (!ok)
            out.clear();
        return ok;
    }
    // A batch the size of the checkpoint span: each read inflates up to one span before the
    // text it wants, so smaller batches would inflate most of the file again and again.
    std::uint32_t batchBytes() const override { return kCheckpointSpan; }

private:
    bool inflateRange(std::FILE* f, std::uint64_t offset, std::uint32_t length, std::string& out) const
    {
        const GzipCheckpoint* cp = nullptr;
        for (const auto& c : m_checkpoints) {
            if (c.outOffset <= offset)
                cp = &c;
        }
        z_stream z{};
        std::uint64_t outPos = 0;
        if (cp) {
            if (inflateInit2(&z, -15) != Z_OK)
                return false;
            if (fseeko(f, static_cast<off_t>(cp->inOffset - (cp->bits ? 1 : 0)), SEEK_SET) != 0)
                return inflateEnd(&z), false;
            if (cp->bits) {
                const int byte = std::fgetc(f);
                if (byte == EOF)
                    return inflateEnd(&z), false;
                inflatePrime(&z, cp->bits, byte >> (8 - cp->bits));
            }
            inflateSetDictionary(&z, cp->window.data(), static_cast<uInt>(cp->window.size()));
            outPos = cp->outOffset;
        } else if (inflateInit2(&z, 15 + 32) != Z_OK) {
            return false;
        }
        std::vector<unsigned char> in(1 << 16), buf(1 << 16);
        bool rawMode = cp != nullptr;
        int ret = Z_OK;
        while (out.size() < length) {
            if (z.avail_in == 0) {
                z.avail_in = static_cast<uInt>(std::fread(in.data(), 1, in.size(), f));
                z.next_in = in.data();
                if (z.avail_in == 0)
                    break;
            }
            z.next_out = buf.data();
            z.avail_out = static_cast<uInt>(buf.size());
            ret = inflate(&z, Z_NO_FLUSH);
            // What inflated before corrupt data is what the load read (and kept) too.
            const std::size_t produced = buf.size() - z.avail_out;
            const std::uint64_t chunkStart = outPos;
            outPos += produced;
            if (outPos > offset) {
                const std::uint64_t from = offset > chunkStart ? offset - chunkStart : 0;
                const std::size_t take = std::min<std::size_t>(produced - from, length - out.size());
                out.append(reinterpret_cast<const char*>(buf.data() + from), take);
            }
            if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
                break;
            if (ret == Z_STREAM_END) {
                // The next gzip member (if any): after a raw restart, skip the 8-byte trailer.
                if (rawMode) {
                    std::size_t skip = 8;
                    while (skip) {
                        if (z.avail_in == 0) {
                            z.avail_in = static_cast<uInt>(std::fread(in.data(), 1, in.size(), f));
                            z.next_in = in.data();
                            if (z.avail_in == 0)
                                break;
                        }
                        const std::size_t n = std::min<std::size_t>(skip, z.avail_in);
                        z.next_in += n;
                        z.avail_in -= static_cast<uInt>(n);
                        skip -= n;
                    }
                    rawMode = false;
                }
                if (inflateReset2(&z, 15 + 32) != Z_OK)
                    break;
            }
        }
        inflateEnd(&z);
        return out.size() == length;
    }

    std::string m_path;
    FileIdentity m_identity;
    std::vector<GzipCheckpoint> m_checkpoints;
    mutable std::mutex m_mutex;
};

class GzipSource final : public ByteSource {
public:
    // The input buffer no larger than the file: a small file costs no 256 KiB of zeroed memory.
    GzipSource(std::FILE* f, std::string path)
        : m_file(f)
        , m_path(std::move(path))
        , m_size(fileSize(f))
        , m_in(std::clamp<std::uint64_t>(m_size, 4096, 1 << 18))
    {
        m_ok = inflateInit2(&m_z, 15 + 32) == Z_OK;
        if (!m_ok)
            m_error = "zlib initialisation failed";
    }
    ~GzipSource() override
    {
        inflateEnd(&m_z);
        std::fclose(m_file);
    }

    std::size_t read(char* dest, std::size_t capacity) override
    {
        std::size_t produced = 0;
        while (m_ok && produced < capacity) {
            if (m_z.avail_in == 0) {
                if (!refillInput()) {
                    if (m_inMember && m_error.empty())
                        m_error = "the gzip stream ends early (truncated or corrupt gzip data)";
                    break;
                }
            }
            m_z.next_out = reinterpret_cast<Bytef*>(dest + produced);
            m_z.avail_out = static_cast<uInt>(capacity - produced);
            const int ret = inflate(&m_z, Z_BLOCK);
            const std::size_t n = capacity - produced - m_z.avail_out;
            rememberWindow(dest + produced, n);
            produced += n;
            m_out += n;
            if (ret == Z_STREAM_END) {
                m_inMember = false;
                // Multi-member file: continue with the next member, if there is one.
                if (m_z.avail_in == 0 && !refillInput())
                    break;
                m_inMember = true;
                if (inflateReset(&m_z) != Z_OK) {
                    m_ok = false;
                    m_error = "corrupt gzip data after a member";
                }
                continue;
            }
            if (ret != Z_OK && ret != Z_BUF_ERROR) {
                m_ok = false;
                m_error = std::string("corrupt gzip data: ") + (m_z.msg ? m_z.msg : "inflate failed");
                break;
            }
            maybeCheckpoint();
        }
        return produced;
    }
    std::uint64_t inputConsumed() const override { return m_inConsumed - m_z.avail_in; }
    std::uint64_t inputSize() const override { return m_size; }
    std::uint64_t expectedSize() const override
    {
        // The gzip trailer holds the (last member's) size modulo 4 GiB; JSON shrinks at
        // least 2x, so a smaller figure means the size wrapped around. But the trailer is
        // the file's word (a fuzz input's or a cut file's): the estimate never exceeds what
        // the compressed bytes can realistically hold, and a wrap is only assumed where it fits.
        const std::uint64_t cap = m_size * kMaxExpectedRatio;
        constexpr std::uint64_t kWrap = std::uint64_t(1) << 32;
        std::uint64_t size = trailerSize();
        while (size < 2 * m_size && size + kWrap <= cap)
            size += kWrap;
        return std::min(size, cap);
    }
    std::string error() const override { return m_error; }
    std::shared_ptr<const EventTextSource> textSource() override
    {
        return std::make_shared<GzipTextSource>(m_path, std::move(m_checkpoints));
    }

private:
    std::uint64_t trailerSize() const
    {
        unsigned char b[4] = {0, 0, 0, 0};
        const int fd = fileno(m_file);
        if (m_size < 18 || pread(fd, b, 4, static_cast<off_t>(m_size - 4)) != 4)
            return 0;
        return std::uint64_t(b[0]) | std::uint64_t(b[1]) << 8 | std::uint64_t(b[2]) << 16 | std::uint64_t(b[3]) << 24;
    }

    bool refillInput()
    {
        const std::size_t n = std::fread(m_in.data(), 1, m_in.size(), m_file);
        m_z.next_in = m_in.data();
        m_z.avail_in = static_cast<uInt>(n);
        m_inConsumed += n;
        return n > 0;
    }

    // Keeps the last 32 KiB of output for the next checkpoint.
    void rememberWindow(const char* data, std::size_t n)
    {
        if (n >= kWindowBytes) {
            m_window.assign(data + n - kWindowBytes, data + n);
            return;
        }
        m_window.insert(m_window.end(), data, data + n);
        if (m_window.size() > 2 * kWindowBytes)
            m_window.erase(m_window.begin(), m_window.end() - static_cast<std::ptrdiff_t>(kWindowBytes));
    }

    void maybeCheckpoint()
    {
        const bool blockBoundary = (m_z.data_type & 128) && !(m_z.data_type & 64);
        if (!blockBoundary || m_out < m_lastCheckpoint + kCheckpointSpan || m_window.size() < kWindowBytes)
            return;
        GzipCheckpoint cp;
        cp.outOffset = m_out;
        cp.inOffset = inputConsumed();
        cp.bits = m_z.data_type & 7;
        cp.window.assign(m_window.end() - static_cast<std::ptrdiff_t>(kWindowBytes), m_window.end());
        m_checkpoints.push_back(std::move(cp));
        m_lastCheckpoint = m_out;
    }

    std::FILE* m_file;
    std::string m_path;
    std::uint64_t m_size;
    z_stream m_z{};
    bool m_ok = false;
    bool m_inMember = true; // inside a gzip member that has not reached its end
    std::vector<unsigned char> m_in;
    std::uint64_t m_inConsumed = 0;
    std::uint64_t m_out = 0;
    std::uint64_t m_lastCheckpoint = 0;
    std::vector<char> m_window;
    std::vector<GzipCheckpoint> m_checkpoints;
    std::string m_error;
};

class MemoryTextSource final : public EventTextSource {
public:
    explicit MemoryTextSource(std::shared_ptr<const std::string> text)
        : m_text(std::move(text))
    {
    }
    bool read(std::uint64_t offset, std::uint32_t length, std::string& out) const override
    {
        if (offset + length > m_text->size())
            return out.clear(), false;
        out.assign(*m_text, static_cast<std::size_t>(offset), length);
        return true;
    }

private:
    std::shared_ptr<const std::string> m_text;
};

class MemorySource final : public ByteSource {
public:
    MemorySource(std::string text, std::size_t chunk)
        : m_text(std::make_shared<const std::string>(std::move(text)))
        , m_chunk(std::max<std::size_t>(chunk, 1))
    {
    }
    std::size_t read(char* dest, std::size_t capacity) override
    {
        const std::size_t n = std::min({capacity, m_chunk, m_text->size() - m_pos});
        // NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes, not a C string
        std::memcpy(dest, m_text->data() + m_pos, n);
        m_pos += n;
        return n;
    }
    std::uint64_t inputConsumed() const override { return m_pos; }
    std::uint64_t inputSize() const override { return m_text->size(); }
    std::string error() const override { return {}; }
    std::shared_ptr<const EventTextSource> textSource() override { return std::make_shared<MemoryTextSource>(m_text); }

private:
    std::shared_ptr<const std::string> m_text;
    std::size_t m_chunk;
    std::size_t m_pos = 0;
};

// Producer thread fills up to kDepth chunks ahead; read() hands them out in order.
class PrefetchingSource final : public ByteSource {
public:
    PrefetchingSource(std::unique_ptr<ByteSource> inner, std::size_t chunk)
        : m_inner(std::move(inner))
        , m_chunk(chunk)
        , m_thread([this] { run(); })
    {
    }
    ~PrefetchingSource() override
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    std::size_t read(char* dest, std::size_t capacity) override
    {
        std::size_t copied = 0;
        while (copied < capacity) {
            if (m_current.size() == m_currentPos) {
                if (copied)
                    break;
                std::unique_lock lock(m_mutex);
                m_changed.wait(lock, [this] { return !m_ready.empty() || m_done; });
                if (m_ready.empty())
                    break;
                if (m_current.capacity())
                    m_spare.push_back(std::move(m_current));
                m_current = std::move(m_ready.front());
                m_ready.pop_front();
                m_currentPos = 0;
                m_consumed = m_readyConsumed.front();
                m_readyConsumed.pop_front();
                lock.unlock();
                m_changed.notify_all();
            }
            const std::size_t n = std::min(capacity - copied, m_current.size() - m_currentPos);
            std::memcpy(dest + copied, m_current.data() + m_currentPos, n);
            m_currentPos += n;
            copied += n;
        }
        return copied;
    }
    std::uint64_t inputConsumed() const override { return m_consumed; }
    std::uint64_t inputSize() const override { return m_inner->inputSize(); }
    std::uint64_t expectedSize() const override { return m_inner->expectedSize(); }
    std::string error() const override
    {
        std::lock_guard lock(m_mutex);
        return m_error;
    }
    std::shared_ptr<const EventTextSource> textSource() override
    {
        // The reader may stop early (a syntax error): stop the producer before touching
        // the inner source, which is only safe once the producer has let go of it.
        std::unique_lock lock(m_mutex);
        m_stop = true;
        m_changed.notify_all();
        m_changed.wait(lock, [this] { return m_done; });
        // Reading is over (the text source is asked for last): the blocks go before the
        // model is built, the load's memory peak.
        m_ready.clear();
        m_readyConsumed.clear();
        m_spare.clear();
        std::vector<char>().swap(m_current);
        m_currentPos = 0;
        return m_inner->textSource();
    }

private:
    static constexpr std::size_t kDepth = 4;

    // The thread's body: an exception (out of memory, a failing inner source) ends the
    // stream with an error, as a read error does, instead of std::terminate.
    void run() noexcept
    {
        try {
            produce();
        } catch (...) {
            const std::exception_ptr failure = std::current_exception();
            std::unique_lock lock(m_mutex);
            m_done = true;
            try {
                try {
                    std::rethrow_exception(failure);
                } catch (const std::exception& e) {
                    m_error = std::string("read-ahead failed: ") + e.what();
                }
            } catch (...) {
                m_error = "read-ahead failed";
            }
            lock.unlock();
            m_changed.notify_all();
        }
    }

    void produce()
    {
        while (true) {
            std::vector<char> block;
            {
                std::lock_guard lock(m_mutex);
                if (!m_spare.empty()) { // reuse a consumed block: no page faults, no zeroing
                    block = std::move(m_spare.back());
                    m_spare.pop_back();
                }
            }
            block.resize(m_chunk);
            const std::size_t n = m_inner->read(block.data(), block.size());
            block.resize(n);
            std::unique_lock lock(m_mutex);
            if (n == 0) {
                m_error = m_inner->error();
                m_done = true;
                lock.unlock();
                m_changed.notify_all();
                return;
            }
            m_ready.push_back(std::move(block));
            m_readyConsumed.push_back(m_inner->inputConsumed());
            m_changed.notify_all();
            m_changed.wait(lock, [this] { return m_ready.size() < kDepth || m_stop; });
            if (m_stop) {
                m_done = true;
                lock.unlock();
                m_changed.notify_all();
                return;
            }
        }
    }

    std::unique_ptr<ByteSource> m_inner;
    std::size_t m_chunk;
    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::vector<char>> m_ready;
    std::deque<std::uint64_t> m_readyConsumed;
    std::vector<std::vector<char>> m_spare;
    bool m_done = false;
    bool m_stop = false;
    std::string m_error;
    std::vector<char> m_current;
    std::size_t m_currentPos = 0;
    std::uint64_t m_consumed = 0;
    std::thread m_thread; // last: starts after the members it uses exist
};

} // namespace

OpenedSource openFileSource(const std::string& path)
{
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        return {nullptr, std::string("cannot open: ") + std::strerror(errno)};
    unsigned char magic[2] = {0, 0};
    const std::size_t n = std::fread(magic, 1, 2, f);
    std::rewind(f);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
        return {std::make_unique<GzipSource>(f, path), {}};
    return {std::make_unique<FileSource>(f, path), {}};
}

std::unique_ptr<ByteSource> memorySource(std::string text, std::size_t chunkBytes)
{
    return std::make_unique<MemorySource>(std::move(text), chunkBytes);
}

std::unique_ptr<ByteSource> prefetchingSource(std::unique_ptr<ByteSource> inner, std::size_t chunkBytes)
{
    return std::make_unique<PrefetchingSource>(std::move(inner), chunkBytes);
}

} // namespace ks
