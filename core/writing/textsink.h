// Where the writer's text goes: a stream, a file descriptor or a gzip file. Each write
// reports failure instead of throwing, so the writer can clean up its temporary file.
#pragma once

#include <zlib.h>

#include <ostream>
#include <string_view>

namespace ks {

class Sink {
public:
    virtual ~Sink() = default;
    virtual bool write(std::string_view text) = 0;
    // The system's reason for the first failed write (an errno value), 0 while none failed:
    // errno itself may be overwritten before the caller reports the failure.
    int errorNumber() const { return m_errorNumber; }

protected:
    bool fail(int errorNumber);

private:
    int m_errorNumber = 0;
};

class StreamSink final : public Sink {
public:
    explicit StreamSink(std::ostream& out)
        : m_out(out)
    {
    }
    bool write(std::string_view text) override;

private:
    std::ostream& m_out;
};

class FdSink final : public Sink {
public:
    explicit FdSink(int fd)
        : m_fd(fd)
    {
    }
    bool write(std::string_view text) override;

private:
    int m_fd;
};

class GzipSink final : public Sink {
public:
    explicit GzipSink(gzFile file)
        : m_file(file)
    {
    }
    bool write(std::string_view text) override;

private:
    gzFile m_file;
};

} // namespace ks
