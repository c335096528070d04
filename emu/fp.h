/* fp.h - bit-exact floating-point helpers for the float, half and conversion handlers (and
 * for atomics on halves): narrow formats <-> double under every PTX rounding mode, done in
 * integer arithmetic so they never depend on the host's rounding mode; flush-to-zero and
 * the canonical NaNs the GPU produces.
 *
 * Contract: every function is inline and pure. Formats are described by an FpFmt passed by
 * value; with a constant FpFmt (FP_F16, FP_BF16, ...) the compiler folds it away.
 * Rounding modes are the RND_* values of inst.h (RND_NONE counts as RND_RN).
 */
#ifndef PTXEMU_FP_H
#define PTXEMU_FP_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "inst.h"

#define FP_INLINE static inline __attribute__((always_inline))

FP_INLINE uint32_t fp_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
FP_INLINE float fp_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
FP_INLINE uint64_t fp_f64_bits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
FP_INLINE double fp_bits_f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

/* NaN results. f32, f16 and bf16 arithmetic give these canonical NaNs whatever the inputs
 * (PTX ISA; checked on an H100). f64 arithmetic behaves like IEEE hardware with NaN
 * propagation instead (H100, tests/ptx/f64_arith): a NaN input comes out quieted with its
 * payload and sign (fp_nan64), an invalid operation gives the default NaN below. The fp8
 * NaNs are the formats' only (e4m3) or all-ones (e5m2) patterns. */
#define FP_NAN_F16  0x7fffu
#define FP_NAN_BF16 0x7fffu
#define FP_NAN_F32  0x7fffffffu
#define FP_NAN_F64  0xfff8000000000000ull
#define FP_NAN_E4M3 0x7fu
#define FP_NAN_E5M2 0x7fu

/* A binary format: mantissa bits, exponent bias, sign bit position, the largest finite
 * encoding without sign, whether maxfin + 1 encodes infinity (else everything above
 * maxfin is NaN, as in e4m3), and the canonical NaN. */
typedef struct FpFmt {
    int mbits, bias, sbit, has_inf;
    uint64_t maxfin, nan;
} FpFmt;

#define FP_F16  ((FpFmt){10, 15, 15, 1, 0x7bffu, FP_NAN_F16})
#define FP_BF16 ((FpFmt){7, 127, 15, 1, 0x7f7fu, FP_NAN_BF16})
#define FP_F32  ((FpFmt){23, 127, 31, 1, 0x7f7fffffu, FP_NAN_F32})
#define FP_F64  ((FpFmt){52, 1023, 63, 1, 0x7fefffffffffffffull, FP_NAN_F64})
/* tf32: f32 range with 10 mantissa bits; encoded here without the 13 low zero bits. */
#define FP_TF32 ((FpFmt){10, 127, 18, 1, 0x3fbffu, FP_NAN_F32 >> 13})
#define FP_E4M3 ((FpFmt){3, 7, 7, 0, 0x7eu, FP_NAN_E4M3})
#define FP_E5M2 ((FpFmt){2, 15, 7, 1, 0x7bu, FP_NAN_E5M2})

/* 2^k as a double, for k in [-1022, 1023]. */
FP_INLINE double fp_pow2(int k) { return fp_bits_f64((uint64_t)(k + 1023) << 52); }

/* Round the magnitude m * 2^e (m != 0) of a value with sign `neg` to format f. Returns the
 * encoding without sign. Overflow gives infinity or the largest finite value as IEEE
 * directed rounding says; satfinite (or a format without infinity) always clamps. */
