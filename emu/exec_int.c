/* exec_int.c - integer arithmetic and bit-manipulation handlers (add..max, packed .u16x2/
 * .s16x2 add/min/max, carry chains, 24-bit multiplies, sad, popc/clz/bfind/fns/brev,
 * bfe/bfi/bmsk/szext, dp4a/dp2a).
 *
 * Semantics follow the PTX ISA; where it leaves a result unspecified (integer division by
 * zero, fns with base > 31) we return what an H100 returns, read on hardware and noted at
 * each helper. The carry flag CC.CF lives in Warp.cc, one bit per lane. Subtraction works
 * as the H100 does: a - b is a + ~b + 1, sub.cc leaves the carry of that sum (1 = no borrow)
 * and subc computes a + ~b + CF. Chains of sub.cc/subc match the ISA's borrow wording
 * either way; only mixed chains (add.cc then subc) tell them apart, and there the H100
 * gives 5 - 2 after a carrying add.cc = 3, not 2 (checked on hardware).
 */
#include "exec_int_tmpl.h"

/* ---------------------------------------------------------------- helpers */

static inline uint32_t sat32(int64_t v)
{
    return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}


/* ---------------------------------------------------------------- add, sub, mul, mad */

H_BIN(add_16, uint16_t, uint16_t, uint16_t, a + b)
H_BIN(add_32, uint32_t, uint32_t, uint32_t, a + b)
H_BIN(add_64, uint64_t, uint64_t, uint64_t, a + b)
H_BIN(add_sat_s32, int32_t, int32_t, uint32_t, sat32((int64_t)a + b))
H_BIN(sub_16, uint16_t, uint16_t, uint16_t, a - b)
H_BIN(sub_32, uint32_t, uint32_t, uint32_t, a - b)
H_BIN(sub_64, uint64_t, uint64_t, uint64_t, a - b)
H_BIN(sub_sat_s32, int32_t, int32_t, uint32_t, sat32((int64_t)a - b))
/* Packed .u16x2/.s16x2: expr on each 16-bit half (a, b of type T), results packed back. */
#define PK2(name, T, expr) \
static inline uint32_t name(uint32_t x, uint32_t y) \
{ \
    uint32_t r = 0; \
    for (int i = 0; i < 32; i += 16) { \
        T a = (T)(x >> i), b = (T)(y >> i); \
        r |= (uint32_t)(uint16_t)(expr) << i; \
    } \
    return r; \
}
/* The halves wrap independently: no carry crosses from the low half into the high one. */
PK2(pk_add, uint16_t, a + b)
H_BIN(add_16x2, uint32_t, uint32_t, uint32_t, pk_add(a, b))
static const Handler add_h[3] = { h_add_16, h_add_32, h_add_64 };
static const Handler sub_h[3] = { h_sub_16, h_sub_32, h_sub_64 };

H_BIN(mul_lo_16, uint16_t, uint16_t, uint16_t, (uint32_t)a * b)
H_BIN(mul_lo_32, uint32_t, uint32_t, uint32_t, a * b)
H_BIN(mul_lo_64, uint64_t, uint64_t, uint64_t, a * b)
H_BIN(mul_hi_u16, uint16_t, uint16_t, uint16_t, hi_u16(a, b))
H_BIN(mul_hi_s16, int16_t, int16_t, uint16_t, hi_s16(a, b))
H_BIN(mul_hi_u32, uint32_t, uint32_t, uint32_t, hi_u32(a, b))
H_BIN(mul_hi_s32, int32_t, int32_t, uint32_t, hi_s32(a, b))
H_BIN(mul_hi_u64, uint64_t, uint64_t, uint64_t, hi_u64(a, b))
H_BIN(mul_hi_s64, int64_t, int64_t, uint64_t, hi_s64(a, b))
H_BIN(mul_wide_u16, uint16_t, uint16_t, uint32_t, (uint32_t)a * b)
H_BIN(mul_wide_s16, int16_t, int16_t, uint32_t, (int32_t)a * b)
H_BIN(mul_wide_u32, uint32_t, uint32_t, uint64_t, (uint64_t)a * b)
H_BIN(mul_wide_s32, int32_t, int32_t, uint64_t, (int64_t)a * b)
static const Handler mul_lo_h[3] = { h_mul_lo_16, h_mul_lo_32, h_mul_lo_64 };
static const Handler mul_hi_h[2][3] = { { h_mul_hi_u16, h_mul_hi_u32, h_mul_hi_u64 },
                                        { h_mul_hi_s16, h_mul_hi_s32, h_mul_hi_s64 } };
static const Handler mul_wide_h[2][3] = { { h_mul_wide_u16, h_mul_wide_u32, NULL },
                                          { h_mul_wide_s16, h_mul_wide_s32, NULL } };

H_TER(mad_lo_16, uint16_t, uint16_t, uint16_t, uint16_t, (uint32_t)a * b + c)
H_TER(mad_lo_32, uint32_t, uint32_t, uint32_t, uint32_t, a * b + c)
H_TER(mad_lo_64, uint64_t, uint64_t, uint64_t, uint64_t, a * b + c)
H_TER(mad_hi_u16, uint16_t, uint16_t, uint16_t, uint16_t, hi_u16(a, b) + c)
H_TER(mad_hi_s16, int16_t, int16_t, uint16_t, uint16_t, hi_s16(a, b) + c)
H_TER(mad_hi_u32, uint32_t, uint32_t, uint32_t, uint32_t, hi_u32(a, b) + c)
H_TER(mad_hi_s32, int32_t, int32_t, uint32_t, uint32_t, hi_s32(a, b) + c)
H_TER(mad_hi_u64, uint64_t, uint64_t, uint64_t, uint64_t, hi_u64(a, b) + c)
H_TER(mad_hi_s64, int64_t, int64_t, uint64_t, uint64_t, hi_s64(a, b) + c)
H_TER(mad_wide_u16, uint16_t, uint16_t, uint32_t, uint32_t, (uint32_t)a * b + c)
H_TER(mad_wide_s16, int16_t, int16_t, uint32_t, uint32_t, (uint32_t)((int32_t)a * b) + c)
H_TER(mad_wide_u32, uint32_t, uint32_t, uint64_t, uint64_t, (uint64_t)a * b + c)
H_TER(mad_wide_s32, int32_t, int32_t, uint64_t, uint64_t, (uint64_t)((int64_t)a * b) + c)
/* The sum is formed exactly, then clamped: mad.hi.sat.s32 never wraps. */
H_TER(mad_hi_sat_s32, int32_t, int32_t, int32_t, uint32_t, sat32((int64_t)(int32_t)hi_s32(a, b) + c))
static const Handler mad_lo_h[3] = { h_mad_lo_16, h_mad_lo_32, h_mad_lo_64 };
static const Handler mad_hi_h[2][3] = { { h_mad_hi_u16, h_mad_hi_u32, h_mad_hi_u64 },
                                        { h_mad_hi_s16, h_mad_hi_s32, h_mad_hi_s64 } };
