/* exec_cmp.c - logic, shift, permute, move, compare and select handlers (and/or/xor/not/
 * cnot/lop3, shl/shr/shf, prmt, mov, setp/set, selp/slct).
 *
 * Compares are specialised per type and comparison; the optional boolean combine of
 * setp/set (and/or/xor with a third predicate) and the destination kind are applied by
 * one shared tail, cmp_finish(), whose work is per warp rather than per lane.
 */
#include "exec_int_tmpl.h"

/* Inst.bop values for setp/set. */
/* Inst.aux8 for compares: where the result goes. */

/* ---------------------------------------------------------------- bitwise logic */

H_BIN(and_16, uint16_t, uint16_t, uint16_t, a & b)
H_BIN(and_32, uint32_t, uint32_t, uint32_t, a & b)
H_BIN(and_64, uint64_t, uint64_t, uint64_t, a & b)
H_BIN(or_16, uint16_t, uint16_t, uint16_t, a | b)
H_BIN(or_32, uint32_t, uint32_t, uint32_t, a | b)
H_BIN(or_64, uint64_t, uint64_t, uint64_t, a | b)
H_BIN(xor_16, uint16_t, uint16_t, uint16_t, a ^ b)
H_BIN(xor_32, uint32_t, uint32_t, uint32_t, a ^ b)
H_BIN(xor_64, uint64_t, uint64_t, uint64_t, a ^ b)
H_UN(not_16, uint16_t, uint16_t, ~a)
H_UN(not_32, uint32_t, uint32_t, ~a)
H_UN(not_64, uint64_t, uint64_t, ~a)
H_UN(cnot_16, uint16_t, uint16_t, a == 0)
H_UN(cnot_32, uint32_t, uint32_t, a == 0)
H_UN(cnot_64, uint64_t, uint64_t, a == 0)
static const Handler and_h[3] = { h_and_16, h_and_32, h_and_64 };
static const Handler or_h[3] = { h_or_16, h_or_32, h_or_64 };
static const Handler xor_h[3] = { h_xor_16, h_xor_32, h_xor_64 };
static const Handler not_h[3] = { h_not_16, h_not_32, h_not_64 };
static const Handler cnot_h[3] = { h_cnot_16, h_cnot_32, h_cnot_64 };

/* Predicate forms: operands are predicate indices. */
static int h_and_pred(Warp *w, const Inst *in, uint32_t mask)
{
    pred_put(w, in->d[0], mask, w->P[in->s[0]] & w->P[in->s[1]]);
    return STEP_NEXT;
}
static int h_or_pred(Warp *w, const Inst *in, uint32_t mask)
{
    pred_put(w, in->d[0], mask, w->P[in->s[0]] | w->P[in->s[1]]);
    return STEP_NEXT;
}
static int h_xor_pred(Warp *w, const Inst *in, uint32_t mask)
{
    pred_put(w, in->d[0], mask, w->P[in->s[0]] ^ w->P[in->s[1]]);
    return STEP_NEXT;
}
/* not.pred and mov.pred have one source, so a negation on it (!%q) is unambiguous. */
static int h_not_pred(Warp *w, const Inst *in, uint32_t mask)
{
    uint32_t v = w->P[in->s[0]] ^ ((in->flags & IF_NEG_C) ? ~0u : 0u);
    pred_put(w, in->d[0], mask, ~v);
    return STEP_NEXT;
}
static int h_mov_pred(Warp *w, const Inst *in, uint32_t mask)
{
    uint32_t v = w->P[in->s[0]] ^ ((in->flags & IF_NEG_C) ? ~0u : 0u);
    pred_put(w, in->d[0], mask, v);
    return STEP_NEXT;
}
/* The compiled tier writes these inline (jit/compile.c's emit_pred): kind "PRED", t[0] the
 * number of sources, t[1] "1" when a negation of the source (IF_NEG_C) applies; the
 * expression over the sources' masks a, b is the new value of the lanes of mask. */
