/* mempool.c - memory pools, the stream-ordered allocator (cuMemAllocAsync, cuMemFreeAsync)
 * and the memory of graph allocation nodes.
 *
 * Every pool allocation is a real device allocation of its exact size (memory.c), freed when
 * the program frees it, so a kernel that touches memory after cuMemFreeAsync faults as after
 * cuMemFree; the GPU would often not notice, since its pool keeps the memory. Work runs in
 * issue order, so "stream-ordered" means at once. What the pool would keep is only counted:
 * as recorded on an H100 (tests/cuda/mempool), used memory is the bytes asked for and
 * reserved memory grows in 32 MiB chunks; after a free the pool keeps what its release
 * threshold allows (nothing for the default pool's threshold of 0), and cuMemPoolTrimTo
 * gives back the rest.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/graph.h"
#include "emu/memory.h"

#define CHUNK (32ull << 20)

typedef struct Usage { size_t used, used_high, reserved, reserved_high; uint64_t threshold; } Usage;

static size_t chunks(size_t n)
{
    return (n + CHUNK - 1) / CHUNK * CHUNK;
}

static void usage_alloc(Usage *u, size_t n)
{
    u->used += n;
    if (u->used > u->used_high) u->used_high = u->used;
    if (chunks(u->used) > u->reserved) u->reserved = chunks(u->used);
    if (u->reserved > u->reserved_high) u->reserved_high = u->reserved;
}

/* Keep at most `keep` bytes (rounded up to chunks) beyond what is in use. */
static void usage_trim(Usage *u, uint64_t keep)
{
    size_t floor = chunks(u->used), cap = keep >= SIZE_MAX - CHUNK ? SIZE_MAX : chunks(keep);
    if (u->reserved > cap) u->reserved = cap;
    if (u->reserved < floor) u->reserved = floor;
}

static void usage_free(Usage *u, size_t n)
{
    u->used -= n < u->used ? n : u->used;
    usage_trim(u, u->threshold);
}

/* ---- pools ---- */

struct CUmemPoolHandle_st {
    CUmemPoolProps props;
    Usage u;
    int reuse[3];          /* the three CU_MEMPOOL_ATTR_REUSE_* flags */
    int is_default;
    int destroyed;         /* destroyed with allocations left: goes with the last of them */
    size_t live;
    uint32_t access;       /* other devices given read-write access (cuMemPoolSetAccess) */
};

/* Each device has its default pool and a current pool (cuDeviceSetMemPool). */
static struct CUmemPoolHandle_st default_pools[MEM_MAX_DEVICES];
static CUmemoryPool current_pools[MEM_MAX_DEVICES];

static CUmemoryPool default_of(int dev)
{
    CUmemoryPool p = &default_pools[dev];
    if (!p->is_default) {
        p->props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        p->props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        p->props.location.id = dev;
        p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
        p->is_default = 1;
        drv_handle_add(p, H_MEMPOOL);
    }
    return p;
}

static CUmemoryPool current_of(int dev)
{
    return current_pools[dev] ? current_pools[dev] : default_of(dev);
}

static int pool_live(CUmemoryPool p)
{
    return drv_handle_kind(p) == H_MEMPOOL;
}

/* Allocations made from pools: address, size, pool. */
typedef struct PoolAlloc { uint64_t addr; size_t size; CUmemoryPool pool; } PoolAlloc;
static PoolAlloc *pallocs;
static size_t npallocs, cappallocs;

static PoolAlloc *palloc_find(uint64_t addr)
{
    for (size_t i = 0; i < npallocs; i++)
        if (pallocs[i].addr == addr) return &pallocs[i];
    return NULL;
}

static CUresult pool_alloc(CUcontext c, CUmemoryPool pool, size_t size, CUdeviceptr *out)
{
    if (npallocs == cappallocs) {
        size_t nc = cappallocs ? cappallocs * 2 : 64;
        PoolAlloc *n = realloc(pallocs, nc * sizeof *n);
        if (!n) return CUDA_ERROR_OUT_OF_MEMORY;
        pallocs = n;
        cappallocs = nc;
    }
    uint64_t a;
    /* the memory belongs to the pool's device, whichever context asks */
    int dev = pool->props.location.id;
    CUresult e = drv_mem_alloc_device(dev == c->device ? c : drv_primary(dev), &a, size);
    if (e != CUDA_SUCCESS) return e;
    mem_grant(a, pool->access);
    PoolAlloc *stale = palloc_find(a);   /* left by a context that went away */
    if (stale) *stale = pallocs[--npallocs];
    pallocs[npallocs++] = (PoolAlloc){ a, size, pool };
    usage_alloc(&pool->u, size);
    pool->live++;
    *out = a;
    return CUDA_SUCCESS;
}

