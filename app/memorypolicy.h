#pragma once
// How the GUI process allocates: large blocks (a trace's columns, an analysis' scratch) come
// from the system and go straight back to it when freed.
namespace ks {

// Call once, before the first trace loads (main(), and GUI tests that measure memory).
void useMemoryPolicyForLargeTraces();

} // namespace ks
