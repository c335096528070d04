/* cdp.c - dynamic parallelism (CDP2): the device runtime's entry points and the queue of work
 * a grid launches (cdp.h says in which order it runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cdp.h"
#include "memory.h"
#include "observe.h"
#include "kernel.h"

/* cudaError_t values of the device runtime */
enum {
    CDP_OK = 0, CDP_INVALID_VALUE = 1, CDP_MEMORY_ALLOCATION = 2, CDP_INVALID_CONFIGURATION = 9,
    CDP_MAX_DEPTH_EXCEEDED = 65, CDP_PENDING_COUNT_EXCEEDED = 69,
    CDP_INVALID_DEVICE_FUNCTION = 98, CDP_INVALID_RESOURCE_HANDLE = 400
};

#define STREAM_TAIL_LAUNCH 3u        /* cudaStreamTailLaunch     */
#define STREAM_FIRE_AND_FORGET 4u    /* cudaStreamFireAndForget  */

enum { ITEM_LAUNCH, ITEM_COPY, ITEM_SET };

typedef struct CdpItem {
    int kind;
    EmuKernel *k;                /* ITEM_LAUNCH                                            */
    unsigned grid[3], block[3];
    uint32_t shmem;
    uint64_t buf;                /* its parameter buffer (MEM_PARAM), freed once it ran     */
    uint64_t dst, src, count;    /* ITEM_COPY / ITEM_SET (src holds the byte value)         */
    uint32_t cta, order;         /* issuing CTA, and the item's index among that CTA's      */
    uint64_t seq;                /* issue order in the grid                                 */
    int tail;
} CdpItem;

/* A parameter buffer handed out and not launched yet. */
typedef struct Prepared {
    uint64_t buf;
    EmuKernel *k;                /* NULL: cudaGetParameterBuffer (the launch names it)      */
    unsigned grid[3], block[3];
    uint32_t shmem;
} Prepared;

typedef struct ThreadError { uint32_t cta, tid, code; } ThreadError;

typedef struct CdpState {
    pthread_mutex_t lock;
    CdpItem *items; size_t nitems, capitems;
    Prepared *prep; size_t nprep, capprep;
    ThreadError *errs; size_t nerrs, caperrs;
    int any_error;
} CdpState;

/* launches handed a parameter buffer and not started yet, in the whole process */
static size_t pending, pending_limit = 2048;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_handle = 0x1000;

void emu_set_pending_launch_limit(size_t n) { pending_limit = n; }

static int pending_take(void)
{
    pthread_mutex_lock(&pending_lock);
    int ok = pending < pending_limit;
    if (ok) pending++;
    pthread_mutex_unlock(&pending_lock);
    return ok;
}

static void pending_give(size_t n)
{
    pthread_mutex_lock(&pending_lock);
    pending -= n < pending ? n : pending;
    pthread_mutex_unlock(&pending_lock);
}

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* The calling thread's launch state (created at the first device-runtime call). */
static CdpState *state(Warp *w)
{
    Launch *L = w->launch;
    CdpState *s = __atomic_load_n(&L->cdp, __ATOMIC_ACQUIRE);
    if (s) return s;
    pthread_mutex_lock(&L->lock);
    if (!(s = L->cdp) && (s = calloc(1, sizeof *s))) {
        pthread_mutex_init(&s->lock, NULL);
        __atomic_store_n(&L->cdp, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&L->lock);
    return s;
}

static uint32_t thread_index(const Warp *w, int lane)
{
    return w->id * WARP_SIZE + (uint32_t)lane;
}

/* The calling thread's last error (cudaGetLastError) becomes code; returns code. */
static uint32_t set_error(uint32_t code)
{
    if (!code) return 0;
    int lane;
    Warp *w = exec_call_warp(&lane);
    CdpState *s = state(w);
    if (!s) return code;
    uint32_t cta = w->cta->linear, tid = thread_index(w, lane);
    pthread_mutex_lock(&s->lock);
    size_t i;
    for (i = 0; i < s->nerrs; i++)
        if (s->errs[i].cta == cta && s->errs[i].tid == tid) break;
    if (i < s->nerrs) s->errs[i].code = code;
    else if (!grow((void **)&s->errs, &s->caperrs, s->nerrs, sizeof *s->errs))
        s->errs[s->nerrs++] = (ThreadError){ cta, tid, code };
    __atomic_store_n(&s->any_error, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->lock);
    return code;
}

static uint32_t last_error(int reset)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    CdpState *s = __atomic_load_n(&w->launch->cdp, __ATOMIC_ACQUIRE);
    if (!s || !__atomic_load_n(&s->any_error, __ATOMIC_ACQUIRE)) return 0;
    uint32_t cta = w->cta->linear, tid = thread_index(w, lane), code = 0;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nerrs; i++)
        if (s->errs[i].cta == cta && s->errs[i].tid == tid) {
            code = s->errs[i].code;
            if (reset) s->errs[i].code = 0;
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return code;
}

