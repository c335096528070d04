// what the H100's driver does with null pointers and null contexts (one call per process)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    int k = atoi(argv[1]);
    cuInit(0);
    CUcontext c; cuDevicePrimaryCtxRetain(&c, 0); cuCtxSetCurrent(c);
    CUdeviceptr a, b; cuMemAlloc(&a, 256); cuMemAlloc(&b, 256);
    CUdevice d = -1; CUresult e = CUDA_SUCCESS;
    CUDA_MEMCPY3D_PEER q; memset(&q, 0, sizeof q);
    q.srcMemoryType = q.dstMemoryType = CU_MEMORYTYPE_DEVICE; q.srcDevice = a; q.dstDevice = b;
    q.srcPitch = q.dstPitch = 64; q.srcHeight = q.dstHeight = 2; q.WidthInBytes = 64; q.Height = 2; q.Depth = 2;
    q.srcContext = c; q.dstContext = NULL;
    switch (k) {
    case 1: e = cuDeviceCanAccessPeer(NULL, 0, 0); break;
    case 2: e = cuDeviceGetP2PAttribute(NULL, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 0); break;
    case 3: e = cuDeviceGetPCIBusId(NULL, 64, 0); break;
    case 4: e = cuDeviceGetByPCIBusId(&d, NULL); break;
    case 5: e = cuCtxEnablePeerAccess(NULL, 0); break;
    case 6: e = cuCtxDisablePeerAccess(NULL); break;
    case 7: e = cuMemcpyPeer(b, NULL, a, c, 16); break;
    case 8: e = cuMemcpy3DPeer(NULL); break;
    case 9: e = cuMemcpy3DPeer(&q); break;
    case 10: e = cuDeviceGetByPCIBusId(NULL, "0000:00:06.0"); break;
    case 11: e = cuMemcpyPeer(b, c, a, c, 1 << 20); break;
    case 12: { CUcontext o; cuCtxCreate(&o, NULL, 0, 0); cuCtxDestroy(o); cuCtxSetCurrent(c); e = cuCtxEnablePeerAccess(o, 0); break; }
    case 13: { cuCtxSetCurrent(NULL); cuCtxSetCurrent(NULL); e = cuCtxEnablePeerAccess(c, 0); break; }
    case 14: { int v; e = cuDeviceCanAccessPeer(&v, -1, 0); break; }
    }
    const char *n = NULL; cuGetErrorName(e, &n);
    printf("probe %d: %s\n", k, n ? n : "?");
    return 0;
}
