#pragma once
/* The C interface between the injection library and the optional PyTorch observer library
 * (collector/torchobserver): the observer, a RecordFunction callback built against the user's
 * torch, hands every operator to the injection, which records it into the calling thread's NVTX
 * ring as the range emit_nvtx would have pushed, without formatting any text on that thread.
 * The observer finds kinetoscope_torch_ops() with dlsym; nothing here may throw. */
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One operator starting, as torch's RecordFunction describes it. Valid during the call only. */
typedef struct KinetoscopeTorchOp {
    uint32_t size; /* sizeof(KinetoscopeTorchOp), for later additions */
    uint32_t shapeCount; /* entries of ranks: one per input (a list's tensors flattened); 0: no shapes */
    const char* name; /* RecordFunction::name(): interned by its address, checked by its text */
    int64_t sequence; /* RecordFunction::seqNr(); negative: none */
    uint64_t opId; /* RecordFunction::handle(); 0: none */
    const uint32_t* ranks; /* dimensions of each shape entry (0 for non-tensors) */
    const int64_t* dims; /* all entries' sizes, in order */
    uint32_t dimCount; /* the sum of ranks */
    uint32_t reserved;
} KinetoscopeTorchOp;

typedef struct KinetoscopeTorchOpsApi {
    uint32_t size; /* sizeof(KinetoscopeTorchOpsApi) */
    /* The operator starts on the calling thread: 1 when recorded. */
    int (*begin)(const KinetoscopeTorchOp* op);
    /* The calling thread's innermost operator ends. */
    void (*end)(void);
} KinetoscopeTorchOpsApi;

/* Starts the collector if it is not running yet; NULL when operators must go through
 * emit_nvtx instead (collector options ops=nvtx or nvtx=cupti, or the collector is off). */
typedef const KinetoscopeTorchOpsApi* (*KinetoscopeTorchOpsEntry)(void);
#define KINETOSCOPE_TORCH_OPS_ENTRY "kinetoscope_torch_ops"

#ifdef __cplusplus
}
#endif