uint32_t cdp_get_last_error(void) { return last_error(1); }
uint32_t cdp_peek_at_last_error(void) { return last_error(0); }

/* ---- error strings: device memory, one copy per code ---------------------------------- */

static const struct { uint32_t code; const char *name, *text; } err_text[] = {
    { 0, "cudaSuccess", "no error" },
    { 1, "cudaErrorInvalidValue", "invalid argument" },
    { 2, "cudaErrorMemoryAllocation", "out of memory" },
    { 9, "cudaErrorInvalidConfiguration", "invalid configuration argument" },
    { 65, "cudaErrorLaunchMaxDepthExceeded", "launch would exceed maximum depth of nested launches" },
    { 69, "cudaErrorLaunchPendingCountExceeded",
      "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount" },
    { 98, "cudaErrorInvalidDeviceFunction", "invalid device function" },
    { 400, "cudaErrorInvalidResourceHandle", "invalid resource handle" },
};

static uint64_t device_text(const char *text)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct { const char *text; uint64_t addr; } cache[64];
    static int ncache;
    uint64_t a = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncache && !a; i++)
        if (cache[i].text == text) a = cache[i].addr;
    if (!a && ncache < 64 && (a = mem_alloc(strlen(text) + 1, MEM_MODULE))) {
        memcpy(mem_host(a, strlen(text) + 1), text, strlen(text) + 1);
        cache[ncache].text = text;
        cache[ncache++].addr = a;
    }
    pthread_mutex_unlock(&lock);
    return a;
}

static uint64_t error_text(uint32_t code, int name)
{
    for (size_t i = 0; i < sizeof err_text / sizeof err_text[0]; i++)
        if (err_text[i].code == code) return device_text(name ? err_text[i].name : err_text[i].text);
    return device_text(name ? "cudaErrorUnknown" : "unrecognized error code");
}

uint64_t cdp_get_error_string(uint32_t code) { return error_text(code, 0); }
uint64_t cdp_get_error_name(uint32_t code) { return error_text(code, 1); }

/* ---- launches ----------------------------------------------------------------------- */

static void dim3_of(uint64_t p, unsigned out[3])
{
    memcpy(out, (const void *)(uintptr_t)p, 12);   /* h_call_extern's copy of the argument */
}

/* Why a launch of k from the calling thread cannot be made (a cudaError_t), or 0. */
static uint32_t launch_check(Warp *w, EmuKernel *k, const unsigned g[3], const unsigned b[3],
                             uint32_t shmem)
{
    if (!k) return CDP_INVALID_DEVICE_FUNCTION;
    if (w->launch->cdp_depth + 1 > CDP_MAX_DEPTH) return CDP_MAX_DEPTH_EXCEEDED;
    char err[512];
    int rc = emu_check_child(k, g, b, shmem, err, sizeof err);
    if (rc == EMU_ERR_INVALID_PTX) return CDP_INVALID_DEVICE_FUNCTION;
    /* measured on the H100: every bad shape, too much shared memory included, is an
     * invalid configuration from the device side */
    if (rc == EMU_ERR_INVALID_VALUE) return CDP_INVALID_CONFIGURATION;
    return rc;
}