static const Handler mad_wide_h[2][3] = { { h_mad_wide_u16, h_mad_wide_u32, NULL },
                                          { h_mad_wide_s16, h_mad_wide_s32, NULL } };

/* The plain forms idle.c evaluates on its own: which of add, sub, mul.lo, mad.lo, mul.wide
 * and mad.wide of 32 or 64 bits in is (IA_*, width in *bits, .wide's source signedness in
 * *sgn), or IA_NONE (16-bit, .hi, .sat, carries, packed halves). Known by the handler the
 * binder chose, so nothing but the binder decodes modifiers. */
int int_affine_form(const Inst *in, int *bits, int *sgn)
{
    *sgn = 0;
    for (int k = 1; k < 3; k++) {
        *bits = k == 1 ? 32 : 64;
        if (in->fn == add_h[k]) return IA_ADD;
        if (in->fn == sub_h[k]) return IA_SUB;
        if (in->fn == mul_lo_h[k]) return IA_MUL;
        if (in->fn == mad_lo_h[k]) return IA_MAD;
    }
    *bits = 32;   /* the sources' width; the result is twice as wide */
    for (int s = 0; s < 2; s++) {
        *sgn = s;
        if (in->fn == mul_wide_h[s][1]) return IA_MUL_WIDE;
        if (in->fn == mad_wide_h[s][1]) return IA_MAD_WIDE;
    }
    return IA_NONE;
}

/* ---------------------------------------------------------------- carry chains
 * d = FIRST + SECOND + carry-in (SECOND complemented for subtraction, whose carry-in is 1
 * without CIN), computed in a type twice as wide so bit W of the sum is the carry out.
 * CIN: the carry-in is CC.CF; COUT: write CC.CF. */