FP_INLINE uint64_t fp_round_mag(uint64_t m, int e, int neg, FpFmt f, int rnd, int satfinite)
{
    int top = 63 - __builtin_clzll(m) + e;          /* floor(log2 |x|) */
    int emin = 1 - f.bias;
    int ex = top > emin ? top : emin;               /* exponent of the result's binade */
    int sh = ex - f.mbits - e;                      /* bits of m below the result's ulp */
    uint64_t q, rem, half;
    if (sh <= 0) {                                  /* exact: caller's m is short enough */
        q = m << -sh; rem = 0; half = 1;
    } else if (sh >= 65) {                          /* far below half an ulp, inexact */
        q = 0; rem = 1; half = 2;
    } else if (sh == 64) {
        q = 0; rem = m; half = 1ull << 63;
    } else {
        q = m >> sh; rem = m & ((1ull << sh) - 1); half = 1ull << (sh - 1);
    }
    int up;
    switch (rnd) {
    case RND_RZ:  up = 0; break;
    case RND_RM:  up = neg && rem; break;
    case RND_RP:  up = !neg && rem; break;
    case RND_RNA: up = rem >= half; break;
    default:      up = rem > half || (rem == half && (q & 1)); break;
    }
    q += (uint64_t)up;
    /* for normals q holds the implicit bit, which carries into the exponent field; a
     * carry out of the mantissa likewise bumps the exponent */
    uint64_t bits = ((uint64_t)(ex + f.bias - 1) << f.mbits) + q;
    if (bits > f.maxfin) {
        if (satfinite || !f.has_inf || rnd == RND_RZ || (rnd == RND_RM && !neg) ||
            (rnd == RND_RP && neg))
            return f.maxfin;
        return f.maxfin + 1;
    }
    return bits;
}

/* A double to format f (sign included). NaN gives f's canonical NaN; infinities give
 * infinity, or MAX_NORM with satfinite or in a format without infinity. */
FP_INLINE uint64_t fp_from_f64(double x, FpFmt f, int rnd, int satfinite)
{
    uint64_t u = fp_f64_bits(x);
    int neg = (int)(u >> 63);
    uint64_t sign = (uint64_t)neg << f.sbit;
    unsigned ex = (unsigned)(u >> 52) & 0x7ff;
    uint64_t fr = u & ((1ull << 52) - 1);
    if (ex == 0x7ff) {
        if (fr) return f.nan;
        return sign | ((f.has_inf && !satfinite) ? f.maxfin + 1 : f.maxfin);
    }
    if (ex == 0 && fr == 0) return sign;
    uint64_t m = ex ? fr | (1ull << 52) : fr;
    int e = ex ? (int)ex - 1075 : -1074;
    return sign | fp_round_mag(m, e, neg, f, rnd, satfinite);
}

/* An integer of magnitude mag and sign neg to format f. */
FP_INLINE uint64_t fp_from_int(uint64_t mag, int neg, FpFmt f, int rnd)
{
    if (!mag) return 0;
    return ((uint64_t)neg << f.sbit) | fp_round_mag(mag, 0, neg, f, rnd, 0);
}

/* Format f to double: exact for every format narrower than double. */
FP_INLINE double fp_to_f64(uint64_t bits, FpFmt f)
{
    uint64_t mag = bits & ((1ull << f.sbit) - 1);
    double s = (bits >> f.sbit) & 1 ? -1.0 : 1.0;
    if (mag > f.maxfin) {
        if (f.has_inf && mag == f.maxfin + 1) return s * __builtin_inf();
        return __builtin_nan("");
    }
    uint64_t m = mag & ((1ull << f.mbits) - 1);
    int ex = (int)(mag >> f.mbits);
    if (ex) m |= 1ull << f.mbits; else ex = 1;
    return s * ((double)m * fp_pow2(ex - f.bias - f.mbits));
}

/* Halves and bf16 <-> f32. */
FP_INLINE float fp_f16_to_f32(uint32_t h) { return (float)fp_to_f64(h & 0xffff, FP_F16); }
FP_INLINE float fp_bf16_to_f32(uint32_t h) { return fp_bits_f32((h & 0xffff) << 16); }
FP_INLINE uint32_t fp_f32_to_f16(float x, int rnd)
{
    return (uint32_t)fp_from_f64((double)x, FP_F16, rnd, 0);
}
FP_INLINE uint32_t fp_f32_to_bf16(float x, int rnd)
{
    return (uint32_t)fp_from_f64((double)x, FP_BF16, rnd, 0);
}

/* Flush subnormals to sign-preserving zero (.ftz). */
FP_INLINE uint32_t fp_ftz32(uint32_t u) { return (u & 0x7f800000u) ? u : (u & 0x80000000u); }
FP_INLINE uint64_t fp_ftz64(uint64_t u)
{
    return (u & 0x7ff0000000000000ull) ? u : (u & 0x8000000000000000ull);
}
FP_INLINE uint32_t fp_ftz16(uint32_t h) { return (h & 0x7c00u) ? h : (h & 0x8000u); }

/* The sign bits and f64's quiet bit (exec_float.c's abs, neg and copysign, whose expressions
 * the compiled code inlines). */
