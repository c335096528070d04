// mufu_kernels.cu - the kernels of sfu3_probe.cu, built into a cubin (tests/gpu/build_batch.sh):
// every approximate instruction over arrays of inputs, and the scans that look for the
// structure of the MUFU unit's sin/cos/tanh. sfu3_probe.cu loads the cubin twice: as built,
// and with the f32 constant 1/(2 pi) (0x3e22f983) that ptxas multiplies sin/cos inputs by
// replaced with 1.0, so that the second copy's sin/cos kernels feed their input unchanged to
// MUFU.SIN/MUFU.COS (the SASS is FMUL.RZ by that constant, then MUFU).
#include <cstdint>

#define U32 unsigned
#define F1(NAME, PTX) \
extern "C" __global__ void NAME(const U32 *x, U32 *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float r; asm volatile(PTX " %0, %1;" : "=f"(r) : "f"(__uint_as_float(x[i]))); y[i] = __float_as_uint(r); }
F1(k_sin, "sin.approx.f32")
F1(k_sin_ftz, "sin.approx.ftz.f32")
F1(k_cos, "cos.approx.f32")
F1(k_cos_ftz, "cos.approx.ftz.f32")
F1(k_tanh, "tanh.approx.f32")
F1(k_ex2, "ex2.approx.f32")
F1(k_ex2_ftz, "ex2.approx.ftz.f32")
F1(k_lg2, "lg2.approx.f32")
F1(k_lg2_ftz, "lg2.approx.ftz.f32")
F1(k_rcp, "rcp.approx.f32")
F1(k_rcp_ftz, "rcp.approx.ftz.f32")
F1(k_rsqrt, "rsqrt.approx.f32")
F1(k_rsqrt_ftz, "rsqrt.approx.ftz.f32")
F1(k_sqrt, "sqrt.approx.f32")
F1(k_sqrt_ftz, "sqrt.approx.ftz.f32")

// the same, but the input is x[0] + i (a contiguous run of bit patterns)
#define FR(NAME, PTX) \
extern "C" __global__ void NAME(U32 base, U32 *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float r; asm volatile(PTX " %0, %1;" : "=f"(r) : "f"(__uint_as_float(base + i))); y[i] = __float_as_uint(r); }
FR(r_sin, "sin.approx.f32")
FR(r_sin_ftz, "sin.approx.ftz.f32")
FR(r_cos, "cos.approx.f32")
FR(r_cos_ftz, "cos.approx.ftz.f32")
FR(r_tanh, "tanh.approx.f32")
FR(r_ex2, "ex2.approx.f32")
FR(r_ex2_ftz, "ex2.approx.ftz.f32")
FR(r_lg2, "lg2.approx.f32")
FR(r_lg2_ftz, "lg2.approx.ftz.f32")
FR(r_rcp, "rcp.approx.f32")
FR(r_rcp_ftz, "rcp.approx.ftz.f32")
FR(r_rsqrt, "rsqrt.approx.f32")
FR(r_rsqrt_ftz, "rsqrt.approx.ftz.f32")
FR(r_sqrt, "sqrt.approx.f32")
FR(r_sqrt_ftz, "sqrt.approx.ftz.f32")

#define F2(NAME, PTX) \
extern "C" __global__ void NAME(const U32 *x, U32 *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float r; asm volatile(PTX " %0, %1, %2;" : "=f"(r) : "f"(__uint_as_float(x[i])), "f"(__uint_as_float(x[i ^ 1]))); \
    y[i] = __float_as_uint(r); }
F2(k_div_full_ftz, "div.full.ftz.f32")
F2(k_div_full, "div.full.f32")
F2(k_div_approx_ftz, "div.approx.ftz.f32")

#define D1(NAME, PTX) \
extern "C" __global__ void NAME(const unsigned long long *x, unsigned long long *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    double r; asm volatile(PTX " %0, %1;" : "=d"(r) : "d"(__longlong_as_double(x[i]))); y[i] = __double_as_longlong(r); }
D1(k_rcp64_ftz, "rcp.approx.ftz.f64")
D1(k_rsqrt64_ftz, "rsqrt.approx.ftz.f64")
D1(k_rsqrt64, "rsqrt.approx.f64")

// half forms: x holds 16-bit patterns in its low half (and another in the high half for x2)
#define H1(NAME, PTX) \
extern "C" __global__ void NAME(const U32 *x, U32 *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    unsigned short a = (unsigned short)x[i], r; asm volatile(PTX " %0, %1;" : "=h"(r) : "h"(a)); y[i] = r; }
#define H2(NAME, PTX) \
extern "C" __global__ void NAME(const U32 *x, U32 *y, U32 n) { \
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    U32 r; asm volatile(PTX " %0, %1;" : "=r"(r) : "r"(x[i])); y[i] = r; }
H1(k_ex2_f16, "ex2.approx.f16")
H2(k_ex2_f16x2, "ex2.approx.f16x2")
H1(k_ex2_bf16, "ex2.approx.ftz.bf16")
H2(k_ex2_bf16x2, "ex2.approx.ftz.bf16x2")
H1(k_tanh_f16, "tanh.approx.f16")
H2(k_tanh_f16x2, "tanh.approx.f16x2")
H1(k_tanh_bf16, "tanh.approx.bf16")
H2(k_tanh_bf16x2, "tanh.approx.bf16x2")

