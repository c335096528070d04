// hmma_probe.cu - records mma.sync m16n8k16 f32.f16.f16.f32 and f32.bf16.bf16.f32 results for
// random and adversarial inputs: A (16x16), B (16x8), C (16x8) per case, D out.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <int BF>
__global__ void k(const uint16_t *A, const uint16_t *B, const float *C, float *D, int n)
{
    int l = threadIdx.x, g = l / 4, t = l % 4;
    for (int it = 0; it < n; it++) {
        const uint16_t *a = A + it * 256, *b = B + it * 128;
        const float *c = C + it * 128;
        unsigned ra[4], rb[2];
        ra[0] = a[g * 16 + 2 * t] | (unsigned)a[g * 16 + 2 * t + 1] << 16;
        ra[1] = a[(g + 8) * 16 + 2 * t] | (unsigned)a[(g + 8) * 16 + 2 * t + 1] << 16;
        ra[2] = a[g * 16 + 2 * t + 8] | (unsigned)a[g * 16 + 2 * t + 9] << 16;
        ra[3] = a[(g + 8) * 16 + 2 * t + 8] | (unsigned)a[(g + 8) * 16 + 2 * t + 9] << 16;
        rb[0] = b[(2 * t) * 8 + g] | (unsigned)b[(2 * t + 1) * 8 + g] << 16;
        rb[1] = b[(2 * t + 8) * 8 + g] | (unsigned)b[(2 * t + 9) * 8 + g] << 16;
        float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1], c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];
        float d0, d1, d2, d3;
        if (BF)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                         : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
        float *d = D + it * 128;
        d[g * 8 + 2 * t] = d0; d[g * 8 + 2 * t + 1] = d1; d[(g + 8) * 8 + 2 * t] = d2; d[(g + 8) * 8 + 2 * t + 1] = d3;
    }
}
static uint64_t s = 88172645463325252ull;
static uint64_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static uint16_t h16(int kind, int bf)
{
    float m = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1);
    float v = kind == 0 ? m : kind == 1 ? ldexpf(m, (int)(rnd() % 24) - 12) : ldexpf(m, (int)(rnd() % 60) - 30);
    if (bf) { __nv_bfloat16 b = __float2bfloat16(v); uint16_t u; memcpy(&u, &b, 2); return u; }
    __half h = __float2half(v); uint16_t u; memcpy(&u, &h, 2); return u;
}
int main()
{
    const int N = 2048;
    static uint16_t A[N * 256], B[N * 128];
    static float C[N * 128], D[N * 128];
    for (int bf = 0; bf < 2; bf++) {
        for (int it = 0; it < N; it++) {
            int kind = it % 3;
            for (int i = 0; i < 256; i++) A[it * 256 + i] = h16(kind, bf);
            for (int i = 0; i < 128; i++) B[it * 128 + i] = h16(kind, bf);
            for (int i = 0; i < 128; i++) {
                float m = (float)((double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1);
                C[it * 128 + i] = it % 5 == 0 ? 0.0f : ldexpf(m, (int)(rnd() % 40) - 20);
            }
        }
        uint16_t *dA, *dB; float *dC, *dD;
        cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D);
        cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
        if (bf) k<1><<<1, 32>>>(dA, dB, dC, dD, N); else k<0><<<1, 32>>>(dA, dB, dC, dD, N);
        cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
        FILE *f = fopen(bf ? "bmma.bin" : "hmma.bin", "wb");
        fwrite(A, sizeof A, 1, f); fwrite(B, sizeof B, 1, f); fwrite(C, sizeof C, 1, f); fwrite(D, sizeof D, 1, f);
        fclose(f);
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
