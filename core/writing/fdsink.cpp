#include "core/writing/fdsink.h"

#include <cerrno>

#include <unistd.h>

namespace ks {

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

} // namespace ks
