/* ipc.c - CUDA IPC of device memory between processes of one user on one machine
 * (cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle).
 *
 * Device memory is each process's own arena, so exporting an allocation moves its pages in
 * place onto a memfd (emu/memory.c: mem_ipc_export; no address changes). The 64-byte handle
 * names that memfd by the exporter's pid and descriptor number, with where the allocation
 * lies in it; the importer opens /proc/PID/fd/FD (the same user may), maps it into fresh
 * address space of its own arena and gets a live block of exactly the allocation's bytes, so
 * bounds checks, faults and the tools see it like any allocation, and kernels and copies of
 * both processes work on the same pages. The memfd's name carries the exporter's pid, a
 * random number drawn once per process and the export's serial number, and the importer reads
 * it back after opening: a handle whose exporter has exited, or has freed the allocation, or
 * whose pid now names another process, names nothing, never someone else's memory.
 *
 * The pages are whole pages: an allocation shares its first and last page with neighbours
 * (blocks are 256-byte aligned), whose bytes the other process maps but cannot reach from
 * device code (its live block is the allocation alone), as a GPU maps its 2 MiB pages whole.
 * Errors follow cuda.h: opening a handle in the process that made it is
 * CUDA_ERROR_INVALID_CONTEXT, as the GPU answers; memory that cuMemAlloc did not make
 * (pinned, managed, pool or graph memory, opened handles) is CUDA_ERROR_INVALID_VALUE. Where
 * cuda.h is silent, ptxemu chose: a handle it did not make, or one naming no live export, is
 * CUDA_ERROR_INVALID_HANDLE with a message saying which (docs/driver.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/graph.h"
#include "emu/memory.h"
#include "emu/machine.h"

/* The handle's bytes (CU_IPC_HANDLE_SIZE = 64). */
#define WIRE_MAGIC "ptxemuM1"
typedef struct Wire {
    char magic[8];
    int32_t pid, fd;            /* the exporter, and its descriptor of the memfd          */
    uint64_t nonce, serial;     /* the exporter's random number, the export's number       */
    uint64_t len;               /* bytes of the memfd: the allocation's whole pages        */
    uint64_t offset, size;      /* where the allocation lies in them, and its size         */
} Wire;
_Static_assert(sizeof(Wire) <= CU_IPC_HANDLE_SIZE, "an IPC handle holds 64 bytes");

typedef struct Export { uint64_t start, lo; size_t size, len; int fd; uint64_t serial; } Export;
typedef struct Import { uint64_t addr; CUcontext ctx; unsigned refs; int32_t pid; uint64_t nonce, serial; } Import;
static Export *exports;
static size_t nexports, cexports;
static Import *imports;
static size_t nimports, cimports;
static uint64_t my_nonce, next_serial = 1;

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, nc * elem);
    if (!p) return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

static uint64_t nonce(void)
{
    while (!my_nonce) {
        if (getrandom(&my_nonce, sizeof my_nonce, GRND_NONBLOCK) != sizeof my_nonce)
            my_nonce = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid();
    }
    return my_nonce;
}

static void memfd_name(char *buf, size_t n, int32_t pid, uint64_t nc, uint64_t serial)
{
    snprintf(buf, n, "ptxemu-ipc-%d-%016llx-%llu", (int)pid, (unsigned long long)nc,
             (unsigned long long)serial);
}

static Export *export_of(uint64_t start)
{
    for (size_t i = 0; i < nexports; i++)
        if (exports[i].start == start) return &exports[i];
    return NULL;
}

static void wire_of(const Export *x, CUipcMemHandle *h)
{
    Wire w;
    memset(&w, 0, sizeof w);
    memcpy(w.magic, WIRE_MAGIC, sizeof w.magic);
    w.pid = (int32_t)getpid();
    w.fd = x->fd;
    w.nonce = nonce();
    w.serial = x->serial;
    w.len = x->len;
    w.offset = x->start - x->lo;
    w.size = x->size;
    memset(h, 0, sizeof *h);
    memcpy(h->reserved, &w, sizeof w);
}

