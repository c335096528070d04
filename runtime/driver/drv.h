/* drv.h - the state behind ptxemu's libcuda.so.1, shared by the files of runtime/driver/.
 *
 * ptxemu's libcuda.so.1 is the core: devices, contexts, modules, memory, streams, events and
 * launches are implemented here once, behind the CUDA driver API. Both faces sit on it:
 * programs that call the driver API directly, NVIDIA's runtime (static or shared) through
 * cuGetProcAddress and the export tables, and ptxemu's own libcudart.so.13, which only calls
 * cu* functions (docs/driver.md).
 *
 * Contract: every entry point takes the driver lock (drv_lock) around shared state; handles
 * handed to programs are checked against the handle registry before they are dereferenced,
 * so a stale or garbage handle is an error code, never a crash. Errors are CUresult values.
 */
#ifndef PTXEMU_DRV_H
#define PTXEMU_DRV_H

#include <stddef.h>
#include <stdint.h>
#include <cuda.h>
#include "jit/jit.h"

/* ---- init.c: cuInit, the lock, diagnostics ---- */
int drv_is_initialized(void);
void drv_lock(void);
void drv_unlock(void);
void drv_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The body of every entry point in unimplemented.c: says so once, CUDA_ERROR_NOT_SUPPORTED. */
int drv_not_implemented(const char *name, int *told);
/* A CUresult for an emulator error code (EMU_ERR_*, numbered as cudaError_t). */
CUresult drv_from_emu(int emu_err);
/* Errors that leave the context unusable (a kernel fault). */
int drv_error_is_sticky(CUresult e);

/* ---- handles.c: which pointers are live handles of which kind ---- */
enum { H_NONE = 0, H_CTX, H_MODULE, H_FUNC, H_STREAM, H_EVENT, H_LINK, H_ARRAY, H_MIPMAP,
       H_MEMPOOL, H_GRAPH, H_GNODE, H_GEXEC, H_USEROBJ,   /* these five: graph.h */
       H_VMM };                                         /* vmm.c */
int drv_handle_add(const void *p, int kind);    /* 0 ok, -1 out of memory */
void drv_handle_del(const void *p);
int drv_handle_kind(const void *p);             /* H_NONE when not a live handle */

/* ---- context.c ---- */
typedef struct DrvCls DrvCls;                    /* context-local storage (export table) */

struct CUctx_st {
    int device;
    unsigned flags;
    int primary;                 /* the device's primary context                        */
    unsigned long long id;
    CUresult sticky;             /* a kernel fault: every later call returns it          */
    CUfunc_cache cache_config;
    CUsharedconfig shmem_config;
    size_t printf_fifo, pending_launches, l2_fetch, persisting_l2;
    DrvCls *cls;
};

/* The current context, checked: CUDA_ERROR_NOT_INITIALIZED before cuInit,
 * CUDA_ERROR_INVALID_CONTEXT without one, its sticky error after a fault. */
CUresult drv_ctx_enter(CUcontext *out);
/* The same without the sticky check (calls that work after a fault). */
CUresult drv_ctx_enter_any(CUcontext *out);
CUcontext drv_ctx_current(void);
/* A call on an object (an allocation, stream, event, module, function) runs in the current
 * context when there is one, else in the object's own, owner (NULL: it has none, or is not
 * live). Measured on an H200, driver 580 (tests/expected/driver/noctx.txt): with no context
 * current, frees, unregistering, stream and event calls, module calls and work issued into
 * a created stream succeed; calls that name no object (cuMemAlloc, synchronous copies,
 * cuCtxSynchronize) fail with CUDA_ERROR_INVALID_CONTEXT. sticky: also its sticky error. */