#define H_CARRY(name, UT, WT, W, FIRST, SECOND, SUB, CIN, COUT) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]), *C = ROW(w, in->s[2]); \
    uint32_t cc = w->cc, out = 0; \
    (void)C; \
    FOR_LANES(mask, l) { \
        UT y0 = (UT)(SECOND); \
        WT x = (UT)(FIRST), y = (SUB) ? (UT)~y0 : y0; \
        WT ci = (CIN) ? (cc >> l) & 1u : (SUB) ? 1u : 0u; \
        WT r = x + y + ci; \
        d[l] = (UT)r; \
        out |= (uint32_t)((r >> (W)) & 1u) << l; \
    } \
    if (COUT) w->cc = (cc & ~mask) | out; \
    return STEP_NEXT; \
}
/* The three carry variants of one operation: carry out only, carry in only, both. */
#define H_CARRY3(name, UT, WT, W, FIRST, SECOND, SUB) \
    H_CARRY(name##_co, UT, WT, W, FIRST, SECOND, SUB, 0, 1) \
    H_CARRY(name##_ci, UT, WT, W, FIRST, SECOND, SUB, 1, 0) \
    H_CARRY(name##_cio, UT, WT, W, FIRST, SECOND, SUB, 1, 1) \
    static const Handler name##_cc[3] = { h_##name##_co, h_##name##_ci, h_##name##_cio };

H_CARRY3(addk_32, uint32_t, uint64_t, 32, A[l], B[l], 0)
H_CARRY3(addk_64, uint64_t, u128, 64, A[l], B[l], 0)
H_CARRY3(subk_32, uint32_t, uint64_t, 32, A[l], B[l], 1)
H_CARRY3(subk_64, uint64_t, u128, 64, A[l], B[l], 1)
H_CARRY3(madk_lo_32, uint32_t, uint64_t, 32, (uint32_t)A[l] * (uint32_t)B[l], C[l], 0)
H_CARRY3(madk_lo_64, uint64_t, u128, 64, A[l] * B[l], C[l], 0)
H_CARRY3(madk_hi_u32, uint32_t, uint64_t, 32, hi_u32((uint32_t)A[l], (uint32_t)B[l]), C[l], 0)
H_CARRY3(madk_hi_s32, uint32_t, uint64_t, 32, hi_s32((int32_t)A[l], (int32_t)B[l]), C[l], 0)
H_CARRY3(madk_hi_u64, uint64_t, u128, 64, hi_u64(A[l], B[l]), C[l], 0)
H_CARRY3(madk_hi_s64, uint64_t, u128, 64, hi_s64((int64_t)A[l], (int64_t)B[l]), C[l], 0)

/* Pick a carry variant: tables are indexed co, ci, cio; cin without cout is index 1. */
static const char *carry_pick(Inst *in, const InstDesc *d, const Handler *t32,
                              const Handler *t64, int cin, int cout)
{
    int t = d->types[0];
    if (!ty_is_int(t) || (ty_bits(t) != 32 && ty_bits(t) != 64))
        return "carry arithmetic needs type .u32, .s32, .u64 or .s64";
    const Handler *tab = ty_bits(t) == 32 ? t32 : t64;
    in->fn = tab[cin ? (cout ? 2 : 1) : 0];
    return NULL;
}

/* ---------------------------------------------------------------- div, rem, abs, neg, min, max */

H_BIN(div_u16, uint16_t, uint16_t, uint16_t, udiv_16(a, b))
H_BIN(div_s16, int16_t, int16_t, uint16_t, sdiv_16(a, b))
H_BIN(div_u32, uint32_t, uint32_t, uint32_t, udiv_32(a, b))
H_BIN(div_s32, int32_t, int32_t, uint32_t, sdiv_32(a, b))
H_BIN(div_u64, uint64_t, uint64_t, uint64_t, udiv_64(a, b))
H_BIN(div_s64, int64_t, int64_t, uint64_t, sdiv_64(a, b))
H_BIN(rem_u16, uint16_t, uint16_t, uint16_t, urem_16(a, b))
H_BIN(rem_s16, int16_t, int16_t, uint16_t, srem_16(a, b))
H_BIN(rem_u32, uint32_t, uint32_t, uint32_t, urem_32(a, b))
H_BIN(rem_s32, int32_t, int32_t, uint32_t, srem_32(a, b))
H_BIN(rem_u64, uint64_t, uint64_t, uint64_t, urem_64(a, b))
H_BIN(rem_s64, int64_t, int64_t, uint64_t, srem_64(a, b))
static const Handler div_h[2][3] = { { h_div_u16, h_div_u32, h_div_u64 },
                                     { h_div_s16, h_div_s32, h_div_s64 } };
static const Handler rem_h[2][3] = { { h_rem_u16, h_rem_u32, h_rem_u64 },
                                     { h_rem_s16, h_rem_s32, h_rem_s64 } };

/* abs(MIN) and neg(MIN) wrap to MIN. */
H_UN(abs_s16, int16_t, uint16_t, a < 0 ? 0u - (uint16_t)a : (uint16_t)a)
H_UN(abs_s32, int32_t, uint32_t, a < 0 ? 0u - (uint32_t)a : (uint32_t)a)
H_UN(abs_s64, int64_t, uint64_t, a < 0 ? 0u - (uint64_t)a : (uint64_t)a)
H_UN(neg_16, uint16_t, uint16_t, 0u - a)
H_UN(neg_32, uint32_t, uint32_t, 0u - a)
H_UN(neg_64, uint64_t, uint64_t, 0u - a)
static const Handler abs_h[3] = { h_abs_s16, h_abs_s32, h_abs_s64 };
static const Handler neg_h[3] = { h_neg_16, h_neg_32, h_neg_64 };

H_BIN(min_u16, uint16_t, uint16_t, uint16_t, MINV(a, b))
H_BIN(min_s16, int16_t, int16_t, uint16_t, MINV(a, b))
H_BIN(min_u32, uint32_t, uint32_t, uint32_t, MINV(a, b))
H_BIN(min_s32, int32_t, int32_t, uint32_t, MINV(a, b))
H_BIN(min_u64, uint64_t, uint64_t, uint64_t, MINV(a, b))
H_BIN(min_s64, int64_t, int64_t, uint64_t, MINV(a, b))
H_BIN(max_u16, uint16_t, uint16_t, uint16_t, MAXV(a, b))
H_BIN(max_s16, int16_t, int16_t, uint16_t, MAXV(a, b))
H_BIN(max_u32, uint32_t, uint32_t, uint32_t, MAXV(a, b))
H_BIN(max_s32, int32_t, int32_t, uint32_t, MAXV(a, b))
H_BIN(max_u64, uint64_t, uint64_t, uint64_t, MAXV(a, b))
H_BIN(max_s64, int64_t, int64_t, uint64_t, MAXV(a, b))
H_BIN(min_relu_s32, int32_t, int32_t, uint32_t, MAXV(MINV(a, b), 0))
H_BIN(max_relu_s32, int32_t, int32_t, uint32_t, MAXV(MAXV(a, b), 0))
PK2(pk_min_u, uint16_t, MINV(a, b))
PK2(pk_min_s, int16_t, MINV(a, b))
PK2(pk_max_u, uint16_t, MAXV(a, b))
PK2(pk_max_s, int16_t, MAXV(a, b))
PK2(pk_min_relu_s, int16_t, MAXV(MINV(a, b), 0))
PK2(pk_max_relu_s, int16_t, MAXV(MAXV(a, b), 0))
H_BIN(min_u16x2, uint32_t, uint32_t, uint32_t, pk_min_u(a, b))
H_BIN(min_s16x2, uint32_t, uint32_t, uint32_t, pk_min_s(a, b))
H_BIN(max_u16x2, uint32_t, uint32_t, uint32_t, pk_max_u(a, b))
H_BIN(max_s16x2, uint32_t, uint32_t, uint32_t, pk_max_s(a, b))
H_BIN(min_relu_s16x2, uint32_t, uint32_t, uint32_t, pk_min_relu_s(a, b))
H_BIN(max_relu_s16x2, uint32_t, uint32_t, uint32_t, pk_max_relu_s(a, b))
/* Per operation: plain .u16x2, plain .s16x2, .relu.s16x2. */
static const Handler min16x2_h[3] = { h_min_u16x2, h_min_s16x2, h_min_relu_s16x2 };
static const Handler max16x2_h[3] = { h_max_u16x2, h_max_s16x2, h_max_relu_s16x2 };
static const Handler min_h[2][3] = { { h_min_u16, h_min_u32, h_min_u64 },
                                     { h_min_s16, h_min_s32, h_min_s64 } };
static const Handler max_h[2][3] = { { h_max_u16, h_max_u32, h_max_u64 },
                                     { h_max_s16, h_max_s32, h_max_s64 } };

/* ---------------------------------------------------------------- 24-bit multiplies, sad */

static inline int64_t s24(uint32_t x) { return (int32_t)(x << 8) >> 8; }
static inline uint64_t u24(uint32_t x) { return x & 0xffffffu; }

H_BIN(mul24_lo_u32, uint32_t, uint32_t, uint32_t, u24(a) * u24(b))
H_BIN(mul24_lo_s32, uint32_t, uint32_t, uint32_t, s24(a) * s24(b))
H_BIN(mul24_hi_u32, uint32_t, uint32_t, uint32_t, (u24(a) * u24(b)) >> 16)
H_BIN(mul24_hi_s32, uint32_t, uint32_t, uint32_t, (s24(a) * s24(b)) >> 16)
H_TER(mad24_lo_u32, uint32_t, uint32_t, uint32_t, uint32_t, (uint32_t)(u24(a) * u24(b)) + c)
H_TER(mad24_lo_s32, uint32_t, uint32_t, uint32_t, uint32_t, (uint32_t)(s24(a) * s24(b)) + c)
H_TER(mad24_hi_u32, uint32_t, uint32_t, uint32_t, uint32_t, (uint32_t)((u24(a) * u24(b)) >> 16) + c)
H_TER(mad24_hi_s32, uint32_t, uint32_t, uint32_t, uint32_t, (uint32_t)((s24(a) * s24(b)) >> 16) + c)
H_TER(mad24_hi_sat_s32, uint32_t, uint32_t, int32_t, uint32_t,
      sat32((int32_t)(uint32_t)((s24(a) * s24(b)) >> 16) + (int64_t)c))
static const Handler mul24_h[2][2] = { { h_mul24_lo_u32, h_mul24_lo_s32 },
                                       { h_mul24_hi_u32, h_mul24_hi_s32 } };
static const Handler mad24_h[2][2] = { { h_mad24_lo_u32, h_mad24_lo_s32 },
                                       { h_mad24_hi_u32, h_mad24_hi_s32 } };

/* d = c + |a - b|; the difference is taken in the unsigned type of the width. */
#define ABSDIFF(UT, a, b) ((a) < (b) ? (UT)((UT)(b) - (UT)(a)) : (UT)((UT)(a) - (UT)(b)))
H_TER(sad_u16, uint16_t, uint16_t, uint16_t, uint16_t, c + ABSDIFF(uint16_t, a, b))
H_TER(sad_s16, int16_t, int16_t, uint16_t, uint16_t, c + ABSDIFF(uint16_t, a, b))
H_TER(sad_u32, uint32_t, uint32_t, uint32_t, uint32_t, c + ABSDIFF(uint32_t, a, b))
H_TER(sad_s32, int32_t, int32_t, uint32_t, uint32_t, c + ABSDIFF(uint32_t, a, b))
H_TER(sad_u64, uint64_t, uint64_t, uint64_t, uint64_t, c + ABSDIFF(uint64_t, a, b))
H_TER(sad_s64, int64_t, int64_t, uint64_t, uint64_t, c + ABSDIFF(uint64_t, a, b))
static const Handler sad_h[2][3] = { { h_sad_u16, h_sad_u32, h_sad_u64 },
                                     { h_sad_s16, h_sad_s32, h_sad_s64 } };

/* ---------------------------------------------------------------- bit counting and reversal */

H_UN(popc_32, uint32_t, uint32_t, __builtin_popcount(a))
H_UN(popc_64, uint64_t, uint32_t, __builtin_popcountll(a))
H_UN(clz_32, uint32_t, uint32_t, a ? __builtin_clz(a) : 32)
H_UN(clz_64, uint64_t, uint32_t, a ? __builtin_clzll(a) : 64)

static inline uint64_t brev64(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(x);
}
H_UN(brev_32, uint32_t, uint32_t, brev64(a) >> 32)
H_UN(brev_64, uint64_t, uint64_t, brev64(a))

/* bfind: position of the most significant non-sign bit (a negative signed input is
 * complemented first); 0xffffffff when there is none; .shiftamt gives msb - position. */
static inline uint32_t bfind(uint64_t a, int msb, int sgn, int shiftamt)
{
    if (sgn && ((a >> msb) & 1)) a = ~a & (msb == 63 ? ~0ull : (1ull << (msb + 1)) - 1);
    if (!a) return 0xffffffffu;
    uint32_t pos = 63u - (uint32_t)__builtin_clzll(a);
    return shiftamt ? (uint32_t)msb - pos : pos;
}
H_UN(bfind_u32, uint32_t, uint32_t, bfind(a, 31, 0, 0))
H_UN(bfind_s32, uint32_t, uint32_t, bfind(a, 31, 1, 0))
H_UN(bfind_u64, uint64_t, uint32_t, bfind(a, 63, 0, 0))
H_UN(bfind_s64, uint64_t, uint32_t, bfind(a, 63, 1, 0))
H_UN(bfind_sa_u32, uint32_t, uint32_t, bfind(a, 31, 0, 1))
H_UN(bfind_sa_s32, uint32_t, uint32_t, bfind(a, 31, 1, 1))
H_UN(bfind_sa_u64, uint64_t, uint32_t, bfind(a, 63, 0, 1))
H_UN(bfind_sa_s64, uint64_t, uint32_t, bfind(a, 63, 1, 1))
/* [shiftamt][signed][32/64] */
static const Handler bfind_h[2][2][2] = {
    { { h_bfind_u32, h_bfind_u64 }, { h_bfind_s32, h_bfind_s64 } },
    { { h_bfind_sa_u32, h_bfind_sa_u64 }, { h_bfind_sa_s32, h_bfind_sa_s64 } } };

/* fns: the n-th set bit of mask counting from base (towards bit 31 for a positive offset,
 * towards bit 0 for a negative one; offset 0 tests bit base itself). A base above 31 is
 * undefined in PTX; the H100 answers "not found" (0xffffffff) there, and 0 for an offset
 * of INT32_MIN whatever the mask and base (8960 cases compared on an H100). */
static inline uint32_t fns(uint32_t m, uint32_t base, int32_t off)
{
    if (off == INT32_MIN) return 0;
    if (base > 31) return 0xffffffffu;
    if (off == 0) return (m >> base) & 1 ? base : 0xffffffffu;
    uint32_t count = (off > 0 ? (uint32_t)off : 0u - (uint32_t)off) - 1;
    int inc = off > 0 ? 1 : -1;
    for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc)
        if ((m >> pos) & 1) {
            if (count == 0) return (uint32_t)pos;
            count--;
        }
    return 0xffffffffu;
}
H_TER(fns_b32, uint32_t, uint32_t, int32_t, uint32_t, fns(a, b, c))

/* ---------------------------------------------------------------- bit fields */

static inline uint64_t low_mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

/* The bit-field position and length operands: the 32-bit bfe/bfi read only their low 8
 * bits (pos 0x104 acts as 4), the 64-bit forms the whole 32-bit value (pos 0x104 is past
 * the word: bfe gives 0 or the sign fill, bfi inserts nothing), as measured on an H100. */
static inline uint64_t bf_count(uint32_t v, int msb) { return msb == 31 ? v & 0xffu : v; }

/* bfe: extract len bits at pos; signed types fill with the field's top bit, or with bit msb
 * when the field runs past it. Counts are 64-bit so pos + len cannot wrap. */
static inline uint64_t bfe(uint64_t a, uint32_t b, uint32_t c, int msb, int sgn)
{
    uint64_t pos = bf_count(b, msb), len = bf_count(c, msb), top = (uint64_t)msb;
    if (len == 0) return 0;
    a &= low_mask((unsigned)msb + 1);
    uint64_t sbit = sgn ? (a >> (pos + len - 1 < top ? pos + len - 1 : top)) & 1 : 0;
    if (pos > top) return sbit ? low_mask((unsigned)msb + 1) : 0;
    unsigned n = (unsigned)(len < top + 1 - pos ? len : top + 1 - pos);
    uint64_t m = low_mask(n), v = (a >> pos) & m;
    return (sbit ? v | ~m : v) & low_mask((unsigned)msb + 1);
}
H_TER(bfe_u32, uint32_t, uint32_t, uint32_t, uint32_t, bfe(a, b, c, 31, 0))
H_TER(bfe_s32, uint32_t, uint32_t, uint32_t, uint32_t, bfe(a, b, c, 31, 1))
H_TER(bfe_u64, uint64_t, uint32_t, uint32_t, uint64_t, bfe(a, b, c, 63, 0))
H_TER(bfe_s64, uint64_t, uint32_t, uint32_t, uint64_t, bfe(a, b, c, 63, 1))

/* bfi: insert the low len bits of a into b at pos; nothing past msb is written. */
static inline uint64_t bfi(uint64_t a, uint64_t b, uint32_t c, uint32_t e, int msb)
{
    uint64_t pos = bf_count(c, msb), len = bf_count(e, msb), top = (uint64_t)msb;
    if (len == 0 || pos > top) return b;
    unsigned n = (unsigned)(len < top + 1 - pos ? len : top + 1 - pos);
    uint64_t m = low_mask(n) << pos;
    return (b & ~m) | ((a << pos) & m);
}
H_QUAD(bfi_b32, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, bfi(a, b, c, e, 31))
H_QUAD(bfi_b64, uint64_t, uint64_t, uint32_t, uint32_t, uint64_t, bfi(a, b, c, e, 63))

/* bmsk: b bits of ones starting at bit a (PTX ISA pseudo-code, .clamp or .wrap). */
static inline uint32_t bmsk(uint32_t a, uint32_t b, int clamp)
{
    uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    int over = sum >= 32;
    if (clamp && a >= 32) { over = 1; mask0 = 0; }
    if (clamp && b >= 32) over = 1;
    if (over) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
}
H_BIN(bmsk_clamp, uint32_t, uint32_t, uint32_t, bmsk(a, b, 1))
H_BIN(bmsk_wrap, uint32_t, uint32_t, uint32_t, bmsk(a, b, 0))

/* szext: keep the low N = b bits of a, sign- or zero-extended (PTX ISA pseudo-code). */
static inline uint32_t szext(uint32_t a, uint32_t b, int clamp, int sgn)
{
    uint32_t b1 = b & 0x1f;
    int too_large = b >= 32 && clamp;
    uint32_t mask = too_large ? 0 : ~0u << b1;
    int sbit = (b1 == 0 || too_large || !sgn) ? 0 : (a >> ((b1 - 1) & 0x1f)) & 1;
    return (a & ~mask) | (sbit ? mask : 0);
}
H_BIN(szext_clamp_u32, uint32_t, uint32_t, uint32_t, szext(a, b, 1, 0))
H_BIN(szext_clamp_s32, uint32_t, uint32_t, uint32_t, szext(a, b, 1, 1))
H_BIN(szext_wrap_u32, uint32_t, uint32_t, uint32_t, szext(a, b, 0, 0))
H_BIN(szext_wrap_s32, uint32_t, uint32_t, uint32_t, szext(a, b, 0, 1))

/* ---------------------------------------------------------------- dot products */

static inline int32_t byte_x(uint32_t v, int i, int sgn)
{
    uint32_t x = (v >> (8 * i)) & 0xff;
    return sgn ? (int32_t)(int8_t)x : (int32_t)x;
}
static inline int32_t half_x(uint32_t v, int i, int sgn)
{
    uint32_t x = (v >> (16 * i)) & 0xffff;
    return sgn ? (int32_t)(int16_t)x : (int32_t)x;
}
/* Products of bytes fit in 32 bits; the sum wraps modulo 2^32 like the GPU's. */
static inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
    uint32_t d = c;
    for (int i = 0; i < 4; i++) d += (uint32_t)(byte_x(a, i, sa) * byte_x(b, i, sb));
    return d;
}
static inline uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb, int hi)
{
    uint32_t d = c;
    for (int i = 0; i < 2; i++)
        d += (uint32_t)((int64_t)half_x(a, i, sa) * byte_x(b, 2 * hi + i, sb));
    return d;
}
#define DP4A(sfx, SA, SB) H_TER(dp4a_##sfx, uint32_t, uint32_t, uint32_t, uint32_t, dp4a(a, b, c, SA, SB))
#define DP2A(sfx, SA, SB, HI) \
    H_TER(dp2a_##sfx, uint32_t, uint32_t, uint32_t, uint32_t, dp2a(a, b, c, SA, SB, HI))
DP4A(uu, 0, 0) DP4A(us, 0, 1) DP4A(su, 1, 0) DP4A(ss, 1, 1)
DP2A(lo_uu, 0, 0, 0) DP2A(lo_us, 0, 1, 0) DP2A(lo_su, 1, 0, 0) DP2A(lo_ss, 1, 1, 0)
DP2A(hi_uu, 0, 0, 1) DP2A(hi_us, 0, 1, 1) DP2A(hi_su, 1, 0, 1) DP2A(hi_ss, 1, 1, 1)
/* SIMD video instructions (vadd4 ... vmax2). Elements are the bytes (4) or halfwords (2) of a
 * and b, sign- or zero-extended by .atype and .btype; each op is computed at full width.
 * vavrg rounds halves away from zero (measured on the H100: avg(-128, 127) = -1).
 * Merge form: each result, saturated to the element range of .dtype with .sat or else cut to
 * its low bits, is an element of d. Accumulate form (.add): d = c + the sum of the results.
 * The op and flags come from the instruction (aux8, bop), fixed at bind time. */
enum { VS_ADD, VS_SUB, VS_AVRG, VS_ABSDIFF, VS_MIN, VS_MAX };
enum { VF_SA = 1, VF_SB = 2, VF_SD = 4, VF_SAT = 8, VF_ACC = 16, VF_TWO = 32 };
static inline int32_t vs_elem(uint32_t x, int i, int bits, int sgn)
{
    uint32_t e = (x >> (i * bits)) & ((1u << bits) - 1);
    return sgn ? (int32_t)(e << (32 - bits)) >> (32 - bits) : (int32_t)e;
}
static inline uint32_t vsimd(uint32_t a, uint32_t b, uint32_t c, int op, unsigned f)
{
    int n = f & VF_TWO ? 2 : 4, bits = 32 / n;
    int32_t lo = f & VF_SD ? -(1 << (bits - 1)) : 0;
    int32_t hi = f & VF_SD ? (1 << (bits - 1)) - 1 : (int32_t)((1u << bits) - 1);
    uint32_t d = 0, sum = c;
    for (int i = 0; i < n; i++) {
        int64_t x = vs_elem(a, i, bits, f & VF_SA), y = vs_elem(b, i, bits, f & VF_SB), r;
        switch (op) {
        case VS_ADD: r = x + y; break;
        case VS_SUB: r = x - y; break;
        case VS_AVRG: r = x + y >= 0 ? (x + y + 1) / 2 : -((1 - x - y) / 2); break;   /* halves away from 0 (measured) */
        case VS_ABSDIFF: r = x > y ? x - y : y - x; break;
        case VS_MIN: r = x < y ? x : y; break;
        default: r = x > y ? x : y; break;
        }
        if (f & VF_ACC) { sum += (uint32_t)r; continue; }
        if (f & VF_SAT) r = r < lo ? lo : r > hi ? hi : r;
        d |= ((uint32_t)r & ((1u << bits) - 1)) << (i * bits);
    }
    return f & VF_ACC ? sum : d;
}
H_TER(vsimd, uint32_t, uint32_t, uint32_t, uint32_t, vsimd(a, b, c, in->aux8, in->bop))
static const Handler dp4a_h[2][2] = { { h_dp4a_uu, h_dp4a_us }, { h_dp4a_su, h_dp4a_ss } };
static const Handler dp2a_h[2][2][2] = {
    { { h_dp2a_lo_uu, h_dp2a_lo_us }, { h_dp2a_lo_su, h_dp2a_lo_ss } },
    { { h_dp2a_hi_uu, h_dp2a_hi_us }, { h_dp2a_hi_su, h_dp2a_hi_ss } } };

/* ---------------------------------------------------------------- binders */

/* An integer type (.uN/.sN) of 16, 32 or 64 bits, or -1. */
static int int_ix(int t) { return ty_is_int(t) ? wix(t) : -1; }

/* Exactly one of .lo/.hi/.wide; 0 = lo, 1 = hi, 2 = wide, -1 none or several. */
static int mul_mode(const InstDesc *d, int allow_default_lo)
{
    int lo = desc_has(d, MOD_LO), hi = desc_has(d, MOD_HI), wide = desc_has(d, MOD_WIDE);
    if (lo + hi + wide > 1) return -1;
    if (hi) return 1;
    if (wide) return 2;
    return lo || allow_default_lo ? 0 : -1;
}

const char *bind_int_add(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = int_ix(t);
    if (e) return e;
    if (ty_is_int16x2(t)) {
        if (desc_has(d, MOD_CC) || desc_has(d, MOD_SAT))
            return "add: .cc and .sat do not apply to .u16x2/.s16x2";
        in->fn = h_add_16x2;
        return NULL;
    }
    if (k < 0) return "add: unsupported integer type";
    if (desc_has(d, MOD_CC)) {
        if (desc_has(d, MOD_SAT)) return "add: .sat cannot be combined with .cc";
        return carry_pick(in, d, addk_32_cc, addk_64_cc, 0, 1);
    }
    if (desc_has(d, MOD_SAT))
        return set_fn(in, t == TY_S32 ? h_add_sat_s32 : NULL, "add.sat needs type .s32");
    in->fn = add_h[k];
    return NULL;
}

const char *bind_int_sub(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = int_ix(t);
    if (e) return e;
    if (k < 0) return "sub: unsupported integer type";
    if (desc_has(d, MOD_CC)) {
        if (desc_has(d, MOD_SAT)) return "sub: .sat cannot be combined with .cc";
        return carry_pick(in, d, subk_32_cc, subk_64_cc, 0, 1);
    }
    if (desc_has(d, MOD_SAT))
        return set_fn(in, t == TY_S32 ? h_sub_sat_s32 : NULL, "sub.sat needs type .s32");
    in->fn = sub_h[k];
    return NULL;
}

const char *bind_int_mul(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = int_ix(t), m = mul_mode(d, 0), s = ty_is_signed(t);
    if (e) return e;
    if (k < 0) return "mul: unsupported integer type";
    if (m < 0) return "mul needs exactly one of .lo, .hi, .wide";
    if (m == 0) in->fn = mul_lo_h[k];
    else if (m == 1) in->fn = mul_hi_h[s][k];
    else return set_fn(in, mul_wide_h[s][k], "mul.wide needs a 16- or 32-bit type");
    return NULL;
}

const char *bind_int_mad(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    int t = d->types[0], k = int_ix(t), m = mul_mode(d, 0), s = ty_is_signed(t);
    if (e) return e;
    if (k < 0) return "mad: unsupported integer type";
    if (m < 0) return "mad needs exactly one of .lo, .hi, .wide";
    if (desc_has(d, MOD_CC)) {
        if (m == 2 || desc_has(d, MOD_SAT)) return "mad.cc allows only .lo or .hi";
        return carry_pick(in, d, m == 0 ? madk_lo_32_cc : s ? madk_hi_s32_cc : madk_hi_u32_cc,
                          m == 0 ? madk_lo_64_cc : s ? madk_hi_s64_cc : madk_hi_u64_cc, 0, 1);
    }
    if (desc_has(d, MOD_SAT))
        return set_fn(in, m == 1 && t == TY_S32 ? h_mad_hi_sat_s32 : NULL,
                      "mad.sat exists only as mad.hi.sat.s32");
    if (m == 0) in->fn = mad_lo_h[k];
    else if (m == 1) in->fn = mad_hi_h[s][k];
    else return set_fn(in, mad_wide_h[s][k], "mad.wide needs a 16- or 32-bit type");
    return NULL;
}

const char *bind_addc(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    return e ? e : carry_pick(in, d, addk_32_cc, addk_64_cc, 1, desc_has(d, MOD_CC));
}

const char *bind_subc(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    return e ? e : carry_pick(in, d, subk_32_cc, subk_64_cc, 1, desc_has(d, MOD_CC));
}

const char *bind_madc(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    int m = mul_mode(d, 1), s = ty_is_signed(d->types[0]);
    if (e) return e;
    if (m < 0 || m == 2) return "madc allows only .lo or .hi";
    return carry_pick(in, d, m == 0 ? madk_lo_32_cc : s ? madk_hi_s32_cc : madk_hi_u32_cc,
                      m == 0 ? madk_lo_64_cc : s ? madk_hi_s64_cc : madk_hi_u64_cc, 1,
                      desc_has(d, MOD_CC));
}

/* div, rem, min, max, sad: one handler per signedness and width. */
static const char *bind_sw(Inst *in, const InstDesc *d, const Handler tab[2][3], int ns,
                           const char *msg)
{
    const char *e = need_ops(d, 1, ns);
    int k = int_ix(d->types[0]);
    if (e) return e;
    if (k < 0) return msg;
    in->fn = tab[ty_is_signed(d->types[0])][k];
    return NULL;
}

const char *bind_int_div(Inst *in, const InstDesc *d)
{
    return bind_sw(in, d, div_h, 2, "div: unsupported integer type");
}

const char *bind_int_rem(Inst *in, const InstDesc *d)
{
    return bind_sw(in, d, rem_h, 2, "rem: unsupported integer type");
}

const char *bind_sad(Inst *in, const InstDesc *d)
{
    return bind_sw(in, d, sad_h, 3, "sad: unsupported integer type");
}

/* min/max: .relu exists for .s32 and .s16x2 only; x2 is the op's min16x2_h/max16x2_h. */
static const char *bind_minmax(Inst *in, const InstDesc *d, const Handler tab[2][3],
                               const Handler x2[3], Handler relu)
{
    int t = d->types[0];
    if (desc_has(d, MOD_RELU)) {
        const char *e = need_ops(d, 1, 2);
        return e ? e : set_fn(in, t == TY_S32 ? relu : t == TY_S16X2 ? x2[2] : NULL,
                              "integer .relu needs type .s32 or .s16x2");
    }
    if (ty_is_int16x2(t)) {
        const char *e = need_ops(d, 1, 2);
        if (!e) in->fn = x2[t == TY_S16X2];
        return e;
    }
    return bind_sw(in, d, tab, 2, "min/max: unsupported integer type");
}

const char *bind_int_min(Inst *in, const InstDesc *d)
{
    return bind_minmax(in, d, min_h, min16x2_h, h_min_relu_s32);
}

const char *bind_int_max(Inst *in, const InstDesc *d)
{
    return bind_minmax(in, d, max_h, max16x2_h, h_max_relu_s32);
}

const char *bind_int_abs(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 1);
    if (e) return e;
    if (!ty_is_signed(d->types[0]) || wix(d->types[0]) < 0) return "abs needs .s16, .s32 or .s64";
    in->fn = abs_h[wix(d->types[0])];
    return NULL;
}

