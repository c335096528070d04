// device_props.cu - the device as the runtime shows it: every field of cudaDeviceProp, the
// device count, and the runtime's device-identity and peer calls on a machine with ONE GPU
// (bad ordinals, a device as its own peer, PCI bus ids, peer copies within the device).
// Prints only deterministic lines: the UUID is reported as set or not (ptxemu's is its own),
// memory as the total the device reports. The expected output was recorded on an H100
// (tests/expected/cuda/); runs in both passes (ptxemu's libcudart and NVIDIA's static one).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static void show(const char *what, cudaError_t e)
{
    printf("%s: %s\n", what, cudaGetErrorName(e));
    cudaGetLastError();
}

// Features ptxemu reports absent on purpose (runtime/driver/device.c) are not printed:
// sparseCudaArraySupported, timelineSemaphoreInteropSupported, gpuDirectRDMASupported,
// gpuDirectRDMAFlushWritesOptions, gpuDirectRDMAWritesOrdering,
// memoryPoolSupportedHandleTypes, deferredMappingCudaArraySupported, ipcEventSupported.
#define P(f) printf("prop.%s = %lld\n", #f, (long long)p.f)
#define PA(f, n) \
    for (int i_ = 0; i_ < (n); i_++) printf("prop.%s[%d] = %lld\n", #f, i_, (long long)p.f[i_])

static void print_props(const cudaDeviceProp &p)
{
    printf("prop.name = %s\n", p.name);
    int uuid_set = 0;
    for (int i = 0; i < 16; i++) uuid_set |= p.uuid.bytes[i] != 0;
    printf("prop.uuid set = %d\n", uuid_set);
    int luid_set = 0;
    for (int i = 0; i < 8; i++) luid_set |= p.luid[i] != 0;
    printf("prop.luid set = %d\n", luid_set);
    P(luidDeviceNodeMask); P(totalGlobalMem); P(sharedMemPerBlock); P(regsPerBlock);
    P(warpSize); P(memPitch); P(maxThreadsPerBlock); PA(maxThreadsDim, 3); PA(maxGridSize, 3);
    P(totalConstMem); P(major); P(minor); P(textureAlignment); P(texturePitchAlignment);
    P(multiProcessorCount); P(integrated); P(canMapHostMemory); P(maxTexture1D);
    P(maxTexture1DMipmap); PA(maxTexture2D, 2); PA(maxTexture2DMipmap, 2);
    PA(maxTexture2DLinear, 3); PA(maxTexture2DGather, 2); PA(maxTexture3D, 3);
    PA(maxTexture3DAlt, 3); P(maxTextureCubemap); PA(maxTexture1DLayered, 2);
    PA(maxTexture2DLayered, 3); PA(maxTextureCubemapLayered, 2); P(maxSurface1D);
    PA(maxSurface2D, 2); PA(maxSurface3D, 3); PA(maxSurface1DLayered, 2);
    PA(maxSurface2DLayered, 3); P(maxSurfaceCubemap); PA(maxSurfaceCubemapLayered, 2);
    P(surfaceAlignment); P(concurrentKernels); P(ECCEnabled); P(pciBusID); P(pciDeviceID);
    P(pciDomainID); P(tccDriver); P(asyncEngineCount); P(unifiedAddressing); P(memoryBusWidth);
    P(l2CacheSize); P(persistingL2CacheMaxSize); P(maxThreadsPerMultiProcessor);
    P(streamPrioritiesSupported); P(globalL1CacheSupported); P(localL1CacheSupported);
    P(sharedMemPerMultiprocessor); P(regsPerMultiprocessor); P(managedMemory);
    P(isMultiGpuBoard); P(multiGpuBoardGroupID); P(hostNativeAtomicSupported);
    P(pageableMemoryAccess); P(concurrentManagedAccess); P(computePreemptionSupported);
    P(canUseHostPointerForRegisteredMem); P(cooperativeLaunch); P(sharedMemPerBlockOptin);
    P(pageableMemoryAccessUsesHostPageTables); P(directManagedMemAccessFromHost);
    P(maxBlocksPerMultiProcessor); P(accessPolicyMaxWindowSize); P(reservedSharedMemPerBlock);
    P(hostRegisterSupported); P(hostRegisterReadOnlySupported);
    P(memoryPoolsSupported);
   
   
    P(clusterLaunch); P(unifiedFunctionPointers); P(deviceNumaConfig);
    P(deviceNumaId); P(mpsEnabled); P(hostNumaId); P(gpuPciDeviceID); P(gpuPciSubsystemID);
    P(hostNumaMultinodeIpcSupported);
    for (int i = 0; i < 56; i++)
        if (p.reserved[i]) printf("prop.reserved[%d] = %d\n", i, p.reserved[i]);
}

static void identity(void)
{
    int n = -1, d = -1;
    show("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    printf("count = %d\n", n);
    show("cudaSetDevice(1)", cudaSetDevice(1));
    show("cudaSetDevice(-1)", cudaSetDevice(-1));
    show("cudaGetDevice", cudaGetDevice(&d));
    printf("device = %d\n", d);
    cudaDeviceProp p;
    show("cudaGetDeviceProperties(1)", cudaGetDeviceProperties(&p, 1));
    show("cudaGetDeviceProperties(-1)", cudaGetDeviceProperties(&p, -1));
    int v = -7;
    show("cudaDeviceGetAttribute(1)", cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 1));
    char bus[64];
    memset(bus, 'x', sizeof bus);
    show("cudaDeviceGetPCIBusId(64)", cudaDeviceGetPCIBusId(bus, 64, 0));
    printf("bus id = %.20s\n", bus);
    memset(bus, 'x', sizeof bus);
    show("cudaDeviceGetPCIBusId(5)", cudaDeviceGetPCIBusId(bus, 5, 0));
    printf("bus id (5) = %.4s, terminated = %d\n", bus, bus[4] == 0);
    show("cudaDeviceGetPCIBusId(len 0)", cudaDeviceGetPCIBusId(bus, 0, 0));
    show("cudaDeviceGetPCIBusId(device 1)", cudaDeviceGetPCIBusId(bus, 64, 1));
    static const char *ids[] = { "0000:00:06.0", "00:06.0", "0000:00:06", "0:0:6.0",
                                 "0000:00:06.1", "0000:00:07.0", "0001:00:06.0", "garbage",
                                 "", "0000:00:06.0junk", "0000:00:6.0" };
    for (const char *id : ids) {
        d = -1;
        cudaError_t e = cudaDeviceGetByPCIBusId(&d, id);
        printf("cudaDeviceGetByPCIBusId(\"%s\"): %s device=%d\n", id, cudaGetErrorName(e), d);
        cudaGetLastError();
    }
}

static void peers(void)
{
    int v = -7;
    show("cudaDeviceCanAccessPeer(0,0)", cudaDeviceCanAccessPeer(&v, 0, 0));
    printf("can = %d\n", v);
    show("cudaDeviceCanAccessPeer(0,1)", cudaDeviceCanAccessPeer(&v, 0, 1));
    show("cudaDeviceCanAccessPeer(1,0)", cudaDeviceCanAccessPeer(&v, 1, 0));
    show("cudaDeviceEnablePeerAccess(0,0)", cudaDeviceEnablePeerAccess(0, 0));
    show("cudaDeviceEnablePeerAccess(0,1)", cudaDeviceEnablePeerAccess(0, 1));
    show("cudaDeviceEnablePeerAccess(1,0)", cudaDeviceEnablePeerAccess(1, 0));
    show("cudaDeviceDisablePeerAccess(0)", cudaDeviceDisablePeerAccess(0));
    show("cudaDeviceDisablePeerAccess(1)", cudaDeviceDisablePeerAccess(1));
    for (int a = 0; a <= 6; a++) {
        v = -7;
        cudaError_t e = cudaDeviceGetP2PAttribute(&v, (cudaDeviceP2PAttr)a, 0, 0);
        printf("cudaDeviceGetP2PAttribute(%d,0,0): %s value=%d\n", a, cudaGetErrorName(e), v);
        cudaGetLastError();
    }
    show("cudaDeviceGetP2PAttribute(1,0,1)",
         cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, 0, 1));
}

