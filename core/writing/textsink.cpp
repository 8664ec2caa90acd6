#include "core/writing/textsink.h"

#include <algorithm>
#include <cerrno>

#include <unistd.h>

namespace ks {

bool Sink::fail(int errorNumber)
{
    if (m_errorNumber == 0)
        m_errorNumber = errorNumber != 0 ? errorNumber : EIO; // a write that made no progress
    return false;
}

bool StreamSink::write(std::string_view text)
{
    m_out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return m_out ? true : fail(errno);
}

bool FdSink::write(std::string_view text)
{
    while (!text.empty()) {
        const auto n = ::write(m_fd, text.data(), text.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(n < 0 ? errno : ENOSPC);
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool GzipSink::write(std::string_view text)
{
    while (!text.empty()) {
        const auto chunk = static_cast<unsigned>(std::min<std::size_t>(text.size(), 1u << 30));
        if (gzwrite(m_file, text.data(), chunk) != static_cast<int>(chunk)) {
            int zlibError = Z_OK;
            gzerror(m_file, &zlibError);
            return fail(zlibError == Z_ERRNO ? errno : EIO);
        }
        text.remove_prefix(chunk);
    }
    return true;
}

} // namespace ks
