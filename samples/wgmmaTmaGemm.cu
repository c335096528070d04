// wgmmaTmaGemm.cu - a 256x256x256 GEMM the Hopper way (sm_90a): TMA loads tiles of A and B
// into 128-byte-swizzled shared memory through a 2-stage mbarrier pipeline, and one warpgroup
// (4 warps) multiplies them with wgmma.mma_async reading both operands through shared-memory
// descriptors. C = A * B^T with A (256 x 256) and B (256 x 256) both stored K-contiguous, f16
// inputs, f32 accumulators.
//
// What the hardware does: thread 0 announces 16 KiB on the stage's mbarrier
// (mbarrier.arrive.expect_tx) and starts two cp.async.bulk.tensor copies; the tensor memory
// accelerator writes each 128-byte row of the 64x64 tile with the 128B swizzle (the 16-byte
// chunk index XOR the row index mod 8) and signals the bytes on the barrier. Every thread waits
// on the barrier's phase, then the warpgroup issues four wgmma.m64n64k16 (K = 64 in steps of
// 16: the descriptor's start address advances 32 bytes each step; the swizzle mode tells the
// tensor cores how to undo the swizzle). wgmma.commit_group / wait_group wait for the products;
// a __syncthreads frees the stage for the load two tiles ahead.
//
// Inputs are small integers, so every result is exact and equals the host's product.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_fp16.h>
#include <cudaTypedefs.h>   // CUtensorMap and PFN_cuTensorMapEncodeTiled (types only)

#define N 256
#define T 64                // tile: 64 x 64 of C per CTA, K in steps of 64
#define STAGE_BYTES (2 * T * T * 2)

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

// descriptor: start address, LBO (unused with a swizzle), SBO = 1024 (8 rows of 128 bytes), 128B swizzle
__device__ static uint64_t desc(uint32_t smem)
{
    return (uint64_t)((smem >> 4) & 0x3fff) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
}

__device__ static void wait_phase(uint32_t bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
}

__device__ static void load_stage(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t sa, uint32_t sb,
                                  uint32_t bar, int k0, int m0, int n0)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(STAGE_BYTES) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sa), "l"(ta), "r"(k0), "r"(m0), "r"(bar) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sb), "l"(tb), "r"(k0), "r"(n0), "r"(bar) : "memory");
}

__global__ void gemm(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, float *C)
{
    __shared__ __align__(1024) __half tiles[2][2][T * T];   // [stage][A, B]
    __shared__ __align__(8) uint64_t full[2];
    int tid = threadIdx.x, m0 = blockIdx.y * T, n0 = blockIdx.x * T;
    uint32_t bar[2] = { (uint32_t)__cvta_generic_to_shared(&full[0]), (uint32_t)__cvta_generic_to_shared(&full[1]) };
    uint32_t sA[2], sB[2];
    for (int s = 0; s < 2; s++) {
        sA[s] = (uint32_t)__cvta_generic_to_shared(tiles[s][0]);
        sB[s] = (uint32_t)__cvta_generic_to_shared(tiles[s][1]);
    }
    if (tid == 0) {
        for (int s = 0; s < 2; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar[s]) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (tid == 0)
        for (int s = 0; s < 2; s++) load_stage(&ta, &tb, sA[s], sB[s], bar[s], s * T, m0, n0);

    float d[32];
    for (int i = 0; i < 32; i++) d[i] = 0.0f;
    for (int kt = 0; kt < N / T; kt++) {
        int s = kt % 2;
        wait_phase(bar[s], (kt / 2) & 1);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < T / 16; kk++) {
            uint64_t da = desc(sA[s] + kk * 32), db = desc(sB[s] + kk * 32);
            asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                         "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                         "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, 1, 1, 1, 0, 0;"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
                           "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
                           "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                           "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                         : "l"(da), "l"(db));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();   // every warp is done with stage s
        if (tid == 0 && kt + 2 < N / T) load_stage(&ta, &tb, sA[s], sB[s], bar[s], (kt + 2) * T, m0, n0);
    }
    // accumulator i of lane (g, t) in warp w: row 16w + g + 8((i%4)/2), column 8(i/4) + 2t + i%2
    int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
    for (int i = 0; i < 32; i++)
        C[(m0 + 16 * w + g + 8 * ((i % 4) / 2)) * N + n0 + 8 * (i / 4) + 2 * t + i % 2] = d[i];
}

int main()
{
    const size_t n = (size_t)N * N;
    __half *hA = (__half *)malloc(n * 2), *hB = (__half *)malloc(n * 2);
    int *iA = (int *)malloc(n * 4), *iB = (int *)malloc(n * 4);
    float *hC = (float *)malloc(n * 4);
    unsigned s = 2024;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u; iA[i] = (int)((s >> 16) % 5) - 2;
        s = s * 1103515245u + 12345u; iB[i] = (int)((s >> 16) % 5) - 2;
        hA[i] = __int2half_rn(iA[i]);
        hB[i] = __int2half_rn(iB[i]);
    }
    __half *dA, *dB;
    float *dC;
    CHECK(cudaMalloc(&dA, n * 2)); CHECK(cudaMalloc(&dB, n * 2)); CHECK(cudaMalloc(&dC, n * 4));
    CHECK(cudaMemcpy(dA, hA, n * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, n * 2, cudaMemcpyHostToDevice));

    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !encode) { printf("cuTensorMapEncodeTiled not found\nFAILED\n"); return 1; }
    CUtensorMap tmA, tmB;
    cuuint64_t dims[2] = {N, N}, strides[1] = {N * 2};   // K innermost, then rows
    cuuint32_t box[2] = {T, T}, estr[2] = {1, 1};
    for (int i = 0; i < 2; i++) {
        CUresult cr = encode(i ? &tmB : &tmA, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, i ? (void *)dB : (void *)dA, dims,
                             strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (cr != CUDA_SUCCESS) { printf("cuTensorMapEncodeTiled failed: %d\nFAILED\n", (int)cr); return 1; }
    }
    gemm<<<dim3(N / T, N / T), 128>>>(tmA, tmB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC, dC, n * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    long long sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            long long ref = 0;
            for (int k = 0; k < N; k++) ref += (long long)iA[i * N + k] * iB[j * N + k];
            if (hC[i * N + j] != (float)ref) bad++;
            sum += (long long)hC[i * N + j];
        }
    printf("wgmma + TMA GEMM %dx%dx%d (f16 inputs, f32 accumulators, 2-stage pipeline)\n", N, N, N);
    printf("C[0][0] = %g, C[100][3] = %g, C[255][255] = %g\n", hC[0], hC[100 * N + 3], hC[n - 1]);
    printf("checksum %lld, %d elements differ from the host's product\n", sum, bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(iA); free(iB); free(hC);
    return bad ? 1 : 0;
}
