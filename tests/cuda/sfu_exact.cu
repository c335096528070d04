// sfu_exact.cu - the approximate functions ptxemu reproduces bit for bit (emu/sfu.c): ex2,
// rcp, rsqrt, sqrt and lg2 .approx (with and without .ftz), div.approx{.ftz} and div.full, each over
// 2^20 inputs spread over every binade and the special values. Prints a hash of each
// function's results and a few of them.
#include <cstdio>
#include <cstdint>
#include <cstring>

#define UN(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float x = __uint_as_float(in[i]), y; asm(ptx " %0, %1;" : "=f"(y) : "f"(x)); out[i] = __float_as_uint(y); }
#define BIN(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float a = __uint_as_float(in[i]), b = __uint_as_float(in[i ^ 1]), y; \
    asm(ptx " %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b)); out[i] = __float_as_uint(y); }
UN(ex2_ftz, "ex2.approx.ftz.f32")
UN(ex2, "ex2.approx.f32")
UN(rcp_ftz, "rcp.approx.ftz.f32")
UN(rcp, "rcp.approx.f32")
UN(rsqrt_ftz, "rsqrt.approx.ftz.f32")
UN(rsqrt, "rsqrt.approx.f32")
UN(sqrt_ftz, "sqrt.approx.ftz.f32")
UN(sqrt, "sqrt.approx.f32")
UN(lg2_ftz, "lg2.approx.ftz.f32")
UN(lg2, "lg2.approx.f32")
BIN(div_ftz, "div.approx.ftz.f32")
BIN(div, "div.approx.f32")
BIN(div_full, "div.full.f32")

typedef void (*K)(const unsigned *, unsigned *, unsigned);

int main()
{
    const unsigned N = 1u << 20;
    static unsigned in[N], out[N];
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (unsigned i = 0; i < N; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        unsigned r = (unsigned)(s >> 16);
        switch (i % 4) {
        case 0: in[i] = r; break;                                          /* any bits */
        case 1: in[i] = (r & 0x807fffffu) | ((0x7au + (r >> 23) % 12) << 23); break;   /* near 1 */
        case 2: in[i] = (r & 0x807fffffu) | ((0x80u + (r >> 24) % 7) << 23); break;    /* 2..256 */
        default: in[i] = (r & 0x80ffffffu) | (((r >> 25) & 1 ? 0xfdu : 0x01u) << 23) ^ (r & 0x00800000u); break;
        }
    }
    const unsigned specials[] = { 0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u,
                                  0x807fffffu, 0x3f800000u, 0xc2fe0000u, 0x42fe0000u, 0x43000000u,
                                  0xc3000000u, 0x7f7fffffu, 0x00800000u, 0x3effffffu, 0xbf000001u };
    memcpy(in, specials, sizeof specials);
    unsigned *din, *dout;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    K ks[] = { ex2_ftz, ex2, rcp_ftz, rcp, rsqrt_ftz, rsqrt, sqrt_ftz, sqrt, lg2_ftz, lg2, div_ftz, div, div_full };
    const char *names[] = { "ex2.approx.ftz", "ex2.approx", "rcp.approx.ftz", "rcp.approx",
                            "rsqrt.approx.ftz", "rsqrt.approx", "sqrt.approx.ftz", "sqrt.approx", "lg2.approx.ftz", "lg2.approx", "div.approx.ftz", "div.approx", "div.full" };
    for (int k = 0; k < 13; k++) {
        ks[k]<<<N / 256, 256>>>(din, dout, N);
        cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < N; i++) { h ^= out[i]; h *= 0x100000001b3ull; }
        printf("%-17s hash %016llx  specials", names[k], (unsigned long long)h);
        for (int j = 0; j < 16; j++) printf(" %08x", out[j]);
        printf("  samples %08x %08x %08x\n", out[1001], out[2002], out[3003]);
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
