/* memory.c - allocations, copies, fills and pointer queries.
 *
 * Device memory is the emulator's arena, where a device address is the host address of the
 * same byte: copies are memmove after validation. Every device-side range must lie inside
 * one live allocation (CUDA_ERROR_INVALID_VALUE otherwise), as on a GPU where a bad pointer
 * makes the copy fail rather than touch other memory. Pinned and managed memory live in the
 * arena too. All work runs in issue order, so an asynchronous copy is done when it returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/graph.h"
#include "emu/memory.h"
#include "emu/events.h"
#include "emu/model.h"

/* ---- the driver's own allocations: kind, flags and owner, for frees and queries ---- */

typedef struct Alloc {
    uint64_t addr; int kind; unsigned flags; CUcontext ctx;
    size_t size; uintptr_t site[DRV_SITE_FRAMES];   /* PTXEMU_LEAKCHECK: where it was made */
} Alloc;
#define TOMB 1u          /* a freed slot; real allocations are aligned, never at address 1 */
static Alloc *allocs;
static size_t alloc_cap, alloc_used;   /* used counts live entries and tombstones */

static size_t ahash(uint64_t a, size_t cap)
{
    return (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static Alloc *alloc_slot(uint64_t addr)
{
    if (!alloc_cap) return NULL;
    for (size_t i = ahash(addr, alloc_cap);; i = (i + 1) & (alloc_cap - 1)) {
        if (allocs[i].addr == addr) return &allocs[i];
        if (allocs[i].addr == 0) return NULL;
    }
}

static int alloc_grow(void)
{
    size_t nc = alloc_cap ? alloc_cap * 2 : 1024;
    Alloc *na = calloc(nc, sizeof *na);
    if (!na) return -1;
    for (size_t i = 0; i < alloc_cap; i++) {
        if (allocs[i].addr <= TOMB) continue;
        size_t j = ahash(allocs[i].addr, nc);
        while (na[j].addr) j = (j + 1) & (nc - 1);
        na[j] = allocs[i];
    }
    free(allocs);
    allocs = na;
    alloc_cap = nc;
    alloc_used = 0;
    for (size_t i = 0; i < nc; i++) alloc_used += na[i].addr != 0;
    return 0;
}

static int alloc_remember(Alloc a)
{
    if ((alloc_used + 1) * 2 > alloc_cap && alloc_grow()) return -1;
    size_t i = ahash(a.addr, alloc_cap);
    while (allocs[i].addr > TOMB) i = (i + 1) & (alloc_cap - 1);
    if (allocs[i].addr == 0) alloc_used++;
    allocs[i] = a;
    return 0;
}

static int mem_kind_of(int kind)
{
    return kind == DRV_MEM_HOST ? MEM_HOST_PINNED : kind == DRV_MEM_MANAGED ? MEM_MANAGED
                                                                            : MEM_DEVICE;
}

/* ---- PTXEMU_LEAKCHECK: allocations still alive when the program exits ---- */

static int leakcheck = -1;   /* unknown until the first allocation */

static const char *const kind_words[] = { "device memory", "pinned host memory", "managed memory",
                                          "registered host memory",
                                          "another process's memory (cuIpcOpenMemHandle)" };

static void leak_report(void)
{
    const char *path = getenv("PTXEMU_REPORT");
    FILE *js = path && *path ? fopen(path, "a") : NULL;
    size_t n = 0, bytes = 0;
    drv_lock();
    for (size_t i = 0; i < alloc_cap; i++) {
        const Alloc *a = &allocs[i];
        if (a->addr <= TOMB || a->kind == DRV_MEM_REGISTERED) continue;
        char site[1024];
        drv_callsite_format(a->site, site, sizeof site);
        fprintf(stderr, "ptxemu: leak: %zu bytes of %s at 0x%llx, allocated at %s, were never freed\n",
                a->size, kind_words[a->kind], (unsigned long long)a->addr, site[0] ? site : "an unknown place");
        if (js) {
            fprintf(js, "{\"kind\":\"leak\",\"bytes\":%zu,\"memory\":\"%s\",\"address\":%llu,\"site\":\"",
                    a->size, kind_words[a->kind], (unsigned long long)a->addr);
            for (const char *c = site; *c; c++)
                if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20) fputc(*c, js);
            fputs("\"}\n", js);
        }
        n++;
        bytes += a->size;
    }
    drv_unlock();
    if (n) fprintf(stderr, "ptxemu: leak: %zu allocations, %zu bytes, alive at exit\n", n, bytes);
    if (js) fclose(js);
}

/* Whether to remember where allocations are made; the first call registers the report. */
static int leakcheck_on(void)
{
    if (leakcheck < 0) {
        const char *v = getenv("PTXEMU_LEAKCHECK");
        leakcheck = v && *v && strcmp(v, "0") != 0;
        if (leakcheck) atexit(leak_report);
    }
    return leakcheck;
}

/* Allocate from the arena and remember it; caller holds the lock. Device memory belongs to
 * the context's device (kernels elsewhere reach it only as peers); pinned and managed
 * memory to every device. */
static CUresult alloc_new(CUcontext c, uint64_t *out, size_t size, int kind, unsigned flags)
{
    int owner = kind == DRV_MEM_DEVICE ? c->device : MEM_ANY_DEVICE;
    uint64_t a = mem_alloc_on(size, mem_kind_of(kind), owner);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    Alloc rec = { a, kind, flags, c, size, {0} };
    if (leakcheck_on()) drv_callsite(rec.site);
    if (alloc_remember(rec)) {
        mem_free(a, mem_kind_of(kind));
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = a;
    return CUDA_SUCCESS;
}

/* Free one of our allocations of the given kind; caller holds the lock. */
static CUresult alloc_release(uint64_t p, int kind_a, int kind_b)
{
    Alloc *s = alloc_slot(p);
    if (!s || (s->kind != kind_a && s->kind != kind_b)) return CUDA_ERROR_INVALID_VALUE;
    size_t size = 0;
    int mkind;
    if (s->kind == DRV_MEM_MANAGED && mem_find(p, &size, &mkind)) drv_managed_forget(p, size);
    if (s->kind == DRV_MEM_DEVICE) drv_ipc_unexport(p);   /* its pages become private again */
    if (mem_free(s->addr, mem_kind_of(s->kind)) != 0) return CUDA_ERROR_INVALID_VALUE;
    s->addr = TOMB;
    return CUDA_SUCCESS;
}

void drv_mem_release_ctx(CUcontext c)
{
    for (size_t i = 0; i < alloc_cap; i++)
        if (allocs[i].addr > TOMB && allocs[i].ctx == c) {
            size_t size = 0;
            int mkind;
            if (allocs[i].kind == DRV_MEM_MANAGED && mem_find(allocs[i].addr, &size, &mkind))
                drv_managed_forget(allocs[i].addr, size);
            if (allocs[i].kind == DRV_MEM_REGISTERED) {
                mem_unregister(allocs[i].addr);
            } else if (allocs[i].kind == DRV_MEM_IPC) {
                drv_ipc_unmap(allocs[i].addr);
            } else {
                if (allocs[i].kind == DRV_MEM_DEVICE) drv_ipc_unexport(allocs[i].addr);
                mem_free(allocs[i].addr, mem_kind_of(allocs[i].kind));
            }
            allocs[i].addr = TOMB;
        }
}

CUresult drv_mem_alloc_device(CUcontext c, uint64_t *out, size_t size)
{
    return alloc_new(c, out, size, DRV_MEM_DEVICE, 0);
}

CUresult drv_mem_remember_ipc(CUcontext c, uint64_t addr, size_t size)
{
    Alloc rec = { addr, DRV_MEM_IPC, 0, c, size, {0} };
    if (leakcheck_on()) drv_callsite(rec.site);
    return alloc_remember(rec) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

void drv_mem_forget_ipc(uint64_t addr)
{
    Alloc *s = alloc_slot(addr);
    if (s && s->kind == DRV_MEM_IPC) s->addr = TOMB;
}

CUresult drv_mem_free_device(uint64_t p)
{
    return alloc_release(p, DRV_MEM_DEVICE, DRV_MEM_MANAGED);
}

int drv_mem_ok(uint64_t p, size_t n)
{
    return p && mem_host(p, n ? n : 1) != NULL;
}

/* Run `expr` (a CUresult) under the lock in the current context and return it. */
#define IN_CTX(expr)                                                      \
    do {                                                                  \
        CUcontext ctx_;                                                   \
        CUresult e_ = drv_ctx_enter(&ctx_);                               \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        e_ = (expr);                                                      \
        drv_unlock();                                                     \
        return e_;                                                        \
    } while (0)

/* The same in the context that owns the object (drv_ctx_enter_owner): the current one, or
 * the owner when none is current. */
#define IN_OWNER(owner, expr)                                             \
    do {                                                                  \
        CUcontext ctx_;                                                   \
        CUresult e_ = drv_ctx_enter_owner(owner, 1, &ctx_);               \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        e_ = (expr);                                                      \
        drv_unlock();                                                     \
        return e_;                                                        \
    } while (0)

/* The context that made the allocation (or registration) starting at p, else NULL. */
static CUcontext alloc_owner(uint64_t p)
{
    if (!p) return NULL;
    drv_lock();
    Alloc *s = alloc_slot(p);
    CUcontext c = s ? s->ctx : NULL;
    drv_unlock();
    return c;
}

/* ---- allocation ---- */

static CUresult mem_alloc_kind(CUcontext c, CUdeviceptr *dptr, size_t size, int kind,
                               unsigned flags)
{
    if (!dptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
    uint64_t a;
    CUresult e = alloc_new(c, &a, size, kind, flags);
    if (e == CUDA_SUCCESS) *dptr = (CUdeviceptr)a;
    return e;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    if (drv_capture_unsafe_call() != CUDA_SUCCESS) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    IN_CTX(mem_alloc_kind(ctx_, dptr, bytesize, DRV_MEM_DEVICE, 0));
}

/* Measured with no context current (tests/expected/driver/noctx.txt): memory of a live
 * context is freed, null is nothing to free, and an address no allocation starts at is
 * CUDA_ERROR_INVALID_VALUE. */
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    if (drv_capture_unsafe_call() != CUDA_SUCCESS) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    CUcontext owner = alloc_owner(dptr);
    if (!drv_ctx_current() && drv_is_initialized() && !owner)
        return dptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    if (!dptr) {   /* with a context current, freeing nothing returns its state */
        CUcontext c;
        return drv_ctx_enter(&c);
    }
    IN_OWNER(owner, (drv_order_host_waits_all(), drv_pool_free(dptr)));
}

/* Rows of cuMemAllocPitch are padded to this many bytes. */
#define PITCH_ALIGN 512u

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                    size_t Height, unsigned int ElementSizeBytes)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!dptr || !pPitch || !WidthInBytes || !Height ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t p = (WidthInBytes + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (p > SIZE_MAX / Height) return CUDA_ERROR_OUT_OF_MEMORY;
    *pPitch = p;
    drv_lock();
    e = mem_alloc_kind(c, dptr, p * Height, DRV_MEM_DEVICE, 0);
    drv_unlock();
    return e;
}

#define HOST_ALLOC_FLAGS (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | \
                          CU_MEMHOSTALLOC_WRITECOMBINED)

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    if (drv_capture_unsafe_call() != CUDA_SUCCESS) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pp || (Flags & ~(unsigned)HOST_ALLOC_FLAGS)) return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr d;
    drv_lock();
    e = mem_alloc_kind(c, &d, bytesize, DRV_MEM_HOST, Flags);
    drv_unlock();
    if (e == CUDA_SUCCESS) *pp = (void *)(uintptr_t)d;
    return e;
}

CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
    if (drv_capture_unsafe_call() != CUDA_SUCCESS) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    IN_OWNER(alloc_owner((uint64_t)(uintptr_t)p),
             (drv_order_host_waits_all(),
              alloc_release((uint64_t)(uintptr_t)p, DRV_MEM_HOST, DRV_MEM_HOST)));
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) return CUDA_ERROR_INVALID_VALUE;
    IN_CTX(mem_alloc_kind(ctx_, dptr, bytesize, DRV_MEM_MANAGED, flags));
}

/* The allocation holding p, if the driver made it. */
static Alloc *alloc_of(uint64_t p, size_t *size)
{
    int kind;
    uint64_t start = p ? mem_find(p, size, &kind) : 0;
    return start ? alloc_slot(start) : NULL;
}

/* Pinned host memory lives in the arena, so its device address is its host address. */
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pdptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    size_t size;
    drv_lock();
    Alloc *a = alloc_of((uint64_t)(uintptr_t)p, &size);
    int ok = a && (a->kind == DRV_MEM_HOST || a->kind == DRV_MEM_REGISTERED);
    drv_unlock();
    if (!ok) return CUDA_ERROR_INVALID_VALUE;
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pFlags) return CUDA_ERROR_INVALID_VALUE;
    size_t size;
    drv_lock();
    Alloc *a = alloc_of((uint64_t)(uintptr_t)p, &size);
    int ok = a && (a->kind == DRV_MEM_HOST || a->kind == DRV_MEM_REGISTERED);
    /* measured: registered memory reports DEVICEMAP alone, whatever it was registered with */
    if (ok) *pFlags = a->kind == DRV_MEM_REGISTERED ? CU_MEMHOSTALLOC_DEVICEMAP : a->flags;
    drv_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Whether [lo, hi) is mapped in this process, readable, and writable unless read_only: a
 * kernel touching registered memory touches these pages, and must not bring the process
 * down with them. */
