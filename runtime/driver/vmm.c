/* vmm.c - virtual memory management: address reservations, physical allocations, mappings
 * and access (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess, ...).
 *
 * A physical allocation is a memfd of its size; mapping it puts its pages at addresses of a
 * reservation inside the arena (emu/memory.c), so two mappings of one allocation share their
 * bytes as on the GPU. The granularity is the H100's, 2 MiB. Accessible memory may be touched
 * by every emulated device (the access descriptors are checked and remembered, not enforced
 * per device).
 *
 * Sharing between processes: an allocation created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
 * exports a duplicate of its memfd; another process (on ptxemu too) imports it and maps the
 * same pages, so writes on either side are seen on the other as between two GPU contexts. The
 * memfd's name carries the device ordinal (the importer reads it back through /proc/self/fd).
 * Windows and fabric handles are CUDA_ERROR_NOT_SUPPORTED.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"

#define GRAIN (2ull << 20)
#define MEMFD_NAME "ptxemu-vmm-device"
#define MAX_DEVICES 16

typedef struct Phys {
    int fd;
    size_t size;
    CUmemAllocationProp prop;
    unsigned refs;          /* the handle, and each mapping */
} Phys;

typedef struct Mapping { uint64_t start; size_t size; Phys *p; unsigned char access[MAX_DEVICES]; } Mapping;
static Mapping *maps;
static size_t nmaps, cmaps;

/* The entry points need cuInit but no current context: the address space is the process's.
 * memMapIPCDrv's parent creates and exports after destroying every context, its children unmap
 * and free after theirs, and tests/cuda/vmm_ipc does everything but the launch with none; on the
 * H100 all of that works. */
static CUresult enter(void)
{
    return drv_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

static void phys_unref(Phys *p)
{
    if (--p->refs) return;
    close(p->fd);
    drv_handle_del(p);
    free(p);
}

static Phys *phys_of(CUmemGenericAllocationHandle h)
{
    Phys *p = (Phys *)(uintptr_t)h;
    return p && drv_handle_kind(p) == H_VMM ? p : NULL;
}

static CUresult phys_new(int fd, size_t size, const CUmemAllocationProp *prop,
                         CUmemGenericAllocationHandle *handle);

/* A device location (the only kind of physical memory here). */
static CUresult check_prop(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
        prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    return drv_device_check(prop->location.id) == CUDA_SUCCESS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                         option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    /* measured: the location's device is not checked here */
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
        prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    *granularity = GRAIN;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!handle || !size || size % GRAIN || flags) return CUDA_ERROR_INVALID_VALUE;
    if ((e = check_prop(prop)) != CUDA_SUCCESS) return e;
    /* measured: Windows handle types are an invalid value on Linux */
    if (prop->requestedHandleTypes & (CU_MEM_HANDLE_TYPE_WIN32 | CU_MEM_HANDLE_TYPE_WIN32_KMT))
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
    char name[32];
    snprintf(name, sizeof name, "%s%d", MEMFD_NAME, prop->location.id);
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size)) {
        if (fd >= 0) close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if ((e = phys_new(fd, size, prop, handle)) != CUDA_SUCCESS) close(fd);
    return e;
}

