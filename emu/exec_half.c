/* exec_half.c - f16, bf16, f16x2 and bf16x2 arithmetic (add, sub, mul, fma, abs, neg, min,
 * max, ex2, tanh) and the half forms of setp and set.
 *
 * Values live in the low 16 (scalar) or 32 (x2: element 0 in bits 0..15) bits of a row.
 * Each element is widened exactly to double; products are exact there, sums are rounded
 * to odd (fp_add_rto), so the one final rounding to f16/bf16 (round to nearest even, the
 * only mode these instructions have) is correct. The host stays in round-to-nearest.
 * NaN results (abs and neg included) are the canonical 0x7fff; .ftz flushes f16 subnormal
 * inputs and results;
 * .sat clamps to [0, 1] (NaN -> +0); .relu clamps negatives (and -0) to +0.
 * Build with -ffp-contract=off.
 */
#include <math.h>
#include "exec.h"
#include "sfu.h"
#include "fp.h"

#define W Warp *w, const Inst *in, uint32_t mask


enum { HA_ADD, HA_SUB, HA_MUL, HA_FMA, HA_MIN, HA_MAX, HA_ABS, HA_NEG, HA_EX2, HA_TANH,
       HA_COUNT };
/* Inst.aux8 bits of the half handlers */
enum { HF_FTZ = 1, HF_SAT = 2, HF_RELU = 4, HF_NAN = 8, HF_XORSIGN = 16 };

FP_INLINE uint32_t h_ftz(uint32_t h, int bf)
{
    return (h & (bf ? 0x7f80u : 0x7c00u)) ? h : (h & 0x8000u);
}

FP_INLINE double h_val(uint32_t h, int bf)
{
    return fp_to_f64(h, bf ? FP_BF16 : FP_F16);
}

/* Round r to the element format under .sat/.relu/.ftz. .ftz flushes when the exact value
 * is below the smallest normal, even if it would round up to it (as f32 does on the GPU);
 * r is exact or rounded to odd, which keeps that comparison. */
FP_INLINE uint32_t h_enc(double r, int bf, int fl, int rnd)
{
    if (fl & HF_SAT) r = r > 0 ? (r < 1 ? r : 1) : 0;
    if ((fl & HF_RELU) && r <= 0) r = 0;            /* NaN fails the test and stays NaN */
    if ((fl & HF_FTZ) && fabs(r) < (bf ? 0x1p-126 : 0x1p-14)) r = copysign(0.0, r);
    uint32_t h = (uint32_t)fp_from_f64(r, bf ? FP_BF16 : FP_F16, rnd, 0);
    return (fl & HF_FTZ) ? h_ftz(h, bf) : h;
}

/* min/max on encodings (see exec_float.c: NaN rules, -0 below +0, .xorsign.abs). */
FP_INLINE uint32_t h_minmax(uint32_t a, uint32_t b, int bf, int fl, int is_max)
{
    uint32_t xs = (a ^ b) & 0x8000u;
    if (fl & HF_XORSIGN) { a &= 0x7fffu; b &= 0x7fffu; }
    double x = h_val(a, bf), y = h_val(b, bf);
    uint32_t r;
    if (x != x || y != y) {
        if ((fl & HF_NAN) || (x != x && y != y)) return 0x7fffu;
        r = x != x ? b : a;
    } else if (x == y) {
        r = ((a >> 15) == (uint32_t)is_max) ? b : a;
    } else {
        r = ((x < y) != is_max) ? a : b;
    }
    return (fl & HF_XORSIGN) ? r | xs : r;
}

