// device_driver.cu - devices, primary contexts and peer access through the driver API on a
// machine with ONE GPU: bad ordinals everywhere, a device or context as its own peer, PCI bus
// ids both ways, peer copies within the device, pointer attributes naming the device and the
// context. Built with device_driver.flags (the default build plus -lcuda). Prints only
// deterministic lines; the expected output was recorded on an H100 (tests/expected/cuda/).
#include <cstdio>
#include <cstring>
#include <cuda.h>

static void show(const char *what, CUresult e)
{
    const char *name = NULL;
    cuGetErrorName(e, &name);
    printf("%s: %s\n", what, name ? name : "?");
}

static void ordinals(void)
{
    int n = -1, v = -7;
    CUdevice d = -1;
    char name[128];
    size_t bytes = 0;
    CUuuid u;
    CUcontext c = NULL;
    show("cuDeviceGetCount", cuDeviceGetCount(&n));
    printf("count = %d\n", n);
    show("cuDeviceGet(1)", cuDeviceGet(&d, 1));
    show("cuDeviceGet(-1)", cuDeviceGet(&d, -1));
    show("cuDeviceGetName(1)", cuDeviceGetName(name, sizeof name, 1));
    show("cuDeviceGetAttribute(1)", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1));
    show("cuDeviceTotalMem(1)", cuDeviceTotalMem(&bytes, 1));
    show("cuDeviceGetUuid(1)", cuDeviceGetUuid(&u, 1));
    show("cuDevicePrimaryCtxRetain(1)", cuDevicePrimaryCtxRetain(&c, 1));
    show("cuCtxCreate(1)", cuCtxCreate(&c, NULL, 0, 1));
    show("cuDeviceCanAccessPeer(0,0)", cuDeviceCanAccessPeer(&v, 0, 0));
    printf("can = %d\n", v);
    show("cuDeviceCanAccessPeer(0,1)", cuDeviceCanAccessPeer(&v, 0, 1));
    for (int a = 0; a <= 6; a++) {
        v = -7;
        CUresult e = cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)a, 0, 0);
        const char *en = NULL;
        cuGetErrorName(e, &en);
        printf("cuDeviceGetP2PAttribute(%d,0,0): %s value=%d\n", a, en, v);
    }
    show("cuDeviceGetP2PAttribute(1,0,1)",
         cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1));
}

static void bus_ids(void)
{
    char bus[64];
    memset(bus, 'x', sizeof bus);
    show("cuDeviceGetPCIBusId(64)", cuDeviceGetPCIBusId(bus, 64, 0));
    printf("bus id = %.20s\n", bus);
    memset(bus, 'x', sizeof bus);
    show("cuDeviceGetPCIBusId(5)", cuDeviceGetPCIBusId(bus, 5, 0));
    printf("bus id (5) = %.4s, terminated = %d\n", bus, bus[4] == 0);
    static const char *ids[] = { "0000:00:06.0", "00:06.0", "0000:00:06", "0000:00:06.1",
                                 "0000:00:07.0", "garbage", "", "0000:00:06.0junk" };
    for (const char *id : ids) {
        CUdevice d = -1;
        CUresult e = cuDeviceGetByPCIBusId(&d, id);
        const char *en = NULL;
        cuGetErrorName(e, &en);
        printf("cuDeviceGetByPCIBusId(\"%s\"): %s device=%d\n", id, en, (int)d);
    }
}

static void peer_contexts(CUcontext primary)
{
    show("cuCtxEnablePeerAccess(self)", cuCtxEnablePeerAccess(primary, 0));
    show("cuCtxEnablePeerAccess(self, flags 1)", cuCtxEnablePeerAccess(primary, 1));
    show("cuCtxDisablePeerAccess(self)", cuCtxDisablePeerAccess(primary));
    CUcontext other = NULL;
    show("cuCtxCreate(0)", cuCtxCreate(&other, NULL, 0, 0));
    show("cuCtxEnablePeerAccess(same device)", cuCtxEnablePeerAccess(primary, 0));
    show("cuCtxDisablePeerAccess(same device)", cuCtxDisablePeerAccess(primary));
    CUdevice d = -1;
    show("cuCtxGetDevice(created)", cuCtxGetDevice(&d));
    printf("device = %d\n", (int)d);
    CUcontext popped = NULL;
    show("cuCtxPopCurrent", cuCtxPopCurrent(&popped));
    printf("popped the created context = %d\n", popped == other);
    show("cuCtxDestroy", cuCtxDestroy(other));
}

