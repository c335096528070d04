// clockpace.cu - how many passes a warp makes through a loop that waits for clock64() to
// advance by 100000 cycles, by how many warps share an SM. On the H100 one warp alone is held
// back by latency (about 40 cycles a pass) and a full SM by its four schedulers (about 145);
// ptxemu's %clock must pace such loops alike (tests/run_profile_tests.sh checks within a factor
// of 1.5). Prints "BLOCKSxTHREADS MEAN-PASSES" per configuration.
#include <cstdio>

__global__ void spin(long long cycles, unsigned *passes)
{
    long long t0 = clock64();
    unsigned n = 0;
    while (clock64() - t0 < cycles) n++;
    if ((threadIdx.x & 31) == 0) passes[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = n;
}

int main()
{
    const struct { int blocks, threads; } cfg[] = {
        {1, 32}, {132, 32}, {132, 128}, {132, 512}, {132, 1024}, {264, 1024}, {528, 512} };
    static unsigned h[528 * 16];
    unsigned *d;
    if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
    for (const auto &c : cfg) {
        spin<<<c.blocks, c.threads>>>(100000, d);
        if (cudaDeviceSynchronize() != cudaSuccess) return 1;
        int nw = c.blocks * c.threads / 32;
        cudaMemcpy(h, d, nw * sizeof *h, cudaMemcpyDeviceToHost);
        double s = 0;
        for (int i = 0; i < nw; i++) s += h[i];
        printf("%dx%d %.0f\n", c.blocks, c.threads, s / nw);
    }
    return 0;
}
