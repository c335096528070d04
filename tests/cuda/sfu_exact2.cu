// sfu_exact2.cu - the approximate functions of docs/sfu.md that sfu_exact.cu does not hold:
// sin, cos (with and without .ftz) and tanh .approx.f32 over 2^20 inputs each (every bit
// pattern, [-pi, pi], [-100 pi, 100 pi], |x| ~ 1e5, tiny and subnormal values); ex2 and tanh
// on f16, f16x2, bf16 and bf16x2 over every input; rcp.approx.ftz.f64, rsqrt.approx.ftz.f64
// and rsqrt.approx.f64 over 2^20 inputs; div.full.ftz.f32 over 2^20 pairs; and a line of
// ordinary code, a * x + __sinf(x) + y. Prints a hash of each function's results and a few
// of them. None of these inputs were used to fit the models.
#include <cstdio>
#include <cstdint>
#include <cstring>

#define UN(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float x = __uint_as_float(in[i]), y; asm(ptx " %0, %1;" : "=f"(y) : "f"(x)); out[i] = __float_as_uint(y); }
#define H16(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    unsigned short x = (unsigned short)in[i], y; asm(ptx " %0, %1;" : "=h"(y) : "h"(x)); out[i] = y; }
#define H32(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    unsigned y; asm(ptx " %0, %1;" : "=r"(y) : "r"(in[i])); out[i] = y; }
#define D64(name, ptx) \
__global__ void name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n / 2) return; \
    double x = __longlong_as_double((long long)in[2 * i] | (long long)in[2 * i + 1] << 32), y; \
    asm(ptx " %0, %1;" : "=d"(y) : "d"(x)); long long b = __double_as_longlong(y); \
    out[2 * i] = (unsigned)b; out[2 * i + 1] = (unsigned)(b >> 32); }
UN(sin_ftz, "sin.approx.ftz.f32")
UN(sin_, "sin.approx.f32")
UN(cos_ftz, "cos.approx.ftz.f32")
UN(cos_, "cos.approx.f32")
UN(tanh_, "tanh.approx.f32")
H16(ex2_f16, "ex2.approx.f16")
H32(ex2_f16x2, "ex2.approx.f16x2")
H16(ex2_bf16, "ex2.approx.ftz.bf16")
H32(ex2_bf16x2, "ex2.approx.ftz.bf16x2")
H16(tanh_f16, "tanh.approx.f16")
H32(tanh_f16x2, "tanh.approx.f16x2")
H16(tanh_bf16, "tanh.approx.bf16")
H32(tanh_bf16x2, "tanh.approx.bf16x2")
D64(rcp_f64, "rcp.approx.ftz.f64")
D64(rsqrt_ftz_f64, "rsqrt.approx.ftz.f64")
D64(rsqrt_f64, "rsqrt.approx.f64")
__global__ void div_full_ftz(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float a = __uint_as_float(in[i]), b = __uint_as_float(in[i ^ 1]), y;
    asm("div.full.ftz.f32 %0, %1, %2;" : "=f"(y) : "f"(a), "f"(b)); out[i] = __float_as_uint(y); }
__global__ void axpy_sin(const unsigned *in, unsigned *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float x = __uint_as_float(in[i]) * 1e-3f, y = __uint_as_float(in[i ^ 1]) * 1e-3f;
    out[i] = __float_as_uint(2.5f * x + __sinf(x) + y); }

typedef void (*K)(const unsigned *, unsigned *, unsigned);

int main()
{
    const unsigned N = 1u << 20;
    static unsigned in[N], out[N];
    unsigned *din, *dout;
    cudaMalloc(&din, sizeof in);
    cudaMalloc(&dout, sizeof out);
    struct { const char *name; K k; int kind; } forms[] = {
        { "sin.approx.ftz", sin_ftz, 0 }, { "sin.approx", sin_, 0 }, { "cos.approx.ftz", cos_ftz, 0 },
        { "cos.approx", cos_, 0 }, { "tanh.approx", tanh_, 0 }, { "div.full.ftz", div_full_ftz, 0 },
        { "a*x+__sinf(x)+y", axpy_sin, 3 },
        { "ex2.approx.f16", ex2_f16, 1 }, { "ex2.approx.f16x2", ex2_f16x2, 2 }, { "ex2.approx.ftz.bf16", ex2_bf16, 1 },
        { "ex2.approx.ftz.bf16x2", ex2_bf16x2, 2 }, { "tanh.approx.f16", tanh_f16, 1 }, { "tanh.approx.f16x2", tanh_f16x2, 2 },
        { "tanh.approx.bf16", tanh_bf16, 1 }, { "tanh.approx.bf16x2", tanh_bf16x2, 2 },
        { "rcp.approx.ftz.f64", rcp_f64, 4 }, { "rsqrt.approx.ftz.f64", rsqrt_ftz_f64, 4 }, { "rsqrt.approx.f64", rsqrt_f64, 4 },
    };
    for (auto &f : forms) {
        uint64_t s = 0x6a09e667f3bcc909ull;
        for (unsigned i = 0; i < N; i++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            unsigned r = (unsigned)(s >> 16);
            float v = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
            switch (f.kind) {
            case 0:
                switch (i % 8) {
                case 0: in[i] = r; break;
                case 1: { float x = v * 6.2831853f; memcpy(&in[i], &x, 4); break; }
                case 2: { float x = v * 628.31853f; memcpy(&in[i], &x, 4); break; }
                case 3: { float x = v * 2e5f; memcpy(&in[i], &x, 4); break; }
                case 4: in[i] = (r & 0x807fffffu) | ((0x60u + (r >> 23) % 0x30u) << 23); break;
                case 5: in[i] = r & 0x80ffffffu; break;
                case 6: { float x = v * 20.0f; memcpy(&in[i], &x, 4); break; }
                default: in[i] = (r & 0x807fffffu) | ((0x76u + (r >> 23) % 0x10u) << 23); break;
                }
                break;
            case 1: in[i] = i & 0xffff; break;
            case 2: in[i] = (i & 0xffff) | ((i * 40503u + (i >> 16) * 7919u) & 0xffff) << 16; break;
            case 3: { float x = v * 20000.0f; memcpy(&in[i], &x, 4); break; }
            default:
                if (i % 2 == 0) in[i] = r;
                else switch (i / 2 % 4) {
                    case 0: in[i] = r; break;
                    case 1: in[i] = (r & 0x800fffffu) | ((1013u + r % 20u) << 20); break;
                    case 2: in[i] = (r & 0x800fffffu) | ((r >> 31) ? (1u + r % 4u) << 20 : (2042u + r % 4u) << 20); break;
                    default: in[i] = r & 0x800fffffu; break;
                }
            }
        }
        const unsigned specials[] = { 0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000001u,
                                      0x807fffffu, 0x3f800000u, 0x40490fdbu, 0xc0490fdbu, 0x3fc90fdbu, 0x4b000000u };
        if (f.kind == 0) memcpy(in, specials, sizeof specials);
        cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
        f.k<<<N / 256, 256>>>(din, dout, N);
        cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned i = 0; i < N; i++) { h ^= out[i]; h *= 0x100000001b3ull; }
        printf("%-22s hash %016llx  first", f.name, (unsigned long long)h);
        for (int j = 0; j < 12; j++) printf(" %08x", out[j]);
        printf("  samples %08x %08x %08x\n", out[1001], out[2002], out[3003]);
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
