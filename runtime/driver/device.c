/* device.c - the emulated devices: PTXEMU_DEVICES identical H100 SXMs (sm_90), as cuDeviceGet*
 * report them, and the links between them.
 *
 * Every attribute answers what an H100 80GB HBM3 answered (device_attrs.def), except where
 * ptxemu does not provide the feature: then it is reported absent, so that programs take
 * their fallback path instead of failing later (the table `absent` below). The name is the
 * H100's, so programs print what they print on one; the UUIDs are ptxemu's own. Device 0 is
 * the recorded H100 exactly (PCI 0000:00:06.0); device k sits in the next slot of the same
 * bus, 0000:00:(06+k).0, as GPUs passed through to one virtual machine do (docs/devices.md).
 * Devices are linked as on an HGX H100 board: every pair through NVSwitch (peer access,
 * native atomics, arrays, the best performance rank).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"

#define DEVICE_NAME "NVIDIA H100 80GB HBM3"
/* Its memory, as the H100 reports it (cuDeviceTotalMem, tests/expected/cuda-samples/
 * deviceQueryDrv.out); the emulator's arena is larger. */
#define DEVICE_MEMORY 85017493504ull

static int device_count = 1;

/* PTXEMU_DEVICES: how many devices (1 to DRV_MAX_DEVICES). A bad value stops cuInit with a
 * message rather than silently emulating some other number of devices. */
/* The emulated device an ordinal names: CUDA_VISIBLE_DEVICES may hide and reorder them. */
static int physical[DRV_MAX_DEVICES] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* "ptxemu-sm90-dev" and the emulated device's number as one hex digit: device 0 keeps the
 * UUID it always had. */
static void emulated_uuid(int p, unsigned char out[16])
{
    memcpy(out, "ptxemu-sm90-dev", 15);
    out[15] = (unsigned char)"0123456789abcdef"[p & 15];
}

/* "GPU-70747865-6d75-..." for emulated device p, as CUDA prints UUIDs (nvidia-smi -L). */
static void uuid_text(int p, char *out, size_t n)
{
    unsigned char u[16];
    emulated_uuid(p, u);
    size_t k = (size_t)snprintf(out, n, "GPU-");
    for (int i = 0; i < 16 && k + 3 < n; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[k++] = '-';
        k += (size_t)snprintf(out + k, n - k, "%02x", u[i]);
    }
}

/* The device a CUDA_VISIBLE_DEVICES entry names among n: an index, or a UUID ("GPU-...", or
 * enough of its start to name one device); -1 for none. */
static int visible_entry(const char *tok, size_t len, int n)
{
    char buf[64];
    if (!len || len >= sizeof buf) return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (!strncmp(buf, "GPU-", 4)) {
        int found = -1;
        for (int p = 0; p < n; p++) {
            char u[64];
            uuid_text(p, u, sizeof u);
            if (!strncasecmp(u, buf, len)) {
                if (found >= 0) return -1;   /* the prefix names two devices */
                found = p;
            }
        }
        return found;
    }
    char *end;
    long v = strtol(buf, &end, 10);
    return *end || v < 0 || v >= n ? -1 : (int)v;
}

/* CUDA_VISIBLE_DEVICES, as CUDA reads it: the devices listed, in that order, up to the first
 * entry that names none (or one listed already); set and empty, no device at all. */
static int devices_visible(int n)
{
    const char *s = getenv("CUDA_VISIBLE_DEVICES");
    if (!s) return n;
    int count = 0;
    while (*s && count < n) {
        while (*s == ' ') s++;
        size_t len = strcspn(s, ",");
        while (len && s[len - 1] == ' ') len--;
        int p = visible_entry(s, len, n);
        for (int i = 0; i < count; i++) if (physical[i] == p) p = -1;
        if (p < 0) break;
        physical[count++] = p;
        s += strcspn(s, ",");
        if (*s == ',') s++;
    }
    return count;
}

int drv_devices_init(void)
{
    const char *s = getenv("PTXEMU_DEVICES");
    int n = 1;
    if (s && *s) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || *end || v < 1 || v > DRV_MAX_DEVICES) {
            drv_diag("PTXEMU_DEVICES=%s: expected the number of devices to emulate, an integer "
                     "from 1 to %d", s, DRV_MAX_DEVICES);
            return -1;
        }
        n = (int)v;
    }
    device_count = devices_visible(n);
    if (!device_count) {
        drv_diag("CUDA_VISIBLE_DEVICES=%s leaves none of the %d emulated devices visible",
                 getenv("CUDA_VISIBLE_DEVICES"), n);
        return -2;
    }
    return 0;
}

int drv_device_count(void)
{
    return device_count;
}

typedef struct Attr { int attr, value; } Attr;

static const Attr h100[] = {
#define A(n, v) { n, v },
#include "runtime/driver/device_attrs.def"
#undef A
};

/* Features ptxemu does not emulate (yet): the interop, fabric and RDMA families, stream
 * memory operations, sparse and deferred arrays, host memory pools. (Virtual memory
 * management is emulated; compression is granted and changes nothing.) */
static const Attr absent[] = {
    { CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS, 0 },
    { CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING, 0 },
    { CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED, 0 },
    { CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0 },
    { CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, 0 },
};

