#include "app/memorypolicy.h"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace ks {

void useMemoryPolicyForLargeTraces()
{
#ifdef M_MMAP_THRESHOLD // glibc's
    // glibc serves a block from its arenas unless it is above the mmap threshold, and raises
    // that threshold (up to 32 MB) each time such a block is freed. After the first large
    // free, the model's columns and every analysis' scratch lived in the arenas, where freed
    // pages stay resident until trimmed and pages shared with live data stay for good: the
    // GUI settled 10-25 MB above its live data on the 201 MB trace, differently each run. A
    // fixed threshold (mallopt also ends the raising) keeps those blocks out of the arenas.
    // 1 MiB: with 256 KiB the parse batches went to the system too, and the same trace took
    // about 0.1 s longer to load.
    constexpr int kLargeBlockBytes = 1 << 20;
    mallopt(M_MMAP_THRESHOLD, kLargeBlockBytes);
#endif
}

} // namespace ks
