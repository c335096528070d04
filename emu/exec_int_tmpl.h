/* exec_int_tmpl.h - handler templates and type helpers shared by exec_int.c and exec_cmp.c.
 *
 * Private to those two files. A template instance is one specialised handler: the operand
 * C types and the lane expression are fixed at compile time, so a handler body is a single
 * loop the compiler can vectorize when the whole warp runs (mask == FULL_MASK).
 */
#ifndef PTXEMU_EXEC_INT_TMPL_H
#define PTXEMU_EXEC_INT_TMPL_H

#include <stdint.h>
#include <string.h>
#include "exec.h"
#include "jitop.h"

typedef unsigned __int128 u128;
typedef __int128 s128;


/* The high halves of products, and division as the H100 does it, here so that the compiled
 * tier's code (which includes this header, jit/compile.c) can write div, rem and mul.hi
 * inline. */
static inline uint16_t hi_u16(uint16_t a, uint16_t b) { return (uint16_t)(((uint32_t)a * b) >> 16); }
static inline uint16_t hi_s16(int16_t a, int16_t b) { return (uint16_t)(((int32_t)a * b) >> 16); }
static inline uint32_t hi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline uint32_t hi_s32(int32_t a, int32_t b) { return (uint32_t)(((int64_t)a * b) >> 32); }
static inline uint64_t hi_u64(uint64_t a, uint64_t b) { return (uint64_t)(((u128)a * b) >> 64); }
static inline uint64_t hi_s64(int64_t a, int64_t b) { return (uint64_t)(((s128)a * b) >> 64); }

/* Division by zero is unspecified in PTX; on an H100 the quotient and the remainder are
 * all ones for every width and signedness (read for u16/s16/u32/s32/u64/s64, positive and
 * negative dividends). MIN / -1 wraps to MIN with remainder 0, as on the H100. */
#define DEF_DIV(sfx, ST, UT) \
static inline UT udiv_##sfx(UT a, UT b) { return b ? (UT)(a / b) : (UT)~(UT)0; } \
static inline UT urem_##sfx(UT a, UT b) { return b ? (UT)(a % b) : (UT)~(UT)0; } \
static inline UT sdiv_##sfx(ST a, ST b) \
{ return b == 0 ? (UT)~(UT)0 : b == -1 ? (UT)((UT)0 - (UT)a) : (UT)(a / b); } \
static inline UT srem_##sfx(ST a, ST b) \
{ return b == 0 ? (UT)~(UT)0 : b == -1 ? (UT)0 : (UT)(a % b); }
DEF_DIV(16, int16_t, uint16_t)
DEF_DIV(32, int32_t, uint32_t)
DEF_DIV(64, int64_t, uint64_t)

/* One source: a (type TA) -> result stored as RT (unsigned, zero-extended into the row). */
#define H_UN(name, TA, RT, expr) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]); \
    LANES(l, TA a = (TA)A[l]; d[l] = (RT)(expr)); \
    return STEP_NEXT; \
} \
JIT_OP(h_##name, "UN", #TA, "", "", "", #RT, #expr)

/* Two sources a (TA), b (TB). */
#define H_BIN(name, TA, TB, RT, expr) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]); \
    LANES(l, TA a = (TA)A[l]; TB b = (TB)B[l]; d[l] = (RT)(expr)); \
    return STEP_NEXT; \
} \
JIT_OP(h_##name, "BIN", #TA, #TB, "", "", #RT, #expr)

/* Three sources a (TA), b (TB), c (TC). */
#define H_TER(name, TA, TB, TC, RT, expr) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]), *C = ROW(w, in->s[2]); \
    LANES(l, TA a = (TA)A[l]; TB b = (TB)B[l]; TC c = (TC)C[l]; d[l] = (RT)(expr)); \
    return STEP_NEXT; \
} \
JIT_OP(h_##name, "TER", #TA, #TB, #TC, "", #RT, #expr)

/* Four sources (bfi, lop3). */
#define H_QUAD(name, TA, TB, TC, TE, RT, expr) \
static int h_##name(Warp *w, const Inst *in, uint32_t mask) \
{ \
    uint64_t *d = ROW(w, in->d[0]); \
    const uint64_t *A = ROW(w, in->s[0]), *B = ROW(w, in->s[1]), *C = ROW(w, in->s[2]), \
                   *E = ROW(w, in->s[3]); \
    LANES(l, TA a = (TA)A[l]; TB b = (TB)B[l]; TC c = (TC)C[l]; TE e = (TE)E[l]; \
                d[l] = (RT)(expr)); \
    return STEP_NEXT; \
} \
JIT_OP(h_##name, "QUAD", #TA, #TB, #TC, #TE, #RT, #expr)

#define MINV(a, b) ((a) < (b) ? (a) : (b))
#define MAXV(a, b) ((a) > (b) ? (a) : (b))

/* Lane functions of handlers whose expressions the compiled tier inlines (jit/compile.c's
 * callable list): defined here, where the compiled code sees them too. */

/* shf: shift the 64-bit b:a; .l keeps the high word, .r the low word. */
static inline uint32_t shf(uint32_t a, uint32_t b, uint32_t c, int left, int clamp)
{
    uint32_t n = clamp ? (c < 32 ? c : 32) : c & 31;
    uint64_t v = (uint64_t)b << 32 | a;
    return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}

/* Generic permute: nibble i of code picks the source byte (bits 0-2) of result byte i
 * from b:a, bit 3 replicates that byte's sign bit. */
static inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t code)
{
    uint64_t v = (uint64_t)b << 32 | a;
    uint32_t d = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t sel = (code >> (4 * i)) & 0xf, x = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) x = (x & 0x80) ? 0xff : 0;
        d |= x << (8 * i);
    }
    return d;
}

