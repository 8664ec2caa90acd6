#pragma once
// Points NVTX's function table at NvtxRecorder (collector option nvtx=own): called from
// InitializeInjectionNvtx2 with the table NVTX hands to its injection. Supported: marks,
// start/end and push/pop ranges with ASCII or registered texts, in the default domain and in
// domains (nvtxDomainCreateA); everything else stays an NVTX no-op. False when NVTX's export
// table lacks what we need (the caller then forwards to CUPTI instead).
#include "collector/injection/nvtxrecorder.h"

#include <cstdint>

namespace ks::injection {

using NvtxExportTableGetter = const void* (*)(std::uint32_t exportTableId);

bool installNvtxHandlers(NvtxExportTableGetter getExportTable, NvtxRecorder& recorder);

} // namespace ks::injection