JIT_OP(h_and_pred, "PRED", "2", "0", "", "", "uint32_t", "a & b")
JIT_OP(h_or_pred, "PRED", "2", "0", "", "", "uint32_t", "a | b")
JIT_OP(h_xor_pred, "PRED", "2", "0", "", "", "uint32_t", "a ^ b")
JIT_OP(h_not_pred, "PRED", "1", "1", "", "", "uint32_t", "~a")
JIT_OP(h_mov_pred, "PRED", "1", "1", "", "", "uint32_t", "a")

/* lop3: bit i of the LUT (e, a constant row) is the result for a = i>>2&1, b = i>>1&1,
 * c = i&1; the result is the OR of the selected minterms. */
static inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t m = 0u - ((lut >> i) & 1u);
        r |= m & (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
    }
    return r;
}
H_QUAD(lop3, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, lop3(a, b, c, e))

/* ---------------------------------------------------------------- shifts */

/* The shift amount is an unsigned 32-bit value; amounts past the width are clamped. */
H_BIN(shl_16, uint16_t, uint32_t, uint16_t, b >= 16 ? 0 : (uint32_t)a << b)
H_BIN(shl_32, uint32_t, uint32_t, uint32_t, b >= 32 ? 0 : a << b)
H_BIN(shl_64, uint64_t, uint32_t, uint64_t, b >= 64 ? 0 : a << b)
H_BIN(shr_u16, uint16_t, uint32_t, uint16_t, b >= 16 ? 0 : a >> b)
H_BIN(shr_u32, uint32_t, uint32_t, uint32_t, b >= 32 ? 0 : a >> b)
H_BIN(shr_u64, uint64_t, uint32_t, uint64_t, b >= 64 ? 0 : a >> b)
H_BIN(shr_s16, int16_t, uint32_t, uint16_t, a >> (b >= 16 ? 15 : b))
H_BIN(shr_s32, int32_t, uint32_t, uint32_t, a >> (b >= 32 ? 31 : b))
H_BIN(shr_s64, int64_t, uint32_t, uint64_t, a >> (b >= 64 ? 63 : b))
static const Handler shl_h[3] = { h_shl_16, h_shl_32, h_shl_64 };
static const Handler shr_h[2][3] = { { h_shr_u16, h_shr_u32, h_shr_u64 },
                                     { h_shr_s16, h_shr_s32, h_shr_s64 } };

/* shf: shift the 64-bit b:a (shf, exec_int_tmpl.h) */
H_TER(shf_l_clamp, uint32_t, uint32_t, uint32_t, uint32_t, shf(a, b, c, 1, 1))
H_TER(shf_l_wrap, uint32_t, uint32_t, uint32_t, uint32_t, shf(a, b, c, 1, 0))
H_TER(shf_r_clamp, uint32_t, uint32_t, uint32_t, uint32_t, shf(a, b, c, 0, 1))
H_TER(shf_r_wrap, uint32_t, uint32_t, uint32_t, uint32_t, shf(a, b, c, 0, 0))

/* ---------------------------------------------------------------- prmt */

/* generic permute: prmt, exec_int_tmpl.h */
/* The special modes as generic codes, by c & 3 (PTX ISA prmt table, d.b3..d.b0 read
 * right to left as nibbles 0..3). Index: aux8 - 1. */
static const uint16_t prmt_modes[6][4] = {
    { 0x3210, 0x4321, 0x5432, 0x6543 },   /* .f4e  forward 4 extract   */
    { 0x5670, 0x6701, 0x7012, 0x0123 },   /* .b4e  backward 4 extract  */
    { 0x0000, 0x1111, 0x2222, 0x3333 },   /* .rc8  replicate 8         */
    { 0x3210, 0x3211, 0x3222, 0x3333 },   /* .ecl  edge clamp left     */
    { 0x0000, 0x1110, 0x2210, 0x3210 },   /* .ecr  edge clamp right    */
    { 0x1010, 0x3232, 0x1010, 0x3232 },   /* .rc16 replicate 16        */
};
H_TER(prmt, uint32_t, uint32_t, uint32_t, uint32_t, prmt(a, b, c & 0xffff))
H_TER(prmt_mode, uint32_t, uint32_t, uint32_t, uint32_t,
      prmt(a, b, prmt_modes[in->aux8 - 1][c & 3]))

