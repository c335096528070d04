/* jit.h - modules: PTX text parsed (frontend/), linked, its variables placed in device memory,
 * and each kernel translated to a Program (translate.c) at its first launch.
 *
 * Contract: the runtime hands PTX text to jit_module_load (or several texts to link), asks for
 * kernels and symbols by name, and launches kernels through emu.h, which gets each kernel's
 * Program from here (jit_module_load registers the kernel source, emu.h). A kernel is translated
 * once for each mask of observed events (observe.h) it is launched with, and kept in its module
 * until the module is freed. Errors come back as cudaError_t values (EMU_ERR_*) plus one
 * message line.
 */
#ifndef PTXEMU_JIT_H
#define PTXEMU_JIT_H

#include <stddef.h>
#include <stdint.h>
#include "emu/emu.h"

typedef struct JitModule JitModule;

typedef struct JitKernelInfo {
    int nparams;
    const uint32_t *param_offset;   /* byte offset of each parameter in the param buffer  */
    const uint32_t *param_size;     /* byte size of each parameter                        */
    uint32_t param_bytes;
    uint32_t shared_static;         /* bytes of static shared memory                      */
    uint32_t local_bytes;           /* local bytes per thread of the kernel's own frame   */
    uint32_t num_regs;              /* registers the kernel declares (capped at 255)       */
    uint32_t max_threads;           /* 1024, or .maxntid / .reqntid product               */
    int reqntid[3];
    int reqncta[3];                 /* .reqnctapercluster (__cluster_dims__), 0s if none   */
    int ptx_arch;                   /* the module's .target: 75 for sm_75 PTX             */
} JitKernelInfo;

/* Parse a PTX module and place its module-scope variables in device memory.
 * On failure returns NULL, *cuda_err = EMU_ERR_INVALID_PTX or _UNSUPPORTED_PTX_VERSION and
 * err holds "file:line:col: message" plus the offending text. */
JitModule *jit_module_load(const char *ptx, size_t len, const char *source_name,
                           char *err, size_t errlen, int *cuda_err);
/* Parse n PTX modules and link them into one (.extern resolved across them, as the driver's
 * JIT linker does); errors as jit_module_load, link errors as EMU_ERR_INVALID_PTX. */
JitModule *jit_module_link(const char *const *ptx, const size_t *len, const char *const *names,
                           int n, char *err, size_t errlen, int *cuda_err);
void jit_module_free(JitModule *m);
/* Kernels of the module: count, and the i-th (for cuModuleEnumerateFunctions). */
int jit_module_kernel_count(const JitModule *m);
EmuKernel *jit_module_kernel_at(JitModule *m, int i);
const char *jit_module_target(const JitModule *m);   /* ".target", e.g. "sm_90a" */

/* Device address and size of a module-scope .global/.const variable; -1 if absent. */
int jit_module_symbol(JitModule *m, const char *name, uint64_t *addr, size_t *size);

/* The .entry named `name` (mangled), or NULL. Does not translate yet. */
EmuKernel *jit_module_kernel(JitModule *m, const char *name);
int jit_kernel_info(EmuKernel *k, JitKernelInfo *out);
/* Why the kernel failed to translate ("file:line:col: message"), or NULL. */
const char *jit_kernel_error(const EmuKernel *k);
const char *jit_kernel_name(const EmuKernel *k);

#endif
