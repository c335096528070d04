/* exec_float.c - f32/f64 arithmetic, special functions, testp and copysign; the binders
 * hand f16/bf16 forms to exec_half.c. Build with -frounding-math -ffp-contract=off.
 *
 * Semantics (PTX ISA, sm_90, checked against an H100 in tests/ptx): f32 NaN results are the
 * canonical NaN 0x7fffffff; f64 ones propagate a quieted input NaN, else 0xfff8000000000000
 * (fp_nan64); .ftz flushes subnormal inputs and results to sign-preserving zero; .sat
 * clamps to [0, 1] with NaN -> +0. Directed rounding (.rz/.rm/.rp) sets the host rounding
 * mode once around the lane loop of a warp-instruction (never per lane); round-to-nearest
 * handlers run in the host's default mode and are the fast path.
 * The .approx functions are computed in double with libm and rounded to f32, which lies
 * within the PTX bounds quoted at each one, but is not the SFU's bit pattern.
 */
#include <fenv.h>
#include <math.h>
#include "exec.h"
#include "fp.h"
#include "sfu.h"
#include "jitop.h"

#define W Warp *w, const Inst *in, uint32_t mask


static const int host_rnd[] = {
    [RND_NONE] = FE_TONEAREST, [RND_RN] = FE_TONEAREST, [RND_RZ] = FE_TOWARDZERO,
    [RND_RM] = FE_DOWNWARD, [RND_RP] = FE_UPWARD, [RND_RNA] = FE_TONEAREST,
    [RND_RS] = FE_TONEAREST,
};

/* Evaluate CALL (a handler kernel) under the instruction's rounding mode. */
#define WITH_RND(CALL)                                                        \
    do {                                                                      \
        int old_ = fegetround();                                              \
        fesetround(host_rnd[in->rnd]);                                        \
        int r_ = (CALL);                                                      \
        fesetround(old_);                                                     \
        return r_;                                                            \
    } while (0)

#define FTZ_OF(in) (((in)->flags & IF_FTZ) != 0)
#define SAT_OF(in) (((in)->flags & IF_SAT) != 0)

/* ---- templates ---------------------------------------------------------------------- */

/* f32 kernel over sources a, b, c (unused ones read s[0]) with .ftz and .sat as
 * arguments: the handlers below call it with constants so each is specialised. TINY says
 * whether the exact result is below the smallest normal (only evaluated under .ftz). */
#define F32_K(NAME, EXPR, TINY)                                               \
    static const char NAME##_f32_expr[] = #EXPR, NAME##_f32_tiny[] = #TINY;   \
    FP_INLINE int NAME##_k(W, int ftz, int sat)                               \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]);                                \
        const uint64_t *rb = ROW(w, in->s[in->ns > 1 ? 1 : 0]);               \
        const uint64_t *rc = ROW(w, in->s[in->ns > 2 ? 2 : 0]);               \
        LANES(l, {                                                            \
            float a = f32_in(ra[l], ftz), b = f32_in(rb[l], ftz);             \
            float c = f32_in(rc[l], ftz);                                     \
            (void)b; (void)c;                                                 \
            d[l] = f32_out(EXPR, ftz, sat, ftz && (TINY));                    \
        });                                                                   \
        return STEP_NEXT;                                                     \
    }
