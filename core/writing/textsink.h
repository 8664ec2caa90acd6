// Where the writer's text goes (a stream, a file descriptor or a gzip file: StreamSink, FdSink,
// GzipSink). Each write reports failure instead of throwing, so the writer can clean up its
// temporary file.
#pragma once

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

} // namespace ks