CUresult drv_ctx_enter_owner(CUcontext owner, int sticky, CUcontext *out);
CUcontext drv_primary(CUdevice dev);            /* the primary context object (always)  */
int drv_primary_active(CUdevice dev);
/* Whether c is a context that can be used (retained, if primary), or why not. */
CUresult drv_ctx_check(CUcontext c);
/* Make e the context's sticky error (the first wins) and print msg once. */
void drv_ctx_set_sticky(CUcontext c, CUresult e, const char *msg);
/* A call that waited for work (a kernel kept waiting for the host ran then, and may have
 * failed): e, or once e is success the sticky error the context has now. */
CUresult drv_after_wait(CUcontext c, CUresult e);
/* Context-local storage, for the export table c693336e-... (export.c). */
CUresult drv_cls_put(CUcontext c, void *key, void *value, void (*dtor)(CUcontext, void *, void *));
CUresult drv_cls_get(CUcontext c, void *key, void **value);
CUresult drv_cls_delete(CUcontext c, void *key);

/* ---- device.c: the emulated H100s (PTXEMU_DEVICES of them; a CUdevice is its ordinal) ---- */
#define DRV_NUM_SMS 132
#define DRV_MAX_THREADS_PER_BLOCK 1024
#define DRV_SMEM_PER_BLOCK (48u * 1024)
#define DRV_SMEM_PER_BLOCK_OPTIN (227u * 1024)
#define DRV_SMEM_PER_SM (228u * 1024)
#define DRV_SMEM_RESERVED_PER_BLOCK 1024u
#define DRV_THREADS_PER_SM 2048
#define DRV_REGS_PER_SM 65536
#define DRV_BLOCKS_PER_SM 32
#define DRV_DRIVER_VERSION 13000
#define DRV_MAX_DEVICES 16
/* Reads PTXEMU_DEVICES (-1, said, if bad) and CUDA_VISIBLE_DEVICES (-2, said, when it
 * leaves no device): which of the emulated devices the ordinals name, in what order. */
int drv_devices_init(void);
int drv_device_count(void);
CUresult drv_device_check(CUdevice dev);        /* CUDA_ERROR_INVALID_DEVICE unless < count */
int drv_device_attr(CUdevice dev, CUdevice_attribute attr, int *value);   /* -1: unknown  */
void drv_device_uuid(CUdevice dev, unsigned char out[16]);
size_t drv_device_memory(void);                 /* what cuDeviceTotalMem reports        */

/* ---- peer.c: peer access between contexts of different devices ---- */
/* Bit d set: a kernel launched in c may touch memory of device d (its own, enabled peers). */
uint32_t drv_peer_mask(CUcontext c);
void drv_peer_forget(CUcontext c);             /* c goes: no access from it or to it     */

/* ---- memory.c ---- */
enum { DRV_MEM_DEVICE, DRV_MEM_HOST, DRV_MEM_MANAGED, DRV_MEM_REGISTERED,
       DRV_MEM_IPC /* another process's allocation, opened (ipc.c) */ };
/* [p, p+n) lies inside one live allocation (or registered host memory). */
int drv_mem_ok(uint64_t p, size_t n);
/* callsite.c: the first frames of the calling program outside ptxemu's libraries, and a
 * "file(symbol)+0xoff < ..." rendering of them. */
#define DRV_SITE_FRAMES 3
void drv_callsite(uintptr_t site[DRV_SITE_FRAMES]);
void drv_callsite_format(const uintptr_t site[DRV_SITE_FRAMES], char *buf, size_t n);
/* Free every allocation a context owns (context destruction, primary reset). */
void drv_mem_release_ctx(CUcontext c);
/* A device allocation and its release, for pools and graphs; caller holds the lock. */
CUresult drv_mem_alloc_device(CUcontext c, uint64_t *out, size_t size);
CUresult drv_mem_free_device(uint64_t p);
/* Memory another process exported, opened in context c at addr (ipc.c), and its close. */
CUresult drv_mem_remember_ipc(CUcontext c, uint64_t addr, size_t size);
void drv_mem_forget_ipc(uint64_t addr);
/* ---- ipc.c: the allocation at start stops being exported (before it is freed); an opened
 * handle's memory goes (its last close, or its context's end). Caller holds the lock. ---- */
