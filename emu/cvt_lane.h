/* cvt_lane.h - one lane of cvt between floats, and between floats and integers (exec_cvt.c).
 *
 * Here, where the compiled tier's C sees them too (jit/compile.c's prologue), so that its
 * inline conversions and the interpreter's handlers compute each lane with the same function:
 * the handlers pass the instruction's modifiers, rounding and operand fields, the compiled
 * code the same values as constants. Private to exec_cvt.c otherwise. Build with
 * -ffp-contract=off.
 */
#ifndef PTXEMU_CVT_LANE_H
#define PTXEMU_CVT_LANE_H

#include <stdint.h>
#include "fp.h"
#include "inst.h"

/* Float kinds. */
enum { FK_F16, FK_BF16, FK_F32, FK_F64, FK_TF32, FK_E4M3, FK_E5M2 };
/* Inst.aux8 bits */
enum { CF_FTZ = 1, CF_SAT = 2, CF_RELU = 4, CF_SATFIN = 8, CF_INT = 16 /* rnd is .rXi */ };
/* Inst.imm fields of integer operands: shift (64 - width) and signedness, source in bits
 * 0..7 and 16, destination in bits 8..15 and 17. */
#define IMM_SSH(in) ((int)((in)->imm & 0xff))
#define IMM_DSH(in) ((int)(((in)->imm >> 8) & 0xff))
#define IMM_SSG(in) ((int)(((in)->imm >> 16) & 1))
#define IMM_DSG(in) ((int)(((in)->imm >> 17) & 1))

FP_INLINE FpFmt fk_fmt(int k)
{
    switch (k) {
    case FK_F16: return FP_F16;
    case FK_BF16: return FP_BF16;
    case FK_F32: return FP_F32;
    case FK_TF32: return FP_TF32;
    case FK_E4M3: return FP_E4M3;
    case FK_E5M2: return FP_E5M2;
    default: return FP_F64;
    }
}

/* A source element of kind k to double (exact). */
FP_INLINE double fk_dec(int k, uint64_t v, int ftz)
{
    switch (k) {
    case FK_F32: {
        uint32_t u = (uint32_t)v;
        return (double)fp_bits_f32(ftz ? fp_ftz32(u) : u);
    }
    case FK_F64: return fp_bits_f64(v);
    case FK_F16: case FK_BF16: return fp_to_f64(v & 0xffff, fk_fmt(k));
    default: return fp_to_f64(v & 0xff, fk_fmt(k));
    }
}

/* x to kind k under rnd; results are zero-extended encodings. */
FP_INLINE uint64_t fk_enc(int k, double x, int rnd, int satfin, int ftz)
{
    switch (k) {
    case FK_F64: return fp_canon64(fp_f64_bits(x));
    case FK_F32: {
        uint32_t u = (rnd == RND_RN && !satfin) ? fp_canon32(fp_f32_bits((float)x))
                                                 : (uint32_t)fp_from_f64(x, FP_F32, rnd, satfin);
        return ftz ? fp_ftz32(u) : u;
    }
    case FK_TF32:                /* f32 layout with the 13 low mantissa bits zero */
        return fp_from_f64(x, FP_TF32, rnd, satfin) << 13;
    default: return fp_from_f64(x, fk_fmt(k), rnd, satfin);
    }
}

/* A NaN source v of kind sk converted to kind dk (see the file comment). */
FP_INLINE uint64_t cvt_nan(int sk, int dk, uint64_t v)
{
    uint64_t sign, frac;                            /* fraction left-aligned in 64 bits */
    switch (sk) {
    case FK_F64: sign = v >> 63; frac = v << 12; break;
    case FK_F32: sign = (v >> 31) & 1; frac = v << 41; break;
    case FK_BF16: sign = (v >> 15) & 1; frac = v << 57; break;
    default: sign = (v >> 15) & 1; frac = v << 54; break;
    }
    if (dk == FK_F64) return sign << 63 | 0x7ff8000000000000ull | frac >> 12;
    if (dk == FK_TF32) return v & 0xffffe000u;     /* the NaN truncated, not quieted */
    if (sk == FK_BF16 && dk == FK_F32) return (v & 0xffff) << 16;
    if (sk != FK_F64) return fk_fmt(dk == FK_TF32 ? FK_F32 : dk).nan;
    switch (dk) {
    case FK_F32: return sign << 31 | 0x7fc00000u | frac >> 41;
    case FK_BF16: return sign << 15 | 0x7fc0u | frac >> 57;
    case FK_F16: return sign << 15 | 0x7e00u | frac >> 54;
    default: return FP_NAN_F32;
    }
}

/* .sat and .relu on a float value before its final rounding. */
FP_INLINE double clampf(double x, int fl)
{
    if (fl & CF_SAT) x = x > 0 ? (x < 1 ? x : 1) : 0;
    if ((fl & CF_RELU) && x <= 0) x = 0;
    return x;
}

/* ---- one lane ------------------------------------------------------------------------ */

/* float -> float: source a of kind sk to kind dk; fl: CF_*, rnd: the rounding (.rXi when
 * CF_INT). */
