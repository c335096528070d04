/* exec_atom.c - atom and red: atomic read-modify-write on global and shared memory.
 *
 * Each lane's operation is one host atomic on the lane's host address, lanes in lane order
 * (so lanes hitting one address see each other's results in that order). Operations the
 * host has no instruction for (min/max, inc/dec, float adds) are compare-and-swap loops over
 * a pure combine function. Every atomic is __ATOMIC_SEQ_CST, which gives each .sem and
 * .scope what it asks for; a vector or packed atom is atomic per element, as PTX requires.
 */
#include "exec.h"
#include "fp.h"
#include "memory.h"
#include "observe.h"

enum { A_ADD, A_MIN, A_MAX, A_INC, A_DEC, A_AND, A_OR, A_XOR, A_EXCH, A_CAS, A_COUNT };
_Static_assert(A_CAS == ATOM_BOP_CAS, "inst.h names atom.cas by its operation number");

/* ---- combine functions: the value stored, from the old value r and the operand s ---- */

static inline uint32_t inc_u32(uint32_t r, uint32_t s) { return r >= s ? 0 : r + 1; }
static inline uint32_t dec_u32(uint32_t r, uint32_t s) { return (r == 0 || r > s) ? s : r - 1; }
#define MIN_(r, s) ((s) < (r) ? (s) : (r))
#define MAX_(r, s) ((s) > (r) ? (s) : (r))

/* atom.add.f32 flushes subnormal inputs and results to zero on global memory and keeps
 * them on shared memory (PTX ISA, atom). Arena addresses and registered host memory are
 * global memory. */
static inline uint32_t fadd32(uint32_t r, uint32_t s, int ftz)
{
    if (ftz) { r = fp_ftz32(r); s = fp_ftz32(s); }
    uint32_t v = fp_canon32(fp_f32_bits(fp_bits_f32(r) + fp_bits_f32(s)));
    return ftz ? fp_ftz32(v) : v;
}

/* f64 NaNs propagate quieted with payload and sign, and an invalid operation gives
 * 0xfff8000000000000 (H100, tests/ptx/atom_own64): exactly what the host's SSE2 add does. */
static inline uint64_t fadd64(uint64_t r, uint64_t s)
{
    return fp_f64_bits(fp_bits_f64(r) + fp_bits_f64(s));
}

/* min/max of f16 or bf16 encodings (.noftz): a NaN operand yields the other one, two NaNs
 * the canonical NaN, and -0 orders below +0. */
static inline uint32_t hminmax(uint32_t a, uint32_t b, FpFmt f, int is_max)
{
    a &= 0xffff; b &= 0xffff;
    int na = (a & 0x7fff) > f.maxfin + 1, nb = (b & 0x7fff) > f.maxfin + 1;
    if (na || nb) return na && nb ? (uint32_t)f.nan : na ? b : a;
    double x = fp_to_f64(a, f), y = fp_to_f64(b, f);
    int a_lt_b = x < y || (x == y && (a & 0x8000) && !(b & 0x8000));
    return (a_lt_b != is_max) ? a : b;
}

/* Packed pairs: the combine applied to each 16-bit half. */
#define PAIR(fn, r, s) ((fn((r) & 0xffff, (s) & 0xffff)) | (fn((r) >> 16, (s) >> 16) << 16))
#define F16MIN(a, b) hminmax(a, b, FP_F16, 0)
#define F16MAX(a, b) hminmax(a, b, FP_F16, 1)
#define BF16MIN(a, b) hminmax(a, b, FP_BF16, 0)
#define BF16MAX(a, b) hminmax(a, b, FP_BF16, 1)

/* ---- per-element atomic operations: op(host pointer, b, c) -> old value ---- */

#define FETCH_OP(NAME, T, BUILTIN)                                                   \
    static inline uint64_t op_##NAME(uint8_t *p, uint64_t b, uint64_t c)             \
    {                                                                                \
        (void)c;                                                                     \
        return (uint64_t)BUILTIN((T *)p, (T)b, __ATOMIC_SEQ_CST);                    \
    }

