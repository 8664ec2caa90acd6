#include "core/writing/textsink.h"

#include <cerrno>

namespace ks {

bool Sink::fail(int errorNumber)
{
    if (m_errorNumber == 0)
        m_errorNumber = errorNumber != 0 ? errorNumber : EIO; // a write that made no progress
    return false;
}

} // namespace ks