/* The handle of the allocation holding p (caller holds the lock, no work in flight). */
static CUresult export_handle(CUipcMemHandle *h, CUdeviceptr p)
{
    size_t size;
    int kind;
    uint64_t start = p ? mem_find(p, &size, &kind) : 0;
    if (!start || kind != MEM_DEVICE || drv_pool_of(start) || drv_graph_mem_known(start))
        return CUDA_ERROR_INVALID_VALUE;   /* not memory of cuMemAlloc */
    Export *x = export_of(start);
    if (x) {   /* the same allocation again: the same handle */
        wire_of(x, h);
        return CUDA_SUCCESS;
    }
    if (grow((void **)&exports, &cexports, nexports, sizeof *exports)) return CUDA_ERROR_OUT_OF_MEMORY;
    char name[64];
    memfd_name(name, sizeof name, (int32_t)getpid(), nonce(), next_serial);
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    Export e = { start, 0, size, 0, fd, next_serial };
    if (mem_ipc_export(start, fd, &e.lo, &e.len)) {
        close(fd);
        return CUDA_ERROR_MAP_FAILED;
    }
    next_serial++;
    exports[nexports++] = e;
    wire_of(&e, h);
    return CUDA_SUCCESS;
}

void drv_ipc_unexport(uint64_t start)
{
    Export *x = export_of(start);
    if (!x) return;
    if (mem_ipc_unexport(x->lo, x->len))
        drv_diag("warning: could not make the pages of an exported allocation at 0x%llx private "
                 "again; another process that opened its handle still sees them",
                 (unsigned long long)start);
    close(x->fd);
    *x = exports[--nexports];
}

CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pHandle) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    drv_order_host_waits_all();   /* no kernel or copy touches the pages while they move */
    e = export_handle(pHandle, dptr);
    drv_unlock();
    return e;
}

/* ---- the importing side ---- */

static Import *import_at(uint64_t addr)
{
    for (size_t i = 0; i < nimports; i++)
        if (imports[i].addr == addr) return &imports[i];
    return NULL;
}

/* The exporter's memfd, checked to be the one the handle names; -1 (said) when it is gone. */
static int open_memfd(const Wire *w)
{
    char path[64], want[192], got[160];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)w->fd);
    /* never blocks, never takes a terminal: the name is checked only once it is open */
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            drv_diag("cuIpcOpenMemHandle: the handle's allocation is gone: process %d, which "
                     "exported it, has exited or freed it (CUDA_ERROR_INVALID_HANDLE)", (int)w->pid);
        else
            drv_diag("cuIpcOpenMemHandle: cannot open the memory of process %d (%s): IPC "
                     "works between processes of one user on one machine "
                     "(CUDA_ERROR_INVALID_HANDLE)", (int)w->pid, strerror(errno));
        return -1;
    }
    memfd_name(got, sizeof got, w->pid, w->nonce, w->serial);
    snprintf(want, sizeof want, "/memfd:%s (deleted)", got);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, got, sizeof got - 1);
    got[n > 0 ? n : 0] = 0;
    struct stat st;
    if (strcmp(got, want) || fstat(fd, &st) || (uint64_t)st.st_size < w->len) {
        drv_diag("cuIpcOpenMemHandle: the handle's allocation is gone: process %d, which "
                 "exported it, has exited or freed it (CUDA_ERROR_INVALID_HANDLE)", (int)w->pid);
        close(fd);
        return -1;
    }
    return fd;
}

