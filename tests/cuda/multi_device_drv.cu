// multi_device_drv.cu - four devices through the driver API (run with PTXEMU_DEVICES=4, see
// multi_device_drv.env; built with multi_device_drv.flags, the default build plus -lcuda):
// ordinals, names, UUIDs and PCI bus ids both ways, one primary context per device (its own
// state and flags), created contexts on any device (cuCtxGetDevice, limits and cache
// configuration kept per context), memory tagged with its device and context (pointer
// attributes, cuMemGetInfo), peer access between contexts with every error (already enabled,
// not enabled, same device, flags, a null peer), peer copies, and a module's kernel on device 0
// touching device 1's memory: with peer access it works, without it the context faults.
//
// NOT RECORDED ON A GPU: the device machine has one H100. The expected output
// (tests/expected/cuda/multi_device_drv.0.out) is derived from the one-device recording
// (tests/cuda/device_driver.cu: the errors for a context of the same device, for bad
// ordinals, pointer attributes) and the semantics of four NVLink-connected H100s
// (docs/devices.md).
#include <cstdio>
#include <cstring>
#include <cuda.h>

#define NDEV 4

static void show(const char *what, CUresult e)
{
    const char *name = NULL;
    cuGetErrorName(e, &name);
    printf("%s: %s\n", what, name ? name : "?");
}

// out[0] = in[0] + 1
static const char *ptx =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry inc(.param .u64 in, .param .u64 out)\n{\n"
    "  .reg .u64 %rd<3>;\n  .reg .u32 %r<3>;\n"
    "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
    "  ld.global.u32 %r1, [%rd1];\n  add.u32 %r2, %r1, 1;\n  st.global.u32 [%rd2], %r2;\n"
    "  ret;\n}\n";

static void identity(void)
{
    int n = -1;
    show("cuDeviceGetCount", cuDeviceGetCount(&n));
    printf("count = %d\n", n);
    CUuuid u[NDEV];
    for (int d = 0; d < NDEV; d++) {
        CUdevice dev = -1, back = -1;
        char name[128] = "", bus[32] = "";
        cuDeviceGet(&dev, d);
        cuDeviceGetName(name, sizeof name, dev);
        cuDeviceGetUuid(&u[d], dev);
        cuDeviceGetPCIBusId(bus, sizeof bus, dev);
        cuDeviceGetByPCIBusId(&back, bus);
        int pci = -1, group = -1;
        cuDeviceGetAttribute(&pci, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
        cuDeviceGetAttribute(&group, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, dev);
        printf("device %d: %d %s %s -> %d, pci device %d, board group %d\n", d, (int)dev, name,
               bus, (int)back, pci, group);
    }
    int distinct = 1;
    for (int a = 0; a < NDEV; a++)
        for (int b = a + 1; b < NDEV; b++) distinct &= memcmp(&u[a], &u[b], sizeof u[a]) != 0;
    printf("uuids distinct = %d\n", distinct);
    CUdevice dev;
    show("cuDeviceGet(4)", cuDeviceGet(&dev, 4));
    CUcontext c;
    show("cuDevicePrimaryCtxRetain(4)", cuDevicePrimaryCtxRetain(&c, 4));
    show("cuCtxCreate(4)", cuCtxCreate(&c, NULL, 0, 4));
    show("cuDeviceGetByPCIBusId(00:0a.0)", cuDeviceGetByPCIBusId(&dev, "00:0a.0"));
    show("cuDeviceGetByPCIBusId(0000:00:09.1)", cuDeviceGetByPCIBusId(&dev, "0000:00:09.1"));
    show("cuDeviceGetByPCIBusId(1:2:3:4)", cuDeviceGetByPCIBusId(&dev, "1:2:3:4"));
}

static void primaries(CUcontext p[NDEV])
{
    for (int d = 0; d < NDEV; d++) cuDevicePrimaryCtxRetain(&p[d], d);
    int distinct = 1;
    for (int a = 0; a < NDEV; a++)
        for (int b = a + 1; b < NDEV; b++) distinct &= p[a] != p[b];
    printf("primary contexts distinct = %d\n", distinct);
    show("cuDevicePrimaryCtxSetFlags(2, BLOCKING_SYNC)",
         cuDevicePrimaryCtxSetFlags(2, CU_CTX_SCHED_BLOCKING_SYNC));
    for (int d = 0; d < NDEV; d++) {
        unsigned flags = 99;
        int active = -1;
        cuDevicePrimaryCtxGetState(d, &flags, &active);
        CUdevice cd = -1;
        cuCtxSetCurrent(p[d]);
        cuCtxGetDevice(&cd);
        printf("primary %d: flags %u active %d, cuCtxGetDevice %d\n", d, flags, active, (int)cd);
    }
    cuDevicePrimaryCtxRelease(3);
    unsigned flags;
    int active = -1;
    cuDevicePrimaryCtxGetState(3, &flags, &active);
    printf("primary 3 after release: active %d\n", active);
    cuDevicePrimaryCtxRetain(&p[3], 3);
}

static void created_contexts(CUcontext p[NDEV])
{
    CUcontext c2 = NULL;
    show("cuCtxCreate(2)", cuCtxCreate(&c2, NULL, 0, 2));
    CUdevice d = -1;
    cuCtxGetDevice(&d);
    printf("created context on device %d\n", (int)d);
    cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED);
    cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 1 << 20);
    CUdeviceptr m = 0;
    cuMemAlloc(&m, 1024);
    int ord = -1;
    CUcontext owner = NULL;
    cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, m);
    cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, m);
    printf("memory of the created context: device %d, its context %d\n", ord, owner == c2);
    cuCtxSetCurrent(p[2]);
    CUfunc_cache cc = CU_FUNC_CACHE_PREFER_EQUAL;
    size_t fifo = 0;
    cuCtxGetCacheConfig(&cc);
    cuCtxGetLimit(&fifo, CU_LIMIT_PRINTF_FIFO_SIZE);
    printf("device 2's primary context keeps its own: cache %d, printf fifo %zu\n", (int)cc, fifo);
    show("enable from device 2's primary to the created context of device 2",
         cuCtxEnablePeerAccess(c2, 0));
    cuCtxSetCurrent(p[0]);
    show("enable 0 -> created context of device 2", cuCtxEnablePeerAccess(c2, 0));
    show("cuCtxDestroy(created)", cuCtxDestroy(c2));   // the peer pair goes with it
}