/* One element of op on 16-bit encodings a, b, c. */
FP_INLINE uint32_t h_elem(int op, int bf, int fl, uint32_t a, uint32_t b, uint32_t c)
{
    if (fl & HF_FTZ) { a = h_ftz(a, bf); b = h_ftz(b, bf); c = h_ftz(c, bf); }
    switch (op) {
    /* NaN gives the canonical NaN (H100, tests/ptx/f16x2) */
    case HA_ABS: return (a & 0x7fffu) > (bf ? 0x7f80u : 0x7c00u) ? 0x7fffu : a & 0x7fffu;
    case HA_NEG: return (a & 0x7fffu) > (bf ? 0x7f80u : 0x7c00u) ? 0x7fffu : a ^ 0x8000u;
    case HA_MIN: return h_minmax(a, b, bf, fl, 0);
    case HA_MAX: return h_minmax(a, b, bf, fl, 1);
    default: break;
    }
    double x = h_val(a, bf), y = h_val(b, bf), z = h_val(c, bf), r;
    switch (op) {
    case HA_ADD: r = fp_add_rto(x, y); break;
    case HA_SUB: r = fp_add_rto(x, -y); break;
    case HA_MUL: r = x * y; break;                  /* exact in double */
    case HA_FMA: r = fp_add_rto(x * y, z); break;
    /* ex2.approx and tanh.approx on halves: the GPU's results (MUFU.EX2/TANH.F16/BF16,
     * sfu.c); without the tables, the exact value cut to 16 bits */
    case HA_EX2: return sfu_halfs_ok() ? sfu_half(0, (uint16_t)a, bf) : h_enc(exp2(x), bf, fl, RND_RZ);
    default: return sfu_halfs_ok() ? sfu_half(1, (uint16_t)a, bf) : h_enc(tanh(x), bf, fl, RND_RZ);
    }
    return h_enc(r, bf, fl, RND_RN);
}

FP_INLINE int half_k(W, int op, int bf, int n2)
{
    int fl = in->aux8;
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *ra = ROW(w, in->s[0]);
    const uint64_t *rb = ROW(w, in->s[in->ns > 1 ? 1 : 0]);
    const uint64_t *rc = ROW(w, in->s[in->ns > 2 ? 2 : 0]);
    LANES(l, {
        uint64_t a = ra[l], b = rb[l], c = rc[l];
        uint32_t r = h_elem(op, bf, fl, a & 0xffff, b & 0xffff, c & 0xffff);
        if (n2)
            r |= h_elem(op, bf, fl, (a >> 16) & 0xffff, (b >> 16) & 0xffff,
                        (c >> 16) & 0xffff) << 16;
        d[l] = r;
    });
    return STEP_NEXT;
}

/* Handlers [op][bf16][x2]. */
#define HALF4(OP)                                                             \
    static int OP##_f16(W) { return half_k(w, in, mask, OP, 0, 0); }          \
    static int OP##_f16x2(W) { return half_k(w, in, mask, OP, 0, 1); }        \
    static int OP##_bf16(W) { return half_k(w, in, mask, OP, 1, 0); }         \
    static int OP##_bf16x2(W) { return half_k(w, in, mask, OP, 1, 1); }
#define HALF_ROW(OP) [OP] = {{OP##_f16, OP##_f16x2}, {OP##_bf16, OP##_bf16x2}}
HALF4(HA_ADD) HALF4(HA_SUB) HALF4(HA_MUL) HALF4(HA_FMA) HALF4(HA_MIN) HALF4(HA_MAX)
HALF4(HA_ABS) HALF4(HA_NEG) HALF4(HA_EX2) HALF4(HA_TANH)
static const Handler half_tab[HA_COUNT][2][2] = {
    HALF_ROW(HA_ADD), HALF_ROW(HA_SUB), HALF_ROW(HA_MUL), HALF_ROW(HA_FMA),
    HALF_ROW(HA_MIN), HALF_ROW(HA_MAX), HALF_ROW(HA_ABS), HALF_ROW(HA_NEG),
    HALF_ROW(HA_EX2), HALF_ROW(HA_TANH),
};

/* What each opcode accepts: operation, sources, modifiers for f16 and for bf16, whether
 * .rn is mandatory, whether .approx is. */
typedef struct HalfForm {
    int op, ha, ns;
    int f16_mods[6], bf16_mods[6];
    int need_rn, need_approx;
} HalfForm;