static int range_usable(uint64_t lo, uint64_t hi, int read_only)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    char line[512];
    uint64_t covered = lo;   /* [lo, covered) is known good; mappings come in address order */
    while (covered < hi && fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        char perms[8];
        if (sscanf(line, "%llx-%llx %7s", &a, &b, perms) != 3) continue;
        if (b <= covered) continue;
        if (a > covered) break;                               /* a hole */
        if (perms[0] != 'r' || (!read_only && perms[1] != 'w')) break;
        covered = b;
    }
    fclose(f);
    return covered >= hi;
}

#define HOST_REGISTER_FLAGS (CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP | \
                             CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)

/* The program's own memory cannot move into the arena, so it is registered where it is and
 * device code reaches it at its host address (emu/memory.c). Errors as recorded on the H100
 * (tests/cuda/host_register): null, empty or unknown flags are INVALID_VALUE, and so is
 * I/O memory, which a process here never has; a range overlapping a registered one is
 * ALREADY_REGISTERED. */
CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    uint64_t a = (uint64_t)(uintptr_t)p;
    if (!p || !bytesize || (Flags & ~(unsigned)HOST_REGISTER_FLAGS) ||
        (Flags & CU_MEMHOSTREGISTER_IOMEMORY) || a + bytesize < a)
        return CUDA_ERROR_INVALID_VALUE;
    int read_only = (Flags & CU_MEMHOSTREGISTER_READ_ONLY) != 0;
    if (!range_usable(a, a + bytesize, read_only)) {
        drv_diag("cuMemHostRegister: [%p, +%zu) is not %s memory of this process", p,
                 bytesize, read_only ? "readable" : "readable and writable");
        return CUDA_ERROR_INVALID_VALUE;
    }
    drv_lock();
    int rc = mem_register(a, bytesize, read_only);
    if (rc == 0 && alloc_remember((Alloc){ a, DRV_MEM_REGISTERED, Flags, c, 0, {0} })) {
        mem_unregister(a);
        rc = MEM_REG_NOMEM;
    }
    drv_unlock();
    switch (rc) {
    case 0: return CUDA_SUCCESS;
    case MEM_REG_OVERLAP: return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    case MEM_REG_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
    default: return CUDA_ERROR_INVALID_VALUE;   /* device memory, or the emulator's windows */
    }
}

/* Measured: an address inside a registered range but not its start is INVALID_VALUE; one in
 * no registered range is HOST_MEMORY_NOT_REGISTERED. */
CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(alloc_owner((uint64_t)(uintptr_t)p), 1, &c);
    if (e != CUDA_SUCCESS) return e;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    uint64_t a = (uint64_t)(uintptr_t)p;
    drv_order_host_waits_all();
    drv_lock();
    int rc = mem_unregister(a);
    if (rc == 0) {
        Alloc *s = alloc_slot(a);
        if (s) s->addr = TOMB;
    }
    drv_unlock();
    return rc == 0 ? CUDA_SUCCESS : rc == MEM_REG_INSIDE ? CUDA_ERROR_INVALID_VALUE
                                                         : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!free_bytes || !total) return CUDA_ERROR_INVALID_VALUE;
    size_t tot = drv_device_memory();
    drv_lock();
    size_t used = mem_used_on(c->device);   /* each device's own memory */
    drv_unlock();
    *free_bytes = tot > used ? tot - used : 0;
    *total = tot;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    size_t size = 0;
    int kind;
    drv_lock();
    uint64_t start = dptr ? mem_find(dptr, &size, &kind) : 0;
    drv_unlock();
    if (!start) return CUDA_ERROR_NOT_FOUND;
    if (pbase) *pbase = (CUdeviceptr)start;
    if (psize) *psize = size;
    return CUDA_SUCCESS;
}

/* ---- copies and fills ---- */

/* A pointer the program calls device memory must be inside an allocation (or registered
 * host memory); a pointer into the arena must be too, whatever it is called (unified
 * addressing). */
static int side_ok(uint64_t p, size_t n, int device)
{
    if (!p) return 0;
    if (device || mem_in_arena(p)) return drv_mem_ok(p, n);
    return 1;
}

/* The timeline's copies row (emu/events.h): which way the bytes went. */
/* Where a copy's side lives: 1 device memory, 0 host memory, pinned (page-locked: the
 * arena's host allocations, registered memory) or not. */
static int side_device(uint64_t p, int dev, int *pinned)
{
    size_t size;
    int kind = -1;
    if (!mem_find(p, &size, &kind)) return dev;   /* the program's own, pageable memory */
    int host = kind == MEM_HOST_PINNED || kind == MEM_REGISTERED || kind == MEM_REGISTERED_RO;
    if (host) *pinned = 1;
    return dev || !host;
}

/* The timeline's copies row (emu/events.h) and the model's clock: which way the bytes went. */
static void copy_span(uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n)
{
    int pinned = 0;
    int dd = side_device(dst, dst_dev, &pinned), sd = side_device(src, src_dev, &pinned);
    drv_model_copy(dd, sd, pinned, n);
    ev_memcpy(dd ? (sd ? EV_D2D : EV_H2D) : (sd ? EV_D2H : EV_H2H), n);
}

/* A tool that wants stream order (the race detector) checks the copies and fills the host
 * issues against the kernels stream order leaves unordered with them: each one is work on its
 * stream, placed like a launch. Copies and fills a graph runs are not checked. */
static int copy_order_start(CUstream s, const char *api)
{
    if (!emu_wants_stream_order()) return 0;
    drv_order_launch(s);
    emu_host_copy_begin(api);
    return 1;
}

void drv_mem_copy_run(uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n)
{
    emu_host_copy(src, n, 0);
    emu_host_copy(dst, n, 1);
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    copy_span(dst, dst_dev, src, src_dev, n);
}

/* The asynchronous copy or fill a program is issuing (COPY_ASYNC_AT), which deterministic
 * mode may keep for later (defer.c); graph nodes and synchronous copies run at once. */
static CUstream issue_stream;
static int issue_async;
static const char *issue_api;

/* An asynchronous copy the host could see early (defer.c): neither side is pageable host
 * memory, from or to which a GPU copies before the call returns. */
static int may_defer(uint64_t dst, int dst_dev, uint64_t src, int src_dev)
{
    int pinned = 0;
    int dd = side_device(dst, dst_dev, &pinned), sd = side_device(src, src_dev, &pinned);
    return (dd || pinned) && (sd || pinned) && (dd || sd || pinned);
}

static CUresult copy(uint64_t dst, int dst_dev, uint64_t src, int src_dev, size_t n)
{
    if (n == 0) return CUDA_SUCCESS;
    if (!side_ok(dst, n, dst_dev) || !side_ok(src, n, src_dev)) return CUDA_ERROR_INVALID_VALUE;
    CUstream s = issue_stream;
    int async = issue_async;
    if (async && may_defer(dst, dst_dev, src, src_dev) && drv_defer_choose()) {
        drv_defer_copy(dst, dst_dev, src, src_dev, n, s);   /* lands later, as the seed says */
        return CUDA_SUCCESS;
    }
    drv_run_held_for_copy();   /* kept launches the copy follows come first */
    if (async) drv_defer_settle_stream(s);
    drv_mem_copy_run(dst, dst_dev, src, src_dev, n);
    if (async) drv_hostrace_copy(s, issue_api, dst, src, n, 0);   /* until the host waits for it */
    return CUDA_SUCCESS;
}

/* A copy or fill on the legacy stream (named api): `expr` does it; the host waits for the
 * legacy stream first and for the copy after. */
#define COPY_SYNC(expr) COPY_SYNC_AT(expr, __func__)
#define COPY_SYNC_AT(expr, api)                                           \
    do {                                                                  \
        CUcontext c_;                                                     \
        CUresult e_ = drv_ctx_enter(&c_);                                 \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        e_ = drv_capture_work(NULL, NULL);                                \
        drv_order_host_waits(NULL);                                       \
        int rc_ = e_ == CUDA_SUCCESS && copy_order_start(NULL, api);       \
        if (e_ == CUDA_SUCCESS) e_ = (expr);                              \
        if (rc_) { emu_host_copy_end(); drv_order_host_waits(NULL); }     \
        drv_unlock();                                                     \
        return drv_after_wait(c_, e_);                                    \
    } while (0)

