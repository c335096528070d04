/* context.c - contexts: each device's primary context, created ones, each thread's stack of
 * current contexts, sticky errors and context-local storage.
 *
 * All contexts share the emulator (one arena, one set of workers); a context belongs to one
 * device, whose kernels it launches and whose memory it allocates, and owns the
 * modules, streams, events and allocations made in it, which go when it is destroyed (or,
 * for the primary context, reset). After a kernel fault a context's every call returns the
 * fault, as on a GPU, until it is destroyed or reset.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/graph.h"

#define STACK_DEPTH 64

/* Allocated, not a TLS array: the library's thread-local block must stay small (sched.c). */
static _Thread_local CUcontext *stack;
static _Thread_local int depth;

/* ... and freed when its thread exits. */
static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static int stack_keyed;

static void stack_exit(void *s)
{
    free(s);
    stack = NULL;
    depth = 0;
}

static void stack_key_init(void)
{
    stack_keyed = pthread_key_create(&stack_key, stack_exit) == 0;
}

static int stack_room(void)
{
    if (!stack && (stack = calloc(STACK_DEPTH, sizeof *stack))) {
        pthread_once(&stack_once, stack_key_init);
        if (stack_keyed) pthread_setspecific(stack_key, stack);
    }
    return stack && depth < STACK_DEPTH;
}

/* One primary context per device. */
typedef struct Primary {
    struct CUctx_st ctx;
    int refs;                           /* retains; active while > 0                   */
    int destroyed;                      /* reset or released: gone until retained again */
    unsigned flags;                     /* cuDevicePrimaryCtxSetFlags                  */
    int registered;
} Primary;
static Primary primaries[DRV_MAX_DEVICES];
static unsigned long long next_ctx_id = 1;

struct DrvCls {
    DrvCls *next;
    void *key, *value;
    void (*dtor)(CUcontext, void *, void *);
};

/* Defaults measured on an H100 (tests/expected/driver/ctx.txt). */
static void ctx_defaults(CUcontext c, unsigned flags)
{
    DrvCls *cls = c->cls;
    memset(c, 0, sizeof *c);
    c->cls = cls;
    c->flags = flags;
    c->id = next_ctx_id++;
    c->cache_config = CU_FUNC_CACHE_PREFER_NONE;
    c->shmem_config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    c->printf_fifo = 8650752;
    c->pending_launches = 2048;
    c->l2_fetch = 64;
    c->persisting_l2 = 9830400;
}

/* A primary context afresh (first use, retain after release, reset); keeps its storage. */
static void primary_defaults(Primary *p, CUdevice dev)
{
    DrvCls *cls = p->ctx.cls;
    ctx_defaults(&p->ctx, p->flags);
    p->ctx.cls = cls;
    p->ctx.primary = 1;
    p->ctx.device = dev;
}

CUcontext drv_primary(CUdevice dev)
{
    Primary *p = &primaries[dev];
    if (!__atomic_load_n(&p->registered, __ATOMIC_ACQUIRE)) {
        drv_lock();
        if (!p->registered) {
            primary_defaults(p, dev);
            drv_handle_add(&p->ctx, H_CTX);
            __atomic_store_n(&p->registered, 1, __ATOMIC_RELEASE);
        }
        drv_unlock();
    }
    return &p->ctx;
}

int drv_primary_active(CUdevice dev)
{
    return primaries[dev].refs > 0;
}

CUcontext drv_ctx_current(void)
{
    return depth ? stack[depth - 1] : NULL;
}

/* Whether c can be used: CUDA_SUCCESS, or why not. The primary context must be retained;
 * once reset or released it is destroyed until retained again (measured:
 * CUDA_ERROR_CONTEXT_IS_DESTROYED). */
static CUresult ctx_usable(CUcontext c)
{
    if (!c || drv_handle_kind(c) != H_CTX) return CUDA_ERROR_INVALID_CONTEXT;
    const Primary *p = &primaries[c->device];
    if (!c->primary || p->refs > 0) return CUDA_SUCCESS;
    return p->destroyed ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult drv_ctx_check(CUcontext c)
{
    drv_lock();
    CUresult e = ctx_usable(c);
    drv_unlock();
    return e;
}

CUresult drv_ctx_enter_any(CUcontext *out)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    CUcontext c = drv_ctx_current();
    CUresult e = ctx_usable(c);
    drv_unlock();
    if (e != CUDA_SUCCESS) return e;
    *out = c;
    return CUDA_SUCCESS;
}