static const HalfForm half_forms[] = {
    {OP_add, HA_ADD, 2, {MOD_RN, MOD_FTZ, MOD_SAT, -1}, {MOD_RN, -1}, 0, 0},
    {OP_sub, HA_SUB, 2, {MOD_RN, MOD_FTZ, MOD_SAT, -1}, {MOD_RN, -1}, 0, 0},
    {OP_mul, HA_MUL, 2, {MOD_RN, MOD_FTZ, MOD_SAT, -1}, {MOD_RN, -1}, 0, 0},
    {OP_fma, HA_FMA, 3, {MOD_RN, MOD_FTZ, MOD_SAT, MOD_RELU, -1}, {MOD_RN, MOD_RELU, -1}, 1, 0},
    {OP_min, HA_MIN, 2, {MOD_FTZ, MOD_NAN, MOD_XORSIGN, MOD_ABS, -1},
     {MOD_NAN, MOD_XORSIGN, MOD_ABS, -1}, 0, 0},
    {OP_max, HA_MAX, 2, {MOD_FTZ, MOD_NAN, MOD_XORSIGN, MOD_ABS, -1},
     {MOD_NAN, MOD_XORSIGN, MOD_ABS, -1}, 0, 0},
    {OP_abs, HA_ABS, 1, {MOD_FTZ, -1}, {-1}, 0, 0},
    {OP_neg, HA_NEG, 1, {MOD_FTZ, -1}, {-1}, 0, 0},
    {OP_ex2, HA_EX2, 1, {MOD_APPROX, -1}, {MOD_APPROX, MOD_FTZ, -1}, 0, 1},
    {OP_tanh, HA_TANH, 1, {MOD_APPROX, -1}, {MOD_APPROX, -1}, 0, 1},
};

const char *bind_half_arith(Inst *in, const InstDesc *d)
{
    const HalfForm *f = NULL;
    for (size_t i = 0; i < sizeof half_forms / sizeof half_forms[0]; i++)
        if (half_forms[i].op == d->op) f = &half_forms[i];
    if (!f) return "unsupported instruction for .f16/.bf16 types (use fma for mad)";
    int t = d->types[0];
    int bf = t == TY_BF16 || t == TY_BF16X2, x2 = t == TY_F16X2 || t == TY_BF16X2;
    if (d->ntypes != 1) return "expected one type";
    if (d->nd != 1 || d->ns != f->ns) return "wrong number of operands";
    if (!fp_mods_only(d, bf ? f->bf16_mods : f->f16_mods))
        return "unsupported modifier for this half-precision instruction";
    if (f->need_rn && !desc_has(d, MOD_RN)) return "rounding modifier .rn required";
    if (f->need_approx && !desc_has(d, MOD_APPROX)) return ".approx required";
    if (d->op == OP_ex2 && bf && !desc_has(d, MOD_FTZ)) return "ex2.approx.bf16 needs .ftz";
    if (desc_has(d, MOD_SAT) && desc_has(d, MOD_RELU)) return ".sat and .relu exclude each other";
    if (desc_has(d, MOD_XORSIGN) != desc_has(d, MOD_ABS)) return ".xorsign needs .abs";
    int fl = desc_has(d, MOD_FTZ) * HF_FTZ | desc_has(d, MOD_SAT) * HF_SAT |
             desc_has(d, MOD_RELU) * HF_RELU | desc_has(d, MOD_NAN) * HF_NAN |
             desc_has(d, MOD_XORSIGN) * HF_XORSIGN;
    in->aux8 = (uint8_t)fl;
    in->rnd = RND_RN;
    if (fl & HF_FTZ) in->flags |= IF_FTZ;
    if (fl & HF_SAT) in->flags |= IF_SAT;
    if (fl & HF_RELU) in->flags |= IF_RELU;
    if (fl & HF_NAN) in->flags |= IF_NAN;
    in->fn = half_tab[f->ha][bf][x2];
    return NULL;
}

/* ---- setp / set ----------------------------------------------------------------------- */

/* Inst.bop of the half setp/set handlers */
enum { BOP_NONE, BOP_AND, BOP_OR, BOP_XOR };

FP_INLINE uint32_t bop_apply(int bop, uint32_t t, uint32_t c)
{
    switch (bop) {
    case BOP_AND: return t & c;
    case BOP_OR:  return t | c;
    case BOP_XOR: return t ^ c;
    default:      return t;
    }
}

/* Float comparison; the unordered forms are true when either input is NaN. */
FP_INLINE int cmp_f(int cmp, double x, double y)
{
    int un = x != x || y != y;
    switch (cmp) {
    case CMP_EQ:  return x == y;
    case CMP_NE:  return !un && x != y;
    case CMP_LT:  return x < y;
    case CMP_LE:  return x <= y;
    case CMP_GT:  return x > y;
    case CMP_GE:  return x >= y;
    case CMP_EQU: return un || x == y;
    case CMP_NEU: return x != y;
    case CMP_LTU: return un || x < y;
    case CMP_LEU: return un || x <= y;
    case CMP_GTU: return un || x > y;
    case CMP_GEU: return un || x >= y;
    case CMP_NUM: return !un;
    default:      return un;
    }
}

