// api_errors.cu - runtime API conformance: error names and strings, argument and launch
// configuration errors, the last-error state, streams, events, symbols, copies, pinned and
// managed memory, function attributes and the device's architectural properties.
// Prints only deterministic lines (no pointers, timings or machine-specific values); the
// expected output was recorded on an H100 (tests/expected/cuda/).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static void show(const char *what, cudaError_t e)
{
    printf("%s: %s\n", what, cudaGetErrorName(e));
    fflush(stdout);
}

// After a launch: the error it left, seen by peek/get twice (non-sticky errors clear).
static void after_launch(const char *what)
{
    cudaError_t p1 = cudaPeekAtLastError();
    cudaError_t g1 = cudaGetLastError();
    cudaError_t p2 = cudaPeekAtLastError();
    cudaError_t g2 = cudaGetLastError();
    printf("%s: peek=%s get=%s peek=%s get=%s\n", what, cudaGetErrorName(p1),
           cudaGetErrorName(g1), cudaGetErrorName(p2), cudaGetErrorName(g2));
    fflush(stdout);
}

__global__ void k_fill(int *out, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (out) out[i] = v + i;
}

__global__ void __launch_bounds__(64) k_bounded(int *out)
{
    out[threadIdx.x] = threadIdx.x;
}

__global__ void k_dyn_shared(unsigned *out, int n)
{
    extern __shared__ unsigned dyn[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = i * 3u;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned s = 0;
        for (int i = 0; i < n; i++) s += dyn[i];
        out[0] = s;
    }
}

__global__ void k_static_shared(int *out)
{
    __shared__ int buf[256];  // 1 KB
    buf[threadIdx.x] = threadIdx.x * 2;
    __syncthreads();
    out[threadIdx.x] = buf[255 - threadIdx.x];
}

__device__ int dev_arr[16];
__constant__ float const_arr[8];

__global__ void k_symbols(float *out)
{
    int i = threadIdx.x;
    out[i] = const_arr[i] * 2.0f + (float)dev_arr[i];
    dev_arr[i] += 100;
}

__global__ void k_incr(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += i + 1;
}

static void error_names(void)
{
    static const int codes[] = {0,   1,   2,   3,   4,   9,   12,  13,  17,  21,  35,  46,
                                52,  98,  100, 101, 200, 201, 209, 215, 218, 222, 300, 400,
                                401, 500, 600, 700, 701, 702, 709, 710, 714, 715, 716, 717,
                                718, 719, 720, 800, 801, 900, 909, 999, 12345, -1};
    printf("== error names and strings\n");
    for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        cudaError_t e = (cudaError_t)codes[i];
        printf("%d %s \"%s\"\n", codes[i], cudaGetErrorName(e), cudaGetErrorString(e));
    }
    fflush(stdout);
}

static void memory_args(void)
{
    printf("== memory arguments\n");
    void *p = (void *)&p;  // something non-NULL, to see whether it is overwritten
    show("cudaMalloc(&p, 0)", cudaMalloc(&p, 0));
    printf("  p is NULL: %d\n", p == NULL);
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaFree(NULL)", cudaFree(NULL));
    show("cudaFree(bogus)", cudaFree((void *)0x1234560));
    show("  cudaPeekAtLastError", cudaPeekAtLastError());
    show("  cudaGetLastError", cudaGetLastError());
    show("  cudaGetLastError", cudaGetLastError());
    int *d = NULL;
    int host[4] = {1, 2, 3, 4};
    show("cudaMalloc(16)", cudaMalloc(&d, 16));
    show("cudaMemcpy kind=7", cudaMemcpy(d, host, 16, (cudaMemcpyKind)7));
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaMemcpy kind=-1", cudaMemcpy(d, host, 16, (cudaMemcpyKind)-1));
    show("cudaMemset(d, 0xab, 16)", cudaMemset(d, 0xab, 16));
    memset(host, 0, sizeof host);
    show("cudaMemcpy DtoH", cudaMemcpy(host, d, 16, cudaMemcpyDeviceToHost));
    printf("  after memset: %08x %08x %08x %08x\n", host[0], host[1], host[2], host[3]);
    show("cudaMemset(d+1, 0x01, 4)", cudaMemset(d + 1, 0x01, 4));
    show("cudaMemcpy DtoH", cudaMemcpy(host, d, 16, cudaMemcpyDeviceToHost));
    printf("  after memset: %08x %08x %08x %08x\n", host[0], host[1], host[2], host[3]);
    show("cudaFree(d)", cudaFree(d));
    fflush(stdout);
}

