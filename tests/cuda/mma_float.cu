// mma_float.cu - mma.sync on the floating-point variants beyond m16n8k16 f32 += f16/bf16
// (tests/gpu/hmma_probe.cu): m16n8k8 f16/bf16, f16 accumulators, tf32
// (m16n8k4, m16n8k8) and fp8 (e4m3, e5m2, mixed; m16n8k32), for random, wide-range,
// subnormal and special inputs. Run on the GPU without arguments, it records: for each
// variant V it writes V.bin: N cases of A (16 x K
// elements), B (K x 8), C and D (16 x 8), each element as a little-endian uint32 holding the
// element's bits. The fragments are the PTX ISA's: register j of A holds row g + 8(j%2) of
// chunk j/2, columns chunk*4E + t*E + e; register j of B rows chunk*4E + t*E + e of column g;
// f32 C/D register j row g + 8(j/2), column 2t + j%2; f16 C/D register j row g + 8j, columns
// 2t and 2t+1 (E: elements per 32-bit register; g = lane/4, t = lane%4). As a test (argument
// "text N") it prints D of the first N cases of each variant; the expected output
// is the recording's, printed by tests/gpu/mma_float_text.py.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <cuda_fp16.h>

struct Var { const char *name; int ebits, K, acc16; };
// the order matches the switch in the kernel
static const Var vars[] = {
    { "f32_f16_k8", 16, 8, 0 },    { "f32_bf16_k8", 16, 8, 0 },  { "f16_f16_k16", 16, 16, 1 },
    { "f16_f16_k8", 16, 8, 1 },    { "f32_tf32_k8", 32, 8, 0 },  { "f32_tf32_k4", 32, 4, 0 },
    { "f32_e4m3_k32", 8, 32, 0 },  { "f32_e5m2_k32", 8, 32, 0 }, { "f32_e4m3e5m2_k32", 8, 32, 0 },
};
static const int NV = sizeof vars / sizeof vars[0];

#define MMA4(S) asm volatile(S " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), \
      "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define MMA2(S) asm volatile(S " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), \
      "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

template <int FP8>
__global__ void k(int v, int ebits, int K, int acc16, const uint32_t *A, const uint32_t *B,
                  const uint32_t *C, uint32_t *D, int n)
{
    int l = threadIdx.x, g = l / 4, t = l % 4, E = 32 / ebits;
    int na = 16 * K * ebits / 32 / 32;   // registers per lane
    int nb = 8 * K * ebits / 32 / 32;
    for (int it = 0; it < n; it++) {
        const uint32_t *a_ = A + (size_t)it * 16 * K, *b_ = B + (size_t)it * K * 8;
        const uint32_t *c_ = C + it * 128;
        uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0}, c[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
        for (int j = 0; j < na; j++) {
            int row = g + 8 * (j % 2), ch = j / 2;
            for (int e = 0; e < E; e++)
                a[j] |= (a_[row * K + ch * 4 * E + t * E + e] & ((1ull << ebits) - 1)) << (e * ebits);
        }
        for (int j = 0; j < nb; j++)
            for (int e = 0; e < E; e++)
                b[j] |= (b_[(j * 4 * E + t * E + e) * 8 + g] & ((1ull << ebits) - 1)) << (e * ebits);
        if (acc16) {
            for (int j = 0; j < 2; j++)
                c[j] = (c_[(g + 8 * j) * 8 + 2 * t] & 0xffff) | c_[(g + 8 * j) * 8 + 2 * t + 1] << 16;
        } else {
            for (int j = 0; j < 4; j++) c[j] = c_[(g + 8 * (j / 2)) * 8 + 2 * t + j % 2];
        }
        if (FP8) {
            switch (v) {
            case 6: MMA4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"); break;
            case 7: MMA4("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"); break;
            case 8: MMA4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32"); break;
            }
        } else switch (v) {
        case 0: MMA2("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"); break;
        case 1: MMA2("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"); break;
        case 2: asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                             : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
                break;
        case 3: asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                             : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]));
                break;
        case 4: MMA4("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"); break;
        case 5: MMA2("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"); break;
        }
        uint32_t *d_ = D + it * 128;
        if (acc16) {
            for (int j = 0; j < 2; j++) {
                d_[(g + 8 * j) * 8 + 2 * t] = d[j] & 0xffff;
                d_[(g + 8 * j) * 8 + 2 * t + 1] = d[j] >> 16;
            }
        } else {
            for (int j = 0; j < 4; j++) d_[(g + 8 * (j / 2)) * 8 + 2 * t + j % 2] = d[j];
        }
    }
}

static uint64_t s = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static double unit() { return (double)(rnd() >> 11) / 9007199254740992.0 * 2 - 1; }