/* EXPR computes the new value from `old` and `s` (and may look at `glob`). */
#define CAS_OP(NAME, T, EXPR)                                                        \
    static inline uint64_t op_##NAME(uint8_t *p, uint64_t b, uint64_t c)             \
    {                                                                                \
        T *q = (T *)p, s = (T)b, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;     \
        int glob = mem_is_global((uint64_t)(uintptr_t)p);                            \
        (void)c; (void)glob;                                                         \
        do nv = (T)(EXPR);                                                           \
        while (!__atomic_compare_exchange_n(q, &old, nv, 1, __ATOMIC_SEQ_CST,        \
                                            __ATOMIC_RELAXED));                      \
        return (uint64_t)old;                                                        \
    }

#define CAS_SWAP(NAME, T)                                                            \
    static inline uint64_t op_##NAME(uint8_t *p, uint64_t b, uint64_t c)             \
    {                                                                                \
        T old = (T)b;                                                                \
        __atomic_compare_exchange_n((T *)p, &old, (T)c, 0, __ATOMIC_SEQ_CST,         \
                                    __ATOMIC_SEQ_CST);                               \
        return (uint64_t)old;           /* the value found, on success or failure */ \
    }

FETCH_OP(add_u32, uint32_t, __atomic_fetch_add)
FETCH_OP(add_u64, uint64_t, __atomic_fetch_add)
FETCH_OP(and_b32, uint32_t, __atomic_fetch_and)
FETCH_OP(and_b64, uint64_t, __atomic_fetch_and)
FETCH_OP(or_b32, uint32_t, __atomic_fetch_or)
FETCH_OP(or_b64, uint64_t, __atomic_fetch_or)
FETCH_OP(xor_b32, uint32_t, __atomic_fetch_xor)
FETCH_OP(xor_b64, uint64_t, __atomic_fetch_xor)
FETCH_OP(exch_b32, uint32_t, __atomic_exchange_n)
FETCH_OP(exch_b64, uint64_t, __atomic_exchange_n)
CAS_SWAP(cas_b16, uint16_t)
CAS_SWAP(cas_b32, uint32_t)
CAS_SWAP(cas_b64, uint64_t)
CAS_OP(inc_u32, uint32_t, inc_u32(old, s))
CAS_OP(dec_u32, uint32_t, dec_u32(old, s))
CAS_OP(min_u32, uint32_t, MIN_(old, s))
CAS_OP(min_s32, int32_t, MIN_(old, s))
CAS_OP(min_u64, uint64_t, MIN_(old, s))
CAS_OP(min_s64, int64_t, MIN_(old, s))
CAS_OP(max_u32, uint32_t, MAX_(old, s))
CAS_OP(max_s32, int32_t, MAX_(old, s))
CAS_OP(max_u64, uint64_t, MAX_(old, s))
CAS_OP(max_s64, int64_t, MAX_(old, s))
CAS_OP(add_f32, uint32_t, fadd32(old, s, glob))
CAS_OP(add_f64, uint64_t, fadd64(old, s))
CAS_OP(add_f16, uint16_t, fp_f16_add_rn(old, s))
CAS_OP(add_bf16, uint16_t, fp_bf16_add_rn(old, s))
CAS_OP(add_f16x2, uint32_t, PAIR(fp_f16_add_rn, old, s))
CAS_OP(add_bf16x2, uint32_t, PAIR(fp_bf16_add_rn, old, s))
CAS_OP(min_f16, uint16_t, F16MIN(old, s))
CAS_OP(max_f16, uint16_t, F16MAX(old, s))
CAS_OP(min_bf16, uint16_t, BF16MIN(old, s))
CAS_OP(max_bf16, uint16_t, BF16MAX(old, s))
CAS_OP(min_f16x2, uint32_t, PAIR(F16MIN, old, s))
CAS_OP(max_f16x2, uint32_t, PAIR(F16MAX, old, s))
CAS_OP(min_bf16x2, uint32_t, PAIR(BF16MIN, old, s))
CAS_OP(max_bf16x2, uint32_t, PAIR(BF16MAX, old, s))