static void device_select(void)
{
    printf("== devices\n");
    int n = -1;
    show("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    printf("  count >= 1: %d\n", n >= 1);
    show("cudaSetDevice(1)", cudaSetDevice(1));
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaSetDevice(-1)", cudaSetDevice(-1));
    show("cudaSetDevice(0)", cudaSetDevice(0));
    int dev = -1;
    show("cudaGetDevice", cudaGetDevice(&dev));
    printf("  device %d\n", dev);
    struct cudaDeviceProp prop;
    show("cudaGetDeviceProperties(dev 1)", cudaGetDeviceProperties(&prop, 1));
    int v = 0;
    show("cudaDeviceGetAttribute(dev 1)",
         cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1));
    cudaGetLastError();
    int drv = 0, rt = 0;
    cudaError_t e1 = cudaDriverGetVersion(&drv);
    cudaError_t e2 = cudaRuntimeGetVersion(&rt);
    printf("cudaDriverGetVersion: %s, >= 13000: %d\n", cudaGetErrorName(e1), drv >= 13000);
    printf("cudaRuntimeGetVersion: %s, >= 13000: %d\n", cudaGetErrorName(e2), rt >= 13000);
    fflush(stdout);
}

static void launch_configs(int *d)
{
    printf("== launch configurations\n");
    after_launch("clean state");
    k_fill<<<dim3(1, 1, 1), dim3(0, 1, 1)>>>(d, 1);
    after_launch("block (0,1,1)");
    k_fill<<<dim3(1, 1, 1), dim3(1025, 1, 1)>>>(d, 1);
    after_launch("block (1025,1,1)");
    k_fill<<<dim3(1, 1, 1), dim3(1024, 2, 1)>>>(d, 1);
    after_launch("block (1024,2,1)");
    k_fill<<<dim3(1, 1, 1), dim3(1, 1, 65)>>>(d, 1);
    after_launch("block (1,1,65)");
    k_fill<<<dim3(0, 1, 1), dim3(32, 1, 1)>>>(d, 1);
    after_launch("grid (0,1,1)");
    k_fill<<<dim3(1, 65536, 1), dim3(1, 1, 1)>>>(NULL, 1);
    after_launch("grid (1,65536,1)");
    k_fill<<<dim3(1, 1, 65536), dim3(1, 1, 1)>>>(NULL, 1);
    after_launch("grid (1,1,65536)");
    k_fill<<<dim3(1, 1, 1), dim3(32, 1, 1), 300 * 1024>>>(d, 1);
    after_launch("dynamic shared 300 KB");
    k_fill<<<dim3(2, 1, 1), dim3(32, 1, 1)>>>(d, 7);
    after_launch("valid launch");
    show("  cudaDeviceSynchronize", cudaDeviceSynchronize());
    int h[64];
    show("  cudaMemcpy", cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("  out[0]=%d out[63]=%d\n", h[0], h[63]);

    k_bounded<<<1, 64>>>(d);
    after_launch("launch_bounds(64) with 64 threads");
    k_bounded<<<1, 128>>>(d);
    after_launch("launch_bounds(64) with 128 threads");
    show("  cudaDeviceSynchronize", cudaDeviceSynchronize());

    void *args[] = {&d};
    show("cudaLaunchKernel(host function)",
         cudaLaunchKernel((const void *)&after_launch, dim3(1), dim3(1), args, 0, 0));
    after_launch("  after it");
    fflush(stdout);
}

static void dynamic_shared(unsigned *d)
{
    printf("== dynamic shared memory\n");
    int n = 60 * 1024 / 4;
    unsigned h = 0;
    k_dyn_shared<<<1, 256, 60 * 1024>>>(d, n);
    after_launch("60 KB without opt-in");
    show("cudaFuncSetAttribute(MaxDynamicSharedMemorySize, 60 KB)",
         cudaFuncSetAttribute(k_dyn_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              60 * 1024));
    k_dyn_shared<<<1, 256, 60 * 1024>>>(d, n);
    after_launch("60 KB after opt-in");
    show("  cudaDeviceSynchronize", cudaDeviceSynchronize());
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("  sum=%u\n", h);
    show("cudaFuncSetAttribute(MaxDynamicSharedMemorySize, 228 KB)",
         cudaFuncSetAttribute(k_dyn_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              228 * 1024));
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaFuncSetAttribute(MaxDynamicSharedMemorySize, 227 KB)",
         cudaFuncSetAttribute(k_dyn_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              227 * 1024));
    k_dyn_shared<<<1, 256, 227 * 1024>>>(d, 227 * 1024 / 4);
    after_launch("227 KB after opt-in");
    show("  cudaDeviceSynchronize", cudaDeviceSynchronize());
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("  sum=%u\n", h);
    k_dyn_shared<<<1, 256, 227 * 1024 + 4>>>(d, 4);
    after_launch("227 KB + 4 bytes");
    fflush(stdout);
}