#define SIGN32 0x80000000u
#define SIGN64 0x8000000000000000ull
#define QUIET64 (1ull << 51)

/* NaN tests and canonicalisation on encodings. */
FP_INLINE int fp_isnan32(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
FP_INLINE int fp_isnan64(uint64_t u) { return (u & ~(1ull << 63)) > 0x7ff0000000000000ull; }
FP_INLINE int fp_isnan16(uint32_t h) { return (h & 0x7fffu) > 0x7c00u; }
FP_INLINE int fp_isnanbf16(uint32_t h) { return (h & 0x7fffu) > 0x7f80u; }
FP_INLINE uint32_t fp_canon32(uint32_t u) { return fp_isnan32(u) ? FP_NAN_F32 : u; }
FP_INLINE uint64_t fp_canon64(uint64_t u) { return fp_isnan64(u) ? FP_NAN_F64 : u; }

/* The f64 result r of an operation on a, b, c (repeat a for fewer inputs): when r is NaN,
 * the first NaN input quieted, else the default NaN (invalid operation). */
FP_INLINE uint64_t fp_nan64(double r, double a, double b, double c)
{
    uint64_t u = fp_f64_bits(r);
    if (!fp_isnan64(u)) return u;
    const uint64_t quiet = 1ull << 51;
    if (a != a) return fp_f64_bits(a) | quiet;
    if (b != b) return fp_f64_bits(b) | quiet;
    if (c != c) return fp_f64_bits(c) | quiet;
    return FP_NAN_F64;
}

/* a + b rounded to odd in double: the result then rounds correctly (once) to any format
 * of at most 51 significant bits. Needs the host in round-to-nearest (the default). */
FP_INLINE double fp_add_rto(double a, double b)
{
    double s = a + b;
    if (s - s != 0) return s;                       /* inf or NaN */
    double bb = s - a;
    double err = (a - (s - bb)) + (b - bb);         /* a + b == s + err exactly */
    if (err == 0) return s;
    uint64_t u = fp_f64_bits(s);
    if ((err < 0) != (s < 0)) u -= 1;               /* s was rounded away from zero */
    return fp_bits_f64(u | 1);
}

/* Half and bf16 addition / fma for atomics and the half handlers: exact products, one
 * rounding (round to nearest even) to the narrow format. */
FP_INLINE uint32_t fp_f16_add_rn(uint32_t a, uint32_t b)
{
    double r = fp_add_rto(fp_to_f64(a & 0xffff, FP_F16), fp_to_f64(b & 0xffff, FP_F16));
    return (uint32_t)fp_from_f64(r, FP_F16, RND_RN, 0);
}
FP_INLINE uint32_t fp_bf16_add_rn(uint32_t a, uint32_t b)
{
    double r = fp_add_rto(fp_to_f64(a & 0xffff, FP_BF16), fp_to_f64(b & 0xffff, FP_BF16));
    return (uint32_t)fp_from_f64(r, FP_BF16, RND_RN, 0);
}

/* Round half to even, whatever the host's rounding mode (x - floor(x) is exact). */
FP_INLINE double fp_roundeven(double x)
{
    double r = __builtin_floor(x), diff = x - r;
    if (diff > 0.5 || (diff == 0.5 && r * 0.5 != __builtin_floor(r * 0.5))) r += 1.0;
    return r == 0 ? __builtin_copysign(0.0, x) : r;
}

/* Round to an integral value (cvt .rni/.rzi/.rmi/.rpi, given as RND_RN..RND_RP). */
FP_INLINE double fp_rint(double x, int rnd)
{
    switch (rnd) {
    case RND_RZ: return __builtin_trunc(x);
    case RND_RM: return __builtin_floor(x);
    case RND_RP: return __builtin_ceil(x);
    case RND_RNA: return __builtin_round(x);
    default: return fp_roundeven(x);
    }
}

/* Binder helpers (translation time only). */

/* The rounding modifier of d: RND_RN..RND_RS, or RND_NONE. */
static inline int fp_desc_rnd(const InstDesc *d)
{
    static const int mods[] = {MOD_RN, MOD_RZ, MOD_RM, MOD_RP, MOD_RNA, MOD_RS};
    static const int rnds[] = {RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RS};
    for (int i = 0; i < 6; i++)
        if (desc_has(d, mods[i])) return rnds[i];
    return RND_NONE;
}

/* The integer-rounding modifier (.rni/.rzi/.rmi/.rpi) as RND_RN..RND_RP, or RND_NONE. */
static inline int fp_desc_irnd(const InstDesc *d)
{
    static const int mods[] = {MOD_RNI, MOD_RZI, MOD_RMI, MOD_RPI};
    for (int i = 0; i < 4; i++)
        if (desc_has(d, mods[i])) return RND_RN + i;
    return RND_NONE;
}

/* 1 when every modifier of d is in the list (terminated by -1). */
static inline int fp_mods_only(const InstDesc *d, const int *allowed)
{
    uint64_t m[sizeof d->mods / sizeof d->mods[0]];
    memcpy(m, d->mods, sizeof m);
    for (; *allowed >= 0; allowed++) m[*allowed >> 6] &= ~(1ull << (*allowed & 63));
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i]) return 0;
    return 1;
}