/* An asynchronous copy or fill (named api): `expr` does it, `captured` adds it to a
 * capturing stream's graph instead. */
#define COPY_ASYNC(expr, stream, captured) COPY_ASYNC_AT(expr, stream, captured, __func__)
#define COPY_ASYNC_AT(expr, stream, captured, api)                        \
    do {                                                                  \
        CUcontext c_;                                                     \
        CUresult e_ = drv_ctx_enter_owner(drv_stream_owner(stream), 1, &c_); \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        e_ = drv_stream_check_copy(stream);                               \
        int cap_ = 0;                                                     \
        if (e_ == CUDA_SUCCESS) e_ = drv_capture_work(stream, &cap_);     \
        int rc_ = e_ == CUDA_SUCCESS && !cap_ && copy_order_start(stream, api); \
        if (e_ == CUDA_SUCCESS && !cap_ && !rc_ && drv_defer_on()) {      \
            drv_defer_turn();                                             \
            drv_order_launch(stream);   /* its place, for what follows */ \
        }                                                                 \
        drv_model_copy_stream(stream, 1);                                 \
        issue_stream = (stream);                                          \
        issue_async = 1;                                                  \
        issue_api = (api);                                                \
        if (e_ == CUDA_SUCCESS) e_ = cap_ ? (captured) : (expr);          \
        issue_async = 0;                                                  \
        drv_model_copy_stream(NULL, 0);                                   \
        if (rc_) emu_host_copy_end();                                     \
        drv_unlock();                                                     \
        return e_;                                                        \
    } while (0)

/* A synchronous copy waits for the legacy stream, and the host for it; an asynchronous one
 * orders after its stream's earlier work, which has run already. */
static CUresult copy_sync_at(uint64_t dst, int dd, uint64_t src, int sd, size_t n, const char *api)
{
    COPY_SYNC_AT(copy(dst, dd, src, sd, n), api);
}
#define copy_sync(...) copy_sync_at(__VA_ARGS__, __func__)

static CUresult copy_async_at(uint64_t dst, int dd, uint64_t src, int sd, size_t n, CUstream s,
                              const char *api)
{
    CUDA_MEMCPY3D p = { .srcMemoryType = sd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_UNIFIED,
                        .srcDevice = src, .dstMemoryType = dd ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_UNIFIED,
                        .dstDevice = dst, .srcPitch = n, .dstPitch = n,
                        .WidthInBytes = n, .Height = 1, .Depth = 1 };   /* for a capturing stream */
    COPY_ASYNC_AT(copy(dst, dd, src, sd, n), s, drv_capture_memcpy(s, &p), api);
}
#define copy_async(...) copy_async_at(__VA_ARGS__, __func__)