static void func_attributes(int *d)
{
    printf("== function attributes\n");
    struct cudaFuncAttributes fa;
    show("cudaFuncGetAttributes(k_static_shared)", cudaFuncGetAttributes(&fa, k_static_shared));
    printf("  maxThreadsPerBlock=%d sharedSizeBytes=%zu\n", fa.maxThreadsPerBlock,
           fa.sharedSizeBytes);
    show("cudaFuncGetAttributes(k_bounded)", cudaFuncGetAttributes(&fa, k_bounded));
    printf("  maxThreadsPerBlock=%d sharedSizeBytes=%zu\n", fa.maxThreadsPerBlock,
           fa.sharedSizeBytes);
    show("cudaFuncGetAttributes(host function)",
         cudaFuncGetAttributes(&fa, (const void *)&func_attributes));
    show("  cudaGetLastError", cudaGetLastError());
    k_static_shared<<<1, 256>>>(d);
    show("k_static_shared", cudaGetLastError());
    int h[256];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("  out[0]=%d out[255]=%d\n", h[0], h[255]);
    fflush(stdout);
}

static void streams_events(void)
{
    printf("== streams and events\n");
    cudaStream_t s;
    show("cudaStreamCreate", cudaStreamCreate(&s));
    show("cudaStreamQuery(new)", cudaStreamQuery(s));
    int *d;
    cudaMalloc(&d, 256 * sizeof(int));
    k_fill<<<8, 32, 0, s>>>(d, 5);
    show("launch on stream", cudaGetLastError());
    show("cudaStreamSynchronize", cudaStreamSynchronize(s));
    show("cudaStreamQuery(idle)", cudaStreamQuery(s));
    int h[256];
    show("cudaMemcpyAsync", cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s));
    show("cudaStreamSynchronize", cudaStreamSynchronize(s));
    printf("  out[0]=%d out[255]=%d\n", h[0], h[255]);

    cudaEvent_t a, b;
    show("cudaEventCreate(a)", cudaEventCreate(&a));
    show("cudaEventCreate(b)", cudaEventCreate(&b));
    show("cudaEventQuery(unrecorded)", cudaEventQuery(a));
    show("cudaEventSynchronize(unrecorded)", cudaEventSynchronize(a));
    float ms = -1.0f;
    show("cudaEventElapsedTime(unrecorded)", cudaEventElapsedTime(&ms, a, b));
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaEventRecord(a, s)", cudaEventRecord(a, s));
    k_fill<<<8, 32, 0, s>>>(d, 6);
    show("cudaEventRecord(b, s)", cudaEventRecord(b, s));
    show("cudaEventSynchronize(b)", cudaEventSynchronize(b));
    show("cudaEventQuery(b)", cudaEventQuery(b));
    show("cudaEventElapsedTime(a, b)", cudaEventElapsedTime(&ms, a, b));
    printf("  elapsed >= 0: %d\n", ms >= 0.0f);
    show("cudaEventElapsedTime(a, unrecorded c)", (cudaEventCreate(&a) == cudaSuccess)
                                                       ? cudaEventElapsedTime(&ms, b, a)
                                                       : cudaErrorUnknown);
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaEventDestroy(a)", cudaEventDestroy(a));
    show("cudaEventDestroy(b)", cudaEventDestroy(b));
    show("cudaStreamDestroy", cudaStreamDestroy(s));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    cudaFree(d);
    fflush(stdout);
}