/* ---------------------------------------------------------------- mov */

H_UN(mov_16, uint16_t, uint16_t, a)
H_UN(mov_32, uint32_t, uint32_t, a)
H_UN(mov_64, uint64_t, uint64_t, a)
static const Handler mov_h[3] = { h_mov_16, h_mov_32, h_mov_64 };

/* mov d, {s0, s1, ...}: element i (aux8 bits wide) goes to bits i*aux8 of d. The compiled
 * tier writes the same loop with mov_pack_elem (exec_int_tmpl.h; jit/compile.c's emit_pack). */
static int h_mov_pack(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    unsigned ew = in->aux8, n = in->ns;
    FOR_LANES(mask, l) {
        uint64_t v = 0;
        for (unsigned i = 0; i < n; i++) v |= mov_pack_elem(ROW(w, in->s[i])[l], ew, i);
        d[l] = v;
    }
    return STEP_NEXT;
}
JIT_OP(h_mov_pack, "PACK", "", "", "", "", "uint64_t", "mov_pack_elem")

/* mov {d0, d1, ...}, a: the reverse. */
static int h_mov_unpack(Warp *w, const Inst *in, uint32_t mask)
{
    const uint64_t *A = ROW(w, in->s[0]);
    unsigned ew = in->aux8, n = in->nd;
    FOR_LANES(mask, l) {
        uint64_t v = A[l];
        for (unsigned i = 0; i < n; i++) ROW(w, in->d[i])[l] = mov_unpack_elem(v, ew, i);
    }
    return STEP_NEXT;
}
JIT_OP(h_mov_unpack, "UNPACK", "", "", "", "", "uint64_t", "mov_unpack_elem")

/* ---------------------------------------------------------------- setp / set */

/* Every lane is compared (inactive ones too: reading their rows has no effect), so the
 * loop has no mask test; only the writes in cmp_finish respect mask. */