#define U(p) ((uint64_t)(uintptr_t)(p))

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    return copy_sync(dst, 0, src, 0, ByteCount);
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)
{
    return copy_async(dst, 0, src, 0, ByteCount, hStream);
}

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    return copy_sync(dstDevice, 1, U(srcHost), 0, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy_sync(U(dstHost), 0, srcDevice, 1, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    return copy_sync(dstDevice, 1, srcDevice, 1, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                      CUstream hStream)
{
    return copy_async(dstDevice, 1, U(srcHost), 0, ByteCount, hStream);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                      CUstream hStream)
{
    return copy_async(U(dstHost), 0, srcDevice, 1, ByteCount, hStream);
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                      size_t ByteCount, CUstream hStream)
{
    return copy_async(dstDevice, 1, srcDevice, 1, ByteCount, hStream);
}

/* Unified addressing: the pointers name the memory, whichever device holds it, so the
 * contexts only have to be contexts; a null one is accepted, as the H100's driver accepts
 * it (tests/expected/devices/nullprobe.out). Peer access need not be enabled for copies. */
static int peer_ctx_ok(CUcontext c)
{
    return !c || drv_handle_kind(c) == H_CTX;
}

CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                              CUcontext srcContext, size_t ByteCount)
{
    if (!peer_ctx_ok(dstContext) || !peer_ctx_ok(srcContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return copy_sync(dstDevice, 1, srcDevice, 1, ByteCount);
}

CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                   CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount,
                                   CUstream hStream)
{
    if (!peer_ctx_ok(dstContext) || !peer_ctx_ok(srcContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return copy_async(dstDevice, 1, srcDevice, 1, ByteCount, hStream);
}

/* ---- 2D and 3D copies (memory of type host, device, unified or a CUDA array) ---- */

/* room: bytes, rows and slices an array side has from its start (0: not an array). */
typedef struct Side { uint64_t base; size_t pitch, height; int dev; size_t room[3]; } Side;

static CUresult side_of(CUmemorytype t, const void *host, CUdeviceptr dev, CUarray arr,
                        size_t pitch, size_t height, size_t x, size_t y, size_t z, Side *s)
{
    memset(s->room, 0, sizeof s->room);
    switch (t) {
    case CU_MEMORYTYPE_HOST: s->base = U(host); s->dev = 0; break;
    case CU_MEMORYTYPE_DEVICE: s->base = dev; s->dev = 1; break;
    case CU_MEMORYTYPE_UNIFIED: s->base = dev; s->dev = 0; break;
    case CU_MEMORYTYPE_ARRAY:
        s->dev = 1;
        return drv_array_side(arr, x, y, z, &s->base, &s->pitch, &s->height, s->room);
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    s->pitch = pitch;
    s->height = height;
    s->base += x + (y + z * height) * pitch;
    return CUDA_SUCCESS;
}

static int fits(const Side *s, size_t width, size_t height, size_t depth)
{
    return !s->room[0] || (width <= s->room[0] && height <= s->room[1] && depth <= s->room[2]);
}

/* Copy depth slices of height rows of width bytes; validates every side's whole span (and
 * only that when dry). */
static CUresult copy_box(Side d, Side s, size_t width, size_t height, size_t depth, int dry)
{
    if (!width || !height || !depth) return CUDA_SUCCESS;
    /* a single row needs no pitch (1D copies give 0) */
    if ((height > 1 || depth > 1) && (d.pitch < width || s.pitch < width)) return CUDA_ERROR_INVALID_VALUE;
    if (!fits(&d, width, height, depth) || !fits(&s, width, height, depth)) return CUDA_ERROR_INVALID_VALUE;
    if (depth > 1 && (d.height < height || s.height < height)) return CUDA_ERROR_INVALID_VALUE;
    size_t dspan = d.pitch * (d.height * (depth - 1) + height - 1) + width;
    size_t sspan = s.pitch * (s.height * (depth - 1) + height - 1) + width;
    if (!side_ok(d.base, dspan, d.dev) || !side_ok(s.base, sspan, s.dev)) return CUDA_ERROR_INVALID_VALUE;
    if (dry) return CUDA_SUCCESS;
    if (issue_async) drv_defer_settle_stream(issue_stream);   /* kept work it follows first */
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < height; y++) {
            uint64_t row = d.base + (z * d.height + y) * d.pitch, srow = s.base + (z * s.height + y) * s.pitch;
            emu_host_copy(srow, width, 0);
            emu_host_copy(row, width, 1);
            memmove((void *)(uintptr_t)row, (const void *)(uintptr_t)srow, width);
        }
    copy_span(d.base, d.dev, s.base, s.dev, width * height * depth);
    return CUDA_SUCCESS;
}

static CUresult copy2d(const CUDA_MEMCPY2D *p)
{
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    Side d, s;
    CUresult e = side_of(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch,
                         p->Height, p->dstXInBytes, p->dstY, 0, &d);
    if (e == CUDA_SUCCESS)
        e = side_of(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcPitch,
                    p->Height, p->srcXInBytes, p->srcY, 0, &s);
    return e == CUDA_SUCCESS ? copy_box(d, s, p->WidthInBytes, p->Height, 1, 0) : e;
}

static CUresult copy3d(const CUDA_MEMCPY3D *p, int dry)
{
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    Side d, s;
    CUresult e = side_of(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch,
                         p->dstHeight, p->dstXInBytes, p->dstY, p->dstZ, &d);
    if (e == CUDA_SUCCESS)
        e = side_of(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcPitch,
                    p->srcHeight, p->srcXInBytes, p->srcY, p->srcZ, &s);
    return e == CUDA_SUCCESS ? copy_box(d, s, p->WidthInBytes, p->Height, p->Depth, dry) : e;
}

CUresult drv_mem_copy3d(const CUDA_MEMCPY3D *p, int dry)
{
    return copy3d(p, dry);

}

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { COPY_SYNC(copy2d(pCopy)); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy) { COPY_SYNC(copy2d(pCopy)); }
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    COPY_ASYNC(copy2d(pCopy), hStream, drv_capture_memcpy2d(hStream, pCopy));
}
CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { COPY_SYNC(copy3d(pCopy, 0)); }

/* A peer 3D copy is a 3D copy whose contexts are checked (a null pointer is an error here;
 * the H100's driver crashes on it). */
static CUresult peer_to_3d(const CUDA_MEMCPY3D_PEER *p, CUDA_MEMCPY3D *q)
{
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    if (!peer_ctx_ok(p->srcContext) || !peer_ctx_ok(p->dstContext)) return CUDA_ERROR_INVALID_CONTEXT;
    *q = (CUDA_MEMCPY3D){
        .srcXInBytes = p->srcXInBytes, .srcY = p->srcY, .srcZ = p->srcZ, .srcLOD = p->srcLOD,
        .srcMemoryType = p->srcMemoryType, .srcHost = p->srcHost, .srcDevice = p->srcDevice,
        .srcArray = p->srcArray, .srcPitch = p->srcPitch, .srcHeight = p->srcHeight,
        .dstXInBytes = p->dstXInBytes, .dstY = p->dstY, .dstZ = p->dstZ, .dstLOD = p->dstLOD,
        .dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost, .dstDevice = p->dstDevice,
        .dstArray = p->dstArray, .dstPitch = p->dstPitch, .dstHeight = p->dstHeight,
        .WidthInBytes = p->WidthInBytes, .Height = p->Height, .Depth = p->Depth,
    };
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy)
{
    CUDA_MEMCPY3D q;
    CUresult e = peer_to_3d(pCopy, &q);
    if (e != CUDA_SUCCESS) return e;
    COPY_SYNC(copy3d(&q, 0));
}
CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream)
{
    CUDA_MEMCPY3D q;
    CUresult e = peer_to_3d(pCopy, &q);
    if (e != CUDA_SUCCESS) return e;
    COPY_ASYNC(copy3d(&q, 0), hStream, drv_capture_memcpy(hStream, &q));
}
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    COPY_ASYNC(copy3d(pCopy, 0), hStream, drv_capture_memcpy(hStream, pCopy));
}

/* Fill n elements of `size` bytes (1, 2, 4) in rows of width elements, pitch bytes apart;
 * only validate when dry. */
static CUresult fill_dry(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                         size_t height, int dry)
{
    if (!width || !height) return CUDA_SUCCESS;
    if (p % size || (height > 1 && (pitch < width * size || pitch % size)))
        return CUDA_ERROR_INVALID_VALUE;
    if (!drv_mem_ok(p, pitch * (height - 1) + width * size)) return CUDA_ERROR_INVALID_VALUE;
    if (dry) return CUDA_SUCCESS;
    CUstream s = issue_stream;
    int async = issue_async;
    if (async && drv_defer_choose()) {
        drv_defer_fill(p, pitch, value, size, width, height, s);   /* done later, as the seed says */
        return CUDA_SUCCESS;
    }
    drv_run_held_for_copy();
    if (async) drv_defer_settle_stream(s);
    drv_mem_fill_run(p, pitch, value, size, width, height);
    if (async) drv_hostrace_copy(s, issue_api, p, 0, pitch * (height - 1) + width * size, 1);
    return CUDA_SUCCESS;
}

void drv_mem_fill_run(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                      size_t height)
{
    for (size_t r = 0; r < height; r++) {
        unsigned char *row = (unsigned char *)(uintptr_t)(p + r * pitch);
        emu_host_copy(p + r * pitch, width * size, 1);
        if (size == 1) { memset(row, (int)(value & 0xff), width); continue; }
        for (size_t i = 0; i < width; i++) memcpy(row + i * size, &value, size);
    }
}

static CUresult fill(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                     size_t height)
{
    return fill_dry(p, pitch, value, size, width, height, 0);
}

CUresult drv_mem_fill(const CUDA_MEMSET_NODE_PARAMS *p, int dry)
{
    if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
        return CUDA_ERROR_INVALID_VALUE;
    return fill_dry(p->dst, p->pitch, p->value, p->elementSize, p->width, p->height, dry);
}

/* An asynchronous fill, or its node in a capturing stream's graph. */
static CUresult fill_async_at(uint64_t p, size_t pitch, unsigned value, unsigned size,
                              size_t width, size_t height, CUstream s, const char *api)
{
    CUDA_MEMSET_NODE_PARAMS m = { p, pitch, value, size, width, height };
    COPY_ASYNC_AT(fill(p, pitch, value, size, width, height), s, drv_capture_memset(s, &m), api);
}
#define fill_async(...) fill_async_at(__VA_ARGS__, __func__)

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    COPY_SYNC(fill(dstDevice, N, uc, 1, N, 1));
}
CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    COPY_SYNC(fill(dstDevice, N * 2, us, 2, N, 1));
}
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    COPY_SYNC(fill(dstDevice, N * 4, ui, 4, N, 1));
}
CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                 size_t Width, size_t Height)
{
    COPY_SYNC(fill(dstDevice, dstPitch, uc, 1, Width, Height));
}
CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                  size_t Width, size_t Height)
{
    COPY_SYNC(fill(dstDevice, dstPitch, us, 2, Width, Height));
}
CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                  size_t Width, size_t Height)
{
    COPY_SYNC(fill(dstDevice, dstPitch, ui, 4, Width, Height));
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    return fill_async(dstDevice, N, uc, 1, N, 1, hStream);
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                  CUstream hStream)
{
    return fill_async(dstDevice, N * 2, us, 2, N, 1, hStream);
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    return fill_async(dstDevice, N * 4, ui, 4, N, 1, hStream);
}
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                   size_t Width, size_t Height, CUstream hStream)
{
    return fill_async(dstDevice, dstPitch, uc, 1, Width, Height, hStream);
}
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                    size_t Width, size_t Height, CUstream hStream)
{
    return fill_async(dstDevice, dstPitch, us, 2, Width, Height, hStream);
}
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                    size_t Width, size_t Height, CUstream hStream)
{
    return fill_async(dstDevice, dstPitch, ui, 4, Width, Height, hStream);
}

