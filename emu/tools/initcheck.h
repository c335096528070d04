/* initcheck.h - PTXEMU_INITCHECK: reads of device memory that nothing wrote.
 *
 * Device allocations (cudaMalloc, cuMemAlloc and their kin: not pinned, managed or module
 * memory, which the host or an initializer fills) start unwritten, a bit a byte; host copies
 * and fills, kernel stores and atomics, and landing asynchronous copies mark bytes written.
 * A CTA's shared memory starts unwritten for each CTA. A kernel read of an unwritten byte is
 * reported once per instruction on stderr (a warning naming kernel, line, thread, address and
 * allocation) and as a "kind":"uninitialized-read" line to PTXEMU_REPORT. */
#ifndef PTXEMU_INITCHECK_H
#define PTXEMU_INITCHECK_H

#include <stddef.h>
#include <stdint.h>
#include "emu/machine.h"

extern int initcheck_mode;       /* PTXEMU_INITCHECK=1 (set by emu_init) */

void init_alloc(uint64_t base, size_t size);     /* a device allocation: all unwritten */
void init_free(uint64_t base);
void init_write(uint64_t addr, size_t n);        /* host side or an async copy: written */
/* A kernel access through mem_warp_ptrs (host[]: the lanes' addresses). */
void init_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                 uint8_t *const host[WARP_SIZE]);
void init_shared_write(Cta *c, const uint8_t *p, size_t n);   /* bytes of c's shared memory */
int init_setup_cta(Cta *c);      /* its shared memory starts unwritten */
void init_free_cta(Cta *c);

#endif