CUmemoryPool drv_pool_of(uint64_t start)
{
    PoolAlloc *a = palloc_find(start);
    return a ? a->pool : NULL;
}

CUresult drv_pool_free(CUdeviceptr p)
{
    if (drv_graph_mem_known(p)) return drv_graph_mem_free(p, NULL, NULL);
    PoolAlloc *a = palloc_find(p);
    CUresult e = drv_mem_free_device(p);
    if (e != CUDA_SUCCESS || !a) return e;
    CUmemoryPool pool = a->pool;
    usage_free(&pool->u, a->size);
    *a = pallocs[--npallocs];
    if (--pool->live == 0 && pool->destroyed) free(pool);
    return CUDA_SUCCESS;
}

/* ---- the stream-ordered allocator ---- */

/* Run `expr` under the lock with the current context c_ and a checked stream. */
#define IN_STREAM(stream, expr)                                           \
    do {                                                                  \
        CUcontext c_;                                                     \
        CUresult e_ = drv_ctx_enter(&c_);                                 \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        int cap_ = 0;                                                     \
        e_ = drv_stream_check(stream);                                    \
        if (e_ == CUDA_SUCCESS) e_ = drv_capture_work(stream, &cap_);     \
        if (e_ == CUDA_SUCCESS) e_ = (expr);                              \
        drv_unlock();                                                     \
        return e_;                                                        \
    } while (0)

/* In a capturing stream, an allocation from the device's pool is an allocation node. */
static CUresult alloc_async(CUcontext c, CUmemoryPool pool, CUdeviceptr *p, size_t n,
                            CUstream s, int cap)
{
    if (!p || !pool_live(pool)) return CUDA_ERROR_INVALID_VALUE;
    if (!n) {   /* measured: an empty allocation is a null pointer */
        *p = 0;
        return CUDA_SUCCESS;
    }
    return cap ? drv_capture_alloc(s, n, p) : pool_alloc(c, pool, n, p);
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    IN_STREAM(hStream, alloc_async(c_, current_of(c_->device), dptr, bytesize, hStream, cap_));
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                         CUstream hStream)
{
    IN_STREAM(hStream, alloc_async(c_, pool, dptr, bytesize, hStream, cap_));
}

/* Graph memory freed on a stream is given back after the stream's earlier work. */
static CUresult free_async(CUdeviceptr p, CUstream s)
{
    drv_defer_settle_stream(s);   /* work kept for later that uses it ends first (defer.c) */
    if (!drv_graph_mem_known(p)) return drv_pool_free(p);
    DrvOrder at = { 0 };
    drv_order_stream_get(s, &at);
    CUresult e = drv_graph_mem_free(p, s, &at);
    free(at.c);
    return e;
}

/* Measured: memory from cuMemAlloc may be freed this way too; null is nothing to free;
 * unknown pointers and second frees are INVALID_VALUE. */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    IN_STREAM(hStream, !dptr ? CUDA_SUCCESS
                             : cap_ ? drv_capture_free(hStream, dptr) : free_async(dptr, hStream));
}

/* ---- pool objects ---- */

static CUresult lock_ctx(void)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e == CUDA_SUCCESS) drv_lock();
    return e;
}

static CUresult unlock_with(CUresult e)
{
    drv_unlock();
    return e;
}