static void symbols(void)
{
    printf("== symbols\n");
    int ha[16];
    float hc[8], out[8];
    for (int i = 0; i < 16; i++) ha[i] = i * 10;
    for (int i = 0; i < 8; i++) hc[i] = 0.5f * i;
    size_t sz = 0;
    show("cudaGetSymbolSize(dev_arr)", cudaGetSymbolSize(&sz, dev_arr));
    printf("  size=%zu\n", sz);
    show("cudaGetSymbolSize(const_arr)", cudaGetSymbolSize(&sz, const_arr));
    printf("  size=%zu\n", sz);
    show("cudaMemcpyToSymbol(dev_arr)", cudaMemcpyToSymbol(dev_arr, ha, sizeof ha));
    show("cudaMemcpyToSymbol(const_arr)", cudaMemcpyToSymbol(const_arr, hc, sizeof hc));
    show("cudaMemcpyToSymbol(const_arr, offset 16)",
         cudaMemcpyToSymbol(const_arr, hc, 4 * sizeof(float), 4 * sizeof(float)));
    show("cudaMemcpyToSymbol(const_arr, too big)",
         cudaMemcpyToSymbol(const_arr, ha, sizeof ha));
    show("  cudaGetLastError", cudaGetLastError());
    float *d;
    cudaMalloc(&d, sizeof out);
    k_symbols<<<1, 8>>>(d);
    show("k_symbols", cudaGetLastError());
    show("cudaMemcpy", cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++) printf("  out[%d]=%g\n", i, out[i]);
    show("cudaMemcpyFromSymbol(dev_arr)", cudaMemcpyFromSymbol(ha, dev_arr, sizeof ha));
    for (int i = 0; i < 16; i++) printf(" %d", ha[i]);
    printf("\n");
    show("cudaMemcpyFromSymbol(const_arr, offset 8)",
         cudaMemcpyFromSymbol(hc, const_arr, 2 * sizeof(float), 2 * sizeof(float)));
    printf("  %g %g\n", hc[0], hc[1]);
    void *addr = NULL;
    show("cudaGetSymbolAddress(dev_arr)", cudaGetSymbolAddress(&addr, dev_arr));
    printf("  non-NULL: %d\n", addr != NULL);
    cudaFree(d);
    fflush(stdout);
}