void drv_ipc_unexport(uint64_t start);
void drv_ipc_unmap(uint64_t addr);
/* stream.c: an event's creation flags, -1 when it is not a live event (caller holds the lock). */
int drv_event_flags(CUevent e);
/* Copies and fills as graph nodes describe them (graph.c runs them; dry: only validate). */
CUresult drv_mem_copy3d(const CUDA_MEMCPY3D *p, int dry);
CUresult drv_mem_fill(const CUDA_MEMSET_NODE_PARAMS *p, int dry);

/* ---- managed.c: the hints given for managed memory, per byte range (memory.c checks the
 * ranges; caller holds the lock) ---- */
CUresult drv_managed_advise(uint64_t p, size_t n, CUmem_advise advice, CUmemLocation loc);
void drv_managed_prefetched(uint64_t p, size_t n, CUmemLocation loc);
CUresult drv_managed_attr(void *data, size_t size, CUmem_range_attribute attr, uint64_t p,
                          size_t n);
void drv_managed_forget(uint64_t p, size_t n);   /* the allocation [p, p+n) goes           */

/* ---- texture.c: CUDA arrays ---- */
/* Where byte x of row y of slice z of array a lies, the array's pitch and rows per slice,
 * and how many bytes, rows and slices remain from there (for a 2D/3D copy). */
CUresult drv_array_side(CUarray a, size_t x, size_t y, size_t z, uint64_t *base, size_t *pitch,
                        size_t *height, size_t room[3]);

/* ---- module.c: modules, libraries, functions ---- */
typedef struct DrvModule DrvModule;
struct CUfunc_st {                  /* CUfunction and CUkernel (the same object here)      */
    DrvModule *mod;
    char *name;
    EmuKernel *k;                   /* resolved lazily; NULL after a reset                 */
    int max_dyn;                    /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, -1 */
    int carveout;                   /* -1: no preference                                   */
    int nonportable;
    int cluster[3];                 /* required cluster dimensions set by the program      */
    int sched_policy;
    int reported;                   /* a diagnostic was printed already                   */
    int regs;                       /* registers ptxas gives it: 0 not asked, -1 unknown   */
};
/* The registers ptxas gives f's kernel, or -1 without ptxas (module.c). */
int drv_func_ptxas_regs(CUfunction f);
/* The function's kernel with its info; says once why it cannot be used. */
CUresult drv_func_kernel(CUfunction f, EmuKernel **k, JitKernelInfo *info);
/* Dynamic shared memory the function may use by default or as set. */
size_t drv_func_max_dyn(CUfunction f, const JitKernelInfo *info);
/* Unload the context's modules (destruction, reset); reset libraries' state. */
void drv_modules_release_ctx(CUcontext c);
void drv_libraries_reset(void);

/* ---- launch.c: launch attributes that streams and kernel nodes keep ----
 * What cu*GetAttribute answers (a stream's priority is its own, not this one's). None of them
 * changes what runs on an emulator. */
typedef struct DrvLaunchAttrs {
    CUaccessPolicyWindow window;
    CUsynchronizationPolicy sync;
    CUlaunchMemSyncDomainMap domain_map;
    CUlaunchMemSyncDomain domain;
    int priority;
} DrvLaunchAttrs;
void drv_attrs_init(DrvLaunchAttrs *a);          /* what a new stream or node has        */
/* Attribute id of a, or set it after checking the value against device dev's limits;
 * CUDA_ERROR_INVALID_VALUE for an id not kept here or a bad value. */
CUresult drv_attr_get(const DrvLaunchAttrs *a, CUlaunchAttributeID id, CUlaunchAttributeValue *v);
CUresult drv_attr_set(DrvLaunchAttrs *a, CUdevice dev, CUlaunchAttributeID id,
                      const CUlaunchAttributeValue *v);