CUresult drv_ctx_enter(CUcontext *out)
{
    CUresult e = drv_ctx_enter_any(out);
    if (e != CUDA_SUCCESS) return e;
    CUresult st = __atomic_load_n(&(*out)->sticky, __ATOMIC_ACQUIRE);
    return st;
}

CUresult drv_ctx_enter_owner(CUcontext owner, int sticky, CUcontext *out)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (drv_ctx_current() || !owner) return sticky ? drv_ctx_enter(out) : drv_ctx_enter_any(out);
    drv_lock();
    CUresult e = ctx_usable(owner);
    drv_unlock();
    if (e == CUDA_SUCCESS && sticky) e = __atomic_load_n(&owner->sticky, __ATOMIC_ACQUIRE);
    if (e == CUDA_SUCCESS) *out = owner;
    return e;
}

void drv_ctx_set_sticky(CUcontext c, CUresult e, const char *msg)
{
    int first = 0;
    drv_lock();
    if (c->sticky == CUDA_SUCCESS) {
        __atomic_store_n(&c->sticky, e, __ATOMIC_RELEASE);
        first = 1;
    }
    drv_unlock();
    if (first && msg && *msg) drv_diag("%s", msg);
}

CUresult drv_after_wait(CUcontext c, CUresult e)
{
    if (e != CUDA_SUCCESS || !c) return e;
    return __atomic_load_n(&c->sticky, __ATOMIC_ACQUIRE);
}

/* ---- context-local storage ---- */

static DrvCls **cls_find(CUcontext c, void *key)
{
    DrvCls **pp = &c->cls;
    while (*pp && (*pp)->key != key) pp = &(*pp)->next;
    return pp;
}

CUresult drv_cls_put(CUcontext c, void *key, void *value, void (*dtor)(CUcontext, void *, void *))
{
    DrvCls **pp = cls_find(c, key);
    if (!*pp) {
        DrvCls *n = calloc(1, sizeof *n);
        if (!n) return CUDA_ERROR_OUT_OF_MEMORY;
        n->key = key;
        *pp = n;
    }
    (*pp)->value = value;
    (*pp)->dtor = dtor;
    return CUDA_SUCCESS;
}

CUresult drv_cls_get(CUcontext c, void *key, void **value)
{
    DrvCls *n = *cls_find(c, key);
    if (!n) return CUDA_ERROR_INVALID_HANDLE;   /* measured: a key never put */
    *value = n->value;
    return CUDA_SUCCESS;
}

CUresult drv_cls_delete(CUcontext c, void *key)
{
    DrvCls **pp = cls_find(c, key);
    DrvCls *n = *pp;
    if (!n) return CUDA_ERROR_INVALID_HANDLE;
    *pp = n->next;
    free(n);
    return CUDA_SUCCESS;
}

/* The runtime keeps its per-context state here and must hear when the context goes. */
static void cls_destroy(CUcontext c)
{
    while (c->cls) {
        DrvCls *n = c->cls;
        c->cls = n->next;
        if (n->dtor) n->dtor(c, n->key, n->value);
        free(n);
    }
}

/* Whether the primary context of another device is in use. Libraries are shared by all
 * devices here, so their state starts over only when no primary context uses them. */
static int primaries_active_besides(CUdevice dev)
{
    for (int d = 0; d < drv_device_count(); d++)
        if (d != dev && primaries[d].refs > 0) return 1;
    return 0;
}

/* Everything the context owns goes; the object itself stays for the primary context. */
static void ctx_teardown(CUcontext c)
{
    drv_order_host_waits_all();
    cls_destroy(c);
    drv_peer_forget(c);
    drv_streams_release_ctx(c);
    drv_modules_release_ctx(c);
    drv_mem_release_ctx(c);
    if (c->primary && !primaries_active_besides(c->device)) drv_libraries_reset();
}

/* Remove c from this thread's stack (other threads find it dead at their next call). */
static void stack_forget(CUcontext c)
{
    int j = 0;
    for (int i = 0; i < depth; i++)
        if (stack[i] != c) stack[j++] = stack[i];
    depth = j;
}

/* ---- creation and destruction ---- */