static void memory(CUcontext p[NDEV], CUdeviceptr buf[NDEV])
{
    for (int d = 0; d < NDEV; d++) {
        cuCtxSetCurrent(p[d]);
        cuMemAlloc(&buf[d], 256 * sizeof(unsigned));
        cuMemsetD32(buf[d], 100 * (d + 1), 256);
        int ord = -1;
        CUcontext owner = NULL;
        CUpointer_attribute at[2] = { CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT };
        void *data[2] = { &ord, &owner };
        cuPointerGetAttributes(2, at, data, buf[d]);
        printf("buffer %d: device %d, primary context of its device %d\n", d, ord, owner == p[d]);
    }
    size_t f0a, f0b, f1a, f1b, t;
    cuCtxSetCurrent(p[0]);
    cuMemGetInfo(&f0a, &t);
    cuCtxSetCurrent(p[1]);
    cuMemGetInfo(&f1a, &t);
    CUdeviceptr big = 0;
    cuMemAlloc(&big, 512u << 20);
    cuMemGetInfo(&f1b, &t);
    cuCtxSetCurrent(p[0]);
    cuMemGetInfo(&f0b, &t);
    printf("512 MiB on device 1: its free memory fell by that %d, device 0's unchanged %d\n",
           f1a - f1b == (512u << 20), f0a == f0b);
    cuCtxSetCurrent(p[1]);
    cuMemFree(big);
}

