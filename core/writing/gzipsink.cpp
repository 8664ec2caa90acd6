#include "core/writing/gzipsink.h"

#include <algorithm>
#include <cerrno>

namespace ks {

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