/* ---- stream.c: streams, events and stream order ---- */
struct CUstream_st;
/* The stream a call names: NULL is the legacy stream (or the per-thread one in a _ptsz
 * call), which are always valid; others must be live streams of the current context. */
CUresult drv_stream_check(CUstream s);
CUresult drv_stream_check_copy(CUstream s);   /* also streams of other contexts */
CUstream drv_ptsz(CUstream s);                  /* NULL -> CU_STREAM_PER_THREAD         */
CUcontext drv_stream_owner(CUstream s);         /* a live created stream's context, else NULL */
/* Stream order for the race detector: a launch is issued on s; the host waited. */
void drv_order_launch(CUstream s);
void drv_order_host_waits(CUstream s);
void drv_order_host_waits_all(void);
/* The modeled H100 timeline of streams and engines (stream.c), kept always: CUDA events read
 * it under --clock model, and graph memory reuses what it shows finished. Work of ns
 * nanoseconds on stream s and an engine, after `latency` ns in which the engine may serve
 * others; host_waits: the host blocks until it is done. A
 * kernel's time is the model's estimate of the launch that just ended; graph kernels and
 * copies go on the stream drv_model_copy_stream named (sync copies: the legacy one), a
 * copy's time from its direction, size and whether its host memory is pinned. */
enum { DRV_ENGINE_H2D, DRV_ENGINE_D2H, DRV_ENGINE_D2D, DRV_ENGINES };   /* the copy engines */
#define DRV_MODEL_COPY_NS 8000.0
#define DRV_MODEL_PINNED_BPS 55e9
#define DRV_MODEL_PAGEABLE_BPS 13.7e9
#define DRV_MODEL_D2D_BPS (3.35e12 / 2)
#define DRV_MODEL_GRAPH_LAUNCH_NS 1400.0   /* the host's cudaGraphLaunch, measured on the H100 */
void drv_model_work(CUstream s, int engine, double latency, double ns, int host_waits);
void drv_model_copy_stream(CUstream s, int async);
void drv_model_copy(int to_device, int from_device, int pinned, size_t bytes);
void drv_model_kernel(CUstream s, int graph, uint64_t blocks);
double drv_model_kernel_start(CUstream s, int graph, uint64_t blocks);   /* when it would start */
double drv_model_stream_end(CUstream s);
int drv_order_follows(uint32_t a, uint32_t b);
/* Launches queued behind a kernel that waits for the host (launch.c): give them a turn (a
 * parked one continues until it ends or parks again), run them all to the end, or those
 * stream index si follows; and whether work on stream s would come after some of them. */
enum { DRV_QUEUE_TURN, DRV_QUEUE_ALL, DRV_QUEUE_STREAM };
void drv_run_queue(int mode, uint32_t si);
void drv_run_held_for(uint32_t si);
void drv_run_held_for_copy(void);
void drv_queue_drop_module(DrvModule *m);
void drv_run_held_coop(void);   /* only the kept cooperative launches (drv_run_held: both) */
int drv_queue_holds(CUstream s);
double drv_model_host(void);
void drv_model_host_spends(double ns);
void drv_streams_release_ctx(CUcontext c);
/* The launch attributes of stream s (checked), which a kernel captured from it takes. */
void drv_stream_attrs(CUstream s, DrvLaunchAttrs *out);
/* Graph nodes that may overlap each run on a lane of their own (an index like a stream's);
 * a DrvOrder is a vector clock: for each lane or stream, how many of its launches come
 * before. drv_order_lane_launch: a launch on `lane` after *v, which then becomes the clock
 * of that launch. */
typedef struct DrvOrder { uint64_t *c; uint32_t n; } DrvOrder;
uint32_t drv_order_new_lane(void);
void drv_order_stream_get(CUstream s, DrvOrder *out);       /* what s's next work follows */
void drv_order_stream_after(CUstream s, const DrvOrder *v); /* s's later work follows v    */
void drv_order_lane_launch(uint32_t lane, DrvOrder *v);
void drv_order_join(DrvOrder *d, const DrvOrder *s);
uint32_t drv_order_stream_index(CUstream s);   /* the same for every name of one stream */
int drv_order_host_waited(const DrvOrder *v);  /* the host has waited for all v follows  */
const DrvOrder *drv_order_host(void);          /* what the host has waited for            */