static void copies_and_pointers(CUcontext primary)
{
    int host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = i * 5 + 1;
    CUdeviceptr a = 0, b = 0;
    cuMemAlloc(&a, sizeof host);
    cuMemAlloc(&b, sizeof host);
    cuMemcpyHtoD(a, host, sizeof host);
    cuMemsetD8(b, 0, sizeof host);
    show("cuMemcpyPeer", cuMemcpyPeer(b, primary, a, primary, sizeof host));
    cuMemcpyDtoH(back, b, sizeof back);
    printf("peer copy same = %d\n", !memcmp(host, back, sizeof host));
    show("cuMemcpyPeerAsync", cuMemcpyPeerAsync(b, primary, a, primary, sizeof host, 0));
    cuMemsetD8(b, 0, sizeof host);
    CUDA_MEMCPY3D_PEER q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    q.srcDevice = a;
    q.srcPitch = 32;
    q.srcHeight = 4;
    q.srcContext = primary;
    q.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    q.dstDevice = b;
    q.dstPitch = 32;
    q.dstHeight = 4;
    q.dstContext = primary;
    q.WidthInBytes = 32;
    q.Height = 4;
    q.Depth = 2;
    show("cuMemcpy3DPeer", cuMemcpy3DPeer(&q));
    cuMemcpyDtoH(back, b, sizeof back);
    printf("3D peer copy same = %d\n", !memcmp(host, back, sizeof host));
    show("cuMemcpy3DPeerAsync", cuMemcpy3DPeerAsync(&q, 0));
    show("cuCtxSynchronize", cuCtxSynchronize());

    void *pinned = NULL;
    CUdeviceptr managed = 0;
    cuMemAllocHost(&pinned, 256);
    cuMemAllocManaged(&managed, 256, CU_MEM_ATTACH_GLOBAL);
    static int plain[16];
    const struct { const char *what; CUdeviceptr p; } ptrs[] = {
        { "device", a }, { "pinned", (CUdeviceptr)pinned }, { "managed", managed },
        { "unregistered host", (CUdeviceptr)plain },
    };
    for (const auto &t : ptrs) {
        int ord = -7;
        CUcontext ctx = NULL;
        CUresult e1 = cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, t.p);
        CUresult e2 = cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, t.p);
        const char *n1 = NULL, *n2 = NULL;
        cuGetErrorName(e1, &n1);
        cuGetErrorName(e2, &n2);
        printf("%s: ordinal %s %d, context %s is primary %d\n", t.what, n1, ord, n2, ctx == primary);
        CUpointer_attribute at[2] = { CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT };
        ord = -7;
        ctx = (CUcontext)&ord;
        void *data[2] = { &ord, &ctx };
        CUresult e3 = cuPointerGetAttributes(2, at, data, t.p);
        cuGetErrorName(e3, &n1);
        printf("%s: attributes %s ordinal %d, context is primary %d, null %d\n", t.what, n1, ord,
               ctx == primary, ctx == NULL);
    }
    size_t fr = 0, tot = 0;
    show("cuMemGetInfo", cuMemGetInfo(&fr, &tot));
    printf("total = %zu, free < total = %d\n", tot, fr < tot);
    cuMemFreeHost(pinned);
    cuMemFree(managed);
    cuMemFree(a);
    cuMemFree(b);
}

int main()
{
    setvbuf(stdout, NULL, _IONBF, 0);
    show("cuInit", cuInit(0));
    ordinals();
    bus_ids();
    CUcontext primary = NULL;
    show("cuDevicePrimaryCtxRetain(0)", cuDevicePrimaryCtxRetain(&primary, 0));
    show("cuCtxSetCurrent", cuCtxSetCurrent(primary));
    peer_contexts(primary);
    copies_and_pointers(primary);
    show("cuDevicePrimaryCtxRelease(0)", cuDevicePrimaryCtxRelease(0));
    return 0;
}
