// multicastBroadcast.cu - TMA multicast (sm_90a): in a cluster of 4 CTAs, each CTA loads one
// quarter of a 16 KiB block from global memory with ONE cp.async.bulk ... .multicast::cluster,
// and the copy engine writes that quarter into the shared memory of all 4 CTAs.
//
// What the hardware does: a bulk copy with .multicast::cluster takes a 16-bit ctaMask; the
// data read once from global memory (and L2) is delivered to the same shared-memory offset in
// every CTA whose bit is set, and each destination CTA's mbarrier at the same offset as `mbar`
// receives a complete_tx of the bytes it got. So every CTA arms its own barrier for the whole
// block (expect_tx 16 KiB), though it issued only a quarter itself. This is how Hopper GEMMs
// share an operand tile between the CTAs of a cluster. Look at the order: init the barrier,
// fence.mbarrier_init, cluster.sync() (a remote copy must not reach an uninitialised barrier),
// then expect_tx and the copy, then the wait on phase 0.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CLUSTER 4
#define CLUSTERS 8
#define BLK 4096                          // ints per cluster block (16 KiB)
#define QUARTER (BLK / CLUSTER)           // ints each CTA issues
#define THREADS 256

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

__global__ void __cluster_dims__(CLUSTER, 1, 1) multicast_kernel(const int *src, int *out, long long *sums)
{
    __shared__ __align__(128) int buf[BLK];
    __shared__ __align__(8) uint64_t bar;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    unsigned cid = blockIdx.x / CLUSTER;
    uint32_t s_buf = (uint32_t)__cvta_generic_to_shared(buf);
    uint32_t s_bar = (uint32_t)__cvta_generic_to_shared(&bar);

    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s_bar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cluster.sync();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(s_bar), "r"(BLK * 4) : "memory");
        const int *g = src + (size_t)cid * BLK + rank * QUARTER;
        uint16_t mask = (1u << CLUSTER) - 1;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                     " [%0], [%1], %2, [%3], %4;"
                     :: "r"(s_buf + rank * QUARTER * 4), "l"(g), "r"(QUARTER * 4), "r"(s_bar), "h"(mask)
                     : "memory");
    }
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(s_bar) : "memory");

    // Each CTA uses the whole block: scales it by (rank + 1) and sums it.
    __shared__ long long part[THREADS];
    long long acc = 0;
    for (int i = threadIdx.x; i < BLK; i += blockDim.x) {
        int v = buf[i] * (int)(rank + 1);
        out[(size_t)blockIdx.x * BLK + i] = v;
        acc += v;
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int w = THREADS / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
    cluster.sync();   // no CTA leaves while the cluster's copies are still in flight
}

int main()
{
    const size_t n = (size_t)CLUSTERS * BLK, nb = (size_t)CLUSTERS * CLUSTER;
    int *h = (int *)malloc(n * 4), *ho = (int *)malloc(nb * BLK * 4);
    long long hs[CLUSTERS * CLUSTER];
    unsigned s = 777u;
    for (size_t i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = (int)(s >> 16) - 32768; }
    int *d, *dout;
    long long *dsum;
    CHECK(cudaMalloc(&d, n * 4)); CHECK(cudaMalloc(&dout, nb * BLK * 4));
    CHECK(cudaMalloc(&dsum, nb * sizeof(long long)));
    CHECK(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, nb * BLK * 4));
    multicast_kernel<<<(unsigned)nb, THREADS>>>(d, dout, dsum);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(ho, dout, nb * BLK * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hs, dsum, sizeof hs, cudaMemcpyDeviceToHost));

    int bad = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t cid = b / CLUSTER, rank = b % CLUSTER;
        long long ref = 0;
        for (int i = 0; i < BLK; i++) {
            int v = h[cid * BLK + i] * (int)(rank + 1);
            ref += v;
            if (ho[b * BLK + i] != v) bad++;
        }
        if (hs[b] != ref) bad++;
    }
    printf("multicast: %d clusters of %d CTAs, each CTA issues %d bytes to ctaMask 0x%x, receives %d bytes\n",
           CLUSTERS, CLUSTER, QUARTER * 4, (1 << CLUSTER) - 1, BLK * 4);
    printf("cluster 0 sums by rank: %lld %lld %lld %lld\n", hs[0], hs[1], hs[2], hs[3]);
    printf("cluster 7 sums by rank: %lld %lld %lld %lld\n", hs[28], hs[29], hs[30], hs[31]);
    printf("cluster 3, rank 2: out[0] = %d, out[1024] = %d, out[4095] = %d\n",
           ho[14 * BLK], ho[14 * BLK + 1024], ho[14 * BLK + 4095]);
    printf("wrong values: %d\n", bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(d); cudaFree(dout); cudaFree(dsum); free(h); free(ho);
    return bad ? 1 : 0;
}