const char *bind_int_neg(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 1);
    if (e) return e;
    if (!ty_is_signed(d->types[0]) || wix(d->types[0]) < 0) return "neg needs .s16, .s32 or .s64";
    in->fn = neg_h[wix(d->types[0])];
    return NULL;
}

/* mul24/mad24: .lo or .hi required, .u32 or .s32. */
static const char *bind_24(Inst *in, const InstDesc *d, const Handler tab[2][2], int ns)
{
    const char *e = need_ops(d, 1, ns);
    int t = d->types[0], hi = desc_has(d, MOD_HI);
    if (e) return e;
    if (t != TY_U32 && t != TY_S32) return "mul24/mad24 need type .u32 or .s32";
    if (hi == desc_has(d, MOD_LO)) return "mul24/mad24 need exactly one of .lo, .hi";
    in->fn = tab[hi][t == TY_S32];
    return NULL;
}

const char *bind_mul24(Inst *in, const InstDesc *d)
{
    return bind_24(in, d, mul24_h, 2);
}

const char *bind_mad24(Inst *in, const InstDesc *d)
{
    if (desc_has(d, MOD_SAT)) {
        const char *e = need_ops(d, 1, 3);
        if (e) return e;
        return set_fn(in, desc_has(d, MOD_HI) && d->types[0] == TY_S32 ? h_mad24_hi_sat_s32 : NULL,
                      "mad24.sat exists only as mad24.hi.sat.s32");
    }
    return bind_24(in, d, mad24_h, 3);
}

