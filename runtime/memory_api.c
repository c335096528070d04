/* memory_api.c - cudaMalloc/cudaFree/cudaMemcpy/cudaMemset families, symbols, pointer queries.
 *
 * Device memory is the emulator's arena, where a device address is the host address of the
 * same byte: copies are plain memmove after validation. Every device-side range must lie
 * inside one live allocation (cudaErrorInvalidValue otherwise), as on a GPU where a bad
 * pointer makes the copy fail rather than touch other memory.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/cudart_internal.h"
#include "emu/memory.h"

/* ---- the runtime's own allocations, remembered so cudaDeviceReset can free them ---- */

typedef struct RtAlloc { uint64_t addr; int kind; unsigned flags; } RtAlloc;
#define RT_TOMB 1u   /* a freed slot; real allocations are aligned, never at address 1 */
static RtAlloc *rt_allocs;
static size_t rt_alloc_cap, rt_alloc_used;   /* used counts live entries and tombstones */

static size_t rt_hash(uint64_t a, size_t cap)
{
    return (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static RtAlloc *rt_alloc_slot(uint64_t addr)
{
    if (!rt_alloc_cap) return NULL;
    for (size_t i = rt_hash(addr, rt_alloc_cap);; i = (i + 1) & (rt_alloc_cap - 1)) {
        if (rt_allocs[i].addr == addr) return &rt_allocs[i];
        if (rt_allocs[i].addr == 0) return NULL;
    }
}

static int rt_alloc_grow(void)
{
    size_t nc = rt_alloc_cap ? rt_alloc_cap * 2 : 1024;
    RtAlloc *na = calloc(nc, sizeof *na);
    if (!na) return -1;
    for (size_t i = 0; i < rt_alloc_cap; i++) {
        if (rt_allocs[i].addr <= RT_TOMB) continue;
        size_t j = rt_hash(rt_allocs[i].addr, nc);
        while (na[j].addr) j = (j + 1) & (nc - 1);
        na[j] = rt_allocs[i];
    }
    free(rt_allocs);
    rt_allocs = na;
    rt_alloc_cap = nc;
    rt_alloc_used = 0;
    for (size_t i = 0; i < nc; i++) rt_alloc_used += na[i].addr != 0;
    return 0;
}

static int rt_alloc_remember(uint64_t addr, int kind, unsigned flags)
{
    if ((rt_alloc_used + 1) * 2 > rt_alloc_cap && rt_alloc_grow()) return -1;
    size_t i = rt_hash(addr, rt_alloc_cap);
    while (rt_allocs[i].addr > RT_TOMB) i = (i + 1) & (rt_alloc_cap - 1);
    if (rt_allocs[i].addr == 0) rt_alloc_used++;
    rt_allocs[i] = (RtAlloc){ addr, kind, flags };
    return 0;
}

/* Allocate from the arena and remember it; caller holds the lock. */
static cudaError_t rt_alloc(void **out, size_t size, int kind, unsigned flags)
{
    uint64_t a = mem_alloc(size, kind);
    if (!a) return cudaErrorMemoryAllocation;
    if (rt_alloc_remember(a, kind, flags)) {
        mem_free(a, kind);
        return cudaErrorMemoryAllocation;
    }
    *out = (void *)(uintptr_t)a;
    return cudaSuccess;
}

/* Free one of our allocations of one of the given kinds; caller holds the lock. */
static cudaError_t rt_release(const void *p, int kind_a, int kind_b)
{
    RtAlloc *s = rt_alloc_slot((uint64_t)(uintptr_t)p);
    if (!s || (s->kind != kind_a && s->kind != kind_b)) return cudaErrorInvalidValue;
    if (mem_free(s->addr, s->kind) != 0) return cudaErrorInvalidValue;
    s->addr = RT_TOMB;
    return cudaSuccess;
}

void rt_memory_reset(void)
{
    for (size_t i = 0; i < rt_alloc_cap; i++)
        if (rt_allocs[i].addr > RT_TOMB) mem_free(rt_allocs[i].addr, rt_allocs[i].kind);
    free(rt_allocs);
    rt_allocs = NULL;
    rt_alloc_cap = rt_alloc_used = 0;
}

/* Common prologue of the calls that need the emulator started. */
#define RT_ENTER()                                                       \
    do {                                                                 \
        RT_STICKY_CHECK();                                               \
        cudaError_t init_ = rt_init();                                   \
        if (init_ != cudaSuccess) return rt_ret(init_);                  \
    } while (0)

/* Run `expr` (a cudaError_t) under the lock and return it through rt_ret. */
#define RT_LOCKED(expr)                                                  \
    do {                                                                 \
        rt_lock();                                                       \
        cudaError_t r_ = (expr);                                         \
        rt_unlock();                                                     \
        return rt_ret(r_);                                               \
    } while (0)

/* ---- allocation ---- */

static cudaError_t rt_malloc_kind(void **p, size_t size, int kind, unsigned flags)
{
    if (!p) return cudaErrorInvalidValue;
    if (size == 0) {   /* CUDA gives a null pointer for an empty allocation */
        *p = NULL;
        return cudaSuccess;
    }
    return rt_alloc(p, size, kind, flags);
}

cudaError_t CUDARTAPI cudaMalloc(void **devPtr, size_t size)
{
    RT_ENTER();
    RT_LOCKED(rt_malloc_kind(devPtr, size, MEM_DEVICE, 0));
}

cudaError_t CUDARTAPI cudaFree(void *devPtr)
{
    RT_ENTER();
    if (!devPtr) return cudaSuccess;
    RT_LOCKED((rt_order_host_waits_all(), rt_release(devPtr, MEM_DEVICE, MEM_MANAGED)));
}

cudaError_t CUDARTAPI cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    RT_ENTER();
    RT_LOCKED(!rt_stream_valid(hStream) ? cudaErrorInvalidResourceHandle
                                        : rt_malloc_kind(devPtr, size, MEM_DEVICE, 0));
}
RT_TWIN(cudaError_t, cudaMallocAsync_ptsz, cudaMallocAsync,
        (void **p, size_t n, cudaStream_t s), (p, n, s))

cudaError_t CUDARTAPI cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    RT_ENTER();
    RT_LOCKED(!rt_stream_valid(hStream) ? cudaErrorInvalidResourceHandle
              : !devPtr                 ? cudaSuccess
                                        : rt_release(devPtr, MEM_DEVICE, MEM_MANAGED));
}
RT_TWIN(cudaError_t, cudaFreeAsync_ptsz, cudaFreeAsync, (void *p, cudaStream_t s), (p, s))

