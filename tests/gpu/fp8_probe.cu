// fp8_probe.cu - directed cases for mma.sync m16n8k32 f32 += e4m3 x e4m3 (tests/cuda/mma_float.cu
// recorded random ones, which no model fits yet): B is all ones, so D[r][c] = sum over k of
// A[r][k] + C[r][c]; each row of A holds one to four nonzero values at chosen positions and
// magnitudes, each column of C a different addend. Writes fp8.bin: N cases of A (16 x 32
// bytes), C and D (16 x 8 floats).
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>

__global__ void k(const uint32_t *A, const uint32_t *C, uint32_t *D, int n)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    for (int it = 0; it < n; it++) {
        const uint8_t *a = (const uint8_t *)(A + it * 128);
        uint32_t ra[4], rb[2] = { 0x38383838u, 0x38383838u }, c[4], d[4];
        for (int j = 0; j < 4; j++) {   // row g + 8(j%2), columns 16(j/2) + 4t .. +3
            int row = g + 8 * (j % 2), col = 16 * (j / 2) + 4 * t;
            ra[j] = a[row * 32 + col] | a[row * 32 + col + 1] << 8 | a[row * 32 + col + 2] << 16 | (uint32_t)a[row * 32 + col + 3] << 24;
        }
        for (int j = 0; j < 4; j++) c[j] = C[it * 128 + (g + 8 * (j / 2)) * 8 + 2 * t + j % 2];
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        for (int j = 0; j < 4; j++) D[it * 128 + (g + 8 * (j / 2)) * 8 + 2 * t + j % 2] = d[j];
    }
}

static uint64_t s = 0x243f6a8885a308d3ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint8_t e4m3(int sign, int e, int m) { return (uint8_t)(sign << 7 | e << 3 | m); }   // e 0..15, m 0..7 (not 15/7)

int main()
{
    const int N = 2048;
    static uint8_t A[N * 512];
    static uint32_t C[N * 128], D[N * 128];
    for (int it = 0; it < N; it++) {
        for (int r = 0; r < 16; r++) {
            uint8_t *row = A + it * 512 + r * 32;
            memset(row, 0, 32);
            int kind = (it * 16 + r) % 4;
            // a big value at position i, smaller ones elsewhere, exponent gaps 0..14
            int i = rnd() % 32, eb = 8 + rnd() % 7;
            row[i] = e4m3(0, eb, rnd() % 8);
            int extra = kind == 0 ? 1 : kind == 1 ? 2 : kind == 2 ? 3 : 5;
            for (int x = 0; x < extra; x++) {
                int j = rnd() % 32;
                if (j == i) continue;
                int es = eb - (int)(rnd() % 15);
                if (es < 0) es = 0;
                row[j] = e4m3(rnd() % 2, es, rnd() % 8);
            }
        }
        for (int i = 0; i < 128; i++) {
            int col = i % 8;
            float cv = col == 0 ? 0.0f : (float)ldexp((rnd() % 2 ? -1.0 : 1.0) * (1.0 + (rnd() % 1024) / 1024.0), (int)(rnd() % 20) - 12);
            memcpy(&C[it * 128 + i], &cv, 4);
        }
    }
    uint32_t *dA, *dC, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D);
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    k<<<1, 32>>>(dA, dC, dD, N);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
    FILE *f = fopen("fp8.bin", "wb");
    fwrite(A, 1, sizeof A, f); fwrite(C, 4, N * 128, f); fwrite(D, 4, N * 128, f);
    fclose(f);
    printf("fp8 probe: %s\n", cudaGetErrorName(e));
    return 0;
}
