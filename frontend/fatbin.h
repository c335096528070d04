/* fatbin.h - reads the PTX out of an nvcc fatbinary.
 *
 * Contract: given the wrapper pointer that nvcc passes to __cudaRegisterFatBinary, find every
 * PTX entry (zstd-compressed or plain), decompress it, and choose the one the emulated sm_90
 * device should run: the newest architecture <= 90, preferring sm_90a over sm_90 at 90.
 * Never reads outside the sizes the headers state; a malformed fatbinary is an error.
 */
#ifndef PTXEMU_FATBIN_H
#define PTXEMU_FATBIN_H

#include <stddef.h>

typedef struct FatbinPtx {
    char *text;          /* NUL-terminated PTX, malloc'ed; owner frees with fatbin_free   */
    size_t len;          /* bytes, without the NUL                                        */
    int arch;            /* e.g. 90 for compute_90/sm_90a                                 */
    int arch_specific;   /* 1 for an sm_90a / compute_90a entry                           */
    char name[256];      /* a name for diagnostics: the source file recorded in the entry,
                            or "fatbin" when none                                        */
    char options[256];   /* the ptxas options recorded with it ("" in a default build)    */
} FatbinPtx;

enum {
    FATBIN_OK = 0,
    FATBIN_ERR_FORMAT,   /* bad magic, truncated or inconsistent sizes                    */
    FATBIN_ERR_NO_PTX,   /* only SASS (ELF) entries: message says how to rebuild           */
    FATBIN_ERR_ZSTD,     /* a compressed entry failed to decompress                       */
    FATBIN_ERR_NOMEM
};

/* Fill *out with the chosen PTX of the fatbinary behind `wrapper`. On failure returns a
 * FATBIN_ERR_* and writes a one-line explanation into err. */
int fatbin_pick_ptx(const void *wrapper, FatbinPtx *out, char *err, size_t errlen);

/* Same, starting from the fatbinary itself (magic 0xBA55ED50) of at most `avail` bytes. */
int fatbin_pick_ptx_data(const void *data, size_t avail, FatbinPtx *out, char *err,
                         size_t errlen);

/* Each fatbinary of an ELF section that holds several one after the other, 8-byte aligned
 * (.nv_fatbin, __nv_relfatbin), in order: calls fn until it returns nonzero. Returns how many
 * were visited. */
int fatbin_each(const void *section, size_t len,
                int (*fn)(const void *fatbin, size_t size, void *arg), void *arg);

/* 0 when the fatbinary holds no code at all - only SASS entries without functions, as the
 * device-link step of a plain nvcc build leaves - and 1 otherwise (also when it cannot tell). */
int fatbin_has_code(const void *data, size_t avail);

void fatbin_free(FatbinPtx *p);

/* How many bytes from p on are mapped readable (following adjacent readable mappings):
 * what bounds reading an image whose length nobody states (a registration wrapper's data,
 * cuModuleLoadData's image). SIZE_MAX when /proc/self/maps cannot be read. */
size_t fatbin_readable_after(const void *p);

#endif