cudaError_t CUDARTAPI cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    RT_ENTER();
    if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return rt_ret(cudaErrorInvalidValue);
    RT_LOCKED(rt_alloc(devPtr, size, MEM_MANAGED, flags));
}

/* Rows of cudaMallocPitch are padded to this many bytes. */
#define RT_PITCH_ALIGN 512u

cudaError_t CUDARTAPI cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    RT_ENTER();
    if (!devPtr || !pitch) return rt_ret(cudaErrorInvalidValue);
    size_t p = (width + RT_PITCH_ALIGN - 1) / RT_PITCH_ALIGN * RT_PITCH_ALIGN;
    if (height && p > SIZE_MAX / height) return rt_ret(cudaErrorMemoryAllocation);
    *pitch = p;
    RT_LOCKED(rt_malloc_kind(devPtr, p * height, MEM_DEVICE, 0));
}

cudaError_t CUDARTAPI cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    RT_ENTER();
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped |
                            cudaHostAllocWriteCombined))
        return rt_ret(cudaErrorInvalidValue);
    RT_LOCKED(rt_malloc_kind(pHost, size, MEM_HOST_PINNED, flags));
}

cudaError_t CUDARTAPI cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t CUDARTAPI cudaFreeHost(void *ptr)
{
    RT_ENTER();
    if (!ptr) return cudaSuccess;
    RT_LOCKED(rt_release(ptr, MEM_HOST_PINNED, MEM_HOST_PINNED));
}

/* Pinned host memory lives in the arena, so its device address is its host address. */
static cudaError_t rt_pinned_of(void *pHost, RtAlloc *out)
{
    size_t size;
    int kind;
    uint64_t start = mem_find((uint64_t)(uintptr_t)pHost, &size, &kind);
    if (!start || kind != MEM_HOST_PINNED) return cudaErrorInvalidValue;
    RtAlloc *s = rt_alloc_slot(start);
    if (!s) return cudaErrorInvalidValue;
    *out = *s;
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    RT_ENTER();
    if (!pDevice || flags != 0) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtAlloc a;
    cudaError_t e = rt_pinned_of(pHost, &a);
    rt_unlock();
    if (e == cudaSuccess) *pDevice = pHost;
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    RT_ENTER();
    if (!pFlags) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtAlloc a;
    cudaError_t e = rt_pinned_of(pHost, &a);
    rt_unlock();
    if (e == cudaSuccess) *pFlags = a.flags;
    return rt_ret(e);
}