/* popc, clz, brev: a 32- or 64-bit operand of any integer or bit type. */
static const char *bind_w3264(Inst *in, const InstDesc *d, Handler h32, Handler h64, const char *msg)
{
    const char *e = need_ops(d, 1, 1);
    int t = d->types[0], b = ty_bits(t);
    if (e) return e;
    if (!(ty_is_int(t) || ty_is_bits(t)) || (b != 32 && b != 64)) return msg;
    in->fn = b == 32 ? h32 : h64;
    return NULL;
}

const char *bind_popc(Inst *in, const InstDesc *d)
{
    return bind_w3264(in, d, h_popc_32, h_popc_64, "popc needs .b32 or .b64");
}

const char *bind_clz(Inst *in, const InstDesc *d)
{
    return bind_w3264(in, d, h_clz_32, h_clz_64, "clz needs .b32 or .b64");
}

const char *bind_brev(Inst *in, const InstDesc *d)
{
    return bind_w3264(in, d, h_brev_32, h_brev_64, "brev needs .b32 or .b64");
}

const char *bind_bfind(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 1);
    int t = d->types[0], b = ty_bits(t);
    if (e) return e;
    if (!ty_is_int(t) || (b != 32 && b != 64)) return "bfind needs .u32, .s32, .u64 or .s64";
    in->fn = bfind_h[desc_has(d, MOD_SHIFTAMT)][ty_is_signed(t)][b == 64];
    return NULL;
}

