// bulkReduce.cu - column sums of a 16384 x 1024 matrix with cp.reduce.async.bulk (sm_90): each
// CTA sums a band of rows into shared memory, then ONE instruction adds the whole shared array
// element by element into the global result.
//
// What the hardware does: cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 reads
// `size` bytes from shared memory and performs an atomic-like add of each element into the
// global array (each element individually, relaxed, at gpu scope), so CTAs need no atomics of
// their own. The copy is asynchronous: cp.async.bulk.commit_group closes a bulk async-group and
// cp.async.bulk.wait_group.read N waits until the source shared memory of all but N groups
// has been read (after which it may be reused or the CTA may exit). Shared memory written by
// ordinary stores must be made visible to the copy engine (the "async proxy") first:
// fence.proxy.async.shared::cta in every writing thread, then __syncthreads. Look at the two
// reductions (a .u32 and a .u64 one) in two groups, and at the fence.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#define COLS 1024
#define ROWS 16384
#define BLOCKS 64
#define THREADS 256
#define ROWS_PER_BLOCK (ROWS / BLOCKS)

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

__global__ void band_sums(const uint32_t *m, uint32_t *colsum, unsigned long long *colsq)
{
    __shared__ __align__(16) uint32_t part[COLS];
    __shared__ __align__(16) unsigned long long part_sq[COLS];
    int r0 = blockIdx.x * ROWS_PER_BLOCK;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x) {
        uint32_t s = 0;
        unsigned long long q = 0;
        for (int r = r0; r < r0 + ROWS_PER_BLOCK; r++) {
            uint32_t v = m[(size_t)r * COLS + c];
            s += v;
            q += (unsigned long long)v * v;
        }
        part[c] = s;
        part_sq[c] = q;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes -> async proxy
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t s_part = (uint32_t)__cvta_generic_to_shared(part);
        uint32_t s_sq = (uint32_t)__cvta_generic_to_shared(part_sq);
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;"
                     :: "l"(colsum), "r"(s_part), "r"(COLS * 4) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%0], [%1], %2;"
                     :: "l"(colsq), "r"(s_sq), "r"(COLS * 8) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");   // shared arrays read
    }
    __syncthreads();
}

int main()
{
    size_t n = (size_t)ROWS * COLS;
    uint32_t *h = (uint32_t *)malloc(n * 4);
    unsigned s = 99u;
    for (size_t i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = s >> 12; }   // 20-bit values
    uint32_t *d, *dsum, hsum[COLS], rsum[COLS] = {0};
    unsigned long long *dsq, hsq[COLS], rsq[COLS] = {0};
    CHECK(cudaMalloc(&d, n * 4));
    CHECK(cudaMalloc(&dsum, sizeof hsum)); CHECK(cudaMalloc(&dsq, sizeof hsq));
    CHECK(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dsum, 0, sizeof hsum)); CHECK(cudaMemset(dsq, 0, sizeof hsq));
    band_sums<<<BLOCKS, THREADS>>>(d, dsum, dsq);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hsum, dsum, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hsq, dsq, sizeof hsq, cudaMemcpyDeviceToHost));

    for (size_t i = 0; i < n; i++) { rsum[i % COLS] += h[i]; rsq[i % COLS] += (unsigned long long)h[i] * h[i]; }
    int bad = 0;
    unsigned long long tot = 0, totsq = 0;
    for (int c = 0; c < COLS; c++) {
        if (hsum[c] != rsum[c] || hsq[c] != rsq[c]) bad++;
        tot += hsum[c];
        totsq += hsq[c];
    }
    printf("column sums of a %dx%d uint32 matrix: %d CTAs, each adds its %d-row band with cp.reduce.async.bulk\n",
           ROWS, COLS, BLOCKS, ROWS_PER_BLOCK);
    printf("sum[0..3] (u32): %u %u %u %u\n", hsum[0], hsum[1], hsum[2], hsum[3]);
    printf("sumsq[0..1] (u64): %llu %llu\n", hsq[0], hsq[1]);
    printf("total of column sums %llu, total of squares %llu\n", tot, totsq);
    printf("columns differing from the host: %d\n", bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(d); cudaFree(dsum); cudaFree(dsq); free(h);
    return bad ? 1 : 0;
}