/* ---- handlers: scalar atom (d = old), scalar red, and vector forms (elements in order) ---- */

/* ---- every lane at one address (a block's counter: `atomicAdd(&hit, 1)` by all threads) ----
 * When the mask's lanes hold one address (the same 64-bit value, plus the same imm), only the
 * lowest lane's pointer is resolved: the others would pass or fail the same checks, and the
 * fault lanes_slow reports is the lowest bad lane's, this one. Resolving 32 lanes took ~110
 * instructions of a 32-lane atom.shared.add's ~180 (callgrind, simpleAttributes' loop). The
 * plain handlers only: the observed ones report every lane's pointer to their tools. */
static inline __attribute__((always_inline)) int one_addr(Warp *w, const Inst *in, uint32_t mask,
                                                           unsigned size, uint8_t **one, int *same_b)
{
    const uint64_t *a = ROW(w, in->base), *b = ROW(w, in->s[0]);
    int lo = __builtin_ctz(mask);
    uint64_t a0 = a[lo], b0 = b[lo], da = 0, db = 0;
    if (mask == FULL_MASK)   /* a loop gcc -O2 vectorizes: 32 lanes in ~40 instructions */
        for (int l = 0; l < WARP_SIZE; l++) {
            da |= a[l] ^ a0;
            db |= b[l] ^ b0;
        }
    else
        for (int l = 0; l < WARP_SIZE; l++) {
            uint64_t on = 0ull - ((mask >> l) & 1u);
            da |= (a[l] ^ a0) & on;
            db |= (b[l] ^ b0) & on;
        }
    if (da) return 0;
    /* .shared and .global: the lane's pointer as lanes_slow finds it (mem_lane_ptr, the
     * same checks and faults); other spaces through the warp's path for the one lane */
    int sp = (in->flags & IF_FRAME) ? SP_LOCAL : in->space;
    if (sp == SP_SHARED || sp == SP_GLOBAL) {
        uint64_t x = a0 + (uint64_t)in->imm;
        *one = mem_lane_ptr(w, sp, sp == SP_SHARED ? (uint32_t)x : x, size, size, lo, ACC_ATOMIC);
        if (!*one) return -1;
    } else {
        uint8_t *p[WARP_SIZE];
        if (mem_warp_ptrs(w, in, 1u << lo, size, ACC_ATOMIC, p)) return -1;
        *one = p[lo];
    }
    *same_b = !db;
    return 1;
}

/* The integer adds at one address: one host atomic of the lanes' sum, each lane's old value
 * the first one plus the lanes' operands before it (all read before d is written: d may
 * be b's row). The same memory and results as the lanes one by one in lane order: integer
 * addition wraps and is associative, and nothing can come between the lanes' adds that the
 * per-lane loop would not also allow (another worker's atomic may fall between two lanes'
 * there, or before them all here, which is an order the per-lane loop may produce too;
 * .shared memory is only this worker's). The common operand, the same in every lane (an
 * immediate: `atomicAdd(&hit, 1)`), needs no prefix sums. */