/* Integer comparison given a < b and a == b (lo/ls/hi/hs map to lt/le/gt/ge). */
FP_INLINE int cmp_i(int cmp, int lt, int eq)
{
    switch (cmp) {
    case CMP_EQ: return eq;
    case CMP_NE: return !eq;
    case CMP_LT: return lt;
    case CMP_LE: return lt || eq;
    case CMP_GT: return !lt && !eq;
    default:     return !lt;
    }
}

/* Source classes of set/setp: halves (element 0 or 1), f32, f64, unsigned, signed. */
enum { SC_F16, SC_BF16, SC_F32, SC_F64, SC_U, SC_S };

/* Compare element `hi` of a and b for class sc; sh is 64 - width for integers. */
FP_INLINE int cmp_elem(int sc, int cmp, int ftz, int sh, uint64_t a, uint64_t b, int hi)
{
    switch (sc) {
    case SC_F16: case SC_BF16: {
        uint32_t x = (uint32_t)(a >> (16 * hi)) & 0xffff, y = (uint32_t)(b >> (16 * hi)) & 0xffff;
        if (ftz) { x = h_ftz(x, sc == SC_BF16); y = h_ftz(y, sc == SC_BF16); }
        return cmp_f(cmp, h_val(x, sc == SC_BF16), h_val(y, sc == SC_BF16));
    }
    case SC_F32: {
        uint32_t x = (uint32_t)a, y = (uint32_t)b;
        if (ftz) { x = fp_ftz32(x); y = fp_ftz32(y); }
        return cmp_f(cmp, fp_bits_f32(x), fp_bits_f32(y));
    }
    case SC_F64: return cmp_f(cmp, fp_bits_f64(a), fp_bits_f64(b));
    case SC_U: {
        uint64_t x = a << sh >> sh, y = b << sh >> sh;
        return cmp_i(cmp, x < y, x == y);
    }
    default: {
        int64_t x = (int64_t)(a << sh) >> sh, y = (int64_t)(b << sh) >> sh;
        return cmp_i(cmp, x < y, x == y);
    }
    }
}

/* Compare every lane of mask: bit l of t[0] (element 0) and t[1] (element 1). */
FP_INLINE void cmp_lanes(W, int sc, int n2, uint32_t t[2])
{
    const uint64_t *ra = ROW(w, in->s[0]), *rb = ROW(w, in->s[1]);
    int ftz = (in->flags & IF_FTZ) != 0, sh = (int)(in->imm >> 32);
    t[0] = t[1] = 0;
    FOR_LANES(mask, l) {
        t[0] |= (uint32_t)cmp_elem(sc, in->cmp, ftz, sh, ra[l], rb[l], 0) << l;
        if (n2) t[1] |= (uint32_t)cmp_elem(sc, in->cmp, ftz, sh, ra[l], rb[l], 1) << l;
    }
}

/* The BoolOp's predicate operand c (all lanes), negated when written !c. */
FP_INLINE uint32_t pred_c(Warp *w, const Inst *in)
{
    if (in->bop == BOP_NONE) return 0;
    return w->P[in->s[2]] ^ ((in->flags & IF_NEG_C) ? 0xffffffffu : 0);
}

FP_INLINE void pred_write(Warp *w, uint32_t p, uint32_t v, uint32_t mask)
{
    w->P[p] = (w->P[p] & ~mask) | (v & mask);
}

/* setp p[|q], a, b[, c]: x2 forms give p from the low halves and q from the high ones;
 * scalar forms give q from the complement of the comparison. */
