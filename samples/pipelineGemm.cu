// pipelineGemm.cu - a 256x256x256 float GEMM whose tiles are staged through a 4-deep cp.async
// pipeline (sm_80+ asynchronous global->shared copies; built here for sm_90a).
//
// What the hardware does: cp.async (here through __pipeline_memcpy_async) copies 16 bytes from
// global to shared memory without passing through registers, and the issuing thread goes on
// at once. __pipeline_commit() closes a "group" of such copies; __pipeline_wait_prior(N) blocks
// until at most N of this thread's groups are still in flight. With STAGES buffers, the loads
// of tile k+STAGES-1 overlap the arithmetic on tile k. Look at the main loop: one commit per
// iteration (an empty group when nothing is left to load, so the counting stays uniform), the
// wait for the oldest group, then __syncthreads so every thread sees every thread's copies.
//
// Inputs are small integers, so every product and partial sum is exact in float and the result
// is independent of summation order and fma contraction: the check is exact.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>

#define N 256
#define TILE 32            // output tile TILE x TILE per block, K step TILE
#define STAGES 4
#define THREADS 256        // each thread computes 4 outputs of the tile

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)

// Copy one TILE x TILE tile of A (rows by, cols k0) and of B (rows k0, cols bx) into stage s:
// 256 threads, each one 16-byte chunk of each tile.
__device__ static void load_stage(float (*As)[TILE], float (*Bs)[TILE], const float *A,
                                  const float *B, int by, int bx, int k0)
{
    int t = threadIdx.x, r = t / (TILE / 4), c = (t % (TILE / 4)) * 4;
    __pipeline_memcpy_async(&As[r][c], &A[(by + r) * N + k0 + c], 16);
    __pipeline_memcpy_async(&Bs[r][c], &B[(k0 + r) * N + bx + c], 16);
}

__global__ void gemm_pipelined(const float *A, const float *B, float *C)
{
    __shared__ __align__(16) float As[STAGES][TILE][TILE];
    __shared__ __align__(16) float Bs[STAGES][TILE][TILE];
    int by = blockIdx.y * TILE, bx = blockIdx.x * TILE;
    int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;   // ty in 0..7: rows ty, ty+8, ...
    const int KT = N / TILE;
    float acc[4] = {0, 0, 0, 0};

    // Prologue: fill STAGES-1 buffers, one commit group each.
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < KT) load_stage(As[s], Bs[s], A, B, by, bx, s * TILE);
        __pipeline_commit();
    }
    for (int kt = 0; kt < KT; kt++) {
        int next = kt + STAGES - 1;
        if (next < KT) load_stage(As[next % STAGES], Bs[next % STAGES], A, B, by, bx, next * TILE);
        __pipeline_commit();
        __pipeline_wait_prior(STAGES - 1);   // tile kt (the oldest pending group) has landed
        __syncthreads();
        const int s = kt % STAGES;
        for (int k = 0; k < TILE; k++) {
            float b = Bs[s][k][tx];
            for (int i = 0; i < 4; i++) acc[i] += As[s][ty + 8 * i][k] * b;
        }
        __syncthreads();                      // stage s is refilled in a later iteration
    }
    for (int i = 0; i < 4; i++) C[(by + ty + 8 * i) * N + bx + tx] = acc[i];
}

int main()
{
    size_t bytes = (size_t)N * N * sizeof(float);
    float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes);
    float *hC = (float *)malloc(bytes), *ref = (float *)malloc(bytes);
    unsigned s = 12345u;
    for (int i = 0; i < N * N; i++) { s = s * 1664525u + 1013904223u; hA[i] = (float)((int)(s >> 28) - 8); }
    for (int i = 0; i < N * N; i++) { s = s * 1664525u + 1013904223u; hB[i] = (float)((int)(s >> 28) - 8); }

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, bytes)); CHECK(cudaMalloc(&dB, bytes)); CHECK(cudaMalloc(&dC, bytes));
    CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, bytes));
    gemm_pipelined<<<dim3(N / TILE, N / TILE), THREADS>>>(dA, dB, dC);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));

    // Host reference in integers (exact).
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            long long a = 0;
            for (int k = 0; k < N; k++) a += (long long)hA[i * N + k] * (long long)hB[k * N + j];
            ref[i * N + j] = (float)a;
        }
    int bad = 0;
    long long sum = 0, wsum = 0;
    for (int i = 0; i < N * N; i++) {
        if (hC[i] != ref[i]) { if (bad < 5) printf("mismatch at %d: %g vs %g\n", i, hC[i], ref[i]); bad++; }
        long long v = (long long)hC[i];
        sum += v;
        wsum += v * (i % 97 + 1);
    }
    printf("GEMM %dx%dx%d, %d-stage cp.async pipeline, %dx%d tiles\n", N, N, N, STAGES, TILE, TILE);
    printf("C[0][0] = %d, C[17][200] = %d, C[255][255] = %d\n",
           (int)hC[0], (int)hC[17 * N + 200], (int)hC[N * N - 1]);
    printf("checksum = %lld, weighted checksum = %lld\n", sum, wsum);
    printf("mismatches against the host product: %d\n", bad);
    printf("%s\n", bad ? "FAILED" : "PASSED");
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(hA); free(hB); free(hC); free(ref);
    return bad ? 1 : 0;
}