/* Kernels can only reach arena memory, and memory the program already owns cannot be moved
 * into the arena; so registration is refused, as CUDA does on systems without support. */
cudaError_t CUDARTAPI cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    static int told;
    (void)size; (void)flags;
    RT_ENTER();
    if (!ptr) return rt_ret(cudaErrorInvalidValue);
    if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        rt_diag("cudaHostRegister is not supported (allocate with cudaMallocHost or "
                "cudaHostAlloc instead)");
    return rt_ret(cudaErrorNotSupported);
}

cudaError_t CUDARTAPI cudaHostUnregister(void *ptr)
{
    RT_ENTER();
    return rt_ret(ptr ? cudaErrorHostMemoryNotRegistered : cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RT_ENTER();
    if (!free_bytes || !total) return rt_ret(cudaErrorInvalidValue);
    size_t used, tot;
    rt_lock();
    mem_usage(&used, &tot);
    rt_unlock();
    *free_bytes = tot > used ? tot - used : 0;
    *total = tot;
    return cudaSuccess;
}

/* ---- copies and fills ---- */

/* [p, p+n) must lie inside one live arena allocation. */
static int rt_dev_ok(const void *p, size_t n)
{
    return p && mem_host((uint64_t)(uintptr_t)p, n ? n : 1) != NULL;
}

/* Validate a copy of dn bytes at dst and sn bytes at src (spans differ for 2D copies). */
static cudaError_t rt_copy_check(void *dst, size_t dn, const void *src, size_t sn,
                                 enum cudaMemcpyKind kind)
{
    int dd, sd;   /* must the destination / source be device memory? */
    switch (kind) {
    case cudaMemcpyHostToHost: dd = 0; sd = 0; break;
    case cudaMemcpyHostToDevice: dd = 1; sd = 0; break;
    case cudaMemcpyDeviceToHost: dd = 0; sd = 1; break;
    case cudaMemcpyDeviceToDevice: dd = 1; sd = 1; break;
    case cudaMemcpyDefault:
        dd = mem_in_arena((uint64_t)(uintptr_t)dst);
        sd = mem_in_arena((uint64_t)(uintptr_t)src);
        break;
    default: return cudaErrorInvalidMemcpyDirection;
    }
    if (!dst || !src) return cudaErrorInvalidValue;
    if (dd && !rt_dev_ok(dst, dn)) return cudaErrorInvalidValue;
    if (sd && !rt_dev_ok(src, sn)) return cudaErrorInvalidValue;
    return cudaSuccess;
}

static cudaError_t rt_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (n == 0) return cudaSuccess;
    cudaError_t e = rt_copy_check(dst, n, src, n, kind);
    if (e == cudaSuccess) memmove(dst, src, n);
    return e;
}

static cudaError_t rt_copy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                             size_t width, size_t height, enum cudaMemcpyKind kind)
{
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (width == 0 || height == 0) return cudaSuccess;
    if (dpitch < width || spitch < width) return cudaErrorInvalidPitchValue;
    cudaError_t e = rt_copy_check(dst, dpitch * (height - 1) + width, src,
                                  spitch * (height - 1) + width, kind);
    if (e != cudaSuccess) return e;
    for (size_t r = 0; r < height; r++)
        memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    return cudaSuccess;
}

static cudaError_t rt_fill(void *p, int value, size_t n)
{
    if (n == 0) return cudaSuccess;
    if (!rt_dev_ok(p, n)) return cudaErrorInvalidValue;
    memset(p, value, n);
    return cudaSuccess;
}

static cudaError_t rt_fill2d(void *p, size_t pitch, int value, size_t width, size_t height)
{
    if (width == 0 || height == 0) return cudaSuccess;
    if (pitch < width || !rt_dev_ok(p, pitch * (height - 1) + width))
        return cudaErrorInvalidValue;
    for (size_t r = 0; r < height; r++) memset((char *)p + r * pitch, value, width);
    return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void *dst, const void *src, size_t count,
                                 enum cudaMemcpyKind kind)
{
    RT_ENTER();
    RT_LOCKED((rt_order_host_waits_legacy(), rt_copy(dst, src, count, kind)));
}
RT_TWIN(cudaError_t, cudaMemcpy_ptds, cudaMemcpy,
        (void *d, const void *s, size_t n, enum cudaMemcpyKind k), (d, s, n, k))

