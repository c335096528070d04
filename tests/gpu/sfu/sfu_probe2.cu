// sfu_probe2.cu - more of the H100's approximate functions, for modelling them bit for bit:
// ex2.approx.ftz on [-2,-1) (int8 deltas from the correctly rounded value), lg2.approx.ftz on
// five binades (int32 deltas of the result bits), div.approx/div.full on 2^18 pseudo-random
// pairs (raw bits), and rcp.approx.ftz on the same divisors.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <vector>

__global__ void k_ex2(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float x = __uint_as_float(in[i]), y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); out[i] = __float_as_uint(y); }
__global__ void k_lg2(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float x = __uint_as_float(in[i]), y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); out[i] = __float_as_uint(y); }
__global__ void k_div(const unsigned *a, const unsigned *b, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float x = __uint_as_float(a[i]), y = __uint_as_float(b[i]), r0, r1, r2, r3;
    asm("div.approx.f32 %0, %1, %2;" : "=f"(r0) : "f"(x), "f"(y));
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r1) : "f"(x), "f"(y));
    asm("div.full.f32 %0, %1, %2;" : "=f"(r2) : "f"(x), "f"(y));
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r3) : "f"(y));
    out[4 * i] = __float_as_uint(r0); out[4 * i + 1] = __float_as_uint(r1);
    out[4 * i + 2] = __float_as_uint(r2); out[4 * i + 3] = __float_as_uint(r3); }

static unsigned *din, *din2, *dout;
static void range(void (*k)(const unsigned *, unsigned *, unsigned), unsigned lo, unsigned n, std::vector<unsigned> &out)
{
    std::vector<unsigned> in(n);
    for (unsigned i = 0; i < n; i++) in[i] = lo + i;
    cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice);
    k<<<(n + 255) / 256, 256>>>(din, dout, n);
    out.resize(n);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
}

int main()
{
    const unsigned N = 1u << 23;
    cudaMalloc(&din, 4 * N); cudaMalloc(&din2, 4 * N); cudaMalloc(&dout, 16 * N);
    std::vector<unsigned> out;
    range(k_ex2, 0xbf800000u, N, out);
    { std::vector<signed char> d(N); for (unsigned i = 0; i < N; i++) { unsigned xb = 0xbf800000u + i; float x; memcpy(&x, &xb, 4);
        float r = (float)exp2l(x); unsigned rb; memcpy(&rb, &r, 4); long dd = (long)(int)out[i] - (long)(int)rb; d[i] = dd > 127 || dd < -127 ? -128 : (signed char)dd; }
      FILE *f = fopen("ex2_m2_m1.i8", "wb"); fwrite(d.data(), 1, N, f); fclose(f); }
    unsigned los[] = {0x3f800000u, 0x3f000000u, 0x40000000u, 0x3e800000u, 0x49800000u};
    const char *names[] = {"lg2_1_2", "lg2_h_1", "lg2_2_4", "lg2_q_h", "lg2_2e20"};
    for (int r = 0; r < 5; r++) {
        range(k_lg2, los[r], N, out);
        std::vector<int> d(N);
        for (unsigned i = 0; i < N; i++) { unsigned xb = los[r] + i; float x; memcpy(&x, &xb, 4);
            float ref = (float)log2l(x); unsigned rb; memcpy(&rb, &ref, 4); d[i] = (int)out[i] - (int)rb; }
        char nm[64]; snprintf(nm, sizeof nm, "%s.i32", names[r]);
        FILE *f = fopen(nm, "wb"); fwrite(d.data(), 4, N, f); fclose(f);
    }
    unsigned M = 1u << 18;
    std::vector<unsigned> a(M), b(M), o(4 * M);
    uint64_t s = 0x243f6a8885a308d3ull;
    for (unsigned i = 0; i < M; i++) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; a[i] = (unsigned)(s >> 11);
        s ^= s << 13; s ^= s >> 7; s ^= s << 17; b[i] = (unsigned)(s >> 11); }
    cudaMemcpy(din, a.data(), 4 * M, cudaMemcpyHostToDevice);
    cudaMemcpy(din2, b.data(), 4 * M, cudaMemcpyHostToDevice);
    k_div<<<M / 256, 256>>>(din, din2, dout, M);
    cudaMemcpy(o.data(), dout, 16 * M, cudaMemcpyDeviceToHost);
    FILE *f = fopen("div_random.u32", "wb"); fwrite(o.data(), 4, 4 * M, f); fclose(f);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
