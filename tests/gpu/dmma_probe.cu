// dmma_probe.cu - records mma.sync.m8n8k4 f64 results for random, wide-range and cancelling inputs
// into dmma.bin (A, B, C, D as doubles); the fit is in docs/tensor-cores.md.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
__global__ void k(const double *A, const double *B, const double *C, double *D, int n)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    for (int it = 0; it < n; it++) {
        const double *a = A + it * 32, *b = B + it * 32, *c = C + it * 64;
        double fa = a[g * 4 + t], fb = b[t * 8 + g], c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1], d0, d1;
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                     : "=d"(d0), "=d"(d1) : "d"(fa), "d"(fb), "d"(c0), "d"(c1));
        D[it * 64 + g * 8 + 2 * t] = d0;
        D[it * 64 + g * 8 + 2 * t + 1] = d1;
    }
}
static uint64_t s = 88172645463325252ull;
static uint64_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static double rd(int kind)
{
    double m = (double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1;
    switch (kind) {
    case 0: return m;
    case 1: return ldexp(m, (int)(rnd() % 120) - 60);
    case 2: return ldexp(1.0 + (double)(rnd() >> 40) / 16777216.0, (int)(rnd() % 8)) * ((rnd() & 1) ? 1 : -1);
    default: return ldexp(m, (int)(rnd() % 2000) - 1000);
    }
}
int main()
{
    const int N = 4096;
    static double A[N * 32], B[N * 32], C[N * 64], D[N * 64];
    for (int it = 0; it < N; it++) {
        int kind = it % 4;
        for (int i = 0; i < 32; i++) { A[it * 32 + i] = rd(kind); B[it * 32 + i] = rd(kind); }
        for (int i = 0; i < 64; i++) C[it * 64 + i] = rd(kind);
        if (it % 8 == 5) {   // cancellation: a0b0 = -a1b1 large, small rest
            for (int r = 0; r < 8; r++) { A[it * 32 + r * 4 + 1] = -A[it * 32 + r * 4 + 0]; }
            for (int c = 0; c < 8; c++) { B[it * 32 + 1 * 8 + c] = B[it * 32 + 0 * 8 + c]; }
        }
    }
    double *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D);
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    k<<<1, 32>>>(dA, dB, dC, dD, N);
    cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
    FILE *f = fopen("dmma.bin", "wb");
    fwrite(A, sizeof A, 1, f); fwrite(B, sizeof B, 1, f); fwrite(C, sizeof C, 1, f); fwrite(D, sizeof D, 1, f);
    fclose(f);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
