/* exec_cvt.c - cvt between integers, f16/bf16/f32/f64/tf32 and the packed f16x2, bf16x2,
 * e4m3x2 and e5m2x2 forms, and cvt.pack.
 *
 * Rounding is done in integer arithmetic (fp.h), never by changing the host's mode; only
 * the round-to-nearest int->f32/f64 and f64->f32 fast paths use host conversions, which
 * run in the default mode. Rules (PTX ISA, cvt):
 *  - float -> int needs .rni/.rzi/.rmi/.rpi, saturates to the destination range, NaN -> 0;
 *  - int -> float and narrowing float -> float need .rn/.rz/.rm/.rp (tf32: .rna/.rn/.rz);
 *  - int -> int sign- or zero-extends by the source type, truncates, .sat clamps;
 *  - signed results are stored sign-extended to 64 bits, everything else zero-extended;
 *  - .ftz flushes f32 subnormal inputs and f32 results; .sat clamps float results to
 *    [0, 1] (NaN -> 0); .relu clamps negatives to +0 (NaN stays NaN); .satfinite clamps
 *    infinities and overflow to MAX_NORM.
 * NaNs follow the H100 (tests/ptx/cvt_*): to f64, and from f64, the payload is kept (quieted,
 * sign kept, fraction shifted); bf16 -> f32 is a plain shift; every other float result is
 * the format's canonical NaN. NaN -> integer gives the destination's top bit alone
 * (0x80, 0x8000, ...) from f64, and from narrower floats 0, or 0x8000000000000000 for
 * 64-bit destinations.
 * Build with -ffp-contract=off.
 */
#include <math.h>
#include "exec.h"
#include "cvt_lane.h"
#include "jitop.h"

#define W Warp *w, const Inst *in, uint32_t mask


/* A handler whose lanes are one function (cvt_lane.h) of the source and the instruction's
 * modifiers (aux8), rounding (rnd) and operand fields (imm): a template (jitop.h) whose
 * expression names those IN_FL, IN_RND and IN_IMM, which the compiled tier writes as the
 * instruction's constants (jit/compile.c's inst_expr), so its inline lanes are these. */
