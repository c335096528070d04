/* export.c - cuGetExportTable: the private tables NVIDIA's runtime asks the driver for.
 *
 * A table is an array of words named by a 16-byte UUID; most begin with their own size in
 * bytes, the rest are function pointers. What a CUDA 13 runtime (static libcudart, and the
 * shared libcudart.so.13) asks for and calls was found by running programs on an H100 under a
 * logging driver (tests/gpu/drvlog, docs/driver.md): seven tables, of whose entries it calls
 * only those implemented here. Every other entry is a function that says which entry of which
 * table was called and returns CUDA_ERROR_NOT_SUPPORTED, so that a runtime which needs more
 * fails with a message naming it.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/integrity.h"

/* Reports once per entry. */
static CUresult missing(const char *table, int index, int *told)
{
    if (!__atomic_exchange_n(told, 1, __ATOMIC_RELAXED))
        drv_diag("entry %d of the driver's private table %s was called: not implemented "
                 "(CUDA_ERROR_NOT_SUPPORTED)", index, table);
    return CUDA_ERROR_NOT_SUPPORTED;
}

#define MISSING(tab, name, idx) \
    static CUresult tab##_##idx(void) { static int told; return missing(name, idx, &told); }

/* ---- 6bd5fb6c-5bf4-e74a-8987-d93912fd9df9: the runtime's interface ---- */

/* Entry 2: the device's primary context, neither retained nor made current (the runtime does
 * both itself afterwards). */
static CUresult rt_primary_ctx(CUcontext *pctx, CUdevice dev)
{
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(dev);
    if (e == CUDA_SUCCESS) *pctx = drv_primary(dev);
    return e;
}

#define RTI "6bd5fb6c (runtime interface)"
MISSING(rti, RTI, 1) MISSING(rti, RTI, 3) MISSING(rti, RTI, 4) MISSING(rti, RTI, 5)
MISSING(rti, RTI, 6) MISSING(rti, RTI, 7) MISSING(rti, RTI, 8) MISSING(rti, RTI, 9)
MISSING(rti, RTI, 11) MISSING(rti, RTI, 12)

static const void *const cudart_table[13] = {
    (void *)(13 * sizeof(void *)), (void *)rti_1, (void *)rt_primary_ctx, (void *)rti_3,
    (void *)rti_4, (void *)rti_5, (void *)rti_6, (void *)rti_7, (void *)rti_8, (void *)rti_9,
    NULL, (void *)rti_11, (void *)rti_12,
};

/* ---- a094798c-2e74-2e74-93f2-0800200c0a66: tool callback hooks ---- */

/* Entries 2 and 6 hand out buffers where tools would register callbacks: empty ones. */
static unsigned char hooks_buf1[1024], hooks_buf2[16];

static void hooks_2(void **ptr, size_t *size)
{
    if (ptr) *ptr = hooks_buf1;
    if (size) *size = sizeof hooks_buf1;
}

static void hooks_6(void **ptr, size_t *size)
{
    if (ptr) *ptr = hooks_buf2;
    if (size) *size = 14;   /* measured */
}

#define HOOKS "a094798c (tool callback hooks)"
MISSING(hooks, HOOKS, 1) MISSING(hooks, HOOKS, 3) MISSING(hooks, HOOKS, 4) MISSING(hooks, HOOKS, 5)

static const void *const hooks_table[7] = {
    (void *)(7 * sizeof(void *)), (void *)hooks_1, (void *)hooks_2, (void *)hooks_3,
    (void *)hooks_4, (void *)hooks_5, (void *)hooks_6,
};

/* ---- 42d85a81-23f6-cb47-8298-f6e78a3aecdc: tools' thread-local storage ---- */

#define TLS "42d85a81 (tools TLS)"
MISSING(tls, TLS, 1) MISSING(tls, TLS, 2)

static const void *const tls_table[3] = { (void *)(3 * sizeof(void *)), (void *)tls_1, (void *)tls_2 };

/* ---- c693336e-1121-df11-a8c3-68f355d89593: context-local storage (no size word) ---- */

/* ctx NULL means the current context. */
static CUresult cls_ctx(CUcontext ctx, CUcontext *out)
{
    if (ctx) {
        if (drv_handle_kind(ctx) != H_CTX) return CUDA_ERROR_INVALID_CONTEXT;
        *out = ctx;
        return CUDA_SUCCESS;
    }
    return drv_ctx_enter_any(out);
}

static CUresult cls_put(CUcontext ctx, void *key, void *value, void (*dtor)(CUcontext, void *, void *))
{
    CUcontext c;
    drv_lock();
    CUresult e = cls_ctx(ctx, &c);
    if (e == CUDA_SUCCESS) e = drv_cls_put(c, key, value, dtor);
    drv_unlock();
    return e;
}

static CUresult cls_delete(CUcontext ctx, void *key)
{
    CUcontext c;
    drv_lock();
    CUresult e = cls_ctx(ctx, &c);
    if (e == CUDA_SUCCESS) e = drv_cls_delete(c, key);
    drv_unlock();
    return e;
}

static CUresult cls_get(void **value, CUcontext ctx, void *key)
{
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    drv_lock();
    CUresult e = cls_ctx(ctx, &c);
    if (e == CUDA_SUCCESS) e = drv_cls_get(c, key, value);
    drv_unlock();
    return e;
}