#define H_CMP(name, T, GET, cond) \
static int h_cmp_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]); \
    uint32_t t = 0; \
    for (int l = 0; l < WARP_SIZE; l++) { \
        T a = GET(A[l]), b = GET(B[l]); \
        t |= (uint32_t)(cond) << l; \
    } \
    return cmp_finish(w, in, mask, t); \
} \
JIT_OP(h_cmp_##name, "CMP", #T, #GET, "", "", "", #cond)
/* Integer comparisons in CMP_EQ..CMP_GE order. */
#define INT_CMPS(sfx, T) \
    H_CMP(sfx##_eq, T, (T), a == b) H_CMP(sfx##_ne, T, (T), a != b) \
    H_CMP(sfx##_lt, T, (T), a < b)  H_CMP(sfx##_le, T, (T), a <= b) \
    H_CMP(sfx##_gt, T, (T), a > b)  H_CMP(sfx##_ge, T, (T), a >= b) \
    static const Handler cmp_##sfx##_h[6] = { h_cmp_##sfx##_eq, h_cmp_##sfx##_ne, \
        h_cmp_##sfx##_lt, h_cmp_##sfx##_le, h_cmp_##sfx##_gt, h_cmp_##sfx##_ge };
INT_CMPS(u16, uint16_t) INT_CMPS(u32, uint32_t) INT_CMPS(u64, uint64_t)
INT_CMPS(s16, int16_t) INT_CMPS(s32, int32_t) INT_CMPS(s64, int64_t)
static const Handler *const int_cmp_h[2][3] = { { cmp_u16_h, cmp_u32_h, cmp_u64_h },
                                                { cmp_s16_h, cmp_s32_h, cmp_s64_h } };

/* Float comparisons in CMP_* order: ordered ones are false on NaN, the U ones true. */
#define FLT_CMPS(sfx, T, GET) \
    H_CMP(sfx##_eq, T, GET, a == b)        H_CMP(sfx##_ne, T, GET, a < b || a > b) \
    H_CMP(sfx##_lt, T, GET, a < b)         H_CMP(sfx##_le, T, GET, a <= b) \
    H_CMP(sfx##_gt, T, GET, a > b)         H_CMP(sfx##_ge, T, GET, a >= b) \
    H_CMP(sfx##_equ, T, GET, !(a < b || a > b)) H_CMP(sfx##_neu, T, GET, a != b) \
    H_CMP(sfx##_ltu, T, GET, !(a >= b))    H_CMP(sfx##_leu, T, GET, !(a > b)) \
    H_CMP(sfx##_gtu, T, GET, !(a <= b))    H_CMP(sfx##_geu, T, GET, !(a < b)) \
    H_CMP(sfx##_num, T, GET, a == a && b == b) H_CMP(sfx##_nan, T, GET, a != a || b != b) \
    static const Handler cmp_##sfx##_h[14] = { h_cmp_##sfx##_eq, h_cmp_##sfx##_ne, \
        h_cmp_##sfx##_lt, h_cmp_##sfx##_le, h_cmp_##sfx##_gt, h_cmp_##sfx##_ge, \
        h_cmp_##sfx##_equ, h_cmp_##sfx##_neu, h_cmp_##sfx##_ltu, h_cmp_##sfx##_leu, \
        h_cmp_##sfx##_gtu, h_cmp_##sfx##_geu, h_cmp_##sfx##_num, h_cmp_##sfx##_nan };
FLT_CMPS(f32, float, f32_of) FLT_CMPS(f32ftz, float, f32_ftz) FLT_CMPS(f64, double, f64_of)

/* The comparison modifier: CMP_* code, and whether it is one of lo/ls/hi/hs (unsigned). */
static const struct { int mod, cmp, uns; } cmp_mods[] = {
    { MOD_EQ, CMP_EQ, 0 }, { MOD_NE, CMP_NE, 0 }, { MOD_LT, CMP_LT, 0 }, { MOD_LE, CMP_LE, 0 },
    { MOD_GT, CMP_GT, 0 }, { MOD_GE, CMP_GE, 0 }, { MOD_LO, CMP_LT, 1 }, { MOD_LS, CMP_LE, 1 },
    { MOD_HI, CMP_GT, 1 }, { MOD_HS, CMP_GE, 1 }, { MOD_EQU, CMP_EQU, 0 },
    { MOD_NEU, CMP_NEU, 0 }, { MOD_LTU, CMP_LTU, 0 }, { MOD_LEU, CMP_LEU, 0 },
    { MOD_GTU, CMP_GTU, 0 }, { MOD_GEU, CMP_GEU, 0 }, { MOD_NUM, CMP_NUM, 0 },
    { MOD_NAN, CMP_NAN, 0 },
};

/* Shared part of bind_setp/bind_set: comparison, boolean combine, operand count, and the
 * handler for source type t. */
static const char *bind_compare(Inst *in, const InstDesc *d, int t)
{
    int found = -1, nb = desc_has(d, MOD_AND) + desc_has(d, MOD_OR) + desc_has(d, MOD_XOR);
    for (size_t i = 0; i < sizeof cmp_mods / sizeof cmp_mods[0]; i++)
        if (desc_has(d, cmp_mods[i].mod)) {
            if (found >= 0) return "more than one comparison operator";
            found = (int)i;
        }
    if (found < 0) return "missing comparison operator";
    if (nb > 1) return "more than one boolean operator";
    in->bop = desc_has(d, MOD_AND) ? BOP_AND : desc_has(d, MOD_OR) ? BOP_OR
            : desc_has(d, MOD_XOR) ? BOP_XOR : BOP_NONE;
    if (d->ns != (nb ? 3 : 2)) return "wrong number of operands";
    int cmp = cmp_mods[found].cmp, uns = cmp_mods[found].uns, ftz = desc_has(d, MOD_FTZ);
    in->cmp = (uint8_t)cmp;
    if (t == TY_F32 || t == TY_F64) {
        if (uns) return "lo/ls/hi/hs compare integers only";
        if (ftz && t == TY_F64) return ".ftz applies to .f32 only";
        in->fn = (t == TY_F64 ? cmp_f64_h : ftz ? cmp_f32ftz_h : cmp_f32_h)[cmp];
        if (ftz) in->flags |= IF_FTZ;
        return NULL;
    }
    int k = wix(t);
    if (!(ty_is_int(t) || ty_is_bits(t)) || k < 0) return "unsupported type for a comparison";
    if (ftz) return ".ftz applies to .f32 only";
    if (cmp > CMP_GE) return "unordered/num/nan comparisons need a float type";
    in->fn = int_cmp_h[ty_is_signed(t) && !uns][k][cmp];
    return NULL;
}

/* An integer setp's comparison (CMP_LT ... CMP_GE, or CMP_EQ/CMP_NE) with its width in
 * *bits and whether it compares signed (*sgn; .lo/.hs of a signed type compare unsigned),
 * or -1 (another type, a float, a boolean combine): for idle.c, by the handler. */
int int_cmp_form(const Inst *in, int *bits, int *sgn)
{
    if (in->op != OP_setp || in->bop != BOP_NONE || in->cmp > CMP_GE) return -1;
    for (int s = 0; s < 2; s++)
        for (int k = 1; k < 3; k++)
            if (in->fn == int_cmp_h[s][k][in->cmp]) { *bits = k == 1 ? 32 : 64; *sgn = s; return in->cmp; }
    return -1;
}

/* The width of a shl of 32 or 64 bits, else 0 (idle.c). */
int shl_bits(const Inst *in)
{
    return in->fn == shl_h[1] ? 32 : in->fn == shl_h[2] ? 64 : 0;
}

static int ty_is_half(int t)
{
    return t == TY_F16 || t == TY_BF16 || t == TY_F16X2 || t == TY_BF16X2;
}

const char *bind_setp(Inst *in, const InstDesc *d)
{
    int t = d->types[0];
    if (ty_is_half(t)) return bind_half_setp(in, d);
    if (d->ntypes != 1) return "setp takes one type";
    if (d->nd != 1 && d->nd != 2) return "wrong number of operands";
    in->aux8 = CMP_TO_PRED;
    return bind_compare(in, d, t);
}

const char *bind_set(Inst *in, const InstDesc *d)
{
    int dt = d->types[0], st = d->types[1];
    if (d->ntypes != 2) return "set needs .dtype.stype";
    if (ty_is_half(st) || ty_is_half(dt)) return bind_half_set(in, d);
    if (dt != TY_U32 && dt != TY_S32 && dt != TY_F32) return "set: destination must be .u32, .s32 or .f32";
    if (d->nd != 1) return "wrong number of operands";
    in->aux8 = CMP_TO_GPR;
    in->imm = dt == TY_F32 ? 0x3f800000 : 0xffffffff;   /* 1.0f or all ones */
    return bind_compare(in, d, st);
}

/* ---------------------------------------------------------------- selp / slct */

#define H_SELP(name, RT) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]); \
    uint32_t c = w->P[in->s[2]] ^ ((in->flags & IF_NEG_C) ? ~0u : 0u); \
    LANES(l, d[l] = (RT)(((c >> l) & 1u) ? A[l] : B[l])); \
    return STEP_NEXT; \
} \
JIT_OP(h_##name, "SELP", "", "", "", "", #RT, "")
H_SELP(selp_16, uint16_t)
H_SELP(selp_32, uint32_t)
H_SELP(selp_64, uint64_t)
static const Handler selp_h[3] = { h_selp_16, h_selp_32, h_selp_64 };

/* slct: d = c >= 0 ? a : b. For f32 c, -0.0 selects a and NaN selects b (IEEE compare);
 * .ftz makes a negative subnormal count as -0.0. */
#define H_SLCT(name, RT, cond) \
    H_TER(name, uint64_t, uint64_t, uint64_t, RT, (cond) ? a : b)
H_SLCT(slct_16_s32, uint16_t, (int32_t)c >= 0)
H_SLCT(slct_32_s32, uint32_t, (int32_t)c >= 0)
H_SLCT(slct_64_s32, uint64_t, (int32_t)c >= 0)
H_SLCT(slct_16_f32, uint16_t, f32_of(c) >= 0.0f)
H_SLCT(slct_32_f32, uint32_t, f32_of(c) >= 0.0f)
H_SLCT(slct_64_f32, uint64_t, f32_of(c) >= 0.0f)
H_SLCT(slct_16_f32ftz, uint16_t, f32_ftz(c) >= 0.0f)
H_SLCT(slct_32_f32ftz, uint32_t, f32_ftz(c) >= 0.0f)
H_SLCT(slct_64_f32ftz, uint64_t, f32_ftz(c) >= 0.0f)
static const Handler slct_h[3][3] = {
    { h_slct_16_s32, h_slct_32_s32, h_slct_64_s32 },
    { h_slct_16_f32, h_slct_32_f32, h_slct_64_f32 },
    { h_slct_16_f32ftz, h_slct_32_f32ftz, h_slct_64_f32ftz } };

/* ---------------------------------------------------------------- binders */

/* A 16/32/64-bit non-predicate type (any of b/u/s/f), as a table index; -1 otherwise. */
static int data_ix(int t)
{
    return t == TY_PRED || t == TY_B128 ? -1 : wix(t);
}

/* and/or/xor: predicates, or bits of 16/32/64. */
static const char *bind_logic2(Inst *in, const InstDesc *d, const Handler tab[3], Handler pred)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = data_ix(t);
    if (e) return e;
    if (t == TY_PRED) {
        /* IF_NEG_C cannot say which of the two sources was negated. */
        if (in->flags & IF_NEG_C) return "negated predicate operand not supported here";
        in->fn = pred;
        return NULL;
    }
    if (k < 0 || ty_is_float(t)) return "unsupported type for a logic operation";
    in->fn = tab[k];
    return NULL;
}

const char *bind_and(Inst *in, const InstDesc *d) { return bind_logic2(in, d, and_h, h_and_pred); }
const char *bind_or(Inst *in, const InstDesc *d) { return bind_logic2(in, d, or_h, h_or_pred); }
const char *bind_xor(Inst *in, const InstDesc *d) { return bind_logic2(in, d, xor_h, h_xor_pred); }

const char *bind_not(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 1);
    int t = d->types[0], k = data_ix(t);
    if (e) return e;
    if (t == TY_PRED) { in->fn = h_not_pred; return NULL; }
    if (k < 0 || ty_is_float(t)) return "unsupported type for not";
    in->fn = not_h[k];
    return NULL;
}

const char *bind_cnot(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 1);
    int t = d->types[0], k = data_ix(t);
    if (e) return e;
    if (k < 0 || ty_is_float(t)) return "cnot needs .b16, .b32 or .b64";
    in->fn = cnot_h[k];
    return NULL;
}

const char *bind_lop3(Inst *in, const InstDesc *d)
{
    if (d->nd != 1) return "lop3 with a predicate result (.and/.or) is not supported";
    const char *e = need_ops(d, 1, 4);
    if (e) return e;
    if (d->types[0] != TY_B32) return "lop3 needs .b32";
    if (!(d->src_imm_mask & 8)) return "lop3: the LUT must be an immediate";
    in->fn = h_lop3;
    return NULL;
}

const char *bind_shl(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = data_ix(t);
    if (e) return e;
    if (k < 0 || ty_is_float(t)) return "shl needs .b16, .b32 or .b64";
    in->fn = shl_h[k];
    return NULL;
}

const char *bind_shr(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 2);
    int t = d->types[0], k = data_ix(t);
    if (e) return e;
    if (k < 0 || ty_is_float(t)) return "shr needs a 16-, 32- or 64-bit integer type";
    in->fn = shr_h[ty_is_signed(t)][k];
    return NULL;
}

const char *bind_shf(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    int l = desc_has(d, MOD_L), c = desc_has(d, MOD_CLAMP);
    if (e) return e;
    if (d->types[0] != TY_B32) return "shf needs .b32";
    if (l == desc_has(d, MOD_R)) return "shf needs exactly one of .l, .r";
    if (c == desc_has(d, MOD_WRAP)) return "shf needs exactly one of .clamp, .wrap";
    in->fn = l ? (c ? h_shf_l_clamp : h_shf_l_wrap) : (c ? h_shf_r_clamp : h_shf_r_wrap);
    return NULL;
}

const char *bind_prmt(Inst *in, const InstDesc *d)
{
    static const int modes[6] = { MOD_F4E, MOD_B4E, MOD_RC8, MOD_ECL, MOD_ECR, MOD_RC16 };
    const char *e = need_ops(d, 1, 3);
    int mode = 0;
    if (e) return e;
    if (d->types[0] != TY_B32) return "prmt needs .b32";
    for (int i = 0; i < 6; i++)
        if (desc_has(d, modes[i])) {
            if (mode) return "prmt: more than one mode";
            mode = i + 1;
        }
    in->aux8 = (uint8_t)mode;
    in->fn = mode ? h_prmt_mode : h_prmt;
    return NULL;
}

/* mov: scalar copy; {a, b[, c, d]} source packs, {a, b[, c, d]} destination unpacks. */
const char *bind_mov(Inst *in, const InstDesc *d)
{
    int t = d->types[0], k = data_ix(t), bits = ty_bits(t);
    if (t == TY_PRED) {
        const char *e = need_ops(d, 1, 1);
        if (e) return e;
        in->fn = h_mov_pred;
        return NULL;
    }
    if (k < 0) return "mov: unsupported type (.b128 is not supported)";
    if (d->nd == 1 && d->ns == 1) { in->fn = mov_h[k]; return NULL; }
    if (d->nd == 1 && (d->ns == 2 || d->ns == 4) && bits / d->ns >= 8) {
        in->aux8 = (uint8_t)(bits / d->ns);
        in->fn = h_mov_pack;
        return NULL;
    }
    if (d->ns == 1 && (d->nd == 2 || d->nd == 4) && bits / d->nd >= 8) {
        in->aux8 = (uint8_t)(bits / d->nd);
        in->fn = h_mov_unpack;
        return NULL;
    }
    return "mov: unsupported operand shape";
}

const char *bind_selp(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    int k = data_ix(d->types[0]);
    if (e) return e;
    if (k < 0) return "selp: unsupported type";
    in->fn = selp_h[k];
    return NULL;
}

const char *bind_slct(Inst *in, const InstDesc *d)
{
    const char *e = need_ops(d, 1, 3);
    int k = data_ix(d->types[0]), ct = d->types[1], ftz = desc_has(d, MOD_FTZ);
    if (e) return e;
    if (d->ntypes != 2 || k < 0) return "slct needs .dtype.ctype";
    if (ct == TY_S32 && !ftz) in->fn = slct_h[0][k];
    else if (ct == TY_F32) in->fn = slct_h[ftz ? 2 : 1][k];
    else return "slct: c must be .s32 or .f32 (.ftz only with .f32)";
    return NULL;
}