cudaError_t CUDARTAPI cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_stream_valid(stream) ? rt_copy(dst, src, count, kind)
                                      : cudaErrorInvalidResourceHandle);
}
RT_TWIN(cudaError_t, cudaMemcpyAsync_ptsz, cudaMemcpyAsync,
        (void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st),
        (d, s, n, k, st))

cudaError_t CUDARTAPI cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                   size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    RT_LOCKED(rt_copy2d(dst, dpitch, src, spitch, width, height, kind));
}
RT_TWIN(cudaError_t, cudaMemcpy2D_ptds, cudaMemcpy2D,
        (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
         enum cudaMemcpyKind k), (d, dp, s, sp, w, h, k))

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                        size_t spitch, size_t width, size_t height,
                                        enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_stream_valid(stream) ? rt_copy2d(dst, dpitch, src, spitch, width, height, kind)
                                      : cudaErrorInvalidResourceHandle);
}
RT_TWIN(cudaError_t, cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync,
        (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h,
         enum cudaMemcpyKind k, cudaStream_t st), (d, dp, s, sp, w, h, k, st))

cudaError_t CUDARTAPI cudaMemset(void *devPtr, int value, size_t count)
{
    RT_ENTER();
    RT_LOCKED((rt_order_host_waits_legacy(), rt_fill(devPtr, value, count)));
}
RT_TWIN(cudaError_t, cudaMemset_ptds, cudaMemset, (void *p, int v, size_t n), (p, v, n))

cudaError_t CUDARTAPI cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_stream_valid(stream) ? rt_fill(devPtr, value, count)
                                      : cudaErrorInvalidResourceHandle);
}
RT_TWIN(cudaError_t, cudaMemsetAsync_ptsz, cudaMemsetAsync,
        (void *p, int v, size_t n, cudaStream_t s), (p, v, n, s))

cudaError_t CUDARTAPI cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                   size_t height)
{
    RT_ENTER();
    RT_LOCKED(rt_fill2d(devPtr, pitch, value, width, height));
}
RT_TWIN(cudaError_t, cudaMemset2D_ptds, cudaMemset2D,
        (void *p, size_t pi, int v, size_t w, size_t h), (p, pi, v, w, h))

cudaError_t CUDARTAPI cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                        size_t height, cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_stream_valid(stream) ? rt_fill2d(devPtr, pitch, value, width, height)
                                      : cudaErrorInvalidResourceHandle);
}
RT_TWIN(cudaError_t, cudaMemset2DAsync_ptsz, cudaMemset2DAsync,
        (void *p, size_t pi, int v, size_t w, size_t h, cudaStream_t s), (p, pi, v, w, h, s))

/* ---- module variables ---- */

/* Resolve symbol+offset for count bytes; caller holds the lock. */
static cudaError_t rt_symbol_range(const void *symbol, size_t count, size_t offset, char **out)
{
    uint64_t addr;
    size_t size;
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    if (e != cudaSuccess) return e;
    if (offset > size || count > size - offset) return cudaErrorInvalidValue;
    *out = (char *)(uintptr_t)addr + offset;
    return cudaSuccess;
}

static cudaError_t rt_to_symbol(const void *symbol, const void *src, size_t count, size_t offset,
                                enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (!rt_stream_valid(stream)) return cudaErrorInvalidResourceHandle;
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    char *dst;
    cudaError_t e = rt_symbol_range(symbol, count, offset, &dst);
    if (e != cudaSuccess || count == 0) return e;
    if ((e = rt_copy_check(dst, count, src, count, kind)) == cudaSuccess) memmove(dst, src, count);
    return e;
}