/* ---- managed memory: hints (remembered for cuMemRangeGetAttribute, else nothing to do:
 * the memory is already shared) and stream attachment ---- */

/* [p, p+count) lies in one managed allocation, which starts at *start and has *size bytes. */
static CUresult managed_alloc(CUdeviceptr p, size_t count, uint64_t *start, size_t *size)
{
    Alloc *a = alloc_of(p, size);
    int kind;
    *start = p ? mem_find(p, size, &kind) : 0;
    if (!a || a->kind != DRV_MEM_MANAGED || count > *size - (p - *start))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult managed_range(CUdeviceptr p, size_t count)
{
    uint64_t start;
    size_t size;
    return count ? managed_alloc(p, count, &start, &size) : CUDA_ERROR_INVALID_VALUE;
}

static int location_ok(CUmemLocation loc)
{
    switch (loc.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return drv_device_check(loc.id) == CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST: case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return 1;
    default: return 0;
    }
}

static CUresult prefetch(CUdeviceptr p, size_t count, CUmemLocation loc)
{
    CUresult e = managed_range(p, count);
    if (e == CUDA_SUCCESS) drv_managed_prefetched(p, count, loc);
    return e;
}

CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
                                       unsigned int flags, CUstream hStream)
{
    if (flags != 0 || !location_ok(location)) return CUDA_ERROR_INVALID_VALUE;
    COPY_ASYNC(prefetch(devPtr, count, location), hStream, managed_range(devPtr, count));
}