/* What ptxemu's device can give a pool: pinned device memory, no export handles. */
static CUresult props_check(const CUmemPoolProps *p)
{
    if (!p || p->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        drv_device_check(p->location.id) != CUDA_SUCCESS ||
        p->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (p->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
        drv_diag("memory pools with export handle types (IPC) are not implemented");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    if ((e = props_check(poolProps)) != CUDA_SUCCESS) return unlock_with(e);
    CUmemoryPool p = calloc(1, sizeof *p);
    if (!p || drv_handle_add(p, H_MEMPOOL)) {
        free(p);
        return unlock_with(CUDA_ERROR_OUT_OF_MEMORY);
    }
    p->props = *poolProps;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    *pool = p;
    return unlock_with(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool_live(pool) || pool->is_default) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    drv_handle_del(pool);
    if (current_pools[pool->props.location.id] == pool) current_pools[pool->props.location.id] = NULL;
    if (pool->live) pool->destroyed = 1;
    else free(pool);
    return unlock_with(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool_live(pool)) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    usage_trim(&pool->u, minBytesToKeep);
    return unlock_with(CUDA_SUCCESS);
}

/* Pool and graph memory attributes share their numbering of the four counters. */
static CUresult usage_get(const Usage *u, int which, cuuint64_t *v)
{
    switch (which) {
    case 0: *v = u->reserved; return CUDA_SUCCESS;
    case 1: *v = u->reserved_high; return CUDA_SUCCESS;
    case 2: *v = u->used; return CUDA_SUCCESS;
    case 3: *v = u->used_high; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Only the high marks can be set, and only to 0 (a reset to the current value). */
static CUresult usage_reset(Usage *u, int which, cuuint64_t v)
{
    if (v != 0 || (which != 1 && which != 3)) return CUDA_ERROR_INVALID_VALUE;
    if (which == 1) u->reserved_high = u->reserved;
    else u->used_high = u->used;
    return CUDA_SUCCESS;
}

static int reuse_index(CUmemPool_attribute a)
{
    return a >= CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES &&
           a <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES
               ? (int)(a - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES) : -1;
}

CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool_live(pool) || !value) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    int r = reuse_index(attr);
    if (r >= 0) {
        pool->reuse[r] = *(int *)value != 0;
    } else if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
        pool->u.threshold = *(cuuint64_t *)value;
    } else {
        e = usage_reset(&pool->u, (int)(attr - CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
                        *(cuuint64_t *)value);
    }
    return unlock_with(e);
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool_live(pool) || !value) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    int r = reuse_index(attr);
    if (r >= 0) *(int *)value = pool->reuse[r];
    else if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) *(cuuint64_t *)value = pool->u.threshold;
    else e = usage_get(&pool->u, (int)(attr - CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), value);
    return unlock_with(e);
}

/* One device, which always has read-write access to its own pools (measured: revoking it,
 * or naming another device, is INVALID_DEVICE; asking about another is INVALID_VALUE). */
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!pool_live(pool) || (count && !map)) return unlock_with(CUDA_ERROR_INVALID_VALUE);
    int own = pool->props.location.id;
    uint32_t access = pool->access;
    for (size_t i = 0; i < count; i++) {
        int d = map[i].location.id;
        if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return unlock_with(CUDA_ERROR_INVALID_VALUE);
        if (drv_device_check(d) != CUDA_SUCCESS) return unlock_with(CUDA_ERROR_INVALID_DEVICE);
        /* the owner always reads and writes (measured: anything else is INVALID_DEVICE) */
        if (d == own) {
            if (map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) return unlock_with(CUDA_ERROR_INVALID_DEVICE);
        } else if (map[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE) {
            access |= 1u << d;
        } else if (map[i].flags == CU_MEM_ACCESS_FLAGS_PROT_NONE) {
            access &= ~(1u << d);
        } else {
            return unlock_with(CUDA_ERROR_INVALID_VALUE);   /* read-only is not emulated */
        }
    }
    /* the access applies to the pool's allocations, present and future */
    pool->access = access;
    for (size_t i = 0; i < npallocs; i++)
        if (pallocs[i].pool == pool) mem_grant(pallocs[i].addr, access);
    return unlock_with(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    CUresult e = lock_ctx();
    if (e != CUDA_SUCCESS) return e;
    if (!flags || !location || !pool_live(memPool) || location->type != CU_MEM_LOCATION_TYPE_DEVICE ||
        drv_device_check(location->id) != CUDA_SUCCESS)
        return unlock_with(CUDA_ERROR_INVALID_VALUE);
    int d = location->id;
    *flags = d == memPool->props.location.id || (memPool->access >> d & 1) ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                                                          : CU_MEM_ACCESS_FLAGS_PROT_NONE;
    return unlock_with(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool_out) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    *pool_out = default_of(dev);
    drv_unlock();
    return CUDA_SUCCESS;
}

/* Measured: a bad device is INVALID_VALUE here (INVALID_DEVICE for the default pool). */
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool || drv_device_check(dev) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    *pool = current_of(dev);
    drv_unlock();
    return CUDA_SUCCESS;
}

/* Measured: another device is INVALID_VALUE here, not INVALID_DEVICE. */
CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (drv_device_check(dev) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    /* a pool serves the device it lives on */
    CUresult e = pool_live(pool) && pool->props.location.id == dev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (e == CUDA_SUCCESS) current_pools[dev] = pool == default_of(dev) ? NULL : pool;
    drv_unlock();
    return e;
}

/* The CUDA 13 forms name a location and an allocation type. A device's pinned pools are the
 * pools above; host and managed pools are not implemented (NOT_SUPPORTED, which cuda.h
 * lists), and other combinations are INVALID_VALUE as documented. */
