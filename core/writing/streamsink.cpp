#include "core/writing/streamsink.h"

#include <cerrno>

namespace ks {

bool StreamSink::write(std::string_view text)
{
    m_out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return m_out ? true : fail(errno);
}

} // namespace ks