/* ---- defer.c: deterministic mode completes asynchronous work when the seed says ----
 * drv_defer_choose: this piece of asynchronous work is kept for later (never when off).
 * Kept work is completed by drv_defer_settle_* before anything that must come after it
 * (work on a stream that follows it, what the host has waited for, everything) and, on the
 * seed's coins, at each drv_defer_turn (issues and queries). Caller holds the lock. */
int drv_defer_on(void);
int drv_defer_choose(void);
void drv_defer_kernel(EmuPending *p, CUcontext c, CUfunction f, CUstream s);
void drv_defer_copy(uint64_t dst, int dd, uint64_t src, int sd, size_t n, CUstream s);
void drv_defer_fill(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                    size_t height, CUstream s);
void drv_defer_settle_stream(CUstream s);
void drv_defer_settle_host(void);
void drv_defer_settle_all(void);
void drv_defer_turn(void);
int drv_defer_holds(CUstream s);   /* s has kept work, or follows some */
int drv_defer_follows(const DrvOrder *v);   /* kept work that v follows (an event) */

/* ---- hostrace.c: host reads and writes of page-locked memory that work the host has not
 * waited for touches (PTXEMU_RACECHECK) ----
 * drv_hostrace_copy / _kernel: the copy or fill (api) just run on s, or the kernel just run
 * there (the pages the detector saw it touch), is kept until the host waits for it, its
 * page-locked bytes protected while the program runs. drv_hostrace_lift / _apply: the
 * driver lock's first entry and last exit lift and apply the protections. */
int drv_hostrace_attach(void);   /* at cuInit, with PTXEMU_RACECHECK: 0, or -1 (no room) */
int drv_hostrace_on(void);
int drv_hostrace_visible(uint64_t p, int *kind);   /* page-locked memory the host sees */
void drv_hostrace_copy(CUstream s, const char *api, uint64_t dst, uint64_t src, size_t n, int fill);
void drv_hostrace_kernel(CUstream s, const char *name, const char *mangled);
void drv_hostrace_lift(void);
void drv_hostrace_apply(void);
/* What kept work runs: a prepared launch (launch.c), a copy or a fill (memory.c). */
void drv_launch_complete(EmuPending *p, CUcontext c, CUfunction f);
void drv_mem_copy_run(uint64_t dst, int dd, uint64_t src, int sd, size_t n);
void drv_mem_fill_run(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                      size_t height);

/* ---- launch.c ---- */
/* Run the cooperative launches kept to run together (launch.c), if any: before the host
 * waits for work, queries it, or copies or fills memory. Caller holds the lock. */
void drv_run_held(void);
CUresult drv_launch(CUfunction f, const unsigned grid[3], const unsigned block[3],
                    unsigned smem, CUstream s, void **params, void **extra,
                    const unsigned *cluster, int cooperative);
int drv_occupancy(CUfunction f, const JitKernelInfo *info, int block, size_t dyn);
/* The packed parameter buffer of a launch's `extra` as one pointer per parameter. */
CUresult drv_unpack_extra(void **extra, const JitKernelInfo *info, void **args);
/* A kernel node of a graph: checked as a launch, ordered on `lane` after *after (which
 * becomes the launch's clock) instead of a stream. */
CUresult drv_launch_node(CUfunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned smem, void **params, const unsigned *cluster, int cooperative,
                         uint32_t lane, DrvOrder *after);

/* ---- procaddr.c / export.c ---- */
int drv_proc_lookup(const char *symbol, void **pfn, int version, uint64_t flags, int *status);
CUresult drv_export_table(const void **table, const CUuuid *id);

#endif