static void peers(CUcontext p[NDEV], CUdeviceptr buf[NDEV])
{
    int v = -1;
    show("cuDeviceCanAccessPeer(1,3)", cuDeviceCanAccessPeer(&v, 1, 3));
    printf("can = %d\n", v);
    show("cuDeviceGetP2PAttribute(NATIVE_ATOMIC, 3, 1)",
         cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 3, 1));
    printf("value = %d\n", v);
    show("cuDeviceGetP2PAttribute(99, 3, 1)", cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)99, 3, 1));
    cuCtxSetCurrent(p[0]);
    show("enable 0 -> 1", cuCtxEnablePeerAccess(p[1], 0));
    show("enable 0 -> 1 again", cuCtxEnablePeerAccess(p[1], 0));
    show("enable 0 -> 0", cuCtxEnablePeerAccess(p[0], 0));
    show("enable 0 -> NULL", cuCtxEnablePeerAccess(NULL, 0));
    show("enable 0 -> 2, flags 1", cuCtxEnablePeerAccess(p[2], 1));
    show("disable 0 -> 2", cuCtxDisablePeerAccess(p[2]));

    unsigned host[256];
    show("cuMemcpyPeer 3 <- 2", cuMemcpyPeer(buf[3], p[3], buf[2], p[2], sizeof host));
    cuMemcpyDtoH(host, buf[3], sizeof host);
    printf("device 3 now holds %u .. %u\n", host[0], host[255]);
    CUDA_MEMCPY3D_PEER q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = q.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    q.srcDevice = buf[1];
    q.dstDevice = buf[3];
    q.srcContext = p[1];
    q.dstContext = p[3];
    q.srcPitch = q.dstPitch = 64;
    q.srcHeight = q.dstHeight = 4;
    q.WidthInBytes = 32;
    q.Height = 2;
    q.Depth = 2;
    show("cuMemcpy3DPeer 3 <- 1", cuMemcpy3DPeer(&q));
    cuMemcpyDtoH(host, buf[3], sizeof host);
    printf("device 3 rows: %u %u %u %u %u\n", host[0], host[8], host[16], host[32], host[64]);
}

static void kernels(CUcontext p[NDEV], CUdeviceptr buf[NDEV])
{
    cuCtxSetCurrent(p[0]);
    CUmodule mod;
    CUfunction inc;
    show("cuModuleLoadData", cuModuleLoadData(&mod, ptx));
    cuModuleGetFunction(&inc, mod, "inc");
    void *args[2] = { &buf[1], &buf[0] };
    show("launch on 0 reading device 1 (peer access on)", cuLaunchKernel(inc, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    show("cuCtxSynchronize", cuCtxSynchronize());
    unsigned v = 0;
    cuMemcpyDtoH(&v, buf[0], sizeof v);
    printf("device 0 got %u\n", v);
    show("disable 0 -> 1", cuCtxDisablePeerAccess(p[1]));
    show("disable 0 -> 1 again", cuCtxDisablePeerAccess(p[1]));
    show("launch on 0 reading device 1 (peer access off)", cuLaunchKernel(inc, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    show("cuCtxSynchronize", cuCtxSynchronize());
    cuCtxSetCurrent(p[1]);
    show("device 1 is unaffected", cuCtxSynchronize());
    show("cuDevicePrimaryCtxReset(0)", cuDevicePrimaryCtxReset(0));
    cuDevicePrimaryCtxRetain(&p[0], 0);
    cuCtxSetCurrent(p[0]);
    show("device 0 after its reset", cuCtxSynchronize());
}

int main()
{
    setvbuf(stdout, NULL, _IONBF, 0);
    show("cuInit", cuInit(0));
    CUcontext p[NDEV];
    CUdeviceptr buf[NDEV];
    identity();
    primaries(p);
    created_contexts(p);
    memory(p, buf);
    peers(p, buf);
    kernels(p, buf);
    for (int d = 0; d < NDEV; d++) cuDevicePrimaryCtxRelease(d);
    return 0;
}
