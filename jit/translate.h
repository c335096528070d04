/* translate.h - lowers one parsed .entry (and every .func it reaches) to a decoded Program.
 *
 * Contract: runs once per kernel and mask of observed events (observe.h), at its first
 * launch with that mask: the binders choose plain or observed handler variants by it.
 * Resolves every name (registers,
 * variables, labels, functions), turns immediates and per-warp special registers into
 * constant rows, lays out shared memory and each function's local frame, and asks each
 * opcode's binder for its handler. Any unsupported construct fails here, with
 * "file:line:col: message", never at run time.
 */
#ifndef PTXEMU_TRANSLATE_H
#define PTXEMU_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>
#include "frontend/ptx_ast.h"
#include "emu/machine.h"

/* Module-scope variables live in device memory placed by the module loader; the translator
 * asks for their space and address by name. Returns 0 when found. */
typedef int (*TrLookupFn)(void *ctx, const char *name, int *space, uint64_t *addr);

Program *translate_kernel(const PtxModule *m, const PtxFunc *entry, TrLookupFn lookup,
                          void *ctx, uint32_t obs, char *err, size_t errlen);
void program_free(Program *p);

/* Layout of an .entry's parameters, without translating its body (cudaFuncGetAttributes and
 * launch argument packing need it before the first launch). Returns total bytes. */
uint32_t translate_param_layout(const PtxFunc *entry, uint32_t *offset, uint32_t *size);

#endif