static cudaError_t rt_from_symbol(void *dst, const void *symbol, size_t count, size_t offset,
                                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (!rt_stream_valid(stream)) return cudaErrorInvalidResourceHandle;
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    char *src;
    cudaError_t e = rt_symbol_range(symbol, count, offset, &src);
    if (e != cudaSuccess || count == 0) return e;
    if ((e = rt_copy_check(dst, count, src, count, kind)) == cudaSuccess) memmove(dst, src, count);
    return e;
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    RT_LOCKED(rt_to_symbol(symbol, src, count, offset, kind, 0));
}
RT_TWIN(cudaError_t, cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol,
        (const void *y, const void *s, size_t n, size_t o, enum cudaMemcpyKind k),
        (y, s, n, o, k))

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    RT_LOCKED(rt_from_symbol(dst, symbol, count, offset, kind, 0));
}
RT_TWIN(cudaError_t, cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol,
        (void *d, const void *y, size_t n, size_t o, enum cudaMemcpyKind k), (d, y, n, o, k))

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind,
                                              cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_to_symbol(symbol, src, count, offset, kind, stream));
}
RT_TWIN(cudaError_t, cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync,
        (const void *y, const void *s, size_t n, size_t o, enum cudaMemcpyKind k,
         cudaStream_t st), (y, s, n, o, k, st))

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind,
                                                cudaStream_t stream)
{
    RT_ENTER();
    RT_LOCKED(rt_from_symbol(dst, symbol, count, offset, kind, stream));
}
RT_TWIN(cudaError_t, cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync,
        (void *d, const void *y, size_t n, size_t o, enum cudaMemcpyKind k, cudaStream_t st),
        (d, y, n, o, k, st))

cudaError_t CUDARTAPI cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    RT_ENTER();
    if (!devPtr) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    uint64_t addr;
    size_t size;
    cudaError_t e = rt_symbol(symbol, &addr, &size);
    rt_unlock();
    if (e == cudaSuccess) *devPtr = (void *)(uintptr_t)addr;
    return rt_ret(e);
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t *size, const void *symbol)
{
    RT_ENTER();
    if (!size) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    uint64_t addr;
    size_t sz;
    cudaError_t e = rt_symbol(symbol, &addr, &sz);
    rt_unlock();
    if (e == cudaSuccess) *size = sz;
    return rt_ret(e);
}

/* ---- managed-memory hints: validated, then nothing to do (memory is already shared) ---- */

static cudaError_t rt_managed_range(const void *p, size_t count)
{
    size_t size;
    int kind;
    uint64_t a = (uint64_t)(uintptr_t)p;
    uint64_t start = p ? mem_find(a, &size, &kind) : 0;
    if (!start || kind != MEM_MANAGED || count == 0 || count > size - (a - start))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

static int rt_location_ok(struct cudaMemLocation loc)
{
    switch (loc.type) {
    case cudaMemLocationTypeDevice: return loc.id == 0;
    case cudaMemLocationTypeHost: case cudaMemLocationTypeHostNuma:
    case cudaMemLocationTypeHostNumaCurrent: return 1;
    default: return 0;
    }
}

cudaError_t CUDARTAPI cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                           struct cudaMemLocation location, unsigned int flags,
                                           cudaStream_t stream)
{
    RT_ENTER();
    if (flags != 0 || !rt_location_ok(location)) return rt_ret(cudaErrorInvalidValue);
    RT_LOCKED(!rt_stream_valid(stream) ? cudaErrorInvalidResourceHandle
                                       : rt_managed_range(devPtr, count));
}
RT_TWIN(cudaError_t, cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync,
        (const void *p, size_t n, struct cudaMemLocation l, unsigned f, cudaStream_t s),
        (p, n, l, f, s))

cudaError_t CUDARTAPI cudaMemAdvise(const void *devPtr, size_t count,
                                    enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location)
{
    RT_ENTER();
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return rt_ret(cudaErrorInvalidValue);
    int needs_loc = advice == cudaMemAdviseSetPreferredLocation ||
                    advice == cudaMemAdviseSetAccessedBy || advice == cudaMemAdviseUnsetAccessedBy;
    if (needs_loc && !rt_location_ok(location)) return rt_ret(cudaErrorInvalidValue);
    RT_LOCKED(rt_managed_range(devPtr, count));
}

/* ---- pointer attributes ---- */

cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                               const void *ptr)
{
    RT_ENTER();
    if (!attributes) return rt_ret(cudaErrorInvalidValue);
    size_t size;
    int kind = -1;
    rt_lock();
    uint64_t start = ptr ? mem_find((uint64_t)(uintptr_t)ptr, &size, &kind) : 0;
    rt_unlock();
    memset(attributes, 0, sizeof *attributes);
    void *p = (void *)ptr;
    if (!start) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        return cudaSuccess;
    }
    attributes->device = 0;
    attributes->devicePointer = p;
    if (kind == MEM_MANAGED) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->hostPointer = p;
    } else if (kind == MEM_HOST_PINNED) {
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
    } else {
        attributes->type = cudaMemoryTypeDevice;
    }
    return cudaSuccess;
}