FP_INLINE int setp_k(W, int sc, int n2)
{
    uint32_t t[2];
    uint32_t c = pred_c(w, in);
    cmp_lanes(w, in, mask, sc, n2, t);
    uint32_t p = bop_apply(in->bop, t[0], c);
    uint32_t q = bop_apply(in->bop, n2 ? t[1] : ~t[0], c);
    pred_write(w, in->d[0], p, mask);
    if (in->nd > 1) pred_write(w, in->d[1], q, mask);
    return STEP_NEXT;
}
static int setp_f16(W) { return setp_k(w, in, mask, SC_F16, 0); }
static int setp_f16x2(W) { return setp_k(w, in, mask, SC_F16, 1); }
static int setp_bf16(W) { return setp_k(w, in, mask, SC_BF16, 0); }
static int setp_bf16x2(W) { return setp_k(w, in, mask, SC_BF16, 1); }

/* set d, a, b[, c]: the true value (1.0 in the destination's format, or all ones) is in
 * the low 32 bits of Inst.imm; x2 sources give one result per 16-bit half. */
FP_INLINE int set_k(W, int sc, int n2)
{
    uint32_t t[2];
    uint32_t c = pred_c(w, in);
    cmp_lanes(w, in, mask, sc, n2, t);
    uint32_t r0 = bop_apply(in->bop, t[0], c), r1 = bop_apply(in->bop, t[1], c);
    uint64_t tv = (uint32_t)in->imm;
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l)
        d[l] = ((r0 >> l) & 1 ? tv : 0) | (n2 && ((r1 >> l) & 1) ? tv << 16 : 0);
    return STEP_NEXT;
}
static int set_f16(W) { return set_k(w, in, mask, SC_F16, 0); }
static int set_f16x2(W) { return set_k(w, in, mask, SC_F16, 1); }
static int set_bf16(W) { return set_k(w, in, mask, SC_BF16, 0); }
static int set_bf16x2(W) { return set_k(w, in, mask, SC_BF16, 1); }
static int set_f32(W) { return set_k(w, in, mask, SC_F32, 0); }
static int set_f64(W) { return set_k(w, in, mask, SC_F64, 0); }
static int set_u(W) { return set_k(w, in, mask, SC_U, 0); }
static int set_s(W) { return set_k(w, in, mask, SC_S, 0); }

/* CmpOp from the modifiers, -1 when not exactly one. */
static int desc_cmp(const InstDesc *d)
{
    static const int map[][2] = {
        {MOD_EQ, CMP_EQ}, {MOD_NE, CMP_NE}, {MOD_LT, CMP_LT}, {MOD_LE, CMP_LE},
        {MOD_GT, CMP_GT}, {MOD_GE, CMP_GE}, {MOD_LO, CMP_LT}, {MOD_LS, CMP_LE},
        {MOD_HI, CMP_GT}, {MOD_HS, CMP_GE}, {MOD_EQU, CMP_EQU}, {MOD_NEU, CMP_NEU},
        {MOD_LTU, CMP_LTU}, {MOD_LEU, CMP_LEU}, {MOD_GTU, CMP_GTU}, {MOD_GEU, CMP_GEU},
        {MOD_NUM, CMP_NUM}, {MOD_NAN, CMP_NAN},
    };
    int cmp = -1, n = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (desc_has(d, map[i][0])) { cmp = map[i][1]; n++; }
    return n == 1 ? cmp : -1;
}

/* CmpOp, BoolOp and .ftz, shared by setp and set. */
static const char *bind_cmp_common(Inst *in, const InstDesc *d, int ftz_ok)
{
    static const int allowed[] = {MOD_EQ, MOD_NE, MOD_LT, MOD_LE, MOD_GT, MOD_GE, MOD_LO,
        MOD_LS, MOD_HI, MOD_HS, MOD_EQU, MOD_NEU, MOD_LTU, MOD_LEU, MOD_GTU, MOD_GEU,
        MOD_NUM, MOD_NAN, MOD_AND, MOD_OR, MOD_XOR, MOD_FTZ, -1};
    int cmp = desc_cmp(d);
    if (cmp < 0) return "needs exactly one comparison operator";
    if (!fp_mods_only(d, allowed)) return "unsupported modifier";
    if (desc_has(d, MOD_FTZ) && !ftz_ok) return ".ftz not allowed for this type";
    int bop = desc_has(d, MOD_AND) ? BOP_AND : desc_has(d, MOD_OR) ? BOP_OR
            : desc_has(d, MOD_XOR) ? BOP_XOR : BOP_NONE;
    if (desc_has(d, MOD_AND) + desc_has(d, MOD_OR) + desc_has(d, MOD_XOR) > 1)
        return "more than one boolean operator";
    if (d->ns != (bop ? 3 : 2)) return "wrong number of operands";
    in->cmp = (uint8_t)cmp;
    in->bop = (uint8_t)bop;
    if (desc_has(d, MOD_FTZ)) in->flags |= IF_FTZ;
    return NULL;
}

