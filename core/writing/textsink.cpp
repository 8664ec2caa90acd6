#include "core/writing/textsink.h"

#include <algorithm>
#include <cerrno>

#include <unistd.h>

namespace ks {

bool StreamSink::write(std::string_view text)
{
    m_out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return static_cast<bool>(m_out);
}

bool FdSink::write(std::string_view text)
{
    while (!text.empty()) {
        const auto n = ::write(m_fd, text.data(), text.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool GzipSink::write(std::string_view text)
{
    while (!text.empty()) {
        const auto chunk = static_cast<unsigned>(std::min<std::size_t>(text.size(), 1u << 30));
        if (gzwrite(m_file, text.data(), chunk) != static_cast<int>(chunk))
            return false;
        text.remove_prefix(chunk);
    }
    return true;
}

} // namespace ks