#define CVT_LANES(name, expr)                                                             \
    static int name(W)                                                                    \
    {                                                                                     \
        const int IN_FL = in->aux8, IN_RND = in->rnd;                                     \
        const uint64_t IN_IMM = (uint64_t)in->imm;                                        \
        (void)IN_FL; (void)IN_RND; (void)IN_IMM;                                          \
        uint64_t *d = ROW(w, in->d[0]);                                                   \
        const uint64_t *ra = ROW(w, in->s[0]);                                            \
        LANES(l, { uint64_t a = ra[l]; d[l] = (expr); });                                 \
        return STEP_NEXT;                                                                 \
    }                                                                                     \
    JIT_OP(name, "UN", "uint64_t", "", "", "", "uint64_t", #expr)

/* ---- float -> float ------------------------------------------------------------------ */

#define FF(S, D) CVT_LANES(cvt_##S##_##D, cvt_ff_lane(a, FK_##S, FK_##D, IN_FL, IN_RND))
#define FF_ROW(S) FF(S, F16) FF(S, BF16) FF(S, F32) FF(S, F64)
FF_ROW(F16) FF_ROW(BF16) FF_ROW(F32) FF_ROW(F64)
FF(F32, TF32)
#define FF_TAB(S) {cvt_##S##_F16, cvt_##S##_BF16, cvt_##S##_F32, cvt_##S##_F64}
static const Handler ff_tab[4][4] = {FF_TAB(F16), FF_TAB(BF16), FF_TAB(F32), FF_TAB(F64)};

/* cvt.f32.f32 (any same type) with no modifier is a plain copy, NaN payloads and all
 * (H100). */
CVT_LANES(cvt_copy, a & IN_IMM)

/* cvt.rna.satfinite.tf32.f32: what the H100 gives for an infinite or NaN input is the
 * truncated input less one tf32 ulp (+inf -> MAX_NORM, 0x7fc00001 -> 0x7fbfe000); finite
 * inputs round and clamp as usual. */
CVT_LANES(cvt_tf32_satfinite, cvt_tf32_satfinite_lane(a, IN_RND))

/* ---- float -> int -------------------------------------------------------------------- */

#define FI(S) CVT_LANES(cvt_fi_##S, cvt_fi_lane(a, FK_##S, IN_FL, IN_RND, IN_IMM))
FI(F16) FI(BF16) FI(F32) FI(F64)
static const Handler fi_tab[4] = {cvt_fi_F16, cvt_fi_BF16, cvt_fi_F32, cvt_fi_F64};

/* ---- int -> float -------------------------------------------------------------------- */

#define IF(D) CVT_LANES(cvt_if_##D, cvt_if_lane(a, FK_##D, IN_FL, IN_RND, IN_IMM))
IF(F16) IF(BF16) IF(F32) IF(F64)
static const Handler if_tab[4] = {cvt_if_F16, cvt_if_BF16, cvt_if_F32, cvt_if_F64};

/* ---- int -> int ---------------------------------------------------------------------- */

/* With .sat: cvt_ii_sat_lane (cvt_lane.h). */
CVT_LANES(cvt_ii, cvt_ii_sat_lane(a, IN_FL, IN_IMM))

/* Without .sat an integer conversion only cuts and extends: one handler per pair of types,
 * each a template (jitop.h) the compiled tier writes inline. The casts compute what cvt_ii
 * does: the source's width extended by its sign, cut to the destination's width, extended
 * into the row by the destination's sign (C's conversion of DT to uint64_t). */
#define II_EXPR(ST, DT) "(uint64_t)(" #DT ")(" #ST ")a"
#define II(SN, ST, DN, DT)                                                                \
    static int cvt_ii_##SN##_##DN(W)                                                      \
    {                                                                                     \
        uint64_t *d = ROW(w, in->d[0]);                                                   \
        const uint64_t *ra = ROW(w, in->s[0]);                                            \
        LANES(l, { uint64_t a = ra[l]; d[l] = (uint64_t)(DT)(ST)a; });                    \
        return STEP_NEXT;                                                                 \
    }                                                                                     \
    JIT_OP(cvt_ii_##SN##_##DN, "UN", "uint64_t", "", "", "", "uint64_t", II_EXPR(ST, DT))
#define II_TO(SN, ST)                                                                     \
    II(SN, ST, u8, uint8_t) II(SN, ST, u16, uint16_t) II(SN, ST, u32, uint32_t)           \
    II(SN, ST, u64, uint64_t) II(SN, ST, s8, int8_t) II(SN, ST, s16, int16_t)             \
    II(SN, ST, s32, int32_t) II(SN, ST, s64, int64_t)
II_TO(u8, uint8_t) II_TO(u16, uint16_t) II_TO(u32, uint32_t) II_TO(u64, uint64_t)
II_TO(s8, int8_t) II_TO(s16, int16_t) II_TO(s32, int32_t) II_TO(s64, int64_t)
#define II_ROW(SN) { cvt_ii_##SN##_u8, cvt_ii_##SN##_u16, cvt_ii_##SN##_u32, cvt_ii_##SN##_u64, \
                     cvt_ii_##SN##_s8, cvt_ii_##SN##_s16, cvt_ii_##SN##_s32, cvt_ii_##SN##_s64 }
/* [source][destination], each indexed by width (8, 16, 32, 64) plus 4 when signed */
static const Handler ii_tab[8][8] = { II_ROW(u8), II_ROW(u16), II_ROW(u32), II_ROW(u64),
                                      II_ROW(s8), II_ROW(s16), II_ROW(s32), II_ROW(s64) };

static int ii_index(int sh, int sg) { return (sh == 56 ? 0 : sh == 48 ? 1 : sh == 32 ? 2 : 3) + 4 * sg; }

/* ---- packed forms -------------------------------------------------------------------- */

/* d = cvt(hi) << dw | cvt(lo): from two f32 sources (a is the high element), or from the
 * two elements of a packed source. */
FP_INLINE int cvt_pk_k(W, int sk, int dk, int two)
{
    int fl = in->aux8, rnd = in->rnd;
    int sw = sk == FK_F32 ? 32 : sk == FK_F16 || sk == FK_BF16 ? 16 : 8;
    int dw = dk == FK_F16 || dk == FK_BF16 ? 16 : 8;
    uint64_t sm = (1ull << sw) - 1;
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[two ? 1 : 0]);
    LANES(l, {
        uint64_t hi = two ? ra[l] : (ra[l] >> sw) & sm, lo = two ? rb[l] : ra[l] & sm;
        uint64_t rh = fk_enc(dk, clampf(fk_dec(sk, hi, 0), fl), rnd, fl & CF_SATFIN, 0);
        uint64_t rl = fk_enc(dk, clampf(fk_dec(sk, lo, 0), fl), rnd, fl & CF_SATFIN, 0);
        d[l] = rh << dw | rl;
    });
    return STEP_NEXT;
}
static int cvt_f16x2_f32(W) { return cvt_pk_k(w, in, mask, FK_F32, FK_F16, 1); }
static int cvt_bf16x2_f32(W) { return cvt_pk_k(w, in, mask, FK_F32, FK_BF16, 1); }
static int cvt_e4m3x2_f32(W) { return cvt_pk_k(w, in, mask, FK_F32, FK_E4M3, 1); }
static int cvt_e5m2x2_f32(W) { return cvt_pk_k(w, in, mask, FK_F32, FK_E5M2, 1); }
static int cvt_e4m3x2_f16x2(W) { return cvt_pk_k(w, in, mask, FK_F16, FK_E4M3, 0); }
static int cvt_e5m2x2_f16x2(W) { return cvt_pk_k(w, in, mask, FK_F16, FK_E5M2, 0); }
static int cvt_f16x2_e4m3x2(W) { return cvt_pk_k(w, in, mask, FK_E4M3, FK_F16, 0); }
static int cvt_f16x2_e5m2x2(W) { return cvt_pk_k(w, in, mask, FK_E5M2, FK_F16, 0); }

/* ---- binder -------------------------------------------------------------------------- */

static int is_int_ty(int t) { return t >= TY_B8 && t <= TY_S64 && t != TY_B128; }

/* 64 - width of an integer type, and whether it is signed. */
static int int_shift(int t, int *sg)
{
    static const int bits[TY_COUNT] = {
        [TY_B8] = 8, [TY_B16] = 16, [TY_B32] = 32, [TY_B64] = 64,
        [TY_U8] = 8, [TY_U16] = 16, [TY_U32] = 32, [TY_U64] = 64,
        [TY_S8] = 8, [TY_S16] = 16, [TY_S32] = 32, [TY_S64] = 64,
    };
    *sg = t >= TY_S8 && t <= TY_S64;
    return 64 - bits[t];
}

/* Index of a scalar float type in the ff/fi/if tables, -1 otherwise. */
static int flt_idx(int t)
{
    switch (t) {
    case TY_F16: return 0;
    case TY_BF16: return 1;
    case TY_F32: return 2;
    case TY_F64: return 3;
    default: return -1;
    }
}

/* Exact float -> float conversions (no rounding needed). */
static int ff_exact(int dt, int st)
{
    return dt == st || dt == TY_F64 || (dt == TY_F32 && (st == TY_F16 || st == TY_BF16));
}

static const char *bind_cvt_packed(Inst *in, const InstDesc *d, int dt, int st, int rnd)
{
    static const struct { int dt, st, ns; Handler h; } forms[] = {
        {TY_F16X2, TY_F32, 2, cvt_f16x2_f32}, {TY_BF16X2, TY_F32, 2, cvt_bf16x2_f32},
        {TY_E4M3X2, TY_F32, 2, cvt_e4m3x2_f32}, {TY_E5M2X2, TY_F32, 2, cvt_e5m2x2_f32},
        {TY_E4M3X2, TY_F16X2, 1, cvt_e4m3x2_f16x2}, {TY_E5M2X2, TY_F16X2, 1, cvt_e5m2x2_f16x2},
        {TY_F16X2, TY_E4M3X2, 1, cvt_f16x2_e4m3x2}, {TY_F16X2, TY_E5M2X2, 1, cvt_f16x2_e5m2x2},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        if (forms[i].dt != dt || forms[i].st != st) continue;
        if (d->ns != forms[i].ns) return "cvt: wrong number of sources for this packed form";
        int f8 = dt == TY_E4M3X2 || dt == TY_E5M2X2;
        if (desc_has(d, MOD_FTZ) || desc_has(d, MOD_SAT) || fp_desc_irnd(d) != RND_NONE)
            return "cvt: .ftz/.sat/.rXi not allowed on packed conversions";
        if (f8 || st == TY_E4M3X2 || st == TY_E5M2X2) {
            if (rnd != RND_RN) return "cvt: fp8 conversions need .rn";
            if (f8 && !desc_has(d, MOD_SATFINITE)) return "cvt: fp8 results need .satfinite";
        } else if (rnd != RND_RN && rnd != RND_RZ) {
            return rnd == RND_RS ? "cvt: .rs (stochastic rounding) is not supported"
                                 : "cvt: packed f16x2/bf16x2 conversions need .rn or .rz";
        }
        in->fn = forms[i].h;
        return NULL;
    }
    return "cvt: unsupported packed conversion";
}

const char *bind_cvt(Inst *in, const InstDesc *d)
{
    static const int allowed[] = {MOD_RN, MOD_RZ, MOD_RM, MOD_RP, MOD_RNA, MOD_RS, MOD_RNI,
        MOD_RZI, MOD_RMI, MOD_RPI, MOD_FTZ, MOD_SAT, MOD_RELU, MOD_SATFINITE, -1};
    if (d->ntypes != 2) return "cvt needs a destination and a source type";
    if (d->nd != 1) return "cvt: wrong number of destinations";
    if (!fp_mods_only(d, allowed)) return "cvt: unsupported modifier";
    int dt = d->types[0], st = d->types[1];
    int rnd = fp_desc_rnd(d), irnd = fp_desc_irnd(d);
    if (rnd != RND_NONE && irnd != RND_NONE) return "cvt: two rounding modifiers";
    int fl = desc_has(d, MOD_FTZ) * CF_FTZ | desc_has(d, MOD_SAT) * CF_SAT |
             desc_has(d, MOD_RELU) * CF_RELU | desc_has(d, MOD_SATFINITE) * CF_SATFIN |
             (irnd != RND_NONE) * CF_INT;
    in->aux8 = (uint8_t)fl;
    in->rnd = (uint8_t)(irnd != RND_NONE ? irnd : rnd);
    if (fl & CF_FTZ) in->flags |= IF_FTZ;
    if (fl & CF_SAT) in->flags |= IF_SAT;
    if (fl & CF_RELU) in->flags |= IF_RELU;
    if (rnd == RND_RS) return "cvt: .rs (stochastic rounding) is not supported";

    if (dt == TY_F16X2 || dt == TY_BF16X2 || dt == TY_E4M3X2 || dt == TY_E5M2X2)
        return bind_cvt_packed(in, d, dt, st, rnd);
    if (d->ns != 1) return "cvt: wrong number of sources";
    int di = flt_idx(dt), si = flt_idx(st), dsg, ssg;
    int rn_only = (fl & (CF_RELU | CF_SATFIN)) || rnd == RND_RNA;
    if ((fl & CF_FTZ) && dt != TY_F32 && st != TY_F32) return "cvt: .ftz needs an .f32 operand";

    if (is_int_ty(dt) && is_int_ty(st)) {
        if (rnd != RND_NONE || irnd != RND_NONE || rn_only || (fl & CF_FTZ))
            return "cvt: integer conversions take only .sat";
        int dsh = int_shift(dt, &dsg), ssh = int_shift(st, &ssg);
        in->imm = ssh | dsh << 8 | ssg << 16 | dsg << 17;
        in->fn = (fl & CF_SAT) ? cvt_ii : ii_tab[ii_index(ssh, ssg)][ii_index(dsh, dsg)];
        return NULL;
    }
    if (is_int_ty(dt) && si >= 0) {
        if (irnd == RND_NONE) return "cvt: float-to-integer needs .rni/.rzi/.rmi/.rpi";
        if (rn_only) return "cvt: .relu/.satfinite not allowed here";
        int dsh = int_shift(dt, &dsg);
        in->imm = dsh << 8 | dsg << 17;
        in->fn = fi_tab[si];
        return NULL;
    }
    if (di >= 0 && is_int_ty(st)) {
        if (rnd == RND_NONE || irnd != RND_NONE || rn_only)
            return "cvt: integer-to-float needs .rn/.rz/.rm/.rp";
        int ssh = int_shift(st, &ssg);
        in->imm = ssh | ssg << 16;
        in->fn = if_tab[di];
        return NULL;
    }
    if (dt == TY_TF32) {
        if (st != TY_F32) return "cvt: .tf32 converts only from .f32";
        if (rnd != RND_RNA && rnd != RND_RN && rnd != RND_RZ)
            return "cvt: .tf32 needs .rna, .rn or .rz";
        if (fl & (CF_SAT | CF_FTZ | CF_INT)) return "cvt: .sat/.ftz/.rXi not allowed for .tf32";
        in->fn = (fl & CF_SATFIN) ? cvt_tf32_satfinite : cvt_F32_TF32;
        return NULL;
    }
    if (di < 0 || si < 0) return "cvt: unsupported type pair";
    if (irnd != RND_NONE && dt != st)
        return "cvt: integer rounding between different float types is not supported";
    if (rnd == RND_NONE && irnd == RND_NONE && !ff_exact(dt, st))
        return "cvt: a narrowing float conversion needs .rn/.rz/.rm/.rp";
    if (rnd == RND_RNA) return "cvt: .rna is only for .tf32";
    if ((fl & (CF_RELU | CF_SATFIN)) && dt != TY_F16 && dt != TY_BF16)
        return "cvt: .relu/.satfinite need an .f16/.bf16 destination";
    if (rnd == RND_NONE && irnd == RND_NONE) in->rnd = RND_RN;
    in->fn = ff_tab[si][di];
    if (dt == st && rnd == RND_NONE && irnd == RND_NONE && !(fl & (CF_FTZ | CF_SAT))) {
        in->fn = cvt_copy;
        in->imm = (int64_t)(~0ull >> (64 - 8 * (dt == TY_F64 ? 8 : dt == TY_F32 ? 4 : 2)));
    }
    return NULL;
}

/* ---- cvt.pack ------------------------------------------------------------------------ */

/* cvt.pack.sat.{u16,s16}.s32 d, a, b: d = sat(a) << 16 | sat(b);
 * cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c: d = c << 16 | sat(a) << 8 | sat(b). */
static int cvt_pack(W)
{
    int n = in->aux8;
    int64_t lo = in->imm >> 32, hi = (int32_t)(uint32_t)in->imm;
    uint32_t m = (1u << n) - 1;
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[1]);
    const uint64_t *rc = ROW(w, in->s[in->ns > 2 ? 2 : 0]);
    int has_c = in->ns > 2;
    LANES(l, {
        int64_t a = (int32_t)ra[l], b = (int32_t)rb[l];
        a = a < lo ? lo : a > hi ? hi : a;
        b = b < lo ? lo : b > hi ? hi : b;
        uint32_t r = ((uint32_t)a & m) << n | ((uint32_t)b & m);
        if (has_c) r |= (uint32_t)rc[l] << (2 * n);
        d[l] = r;
    });
    return STEP_NEXT;
}

