/* exec_call.c - extern functions a kernel may call, implemented on the host and called
 * through libffi from the .param signature: vprintf, malloc, free, __assertfail and
 * cudaGraphSetConditional. */
#include <stdio.h>
#include <string.h>
#include "call.h"
#include "cdp.h"
#include "exec.h"
#include "memory.h"

/* Device-side malloc's heap (cudaLimitMallocHeapSize). */
static size_t heap_size = 8u << 20;     /* CUDA's default device malloc heap: 8 MB */
void emu_set_heap_size(size_t b) { heap_size = b; }
size_t emu_heap_size(void) { return heap_size; }

static __thread Warp *cur_w;
static __thread int cur_lane, cur_fault;

void exec_call_context(Warp *w, int lane)
{
    cur_w = w;
    cur_lane = lane;
    cur_fault = 0;
}

int exec_call_faulted(void)
{
    return cur_fault;
}

Warp *exec_call_warp(int *lane)
{
    *lane = cur_lane;
    return cur_w;
}

void exec_call_fault(void)
{
    cur_fault = CALL_FAULTED;
}

/* A NUL-terminated string at a device address, checked to end inside its allocation. */
static const char *device_string(uint64_t addr, const char *what)
{
    size_t size;
    uint64_t start = mem_find(addr, &size, NULL);
    if (start) {
        const char *s = (const char *)(uintptr_t)addr;
        if (memchr(s, 0, size - (addr - start))) return s;
    }
    warp_fault(cur_w, cur_lane, EMU_ERR_ILLEGAL_ADDRESS, "%s at 0x%llx is not a string in device "
               "memory", what, (unsigned long long)addr);
    cur_fault = CALL_FAULTED;
    return NULL;
}

static uint32_t host_vprintf(uint64_t fmt, uint64_t args)
{
    const char *f = device_string(fmt, "printf format");
    if (!f) return (uint32_t)-1;
    const uint8_t *a = NULL;
    size_t len = 0;
    if (args) {
        a = mem_lane_ptr(cur_w, SP_GENERIC, args, 1, 1, cur_lane, ACC_READ);
        if (!a) { cur_fault = CALL_FAULTED; return (uint32_t)-1; }
        /* the argument buffer lives in the thread's local memory */
        int sp = mem_generic_space(args);
        if (sp == SP_LOCAL) len = cur_w->local_stride - (size_t)(args - LOCAL_WINDOW);
        else { size_t sz; uint64_t st = mem_find(args, &sz, NULL); len = st ? sz - (args - st) : 0; }
    }
    int n = devprintf(cur_w, cur_lane, f, a, len);
    return (uint32_t)n;
}

static size_t heap_used;
static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t host_malloc(uint64_t size)
{
    pthread_mutex_lock(&heap_lock);
    uint64_t p = 0;
    if (size && heap_used + size <= emu_heap_size()) {
        p = mem_alloc(size, MEM_HEAP);
        if (p) heap_used += size;
    }
    pthread_mutex_unlock(&heap_lock);
    return p;
}

uint64_t exec_heap_alloc(uint64_t size)
{
    return host_malloc(size);
}

/* 0 freed, -1 not a block of the heap */
int exec_heap_free(uint64_t ptr)
{
    size_t size;
    int kind;
    pthread_mutex_lock(&heap_lock);
    uint64_t start = mem_find(ptr, &size, &kind);
    int ok = start == ptr && kind == MEM_HEAP && mem_free(ptr, MEM_HEAP) == 0;
    if (ok) heap_used -= size;
    pthread_mutex_unlock(&heap_lock);
    return ok ? 0 : -1;
}

static void host_free(uint64_t ptr)
{
    if (!ptr) return;
    if (exec_heap_free(ptr)) {
        warp_fault(cur_w, cur_lane, EMU_ERR_ILLEGAL_ADDRESS, "free(0x%llx): not a pointer "
                   "returned by device malloc", (unsigned long long)ptr);
        cur_fault = CALL_FAULTED;
    }
}

static void host_assertfail(uint64_t msg, uint64_t file, uint32_t line, uint64_t func,
                            uint64_t char_size)
{
    (void)char_size;
    const char *m = device_string(msg, "assert message");
    const char *f = m ? device_string(file, "assert file") : NULL;
    const char *fn = f ? device_string(func, "assert function") : NULL;
    if (!fn) return;
    /* the H100's own line, on stderr, for every thread that fails (tests/expected/cuda/
     * faults.5.stderr); the launch then fails with cudaErrorAssert */
    const Cta *c = cur_w->cta;
    const Launch *L = cur_w->launch;
    uint32_t t = cur_w->id * WARP_SIZE + (uint32_t)cur_lane, bx = L->block[0], by = L->block[1];
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
            f, line, fn, c->ctaid[0], c->ctaid[1], c->ctaid[2], t % bx, t / bx % by,
            t / (bx * by), m);
    warp_fault(cur_w, cur_lane, EMU_ERR_ASSERT, "%s:%u: %s: Assertion `%s` failed.", f, line, fn, m);
    cur_fault = CALL_ASSERTED;
}

/* A conditional handle is the device address of the condition's 32-bit value (the driver's
 * runtime/driver/graph.c makes them), so setting it is a checked store. */