const char *bind_half_setp(Inst *in, const InstDesc *d)
{
    static const Handler tab[2][2] = {{setp_f16, setp_f16x2}, {setp_bf16, setp_bf16x2}};
    int t = d->types[0];
    if (d->ntypes != 1 || !fp_ty_is_half(t)) return "setp: unsupported type";
    int bf = t == TY_BF16 || t == TY_BF16X2, x2 = t == TY_F16X2 || t == TY_BF16X2;
    const char *e = bind_cmp_common(in, d, !bf);
    if (e) return e;
    if (desc_has(d, MOD_LO) || desc_has(d, MOD_LS) || desc_has(d, MOD_HI) ||
        desc_has(d, MOD_HS))
        return "setp: lo/ls/hi/hs are for unsigned integers";
    if (x2 ? d->nd != 2 : (d->nd < 1 || d->nd > 2))
        return x2 ? "setp on x2 types needs two predicates p|q" : "wrong number of operands";
    in->fn = tab[bf][x2];
    return NULL;
}

/* Source class and shift of a set source type, -1 when not comparable. */
static int src_class(int t, int *sh)
{
    *sh = 0;
    switch (t) {
    case TY_F16: case TY_F16X2: return SC_F16;
    case TY_BF16: case TY_BF16X2: return SC_BF16;
    case TY_F32: return SC_F32;
    case TY_F64: return SC_F64;
    case TY_B16: case TY_U16: *sh = 48; return SC_U;
    case TY_B32: case TY_U32: *sh = 32; return SC_U;
    case TY_B64: case TY_U64: return SC_U;
    case TY_S16: *sh = 48; return SC_S;
    case TY_S32: *sh = 32; return SC_S;
    case TY_S64: return SC_S;
    default: return -1;
    }
}

/* set.CmpOp{.BoolOp}{.ftz}.dtype.stype where the destination or the source is a half
 * type: .f16/.bf16 destinations (1.0 as true) from any comparable source; half sources
 * into .u16/.s16/.u32/.s32 (all ones) or the same x2 type (1.0 per half). */
const char *bind_half_set(Inst *in, const InstDesc *d)
{
    if (d->ntypes != 2 || d->nd != 1) return "set: needs a destination and a source type";
    int dt = d->types[0], st = d->types[1], sh;
    int sc = src_class(st, &sh);
    if (sc < 0) return "set: unsupported source type";
    int x2 = st == TY_F16X2 || st == TY_BF16X2;
    uint32_t tv;
    switch (dt) {
    case TY_F16: tv = 0x3c00; break;
    case TY_BF16: tv = 0x3f80; break;
    case TY_F16X2: tv = 0x3c00; break;
    case TY_BF16X2: tv = 0x3f80; break;
    case TY_U16: case TY_S16: tv = 0xffff; break;
    case TY_U32: case TY_S32: tv = x2 ? 0xffff : 0xffffffffu; break;
    case TY_F32: tv = 0x3f800000u; break;
    default: return "set: unsupported destination type";
    }
    if (x2 ? !(dt == TY_U32 || dt == TY_S32 || dt == st)
           : (dt == TY_F16X2 || dt == TY_BF16X2))
        return "set: x2 destinations need the same x2 source (or .u32/.s32)";
    if (!fp_ty_is_half(dt) && !fp_ty_is_half(st))
        return "set: neither type is a half type";
    const char *e = bind_cmp_common(in, d, sc == SC_F16 || sc == SC_F32);
    if (e) return e;
    if ((sc == SC_U || sc == SC_S) && in->cmp > CMP_GE)
        return "set: unordered comparisons need float sources";
    in->imm = (int64_t)((uint64_t)(uint32_t)sh << 32 | tv);
    static const Handler scal[] = {set_f16, set_bf16, set_f32, set_f64, set_u, set_s};
    in->fn = x2 ? (sc == SC_F16 ? set_f16x2 : set_bf16x2) : scal[sc];
    return NULL;
}
