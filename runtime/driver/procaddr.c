/* procaddr.c - cuGetProcAddress: driver functions by name, version and stream flavour.
 *
 * NVIDIA's runtime (static or shared) obtains every driver function it uses this way, asking
 * for the version of each function it was built against; so do programs through
 * cudaGetDriverEntryPoint. The answers follow what an H100's driver handed out for every
 * (name, version, flags) (procs.def): the newest variant not newer than the version asked,
 * the _ptds/_ptsz twin for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM. Every symbol named
 * there exists in this library, implemented or as a stub that says it is not (unimplemented.c).
 *
 * This file must not include cuda.h: it declares the symbols by name, whatever their
 * prototypes, to take their addresses (so the entry points themselves are in init.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    SUCCESS = 0, ERROR_INVALID_VALUE = 1, ERROR_NOT_FOUND = 500, DRIVER_VERSION = 13000,
    ST_SUCCESS = 0, ST_SYMBOL_NOT_FOUND = 1, ST_VERSION_NOT_SUFFICIENT = 2,
    FLAG_LEGACY = 1, FLAG_PER_THREAD = 2
};

#define S(sym) extern void sym(void);
#include "runtime/driver/proc_syms.def"
#undef S

typedef struct Proc { const char *name; int version; void (*legacy)(void), (*per_thread)(void); } Proc;
#define NONE 0
#define P(name, version, a, b) { name, version, a, b },
static const Proc procs[] = {
#include "runtime/driver/procs.def"
};
#undef P

/* The rows of `name` are consecutive and in ascending version order. */
static int lookup(const char *symbol, int version, uint64_t flags, void **pfn, int *status)
{
    const Proc *best = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        if (strcmp(procs[i].name, symbol)) {
            if (known) break;
            continue;
        }
        known = 1;
        if (procs[i].version <= version) best = &procs[i];
    }
    *pfn = NULL;
    if (!known) {
        *status = ST_SYMBOL_NOT_FOUND;
        return ERROR_NOT_FOUND;
    }
    /* both stream flavours at once answer as the default (legacy) one */
    void (*fn)(void) = !best ? NULL : flags == FLAG_PER_THREAD ? best->per_thread : best->legacy;
    *status = fn ? ST_SUCCESS : ST_VERSION_NOT_SUFFICIENT;
    *pfn = (void *)fn;
    return SUCCESS;
}

/* Measured: flags beyond the two stream bits, and versions newer than the driver's, are
 * CUDA_ERROR_INVALID_VALUE (through NVIDIA's runtime: tests/cuda/tma_encode); an unknown name
 * succeeds with a null pointer and status SYMBOL_NOT_FOUND, or is CUDA_ERROR_NOT_FOUND when
 * no status is asked for (cuGetProcAddress, or _v2 with a null status); a known one asked at
 * too old a version succeeds with a null pointer and status VERSION_NOT_SUFFICIENT.
 * cuGetProcAddress and cuGetProcAddress_v2 (init.c) answer with this; it works before cuInit. */
int drv_proc_lookup(const char *symbol, void **pfn, int version, uint64_t flags, int *status);
int drv_proc_lookup(const char *symbol, void **pfn, int version, uint64_t flags, int *status)
{
    int st = ST_SYMBOL_NOT_FOUND;
    if (!symbol || !pfn || flags > (FLAG_LEGACY | FLAG_PER_THREAD) || version > DRIVER_VERSION)
        return ERROR_INVALID_VALUE;
    int rc = lookup(symbol, version, flags, pfn, &st);
    if (!status) return rc;
    *status = st;
    return SUCCESS;
}