const char *bind_fns(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    if (e) return e;
    if (ty_bits(d->types[0]) != 32 || ty_is_float(d->types[0])) return "fns needs .b32";
    in->fn = h_fns_b32;
    return NULL;
}

const char *bind_bfe(Inst *in, const InstDesc *d)
{
    static const Handler tab[2][2] = { { h_bfe_u32, h_bfe_u64 }, { h_bfe_s32, h_bfe_s64 } };
    const char *e = need_ops(d, 1, 3);
    int t = d->types[0], b = ty_bits(t);
    if (e) return e;
    if (!ty_is_int(t) || (b != 32 && b != 64)) return "bfe needs .u32, .s32, .u64 or .s64";
    in->fn = tab[ty_is_signed(t)][b == 64];
    return NULL;
}

const char *bind_bfi(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 4);
    int t = d->types[0], b = ty_bits(t);
    if (e) return e;
    if (!(ty_is_bits(t) || ty_is_int(t)) || (b != 32 && b != 64)) return "bfi needs .b32 or .b64";
    in->fn = b == 32 ? h_bfi_b32 : h_bfi_b64;
    return NULL;
}

/* .clamp or .wrap, exactly one (bmsk, szext). */
static int clamp_mode(const InstDesc *d)
{
    int c = desc_has(d, MOD_CLAMP), w = desc_has(d, MOD_WRAP);
    return c == w ? -1 : c;
}