#define CTX_FLAGS_KNOWN (CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX | \
                         CU_CTX_COREDUMP_ENABLE | CU_CTX_USER_COREDUMP_ENABLE | CU_CTX_SYNC_MEMOPS)

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    if ((flags & ~(unsigned)CTX_FLAGS_KNOWN) || (flags & CU_CTX_SCHED_MASK) == 3)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = calloc(1, sizeof *c);
    if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
    drv_lock();
    ctx_defaults(c, flags);
    c->device = dev;
    if (!stack_room() || drv_handle_add(c, H_CTX)) {
        drv_unlock();
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    stack[depth++] = c;                 /* a new context is pushed on the creator's stack */
    drv_unlock();
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}

CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray)) return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);   /* SM affinity is a partitioning hint */
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                unsigned int flags, CUdevice dev)
{
    if (ctxCreateParams && (ctxCreateParams->numExecAffinityParams < 0 ||
                            ctxCreateParams->cigParams))
        return CUDA_ERROR_INVALID_VALUE;   /* graphics interop (CIG) has no device here */
    return ctx_create(pctx, flags, dev);
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    if (!ctx || drv_handle_kind(ctx) != H_CTX || ctx->primary) {
        drv_unlock();
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    ctx_teardown(ctx);
    drv_handle_del(ctx);
    stack_forget(ctx);
    drv_unlock();
    free(ctx);
    return CUDA_SUCCESS;
}

/* ---- the current-context stack ---- */

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    CUresult e = !ctx || drv_handle_kind(ctx) != H_CTX ? CUDA_ERROR_INVALID_CONTEXT
                 : !stack_room()                      ? CUDA_ERROR_OUT_OF_MEMORY
                                                      : CUDA_SUCCESS;
    if (e == CUDA_SUCCESS) stack[depth++] = ctx;
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!depth) return CUDA_ERROR_INVALID_CONTEXT;   /* measured on an empty stack */
    CUcontext c = stack[--depth];
    if (pctx) *pctx = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx) {                         /* NULL pops the top, if any */
        if (depth) depth--;
        return CUDA_SUCCESS;
    }
    drv_lock();
    int ok = drv_handle_kind(ctx) == H_CTX;
    drv_unlock();
    if (!ok) return CUDA_ERROR_INVALID_CONTEXT;
    if (depth) stack[depth - 1] = ctx;
    else if (stack_room()) stack[depth++] = ctx;
    else return CUDA_ERROR_OUT_OF_MEMORY;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    *pctx = drv_ctx_current();
    return CUDA_SUCCESS;
}

/* ---- queries and settings of a context ---- */

/* ctx, or the current context when ctx is NULL. */
static CUresult ctx_or_current(CUcontext ctx, CUcontext *out)
{
    if (!ctx) return drv_ctx_enter_any(out);
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    CUresult e = ctx_usable(ctx);
    drv_unlock();
    if (e != CUDA_SUCCESS) return e;
    *out = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_any(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    CUcontext c;
    CUresult e = ctx_or_current(ctx, &c);
    if (e != CUDA_SUCCESS) return e;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

/* Mapped host memory is always on (measured: a primary context reports CU_CTX_MAP_HOST). */
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_any(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = (c->primary ? primaries[c->device].flags : c->flags) | CU_CTX_MAP_HOST;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_any(&c);
    if (e != CUDA_SUCCESS) return e;
    if (flags & ~(unsigned)CTX_FLAGS_KNOWN) return CUDA_ERROR_INVALID_VALUE;
    if (c->primary) primaries[c->device].flags = flags;
    else c->flags = flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    CUcontext c;
    CUresult e = ctx_or_current(ctx, &c);
    if (e != CUDA_SUCCESS) return e;
    if (!ctxId) return CUDA_ERROR_INVALID_VALUE;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

/* All work is finished when the call that issued it returns (or here, for work deterministic
 * mode kept, runtime/driver/defer.c); a fault is what remains. */
CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e == CUDA_SUCCESS && (e = drv_capture_sync_ctx()) != CUDA_SUCCESS) return e;
    drv_lock();
    drv_order_host_waits_all();
    drv_unlock();
    return drv_after_wait(c, e);
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    CUcontext c;
    CUresult e = ctx_or_current(ctx, &c);
    if (e != CUDA_SUCCESS) return e;
    if ((e = drv_capture_sync_ctx()) != CUDA_SUCCESS) return e;
    drv_lock();
    drv_order_host_waits_all();
    drv_unlock();
    return c->sticky;
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    CUcontext c;
    CUresult e = ctx_or_current(ctx, &c);
    if (e != CUDA_SUCCESS) return e;
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;    /* the context API version of every context since CUDA 3.2 */
    return CUDA_SUCCESS;
}

/* The limits live in the emulator (stack, heap) or here (the rest, which change nothing). */
CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    switch (limit) {
    case CU_LIMIT_STACK_SIZE: emu_set_stack_size(value); break;
    case CU_LIMIT_MALLOC_HEAP_SIZE: emu_set_heap_size(value); break;
    case CU_LIMIT_PRINTF_FIFO_SIZE:   /* measured: at least 512 KiB; fixed once a kernel printed */
        if (__atomic_load_n(&emu_printf_used, __ATOMIC_RELAXED)) e = CUDA_ERROR_INVALID_VALUE;
        else c->printf_fifo = value < EMU_PRINTF_FIFO_MIN ? EMU_PRINTF_FIFO_MIN : value;
        break;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
        c->pending_launches = value;
        emu_set_pending_launch_limit(value);
        break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: c->l2_fetch = value > 128 ? 128 : value; break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: c->persisting_l2 = value; break;
    default: e = CUDA_ERROR_UNSUPPORTED_LIMIT; break;   /* incl. the sync depth on sm_90 */
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pvalue) return CUDA_ERROR_INVALID_VALUE;
    switch (limit) {
    case CU_LIMIT_STACK_SIZE: *pvalue = emu_stack_size(); break;
    case CU_LIMIT_MALLOC_HEAP_SIZE: *pvalue = emu_heap_size(); break;
    case CU_LIMIT_PRINTF_FIFO_SIZE: *pvalue = c->printf_fifo; break;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *pvalue = c->pending_launches; break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: *pvalue = c->l2_fetch; break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: *pvalue = c->persisting_l2; break;
    case CU_LIMIT_SHMEM_SIZE: *pvalue = DRV_SMEM_PER_BLOCK_OPTIN; break;
    default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pconfig) return CUDA_ERROR_INVALID_VALUE;
    *pconfig = c->cache_config;
    return CUDA_SUCCESS;
}