/* plain and .ftz handlers (the approximate functions) */
#define F32_H2(NAME)                                                          \
    static int NAME##_f32(W) { return NAME##_k(w, in, mask, 0, 0); }          \
    static int NAME##_f32_ftz(W) { return NAME##_k(w, in, mask, 1, 0); }      \
    JIT_OP(NAME##_f32, "F32", NAME##_f32_tiny, "0", "0", "", "", NAME##_f32_expr) \
    JIT_OP(NAME##_f32_ftz, "F32", NAME##_f32_tiny, "1", "0", "", "", NAME##_f32_expr)
/* rounded operations: round-to-nearest with every .ftz/.sat, plus directed rounding
 * that reads the flags once */
#define F32_H5(NAME)                                                          \
    F32_H2(NAME)                                                              \
    static int NAME##_f32_sat(W) { return NAME##_k(w, in, mask, 0, 1); }      \
    static int NAME##_f32_ftz_sat(W) { return NAME##_k(w, in, mask, 1, 1); }  \
    JIT_OP(NAME##_f32_sat, "F32", NAME##_f32_tiny, "0", "1", "", "", NAME##_f32_expr) \
    JIT_OP(NAME##_f32_ftz_sat, "F32", NAME##_f32_tiny, "1", "1", "", "", NAME##_f32_expr) \
    static int NAME##_f32_dir(W)                                              \
    {                                                                         \
        WITH_RND(NAME##_k(w, in, mask, FTZ_OF(in), SAT_OF(in)));              \
    }

#define F64_K(NAME, EXPR)                                                     \
    static int NAME##_f64(W)                                                  \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]);                                \
        const uint64_t *rb = ROW(w, in->s[in->ns > 1 ? 1 : 0]);               \
        const uint64_t *rc = ROW(w, in->s[in->ns > 2 ? 2 : 0]);               \
        LANES(l, {                                                            \
            double a = f64_in(ra[l]), b = f64_in(rb[l]), c = f64_in(rc[l]);   \
            (void)b; (void)c;                                                 \
            d[l] = fp_nan64(EXPR, a, b, c);                                   \
        });                                                                   \
        return STEP_NEXT;                                                     \
    }                                                                         \
    JIT_OP(NAME##_f64, "F64", "", "", "", "", "", #EXPR)
#define F64_DIR(NAME) static int NAME##_f64_dir(W) { WITH_RND(NAME##_f64(w, in, mask)); }

/* The handler set of one IEEE-rounded operation, as the binder picks from it. */
typedef struct RndOps {
    Handler f32[4];          /* [ftz + 2 * sat], round to nearest */
    Handler f32_dir, f64, f64_dir;
} RndOps;

#define RND_OP(NAME, EXPR32, TINY, EXPR64)                                    \
    F32_K(NAME, EXPR32, TINY)                                                 \
    F32_H5(NAME)                                                              \
    F64_K(NAME, EXPR64)                                                       \
    F64_DIR(NAME)                                                             \
    static const RndOps NAME##_ops = {                                        \
        {NAME##_f32, NAME##_f32_ftz, NAME##_f32_sat, NAME##_f32_ftz_sat},     \
        NAME##_f32_dir, NAME##_f64, NAME##_f64_dir};

#define APPROX_OP(NAME, EXPR) F32_K(NAME, EXPR, 0) F32_H2(NAME)

/* ---- IEEE-rounded operations ------------------------------------------------------ */

/* sums of f32 values below 2^-125 are exact, so add/sub need no tiny test; products
 * and quotients are exact or far enough from 2^-126 in double */
RND_OP(add, a + b, 0, a + b)
RND_OP(sub, a - b, 0, a - b)
RND_OP(mul, a * b, TINY((double)a * b), a * b)
/* mad.rnd.f32 and mad.rnd.f64 are fused on sm_20+, the same as fma */
RND_OP(fma, fmaf(a, b, c), TINY(fma((double)a, b, c)), fma(a, b, c))
RND_OP(div, a / b, TINY((double)a / b), a / b)
RND_OP(rcp, 1.0f / a, TINY(1.0 / a), 1.0 / a)
RND_OP(sqrt, sqrtf(a), 0, sqrt(a))

/* ---- approximate functions (f32, optional .ftz) ------------------------------------ */

/* div.approx.f32 is a * (1/b); max 2 ulp for |b| in [2^-126, 2^126]. For 2^126 < |b| <
 * 2^128 the reciprocal underflows: the result is 0, or NaN when a is infinite. Used only if
 * the H100's tables (sfu.c) could not be loaded; so are the other fallbacks below. */
FP_INLINE float div_approx(float a, float b)
{
    float ab = fabsf(b);
    if (ab > 0x1p126f && !isinf(ab))
        return isinf(a) ? NAN : copysignf(0.0f, a) * copysignf(1.0f, b);
    return a / b;
}
/* The H100's results where sfu.c has them (docs/sfu.md), bit for bit. */
#define SFU1(FN, FAM, x, ftz, fallback) (sfu_ok(FAM) ? FN(x, ftz) : (fallback))
#define SFU2(FN, FAM, a, b, ftz, fallback) (sfu_ok(FAM) ? FN(a, b, ftz) : (fallback))
APPROX_OP(div_approx, SFU2(sfu_div, SFU_RCP, a, b, ftz, div_approx(a, b)))
/* div.full.f32: full-range approximation, max 2 ulp */
APPROX_OP(div_full, SFU2(sfu_div_full, SFU_RCP, a, b, ftz, a / b))
/* rcp.approx.f32: max 1 ulp over the full range */
APPROX_OP(rcp_approx, SFU1(sfu_rcp, SFU_RCP, a, ftz, 1.0f / a))
/* sqrt.approx.f32: max relative error 2^-23 */
APPROX_OP(sqrt_approx, SFU1(sfu_sqrt, SFU_SQRT, a, ftz, sqrtf(a)))
/* rsqrt.approx.f32: max relative error 2^-22.9 */
APPROX_OP(rsqrt_approx, SFU1(sfu_rsqrt, SFU_RSQRT, a, ftz, (float)(1.0 / sqrt((double)a))))
/* sin/cos.approx.f32, tanh.approx.f32: the GPU's results (sfu.c), with libm as the fallback */
#define TRIG(FN, x, ftz, fallback) (sfu_trig_ok() ? FN(x, ftz) : (fallback))
APPROX_OP(sin_approx, TRIG(sfu_sin, a, ftz, (float)sin((double)a)))
APPROX_OP(cos_approx, TRIG(sfu_cos, a, ftz, (float)cos((double)a)))
/* lg2.approx.f32: max absolute error 2^-22.6 for the mantissa */
APPROX_OP(lg2_approx, SFU1(sfu_lg2, SFU_LG2, a, ftz, (float)log2((double)a)))
/* ex2.approx.f32: max 2 ulp over the full range */
APPROX_OP(ex2_approx, SFU1(sfu_ex2, SFU_EX2, a, ftz, (float)exp2((double)a)))
APPROX_OP(tanh_approx, (sfu_tanh_ok() ? sfu_tanh(a) : (float)tanh((double)a)))

/* rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64: MUFU.RCP64H/RSQ64H, which read the upper 32
 * bits of a (so 0x7ff00000_00000001 counts as infinity) and leave the low 32 bits zero;
 * subnormals flush to zero, and a NaN result is 0x7fffffff_00000000 (sfu.c). The fallback
 * without tables: the exact result truncated to 20 mantissa bits (the last bit may differ). */
#define SFU64_NAN 0x7fffffff00000000ull
FP_INLINE uint64_t sfu64(uint64_t a, int is_rsqrt)
{
    if (sfu_ok(is_rsqrt ? SFU_RSQRT : SFU_RCP)) return is_rsqrt ? sfu_rsqrt64_ftz(a) : sfu_rcp64(a);
    double x = fp_bits_f64(fp_ftz64(a & 0xffffffff00000000ull));
    uint64_t r = fp_ftz64(fp_f64_bits(is_rsqrt ? 1.0 / sqrt(x) : 1.0 / x));
    return fp_isnan64(r) ? SFU64_NAN : r & 0xffffffff00000000ull;
}
static int rcp_approx_ftz_f64(W)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]);
    LANES(l, { d[l] = sfu64(ra[l], 0); });
    return STEP_NEXT;
}
static int rsqrt_approx_ftz_f64(W)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]);
    LANES(l, { d[l] = sfu64(ra[l], 1); });
    return STEP_NEXT;
}
/* rsqrt.approx.f64: MUFU.RSQ64H and the refinement step ptxas writes after it (sfu.c),
 * NaNs included (a negative x gives 0xfff80000_00000000) */