static const void *const cls_table[3] = { (void *)cls_put, (void *)cls_delete, (void *)cls_get };

/* ---- 263e8860-7cd2-6143-92f6-bbd5006dfa7e: context checks ---- */

/* Entry 2 reports a context's state word, entry 3 a count: zeros on every driver seen. */
static CUresult checks_2(CUcontext ctx, unsigned *state, void **aux)
{
    (void)ctx; (void)aux;
    if (state) *state = 0;
    return CUDA_SUCCESS;
}

static CUresult checks_3(void)
{
    return CUDA_SUCCESS;
}

#define CHECKS "263e8860 (context checks)"
MISSING(checks, CHECKS, 1) MISSING(checks, CHECKS, 4) MISSING(checks, CHECKS, 5)
MISSING(checks, CHECKS, 6) MISSING(checks, CHECKS, 7) MISSING(checks, CHECKS, 8)
MISSING(checks, CHECKS, 9) MISSING(checks, CHECKS, 10) MISSING(checks, CHECKS, 11)
MISSING(checks, CHECKS, 12) MISSING(checks, CHECKS, 13) MISSING(checks, CHECKS, 14)

static const void *const checks_table[15] = {
    (void *)(15 * sizeof(void *)), (void *)checks_1, (void *)checks_2, (void *)checks_3,
    (void *)checks_4, (void *)checks_5, (void *)checks_6, (void *)checks_7, (void *)checks_8,
    (void *)checks_9, (void *)checks_10, (void *)checks_11, (void *)checks_12,
    (void *)checks_13, (void *)checks_14,
};

/* ---- d4082055-bde6-704b-8d34-ba123c66e1f2: the integrity check (integrity.c) ---- */

static CUresult integrity_1(unsigned version, uint64_t unix_seconds, unsigned char *out);

#define INTEGRITY "d4082055 (integrity check)"
MISSING(integrity, INTEGRITY, 2)

static const void *const integrity_table[3] = {
    (void *)(3 * sizeof(void *)), (void *)integrity_1, (void *)integrity_2,
};

static CUresult integrity_1(unsigned version, uint64_t unix_seconds, unsigned char *out)
{
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    /* every device takes part, in ordinal order (docs/driver.md) */
    IntegrityDevice devs[DRV_MAX_DEVICES];
    int n = drv_device_count();
    for (int d = 0; d < n; d++) {
        int v = 0;
        drv_device_uuid(d, devs[d].uuid);
        drv_device_attr(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &v);
        devs[d].pci_domain = v;
        drv_device_attr(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &v);
        devs[d].pci_bus = v;
        drv_device_attr(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &v);
        devs[d].pci_device = v;
    }
    IntegrityInput in = {
        DRV_DRIVER_VERSION, version, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
        cudart_table, integrity_table, (const void *)integrity_1, unix_seconds,
    };
    integrity_answer(&in, devs, n, out);
    return CUDA_SUCCESS;
}

/* ---- f8cff951-2146-8b4e-b9e2-fb469e7c0dd9: asked for first; [1] logs the runtime's errors ----
 * Seen on the H100 (cudaSetDevice(1) with one device): [1]("CUDA", 0, "Invalid device number
 * %d provided, must be in the range...", the caller's va_list, a pointer to 16 bytes of an id)
 * returned 0 and consumed the format's arguments from the va_list. The message goes into the driver's
 * error log, which no program reads without the cuLogs API; ptxemu says it at log level 2. */

#define FIRST "f8cff951"
MISSING(first, FIRST, 2)

static CUresult first_1(const char *component, const void *unused, const char *fmt, va_list ap,
                        const void *id)
{
    (void)unused; (void)id;
    char msg[1024];
    if (!fmt) return CUDA_SUCCESS;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (emu_log_level >= 2)
        drv_diag("runtime error log (%s): %s", component ? component : "?", msg);
    return CUDA_SUCCESS;
}

static const void *const first_table[3] = { (void *)(3 * sizeof(void *)), (void *)first_1, (void *)first_2 };

/* ---- the lookup ---- */

typedef struct Table { unsigned char uuid[16]; const void *table; } Table;

static const Table tables[] = {
    { { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 }, cudart_table },
    { { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 }, hooks_table },
    { { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc }, tls_table },
    { { 0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93 }, cls_table },
    { { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e }, checks_table },
    { { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 }, integrity_table },
    { { 0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9 }, first_table },
};

/* Works before cuInit, as the runtime asks for a table before initialising. A table ptxemu
 * does not have is CUDA_ERROR_INVALID_VALUE, as for an unknown UUID on an H100 (NVRTC then
 * does without it), said at log level 2 and up. */
CUresult CUDAAPI cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (!memcmp(tables[i].uuid, pExportTableId->bytes, 16)) {
            *ppExportTable = tables[i].table;
            return CUDA_SUCCESS;
        }
    if (emu_log_level >= 2) {
        char id[40];
        for (int i = 0; i < 16; i++) sprintf(id + 2 * i, "%02x", (unsigned char)pExportTableId->bytes[i]);
        drv_diag("cuGetExportTable: no table %s", id);
    }
    *ppExportTable = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}
