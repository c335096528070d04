// graph_mem_reuse.cu - a graph launch takes the physical memory another stream's graph freed
// when that graph has already finished at the launch, even with no ordering between them; a
// graph still running keeps its memory; an allocation larger than the freed memory takes it
// and maps new memory for the rest. The margins are wide: a quick graph ends within tens of
// microseconds, the synchronous copy between launches holds the host for about 300, and the
// long graph runs for about 20 ms. Expected output recorded on an H100
// (tests/gpu/record_cuda.sh), three runs alike.
#include <cstdio>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

static void show(const char *what)
{
    size_t v;
    if (cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &v) != cudaSuccess) v = 1;
    printf("%-48s reserved %zu MiB\n", what, v >> 20);
}

// runs for `cycles` of the SM clock, then touches the memory
__global__ void hold(float *p, long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    p[threadIdx.x] = 1;
}

// a graph: allocate `mib` MiB, run `hold` on it, free it
static cudaGraphExec_t make(size_t mib, long long cycles)
{
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = mib << 20;
    cudaGraphNode_t a, kn, f;
    cudaGraphAddMemAllocNode(&a, g, NULL, 0, &ap);
    static float *ptr[16];
    static long long cyc[16];
    static int n;
    ptr[n] = (float *)ap.dptr;
    cyc[n] = cycles;
    void *args[2] = { &ptr[n], &cyc[n] };
    n++;
    cudaKernelNodeParams kp = {};
    kp.func = (void *)hold;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&kn, g, &a, 1, &kp);
    cudaGraphAddMemFreeNode(&f, g, &kn, 1, ap.dptr);
    cudaGraphExec_t x = NULL;
    cudaGraphInstantiate(&x, g, NULL, NULL, 0);
    cudaGraphDestroy(g);
    return x;
}

int main()
{
    CHECK(cudaFree(0));
    const size_t copy = 4 << 20;   // a pageable copy of 4 MiB: about 300 us on the H100
    char *h = new char[copy];
    void *d;
    CHECK(cudaMalloc(&d, copy));
    cudaStream_t s[5];
    for (int i = 0; i < 5; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    cudaGraphExec_t q = make(32, 0), r = make(32, 0), slow = make(32, 40000000), t = make(32, 0),
                    u = make(64, 0);
    show("start");
    CHECK(cudaGraphLaunch(q, s[0]));
    show("stream 0: a quick graph");
    CHECK(cudaMemcpy(d, h, copy, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(r, s[1]));
    show("stream 1, after a copy: stream 0's has finished");
    CHECK(cudaMemcpy(d, h, copy, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(slow, s[2]));
    show("stream 2, after a copy: a graph of 20 ms");
    CHECK(cudaMemcpy(d, h, copy, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(t, s[3]));
    show("stream 3, after a copy: stream 2's still runs");
    CHECK(cudaMemcpy(d, h, copy, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(u, s[4]));
    show("stream 4, after a copy: 64 MiB, 32 of them freed");
    CHECK(cudaDeviceSynchronize());
    show("all done");
    CHECK(cudaGraphExecDestroy(q));
    CHECK(cudaGraphExecDestroy(r));
    CHECK(cudaGraphExecDestroy(slow));
    CHECK(cudaGraphExecDestroy(t));
    CHECK(cudaGraphExecDestroy(u));
    CHECK(cudaDeviceGraphMemTrim(0));
    show("trimmed");
    for (int i = 0; i < 5; i++) CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaFree(d));
    delete[] h;
    return 0;
}