FP_INLINE uint64_t cvt_ff_lane(uint64_t a, int sk, int dk, int fl, int rnd)
{
    int erd = (fl & CF_INT) ? RND_RN : rnd;         /* an integral value re-encodes exactly */
    double x = fk_dec(sk, a, fl & CF_FTZ);
    if (fl & CF_INT) x = fp_rint(x, rnd);
    if (x != x && !(fl & CF_SAT)) return cvt_nan(sk, dk, a);
    return fk_enc(dk, clampf(x, fl), erd, fl & CF_SATFIN, fl & CF_FTZ);
}

/* float -> integer: a of kind sk rounded by rnd (.rXi), saturated to the destination
 * (imm: IMM_DSH, IMM_DSG); NaN as the file comment of exec_cvt.c says. */
FP_INLINE uint64_t cvt_fi_lane(uint64_t a, int sk, int fl, int rnd, uint64_t imm)
{
    int sh = (int)((imm >> 8) & 0xff), sg = (int)((imm >> 17) & 1), wd = 64 - sh;
    double hi = fp_pow2(wd - sg);                   /* first value above the range */
    uint64_t maxv = sg ? (1ull << (wd - 1)) - 1 : ~0ull >> sh;
    uint64_t minv = sg ? ~maxv : 0;                 /* -2^(w-1), sign-extended */
    /* NaN: from f64 the destination's top bit alone (0x80, 0x8000, ...; sign-extended for
     * signed types); from narrower floats 0, except 0x8000000000000000 for 64-bit results */
    uint64_t nanv = sk == FK_F64 ? (sg ? minv : 1ull << (wd - 1)) : wd == 64 ? 1ull << 63 : 0;
    double r = fp_rint(fk_dec(sk, a, fl & CF_FTZ), rnd);
    if (r != r) return nanv;
    if (r >= hi) return maxv;
    if (sg) return r <= -hi ? minv : (uint64_t)(int64_t)r;
    return r <= 0 ? 0 : (uint64_t)r;
}

/* integer -> float: a of the source's width and sign (imm: IMM_SSH, IMM_SSG) to kind dk
 * under rnd; .sat clamps the integer to 0 or 1 first. */
FP_INLINE uint64_t cvt_if_lane(uint64_t a, int dk, int fl, int rnd, uint64_t imm)
{
    int sh = (int)(imm & 0xff), sg = (int)((imm >> 16) & 1);
    uint64_t u = a << sh;
    int64_t s = (int64_t)u >> sh;
    int neg = sg && s < 0;
    uint64_t mag = sg ? (neg ? 0 - (uint64_t)s : (uint64_t)s) : u >> sh;
    if (fl & CF_SAT) {                              /* integers clamp to 0 or 1 */
        mag = !neg && mag; neg = 0; s = (int64_t)mag;
    }
    if (rnd == RND_RN && dk == FK_F32) return fp_f32_bits(sg ? (float)s : (float)mag);
    if (rnd == RND_RN && dk == FK_F64) return fp_f64_bits(sg ? (double)s : (double)mag);
    return fp_from_int(mag, neg, fk_fmt(dk), rnd);
}

/* cvt.rna.satfinite.tf32.f32: what the H100 gives for an infinite or NaN input is the
 * truncated input less one tf32 ulp (+inf -> MAX_NORM, 0x7fc00001 -> 0x7fbfe000); finite
 * inputs round and clamp as usual. */
FP_INLINE uint64_t cvt_tf32_satfinite_lane(uint64_t a, int rnd)
{
    uint32_t u = (uint32_t)a;
    return (u & 0x7f800000u) == 0x7f800000u ? (u & 0xffffe000u) - 0x2000u
         : fp_from_f64(fp_bits_f32(u), FP_TF32, rnd, 1) << 13;
}

/* integer -> integer with or without .sat (imm: both operands' IMM_* fields): the source
 * extended by its sign, clamped to the destination's range when CF_SAT, cut to the
 * destination and extended into the row by its sign. */
FP_INLINE uint64_t cvt_ii_sat_lane(uint64_t a, int fl, uint64_t imm)
{
    int ssh = (int)(imm & 0xff), dsh = (int)((imm >> 8) & 0xff);
    int ssg = (int)((imm >> 16) & 1), dsg = (int)((imm >> 17) & 1);
    uint64_t dmax = dsg ? ~0ull >> (dsh + 1) : ~0ull >> dsh;   /* destination maximum */
    int64_t dmin = dsg ? -(int64_t)dmax - 1 : 0;
    uint64_t u = a << ssh;
    uint64_t v = ssg ? (uint64_t)((int64_t)u >> ssh) : u >> ssh;
    if (fl & CF_SAT) {
        if (ssg && (int64_t)v < 0) v = (int64_t)v < dmin ? (uint64_t)dmin : v;
        else if (v > dmax) v = dmax;
    }
    v <<= dsh;
    return dsg ? (uint64_t)((int64_t)v >> dsh) : v >> dsh;
}

#endif
