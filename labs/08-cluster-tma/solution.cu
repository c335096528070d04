// Lab 08 - column sums with a thread-block cluster, TMA tile loads and distributed shared
// memory (solution).
//
// The matrix (ROWS x COLS ints, row-major) is cut into strips of TILE_W columns. One cluster of
// CLUSTER blocks handles one strip: block `rank` of the cluster loads every CLUSTER-th tile of
// TILE_H x TILE_W elements with one TMA (tensor memory accelerator) copy, waits for it on an
// mbarrier, and adds the tile's columns into per-thread sums. The blocks then exchange their
// partial column sums through distributed shared memory: each block finishes the columns
// c with c % CLUSTER == rank by reading the partials of all blocks of its cluster.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>          // CUtensorMap, PFN_cuTensorMapEncodeTiled (types only)
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(err_), \
                    #call, __FILE__, __LINE__);                                       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

const int ROWS = 250;              // not a multiple of TILE_H: the TMA fills rows past the end with 0
const int COLS = 200;              // not a multiple of TILE_W: the last strip is partial
const int TILE_W = 32;             // one thread per column of a tile
const int TILE_H = 16;
const int CLUSTER = 4;             // blocks per cluster
const int TILE_BYTES = TILE_W * TILE_H * (int)sizeof(int);

// Issue the TMA copy of the tile whose top-left element is (row y, column x) into smem_tile;
// it signals `bar` with the number of bytes it wrote.
__device__ void tma_load_tile(int *smem_tile, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
    uint32_t dst = (uint32_t)__cvta_generic_to_shared(smem_tile);
    uint32_t mbar = (uint32_t)__cvta_generic_to_shared(bar);
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(mbar) : "memory");
}

__device__ void mbar_init(uint64_t *bar, unsigned count)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(count) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(a), "r"(bytes) : "memory");
}

__device__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(bar);
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;"
                     " selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(a), "r"(parity) : "memory");
}

__global__ void __cluster_dims__(CLUSTER, 1, 1)
column_sums(const __grid_constant__ CUtensorMap map, int *out, int rows, int cols)
{
    __shared__ __align__(128) int tile[TILE_H][TILE_W];
    __shared__ __align__(8) uint64_t bar;
    __shared__ int partial[TILE_W];            // this block's column sums, read by the whole cluster

    cg::cluster_group cluster = cg::this_cluster();
    int rank = (int)cluster.block_rank();
    int col = threadIdx.x;                     // column within the strip
    int x0 = blockIdx.y * TILE_W;              // first column of the strip

    if (threadIdx.x == 0)
        mbar_init(&bar, 1);
    __syncthreads();

    int sum = 0;
    unsigned phase = 0;
    int ntiles = (rows + TILE_H - 1) / TILE_H;
    for (int t = rank; t < ntiles; t += CLUSTER) {
        if (threadIdx.x == 0) {
            mbar_arrive_expect_tx(&bar, TILE_BYTES);
            tma_load_tile(&tile[0][0], &map, x0, t * TILE_H, &bar);
        }
        mbar_wait(&bar, phase);                // the tile has landed
        phase ^= 1;
        for (int r = 0; r < TILE_H; r++)
            sum += tile[r][col];
        __syncthreads();                       // everyone is done with the tile before the next load
    }
    partial[col] = sum;

    cluster.sync();                            // every block's partials are written and visible

    if (col % CLUSTER == rank) {
        int total = 0;
        for (int q = 0; q < CLUSTER; q++) {
            int *remote = cluster.map_shared_rank(partial, q);
            total += remote[col];
        }
        if (x0 + col < cols)
            out[x0 + col] = total;
    }

    cluster.sync();                            // keep our shared memory alive until all reads are done
}

int main()
{
    const int rows = ROWS, cols = COLS;
    size_t bytes = (size_t)rows * cols * sizeof(int);
    int *h_in = (int *)malloc(bytes), *h_out = (int *)malloc(cols * sizeof(int));
    uint32_t seed = 12345u;                    // fixed-seed LCG
    for (int i = 0; i < rows * cols; i++) {
        seed = seed * 1664525u + 1013904223u;
        h_in[i] = (int)(seed >> 24) - 128;
    }

    int *d_in, *d_out;
    CUDA_CHECK(cudaMalloc(&d_in, bytes));
    CUDA_CHECK(cudaMalloc(&d_out, cols * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_out, 0, cols * sizeof(int)));

    // Describe the matrix to the TMA: a 2-D tensor of ints, COLS wide (dimension 0) and ROWS
    // high, copied in boxes of TILE_W x TILE_H. The driver function is reached through the
    // runtime, so no -lcuda is needed.
    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult qres;
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                                cudaEnableDefault, &qres));
    if (qres != cudaDriverEntryPointSuccess || encode == nullptr) {
        fprintf(stderr, "cuTensorMapEncodeTiled not available\n");
        exit(1);
    }
    CUtensorMap map;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)cols * sizeof(int)};   // bytes between rows
    cuuint32_t box[2] = {TILE_W, TILE_H};
    cuuint32_t elem_strides[2] = {1, 1};
    CUresult cr = encode(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d_in, dims, strides, box, elem_strides,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (cr != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)cr);
        exit(1);
    }

    dim3 grid(CLUSTER, (cols + TILE_W - 1) / TILE_W);   // x: the blocks of one cluster; y: strips
    column_sums<<<grid, TILE_W>>>(map, d_out, rows, cols);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_out, d_out, cols * sizeof(int), cudaMemcpyDeviceToHost));

    // CPU reference; integers, so the comparison is exact.
    int bad = 0, first = -1, first_want = 0;
    for (int c = 0; c < cols; c++) {
        int want = 0;
        for (int r = 0; r < rows; r++)
            want += h_in[r * cols + c];
        if (h_out[c] != want && bad++ == 0) {
            first = c;
            first_want = want;
        }
    }
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %d, expected %d)\n", bad, first,
               h_out[first], first_want);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return 0;
}
