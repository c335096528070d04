// tmaSwizzle.cu - loads 2-D tiles with the Tensor Memory Accelerator (TMA, sm_90) in the
// 128-byte swizzle mode, shows the swizzled shared-memory layout, and un-swizzles it.
//
// What the hardware does: a CUtensorMap (built on the host by cuTensorMapEncodeTiled, reached
// here through cudaGetDriverEntryPointByVersion so that no -lcuda is needed) describes a tensor
// in global memory and a box shape. One thread issues cp.async.bulk.tensor with the box's
// coordinates; the copy engine fetches the whole box into shared memory and reports the bytes
// on an mbarrier (complete_tx), which the block waits on. With CU_TENSOR_MAP_SWIZZLE_128B each
// 128-byte row of the box is cut in eight 16-byte chunks, and chunk c of row r is stored at
// chunk position c XOR (r % 8): consecutive rows then hit different shared-memory banks when a
// column is read. Look at the printed raw order (the column index found at the start of each
// 16-byte chunk) and at the un-swizzle formula in the kernel.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>   // CUtensorMap and PFN_cuTensorMapEncodeTiled (types only)

#define W 256               // tensor width (uint32 elements)
#define H 64                // tensor height
#define BOX_W 32            // 32 x 4 bytes = 128 bytes: one swizzle row
#define BOX_H 16
#define TILE_BYTES (BOX_W * BOX_H * 4)

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

// Byte offset in the swizzled tile of element (r, c): 16-byte chunk c/4 moves to (c/4) ^ (r%8).
__host__ __device__ static inline unsigned swz_offset(unsigned r, unsigned c)
{
    return r * 128 + (((c / 4) ^ (r % 8)) * 16) + (c % 4) * 4;
}

__global__ void tma_unswizzle(const __grid_constant__ CUtensorMap tmap, uint32_t *out, uint32_t *raw)
{
    __shared__ __align__(1024) uint32_t tile[BOX_H * BOX_W];   // 128B swizzle needs 1024-byte alignment
    __shared__ __align__(8) uint64_t bar;
    uint32_t s_tile = (uint32_t)__cvta_generic_to_shared(tile);
    uint32_t s_bar = (uint32_t)__cvta_generic_to_shared(&bar);
    int x0 = blockIdx.x * BOX_W, y0 = blockIdx.y * BOX_H;

    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s_bar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                     :: "r"(s_bar), "r"(TILE_BYTES) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(s_tile), "l"(&tmap), "r"(x0), "r"(y0), "r"(s_bar) : "memory");
    }
    // Every thread waits for phase 0 of the barrier to complete.
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(s_bar) : "memory");

    int blk = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = threadIdx.x; i < BOX_H * BOX_W; i += blockDim.x) {
        int r = i / BOX_W, c = i % BOX_W;
        raw[blk * BOX_H * BOX_W + i] = tile[i];                                  // as stored
        out[(y0 + r) * W + x0 + c] = tile[swz_offset(r, c) / 4];                 // un-swizzled
    }
}

int main()
{
    const size_t n = (size_t)W * H, tiles = (W / BOX_W) * (H / BOX_H);
    uint32_t *h_in = (uint32_t *)malloc(n * 4), *h_out = (uint32_t *)malloc(n * 4);
    uint32_t *h_raw = (uint32_t *)malloc(tiles * TILE_BYTES);
    for (size_t i = 0; i < n; i++) h_in[i] = (uint32_t)((i / W) * 1000 + i % W);   // row*1000 + col

    uint32_t *d_in, *d_out, *d_raw;
    CHECK(cudaMalloc(&d_in, n * 4)); CHECK(cudaMalloc(&d_out, n * 4));
    CHECK(cudaMalloc(&d_raw, tiles * TILE_BYTES));
    CHECK(cudaMemcpy(d_in, h_in, n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, n * 4));

    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                           cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !encode) { printf("cuTensorMapEncodeTiled not found\nFAILED\n"); return 1; }

    CUtensorMap tmap;
    cuuint64_t dims[2] = {W, H};
    cuuint64_t strides[1] = {W * 4};          // bytes between rows
    cuuint32_t box[2] = {BOX_W, BOX_H};
    cuuint32_t estr[2] = {1, 1};
    CUresult cr = encode(&tmap, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, d_in, dims, strides, box, estr,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (cr != CUDA_SUCCESS) { printf("cuTensorMapEncodeTiled failed: %d\nFAILED\n", (int)cr); return 1; }

    dim3 grid(W / BOX_W, H / BOX_H);
    tma_unswizzle<<<grid, 128>>>(tmap, d_out, d_raw);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_raw, d_raw, tiles * TILE_BYTES, cudaMemcpyDeviceToHost));

    printf("TMA 2-D load, 128B swizzle: %dx%d uint32 tensor, %dx%d boxes, %d blocks\n",
           W, H, BOX_W, BOX_H, (int)tiles);
    // Tile (1,1) starts at row 16, column 32; show for rows 0..8 which column sits at the start
    // of each of the eight 16-byte chunks of the 128-byte shared-memory row.
    int show = 1 * (W / BOX_W) + 1;
    printf("tile (x=1,y=1), raw shared-memory order, column at each 16-byte chunk:\n");
    for (int r = 0; r < 9; r++) {
        printf("  smem row %d (tensor row %2d):", r, 16 + r);
        for (int k = 0; k < 8; k++) printf(" %2u", h_raw[show * BOX_H * BOX_W + r * BOX_W + k * 4] % 1000);
        printf("\n");
    }
    int bad_raw = 0, bad = 0;
    for (int t = 0; t < (int)tiles; t++) {
        int x0 = (t % (W / BOX_W)) * BOX_W, y0 = (t / (W / BOX_W)) * BOX_H;
        for (int r = 0; r < BOX_H; r++)
            for (int c = 0; c < BOX_W; c++)
                if (h_raw[t * BOX_H * BOX_W + swz_offset(r, c) / 4] != h_in[(y0 + r) * W + x0 + c]) bad_raw++;
    }
    unsigned long long sum = 0;
    for (size_t i = 0; i < n; i++) { if (h_out[i] != h_in[i]) bad++; sum += h_out[i]; }
    printf("raw layout differs from the 128B swizzle formula at %d elements\n", bad_raw);
    printf("un-swizzled copy differs from the input at %d elements, checksum %llu\n", bad, sum);
    printf("%s\n", bad || bad_raw ? "FAILED" : "PASSED");
    cudaFree(d_in); cudaFree(d_out); cudaFree(d_raw);
    free(h_in); free(h_out); free(h_raw);
    return bad || bad_raw ? 1 : 0;
}
