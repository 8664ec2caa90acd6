#include "core/analysis/multiloadprogress.h"

namespace ks::analysis {

MultiLoadProgress::MultiLoadProgress(std::size_t files)
    : m_count(files)
    , m_files(std::make_unique<LoadProgress[]>(files))
{
}

std::uint64_t MultiLoadProgress::bytesDone() const
{
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < m_count; ++i)
        sum += m_files[i].bytesDone.load();
    return sum;
}

std::uint64_t MultiLoadProgress::bytesTotal() const
{
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < m_count; ++i)
        sum += m_files[i].bytesTotal.load();
    return sum;
}

void MultiLoadProgress::cancel()
{
    m_cancel = true;
    for (std::size_t i = 0; i < m_count; ++i)
        m_files[i].cancelRequested = true;
}

} // namespace ks::analysis