const char *bind_cvt_pack(Inst *in, const InstDesc *d)
{
    static const int allowed[] = {MOD_SAT, -1};
    if (!fp_mods_only(d, allowed) || !desc_has(d, MOD_SAT)) return "cvt.pack needs .sat";
    if (d->ntypes < 2 || d->types[1] != TY_S32) return "cvt.pack: sources must be .s32";
    int t = d->types[0], n;
    int64_t lo, hi;
    switch (t) {
    case TY_U16: n = 16; lo = 0; hi = 65535; break;
    case TY_S16: n = 16; lo = -32768; hi = 32767; break;
    case TY_U8: n = 8; lo = 0; hi = 255; break;
    case TY_S8: n = 8; lo = -128; hi = 127; break;
    default: return "cvt.pack: unsupported type (.u4/.s4/.u2/.s2 are not supported)";
    }
    if (n == 16 ? (d->ntypes != 2 || d->ns != 2) :
                  (d->ntypes != 3 || d->types[2] != TY_B32 || d->ns != 3))
        return "cvt.pack: wrong operands (16-bit: d, a, b; 8-bit: .b32 d, a, b, c)";
    if (d->nd != 1) return "cvt.pack: wrong number of destinations";
    in->aux8 = (uint8_t)n;
    in->imm = (int64_t)((uint64_t)lo << 32 | (uint32_t)hi);
    in->fn = cvt_pack;
    return NULL;
}