/* Takes fd over; the handle is the new physical allocation. */
static CUresult phys_new(int fd, size_t size, const CUmemAllocationProp *prop,
                         CUmemGenericAllocationHandle *handle)
{
    Phys *p = calloc(1, sizeof *p);
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    p->fd = fd;
    p->size = size;
    p->prop = *prop;
    p->refs = 1;
    drv_lock();
    int bad = drv_handle_add(p, H_VMM);
    drv_unlock();
    if (bad) {
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    Phys *p = phys_of(handle);
    if (p) phys_unref(p);
    drv_unlock();
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags)
{
    (void)addr;   /* a hint: the arena decides */
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!ptr || !size || size % GRAIN || (alignment & (alignment - 1)) || flags)
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t s = mem_vmm_reserve(size, alignment);
    if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = s;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    return mem_vmm_free(ptr, size) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                          CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!size || ptr % GRAIN || size % GRAIN || offset % GRAIN || flags) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    Phys *p = phys_of(handle);
    /* the offset into the allocation "must currently be zero": measured, it is NOT_SUPPORTED */
    if (!p || size > p->size) e = CUDA_ERROR_INVALID_VALUE;
    else if (offset) e = CUDA_ERROR_NOT_SUPPORTED;
    else if (nmaps == cmaps && !(maps = realloc(maps, (cmaps = cmaps ? 2 * cmaps : 16) * sizeof *maps)))
        e = CUDA_ERROR_OUT_OF_MEMORY;
    else if (mem_vmm_map(ptr, size, p->fd, offset)) e = CUDA_ERROR_INVALID_VALUE;
    else {
        maps[nmaps++] = (Mapping){ .start = ptr, .size = size, .p = p };
        p->refs++;
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    if (mem_vmm_unmap(ptr, size)) {
        drv_unlock();
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < nmaps;) {
        if (maps[i].start >= ptr && maps[i].start - ptr < size) {
            phys_unref(maps[i].p);
            maps[i] = maps[--nmaps];
        } else {
            i++;
        }
    }
    drv_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!size || !desc || !count) return CUDA_ERROR_INVALID_VALUE;
    int rw = 0;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
        if (drv_device_check(desc[i].location.id) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ) return CUDA_ERROR_NOT_SUPPORTED;
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    drv_lock();
    /* the memory stays reachable while any device may read and write it */
    for (size_t k = 0; k < nmaps; k++) {
        Mapping *m = &maps[k];
        if (m->start < ptr || m->start - ptr >= size) continue;
        for (size_t i = 0; i < count; i++) m->access[desc[i].location.id] = (unsigned char)desc[i].flags;
    }
    for (size_t k = 0; k < nmaps; k++)
        if (maps[k].start >= ptr && maps[k].start - ptr < size)
            for (int d = 0; d < MAX_DEVICES; d++) rw |= maps[k].access[d] == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    e = mem_vmm_set_access(ptr, size, rw) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (drv_device_check(location->id) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
    e = CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    for (size_t k = 0; k < nmaps; k++)
        if (ptr >= maps[k].start && ptr - maps[k].start < maps[k].size) {
            *flags = maps[k].access[location->id];
            e = CUDA_SUCCESS;
        }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                        CUmemGenericAllocationHandle handle)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    Phys *p = phys_of(handle);
    if (p) *prop = p->prop;
    drv_unlock();
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    e = CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    for (size_t k = 0; k < nmaps; k++)
        if ((uint64_t)(uintptr_t)addr >= maps[k].start && (uint64_t)(uintptr_t)addr - maps[k].start < maps[k].size) {
            maps[k].p->refs++;
            *handle = (CUmemGenericAllocationHandle)(uintptr_t)maps[k].p;
            e = CUDA_SUCCESS;
            break;
        }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                              CUmemAllocationHandleType handleType, unsigned long long flags)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!shareableHandle || flags) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    Phys *p = phys_of(handle);
    if (!p || !(p->prop.requestedHandleTypes & handleType) ||
        handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        e = CUDA_ERROR_INVALID_VALUE;
    else if ((*(int *)shareableHandle = dup(p->fd)) < 0)
        e = CUDA_ERROR_OUT_OF_MEMORY;
    drv_unlock();
    return e;
}

/* The device an exported memfd belongs to, from its name ("/memfd:ptxemu-vmm-deviceN (deleted)");
 * -1 for any other file. */
static int memfd_device(int fd)
{
    char path[64], link[128];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0) return -1;
    link[n] = 0;
    const char *pre = "/memfd:" MEMFD_NAME;
    if (strncmp(link, pre, strlen(pre))) return -1;
    char *end;
    long d = strtol(link + strlen(pre), &end, 10);
    return end != link + strlen(pre) && d >= 0 && d < MAX_DEVICES ? (int)d : -1;
}

CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                CUmemAllocationHandleType shHandleType)
{
    CUresult e = enter();
    if (e != CUDA_SUCCESS) return e;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return shHandleType == CU_MEM_HANDLE_TYPE_NONE ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
    int fd = (int)(intptr_t)osHandle;
    struct stat st;
    int dev = fd >= 0 ? memfd_device(fd) : -1;
    /* measured: a descriptor that is not an exported allocation (-1, /dev/null) is
     * CUDA_ERROR_UNKNOWN */
    if (dev < 0 || fstat(fd, &st) || st.st_size <= 0 || st.st_size % GRAIN) return CUDA_ERROR_UNKNOWN;
    if (drv_device_check(dev) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
    int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (mine < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    CUmemAllocationProp prop = {
        .type = CU_MEM_ALLOCATION_TYPE_PINNED,
        .requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE,   /* measured: an import reports none */
        .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
    };
    if ((e = phys_new(mine, (size_t)st.st_size, &prop, handle)) != CUDA_SUCCESS) close(mine);
    return e;
}