static CUresult open_handle(CUcontext c, CUdeviceptr *pdptr, const Wire *w)
{
    if (w->pid == (int32_t)getpid() && w->nonce == nonce()) {
        drv_diag("cuIpcOpenMemHandle: the handle was made by this process; CUDA opens handles "
                 "of other processes only (CUDA_ERROR_INVALID_CONTEXT)");
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    for (size_t i = 0; i < nimports; i++) {
        Import *m = &imports[i];
        if (m->ctx == c && m->pid == w->pid && m->nonce == w->nonce && m->serial == w->serial) {
            m->refs++;   /* opened again by the same context: the same pointer, one more close */
            *pdptr = (CUdeviceptr)m->addr;
            return CUDA_SUCCESS;
        }
    }
    if (grow((void **)&imports, &cimports, nimports, sizeof *imports)) return CUDA_ERROR_OUT_OF_MEMORY;
    int fd = open_memfd(w);
    if (fd < 0) return CUDA_ERROR_INVALID_HANDLE;
    uint64_t a = mem_ipc_map(fd, w->len, w->offset, w->size);
    close(fd);   /* the mapping keeps the memory */
    if (!a) return CUDA_ERROR_MAP_FAILED;
    if (drv_mem_remember_ipc(c, a, w->size) != CUDA_SUCCESS) {
        mem_ipc_unmap(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    imports[nimports++] = (Import){ a, c, 1, w->pid, w->nonce, w->serial };
    *pdptr = (CUdeviceptr)a;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pdptr || (Flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) return CUDA_ERROR_INVALID_VALUE;
    Wire w;
    memcpy(&w, handle.reserved, sizeof w);
    if (memcmp(w.magic, WIRE_MAGIC, sizeof w.magic) || w.pid <= 0 || w.fd < 0 || !w.size ||
        w.offset > w.len || w.size > w.len - w.offset) {
        drv_diag("cuIpcOpenMemHandle: the handle was not made by cuIpcGetMemHandle of ptxemu "
                 "(CUDA_ERROR_INVALID_HANDLE)");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    drv_lock();
    e = open_handle(c, pdptr, &w);
    drv_unlock();
    return e;
}

/* The version before CUDA 11 takes the same arguments (cuda.h maps the name to _v2). */
#undef cuIpcOpenMemHandle
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags);
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    return cuIpcOpenMemHandle_v2(pdptr, handle, Flags);
}

void drv_ipc_unmap(uint64_t addr)
{
    Import *m = import_at(addr);
    if (m) *m = imports[--nimports];
    mem_ipc_unmap(addr);
}

CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    Import *m = dptr ? import_at(dptr) : NULL;
    if (!m) {
        e = CUDA_ERROR_INVALID_VALUE;   /* not a pointer cuIpcOpenMemHandle returned */
    } else if (--m->refs == 0) {
        drv_order_host_waits_all();     /* work issued before the close still sees it */
        drv_mem_forget_ipc(dptr);
        drv_ipc_unmap(dptr);
    }
    drv_unlock();
    return e;
}

/* ---- events (cuIpcGetEventHandle, cuIpcOpenEventHandle) ----
 * Work here is done when its call returns, and an event recorded with CU_EVENT_INTERPROCESS
 * first finishes what was kept or deferred before it (stream.c), so whatever another process
 * can see of an interprocess event, it is complete: the opened event is a local event with
 * timing disabled, complete until recorded here, as the GPU's would be once the recorded
 * work is done. The handle names the exporter (pid, random number) and the event, so that
 * opening one in its own process is refused as it is for memory. */
#define EVENT_MAGIC "ptxemuE1"
typedef struct EventWire { char magic[8]; int32_t pid, pad; uint64_t nonce, event; } EventWire;
_Static_assert(sizeof(EventWire) <= CU_IPC_HANDLE_SIZE, "an IPC handle holds 64 bytes");

CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pHandle) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    int flags = drv_event_flags(event);
    unsigned need = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    if (flags < 0) e = CUDA_ERROR_INVALID_HANDLE;
    else if (((unsigned)flags & need) != need) e = CUDA_ERROR_INVALID_VALUE;
    EventWire w;
    memset(&w, 0, sizeof w);
    memcpy(w.magic, EVENT_MAGIC, sizeof w.magic);
    w.pid = (int32_t)getpid();
    w.nonce = nonce();
    w.event = (uint64_t)(uintptr_t)event;
    drv_unlock();
    if (e != CUDA_SUCCESS) return e;
    memset(pHandle, 0, sizeof *pHandle);
    memcpy(pHandle->reserved, &w, sizeof w);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!phEvent) return CUDA_ERROR_INVALID_VALUE;
    EventWire w;
    memcpy(&w, handle.reserved, sizeof w);
    if (memcmp(w.magic, EVENT_MAGIC, sizeof w.magic) || w.pid <= 0 || !w.event) {
        drv_diag("cuIpcOpenEventHandle: the handle was not made by cuIpcGetEventHandle of ptxemu "
                 "(CUDA_ERROR_INVALID_HANDLE)");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    drv_lock();
    int mine = w.pid == (int32_t)getpid() && w.nonce == nonce();
    drv_unlock();
    if (mine) {
        drv_diag("cuIpcOpenEventHandle: the handle was made by this process; CUDA opens handles "
                 "of other processes only (CUDA_ERROR_INVALID_CONTEXT)");
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    return cuEventCreate(phEvent, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
}