static uint32_t f32bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t f16bits(float f) { return (uint16_t)(__half_as_ushort(__float2half_rn(f))); }

// an element of `ebits` bits for case kind `kind` (0 uniform, 1 wide, 2 very wide with
// subnormals, 3 raw random bits, specials included)
static uint32_t elem(int v, int which, int kind)
{
    int ebits = vars[v].ebits;
    if (kind == 3) {
        uint32_t r = (uint32_t)rnd();
        if (rnd() % 64) {   // mostly finite: clear the top exponent pattern
            if (ebits == 16 && v != 1 && (r >> 10 & 31) == 31) r ^= 1u << 14;
            if (ebits == 16 && v == 1 && (r >> 7 & 255) == 255) r ^= 1u << 14;
            if (ebits == 32 && (r >> 23 & 255) == 255) r ^= 1u << 30;
        }
        return ebits == 32 ? r : r & ((1u << ebits) - 1);
    }
    double m = unit();
    int span = kind == 0 ? 0 : kind == 1 ? 12 : 40;
    double x = ldexp(m, span ? (int)(rnd() % (2 * span + 1)) - span : 0);
    if (ebits == 32) {   // tf32 inputs: full f32 bit patterns (the low 13 bits matter or not)
        return f32bits((float)x);
    }
    if (ebits == 16) {
        if (v == 1) {   // bf16: round the f32 to nearest even
            uint32_t u = f32bits((float)x);
            u += 0x7fff + (u >> 16 & 1);
            return u >> 16;
        }
        return f16bits((float)x);
    }
    // fp8: random bits, NaN patterns mostly avoided
    int e5 = v == 7 || (v == 8 && which == 1);
    uint32_t r = (uint32_t)rnd() & 255;
    if (kind < 3) {
        if (e5 && (r & 0x7c) == 0x7c) r &= ~0x40u;
        if (!e5 && (r & 0x7f) == 0x7f) r &= ~0x40u;
    }
    return r;
}

int main(int argc, char **argv)
{
    const int N = 1024;
    // "text N": run only the first n cases and print their D as hex (the test's form);
    // otherwise all N cases, written to VARIANT.bin
    int text = argc > 2 && !strcmp(argv[1], "text"), n = text ? atoi(argv[2]) : N;
    if (n < 1 || n > N) n = N;
    static uint32_t A[N * 16 * 32], B[N * 32 * 8], C[N * 128], D[N * 128];
    uint32_t *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D);
    for (int v = 0; v < NV; v++) {
        int K = vars[v].K;
        for (int it = 0; it < N; it++) {
            int kind = it % 4;
            for (int i = 0; i < 16 * K; i++) A[it * 16 * K + i] = elem(v, 0, kind);
            for (int i = 0; i < K * 8; i++) B[it * K * 8 + i] = elem(v, 1, kind);
            for (int i = 0; i < 128; i++) {
                double x = it % 5 == 0 ? 0.0 : ldexp(unit(), (int)(rnd() % 30) - 15);
                if (it % 7 == 3) x = unit() * 8;   // comparable to the products
                C[it * 128 + i] = vars[v].acc16 ? f16bits((float)x) : f32bits((float)x);
            }
            if (it % 16 == 15) {   // cancellation: C cancels row 0's dot product roughly
                for (int i = 0; i < 8; i++) C[it * 128 + i] = vars[v].acc16 ? 0 : f32bits(0.0f);
            }
        }
        cudaMemcpy(dA, A, (size_t)N * 16 * K * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B, (size_t)N * K * 8 * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
        cudaMemset(dD, 0, sizeof D);
        if (v >= 6) k<1><<<1, 32>>>(v, vars[v].ebits, K, vars[v].acc16, dA, dB, dC, dD, n);
        else k<0><<<1, 32>>>(v, vars[v].ebits, K, vars[v].acc16, dA, dB, dC, dD, n);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
        if (text) {
            printf("%s: %s\n", vars[v].name, cudaGetErrorName(e));
            for (int i = 0; i < n * 128; i++) printf("%0*x%c", vars[v].acc16 ? 4 : 8, D[i], i % 8 == 7 ? '\n' : ' ');
            continue;
        }
        char fn[64];
        snprintf(fn, sizeof fn, "%s.bin", vars[v].name);
        FILE *f = fopen(fn, "wb");
        fwrite(A, 4, (size_t)N * 16 * K, f); fwrite(B, 4, (size_t)N * K * 8, f);
        fwrite(C, 4, (size_t)N * 128, f); fwrite(D, 4, (size_t)N * 128, f);
        fclose(f);
        printf("%s: %s\n", vars[v].name, cudaGetErrorName(e));
    }
    return 0;
}
