// graph_reuse_timing.cu - measures, on the GPU, what decides whether a graph launch reuses
// the physical memory of a graph launched earlier on another stream: the host's cost of each
// call in graphMemoryFootprint's simultaneous-streams loop, how long one such graph runs, and
// which earlier graphs had finished at each launch. Also the host cost of common calls.
#include <cstdio>
#include <ctime>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 1; } } while (0)
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
__global__ void clockBlock(clock_t n) {
    unsigned s = (unsigned)clock(); clock_t off = 0;
    while (off < n) off = (clock_t)((unsigned)clock() - s);
}
__global__ void empty() {}
#define NG 8
static int make_graph(cudaGraphExec_t *ge, size_t bytes, int dev, clock_t clocks) {
    cudaGraph_t g; cudaGraphNode_t a, k, f; cudaMemAllocNodeParams ap = {};
    ap.bytesize = bytes; ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.id = dev; ap.poolProps.location.type = cudaMemLocationTypeDevice;
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
    void *args[1] = {&clocks}; cudaKernelNodeParams kp = {};
    kp.gridDim = dim3(bytes / 4 / 512); kp.blockDim = dim3(512); kp.func = (void *)clockBlock; kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&k, g, &a, 1, &kp));
    CK(cudaGraphAddMemFreeNode(&f, g, &k, 1, ap.dptr));
    CK(cudaGraphInstantiate(ge, g, NULL, NULL, 0));
    CK(cudaGraphDestroy(g));
    return 0;
}
static size_t footprint(int dev) { size_t v; cudaDeviceGetGraphMemAttribute(dev, (cudaGraphMemAttributeType)0, &v); return v; }
int main() {
    int dev = 0, rate; CK(cudaSetDevice(dev));
    CK(cudaDeviceGetAttribute(&rate, cudaDevAttrClockRate, dev));
    clock_t clocks = (clock_t)((5 / 1000.0) * rate);
    size_t bytes = 64ull << 20;
    cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
    printf("device %s, clock rate %d kHz, clockBlock count %ld\n", p.name, rate, (long)clocks);
    for (int rep = 0; rep < 3; rep++) {
        cudaStream_t st[NG]; cudaGraphExec_t ge[NG]; cudaEvent_t done[NG], e0;
        for (int i = 0; i < NG; i++) { if (make_graph(&ge[i], bytes, dev, clocks)) return 1;
            CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking)); CK(cudaEventCreate(&done[i])); }
        CK(cudaEventCreate(&e0));
        double tl[NG], ta[NG], tp[NG]; size_t fp[NG]; unsigned fin[NG];
        bool query = rep == 2;   // rep 2 also asks, before each launch, which graphs have finished
        CK(cudaEventRecord(e0, st[1]));
        double t0 = now_us();
        for (int i = 1; i < NG; i++) {
            fin[i] = 0;
            if (query) for (int j = 1; j < i; j++) if (cudaEventQuery(done[j]) == cudaSuccess) fin[i] |= 1u << j;
            double a = now_us();
            CK(cudaGraphLaunch(ge[i], st[i]));
            CK(cudaEventRecord(done[i], st[i]));
            double b = now_us();
            fp[i] = footprint(dev);
            double c = now_us();
            printf("    FOOTPRINT: %lu bytes\n", fp[i]); fflush(stdout);
            double d = now_us();
            tl[i] = b - a; ta[i] = c - b; tp[i] = d - c;
            (void)t0;
        }
        for (int i = 1; i < NG; i++) CK(cudaStreamSynchronize(st[i]));
        printf("rep %d%s\n", rep, query ? " (querying events before each launch)" : "");
        for (int i = 1; i < NG; i++) {
            float ms; CK(cudaEventElapsedTime(&ms, e0, done[i]));
            printf("  %d: launch+record %.1f us, attribute %.1f us, printf %.1f us, footprint %zu MiB, graph ends at %.1f us",
                   i, tl[i], ta[i], tp[i], fp[i] >> 20, ms * 1000);
            if (query) { printf(", finished before launch:"); for (int j = 1; j < i; j++) if (fin[i] >> j & 1) printf(" %d", j); }
            printf("\n");
        }
        for (int i = 0; i < NG; i++) { CK(cudaGraphExecDestroy(ge[i])); CK(cudaStreamDestroy(st[i])); CK(cudaEventDestroy(done[i])); }
        CK(cudaDeviceGraphMemTrim(dev));
    }
    // one graph alone on an idle GPU: first launch (maps memory) and a later one
    {
        cudaGraphExec_t ge; cudaStream_t s; cudaEvent_t a, b; float ms;
        if (make_graph(&ge, bytes, dev, clocks)) return 1;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
        for (int r = 0; r < 3; r++) {
            CK(cudaEventRecord(a, s)); double t = now_us(); CK(cudaGraphLaunch(ge, s)); double u = now_us();
            CK(cudaEventRecord(b, s)); CK(cudaStreamSynchronize(s)); CK(cudaEventElapsedTime(&ms, a, b));
            printf("alone, launch %d: host %.1f us, graph %.1f us\n", r, u - t, ms * 1000);
        }
        CK(cudaGraphExecDestroy(ge)); CK(cudaDeviceGraphMemTrim(dev));
    }
    // host cost of common calls, median of 2000
    {
        cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaEvent_t ev; CK(cudaEventCreate(&ev)); void *d; CK(cudaMalloc(&d, 4096)); static char h[4096];
        cudaGraph_t g; cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)); empty<<<1, 32, 0, s>>>(); CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, NULL, NULL, 0));
        const char *names[] = {"kernel launch <<<1,32>>>", "graph launch (1 kernel)", "cudaEventRecord", "cudaStreamQuery", "cudaMemcpyAsync 4 KiB HtoD pageable", "cudaDeviceGetGraphMemAttribute"};
        for (int c = 0; c < 6; c++) {
            std::vector<double> v;
            for (int i = 0; i < 2000; i++) {
                double t = now_us();
                switch (c) {
                case 0: empty<<<1, 32, 0, s>>>(); break;
                case 1: cudaGraphLaunch(ge, s); break;
                case 2: cudaEventRecord(ev, s); break;
                case 3: cudaStreamQuery(s); break;
                case 4: cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, s); break;
                case 5: footprint(dev); break;
                }
                v.push_back(now_us() - t);
                if (i % 64 == 63) cudaStreamSynchronize(s);
            }
            std::sort(v.begin(), v.end());
            printf("host cost of %s: median %.2f us, p90 %.2f us\n", names[c], v[1000], v[1800]);
        }
        CK(cudaStreamSynchronize(s));
    }
    return 0;
}