const char *bind_bmsk(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int c = clamp_mode(d);
    if (e) return e;
    if (d->types[0] != TY_B32) return "bmsk needs .b32";
    if (c < 0) return "bmsk needs exactly one of .clamp, .wrap";
    in->fn = c ? h_bmsk_clamp : h_bmsk_wrap;
    return NULL;
}

const char *bind_szext(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int c = clamp_mode(d), t = d->types[0];
    if (e) return e;
    if (t != TY_U32 && t != TY_S32) return "szext needs .u32 or .s32";
    if (c < 0) return "szext needs exactly one of .clamp, .wrap";
    in->fn = c ? (t == TY_S32 ? h_szext_clamp_s32 : h_szext_clamp_u32)
               : (t == TY_S32 ? h_szext_wrap_s32 : h_szext_wrap_u32);
    return NULL;
}

/* dp4a/dp2a: .atype.btype, each .u32 or .s32. */
static int dp_types(const InstDesc *d, int *sa, int *sb)
{
    int a = d->types[0], b = d->types[1];
    if (d->ntypes != 2 || (a != TY_U32 && a != TY_S32) || (b != TY_U32 && b != TY_S32)) return -1;
    *sa = a == TY_S32;
    *sb = b == TY_S32;
    return 0;
}

const char *bind_dp4a(Inst *in, const InstDesc *d)
{
    int sa, sb;
    const char *e = need_ops(d, 1, 3);
    if (e) return e;
    if (dp_types(d, &sa, &sb)) return "dp4a needs .atype.btype from .u32/.s32";
    in->fn = dp4a_h[sa][sb];
    return NULL;
}