static uint64_t prepare(Warp *w, EmuKernel *k, size_t size, const unsigned g[3],
                        const unsigned b[3], uint32_t shmem)
{
    CdpState *s = state(w);
    if (!s) { set_error(CDP_MEMORY_ALLOCATION); return 0; }
    if (!pending_take()) { set_error(CDP_PENDING_COUNT_EXCEEDED); return 0; }
    uint64_t buf = mem_alloc(size ? size : 1, MEM_PARAM);
    if (buf) memset(mem_host(buf, size ? size : 1), 0, size ? size : 1);
    pthread_mutex_lock(&s->lock);
    if (buf && !grow((void **)&s->prep, &s->capprep, s->nprep, sizeof *s->prep)) {
        Prepared *p = &s->prep[s->nprep++];
        memset(p, 0, sizeof *p);
        p->buf = buf;
        p->k = k;
        if (g) memcpy(p->grid, g, sizeof p->grid);
        if (b) memcpy(p->block, b, sizeof p->block);
        p->shmem = shmem;
    } else if (buf) {
        mem_free(buf, MEM_PARAM);
        buf = 0;
    }
    pthread_mutex_unlock(&s->lock);
    if (!buf) { pending_give(1); set_error(CDP_MEMORY_ALLOCATION); }
    return buf;
}

uint64_t cdp_get_parameter_buffer_v2(uint64_t func, uint64_t grid, uint64_t block, uint32_t shmem)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    unsigned g[3], b[3];
    dim3_of(grid, g);
    dim3_of(block, b);
    EmuKernel *k = emu_kernel_from_pointer(w->launch->kernel, func);
    uint32_t e = launch_check(w, k, g, b, shmem);
    if (e) { set_error(e); return 0; }
    char err[512];
    int rc;
    const Program *p = emu_kernel_program(k, err, sizeof err, &rc);   /* launch_check translated it */
    return prepare(w, k, p ? p->param_size : 0, g, b, shmem);
}

uint64_t cdp_get_parameter_buffer(uint64_t align, uint64_t size)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    if (align > 256 || size > 32764) { set_error(CDP_INVALID_VALUE); return 0; }
    return prepare(w, NULL, size, NULL, NULL, 0);
}

/* Queue the launch of a prepared buffer; k and the shape replace the prepared ones when
 * given (cudaLaunchDevice). */
static uint32_t launch(uint64_t buf, uint64_t stream, EmuKernel *k, const unsigned *g,
                       const unsigned *b, uint32_t shmem)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    CdpState *s = __atomic_load_n(&w->launch->cdp, __ATOMIC_ACQUIRE);
    Prepared p;
    size_t i = 0;
    if (s) {
        pthread_mutex_lock(&s->lock);
        for (i = s->nprep; i-- > 0;)
            if (s->prep[i].buf == buf) break;
        if (i != (size_t)-1) {
            p = s->prep[i];
            s->prep[i] = s->prep[--s->nprep];
        }
        pthread_mutex_unlock(&s->lock);
    }
    if (!s || i == (size_t)-1) return set_error(CDP_INVALID_VALUE);
    if (g) {
        p.k = k;
        memcpy(p.grid, g, sizeof p.grid);
        memcpy(p.block, b, sizeof p.block);
        p.shmem = shmem;
        uint32_t e = launch_check(w, k, g, b, shmem);
        if (e) {
            mem_free(buf, MEM_PARAM);
            pending_give(1);
            return set_error(e);
        }
    }
    CdpItem it = { .kind = ITEM_LAUNCH, .k = p.k, .shmem = p.shmem, .buf = buf,
                   .tail = stream == STREAM_TAIL_LAUNCH };
    memcpy(it.grid, p.grid, sizeof it.grid);
    memcpy(it.block, p.block, sizeof it.block);
    pthread_mutex_lock(&s->lock);
    int ok = !grow((void **)&s->items, &s->capitems, s->nitems, sizeof *s->items);
    if (ok) {
        it.cta = w->cta->linear;
        it.order = w->cta->cdp_issued++;
        it.seq = s->nitems;
        s->items[s->nitems++] = it;
    }
    pthread_mutex_unlock(&s->lock);
    if (!ok) {
        mem_free(buf, MEM_PARAM);
        pending_give(1);
        return set_error(CDP_MEMORY_ALLOCATION);
    }
    return 0;
}

