// streams.cu - the streams lesson as a timing probe (tests/run_profile_tests.sh): N floats go
// to the device, through a kernel and back, timed with cudaEvents, three ways:
//   serial    pinned host memory, everything on the legacy stream, one piece at a time;
//   streams   pinned host memory cut in 4 chunks, each copied in, computed and copied out on
//             its own stream, so one chunk's copies overlap another's kernel;
//   pageable  the same 4 streams from malloc'd memory: the driver stages each copy and the
//             host waits, so nothing overlaps.
// Prints "NAME MICROSECONDS" (median of REPS runs) for each, and a checksum line.
// Usage: streams [N] [REPS]
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void work(float *x, int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    for (int k = 0; k < iters; k++) v = v * 0.999f + 0.5f;
    x[i] = v;
}

static float run(float *h, float *d, int n, int chunks, cudaStream_t *st, int iters)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    int per = n / chunks;
    for (int c = 0; c < chunks; c++) {
        cudaStream_t s = chunks == 1 ? 0 : st[c];
        float *hp = h + (size_t)c * per, *dp = d + (size_t)c * per;
        CK(cudaMemcpyAsync(dp, hp, per * sizeof(float), cudaMemcpyHostToDevice, s));
        work<<<(per + 255) / 256, 256, 0, s>>>(dp, per, iters);
        CK(cudaMemcpyAsync(hp, dp, per * sizeof(float), cudaMemcpyDeviceToHost, s));
    }
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms * 1000.0f;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : (1 << 20), reps = argc > 2 ? atoi(argv[2]) : 11;
    const int iters = 400;
    float *pinned, *pageable = (float *)malloc(n * sizeof(float)), *d;
    CK(cudaMallocHost(&pinned, n * sizeof(float)));
    CK(cudaMalloc(&d, n * sizeof(float)));
    cudaStream_t st[4];
    for (int i = 0; i < 4; i++) CK(cudaStreamCreate(&st[i]));
    const char *names[3] = { "serial", "streams", "pageable" };
    double sum = 0;
    for (int v = 0; v < 3; v++) {
        std::vector<float> t;
        for (int r = 0; r < reps + 1; r++) {
            float *h = v == 2 ? pageable : pinned;
            for (int i = 0; i < n; i++) h[i] = (float)(i % 100);
            float us = run(h, d, n, v == 0 ? 1 : 4, st, iters);
            if (r) t.push_back(us);   // the first run warms up
            if (r == reps) for (int i = 0; i < n; i += 4096) sum += h[i];
        }
        std::sort(t.begin(), t.end());
        printf("%s %.1f\n", names[v], t[t.size() / 2]);
    }
    printf("checksum %.6g\n", sum);
    for (int i = 0; i < 4; i++) CK(cudaStreamDestroy(st[i]));
    CK(cudaFree(d));
    CK(cudaFreeHost(pinned));
    free(pageable);
    return 0;
}