static void copies_2d(void)
{
    printf("== cudaMemcpy2D and cudaMallocPitch\n");
    int src[6][10], dst[6][10];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 10; c++) src[r][c] = r * 100 + c, dst[r][c] = -1;
    int *d;
    size_t pitch = 0;
    show("cudaMallocPitch", cudaMallocPitch((void **)&d, &pitch, 10 * sizeof(int), 6));
    printf("  pitch >= 40: %d, multiple of 4: %d\n", pitch >= 40, pitch % 4 == 0);
    show("cudaMemset2D", cudaMemset2D(d, pitch, 0, 10 * sizeof(int), 6));
    show("cudaMemcpy2D HtoD 5x4",
         cudaMemcpy2D(d, pitch, &src[1][2], sizeof src[0], 5 * sizeof(int), 4,
                      cudaMemcpyHostToDevice));
    show("cudaMemcpy2D DtoH 10x6",
         cudaMemcpy2D(dst, sizeof dst[0], d, pitch, 10 * sizeof(int), 6,
                      cudaMemcpyDeviceToHost));
    for (int r = 0; r < 6; r++) {
        for (int c = 0; c < 10; c++) printf(" %d", dst[r][c]);
        printf("\n");
    }
    show("cudaMemcpy2D width > pitch",
         cudaMemcpy2D(dst, 8, d, pitch, 16, 2, cudaMemcpyDeviceToHost));
    show("  cudaGetLastError", cudaGetLastError());
    cudaFree(d);
    fflush(stdout);
}