uint32_t cdp_launch_device_v2(uint64_t buf, uint64_t stream)
{
    return launch(buf, stream, NULL, NULL, NULL, 0);
}

uint32_t cdp_launch_device(uint64_t func, uint64_t buf, uint64_t grid, uint64_t block,
                           uint32_t shmem, uint64_t stream)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    unsigned g[3], b[3];
    dim3_of(grid, g);
    dim3_of(block, b);
    return launch(buf, stream, emu_kernel_from_pointer(w->launch->kernel, func), g, b, shmem);
}

/* ---- copies, streams, events, memory -------------------------------------------------- */

static uint32_t queue_op(int kind, uint64_t dst, uint64_t src, uint64_t count, uint64_t stream)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    if (!count) return 0;
    if (!mem_host(dst, count) || (kind == ITEM_COPY && !mem_host(src, count)))
        return set_error(CDP_INVALID_VALUE);
    CdpState *s = state(w);
    if (!s) return set_error(CDP_MEMORY_ALLOCATION);
    CdpItem it = { .kind = kind, .dst = dst, .src = src, .count = count,
                   .tail = stream == STREAM_TAIL_LAUNCH };
    pthread_mutex_lock(&s->lock);
    int ok = !grow((void **)&s->items, &s->capitems, s->nitems, sizeof *s->items);
    if (ok) {
        it.cta = w->cta->linear;
        it.order = w->cta->cdp_issued++;
        it.seq = s->nitems;
        s->items[s->nitems++] = it;
    }
    pthread_mutex_unlock(&s->lock);
    return ok ? 0 : set_error(CDP_MEMORY_ALLOCATION);
}

uint32_t cdp_memcpy_async(uint64_t dst, uint64_t src, uint64_t count, uint32_t kind, uint64_t stream)
{
    (void)kind;   /* every kind is a copy between addresses the device reaches */
    return queue_op(ITEM_COPY, dst, src, count, stream);
}

uint32_t cdp_memset_async(uint64_t dst, uint32_t value, uint64_t count, uint64_t stream)
{
    return queue_op(ITEM_SET, dst, value & 0xffu, count, stream);
}

/* Store a value through a pointer argument: a checked store of the calling lane. */
static int store(uint64_t addr, const void *v, unsigned size)
{
    int lane;
    Warp *w = exec_call_warp(&lane);
    void *p = mem_lane_ptr(w, SP_GENERIC, addr, size, size, lane, ACC_WRITE);
    if (!p) { exec_call_fault(); return -1; }
    memcpy(p, v, size);
    return 0;
}

/* Device-side streams and events order nothing here: a CTA's work runs in its issue order
 * anyway, and device-side events are usable only inside the CTA that made them. */
uint32_t cdp_stream_create_with_flags(uint64_t pstream, uint32_t flags)
{
    (void)flags;
    uint64_t h = __atomic_add_fetch(&next_handle, 16, __ATOMIC_RELAXED);
    if (store(pstream, &h, 8)) return CDP_INVALID_VALUE;
    return 0;
}

uint32_t cdp_stream_destroy(uint64_t stream)
{
    (void)stream;
    return 0;
}

uint32_t cdp_event_create_with_flags(uint64_t pevent, uint32_t flags)
{
    (void)flags;
    uint64_t h = __atomic_add_fetch(&next_handle, 16, __ATOMIC_RELAXED);
    if (store(pevent, &h, 8)) return CDP_INVALID_VALUE;
    return 0;
}