// Dependence scan: over the 2^23 values of one binade (exponent field e, both signs by
// sgn), how many results change when the low k bits of the input are cleared, k = 1..16.
// which: 0 sin.ftz, 1 cos.ftz, 2 tanh.
__device__ __forceinline__ float mufu(int which, float t)
{
    float r;
    if (which == 0) asm volatile("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    else if (which == 1) asm volatile("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(t));
    else asm volatile("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(t));
    return r;
}
extern "C" __global__ void k_dep(int which, U32 e, unsigned long long *counts)
{
    U32 m = blockIdx.x * blockDim.x + threadIdx.x;   // 2^23 threads
    U32 bits = e << 23 | m;
    float r = mufu(which, __uint_as_float(bits));
    for (int k = 1; k <= 16; k++) {
        float q = mufu(which, __uint_as_float(bits & ~((1u << k) - 1)));
        int diff = __float_as_uint(q) != __float_as_uint(r);
        U32 b = __ballot_sync(0xffffffffu, diff);
        if ((threadIdx.x & 31) == 0 && b) atomicAdd(&counts[k], (unsigned long long)__popc(b));
    }
    // odd symmetry (sin, tanh) / even (cos)
    float rn = mufu(which, -__uint_as_float(bits));
    int asym = which == 1 ? __float_as_uint(rn) != __float_as_uint(r) : __float_as_uint(rn) != (__float_as_uint(r) ^ 0x80000000u);
    U32 b = __ballot_sync(0xffffffffu, asym);
    if ((threadIdx.x & 31) == 0 && b) atomicAdd(&counts[0], (unsigned long long)__popc(b));
}

// t = x * (1/(2 pi)) rounded towards zero, as the SASS of sin/cos computes it (this kernel
// is run from the unpatched copy)
extern "C" __global__ void k_mulrz(const U32 *x, U32 *y, U32 n, int ftz)
{
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    float r, c = __uint_as_float(0x3e22f983u), a = __uint_as_float(x[i]);
    if (ftz) asm volatile("mul.rz.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(c));
    else asm volatile("mul.rz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(c));
    y[i] = __float_as_uint(r);
}

// rcp/rsqrt.approx.ftz.f64 over all 2^20 mantissas at exponent E (low word lo): how many
// results differ from ref (the results at exponent 0, or for rsqrt 0/1 by parity) moved by
// the exponent rule; the first mismatches go to ex.
extern "C" __global__ void k_f64scan(int rsq, int E, U32 lo, const U32 *ref0, const U32 *ref1,
                                     unsigned long long *count, U32 *ex)
{
    U32 m = blockIdx.x * blockDim.x + threadIdx.x;   // 2^20 threads
    unsigned long long bits = (unsigned long long)((U32)(E + 1023) << 20 | m) << 32 | lo;
    double r, x = __longlong_as_double(bits);
    if (rsq) asm volatile("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    else asm volatile("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
    unsigned long long rb = __double_as_longlong(r);
    U32 hi = (U32)(rb >> 32), want;
    if (!rsq) want = ref0[m] - ((U32)E << 20);
    else { int par = E & 1; int half = (E - par) / 2; want = (par ? ref1 : ref0)[m] - ((U32)half << 20); }
    if (hi != want || (U32)rb != 0) {
        unsigned long long k = atomicAdd(count, 1ull);
        if (k < 8) { ex[4 * k] = (U32)(bits >> 32); ex[4 * k + 1] = lo; ex[4 * k + 2] = hi; ex[4 * k + 3] = (U32)rb; }
    }
}

// The MUFU.SIN/COS tables (run from the patched copy): y[i] = M(t) for t = k 2^-25 where
// k = base + i*step (the input bits are built with integer operations, so that ptxas cannot
// fold the scale into the 1/(2 pi) multiplication).
extern "C" __global__ void k_tab_sincos(int which, U32 base, U32 step, U32 *y, U32 n)
{
    U32 i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
    U32 k = base + i * step, bits = 0;
    if (k) {
        int e = 31 - __clz(k);                       // k = 1.f * 2^e, t = k * 2^-25
        bits = (U32)(e - 25 + 127) << 23 | ((k << (23 - e)) & 0x7fffffu);
        if (e > 23) bits = (U32)(e - 25 + 127) << 23 | ((k >> (e - 23)) & 0x7fffffu);
    }
    y[i] = __float_as_uint(mufu(which, __uint_as_float(bits)));
}

// tanh on the inputs e (exponent field) | j << q for j < n
extern "C" __global__ void k_tab_tanh(U32 e, int q, U32 *y, U32 n)
{
    U32 j = blockIdx.x * blockDim.x + threadIdx.x; if (j >= n) return;
    y[j] = __float_as_uint(mufu(2, __uint_as_float(e << 23 | j << q)));
}