/* exec_half.c: f16/bf16/f16x2/bf16x2 forms of add, sub, mul, mad, fma, abs, neg, min,
 * max, ex2 and tanh (the binders of exec_float.c delegate here by type). */
const char *bind_half_arith(Inst *in, const InstDesc *d);

static inline int fp_ty_is_half(int t)
{
    return t == TY_F16 || t == TY_F16X2 || t == TY_BF16 || t == TY_BF16X2;
}

/* The exact result x is below the smallest normal f32 (.ftz flushes such results). */
#define TINY(x) (fabs(x) < 0x1p-126)

/* The f32 operand and result of an arithmetic handler (exec_float.c and the compiled
 * tier): .ftz inputs flushed, and the result flushed, clamped and its NaN made canonical. */
FP_INLINE float f32_in(uint64_t v, int ftz)
{
    uint32_t u = (uint32_t)v;
    return fp_bits_f32(ftz ? fp_ftz32(u) : u);
}

/* tiny: the exact result is below 2^-126 in magnitude. The GPU flushes such results under
 * .ftz even when they round up to the smallest normal (H100: mul.rn.ftz.f32 0x00ffffff *
 * 0.5 gives 0), so the flush looks at the exact value, not only at the rounded one. */
FP_INLINE uint64_t f32_out(float r, int ftz, int sat, int tiny)
{
    if (ftz && tiny) r = copysignf(0.0f, r);
    if (sat) r = r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f;   /* NaN and -0 -> +0 */
    uint32_t u = fp_canon32(fp_f32_bits(r));
    return ftz ? fp_ftz32(u) : u;
}

/* min/max (exec_float.c, and the compiled code's inline min/max): one NaN input gives the
 * other input; two (or any, with .NaN) give the canonical NaN (f64: b quieted, as the H100
 * does); -0 is below +0. .xorsign.abs compares |a| and |b| and gives the result the sign
 * sign(a) ^ sign(b) unless it is NaN. fl: 1 .ftz, 2 .NaN, 4 .xorsign.abs. */
FP_INLINE double fp_minmax_num(double a, double b, int is_max)   /* no NaN: -0 is below +0 */
{
    if (a == b) return (signbit(a) != 0) == is_max ? b : a;
    return (a < b) != is_max ? a : b;
}
FP_INLINE uint32_t fp_minmax32(uint32_t ua, uint32_t ub, int fl, int is_max)
{
    if (fl & 1) { ua = fp_ftz32(ua); ub = fp_ftz32(ub); }
    uint32_t xs = (ua ^ ub) & SIGN32;
    if (fl & 4) { ua &= ~SIGN32; ub &= ~SIGN32; }
    float a = fp_bits_f32(ua), b = fp_bits_f32(ub), m;
    if (a != a || b != b) m = ((fl & 2) || (a != a && b != b)) ? NAN : a != a ? b : a;
    else m = (float)fp_minmax_num(a, b, is_max);
    uint32_t r = fp_canon32(fp_f32_bits(m));
    if ((fl & 4) && !fp_isnan32(r)) r |= xs;
    return r;
}
FP_INLINE uint64_t fp_minmax64(uint64_t ua, uint64_t ub, int is_max)
{
    double a = fp_bits_f64(ua), b = fp_bits_f64(ub);
    if (a != a || b != b)
        return a != a && b != b ? ub | QUIET64 : (a != a ? ub : ua);
    return fp_f64_bits(fp_minmax_num(a, b, is_max));
}

FP_INLINE double f64_in(uint64_t v) { return fp_bits_f64(v); }

#endif