#define ADD_ONE(T)                                                                   \
    if (same_b) {                                                                    \
        T b0 = (T)b[__builtin_ctz(mask)];                                            \
        T old = __atomic_fetch_add((T *)one, (T)((T)popcount32(mask) * b0), __ATOMIC_SEQ_CST); \
        if (!d) return;                                                              \
        if (mask == FULL_MASK)                                                       \
            for (int l = 0; l < WARP_SIZE; l++) d[l] = (T)(old + (T)l * b0);         \
        else                                                                         \
            for (uint32_t m = mask; m; m &= m - 1) { d[__builtin_ctz(m)] = old; old = (T)(old + b0); } \
    } else {                                                                         \
        T pre[WARP_SIZE], run = 0;                                                   \
        for (int l = 0; l < WARP_SIZE; l++) {                                        \
            T x = (T)b[l] & ((T)0 - (T)((mask >> l) & 1u));                          \
            pre[l] = run;                                                            \
            run = (T)(run + x);                                                      \
        }                                                                            \
        T old = __atomic_fetch_add((T *)one, run, __ATOMIC_SEQ_CST);                 \
        if (d)                                                                       \
            for (int l = 0; l < WARP_SIZE; l++)                                      \
                d[l] = ((mask >> l) & 1u) ? (uint64_t)(T)(old + pre[l]) : d[l];      \
    }
static inline __attribute__((always_inline)) void add_one(uint8_t *one, unsigned size, uint32_t mask,
                                                           uint64_t *d, const uint64_t *b, int same_b)
{
    if (size == 4) { ADD_ONE(uint32_t) }
    else { ADD_ONE(uint64_t) }
}
/* op_NAME is an integer add: add_u32, add_u64 */
#define IS_INT_ADD(NAME) (op_##NAME == op_add_u32 || op_##NAME == op_add_u64)

