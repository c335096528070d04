// Lab 03 - tiled matrix multiplication in shared memory (starter: complete the TODOs in
// matmul_tiled).
//
// C (M x N) = A (M x K) * B (K x N), row-major floats. Each block computes one TILE x TILE
// tile of C. It walks along K one tile at a time: the block copies a TILE x TILE tile of A
// and one of B into shared memory, waits, multiplies them, waits again, and moves on. Each
// element of A and B is then read from global memory M/TILE or N/TILE times instead of K.
// Elements outside a matrix are loaded as 0, so M, N and K need not be multiples of TILE.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                              \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(err_), \
                    #call, __FILE__, __LINE__);                                       \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

const int M = 100, K = 90, N = 110;   // none is a multiple of TILE
const int TILE = 16;

__global__ void matmul_tiled(const float *A, const float *B, float *C, int m, int k, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;          // row of C (and of A)
    int col = blockIdx.x * TILE + tx;          // column of C (and of B)

    float acc = 0.0f;
    for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
        int a_col = t * TILE + tx;             // column of A this thread loads
        int b_row = t * TILE + ty;             // row of B this thread loads
        // TODO 1: load A[row][a_col] into As[ty][tx] and B[b_row][col] into Bs[ty][tx]
        //         (row-major: A[row * k + a_col], B[b_row * n + col]). Store 0 for an element
        //         outside its matrix: check the row AND the column of each.
        // TODO 2: wait until the whole block has loaded both tiles.
        // TODO 3: acc += As[ty][i] * Bs[i][tx] for i = 0 .. TILE-1.
        // TODO 4: wait until the whole block is done with the tiles before the next
        //         iteration overwrites them.
    }
    if (row < m && col < n)
        C[row * n + col] = acc;
}

int main()
{
    size_t a_bytes = (size_t)M * K * sizeof(float);
    size_t b_bytes = (size_t)K * N * sizeof(float);
    size_t c_bytes = (size_t)M * N * sizeof(float);
    float *h_a = (float *)malloc(a_bytes), *h_b = (float *)malloc(b_bytes), *h_c = (float *)malloc(c_bytes);
    // Small integers: every product and sum is exact in float.
    for (int i = 0; i < M * K; i++) h_a[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; i++) h_b[i] = (float)((i * 5) % 13 - 6);

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, a_bytes));
    CUDA_CHECK(cudaMalloc(&d_b, b_bytes));
    CUDA_CHECK(cudaMalloc(&d_c, c_bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, a_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, b_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_c, 0, c_bytes));

    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_tiled<<<grid, block>>>(d_a, d_b, d_c, M, K, N);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h_c, d_c, c_bytes, cudaMemcpyDeviceToHost));

    // CPU reference. Tolerance: 1e-3 absolute (the products are exact, so any error is a bug).
    int bad = 0, first = -1;
    float first_want = 0.0f;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            float want = 0.0f;
            for (int i = 0; i < K; i++)
                want += h_a[r * K + i] * h_b[i * N + c];
            if (fabsf(h_c[r * N + c] - want) > 1e-3f && bad++ == 0) {
                first = r * N + c;
                first_want = want;
            }
        }
    if (bad == 0)
        printf("RESULT: PASS\n");
    else
        printf("RESULT: FAIL (%d mismatches; first at %d: got %g, expected %g)\n", bad, first,
               h_c[first], first_want);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a); free(h_b); free(h_c);
    return 0;
}