static CUresult advise(CUdeviceptr p, size_t count, CUmem_advise advice, CUmemLocation loc)
{
    CUresult e = managed_range(p, count);
    return e == CUDA_SUCCESS ? drv_managed_advise(p, count, advice, loc) : e;
}

CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
                                CUmemLocation location)
{
    if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY || advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    int needs_loc = advice == CU_MEM_ADVISE_SET_PREFERRED_LOCATION ||
                    advice == CU_MEM_ADVISE_SET_ACCESSED_BY || advice == CU_MEM_ADVISE_UNSET_ACCESSED_BY;
    if (needs_loc && !location_ok(location)) return CUDA_ERROR_INVALID_VALUE;
    IN_CTX(advise(devPtr, count, advice, location));
}

CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute,
                                        CUdeviceptr devPtr, size_t count)
{
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    IN_CTX(managed_range(devPtr, count) != CUDA_SUCCESS
               ? CUDA_ERROR_INVALID_VALUE
               : drv_managed_attr(data, dataSize, attribute, devPtr, count));
}

CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
                                         CUmem_range_attribute *attributes, size_t numAttributes,
                                         CUdeviceptr devPtr, size_t count)
{
    if (!data || !dataSizes || !attributes || !numAttributes) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < numAttributes; i++) {
        CUresult e = cuMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr, count);
        if (e != CUDA_SUCCESS) return e;
    }
    return CUDA_SUCCESS;
}

/* Every stream may touch all managed memory here, so an attachment is only checked: a whole
 * managed allocation (length 0 or its size), one of the three flags, and no single stream
 * that is the null stream (cuda.h). */
static CUresult attach(CUstream s, CUdeviceptr p, size_t length, unsigned flags)
{
    uint64_t start;
    size_t size;
    if (managed_alloc(p, length, &start, &size) != CUDA_SUCCESS || p != start ||
        (length && length != size))
        return CUDA_ERROR_INVALID_VALUE;
    if (flags == CU_MEM_ATTACH_SINGLE && (s == NULL || s == CU_STREAM_LEGACY))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length,
                                        unsigned int flags)
{
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    COPY_ASYNC(attach(hStream, dptr, length, flags), hStream, attach(hStream, dptr, length, flags));
}

/* ---- pointer attributes ---- */

/* The context memory belongs to: the allocating one; for module variables (loaded for every
 * device here), the primary context of the calling thread's device. */
static CUcontext pointer_ctx(const Alloc *a)
{
    if (a && a->ctx) return a->ctx;
    CUcontext cur = drv_ctx_current();
    return drv_primary(cur && drv_handle_kind(cur) == H_CTX ? cur->device : 0);
}

static CUresult pointer_attr(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    size_t size = 0;
    int mkind = -1;
    uint64_t start = ptr ? mem_find(ptr, &size, &mkind) : 0;
    Alloc *a = start ? alloc_slot(start) : NULL;
    if (!start) {
        /* what CUDA answers for memory it does not know */
        if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) return CUDA_ERROR_INVALID_VALUE;
        if (attribute == CU_POINTER_ATTRIBUTE_IS_MANAGED) { *(unsigned *)data = 0; return CUDA_SUCCESS; }
        return CUDA_ERROR_INVALID_VALUE;
    }
    int kind = a ? a->kind : DRV_MEM_DEVICE;   /* module variables are device memory */
    if (kind == DRV_MEM_REGISTERED) kind = DRV_MEM_HOST;
    if (kind == DRV_MEM_IPC) kind = DRV_MEM_DEVICE;
    /* what cuIpcGetMemHandle exports (ipc.c): cuMemAlloc's memory, not a pool's */
    int ipc_ok = a && a->kind == DRV_MEM_DEVICE && mkind == MEM_DEVICE && !drv_pool_of(start) &&
                 !drv_graph_mem_known(start);
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = pointer_ctx(a); return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = kind == DRV_MEM_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (kind == DRV_MEM_DEVICE) return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: *(unsigned *)data = 1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = start; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(unsigned *)data = kind == DRV_MEM_MANAGED; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = pointer_ctx(a)->device; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = start; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = size; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(unsigned *)data = 1; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: *(unsigned *)data = ipc_ok; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: *(unsigned long long *)data = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: *(unsigned *)data = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(unsigned *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(void **)data = drv_pool_of(start); return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: *(unsigned long long *)data = start; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: *(unsigned *)data = 0; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUresult e = pointer_attr(data, attribute, ptr);
    drv_unlock();
    return e;
}

/* Unlike the single query, unknown memory is not an error here: each attribute answers for
 * unregistered memory (type 0, null pointers), as documented. */
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
                                        void **data, CUdeviceptr ptr)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    for (unsigned i = 0; i < numAttributes; i++) {
        if (!data[i]) continue;
        if (pointer_attr(data[i], attributes[i], ptr) == CUDA_SUCCESS) continue;
        switch (attributes[i]) {
        case CU_POINTER_ATTRIBUTE_CONTEXT: case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
            *(void **)data[i] = NULL; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
            *(CUdeviceptr *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data[i] = -2; break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data[i] = 0; break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID: case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
            *(unsigned long long *)data[i] = 0; break;
        default: *(unsigned *)data[i] = 0; break;
        }
    }
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!value || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    int ok = drv_mem_ok(ptr, 1);
    drv_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;   /* copies are always synchronous */
}