static int rsqrt_approx_f64(W)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]);
    int ok = sfu_ok(SFU_RSQRT);
    LANES(l, {
        double a = f64_in(ra[l]);
        d[l] = ok ? fp_f64_bits(sfu_rsqrt64(a)) : fp_nan64(1.0 / sqrt(a), a, a, a);
    });
    return STEP_NEXT;
}

/* ---- bit operations: abs, neg, copysign --------------------------------------------- */

/* abs/neg change the sign bit, but a NaN comes out as the canonical NaN (f32) or quieted
 * and unchanged (f64), as from arithmetic (H100, tests/ptx/f32_nan and f64_arith);
 * copysign is a pure bit operation. KIND: the integer template (exec_int_tmpl.h's H_UN or
 * H_BIN, one source or two) the compiled tier writes the expression with; .ftz is the same
 * expression after flushing a. */
#define BITOP32(NAME, KIND, EXPR)                                             \
    FP_INLINE int NAME##_k(W, int ftz)                                        \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]);                                \
        const uint64_t *rb = ROW(w, in->s[in->ns > 1 ? 1 : 0]);               \
        LANES(l, {                                                            \
            uint32_t a = (uint32_t)ra[l], b = (uint32_t)rb[l];                \
            (void)b;                                                          \
            if (ftz) a = fp_ftz32(a);                                         \
            d[l] = (uint32_t)(EXPR);                                          \
        });                                                                   \
        return STEP_NEXT;                                                     \
    }                                                                         \
    static int NAME##_f32(W) { return NAME##_k(w, in, mask, 0); }             \
    static int NAME##_f32_ftz(W) { return NAME##_k(w, in, mask, 1); }         \
    JIT_OP(NAME##_f32, KIND, "uint32_t", "uint32_t", "", "", "uint32_t", #EXPR) \
    JIT_OP(NAME##_f32_ftz, KIND, "uint32_t", "uint32_t", "", "", "uint32_t",  \
           "(a = fp_ftz32(a), (" #EXPR "))")

#define BITOP64(NAME, KIND, EXPR)                                             \
    static int NAME##_f64(W)                                                  \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]);                                \
        const uint64_t *rb = ROW(w, in->s[in->ns > 1 ? 1 : 0]);               \
        LANES(l, {                                                            \
            uint64_t a = ra[l], b = rb[l];                                    \
            (void)b;                                                          \
            d[l] = (EXPR);                                                    \
        });                                                                   \
        return STEP_NEXT;                                                     \
    }                                                                         \
    JIT_OP(NAME##_f64, KIND, "uint64_t", "uint64_t", "", "", "uint64_t", #EXPR)

/* SIGN32, SIGN64, QUIET64: fp.h */
BITOP32(abs, "UN", fp_isnan32(a) ? FP_NAN_F32 : a & ~SIGN32)
BITOP64(abs, "UN", fp_isnan64(a) ? a | QUIET64 : a & ~SIGN64)
BITOP32(neg, "UN", fp_isnan32(a) ? FP_NAN_F32 : a ^ SIGN32)
BITOP64(neg, "UN", fp_isnan64(a) ? a | QUIET64 : a ^ SIGN64)
/* copysign d, a, b: b with the sign of a */
BITOP32(copysign, "BIN", (b & ~SIGN32) | (a & SIGN32))
BITOP64(copysign, "BIN", (b & ~SIGN64) | (a & SIGN64))

/* ---- min / max -------------------------------------------------------------------- */

/* min/max: fp.h's fp_minmax32 and fp_minmax64, one lane each, which the compiled code calls
 * with the same flags as constants (a BIN template over the bits) */
#define MM32(NAME, IS_MAX)                                                    \
    FP_INLINE int NAME##_k(W, int fl)                                         \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[1]);        \
        LANES(l, { d[l] = fp_minmax32((uint32_t)ra[l], (uint32_t)rb[l], fl, IS_MAX); }); \
        return STEP_NEXT;                                                     \
    }                                                                         \
    static int NAME##_f32(W) { return NAME##_k(w, in, mask, 0); }             \
    static int NAME##_f32_ftz(W) { return NAME##_k(w, in, mask, 1); }         \
    static int NAME##_f32_any(W) { return NAME##_k(w, in, mask, in->aux8); }  \
    static int NAME##_f64(W)                                                  \
    {                                                                         \
        uint64_t *d = ROW(w, in->d[0]);                                       \
        const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[1]);        \
        LANES(l, { d[l] = fp_minmax64(ra[l], rb[l], IS_MAX); });              \
        return STEP_NEXT;                                                     \
    }                                                                         \
    JIT_OP(NAME##_f32, "BIN", "uint32_t", "uint32_t", "", "", "uint32_t",     \
           "fp_minmax32(a, b, 0, " #IS_MAX ")")                               \
    JIT_OP(NAME##_f32_ftz, "BIN", "uint32_t", "uint32_t", "", "", "uint32_t", \
           "fp_minmax32(a, b, 1, " #IS_MAX ")")                               \
    JIT_OP(NAME##_f32_any, "BIN", "uint32_t", "uint32_t", "", "", "uint32_t", \
           "fp_minmax32(a, b, IN_FL, " #IS_MAX ")")                           \
    JIT_OP(NAME##_f64, "BIN", "uint64_t", "uint64_t", "", "", "uint64_t",     \
           "fp_minmax64(a, b, " #IS_MAX ")")
MM32(min, 0)
MM32(max, 1)

/* ---- testp ------------------------------------------------------------------------ */

enum { TP_FINITE, TP_INFINITE, TP_NUMBER, TP_NOTANUMBER, TP_NORMAL, TP_SUBNORMAL };

/* Classify from the exponent field e (all ones = emax) and the fraction's being zero. */
FP_INLINE int testp_class(int op, uint64_t e, uint64_t emax, int frac0)
{
    switch (op) {
    case TP_FINITE:    return e != emax;
    case TP_INFINITE:  return e == emax && frac0;
    case TP_NUMBER:    return e != emax || frac0;
    case TP_NOTANUMBER: return e == emax && !frac0;
    /* zero counts as normal on the GPU (H100, tests/ptx/f32_testp) */
    case TP_NORMAL:    return e != emax && !(e == 0 && !frac0);
    default:           return e == 0 && !frac0;
    }
}

FP_INLINE int testp_k(W, int is64)
{
    const uint64_t *ra = ROW(w, in->s[0]);
    uint32_t res = 0;
    FOR_LANES(mask, l) {
        uint64_t v = ra[l];
        int t = is64 ? testp_class(in->aux8, (v >> 52) & 0x7ff, 0x7ff,
                                   (v & 0xfffffffffffffull) == 0)
                     : testp_class(in->aux8, (v >> 23) & 0xff, 0xff, (v & 0x7fffff) == 0);
        res |= (uint32_t)t << l;
    }
    uint32_t *p = &w->P[in->d[0]];
    *p = (*p & ~mask) | (res & mask);
    return STEP_NEXT;
}
static int testp_f32(W) { return testp_k(w, in, mask, 0); }
static int testp_f64(W) { return testp_k(w, in, mask, 1); }

/* ---- binders ---------------------------------------------------------------------- */

static const int M_RND_FTZ_SAT[] = {MOD_RN, MOD_RZ, MOD_RM, MOD_RP, MOD_FTZ, MOD_SAT, -1};
static const int M_RND_FTZ[] = {MOD_RN, MOD_RZ, MOD_RM, MOD_RP, MOD_FTZ, -1};
static const int M_APPROX_FTZ[] = {MOD_APPROX, MOD_FTZ, -1};
static const int M_FTZ[] = {MOD_FTZ, -1};
static const int M_NONE[] = {-1};

/* Common checks: one type, f32 or f64, nd/ns as expected, modifiers from `allowed`. */
static const char *check(const InstDesc *d, int ns, const int *allowed)
{
    if (d->ntypes != 1) return "expected one floating-point type";
    if (d->types[0] != TY_F32 && d->types[0] != TY_F64) return "unsupported type";
    if (d->nd != 1 || d->ns != ns) return "wrong number of operands";
    if (!fp_mods_only(d, allowed)) return "unsupported modifier";
    return NULL;
}

static void set_flags(Inst *in, const InstDesc *d)
{
    if (desc_has(d, MOD_FTZ)) in->flags |= IF_FTZ;
    if (desc_has(d, MOD_SAT)) in->flags |= IF_SAT;
    if (desc_has(d, MOD_APPROX)) in->flags |= IF_APPROX;
}

/* Pick from a RndOps set. need_rnd: the rounding modifier is mandatory. f64 takes no
 * .ftz/.sat. */
static const char *bind_rnd(Inst *in, const InstDesc *d, const RndOps *o, int ns,
                            int need_rnd, const int *allowed)
{
    const char *e = check(d, ns, allowed);
    if (e) return e;
    int rnd = fp_desc_rnd(d), ftz = desc_has(d, MOD_FTZ), sat = desc_has(d, MOD_SAT);
    if (need_rnd && rnd == RND_NONE) return "rounding modifier (.rn/.rz/.rm/.rp) required";
    in->rnd = (uint8_t)(rnd == RND_NONE ? RND_RN : rnd);
    set_flags(in, d);
    if (d->types[0] == TY_F64) {
        if (ftz || sat) return ".ftz/.sat not allowed on .f64";
        in->fn = in->rnd == RND_RN ? o->f64 : o->f64_dir;
    } else {
        in->fn = in->rnd == RND_RN ? o->f32[ftz + 2 * sat] : o->f32_dir;
    }
    return NULL;
}

#define HALF_FIRST(d)                                                         \
    do {                                                                      \
        if ((d)->ntypes >= 1 && fp_ty_is_half((d)->types[0]))                \
            return bind_half_arith(in, d);                                    \
    } while (0)

const char *bind_flt_add(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_rnd(in, d, &add_ops, 2, 0, M_RND_FTZ_SAT);
}

const char *bind_flt_sub(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_rnd(in, d, &sub_ops, 2, 0, M_RND_FTZ_SAT);
}

const char *bind_flt_mul(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_rnd(in, d, &mul_ops, 2, 0, M_RND_FTZ_SAT);
}

/* mad.f32 without a rounding modifier is the sm_1x form (mul then add, truncated) that
 * ptxas rejects for sm_20+; we reject it too. */
static const char *bind_fma_ops(Inst *in, const InstDesc *d);

const char *bind_flt_mad(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_fma_ops(in, d);
}

/* fma.rn.f32 (and mad.rn.f32) on hosts with FMA3: the lane loop uses the instruction instead
 * of 32 calls of fmaf through the PLT (the same correctly rounded result; matrixMul's bench
 * 20% faster). */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static int fma_f32_fma3(W)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[1]), *rc = ROW(w, in->s[2]);
    LANES(l, {
        float r = __builtin_fmaf(fp_bits_f32((uint32_t)ra[l]), fp_bits_f32((uint32_t)rb[l]),
                                 fp_bits_f32((uint32_t)rc[l]));
        d[l] = fp_canon32(fp_f32_bits(r));
    });
    return STEP_NEXT;
}
/* the same as the f32 template's fma without .ftz or .sat */
JIT_OP(fma_f32_fma3, "F32", "0", "0", "0", "", "", "fmaf(a, b, c)")
#endif

const char *bind_fma(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_fma_ops(in, d);
}

static const char *bind_fma_ops(Inst *in, const InstDesc *d)
{
    const char *e = bind_rnd(in, d, &fma_ops, 3, 1, M_RND_FTZ_SAT);
#if defined(__x86_64__) && defined(__GNUC__)
    if (!e && in->fn == fma_f32 && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"))
        in->fn = fma_f32_fma3;
#endif
    return e;
}

/* Pick an approximate f32 function by .ftz. */
static const char *bind_approx(Inst *in, const InstDesc *d, Handler plain, Handler ftz,
                               const int *allowed)
{
    const char *e = check(d, 1 + (d->op == OP_div), allowed);
    if (e) return e;
    if (d->types[0] != TY_F32) return "only .f32 has this form";
    set_flags(in, d);
    in->fn = desc_has(d, MOD_FTZ) ? ftz : plain;
    return NULL;
}

const char *bind_flt_div(Inst *in, const InstDesc *d)
{
    static const int allowed[] = {MOD_APPROX, MOD_FULL, MOD_RN, MOD_RZ, MOD_RM, MOD_RP,
                                  MOD_FTZ, -1};
    HALF_FIRST(d);
    if (desc_has(d, MOD_APPROX))
        return bind_approx(in, d, div_approx_f32, div_approx_f32_ftz, allowed);
    if (desc_has(d, MOD_FULL))
        return bind_approx(in, d, div_full_f32, div_full_f32_ftz, allowed);
    return bind_rnd(in, d, &div_ops, 2, 1, M_RND_FTZ);
}

const char *bind_rcp(Inst *in, const InstDesc *d)
{
    static const int allowed[] = {MOD_APPROX, MOD_RN, MOD_RZ, MOD_RM, MOD_RP, MOD_FTZ, -1};
    if (desc_has(d, MOD_APPROX)) {
        if (d->ntypes == 1 && d->types[0] == TY_F64) {
            const char *e = check(d, 1, allowed);
            if (e) return e;
            if (!desc_has(d, MOD_FTZ) || fp_desc_rnd(d) != RND_NONE)
                return "rcp.approx.f64 exists only as rcp.approx.ftz.f64";
            set_flags(in, d);
            in->fn = rcp_approx_ftz_f64;
            return NULL;
        }
        return bind_approx(in, d, rcp_approx_f32, rcp_approx_f32_ftz, M_APPROX_FTZ);
    }
    return bind_rnd(in, d, &rcp_ops, 1, 1, M_RND_FTZ);
}

const char *bind_sqrt(Inst *in, const InstDesc *d)
{
    if (desc_has(d, MOD_APPROX))
        return bind_approx(in, d, sqrt_approx_f32, sqrt_approx_f32_ftz, M_APPROX_FTZ);
    return bind_rnd(in, d, &sqrt_ops, 1, 1, M_RND_FTZ);
}

const char *bind_rsqrt(Inst *in, const InstDesc *d)
{
    const char *e = check(d, 1, M_APPROX_FTZ);
    if (e) return e;
    if (!desc_has(d, MOD_APPROX)) return "rsqrt requires .approx";
    if (d->types[0] == TY_F64) {
        set_flags(in, d);
        in->fn = desc_has(d, MOD_FTZ) ? rsqrt_approx_ftz_f64 : rsqrt_approx_f64;
        return NULL;
    }
    return bind_approx(in, d, rsqrt_approx_f32, rsqrt_approx_f32_ftz, M_APPROX_FTZ);
}

/* sin, cos, lg2, ex2: .approx{.ftz}.f32 (ex2 also on halves); tanh: .approx.f32. */
static const char *bind_sfu(Inst *in, const InstDesc *d, Handler plain, Handler ftz)
{
    if (!desc_has(d, MOD_APPROX)) return "requires .approx";
    return bind_approx(in, d, plain, ftz, M_APPROX_FTZ);
}

const char *bind_sin(Inst *in, const InstDesc *d)
{
    return bind_sfu(in, d, sin_approx_f32, sin_approx_f32_ftz);
}

const char *bind_cos(Inst *in, const InstDesc *d)
{
    return bind_sfu(in, d, cos_approx_f32, cos_approx_f32_ftz);
}

const char *bind_lg2(Inst *in, const InstDesc *d)
{
    return bind_sfu(in, d, lg2_approx_f32, lg2_approx_f32_ftz);
}

const char *bind_ex2(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_sfu(in, d, ex2_approx_f32, ex2_approx_f32_ftz);
}

const char *bind_tanh(Inst *in, const InstDesc *d)
{
    static const int allowed[] = {MOD_APPROX, -1};
    HALF_FIRST(d);
    if (!desc_has(d, MOD_APPROX)) return "tanh requires .approx";
    return bind_approx(in, d, tanh_approx_f32, tanh_approx_f32_ftz, allowed);
}

/* abs, neg: {.ftz}.f32 and .f64 */
static const char *bind_bitop(Inst *in, const InstDesc *d, Handler f32, Handler f32_ftz,
                              Handler f64, int ns, const int *allowed)
{
    const char *e = check(d, ns, allowed);
    if (e) return e;
    set_flags(in, d);
    if (d->types[0] == TY_F64) {
        if (desc_has(d, MOD_FTZ)) return ".ftz not allowed on .f64";
        in->fn = f64;
    } else {
        in->fn = desc_has(d, MOD_FTZ) ? f32_ftz : f32;
    }
    return NULL;
}

const char *bind_flt_abs(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_bitop(in, d, abs_f32, abs_f32_ftz, abs_f64, 1, M_FTZ);
}

const char *bind_flt_neg(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_bitop(in, d, neg_f32, neg_f32_ftz, neg_f64, 1, M_FTZ);
}

const char *bind_copysign(Inst *in, const InstDesc *d)
{
    return bind_bitop(in, d, copysign_f32, copysign_f32_ftz, copysign_f64, 2, M_NONE);
}

/* min/max{.ftz}{.NaN}{.xorsign.abs}.f32, min/max.f64 */
static const char *bind_minmax(Inst *in, const InstDesc *d, Handler f32, Handler f32_ftz,
                               Handler f32_any, Handler f64)
{
    static const int allowed[] = {MOD_FTZ, MOD_NAN, MOD_XORSIGN, MOD_ABS, -1};
    const char *e = check(d, 2, allowed);
    if (e) return e;
    int fl = desc_has(d, MOD_FTZ) | desc_has(d, MOD_NAN) << 1 | desc_has(d, MOD_XORSIGN) << 2;
    if (desc_has(d, MOD_XORSIGN) != desc_has(d, MOD_ABS)) return ".xorsign needs .abs";
    set_flags(in, d);
    if (fl & 2) in->flags |= IF_NAN;
    in->aux8 = (uint8_t)fl;
    if (d->types[0] == TY_F64) {
        if (fl) return ".ftz/.NaN/.xorsign not allowed on .f64";
        in->fn = f64;
    } else {
        in->fn = fl == 0 ? f32 : fl == 1 ? f32_ftz : f32_any;
    }
    return NULL;
}

const char *bind_flt_min(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_minmax(in, d, min_f32, min_f32_ftz, min_f32_any, min_f64);
}

const char *bind_flt_max(Inst *in, const InstDesc *d)
{
    HALF_FIRST(d);
    return bind_minmax(in, d, max_f32, max_f32_ftz, max_f32_any, max_f64);
}

/* testp.op.type p, a: the class words are modifiers FINITE .. SUBNORMAL. */
const char *bind_testp(Inst *in, const InstDesc *d)
{
    static const int ops[] = {MOD_FINITE, MOD_INFINITE, MOD_NUMBER, MOD_NOTANUMBER,
                              MOD_NORMAL, MOD_SUBNORMAL};
    int n = 0, op = 0;
    for (int i = 0; i < 6; i++)
        if (desc_has(d, ops[i])) { n++; op = i; }
    if (n != 1) return "testp needs exactly one of .finite .infinite .number .notanumber "
                       ".normal .subnormal";
    if (d->ntypes != 1 || (d->types[0] != TY_F32 && d->types[0] != TY_F64))
        return "testp: unsupported type";
    if (d->nd != 1 || d->ns != 1) return "wrong number of operands";
    static const int allowed[] = {MOD_FINITE, MOD_INFINITE, MOD_NUMBER, MOD_NOTANUMBER,
                                  MOD_NORMAL, MOD_SUBNORMAL, -1};
    if (!fp_mods_only(d, allowed)) return "unsupported modifier";
    in->aux8 = (uint8_t)op;
    in->fn = d->types[0] == TY_F64 ? testp_f64 : testp_f32;
    return NULL;
}
