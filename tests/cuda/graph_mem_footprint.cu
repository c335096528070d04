// graph_mem_footprint.cu - the physical memory graphs hold (cudaDeviceGetGraphMemAttribute):
// each allocation takes whole 32 MiB chunks, a free keeps them for later allocations until
// cudaDeviceGraphMemTrim, and an allocation reuses freed memory only from work it follows
// (the same stream, an event it waits for, a stream the host synchronized); graphs that may
// run at the same time need their own. Expected output recorded on an H100
// (tests/gpu/record_cuda.sh).
#include <cstdio>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

static void show(const char *what)
{
    size_t v[4];
    for (int i = 0; i < 4; i++)
        if (cudaDeviceGetGraphMemAttribute(0, (cudaGraphMemAttributeType)i, &v[i]) != cudaSuccess) v[i] = 1;
    printf("%-44s used %zu MiB (high %zu), reserved %zu MiB (high %zu)\n", what, v[0] >> 20,
           v[1] >> 20, v[2] >> 20, v[3] >> 20);
}

// waits long enough (about 20 ms on an H100) that the host's next launches find it running
__global__ void hold(float *p, long long cycles)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    if (p) p[threadIdx.x] = 1;
}

// a graph: allocate `bytes`, run `hold` on it, and free it (or not)
static cudaGraphExec_t make(size_t bytes, int do_free, long long cycles, float **ptr)
{
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = bytes;
    cudaGraphNode_t a, kn, f;
    cudaGraphAddMemAllocNode(&a, g, NULL, 0, &ap);
    *ptr = (float *)ap.dptr;
    static long long cyc;
    cyc = cycles;
    void *args[2] = { ptr, &cyc };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)hold;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = args;
    cudaGraphAddKernelNode(&kn, g, &a, 1, &kp);
    if (do_free) cudaGraphAddMemFreeNode(&f, g, &kn, 1, ap.dptr);
    cudaGraphExec_t x = NULL;
    cudaGraphInstantiate(&x, g, NULL, NULL, 0);
    cudaGraphDestroy(g);
    return x;
}

int main()
{
    CHECK(cudaFree(0));
    show("start");
    const size_t sizes[] = { 1 << 20, 3 << 20, 33 << 20, 64 << 20, 100 << 20 };
    for (size_t s : sizes) {
        float *p;
        cudaGraphExec_t x = make(s, 1, 0, &p);
        CHECK(cudaGraphLaunch(x, 0));
        CHECK(cudaDeviceSynchronize());
        char b[64];
        snprintf(b, sizeof b, "alloc and free %zu MiB", s >> 20);
        show(b);
        CHECK(cudaDeviceGraphMemTrim(0));
        show("trimmed");
        CHECK(cudaGraphExecDestroy(x));
    }

    float *p1, *p2;
    cudaGraphExec_t x1 = make(4 << 20, 0, 0, &p1), x2 = make(4 << 20, 0, 0, &p2);
    CHECK(cudaGraphLaunch(x1, 0));
    CHECK(cudaDeviceSynchronize());
    show("unfreed 4 MiB");
    CHECK(cudaGraphLaunch(x2, 0));
    CHECK(cudaDeviceSynchronize());
    show("a second unfreed 4 MiB");
    CHECK(cudaFree(p1));
    show("cudaFree of the first");
    CHECK(cudaDeviceGraphMemTrim(0));
    show("trimmed");
    CHECK(cudaFree(p2));
    show("cudaFree of the second");
    size_t zero = 0;
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
    show("high marks reset");
    CHECK(cudaDeviceGraphMemTrim(0));
    show("trimmed");
    CHECK(cudaGraphExecDestroy(x1));
    CHECK(cudaGraphExecDestroy(x2));

    // streams: a graph that holds its memory for about 20 ms, then others
    const long long cycles = 40000000;
    cudaStream_t s[4];
    for (int i = 0; i < 4; i++) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    float *q[4];
    cudaGraphExec_t g[4];
    for (int i = 0; i < 4; i++) g[i] = make(32 << 20, 1, cycles, &q[i]);
    CHECK(cudaGraphLaunch(g[0], s[0]));
    show("stream 0 runs a graph");
    CHECK(cudaGraphLaunch(g[1], s[1]));
    show("stream 1, at the same time");
    CHECK(cudaGraphLaunch(g[2], s[0]));
    show("stream 0 again, after its first");
    CHECK(cudaEventRecord(ev, s[1]));
    CHECK(cudaStreamWaitEvent(s[2], ev, 0));
    CHECK(cudaGraphLaunch(g[3], s[2]));
    show("stream 2, after stream 1's event");
    CHECK(cudaDeviceSynchronize());
    show("all done");
    CHECK(cudaGraphLaunch(g[1], s[3]));
    show("stream 3, after the host waited");
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 4; i++) CHECK(cudaGraphExecDestroy(g[i]));
    CHECK(cudaDeviceGraphMemTrim(0));
    show("trimmed");
    for (int i = 0; i < 4; i++) CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaEventDestroy(ev));
    return 0;
}