/* Each handler in a plain variant and an observed one (X_o: the accesses are an event). */
#define DEF_SCALAR_GEN(SFX, PTRS, NAME, SIZE, ONE)                                   \
    static int atom##SFX##_##NAME(Warp *w, const Inst *in, uint32_t mask)            \
    {                                                                                \
        uint8_t *p[WARP_SIZE], *one = NULL;                                          \
        uint64_t *d = ROW(w, in->d[0]);                                              \
        const uint64_t *b = ROW(w, in->s[0]), *c = ROW(w, in->s[1]);                 \
        int sb = 0, u = ONE && popcount32(mask) > 1 ? one_addr(w, in, mask, SIZE, &one, &sb) : 0; \
        if (u < 0) return STEP_FAULT;                                                \
        if (u && IS_INT_ADD(NAME)) { add_one(one, SIZE, mask, d, b, sb); return STEP_NEXT; } \
        if (u) { FOR_LANES(mask, l) d[l] = op_##NAME(one, b[l], c[l]); return STEP_NEXT; } \
        if (PTRS(w, in, mask, SIZE, ACC_ATOMIC, p)) return STEP_FAULT;               \
        FOR_LANES(mask, l) d[l] = op_##NAME(p[l], b[l], c[l]);                       \
        return STEP_NEXT;                                                            \
    }                                                                                \
    static int red##SFX##_##NAME(Warp *w, const Inst *in, uint32_t mask)             \
    {                                                                                \
        uint8_t *p[WARP_SIZE], *one = NULL;                                          \
        const uint64_t *b = ROW(w, in->s[0]);                                        \
        int sb = 0, u = ONE && popcount32(mask) > 1 ? one_addr(w, in, mask, SIZE, &one, &sb) : 0; \
        if (u < 0) return STEP_FAULT;                                                \
        if (u && IS_INT_ADD(NAME)) { add_one(one, SIZE, mask, NULL, b, sb); return STEP_NEXT; } \
        if (u) { FOR_LANES(mask, l) op_##NAME(one, b[l], 0); return STEP_NEXT; }     \
        if (PTRS(w, in, mask, SIZE, ACC_ATOMIC, p)) return STEP_FAULT;               \
        FOR_LANES(mask, l) op_##NAME(p[l], b[l], 0);                                 \
        return STEP_NEXT;                                                            \
    }
#define DEF_SCALAR(NAME, SIZE) \
    DEF_SCALAR_GEN(, mem_warp_ptrs, NAME, SIZE, 1) DEF_SCALAR_GEN(_o, mem_warp_ptrs_observed, NAME, SIZE, 0)

/* Vector forms read every source of a lane before writing any destination, so a
 * destination that is also a source ({%f0..} , [a], {%f0..}) keeps working. */
#define DEF_VECTOR(NAME, SIZE)                                                       \
    static inline __attribute__((always_inline)) int vec_##NAME(Warp *w, const Inst *in, \
                                                   uint32_t mask, int has_d, const int V) \
    {                                                                                \
        uint8_t *p[WARP_SIZE];                                                       \
        int n = in->vec;                                                             \
        if ((V ? mem_warp_ptrs_observed : mem_warp_ptrs)(w, in, mask, SIZE * (unsigned)n, \
                                                        ACC_ATOMIC, p))              \
            return STEP_FAULT;                                                       \
        FOR_LANES(mask, l) {                                                         \
            uint64_t b[INST_MAXS], r[INST_MAXS];                                     \
            for (int e = 0; e < n; e++) b[e] = ROW(w, in->s[e])[l];                  \
            for (int e = 0; e < n; e++) r[e] = op_##NAME(p[l] + e * SIZE, b[e], 0);  \
            if (has_d)                                                               \
                for (int e = 0; e < n; e++) ROW(w, in->d[e])[l] = r[e];              \
        }                                                                            \
        return STEP_NEXT;                                                            \
    }                                                                                \
    static int atomv_##NAME(Warp *w, const Inst *in, uint32_t mask)                  \
    {                                                                                \
        return vec_##NAME(w, in, mask, 1, 0);                                        \
    }                                                                                \
    static int redv_##NAME(Warp *w, const Inst *in, uint32_t mask)                   \
    {                                                                                \
        return vec_##NAME(w, in, mask, 0, 0);                                        \
    }                                                                                \
    static int atomv_o_##NAME(Warp *w, const Inst *in, uint32_t mask)                \
    {                                                                                \
        return vec_##NAME(w, in, mask, 1, 1);                                        \
    }                                                                                \
    static int redv_o_##NAME(Warp *w, const Inst *in, uint32_t mask)                 \
    {                                                                                \
        return vec_##NAME(w, in, mask, 0, 1);                                        \
    }

DEF_SCALAR(add_u32, 4) DEF_SCALAR(add_u64, 8)
DEF_SCALAR(and_b32, 4) DEF_SCALAR(and_b64, 8)
DEF_SCALAR(or_b32, 4) DEF_SCALAR(or_b64, 8)
DEF_SCALAR(xor_b32, 4) DEF_SCALAR(xor_b64, 8)
DEF_SCALAR(exch_b32, 4) DEF_SCALAR(exch_b64, 8)
DEF_SCALAR(cas_b16, 2) DEF_SCALAR(cas_b32, 4) DEF_SCALAR(cas_b64, 8)
DEF_SCALAR(inc_u32, 4) DEF_SCALAR(dec_u32, 4)
DEF_SCALAR(min_u32, 4) DEF_SCALAR(min_s32, 4) DEF_SCALAR(min_u64, 8) DEF_SCALAR(min_s64, 8)
DEF_SCALAR(max_u32, 4) DEF_SCALAR(max_s32, 4) DEF_SCALAR(max_u64, 8) DEF_SCALAR(max_s64, 8)
DEF_SCALAR(add_f32, 4) DEF_SCALAR(add_f64, 8)
DEF_SCALAR(add_f16, 2) DEF_SCALAR(add_bf16, 2) DEF_SCALAR(add_f16x2, 4)
DEF_SCALAR(add_bf16x2, 4)
DEF_SCALAR(min_f16, 2) DEF_SCALAR(max_f16, 2) DEF_SCALAR(min_bf16, 2) DEF_SCALAR(max_bf16, 2)
DEF_SCALAR(min_f16x2, 4) DEF_SCALAR(max_f16x2, 4)
DEF_SCALAR(min_bf16x2, 4) DEF_SCALAR(max_bf16x2, 4)

DEF_VECTOR(add_f32, 4)
DEF_VECTOR(add_f16, 2) DEF_VECTOR(add_bf16, 2) DEF_VECTOR(add_f16x2, 4)
DEF_VECTOR(add_bf16x2, 4)
DEF_VECTOR(min_f16, 2) DEF_VECTOR(max_f16, 2) DEF_VECTOR(min_bf16, 2) DEF_VECTOR(max_bf16, 2)
DEF_VECTOR(min_f16x2, 4) DEF_VECTOR(max_f16x2, 4)
DEF_VECTOR(min_bf16x2, 4) DEF_VECTOR(max_bf16x2, 4)

/* ---- binders ---- */

/* handlers [0] plain, [1] observed */
typedef struct AtomEntry { uint8_t op, ty; Handler atom[2], red[2], atomv[2], redv[2]; } AtomEntry;

#define S(OP, TY, NAME) { OP, TY, { atom_##NAME, atom_o_##NAME }, { red_##NAME, red_o_##NAME }, \
                          { NULL, NULL }, { NULL, NULL } }