static CUresult pool_location(const CUmemLocation *loc, CUmemAllocationType type, int bad_device)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!loc) return CUDA_ERROR_INVALID_VALUE;
    int host = loc->type == CU_MEM_LOCATION_TYPE_HOST || loc->type == CU_MEM_LOCATION_TYPE_HOST_NUMA;
    int none = loc->type == CU_MEM_LOCATION_TYPE_NONE && type == CU_MEM_ALLOCATION_TYPE_MANAGED;
    /* measured: an unknown location type is NOT_SUPPORTED */
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE && !host && !none) return CUDA_ERROR_NOT_SUPPORTED;
    if (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED)
        return CUDA_ERROR_INVALID_VALUE;
    if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE && drv_device_check(loc->id) != CUDA_SUCCESS)
        return bad_device;
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE || type != CU_MEM_ALLOCATION_TYPE_PINNED) {
        static int told;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            drv_diag("host and managed memory pools are not implemented");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                        CUmemAllocationType type)
{
    if (!pool_out) return drv_is_initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = pool_location(location, type, CUDA_ERROR_INVALID_VALUE);   /* measured */
    return e == CUDA_SUCCESS ? cuDeviceGetDefaultMemPool(pool_out, location->id) : e;
}

CUresult CUDAAPI cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type)
{
    if (!pool) return drv_is_initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = pool_location(location, type, CUDA_ERROR_INVALID_VALUE);
    return e == CUDA_SUCCESS ? cuDeviceGetMemPool(pool, location->id) : e;
}

/* The pool must be of that location and type (cuda.h). */
CUresult CUDAAPI cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool)
{
    CUresult e = pool_location(location, type, CUDA_ERROR_INVALID_VALUE);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    int ok = pool_live(pool) && pool->props.allocType == type &&
             pool->props.location.type == location->type && pool->props.location.id == location->id;
    drv_unlock();
    return ok ? cuDeviceSetMemPool(location->id, pool) : CUDA_ERROR_INVALID_VALUE;
}

/* ---- graph memory ---- */

/* Each allocation a graph makes takes whole chunks of physical memory. Freed, the chunks
 * stay with the device's graph memory (a Lot) until cuDeviceGraphMemTrim, and a later
 * allocation takes them instead of new ones when it surely runs after the free: on the
 * stream that freed them, or once the host has waited for the free. An event another stream
 * waits for is not enough. The H100 also takes them when the free has already happened by
 * the time of the launch, which is a matter of timing: ptxemu asks its timeline model
 * (stream.c), where mapping chunks costs the host the time measured on the H100. All
 * measured on the H100 (tests/cuda/graph_mem_footprint.cu, graph_mem_reuse.cu); the four
 * attributes (used and reserved, current and high) all count these chunks. */
typedef struct GraphMem { uint64_t addr; size_t size; unsigned refs; int allocated; } GraphMem;
typedef struct Lot { size_t size; uint32_t stream; DrvOrder after; double done_ns; uint64_t addr; } Lot;
/* Host time a launch spends mapping a chunk (tests/gpu/graph_reuse_timing.cu on the H100:
 * about 80 us to launch a graph that maps two new chunks, 51 us for two freed by another
 * graph, 4 us for a graph taking back its own) */
#define MAP_NEW_NS 40000.0
#define MAP_OTHER_NS 24000.0
static GraphMem *gmems;
static size_t ngmems, capgmems;
static Lot *lots;
static size_t nlots, caplots;
static size_t gphys, gphys_high;   /* chunks held, and the most since the mark was reset */

static GraphMem *gmem_find(uint64_t p)
{
    for (size_t i = 0; p && i < ngmems; i++)
        if (gmems[i].addr == p) return &gmems[i];
    return NULL;
}

CUresult drv_graph_mem_reserve(CUcontext c, const CUDA_MEM_ALLOC_NODE_PARAMS_v2 *p, CUdeviceptr *out)
{
    CUresult e = props_check(&p->poolProps);
    if (e != CUDA_SUCCESS) return e;
    if (!p->bytesize) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < p->accessDescCount; i++)
        if (!p->accessDescs || drv_device_check(p->accessDescs[i].location.id) != CUDA_SUCCESS)
            return CUDA_ERROR_INVALID_VALUE;
    if (ngmems == capgmems) {
        size_t nc = capgmems ? capgmems * 2 : 16;
        GraphMem *n = realloc(gmems, nc * sizeof *n);
        if (!n) return CUDA_ERROR_OUT_OF_MEMORY;
        gmems = n;
        capgmems = nc;
    }
    uint64_t a;
    if ((e = drv_mem_alloc_device(c, &a, p->bytesize)) != CUDA_SUCCESS) return e;
    gmems[ngmems++] = (GraphMem){ a, p->bytesize, 1, 0 };
    *out = a;
    return CUDA_SUCCESS;
}

