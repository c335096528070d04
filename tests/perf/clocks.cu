// clocks.cu - a course's clock64() timing as a probe (tests/run_profile_tests.sh): each warp
// reads clock64() around a loop of 64 loads and the mean cycles a warp are printed, for
//   smem_stride1 / smem_stride33   shared loads without bank conflicts,
//   smem_stride32                  32-way bank conflicts,
//   gmem_coalesced                 each warp reads 128 consecutive bytes a load,
//   gmem_strided                   each lane reads its own 32-byte sector.
// Usage: clocks [BLOCKS]   (256 threads a block; prints "NAME CYCLES")
#include <cstdio>
#include <cstdlib>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

__global__ void smem(int stride, float *out, long long *cyc)
{
    __shared__ float s[32 * 33];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 33; i += blockDim.x) s[i] = (float)i;
    __syncthreads();
    long long c0 = clock64();
    float acc = 0;
    for (int i = 0; i < 64; i++) acc += s[((t % 32) * stride + i) % (32 * 33)];
    long long c1 = clock64();
    out[blockIdx.x * blockDim.x + t] = acc;
    if (t % 32 == 0) cyc[blockIdx.x * (blockDim.x / 32) + t / 32] = c1 - c0;
}

__global__ void gmem(const float *in, int strided, float *out, long long *cyc)
{
    int t = threadIdx.x, lane = t % 32, warp = blockIdx.x * (blockDim.x / 32) + t / 32;
    long long c0 = clock64();
    float acc = 0;
    for (int i = 0; i < 64; i++) {
        size_t base = ((size_t)warp * 64 + i) * (strided ? 256 : 32);
        acc += in[base + (strided ? lane * 8 : lane)];
    }
    long long c1 = clock64();
    out[blockIdx.x * blockDim.x + t] = acc;
    if (lane == 0) cyc[warp] = c1 - c0;
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 132, threads = 256, nw = blocks * threads / 32;
    size_t n = (size_t)nw * 64 * 256;
    float *in, *out;
    long long *cyc, *h = (long long *)malloc(nw * sizeof(long long));
    CK(cudaMalloc(&in, n * sizeof(float)));
    CK(cudaMemset(in, 0, n * sizeof(float)));
    CK(cudaMalloc(&out, blocks * threads * sizeof(float)));
    CK(cudaMalloc(&cyc, nw * sizeof(long long)));
    const char *names[5] = { "smem_stride1", "smem_stride33", "smem_stride32", "gmem_coalesced", "gmem_strided" };
    for (int v = 0; v < 5; v++) {
        for (int rep = 0; rep < 2; rep++) {   // the first run warms up
            if (v < 3) smem<<<blocks, threads>>>(v == 0 ? 1 : v == 1 ? 33 : 32, out, cyc);
            else gmem<<<blocks, threads>>>(in, v == 4, out, cyc);
            CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(h, cyc, nw * sizeof(long long), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (int i = 0; i < nw; i++) sum += (double)h[i];
        printf("%s %.0f\n", names[v], sum / nw);
    }
    CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(cyc));
    free(h);
    return 0;
}
