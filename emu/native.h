/* native.h - the contract between the machine and compiled kernels (the compiled tier,
 * jit/compile.c, writes them as C and the system compiler builds them).
 *
 * A compiled kernel runs one warp's turn exactly as warp_run does (engine.c): the same
 * instructions in the same order, the same divergence, barriers and time slice, the same
 * handlers for everything it does not inline, so that it leaves the warp, memory and the
 * launch as the interpreter would. It is only ever given plain Programs (no tool observes the
 * launch) and never runs in deterministic mode. It reaches back into the machine through
 * NativeRt only: the library that loads it need not export anything. */
#ifndef PTXEMU_NATIVE_H
#define PTXEMU_NATIVE_H

#include "machine.h"
#include "exec_mem_fast.h"

typedef struct NativeRt {
    void (*regroup)(Warp *w);                          /* warp_regroup                     */
    void (*wgmma_check)(Warp *w, const Inst *in);      /* wgmma_check_access               */
    int (*interp)(Warp *w, uint32_t budget);           /* the interpreter, from w->pc     */
    int (*warp_ptrs)(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                     uint8_t *host[WARP_SIZE]);        /* mem_warp_ptrs                    */
    int (*warp_fast)(Warp *w, const Inst *in, uint32_t mask, unsigned size,
                     uint8_t *host[WARP_SIZE]);        /* mem_warp_fast                    */
    uint8_t *(*warp_span)(Warp *w, const Inst *in, uint64_t a0,
                          unsigned size);              /* mem_warp_span                    */
    int (*arena_block)(uint64_t a0, unsigned size, uint64_t *start,
                       uint64_t *lim);                 /* mem_arena_block                  */
    const MemCache *(*span_cache)(void);               /* mem_span_cache: a run's spans   */
    const uint64_t *generation;                        /* &mem_generation                  */
    void (*bar_release)(Cta *c, int id);               /* cta_barrier_release: a whole
                                                        * warp's bar.sync inline (compile.c's
                                                        * emit_bar) completed barrier id   */
} NativeRt;

/* A compiled kernel: one turn of w (warp_run's contract: RUN_* from engine.h). */
typedef int (*NativeFn)(Warp *w, uint32_t budget, const NativeRt *rt);

/* The entry point every compiled kernel's shared object defines. */
#define NATIVE_SYMBOL "ptxemu_native_kernel"

#endif