static void host_and_managed(void)
{
    printf("== pinned and managed memory\n");
    int *h = NULL, *dh = NULL;
    show("cudaMallocHost", cudaMallocHost((void **)&h, 64 * sizeof(int)));
    for (int i = 0; i < 64; i++) h[i] = 1000;
    show("cudaHostGetDevicePointer", cudaHostGetDevicePointer((void **)&dh, h, 0));
    k_incr<<<2, 32>>>(dh, 64);
    show("k_incr on mapped memory", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    printf("  h[0]=%d h[63]=%d\n", h[0], h[63]);
    show("cudaFreeHost", cudaFreeHost(h));

    int *m = NULL;
    show("cudaMallocManaged", cudaMallocManaged((void **)&m, 100 * sizeof(int)));
    for (int i = 0; i < 100; i++) m[i] = i * i;
    k_incr<<<4, 32>>>(m, 100);
    show("k_incr on managed memory", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    long sum = 0;
    for (int i = 0; i < 100; i++) sum += m[i];
    printf("  m[0]=%d m[99]=%d sum=%ld\n", m[0], m[99], sum);
    show("cudaFree(managed)", cudaFree(m));
    fflush(stdout);
}

#define PROP(f) printf("  " #f "=%lld\n", (long long)prop.f)

static void properties(void)
{
    printf("== device properties\n");
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    show("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
    PROP(major); PROP(minor); PROP(warpSize); PROP(maxThreadsPerBlock);
    PROP(maxThreadsDim[0]); PROP(maxThreadsDim[1]); PROP(maxThreadsDim[2]);
    PROP(maxGridSize[0]); PROP(maxGridSize[1]); PROP(maxGridSize[2]);
    PROP(sharedMemPerBlock); PROP(sharedMemPerBlockOptin); PROP(sharedMemPerMultiprocessor);
    PROP(reservedSharedMemPerBlock); PROP(regsPerBlock); PROP(regsPerMultiprocessor);
    PROP(maxThreadsPerMultiProcessor); PROP(maxBlocksPerMultiProcessor);
    PROP(multiProcessorCount); PROP(totalConstMem); PROP(l2CacheSize); PROP(memPitch);
    PROP(textureAlignment); PROP(texturePitchAlignment); PROP(surfaceAlignment);
    PROP(concurrentKernels); PROP(cooperativeLaunch); PROP(managedMemory);
    PROP(concurrentManagedAccess); PROP(unifiedAddressing); PROP(canMapHostMemory);
    PROP(memoryPoolsSupported); PROP(clusterLaunch); PROP(asyncEngineCount);
    PROP(ECCEnabled); PROP(integrated); PROP(streamPrioritiesSupported);
    PROP(globalL1CacheSupported); PROP(localL1CacheSupported);
    PROP(computePreemptionSupported); PROP(memoryBusWidth);
    PROP(unifiedFunctionPointers);

    static const struct { enum cudaDeviceAttr a; const char *name; } attrs[] = {
        {cudaDevAttrComputeCapabilityMajor, "ComputeCapabilityMajor"},
        {cudaDevAttrComputeCapabilityMinor, "ComputeCapabilityMinor"},
        {cudaDevAttrWarpSize, "WarpSize"},
        {cudaDevAttrMaxThreadsPerBlock, "MaxThreadsPerBlock"},
        {cudaDevAttrMaxBlockDimX, "MaxBlockDimX"},
        {cudaDevAttrMaxBlockDimZ, "MaxBlockDimZ"},
        {cudaDevAttrMaxGridDimX, "MaxGridDimX"},
        {cudaDevAttrMaxGridDimY, "MaxGridDimY"},
        {cudaDevAttrMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock"},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, "MaxSharedMemoryPerBlockOptin"},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, "MaxSharedMemoryPerMultiprocessor"},
        {cudaDevAttrMaxRegistersPerBlock, "MaxRegistersPerBlock"},
        {cudaDevAttrMaxRegistersPerMultiprocessor, "MaxRegistersPerMultiprocessor"},
        {cudaDevAttrMaxThreadsPerMultiProcessor, "MaxThreadsPerMultiProcessor"},
        {cudaDevAttrMaxBlocksPerMultiprocessor, "MaxBlocksPerMultiprocessor"},
        {cudaDevAttrMultiProcessorCount, "MultiProcessorCount"},
        {cudaDevAttrTotalConstantMemory, "TotalConstantMemory"},
        {cudaDevAttrL2CacheSize, "L2CacheSize"},
        {cudaDevAttrComputeMode, "ComputeMode"},
        {cudaDevAttrConcurrentKernels, "ConcurrentKernels"},
        {cudaDevAttrCooperativeLaunch, "CooperativeLaunch"},
        {cudaDevAttrManagedMemory, "ManagedMemory"},
        {cudaDevAttrUnifiedAddressing, "UnifiedAddressing"},
        {cudaDevAttrCanMapHostMemory, "CanMapHostMemory"},
        {cudaDevAttrMemoryPoolsSupported, "MemoryPoolsSupported"},
        {cudaDevAttrClusterLaunch, "ClusterLaunch"},
        {cudaDevAttrAsyncEngineCount, "AsyncEngineCount"},
        {cudaDevAttrEccEnabled, "EccEnabled"},
        {cudaDevAttrGlobalL1CacheSupported, "GlobalL1CacheSupported"},
        {cudaDevAttrReservedSharedMemoryPerBlock, "ReservedSharedMemoryPerBlock"},
    };
    printf("== device attributes\n");
    for (unsigned i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        int v = -12345;
        cudaError_t e = cudaDeviceGetAttribute(&v, attrs[i].a, 0);
        printf("  %s: %s %d\n", attrs[i].name, cudaGetErrorName(e), v);
    }
    int v = 0;
    show("cudaDeviceGetAttribute(attr 100000)",
         cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, 0));
    show("  cudaGetLastError", cudaGetLastError());
    fflush(stdout);
}

// Last: a copy to a device address that was never allocated.
static void bogus_copies(void)
{
    printf("== bogus device pointers\n");
    int host[4] = {0};
    show("cudaMemcpy HtoD to bogus", cudaMemcpy((void *)0x1000, host, 16, cudaMemcpyHostToDevice));
    show("  cudaGetLastError", cudaGetLastError());
    show("cudaMemcpy DtoH from bogus",
         cudaMemcpy(host, (void *)0x1000, 16, cudaMemcpyDeviceToHost));
    show("  cudaGetLastError", cudaGetLastError());
    int *d;
    show("cudaMalloc after bogus copies", cudaMalloc(&d, 64));
    show("cudaFree", cudaFree(d));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    fflush(stdout);
}

int main(void)
{
    error_names();
    device_select();
    memory_args();
    int *d = NULL;
    cudaMalloc(&d, 64 * 1024 * sizeof(int));
    launch_configs(d);
    dynamic_shared((unsigned *)d);
    func_attributes(d);
    cudaFree(d);
    streams_events();
    symbols();
    copies_2d();
    host_and_managed();
    properties();
    bogus_copies();
    show("final cudaGetLastError", cudaGetLastError());
    return 0;
}
