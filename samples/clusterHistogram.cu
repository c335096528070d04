// clusterHistogram.cu - a 1024-bin histogram kept in distributed shared memory: a thread-block
// cluster of 4 CTAs (sm_90) shares one histogram, each CTA holding a quarter of the bins.
//
// What the hardware does: the CTAs of a cluster run at the same time on neighbouring SMs and
// can read, write and atomically update each other's shared memory. cooperative_groups'
// cluster.map_shared_rank(p, r) turns the address of a shared variable into the address of
// the same variable in CTA r of the cluster; atomicAdd through that pointer goes over the
// SM-to-SM network. cluster.sync() is a barrier over all threads of the cluster: the first
// makes sure every CTA has zeroed its bins before anyone adds to them, the second that all
// additions are done before each CTA writes its slice out (and before any CTA exits while
// others may still write to its shared memory). Look at `owner` and `map_shared_rank` below.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BINS 1024
#define CLUSTER 4
#define SLICE (BINS / CLUSTER)      // bins owned by each CTA
#define N (1 << 22)
#define BLOCKS 64
#define THREADS 256

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

__global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_hist(const unsigned *data, unsigned *hist)
{
    __shared__ unsigned bins[SLICE];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    for (int i = threadIdx.x; i < SLICE; i += blockDim.x) bins[i] = 0;
    cluster.sync();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
        unsigned b = data[i] % BINS;
        unsigned owner = b / SLICE;                           // CTA of the cluster holding bin b
        unsigned *remote = cluster.map_shared_rank(bins, owner);
        atomicAdd(&remote[b % SLICE], 1u);
    }
    cluster.sync();

    // Each CTA adds its slice into the global histogram (several clusters share it).
    for (int i = threadIdx.x; i < SLICE; i += blockDim.x)
        if (bins[i]) atomicAdd(&hist[rank * SLICE + i], bins[i]);
}

int main()
{
    unsigned *h = (unsigned *)malloc(N * sizeof(unsigned));
    unsigned s = 2024u;
    for (int i = 0; i < N; i++) {
        s = s * 1103515245u + 12345u;
        unsigned v = s >> 8;
        h[i] = (v & 0xffff) + ((v >> 16) & 0xff) * 3;   // uneven distribution over the bins
    }
    unsigned *d, *dh, out[BINS], ref[BINS] = {0};
    CHECK(cudaMalloc(&d, N * sizeof(unsigned)));
    CHECK(cudaMalloc(&dh, BINS * sizeof(unsigned)));
    CHECK(cudaMemcpy(d, h, N * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dh, 0, BINS * sizeof(unsigned)));
    cluster_hist<<<BLOCKS, THREADS>>>(d, dh);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out, dh, sizeof out, cudaMemcpyDeviceToHost));

    for (int i = 0; i < N; i++) ref[h[i] % BINS]++;
    int bad = 0, maxb = 0;
    unsigned long long total = 0, wsum = 0;
    for (int b = 0; b < BINS; b++) {
        if (out[b] != ref[b]) bad++;
        if (out[b] > out[maxb]) maxb = b;
        total += out[b];
        wsum += (unsigned long long)out[b] * (b + 1);
    }
    printf("histogram of %d values into %d bins, %d CTAs in clusters of %d, %d bins per CTA\n",
           N, BINS, BLOCKS, CLUSTER, SLICE);
    printf("bins 0..3: %u %u %u %u; bins 1020..1023: %u %u %u %u\n", out[0], out[1], out[2], out[3],
           out[1020], out[1021], out[1022], out[1023]);
    printf("largest bin %d holds %u; total %llu; weighted sum %llu\n", maxb, out[maxb], total, wsum);
    printf("bins differing from the host: %d\n", bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(d); cudaFree(dh); free(h);
    return bad ? 1 : 0;
}
