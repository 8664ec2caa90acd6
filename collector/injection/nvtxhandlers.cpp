#include "collector/injection/nvtxhandlers.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <string>
#include <string_view>

namespace ks::injection {
namespace {

NvtxRecorder* g_recorder = nullptr;

struct RegisteredString {
    std::string text;
};

std::string_view textOf(const nvtxEventAttributes_t* attributes)
{
    if (!attributes)
        return {};
    switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return attributes->message.ascii ? attributes->message.ascii : "";
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return attributes->message.registered
            ? std::string_view(reinterpret_cast<const RegisteredString*>(attributes->message.registered)->text)
            : std::string_view();
    default: return {}; // wide strings: recorded without text
    }
}

std::string_view textOf(const char* message) { return message ? message : ""; }

const void* domainOf(nvtxDomainHandle_t domain) { return domain; }

void NVTX_API markEx(const nvtxEventAttributes_t* attributes) { g_recorder->mark(nullptr, textOf(attributes)); }
void NVTX_API markA(const char* message) { g_recorder->mark(nullptr, textOf(message)); }
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* attributes)
{
    return g_recorder->startRange(nullptr, textOf(attributes));
}
nvtxRangeId_t NVTX_API rangeStartA(const char* message) { return g_recorder->startRange(nullptr, textOf(message)); }
void NVTX_API rangeEnd(nvtxRangeId_t id) { g_recorder->endRange(static_cast<std::uint32_t>(id)); }
int NVTX_API rangePushEx(const nvtxEventAttributes_t* attributes)
{
    return g_recorder->push(nullptr, textOf(attributes));
}
int NVTX_API rangePushA(const char* message) { return g_recorder->push(nullptr, textOf(message)); }
int NVTX_API rangePop() { return g_recorder->pop(nullptr); }

void NVTX_API domainMarkEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes)
{
    g_recorder->mark(domainOf(domain), textOf(attributes));
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes)
{
    return g_recorder->startRange(domainOf(domain), textOf(attributes));
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id)
{
    g_recorder->endRange(static_cast<std::uint32_t>(id));
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes)
{
    return g_recorder->push(domainOf(domain), textOf(attributes));
}
int NVTX_API domainRangePop(nvtxDomainHandle_t domain) { return g_recorder->pop(domainOf(domain)); }
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t, const char* text)
{
    try {
        return reinterpret_cast<nvtxStringHandle_t>(new RegisteredString{text ? text : ""});
    } catch (...) {
        return nullptr;
    }
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name)
{
    try {
        return reinterpret_cast<nvtxDomainHandle_t>(new NvtxDomain{name ? name : ""});
    } catch (...) {
        return nullptr; // records of this domain then land in the default one
    }
}
void NVTX_API domainDestroy(nvtxDomainHandle_t) { } // records in flight may still name it

template <class Fn>
void set(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn)
{
    if (id <= size && table[id])
        *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

} // namespace

bool installNvtxHandlers(NvtxExportTableGetter getExportTable, NvtxRecorder& recorder)
{
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) || !callbacks->GetModuleFunctionTable)
        return false;
    NvtxFunctionTable core = nullptr, core2 = nullptr;
    unsigned coreSize = 0, core2Size = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize) || !core
        || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size) || !core2)
        return false;
    g_recorder = &recorder;
    set(core, coreSize, NVTX_CBID_CORE_MarkEx, markEx);
    set(core, coreSize, NVTX_CBID_CORE_MarkA, markA);
    set(core, coreSize, NVTX_CBID_CORE_RangeStartEx, rangeStartEx);
    set(core, coreSize, NVTX_CBID_CORE_RangeStartA, rangeStartA);
    set(core, coreSize, NVTX_CBID_CORE_RangeEnd, rangeEnd);
    set(core, coreSize, NVTX_CBID_CORE_RangePushEx, rangePushEx);
    set(core, coreSize, NVTX_CBID_CORE_RangePushA, rangePushA);
    set(core, coreSize, NVTX_CBID_CORE_RangePop, rangePop);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainMarkEx, domainMarkEx);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainRangeStartEx, domainRangeStartEx);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainRangeEnd, domainRangeEnd);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, domainRangePushEx);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, domainRangePop);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringA, domainRegisterStringA);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, domainCreateA);
    set(core2, core2Size, NVTX_CBID_CORE2_DomainDestroy, domainDestroy);
    return true;
}

} // namespace ks::injection
