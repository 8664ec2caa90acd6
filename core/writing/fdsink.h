// A Sink over a file descriptor: plain JSON written to the temporary file beside the target.
#pragma once

#include "core/writing/textsink.h"

namespace ks {

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

} // namespace ks
