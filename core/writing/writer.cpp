// The writer's entry points: which sink the events go to (a stream, a file written to a
// temporary name and renamed over the target once complete, gzip by name) and what cannot be
// written back. The events themselves: TraceJsonWriter.
#include "core/writing/writer.h"

#include "core/writing/fdsink.h"
#include "core/writing/filemode.h"
#include "core/writing/gzipsink.h"
#include "core/writing/streamsink.h"
#include "core/writing/tracejsonwriter.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ks {

std::string formatMicroseconds(TimeNs ns)
{
    // Unsigned arithmetic so that INT64_MIN has a magnitude too.
    const bool negative = ns < 0;
    const std::uint64_t magnitude = negative ? ~static_cast<std::uint64_t>(ns) + 1 : static_cast<std::uint64_t>(ns);
    // "%s%llu.%03llu" without snprintf: it is written for every ts and dur.
    char buffer[32];
    char* at = buffer;
    if (negative)
        *at++ = '-';
    at = std::to_chars(at, buffer + sizeof buffer, magnitude / 1000).ptr;
    const auto fraction = static_cast<unsigned>(magnitude % 1000);
    *at++ = '.';
    *at++ = static_cast<char>('0' + fraction / 100);
    *at++ = static_cast<char>('0' + fraction / 10 % 10);
    *at++ = static_cast<char>('0' + fraction % 10);
    return std::string(buffer, at);
}

namespace {

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string errnoText(const char* what, const std::string& path)
{
    return std::string(what) + " " + path + ": " + std::strerror(errno);
}

} // namespace

std::vector<WriteLoss> unwritableParts(const Trace& trace)
{
    std::vector<WriteLoss> out;
    const auto& slices = trace.slices();
    const bool needsText = !trace.keptEntries().empty()
        || std::any_of(slices.rawLength.begin(), slices.rawLength.end(), [](auto n) { return n != 0; });
    if (needsText && !trace.hasTextSource())
        out.push_back({"entries whose source text is no longer available", trace.keptEntries().size()});
    std::uint64_t notKept = 0;
    for (const auto& [key, raw] : trace.metadata()) {
        if (raw.size() >= 11 && raw.compare(raw.size() - 11, 11, " not kept)\"") == 0)
            ++notKept;
    }
    if (notKept)
        out.push_back(
            {"top-level values over 1 MiB (stackFrames, samples, systemTraceEvents) that were not loaded", notKept});
    return out;
}

TraceWriteResult writeTraceJson(const Trace& trace, std::ostream& out, const TraceWriteOptions& options)
{
    return writeMergedTraceJson({&trace}, out, options);
}

TraceWriteResult writeMergedTraceJson(const std::vector<const Trace*>& traces, std::ostream& out,
                                      const TraceWriteOptions& options)
{
    StreamSink sink(out);
    return TraceJsonWriter(traces, options, sink).run();
}

TraceWriteResult writeTraceFile(const Trace& trace, const std::string& path, const TraceWriteOptions& options)
{
    return writeMergedTraceFile({&trace}, path, options);
}

TraceWriteResult writeMergedTraceFile(const std::vector<const Trace*>& traces, const std::string& path,
                                      const TraceWriteOptions& options)
{
    TraceWriteResult result;
    std::string tempPath = path + ".tmp.XXXXXX";
    const int fd = ::mkstemp(tempPath.data());
    if (fd < 0) {
        result.error = errnoText("cannot create a temporary file for", path);
        return result;
    }
    ::fchmod(fd, newFileMode()); // mkstemp made it 0600; honour the umask like any new file
    const bool gzip = options.compression == TraceWriteOptions::Compression::Gzip
        || (options.compression == TraceWriteOptions::Compression::ByExtension && endsWith(path, ".gz"));
    // The first failure's errno, taken where it happens: later calls may overwrite errno.
    int failure = 0;
    const auto failWith = [&failure](int errorNumber) {
        if (failure == 0)
            failure = errorNumber != 0 ? errorNumber : EIO;
    };
    if (gzip) {
        // gzclose closes the descriptor it was given; keep our own to fsync afterwards.
        const int gzFd = ::dup(fd);
        const std::string mode = "wb" + std::to_string(std::clamp(options.gzipLevel, 1, 9));
        gzFile file = gzFd >= 0 ? gzdopen(gzFd, mode.c_str()) : nullptr;
        if (!file) {
            failWith(errno);
            if (gzFd >= 0)
                ::close(gzFd);
        } else {
            GzipSink sink(file);
            result = TraceJsonWriter(traces, options, sink).run();
            if (!result.ok)
                failWith(sink.errorNumber());
            if (gzclose(file) != Z_OK) // flushes the last compressed block
                failWith(errno);
        }
    } else {
        FdSink sink(fd);
        result = TraceJsonWriter(traces, options, sink).run();
        if (!result.ok)
            failWith(sink.errorNumber());
    }
    if (failure == 0 && ::fsync(fd) != 0) // a full disk often shows only here
        failWith(errno);
    if (::close(fd) != 0)
        failWith(errno);
    if (failure == 0 && ::rename(tempPath.c_str(), path.c_str()) != 0) {
        result.error = errnoText("cannot rename the temporary file onto", path);
        ::unlink(tempPath.c_str());
        result.ok = false;
        return result;
    }
    if (failure != 0) {
        errno = failure;
        result.error = errnoText("cannot write", path);
        ::unlink(tempPath.c_str());
        result.ok = false;
        return result;
    }
    result.ok = true;
    return result;
}

} // namespace ks