static void peer_copies(void)
{
    int host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = i * 7;
    int *a = 0, *b = 0;
    cudaMalloc(&a, sizeof host);
    cudaMalloc(&b, sizeof host);
    cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice);
    cudaMemset(b, 0, sizeof host);
    show("cudaMemcpyPeer(0->0)", cudaMemcpyPeer(b, 0, a, 0, sizeof host));
    cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost);
    printf("peer copy same = %d\n", !memcmp(host, back, sizeof host));
    show("cudaMemcpyPeer(size 0)", cudaMemcpyPeer(b, 0, a, 0, 0));
    show("cudaMemcpyPeer(dst device 1)", cudaMemcpyPeer(b, 1, a, 0, sizeof host));
    show("cudaMemcpyPeer(src device -1)", cudaMemcpyPeer(b, 0, a, -1, sizeof host));
    show("cudaMemcpyPeerAsync(0->0)", cudaMemcpyPeerAsync(b, 0, a, 0, sizeof host, 0));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());

    // 8 rows of 8 ints as a 3D copy (2 slices of 4 rows) within device 0
    cudaMemset(b, 0, sizeof host);
    cudaMemcpy3DPeerParms q;
    memset(&q, 0, sizeof q);
    q.srcPtr = make_cudaPitchedPtr(a, 8 * sizeof(int), 8, 4);
    q.dstPtr = make_cudaPitchedPtr(b, 8 * sizeof(int), 8, 4);
    q.srcDevice = 0;
    q.dstDevice = 0;
    q.extent = make_cudaExtent(8 * sizeof(int), 4, 2);
    show("cudaMemcpy3DPeer(0->0)", cudaMemcpy3DPeer(&q));
    cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost);
    printf("3D peer copy same = %d\n", !memcmp(host, back, sizeof host));
    show("cudaMemcpy3DPeerAsync(0->0)", cudaMemcpy3DPeerAsync(&q, 0));
    q.dstDevice = 1;
    show("cudaMemcpy3DPeer(dst device 1)", cudaMemcpy3DPeer(&q));
    show("cudaMemcpy3DPeer(NULL)", cudaMemcpy3DPeer(NULL));

    cudaPointerAttributes pa;
    show("cudaPointerGetAttributes(device)", cudaPointerGetAttributes(&pa, a));
    printf("type = %d device = %d\n", (int)pa.type, pa.device);
    cudaFree(a);
    cudaFree(b);
}

int main()
{
    cudaDeviceProp p;
    memset(&p, 0x55, sizeof p);
    show("cudaGetDeviceProperties(0)", cudaGetDeviceProperties(&p, 0));
    print_props(p);
    identity();
    peers();
    peer_copies();
    show("cudaGetLastError", cudaGetLastError());
    return 0;
}