CUresult drv_device_check(CUdevice dev)
{
    return dev >= 0 && dev < device_count ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* The attributes that tell devices apart: the PCI slot, and the board group (each SXM
 * module is a board of its own; the H100 reported group 0 for its only device). */
static int device_own_attr(CUdevice dev, CUdevice_attribute attr, int *value)
{
    dev = physical[dev];
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value += dev; return 0;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: *value += dev; return 0;
    default: return 0;
    }
}

int drv_device_attr(CUdevice dev, CUdevice_attribute attr, int *value)
{
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
        if (absent[i].attr == (int)attr) { *value = absent[i].value; return 0; }
    for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++)
        if (h100[i].attr == (int)attr) {
            *value = h100[i].value;
            return device_own_attr(dev, attr, value);
        }
    return -1;
}

/* The UUID of the device an ordinal names (CUDA_VISIBLE_DEVICES may reorder them). */
void drv_device_uuid(CUdevice dev, unsigned char out[16])
{
    emulated_uuid(physical[dev], out);
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
    if (drv_device_check(ordinal) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;   /* a CUdevice is its ordinal */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = device_count;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", DEVICE_NAME);   /* identical devices, one name */
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    drv_device_uuid(dev, (unsigned char *)uuid->bytes);
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
    return drv_device_attr(dev, attrib, pi) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* An attribute every device has (the device is checked already). */
static int attr(CUdevice dev, CUdevice_attribute a)
{
    int v = 0;
    drv_device_attr(dev, a, &v);
    return v;
}

CUresult CUDAAPI cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    prop->maxThreadsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->sharedMemPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->totalConstantMemory = attr(dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->SIMDWidth = attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->regsPerBlock = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->clockRate = attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->textureAlign = attr(dev, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    *minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    return CUDA_SUCCESS;
}

/* "domain:bus:device.function" from the PCI attributes ("0000:00:06.0" for device 0). A
 * buffer too short for it gets what fits and CUDA_ERROR_INVALID_VALUE (measured). */
CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult e = dev_enter(dev);
    if (e != CUDA_SUCCESS) return e;
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    int n = snprintf(pciBusId, (size_t)len, "%04x:%02x:%02x.0",
                     attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                     attr(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                     attr(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
    return n < len ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* One hexadecimal field of a bus id ending at one of `stops`; NULL when malformed. */
static const char *hex_field(const char *p, const char *stops, unsigned *out)
{
    char *end;
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
        return NULL;
    errno = 0;
    unsigned long v = strtoul(p, &end, 16);
    if (errno || v > 0xffffffffu || !strchr(stops, *end)) return NULL;
    *out = (unsigned)v;
    return end;
}

/* "[domain:]bus:device[.function]", all hexadecimal, nothing after (measured on the H100:
 * "0000:00:06", "00:06.0" and "0:0:6.0" name device 0; trailing text is INVALID_VALUE). */
static int parse_bus_id(const char *s, unsigned f[4])
{
    unsigned v[4] = { 0, 0, 0, 0 };
    int n = 0;
    const char *p = s;
    while (n < 3 && (p = hex_field(p, ":.", &v[n])) && *p == ':') { n++; p++; }
    if (!p || n == 3) return -1;   /* malformed, or a fourth colon-separated field */
    n++;
    if (n < 2) return -1;
    if (*p == '.' && !(p = hex_field(p + 1, "", &v[3]))) return -1;
    if (*p) return -1;
    f[0] = n == 3 ? v[0] : 0;
    f[1] = v[n - 2];
    f[2] = v[n - 1];
    f[3] = v[3];
    return 0;
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!dev || !pciBusId) return CUDA_ERROR_INVALID_VALUE;
    unsigned f[4];
    if (parse_bus_id(pciBusId, f)) return CUDA_ERROR_INVALID_VALUE;
    for (CUdevice d = 0; d < device_count; d++)
        if ((int)f[0] == attr(d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) &&
            (int)f[1] == attr(d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) &&
            (int)f[2] == attr(d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) && f[3] == 0) {
            *dev = d;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_DEVICE;
}

/* Every pair of distinct devices is linked through NVSwitch; a device is not its own peer
 * (measured: 0 for (0, 0)). */
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    CUresult e = dev_enter(dev);
    if (e == CUDA_SUCCESS) e = drv_device_check(peerDev);
    if (e != CUDA_SUCCESS) return e;
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = dev != peerDev;
    return CUDA_SUCCESS;
}

/* The NVLink/NVSwitch link of an HGX H100 (chosen, docs/devices.md): peer access, all
 * atomics natively, CUDA arrays, and rank 0, "the most performant link", for every pair. */
static int p2p_value(CUdevice_P2PAttribute a, int *value)
{
    switch (a) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; return 0;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED: *value = 1; return 0;
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED: *value = 1; return 0;
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 1; return 0;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; return 0;
    default: return -1;
    }
}

/* Order of the checks as measured: a null value before a device that is its own peer, which
 * comes before an unknown attribute. */
CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                         CUdevice dstDevice)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    CUresult e = drv_device_check(srcDevice);
    if (e == CUDA_SUCCESS) e = drv_device_check(dstDevice);
    if (e != CUDA_SUCCESS) return e;
    if (srcDevice == dstDevice) return CUDA_ERROR_INVALID_DEVICE;
    return p2p_value(attrib, value) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
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
    *maxWidthInElements = (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
    return CUDA_SUCCESS;
}