uint32_t cdp_event_record(uint64_t event, uint64_t stream)
{
    (void)stream;
    return event ? 0 : set_error(CDP_INVALID_RESOURCE_HANDLE);
}

uint32_t cdp_stream_wait_event(uint64_t stream, uint64_t event, uint32_t flags)
{
    (void)stream; (void)flags;
    return event ? 0 : set_error(CDP_INVALID_RESOURCE_HANDLE);
}

uint32_t cdp_event_destroy(uint64_t event)
{
    return event ? 0 : set_error(CDP_INVALID_RESOURCE_HANDLE);
}

uint32_t cdp_malloc(uint64_t pptr, uint64_t size)
{
    uint64_t p = exec_heap_alloc(size);
    if (store(pptr, &p, 8)) return CDP_INVALID_VALUE;
    return p || !size ? 0 : set_error(CDP_MEMORY_ALLOCATION);
}

uint32_t cdp_free(uint64_t ptr)
{
    if (!ptr) return 0;
    return exec_heap_free(ptr) ? set_error(CDP_INVALID_VALUE) : 0;
}

/* ---- after the grid ------------------------------------------------------------------ */

static int item_cmp(const void *a, const void *b)
{
    const CdpItem *x = a, *y = b;
    if (x->tail != y->tail) return x->tail - y->tail;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    if (x->cta != y->cta) return x->cta < y->cta ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void state_free(CdpState *s, size_t from)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nprep; i++) { mem_free(s->prep[i].buf, MEM_PARAM); n++; }
    for (size_t i = from; i < s->nitems; i++)
        if (s->items[i].kind == ITEM_LAUNCH) { mem_free(s->items[i].buf, MEM_PARAM); n++; }
    pending_give(n);
    free(s->items);
    free(s->prep);
    free(s->errs);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void cdp_discard(Launch *L)
{
    if (L->cdp) state_free(L->cdp, 0);
    L->cdp = NULL;
}

int cdp_run_children(Launch *L, CdpLaunchFn run_child, char *err, size_t errlen)
{
    CdpState *s = L->cdp;
    if (!s) return EMU_OK;
    L->cdp = NULL;
    /* buffers never launched go back first */
    for (size_t i = 0; i < s->nprep; i++) mem_free(s->prep[i].buf, MEM_PARAM);
    pending_give(s->nprep);
    s->nprep = 0;
    qsort(s->items, s->nitems, sizeof *s->items, item_cmp);
    /* tools (the race detector) order every child after the parent and before what follows it */
    OBSERVE(L->obs, children_begin, L);
    int rc = EMU_OK;
    size_t i;
    for (i = 0; i < s->nitems && rc == EMU_OK; i++) {
        CdpItem *it = &s->items[i];
        if (it->kind == ITEM_COPY) {
            memmove(mem_host(it->dst, it->count), mem_host(it->src, it->count), it->count);
            continue;
        }
        if (it->kind == ITEM_SET) {
            memset(mem_host(it->dst, it->count), (int)it->src, it->count);
            continue;
        }
        pending_give(1);   /* it starts */
        const Program *p = emu_kernel_program(it->k, err, errlen, &rc);
        uint8_t *params = p ? mem_host(it->buf, p->param_size ? p->param_size : 1) : NULL;
        void **args = p ? calloc((size_t)p->nparams + 1, sizeof *args) : NULL;
        if (!p) {
            /* launch_check translated it: only running out of memory can bring this */
        } else if (!args || !params) {
            snprintf(err, errlen, "ptxemu: out of memory launching %s from the device", p->name);
            rc = EMU_ERR_MEMORY_ALLOCATION;
        } else {
            for (uint32_t j = 0; j < p->nparams; j++) args[j] = params + p->param_offset[j];
            OBSERVE(L->obs, child_launch, L);
            rc = run_child(it->k, it->grid, it->block, it->shmem, args, L->cdp_depth + 1, err, errlen);
        }
        free(args);
        mem_free(it->buf, MEM_PARAM);
    }
    OBSERVE(L->obs, children_end, L);
    state_free(s, i);
    return rc;
}