const char *bind_vsimd(Inst *in, const InstDesc *d)
{
    static const int ops[] = { OP_vadd4, OP_vsub4, OP_vavrg4, OP_vabsdiff4, OP_vmin4, OP_vmax4,
                               OP_vadd2, OP_vsub2, OP_vavrg2, OP_vabsdiff2, OP_vmin2, OP_vmax2 };
    const char *e = need_ops(d, 1, 3);
    if (e) return e;
    int k = 0;
    while (ops[k] != d->op) k++;
    if (d->ntypes != 3) return "SIMD video instructions need .dtype.atype.btype";
    unsigned f = k >= 6 ? VF_TWO : 0;
    for (int i = 0; i < 3; i++) {
        if (d->types[i] != TY_U32 && d->types[i] != TY_S32) return "SIMD video types are .u32 or .s32";
        if (d->types[i] == TY_S32) f |= i == 0 ? VF_SD : i == 1 ? VF_SA : VF_SB;
    }
    if (desc_has(d, MOD_SAT)) f |= VF_SAT;
    if (desc_has(d, MOD_ADD)) f |= VF_ACC;
    if ((f & VF_SAT) && (f & VF_ACC)) return ".sat cannot go with .add";
    in->aux8 = (uint8_t)(k % 6);
    in->bop = (uint8_t)f;
    in->fn = h_vsimd;
    return NULL;
}

const char *bind_dp2a(Inst *in, const InstDesc *d)
{
    int sa, sb, hi = desc_has(d, MOD_HI);
    const char *e = need_ops(d, 1, 3);
    if (e) return e;
    if (dp_types(d, &sa, &sb)) return "dp2a needs .atype.btype from .u32/.s32";
    if (hi == desc_has(d, MOD_LO)) return "dp2a needs exactly one of .lo, .hi";
    in->fn = dp2a_h[hi][sa][sb];
    return NULL;
}
