/* device.c - the one emulated device: an H100 SXM (sm_90) as cuDeviceGet* report it.
 *
 * Every attribute answers what an H100 80GB HBM3 answered (device_attrs.def), except where
 * ptxemu does not provide the feature: then it is reported absent, so that programs take
 * their fallback path instead of failing later (the table `absent` below). The name is the
 * H100's, so programs print what they print on one; the UUID is ptxemu's own.
 */
#include <stdio.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"

#define DEVICE_NAME "NVIDIA H100 80GB HBM3"
/* Its memory, as the H100 reports it (cuDeviceTotalMem, tests/expected/cuda-samples/
 * deviceQueryDrv.out); the emulator's arena is larger. */
#define DEVICE_MEMORY 85017493504ull

typedef struct Attr { int attr, value; } Attr;

static const Attr h100[] = {
#define A(n, v) { n, v },
#include "runtime/driver/device_attrs.def"
#undef A
};

/* Features ptxemu does not emulate (yet): virtual memory management
 * and the interop, IPC and RDMA families, stream memory operations, sparse and deferred
 * arrays, compression, host memory pools. */
static const Attr absent[] = {
    { CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 0 },
    { CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0 },
    { CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, 0 },
};

CUresult drv_device_check(CUdevice dev)
{
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

int drv_device_attr(CUdevice_attribute attr, int *value)
{
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        if (absent[i].attr == (int)attr) { *value = absent[i].value; return 0; }
    for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++)
        if (h100[i].attr == (int)attr) { *value = h100[i].value; return 0; }
    return -1;
}

void drv_device_uuid(unsigned char out[16])
{
    memcpy(out, "ptxemu-sm90-dev0", 16);
}

/* Calls about the device need cuInit, then a valid ordinal. */
static CUresult dev_enter(CUdevice dev)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    return drv_device_check(dev);
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", DEVICE_NAME);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    drv_device_uuid((unsigned char *)uuid->bytes);
    return CUDA_SUCCESS;
}

#undef cuDeviceGetUuid
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* The LUID identifies adapters on Windows; Linux drivers report it as unsupported. */
CUresult CUDAAPI cuDeviceGetLuid(char *luid, unsigned int *deviceNodeMask, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    (void)luid; (void)deviceNodeMask;
    return CUDA_ERROR_NOT_SUPPORTED;
}

size_t drv_device_memory(void)
{
    size_t used = 0, total = 0;
    mem_usage(&used, &total);
    return total < DEVICE_MEMORY ? total : (size_t)DEVICE_MEMORY;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    *bytes = drv_device_memory();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    return drv_device_attr(attrib, pi) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static int attr(CUdevice_attribute a)
{
    int v = 0;
    drv_device_attr(a, &v);
    return v;
}

CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    prop->maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->sharedMemPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->totalConstantMemory = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->SIMDWidth = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->clockRate = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->textureAlign = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    *minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    return CUDA_SUCCESS;
}

/* "domain:bus:device.function", from the PCI attributes ("0000:00:06.0" on the H100). */
CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0", attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
             attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!dev || !pciBusId) return CUDA_ERROR_INVALID_VALUE;
    unsigned dom = 0, bus = 0, d = 0, fn = 0;
    int n = sscanf(pciBusId, "%x:%x:%x.%x", &dom, &bus, &d, &fn);
    if (n < 3) {
        dom = 0;
        n = sscanf(pciBusId, "%x:%x.%x", &bus, &d, &fn) + 1;
    }
    if (n < 3) return CUDA_ERROR_INVALID_VALUE;
    if ((int)dom != attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) ||
        (int)bus != attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) ||
        (int)d != attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID))
        return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

/* One device: no peer to access. */
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult e = dev_enter(dev);
    if (e == CUDA_SUCCESS) e = drv_device_check(peerDev);
    if (e != CUDA_SUCCESS) return e;
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                         CUdevice dstDevice)
{
    CUresult e = dev_enter(srcDevice);
    if (e == CUDA_SUCCESS) e = drv_device_check(dstDevice);
    if (e != CUDA_SUCCESS) return e;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    (void)attrib;
    return CUDA_ERROR_INVALID_DEVICE;   /* a device is not its own peer */
}

/* Elements of a 1D linear texture: the H100's width limit (in elements). */
CUresult CUDAAPI cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, CUarray_format format,
                                                    unsigned numChannels, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!maxWidthInElements || (numChannels != 1 && numChannels != 2 && numChannels != 4))
        return CUDA_ERROR_INVALID_VALUE;
    (void)format;
    *maxWidthInElements = (size_t)attr(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
    return CUDA_SUCCESS;
}
