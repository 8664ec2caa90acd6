#include "collector/protocol/fieldreader.h"

namespace ks::wire::detail {

bool FieldReader::take(std::size_t n)
{
    if (!m_ok || m_data.size() - m_pos < n) {
        m_ok = false;
        return false;
    }
    m_pos += n;
    return true;
}

void FieldReader::operator()(std::string& text)
{
    std::uint32_t size = 0;
    (*this)(size);
    if (!take(size))
        return;
    text.assign(reinterpret_cast<const char*>(m_data.data() + m_pos - size), size);
}

void FieldReader::operator()(std::vector<std::string>& list)
{
    std::uint32_t count = 0;
    (*this)(count);
    // Each entry needs at least its 4-byte length: reject counts the payload cannot hold
    // before reserving anything.
    if (!m_ok || count > (m_data.size() - m_pos) / 4) {
        m_ok = false;
        return;
    }
    list.assign(count, {});
    for (auto& text : list)
        (*this)(text);
}

} // namespace ks::wire::detail