void drv_graph_mem_retain(CUdeviceptr p)
{
    GraphMem *g = gmem_find(p);
    if (g) g->refs++;
}

/* The address goes when no node names it and nothing holds the memory. */
void drv_graph_mem_release(CUdeviceptr p)
{
    GraphMem *g = gmem_find(p);
    if (!g || --g->refs || g->allocated) return;
    drv_mem_free_device(g->addr);
    *g = gmems[--ngmems];
}

int drv_graph_mem_known(CUdeviceptr p)
{
    GraphMem *g = gmem_find(p);
    return !g ? 0 : g->allocated ? 2 : 1;
}

static void lot_drop(size_t i)
{
    free(lots[i].after.c);
    lots[i] = lots[--nlots];
}

/* Freed chunks that work on stream s after *at may take (NULL: the host's own call). */
static int lot_usable(const Lot *l, uint32_t s, const DrvOrder *at)
{
    return (at && l->stream == s) || drv_order_host_waited(&l->after) ||
           l->done_ns <= drv_model_host();
}

CUresult drv_graph_mem_alloc(CUdeviceptr p, int auto_free, CUstream s, const DrvOrder *at)
{
    GraphMem *g = gmem_find(p);
    if (!g || (g->allocated && !auto_free)) return CUDA_ERROR_INVALID_VALUE;
    if (g->allocated) drv_graph_mem_free(p, s, at);
    g->allocated = 1;
    /* freed chunks first, as many as the usable lots hold; new ones for the rest (the H100
     * gives a 64 MiB allocation a freed 32 MiB and a new 32 MiB) */
    size_t need = chunks(g->size);
    uint32_t si = drv_order_stream_index(s);
    for (size_t i = 0; i < nlots && need;) {
        if (!lot_usable(&lots[i], si, at)) { i++; continue; }
        size_t take = lots[i].size < need ? lots[i].size : need;
        if (lots[i].addr != g->addr) drv_model_host_spends((double)(take / CHUNK) * MAP_OTHER_NS);
        need -= take;
        if ((lots[i].size -= take) == 0) lot_drop(i);   /* the last lot moved to i */
        else i++;
    }
    if (!need) return CUDA_SUCCESS;
    drv_model_host_spends((double)(need / CHUNK) * MAP_NEW_NS);
    gphys += need;
    if (gphys > gphys_high) gphys_high = gphys;
    return CUDA_SUCCESS;
}

CUresult drv_graph_mem_free(CUdeviceptr p, CUstream s, const DrvOrder *at)
{
    GraphMem *g = gmem_find(p);
    if (!g || !g->allocated) return CUDA_ERROR_INVALID_VALUE;
    g->allocated = 0;
    if (nlots == caplots) {
        size_t nc = caplots ? caplots * 2 : 8;
        Lot *n = realloc(lots, nc * sizeof *n);
        if (n) { lots = n; caplots = nc; }
    }
    if (nlots < caplots) {
        Lot *l = &lots[nlots++];
        *l = (Lot){ chunks(g->size), drv_order_stream_index(s), { 0 },
                    at ? drv_model_stream_end(s) : drv_model_host(), g->addr };
        if (at) drv_order_join(&l->after, at);
    } else {
        gphys -= chunks(g->size);   /* out of memory to remember it: give it back at once */
    }
    if (!g->refs) drv_graph_mem_release((g->refs = 1, p));
    return CUDA_SUCCESS;
}

static CUresult graph_attr(CUdevice dev, CUgraphMem_attribute attr, void *value, int set)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    int high = attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH || attr == CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH;
    if (!high && attr != CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT && attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT)
        return CUDA_ERROR_INVALID_VALUE;
    if (set && (!high || *(cuuint64_t *)value != 0)) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    if (set) gphys_high = gphys;
    else *(cuuint64_t *)value = high ? gphys_high : gphys;
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    return graph_attr(device, attr, value, 0);
}

CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    return graph_attr(device, attr, value, 1);
}

CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = drv_device_check(device);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    while (nlots) {
        gphys -= lots[0].size;
        lot_drop(0);
    }
    drv_unlock();
    return CUDA_SUCCESS;
}