static void host_set_conditional(uint64_t handle, uint32_t value)
{
    uint32_t *p = mem_host(handle, sizeof value);
    if (p) {
        __atomic_store_n(p, value, __ATOMIC_RELAXED);
        return;
    }
    warp_fault(cur_w, cur_lane, EMU_ERR_ILLEGAL_ADDRESS, "cudaGraphSetConditional: 0x%llx is not "
               "a conditional handle", (unsigned long long)handle);
    cur_fault = CALL_FAULTED;
}

typedef struct HostFnInfo {
    const char *name;
    void *fn;
    int nparams;
    uint8_t sizes[6];   /* byte size of each parameter (12: a dim3, passed by pointer) */
    uint8_t ret;        /* byte size of the result, 0 = none */
} HostFnInfo;

static const HostFnInfo host_fns[] = {
    { "vprintf", (void *)host_vprintf, 2, {8, 8}, 4 },
    { "malloc", (void *)host_malloc, 1, {8}, 8 },
    { "free", (void *)host_free, 1, {8}, 0 },
    { "__assertfail", (void *)host_assertfail, 5, {8, 8, 4, 8, 8}, 0 },
    { "cudaGraphSetConditional", (void *)host_set_conditional, 2, {8, 4}, 0 },
    /* the device runtime (dynamic parallelism, cdp.c) */
    { "__cudaCDP2GetParameterBufferV2", (void *)cdp_get_parameter_buffer_v2, 4, {8, 12, 12, 4}, 8 },
    { "__cudaCDP2GetParameterBuffer", (void *)cdp_get_parameter_buffer, 2, {8, 8}, 8 },
    { "__cudaCDP2LaunchDeviceV2", (void *)cdp_launch_device_v2, 2, {8, 8}, 4 },
    { "__cudaCDP2LaunchDevice", (void *)cdp_launch_device, 6, {8, 8, 12, 12, 4, 8}, 4 },
    { "__cudaCDP2GetLastError", (void *)cdp_get_last_error, 0, {0}, 4 },
    { "__cudaCDP2PeekAtLastError", (void *)cdp_peek_at_last_error, 0, {0}, 4 },
    { "__cudaCDP2GetErrorString", (void *)cdp_get_error_string, 1, {4}, 8 },
    { "__cudaCDP2GetErrorName", (void *)cdp_get_error_name, 1, {4}, 8 },
    { "__cudaCDP2StreamCreateWithFlags", (void *)cdp_stream_create_with_flags, 2, {8, 4}, 4 },
    { "__cudaCDP2StreamDestroy", (void *)cdp_stream_destroy, 1, {8}, 4 },
    { "__cudaCDP2EventCreateWithFlags", (void *)cdp_event_create_with_flags, 2, {8, 4}, 4 },
    { "__cudaCDP2EventRecord", (void *)cdp_event_record, 2, {8, 8}, 4 },
    { "__cudaCDP2StreamWaitEvent", (void *)cdp_stream_wait_event, 3, {8, 8, 4}, 4 },
    { "__cudaCDP2EventDestroy", (void *)cdp_event_destroy, 1, {8}, 4 },
    { "__cudaCDP2MemcpyAsync", (void *)cdp_memcpy_async, 5, {8, 8, 8, 4, 8}, 4 },
    { "__cudaCDP2MemsetAsync", (void *)cdp_memset_async, 4, {8, 4, 8, 8}, 4 },
    { "__cudaCDP2Malloc", (void *)cdp_malloc, 2, {8, 8}, 4 },
    { "__cudaCDP2Free", (void *)cdp_free, 1, {8}, 4 },
};

int call_host_provided(const char *name)
{
    for (size_t i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++)
        if (!strcmp(host_fns[i].name, name)) return 1;
    return 0;
}

static ffi_type *ffi_of(unsigned size)
{
    return size == 8 || size == 12 ? &ffi_type_uint64 : size == 4 ? &ffi_type_uint32 :
           size == 2 ? &ffi_type_uint16 : size == 1 ? &ffi_type_uint8 : NULL;
}

const char *call_bind_extern(CallDesc *cd, const PtxFunc *proto)
{
    static __thread char msg[200];
    const HostFnInfo *h = NULL;
    for (size_t i = 0; i < sizeof host_fns / sizeof host_fns[0]; i++)
        if (!strcmp(host_fns[i].name, proto->name)) h = &host_fns[i];
    if (!h) {
        snprintf(msg, sizeof msg, "call of external function '%s', which ptxemu does not "
                 "provide (device functions from other files need -rdc linking into one PTX)",
                 proto->name);
        return msg;
    }
    int bad = proto->nparams != h->nparams || proto->nrets != (h->ret ? 1 : 0) ||
              (h->ret && ptx_var_bytes(&proto->rets[0]) != h->ret);
    for (int i = 0; !bad && i < h->nparams; i++) bad = ptx_var_bytes(&proto->params[i]) != h->sizes[i];
    if (bad) {
        snprintf(msg, sizeof msg, "external function '%s' is declared with a signature ptxemu "
                 "does not expect", proto->name);
        return msg;
    }
    for (int i = 0; i < h->nparams; i++) cd->atypes[i] = ffi_of(h->sizes[i]);
    cd->rtype = h->ret ? ffi_of(h->ret) : &ffi_type_void;
    if (ffi_prep_cif(&cd->cif, FFI_DEFAULT_ABI, (unsigned)h->nparams, cd->rtype, cd->atypes) != FFI_OK)
        return "libffi could not describe the call";
    cd->host_fn = h->fn;
    return NULL;
}