#define V(OP, TY, NAME) { OP, TY, { atom_##NAME, atom_o_##NAME }, { red_##NAME, red_o_##NAME }, \
                          { atomv_##NAME, atomv_o_##NAME }, { redv_##NAME, redv_o_##NAME } }
/* Types are normalised first (see norm_type): bit operations by size as .bN, adds of signed
 * integers as unsigned (same bits). */
static const AtomEntry atom_table[] = {
    S(A_ADD, TY_U32, add_u32), S(A_ADD, TY_U64, add_u64),
    V(A_ADD, TY_F32, add_f32), S(A_ADD, TY_F64, add_f64),
    V(A_ADD, TY_F16, add_f16), V(A_ADD, TY_BF16, add_bf16),
    V(A_ADD, TY_F16X2, add_f16x2), V(A_ADD, TY_BF16X2, add_bf16x2),
    S(A_MIN, TY_U32, min_u32), S(A_MIN, TY_S32, min_s32),
    S(A_MIN, TY_U64, min_u64), S(A_MIN, TY_S64, min_s64),
    S(A_MAX, TY_U32, max_u32), S(A_MAX, TY_S32, max_s32),
    S(A_MAX, TY_U64, max_u64), S(A_MAX, TY_S64, max_s64),
    V(A_MIN, TY_F16, min_f16), V(A_MAX, TY_F16, max_f16),
    V(A_MIN, TY_BF16, min_bf16), V(A_MAX, TY_BF16, max_bf16),
    V(A_MIN, TY_F16X2, min_f16x2), V(A_MAX, TY_F16X2, max_f16x2),
    V(A_MIN, TY_BF16X2, min_bf16x2), V(A_MAX, TY_BF16X2, max_bf16x2),
    S(A_INC, TY_U32, inc_u32), S(A_DEC, TY_U32, dec_u32),
    S(A_AND, TY_B32, and_b32), S(A_AND, TY_B64, and_b64),
    S(A_OR, TY_B32, or_b32), S(A_OR, TY_B64, or_b64),
    S(A_XOR, TY_B32, xor_b32), S(A_XOR, TY_B64, xor_b64),
    S(A_EXCH, TY_B32, exch_b32), S(A_EXCH, TY_B64, exch_b64),
    S(A_CAS, TY_B16, cas_b16), S(A_CAS, TY_B32, cas_b32), S(A_CAS, TY_B64, cas_b64),
};
#undef S
#undef V

static int atom_op(const InstDesc *d)
{
    static const int mods[A_COUNT] = { MOD_ADD, MOD_MIN, MOD_MAX, MOD_INC, MOD_DEC, MOD_AND,
                                       MOD_OR, MOD_XOR, MOD_EXCH, MOD_CAS };
    int op = -1;
    for (int i = 0; i < A_COUNT; i++) {
        if (!desc_has(d, mods[i])) continue;
        if (op >= 0) return -1;
        op = i;
    }
    return op;
}

static int norm_type(int op, int t)
{
    int bitwise = op == A_AND || op == A_OR || op == A_XOR || op == A_EXCH || op == A_CAS;
    if (bitwise) {
        switch (t) {
        case TY_B16: case TY_U16: case TY_S16: return TY_B16;
        case TY_B32: case TY_U32: case TY_S32: return TY_B32;
        case TY_B64: case TY_U64: case TY_S64: return TY_B64;
        case TY_F32: return op == A_EXCH || op == A_CAS ? TY_B32 : t;
        case TY_F64: return op == A_EXCH || op == A_CAS ? TY_B64 : t;
        default: return t;
        }
    }
    if (op == A_ADD && t == TY_S32) return TY_U32;
    if (op == A_ADD && t == TY_S64) return TY_U64;
    return t;
}

static const char *bind_atomic(Inst *in, const InstDesc *d, int is_atom)
{
    int op = atom_op(d), ty = d->types[0];
    if (op < 0) return is_atom ? "atom needs exactly one operation (.add .min .max .inc .dec "
                                 ".and .or .xor .exch .cas)"
                               : "red needs exactly one operation (.add .min .max .inc .dec "
                                 ".and .or .xor)";
    if (!is_atom && (op == A_EXCH || op == A_CAS)) return "red has no .exch or .cas";
    if (ty == TY_B128) return "128-bit atom is not supported (registers are 64-bit rows)";
    if (!d->has_addr) return "atom/red needs an address operand [a]";
    int sp = (in->flags & IF_FRAME) ? SP_LOCAL : d->space;
    switch (sp) {
    case SP_NONE: case SP_GENERIC: in->space = SP_GENERIC; break;
    case SP_GLOBAL: case SP_SHARED: case SP_SHARED_CLUSTER: in->space = (uint8_t)sp; break;
    default: return "atom/red work on .global, .shared or generic addresses only";
    }
    ty = norm_type(op, ty);
    const AtomEntry *e = NULL;
    for (size_t i = 0; i < sizeof atom_table / sizeof atom_table[0]; i++)
        if (atom_table[i].op == op && atom_table[i].ty == ty) e = &atom_table[i];
    if (!e) return "unsupported type for this atom/red operation";
    int vec = d->vec;
    int nvals = is_atom ? d->nd : d->ns;
    in->bop = (uint8_t)op;
    if (vec == 1) {
        if (nvals < 1 || (is_atom && d->ns < (op == A_CAS ? 2 : 1)))
            return "atom/red: missing operands";
        if (op != A_CAS) in->s[1] = ROW_ZERO;   /* a cache-policy operand is only a hint */
        in->vec = 1;
        in->fn = (is_atom ? e->atom : e->red)[(d->obs & OBS_MEM) != 0];
        return NULL;
    }
    if (!e->atomv[0]) return "vector atom/red exists only for .add.f32 and .add/.min/.max on halves";
    if (vec == 8) return "vector atom/red with .v8 is not supported (at most 4 operands)";
    if (vec != 2 && vec != 4) return "bad vector width";
    if (sp != SP_GLOBAL && sp != SP_NONE && sp != SP_GENERIC)
        return "vector atom/red needs .global or a generic address";
    if (d->ns < vec || (is_atom && d->nd < vec)) return "atom/red: vector operand count";
    in->vec = (uint8_t)vec;
    in->fn = (is_atom ? e->atomv : e->redv)[(d->obs & OBS_MEM) != 0];
    return NULL;
}

const char *bind_atom(Inst *in, const InstDesc *d) { return bind_atomic(in, d, 1); }
const char *bind_red(Inst *in, const InstDesc *d) { return bind_atomic(in, d, 0); }