/* mov's pack and unpack (exec_cmp.c): element i, ew bits wide (8 to 32), of a packed value. */
static inline uint64_t mov_elem_mask(unsigned ew) { return ew >= 64 ? ~0ull : (1ull << ew) - 1; }
static inline uint64_t mov_pack_elem(uint64_t x, unsigned ew, unsigned i)
{
    return (x & mov_elem_mask(ew)) << (i * ew);
}
static inline uint64_t mov_unpack_elem(uint64_t v, unsigned ew, unsigned i)
{
    return (v >> (i * ew)) & mov_elem_mask(ew);
}

/* Write the lanes of mask of predicate p from the bit mask v. */
static inline void pred_put(Warp *w, uint32_t p, uint32_t mask, uint32_t v)
{
    w->P[p] = (w->P[p] & ~mask) | (v & mask);
}

/* setp's boolean combine (Inst.bop) and whether set writes a register (Inst.aux8). */
enum { BOP_NONE = 0, BOP_AND, BOP_OR, BOP_XOR };
enum { CMP_TO_PRED = 0, CMP_TO_GPR = 1 };

/* Combine the per-lane compare results t with the optional predicate c and write p (and q,
 * the result for the complement of t) or, for set, the register value in->imm / 0. */
static inline int cmp_finish(Warp *w, const Inst *in, uint32_t mask, uint32_t t)
{
    uint32_t p = t, q = ~t;
    if (in->bop) {
        uint32_t c = w->P[in->s[2]] ^ ((in->flags & IF_NEG_C) ? ~0u : 0u);
        switch (in->bop) {
        case BOP_AND: p &= c; q &= c; break;
        case BOP_OR: p |= c; q |= c; break;
        default: p ^= c; q ^= c; break;
        }
    }
    if (in->aux8 == CMP_TO_GPR) {
        uint64_t *d = ROW(w, in->d[0]), one = (uint64_t)in->imm;
        LANES(l, d[l] = ((p >> l) & 1u) ? one : 0);
        return STEP_NEXT;
    }
    pred_put(w, in->d[0], mask, p);
    if (in->nd > 1) pred_put(w, in->d[1], mask, q);
    return STEP_NEXT;
}

/* Type helpers. */
static inline int ty_bits(int t)
{
    switch (t) {
    case TY_B8: case TY_U8: case TY_S8: return 8;
    case TY_B16: case TY_U16: case TY_S16: case TY_F16: case TY_BF16: return 16;
    case TY_B32: case TY_U32: case TY_S32: case TY_F32: case TY_F16X2: case TY_BF16X2:
        return 32;
    case TY_B64: case TY_U64: case TY_S64: case TY_F64: return 64;
    default: return 0;
    }
}
static inline int ty_is_signed(int t) { return t == TY_S8 || t == TY_S16 || t == TY_S32 || t == TY_S64; }
static inline int ty_is_unsigned(int t) { return t == TY_U8 || t == TY_U16 || t == TY_U32 || t == TY_U64; }
static inline int ty_is_bits(int t) { return t == TY_B8 || t == TY_B16 || t == TY_B32 || t == TY_B64; }
/* An integer type of 16, 32 or 64 bits, signed or unsigned (not .bN). */
static inline int ty_is_int(int t) { return ty_is_signed(t) || ty_is_unsigned(t); }

/* .u16x2/.s16x2: two 16-bit integers in a 32-bit word. ty_bits() leaves them out (0) so
 * that only the binders which know the packed forms (add, min, max) accept them. */
static inline int ty_is_int16x2(int t) { return t == TY_U16X2 || t == TY_S16X2; }

/* Index 0..2 of the width 16/32/64 for handler tables, -1 otherwise. */
static inline int wix(int t)
{
    switch (ty_bits(t)) { case 16: return 0; case 32: return 1; case 64: return 2; default: return -1; }
}

/* Common binder checks. */
static inline const char *need_ops(const InstDesc *d, int nd, int ns)
{
    if (d->nd != nd || d->ns != ns) return "wrong number of operands";
    return NULL;
}

/* Install a handler, or report the combination as unsupported. */
static inline const char *set_fn(Inst *in, Handler h, const char *msg)
{
    if (!h) return msg;
    in->fn = h;
    return NULL;
}

/* Float views of row bits. */
static inline float f32_of(uint64_t v)
{
    uint32_t u = (uint32_t)v; float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline double f64_of(uint64_t v)
{
    double f;
    memcpy(&f, &v, sizeof f);
    return f;
}
/* .ftz: a subnormal f32 input counts as a zero of the same sign. */
static inline float f32_ftz(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    if (!(u & 0x7f800000u)) u &= 0x80000000u;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#endif
