// host_release.cu - a kernel that waits for the host: a "blocking kernel" spins on a flag in
// pinned memory that the host sets only after the launch has returned and more work has
// been queued behind it on the same stream (UnifiedMemoryPerf holds its stream this way, and
// launch-overhead benchmarks do too). The queued kernel runs after the release, a stream
// query says not ready while the stream is held, other streams and the legacy stream's copies
// go on meanwhile, and a kernel of another stream may be the one that releases it. Expected
// output recorded on an H100 (tests/gpu/record_cuda.sh).
#include <cstdio>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

__global__ void wait_for(volatile unsigned *latch, unsigned value)
{
    while (latch[0] < value) {}
}

// what the queued kernel sees of the latch tells that it ran after the release
__global__ void after(const volatile unsigned *latch, int *out, int step)
{
    out[threadIdx.x] = (int)latch[0] * 1000 + step * 100 + (int)threadIdx.x;
}

__global__ void release(volatile unsigned *latch, unsigned value)
{
    latch[0] = value;
}

int main()
{
    unsigned *latch;
    int *d, h[32];
    CHECK(cudaMallocHost(&latch, sizeof *latch));
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemset(d, 0, sizeof h));
    cudaStream_t s, t;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    // every kernel once first: CUDA loads a kernel's code at its first launch (lazy loading),
    // which waits for the device, so a first launch behind a spinning kernel would never end
    *latch = 9;
    wait_for<<<1, 1, 0, s>>>(latch, 1);
    after<<<1, 32, 0, s>>>(latch, d, 0);
    release<<<1, 1, 0, s>>>(latch, 9);
    CHECK(cudaDeviceSynchronize());

    // the host releases the stream after queueing work behind the blocking kernel
    for (int step = 1; step <= 2; step++) {
        *latch = 0;
        wait_for<<<1, 1, 0, s>>>(latch, 1);
        CHECK(cudaGetLastError());
        after<<<1, 32, 0, s>>>(latch, d, step);
        CHECK(cudaGetLastError());
        printf("step %d: stream query while held: %s\n", step, cudaGetErrorName(cudaStreamQuery(s)));
        // the legacy stream does not wait for a non-blocking stream
        int probe = 7;
        CHECK(cudaMemcpy(d + 31, &probe, sizeof probe, cudaMemcpyHostToDevice));
        *latch = 1;
        CHECK(cudaStreamSynchronize(s));
        printf("step %d: stream query after the release: %s\n", step, cudaGetErrorName(cudaStreamQuery(s)));
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        printf("step %d: the queued kernel wrote %d %d ... %d\n", step, h[0], h[1], h[31]);
    }

    // a kernel of another stream releases it
    *latch = 0;
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));
    wait_for<<<1, 1, 0, s>>>(latch, 5);
    after<<<1, 32, 0, s>>>(latch, d, 3);
    CHECK(cudaEventRecord(ev, s));
    release<<<1, 1, 0, t>>>(latch, 5);
    CHECK(cudaEventSynchronize(ev));
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("released by another stream's kernel: %d %d ... %d, latch %u\n", h[0], h[1], h[31], *latch);

    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(latch));
    printf("done\n");
    return 0;
}