/* Cache preferences change no result; they are kept to be read back. */
CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL) return CUDA_ERROR_INVALID_VALUE;
    c->cache_config = config;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pConfig) return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;   /* sm_90 banks are 4 bytes */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    return (unsigned)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE ? CUDA_ERROR_INVALID_VALUE
                                                                       : CUDA_SUCCESS;
}

/* Stream priorities of the emulated device: 0 (least) down to -5 (greatest). */
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxResetPersistingL2Cache(void)
{
    CUcontext c;
    return drv_ctx_enter(&c);   /* no L2 is modelled: nothing persists */
}

/* ---- the primary context ---- */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    CUcontext c = drv_primary(dev);
    Primary *p = &primaries[dev];
    drv_lock();
    if (p->refs++ == 0) {
        primary_defaults(p, dev);
        p->destroyed = 0;
    }
    drv_unlock();
    *pctx = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    Primary *p = &primaries[dev];
    drv_lock();
    if (p->refs == 0) e = CUDA_ERROR_INVALID_CONTEXT;   /* measured */
    else if (--p->refs == 0) {
        ctx_teardown(drv_primary(dev));
        p->destroyed = 1;
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    if ((flags & ~(unsigned)CTX_FLAGS_KNOWN) || (flags & CU_CTX_SCHED_MASK) == 3)
        return CUDA_ERROR_INVALID_VALUE;
    primaries[dev].flags = flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    *flags = primaries[dev].flags;
    *active = primaries[dev].refs > 0;
    return CUDA_SUCCESS;
}

/* Destroys the primary context with all it holds (its fault too): threads that have it
 * current get CUDA_ERROR_CONTEXT_IS_DESTROYED until it is retained again (measured). */
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    CUresult e = drv_device_check(dev);
    if (e != CUDA_SUCCESS) return e;
    CUcontext c = drv_primary(dev);
    Primary *p = &primaries[dev];
    drv_lock();
    ctx_teardown(c);
    primary_defaults(p, dev);
    p->refs = 0;
    p->destroyed = 1;
    drv_unlock();
    return CUDA_SUCCESS;
}

/* ---- the names of older versions (same arguments; cuda.h maps these names to the new
 * versions, so they are unmapped here) ---- */
#undef cuCtxCreate
#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxSetFlags
#undef cuDevicePrimaryCtxReset

CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return ctx_create(pctx, flags, dev);
}
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx);
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx);
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx);
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx) { return cuCtxPopCurrent_v2(pctx); }
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev);
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
