/* exec_mma.c - mma.sync: the warp-wide matrix multiply-accumulate of the tensor cores.
 *
 * Implemented: the integer forms, which are exact: s8/u8 (mixed too) with m8n8k16, m16n8k16
 * and m16n8k32; s4/u4 with m8n8k32, m16n8k32 and m16n8k64; b1 .and/.xor.popc with m8n8k128,
 * m16n8k128 and m16n8k256; s32 accumulators with or without .satfinite. f64 m8n8k4; f16 and
 * bf16 m16n8k16 and m16n8k8 (f32 or, for f16, f16 accumulators); tf32 m16n8k4 and m16n8k8,
 * with the H100's rounding as measured (docs/tensor-cores.md); wmma on the same types (f16
 * accumulators, tf32 m16n16k8) below; fp8 m16n8k32 with f32 accumulators and m8n8k4 on f16,
 * which sm_90 computes without a tensor-core instruction of their own (h_mma_fp8, m884_dot).
 *
 * Fragments (PTX ISA, "Matrix fragments for mma.m16n8k*"): with g = lane/4, t = lane%4 and E
 * elements per 32-bit register (4 of 8 bits, 8 of 4 bits, 32 of 1 bit), K splits into chunks
 * of 4E. A holds, chunk by chunk, row g then (for M = 16) row g+8, columns
 * chunk*4E + t*E .. +E-1. B holds, chunk by chunk, rows chunk*4E + t*E .. +E-1 of column g.
 * C and D hold row g (then g+8), columns 2t and 2t+1. Element e of a register is at bit e*bits.
 * The operands are a RowList (inst.h): D, A, B, C.
 */
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "tcore.h"
#include "fp.h"
#include <pthread.h>

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_keyed;
static __thread void **scratch;   /* TC_SCRATCH_COUNT buffers of this thread */

static void scratch_exit(void *v)
{
    void **s = v;
    for (int i = 0; i < TC_SCRATCH_COUNT; i++) free(s[i]);
    free(s);
    scratch = NULL;
}

static void scratch_key_init(void) { scratch_keyed = pthread_key_create(&scratch_key, scratch_exit) == 0; }

void *tc_thread_scratch(int which, size_t size)
{
    if (!scratch) {
        if (!(scratch = calloc(TC_SCRATCH_COUNT, sizeof *scratch))) return NULL;
        pthread_once(&scratch_once, scratch_key_init);
        if (scratch_keyed) pthread_setspecific(scratch_key, scratch);
    }
    if (!scratch[which]) scratch[which] = calloc(1, size);   /* each caller asks one size */
    return scratch[which];
}

typedef struct MmaShape { int m, k, bits; int a_signed, b_signed, sat, op; } MmaShape;

/* The shape travels in Inst.imm, packed. */
static int64_t pack(const MmaShape *s)
{
    return (int64_t)s->m | (int64_t)s->k << 8 | (int64_t)s->bits << 20 | (int64_t)s->a_signed << 28 |
           (int64_t)s->b_signed << 29 | (int64_t)s->sat << 30 | (int64_t)s->op << 32;
}

static MmaShape unpack(int64_t v)
{
    MmaShape s = { (int)(v & 255), (int)(v >> 8 & 4095), (int)(v >> 20 & 255), (int)(v >> 28 & 1),
                   (int)(v >> 29 & 1), (int)(v >> 30 & 1), (int)(v >> 32 & 3) };
    return s;
}
enum { OPB_MUL = 0, OPB_AND, OPB_XOR };

static inline int64_t elem(uint32_t w, int e, int bits, int sgn)
{
    uint32_t v = bits == 32 ? w : (w >> (e * bits)) & ((1u << bits) - 1);
    if (sgn && bits < 32 && (v >> (bits - 1) & 1)) return (int64_t)v - (1ll << bits);
    return v;
}

static int h_mma_int(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    MmaShape shape = unpack(in->imm);
    const MmaShape *sh = &shape;
    int M = sh->m, K = sh->k, bits = sh->bits, E = 32 / bits, nchunk = K / (4 * E), H = M / 8;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    int16_t a[16][256], b[256][8];   /* u8, s8, s4, u4 and b1 alike (12 KiB of stack: a static
                                      * TLS block this big makes dlopen of libcuda fail) */
    int64_t acc[16][8];
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int c = 0; c < nchunk; c++) {
            for (int h = 0; h < H; h++) {
                uint32_t wa = (uint32_t)ROW(w, A[c * H + h])[l];
                for (int e = 0; e < E; e++)
                    a[g + 8 * h][c * 4 * E + t * E + e] = (int16_t)elem(wa, e, bits, sh->a_signed);
            }
            uint32_t wb = (uint32_t)ROW(w, B[c])[l];
            for (int e = 0; e < E; e++)
                b[c * 4 * E + t * E + e][g] = (int16_t)elem(wb, e, bits, sh->b_signed);
        }
        for (int h = 0; h < H; h++)
            for (int j = 0; j < 2; j++)
                acc[g + 8 * h][2 * t + j] = (int32_t)ROW(w, C[2 * h + j])[l];
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < 8; j++) {
            int64_t s = 0;
            if (sh->op == OPB_MUL) {
                for (int k = 0; k < K; k++) s += (int64_t)a[i][k] * b[k][j];
            } else {
                for (int k = 0; k < K; k++)
                    s += sh->op == OPB_AND ? (a[i][k] & b[k][j]) : (a[i][k] ^ b[k][j]);
            }
            acc[i][j] += s;
        }
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int h = 0; h < H; h++)
            for (int j = 0; j < 2; j++) {
                int64_t v = acc[g + 8 * h][2 * t + j];
                if (sh->sat) v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
                ROW(w, D[2 * h + j])[l] = (uint32_t)(int32_t)(uint32_t)v;
            }
    }
    return STEP_NEXT;
}

/* mma.sync.m8n8k4 on f64: A holds row g, column t; B row t, column g; C/D row g, columns 2t
 * and 2t+1. Measured on the H100 (tests/ptx/mma_f64): each element is the fma chain
 * fma(a3, b3, fma(a2, b2, fma(a1, b1, fma(a0, b0, c)))), in k order from c. */
static int h_mma_f64(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    double a[8][4], b[4][8], c[8][8];
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        memcpy(&a[g][t], &ROW(w, A[0])[l], 8);
        memcpy(&b[t][g], &ROW(w, B[0])[l], 8);
        memcpy(&c[g][2 * t], &ROW(w, C[0])[l], 8);
        memcpy(&c[g][2 * t + 1], &ROW(w, C[1])[l], 8);
    }
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 2; j++) {
            double x = c[g][2 * t + j];
            for (int k = 0; k < 4; k++) x = fma(a[g][k], b[k][2 * t + j], x);
            memcpy(&ROW(w, D[j])[l], &x, 8);
        }
    }
    return STEP_NEXT;
}

/* ---- mma.sync on f16, bf16 and tf32 (f32 or f16 accumulators) ----
 * Measured on the H100 (tests/gpu/hmma_probe.cu, tests/gpu/mma_probe2.cu: m16n8k16 and
 * m16n8k8 f16/bf16, m16n8k4 and m16n8k8 tf32, f16 accumulators; random, wide-range,
 * subnormal, overflowing and special inputs, every element matched): the K products are
 * exact; each term (the products and c) is cut towards zero to a multiple of 2^(E-26), where
 * E is the largest alignment exponent: xa + xb - 1 for a product of nonzero a and b, with x
 * the exponent of 0.1m x 2^x read from the exponent field (a subnormal's field counts as 1),
 * and xc for a nonzero c. The exact sum of the cut terms is then cut to f32 towards zero (a
 * sum of 2^128 or more is infinite), or with f16 accumulators rounded to f16 to nearest
 * even. tf32 operands are f32 registers whose low 13 bits are ignored. NaN results are
 * 0x7fffffff (f16: 0x7fff). */

static const struct { int eb, mb, bias; } tc_fmt[] = { {5, 10, 15}, {8, 7, 127}, {8, 10, 127}, {8, 23, 127} };

/* An element's bits as its format stores them (tf32: the top 19 bits of the register). */
static inline uint32_t tc_bits(uint32_t u, int f) { return f == TC_TF32 ? u >> 13 : u; }

static inline int tc_special(uint32_t u, int f)
{
    return (u >> tc_fmt[f].mb & ((1u << tc_fmt[f].eb) - 1)) == (1u << tc_fmt[f].eb) - 1;
}

/* A finite element as sign, integer significand, exponent (value = (-1)^s m 2^q) and the
 * alignment exponent x of 0.1m x 2^x. */
static inline void tc_parts(uint32_t u, int f, int *s, uint64_t *m, int *q, int *x)
{
    int mb = tc_fmt[f].mb, eb = tc_fmt[f].eb, e = (int)(u >> mb & ((1u << eb) - 1));
    uint64_t frac = u & ((1u << mb) - 1);
    *s = (int)(u >> (mb + eb) & 1);
    *m = e ? frac | 1ull << mb : frac;
    *q = (e ? e : 1) - tc_fmt[f].bias - mb;
    *x = (e ? e : 1) - tc_fmt[f].bias + 1;
}

static inline double tc_val(uint32_t u, int f)
{
    int s, q, x;
    uint64_t m;
    if (tc_special(u, f))
        return (u & ((1u << tc_fmt[f].mb) - 1)) ? NAN : (u >> (tc_fmt[f].mb + tc_fmt[f].eb) & 1) ? -INFINITY : INFINITY;
    tc_parts(u, f, &s, &m, &q, &x);
    return s ? -ldexp((double)m, q) : ldexp((double)m, q);
}

/* m * 2^q cut towards zero to a multiple of 2^lsb, in units of 2^lsb. A nonzero term lies
 * below 2^(E + 1), so its left shift is small; a zero c's q may be far above lsb, and a
 * shift by that much is undefined even of 0 (tests/unit/test_tcore under UBSan found it). */
static inline int64_t cut_units(uint64_t m, int q, int lsb)
{
    int sh = q - lsb;
    if (!m) return 0;
    if (sh >= 0) return (int64_t)(m << sh);
    return -sh >= 64 ? 0 : (int64_t)(m >> -sh);
}

static uint32_t f32_result(double v)   /* cut towards zero; 2^128 and beyond overflow */
{
    if (isnan(v)) return 0x7fffffffu;
    float f = (float)v;
    if (fabs(v) < 0x1p128 && fabs((double)f) > fabs(v)) f = nextafterf(f, 0.0f);
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint32_t f16_result(double v)   /* to nearest even */
{
    if (isnan(v)) return 0x7fff;
    uint32_t sg = signbit(v) ? 0x8000u : 0;
    double a = fabs(v);
    int e;
    frexp(a, &e);
    int ulp = e - 11 < -24 ? -24 : e - 11;
    double r = a == 0 || isinf(a) ? a : ldexp(nearbyint(ldexp(a, -ulp)), ulp);
    if (r >= 65520.0) return sg | 0x7c00;
    if (r < 0x1p-14) return sg | (uint32_t)ldexp(r, 24);
    frexp(r, &e);
    return sg | (uint32_t)(e + 14) << 10 | ((uint32_t)ldexp(r, 11 - e) & 1023);
}

/* One element of D: the dot product of K elements of format f with c (f32 bits, or f16 bits
 * when acc16), as the H100's tensor cores compute it; returns D's bits. */
uint32_t tc_dot(const uint32_t *a, const uint32_t *b, int K, int f, uint32_t c, int acc16)
{
    int cf = TC_ACC_C16(acc16) ? TC_F16 : TC_F32, special = tc_special(c, cf), E = INT32_MIN;
    int o16 = TC_ACC_D16(acc16);
    for (int k = 0; k < K; k++) special |= tc_special(tc_bits(a[k], f), f) | tc_special(tc_bits(b[k], f), f);
    if (special) {   /* infinities and NaNs: IEEE arithmetic, NaN canonical */
        double sum = tc_val(c, cf);
        for (int k = 0; k < K; k++) sum += tc_val(tc_bits(a[k], f), f) * tc_val(tc_bits(b[k], f), f);
        return o16 ? f16_result(sum) : f32_result(sum);
    }
    int sc, qc, xc;
    uint64_t mc;
    tc_parts(c, cf, &sc, &mc, &qc, &xc);
    for (int k = 0; k < K; k++) {
        int sa, qa, xa, sb, qb, xb;
        uint64_t ma, mb;
        tc_parts(tc_bits(a[k], f), f, &sa, &ma, &qa, &xa);
        tc_parts(tc_bits(b[k], f), f, &sb, &mb, &qb, &xb);
        if (ma && mb && xa + xb - 1 > E) E = xa + xb - 1;
    }
    if (mc && xc > E) E = xc;
    if (E == INT32_MIN)   /* every term zero: the sign of c */
        return o16 ? (cf == TC_F16 ? (c & 0x8000u) : (c >> 16 & 0x8000u)) : (cf == TC_F16 ? (c & 0x8000u) << 16 : (c & 0x80000000u));
    int lsb = E - 26;
    int64_t t = cut_units(mc, qc, lsb), S = sc ? -t : t;
    for (int k = 0; k < K; k++) {
        int sa, qa, xa, sb, qb, xb;
        uint64_t ma, mb;
        tc_parts(tc_bits(a[k], f), f, &sa, &ma, &qa, &xa);
        tc_parts(tc_bits(b[k], f), f, &sb, &mb, &qb, &xb);
        int64_t u = cut_units(ma * mb, qa + qb, lsb);
        S += (sa ^ sb) ? -u : u;
    }
    double v = ldexp((double)S, lsb);   /* exact: |S| < 2^(26 + log2(K + 1) + 1) */
    return o16 ? f16_result(v) : f32_result(v);
}

/* f32_result(ldexp(S, lsb)) in integers: |S| 2^lsb cut towards zero to f32 (a normal keeps
 * 24 bits, a subnormal its multiple of 2^-149), 2^128 and beyond infinite, the sign S's; 0
 * is +0. The double detour (ldexp, a rounding conversion, nextafterf) cost a fifth of wmma. */
static inline uint32_t f32_units(int64_t S, int lsb)
{
    if (!S) return 0;
    uint32_t sg = S < 0 ? 0x80000000u : 0;
    uint64_t mag = S < 0 ? -(uint64_t)S : (uint64_t)S;
    int nb = 64 - __builtin_clzll(mag), top = lsb + nb - 1;   /* value in [2^top, 2^(top+1)) */
    if (top >= 128) return sg | 0x7f800000u;
    if (top >= -126) {
        int sh = nb - 24;
        uint64_t m = sh >= 0 ? mag >> sh : mag << -sh;
        return sg | (uint32_t)(top + 127) << 23 | ((uint32_t)m & 0x7fffffu);
    }
    int sh = lsb + 149;   /* in units of 2^-149: below 2^23 here */
    uint64_t m = sh >= 0 ? mag << sh : -sh >= 64 ? 0 : mag >> -sh;
    return sg | (uint32_t)m;
}

void tc_decode(const uint32_t *raw, int n, int f, TcElem *out)
{
    for (int i = 0; i < n; i++) {
        uint32_t bits = tc_bits(raw[i], f);
        TcElem *e = &out[i];
        e->raw = raw[i];
        e->special = (uint8_t)tc_special(bits, f);
        int s = 0, q = 0, x = 0;
        uint64_t m = 0;
        if (!e->special) tc_parts(bits, f, &s, &m, &q, &x);
        e->m = (uint32_t)m; e->q = (int16_t)q; e->x = (int16_t)x; e->s = (uint8_t)s;
    }
}

/* The largest alignment exponent of the nonzero terms, the products of a and b and c
 * (mantissa mc, exponent xc), or INT32_MIN when every term is zero. */
static int tc_top_exp(const TcElem *a, const TcElem *b, int K, uint64_t mc, int xc)
{
    int E = INT32_MIN;
    for (int k = 0; k < K; k++)
        if (a[k].m && b[k].m && a[k].x + b[k].x - 1 > E) E = a[k].x + b[k].x - 1;
    return mc && xc > E ? xc : E;
}

/* The terms, each cut towards zero to a multiple of 2^lsb, summed exactly, in units of 2^lsb. */
static int64_t tc_cut_sum(const TcElem *a, const TcElem *b, int K, int sc, uint64_t mc, int qc,
                          int lsb)
{
    int64_t t = cut_units(mc, qc, lsb), S = sc ? -t : t;
    for (int k = 0; k < K; k++) {
        if (!a[k].m || !b[k].m) continue;
        int64_t u = cut_units((uint64_t)a[k].m * b[k].m, a[k].q + b[k].q, lsb);
        S += (a[k].s ^ b[k].s) ? -u : u;
    }
    return S;
}

uint32_t tc_dot_dec(const TcElem *a, const TcElem *b, int K, int f, uint32_t c, int acc16)
{
    int cf = TC_ACC_C16(acc16) ? TC_F16 : TC_F32, E = INT32_MIN, special = tc_special(c, cf);
    int o16 = TC_ACC_D16(acc16);
    for (int k = 0; k < K; k++) special |= a[k].special | b[k].special;
    if (special) {   /* rare: the reference path */
        uint32_t ra[64], rb[64];
        for (int k = 0; k < K; k++) { ra[k] = a[k].raw; rb[k] = b[k].raw; }
        return tc_dot(ra, rb, K, f, c, acc16);
    }
    int sc, qc, xc;
    uint64_t mc;
    tc_parts(c, cf, &sc, &mc, &qc, &xc);
    E = tc_top_exp(a, b, K, mc, xc);
    if (E == INT32_MIN) return o16 ? (cf == TC_F16 ? (c & 0x8000u) : (c >> 16 & 0x8000u)) : (cf == TC_F16 ? (c & 0x8000u) << 16 : (c & 0x80000000u));
    int lsb = E - 26;
    int64_t S = tc_cut_sum(a, b, K, sc, mc, qc, lsb);
    return o16 ? f16_result(ldexp((double)S, lsb)) : f32_units(S, lsb);
}

/* f is a constant in each caller below, so that the format's fields are too. */
static inline __attribute__((always_inline)) void row_decode(const uint32_t *raw, int n, int f, TcRow *out)
{
    out->special = 0;
    for (int i = 0; i < n; i++) {
        uint32_t bits = tc_bits(raw[i], f);
        int s = 0, q = 0, x = 0;
        uint64_t m = 0;
        out->raw[i] = raw[i];
        if (tc_special(bits, f)) out->special = 1;
        else tc_parts(bits, f, &s, &m, &q, &x);
        out->m[i] = (uint32_t)m;
        out->s[i] = (uint32_t)s;
        out->q[i] = m ? q : TC_ROW_ZERO;
        out->x[i] = m ? x : TC_ROW_ZERO;
    }
}

void tc_row_decode(const uint32_t *raw, int n, int f, TcRow *out)
{
    switch (f) {
    case TC_F16: row_decode(raw, n, TC_F16, out); break;
    case TC_BF16: row_decode(raw, n, TC_BF16, out); break;
    case TC_TF32: row_decode(raw, n, TC_TF32, out); break;
    default: row_decode(raw, n, f, out); break;
    }
}

/* tc_dot_dec's model on rows. A zero element's exponents are TC_ROW_ZERO: a sum of two x
 * with one of them is below TC_ROW_ZERO / 2 and every sum of real ones above it (|x| < 130),
 * so such a product never sets E, and its cut is a right shift by 63 of 0: the loops test
 * no element for zero. A nonzero product's q is xa + xb - 2 - 2 mb <= E - 1 - 2 mb, so its
 * left shift is at most 25 - 2 mb places (11 for bf16). */
static inline __attribute__((always_inline)) uint32_t row_dot(const TcRow *a, const TcRow *b, int k0, int K,
                                                             int f, uint32_t c, int acc16)
{
    int cf = TC_ACC_C16(acc16) ? TC_F16 : TC_F32, o16 = TC_ACC_D16(acc16);
    if (a->special | b->special | tc_special(c, cf))   /* rare: the reference path */
        return tc_dot(a->raw + k0, b->raw + k0, K, f, c, acc16);
    int sc, qc, xc;
    uint64_t mc;
    tc_parts(c, cf, &sc, &mc, &qc, &xc);
    int top = 2 * TC_ROW_ZERO;
    for (int k = k0; k < k0 + K; k++) {
        int e = a->x[k] + b->x[k];
        top = e > top ? e : top;
    }
    int E = top > TC_ROW_ZERO / 2 ? top - 1 : INT32_MIN;
    if (mc && xc > E) E = xc;
    if (E == INT32_MIN)   /* every term zero: the sign of c */
        return o16 ? (cf == TC_F16 ? (c & 0x8000u) : (c >> 16 & 0x8000u)) : (cf == TC_F16 ? (c & 0x8000u) << 16 : (c & 0x80000000u));
    int lsb = E - 26;
    /* a cut product is below 2^27 units (its value is below 2^(xa + xb) <= 2^(E + 1)), so 16
     * of them sum in 32 bits; the loop has no branch, which lets it vectorize */
    int32_t P = 0;
    for (int k = k0; k < k0 + K; k++) {
        uint32_t p = a->m[k] * b->m[k];   /* below 2^22 */
        int sh = a->q[k] + b->q[k] - lsb;
        uint32_t u = sh >= 0 ? p << (sh & 31) : p >> (-sh < 31 ? -sh : 31);
        uint32_t neg = a->s[k] ^ b->s[k];
        P += (int32_t)((u ^ -neg) + neg);
    }
    int64_t t = cut_units(mc, qc, lsb), S = (sc ? -t : t) + P;
    return o16 ? f16_result(ldexp((double)S, lsb)) : f32_units(S, lsb);
}

/* wmma's f16 and bf16 tile (tc_row_tile16): the dot product inlined with K = 16 known to the
 * compiler, which unrolls its loops; built for AVX2 too (per-lane shifts: eight products at a
 * time), chosen by __builtin_cpu_supports as fma.f32's handler is. */
void tc_row_tile16_plain(const TcRow *dec, int M, int N, int f, uint32_t c[32][32], int acc16)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) c[i][j] = row_dot(dec + i, dec + 32 + j, 0, 16, f, c[i][j], acc16);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void row_tile_avx2(const TcRow *dec, int M, int N, int f,
                                                          uint32_t c[32][32], int acc16)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) c[i][j] = row_dot(dec + i, dec + 32 + j, 0, 16, f, c[i][j], acc16);
}
#endif
typedef void RowTile(const TcRow *, int, int, int, uint32_t[32][32], int);

static int have_avx2(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

/* The vector build of a tile function this host runs: 2 AVX-512 (F and DQ), 1 AVX2 (with
 * FMA when fma), 0 the plain one; the tables of builds below are in this order. */
static int simd_level(int fma)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")) return 2;
    if (have_avx2() && (!fma || __builtin_cpu_supports("fma"))) return 1;
#endif
    (void)fma;
    return 0;
}

static RowTile *row_tile_pick(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_avx2()) return row_tile_avx2;
#endif
    return tc_row_tile16_plain;
}

uint32_t tc_row_dot(const TcRow *a, const TcRow *b, int k0, int K, int f, uint32_t c, int acc16)
{
    return row_dot(a, b, k0, K, f, c, acc16);
}

/* The host's tile function, picked at the first wmma rather than at every one. */
static RowTile *row_tile;
static pthread_once_t row_tile_once = PTHREAD_ONCE_INIT;
static void row_tile_init(void) { row_tile = row_tile_pick(); }

void tc_row_tile16(const TcRow *dec, int M, int N, int f, uint32_t c[32][32], int acc16)
{
    pthread_once(&row_tile_once, row_tile_init);
    row_tile(dec, M, N, f, c, acc16);
}

/* ---- wmma's f16 m16n16k16 tile with f32 accumulators, in vectors ----
 * The same model as tc_dot, computed across a row of D at once (16 results, one per column
 * j) in floating point where that is exact: an f16 product is exact in f32 (22 significant
 * bits, 2^-48 at the least); scaled by 2^(26-E), a power of two, it stays exact unless it
 * falls below 2^-126, and then it is below one unit, so the truncating conversion to an
 * integer gives the cut term (0) either way; the same for c. The cut terms are integers below
 * 2^27 (a product lies below 2^(xa+xb) <= 2^(E+1)), so the 16 products sum exactly in 32
 * bits and with c in a double. The sum times 2^(E-26) (exact in a double) is converted to f32
 * and stepped one unit towards zero where the conversion went away from it, which is
 * f32_units' cut whatever the rounding mode; 2^128 and beyond is infinite. Where every
 * product is zero, D is c (its sign, or c itself: an f32 c is a multiple of its own cut
 * unit). A tile with an Inf or NaN anywhere (a, b or c) is left to the reference (returns 1).
 * Each product and cut is the element's alone, so the order of the vector lanes changes no
 * bit: tests/unit/test_tcore checks it against the model. This replaced the per-element
 * integer dot products (row_dot) on wmmaGemm's path: callgrind, one worker, 92 k
 * instructions a tile -> see docs/benchmarks.md. */
/* Vectors of 32 bytes (8 lanes of 32 bits, 4 of 64): GCC splits wider ones into halves for
 * arithmetic, but lowers their comparisons lane by lane in scalar code. */
typedef float TcV8f __attribute__((vector_size(32)));
typedef int32_t TcV8i __attribute__((vector_size(32)));
typedef uint32_t TcV8u __attribute__((vector_size(32)));
typedef uint16_t TcV8h __attribute__((vector_size(16)));
typedef double TcV4d __attribute__((vector_size(32)));
typedef int64_t TcV4l __attribute__((vector_size(32)));
typedef int32_t TcV4i __attribute__((vector_size(16)));
typedef float TcV4f __attribute__((vector_size(16)));

/* the larger of two vectors of int32, lane by lane (a macro: inlined in each target's copy) */
#define V8_MAX(a, b) ({ TcV8i a_ = (a), b_ = (b), m_ = a_ > b_; (a_ & m_) | (b_ & ~m_); })

/* 8 f16 values: their f32 values (exact), alignment exponents (TC_ROW_ZERO for a zero), and
 * a mask of Inf/NaN. */
#define V8_F16(h, val, x, sp) do {                                                           \
        TcV8h hv_;                                                                             \
        memcpy(&hv_, (h), sizeof hv_);                                                         \
        TcV8i u_ = __builtin_convertvector(hv_, TcV8i);                                        \
        TcV8i e_ = u_ >> 10 & 31, enz_ = e_ != 0;                                              \
        TcV8i m_ = (u_ & 1023) | (enz_ & 1024), ee_ = e_ | (~enz_ & 1), mnz_ = m_ != 0;        \
        TcV8f mag_ = __builtin_convertvector(m_, TcV8f) * (TcV8f)((ee_ - 25 + 127) << 23);     \
        (val) = (TcV8f)((TcV8i)mag_ | (u_ & 0x8000) << 16);                                    \
        (x) = (mnz_ & (ee_ - 14)) | (~mnz_ & TC_ROW_ZERO);                                     \
        (sp) |= e_ == 31;                                                                      \
    } while (0)

static inline __attribute__((always_inline)) int tile_f16(const uint16_t a[16][16], const uint16_t b[16][16],
                                                         uint32_t c[16][16])
{
    TcV8f bf[16][2], av;
    TcV8i xb[16][2], sp = { 0 }, xv;
    float af[16][16];
    int32_t xa[16][16];
    for (int k = 0; k < 16; k++)
        for (int h = 0; h < 2; h++) V8_F16(b[k] + 8 * h, bf[k][h], xb[k][h], sp);
    for (int i = 0; i < 16; i++)
        for (int h = 0; h < 2; h++) {
            V8_F16(a[i] + 8 * h, av, xv, sp);
            memcpy(af[i] + 8 * h, &av, sizeof av);
            memcpy(xa[i] + 8 * h, &xv, sizeof xv);
        }
    for (int i = 0; i < 16; i++)
        for (int h = 0; h < 2; h++) {
            TcV8i cv;
            memcpy(&cv, c[i] + 8 * h, sizeof cv);
            sp |= (cv >> 23 & 255) == 255;
        }
    for (int l = 0; l < 8; l++) if (sp[l]) return 1;
    for (int i = 0; i < 16; i++) {
        /* both halves of the row in each step: one broadcast of A's element for both */
        TcV8i em[2] = { (TcV8i){ 0 } + 2 * TC_ROW_ZERO, (TcV8i){ 0 } + 2 * TC_ROW_ZERO };
        _Pragma("GCC unroll 16") for (int k = 0; k < 16; k++)
            for (int h = 0; h < 2; h++) em[h] = V8_MAX(em[h], xb[k][h] + xa[i][k]);
        TcV8i cv[2], pv[2], P[2] = { { 0 }, { 0 } };
        TcV8f scale[2];
        for (int h = 0; h < 2; h++) {
            memcpy(&cv[h], c[i] + 8 * h, sizeof cv[h]);
            TcV8i ce = cv[h] >> 23 & 255, cnz = (cv[h] & 0x7fffffff) != 0;
            TcV8i xc = (ce | (~(ce != 0) & 1)) - 126;
            pv[h] = em[h] > TC_ROW_ZERO / 2;   /* some product is nonzero */
            TcV8i E = V8_MAX(em[h] - 1, (cnz & xc) | (~cnz & TC_ROW_ZERO));
            E &= pv[h];   /* the others keep c: any scale will do */
            scale[h] = (TcV8f)((26 - E + 127) << 23);
        }
        _Pragma("GCC unroll 16") for (int k = 0; k < 16; k++)
            for (int h = 0; h < 2; h++) P[h] += __builtin_convertvector((af[i][k] * bf[k][h]) * scale[h], TcV8i);
        for (int h = 0; h < 2; h++) {
            TcV8i ct = __builtin_convertvector((TcV8f)(cv[h] & pv[h]) * scale[h], TcV8i);
            /* f32_units(P + ct, lsb) in 32-bit lanes: the sum's magnitude u cut to 24 bits
             * (its top bit k from the exact conversion of u >> 8) and, where the result is
             * subnormal, to a multiple of 2^-149; then u 2^lsb is an f32 exactly. A sum of
             * 2^31 or more (beyond int32) is done per element below. */
            TcV8i S = (TcV8i)((TcV8u)P[h] + (TcV8u)ct);
            TcV8i lsb = 127 - ((TcV8i)scale[h] >> 23);   /* E - 26, scale being 2^(26-E) */
            TcV8i ovf = (((P[h] ^ S) & (ct ^ S)) < 0) | (S == INT32_MIN);
            TcV8i neg = S < 0, u = (S ^ neg) - neg;
            TcV8i k = ((TcV8i)__builtin_convertvector(u >> 8, TcV8f) >> 23) - 127 + 8;
            TcV8i big = u >= (1 << 24);
            TcV8i sh = V8_MAX(big & (k - 23), -149 - lsb);
            sh = V8_MAX(sh, (TcV8i){ 0 });
            sh = (sh & (sh < 31)) | (31 & ~(sh < 31));
            TcV8i t = u & ~((((TcV8i){ 0 } + 1) << sh) - 1);
            TcV8f f = __builtin_convertvector(t, TcV8f) * (TcV8f)((lsb + 127) << 23);
            TcV8i inf = big & (k + lsb >= 128);
            TcV8i dv = ((TcV8i)f & ~inf) | (inf & 0x7f800000) | (neg & INT32_MIN);
            dv = (pv[h] & dv) | (~pv[h] & cv[h]);
            int32_t d[8], Pa[8], cta[8], la[8];
            memcpy(d, &dv, sizeof d);
            TcV8i any = ovf & pv[h];
            uint64_t anyq[4];
            memcpy(anyq, &any, sizeof anyq);
            for (int j = 0; (anyq[0] | anyq[1] | anyq[2] | anyq[3]) && j < 8; j++)
                if (any[j]) {   /* rare: the sum needs 33 bits */
                    memcpy(Pa, &P[h], sizeof Pa);
                    memcpy(cta, &ct, sizeof cta);
                    memcpy(la, &lsb, sizeof la);
                    d[j] = (int32_t)f32_units((int64_t)Pa[j] + cta[j], la[j]);
                }
            memcpy(c[i] + 8 * h, d, sizeof d);
        }
    }
    return 0;
}

static int tile_f16_plain(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16])
{
    return tile_f16(a, b, c);
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static int tile_f16_avx2(const uint16_t a[16][16], const uint16_t b[16][16],
                                                         uint32_t c[16][16])
{
    return tile_f16(a, b, c);
}
__attribute__((target("avx512f,avx512dq"))) static int tile_f16_avx512(const uint16_t a[16][16],
                                                                      const uint16_t b[16][16], uint32_t c[16][16])
{
    return tile_f16(a, b, c);
}
#endif
typedef int TileF16(const uint16_t[16][16], const uint16_t[16][16], uint32_t[16][16]);

/* ---- the f16 tile where no term is cut (cudaTensorCoreGemm, wmmaGemm) ----
 * The model cuts each term (the products and c) to a multiple of 2^(E-26). Where every
 * nonzero term of an element is already such a multiple, the cut changes nothing, the sum S
 * is the exact sum of a, b and c, and D is S cut to f32 (f32_units). That exact sum needs
 * no E at all: every term is a multiple of 2^(E-26) below 2^(E+1), so each partial sum of the
 * 17 terms has at most 32 significant bits and a double holds it exactly, in any order, with
 * or without fused multiply-adds. Whether no term is cut is decided per element from bounds:
 * with X the largest alignment exponent and L the least exponent of a lowest set bit over the
 * nonzero elements of A's row i (Xa, La) and B's column j (Xb, Lb), E <= Eu = max(Xa + Xb - 1,
 * xc), and no term is cut when La + Lb >= Eu - 26 and c's lowest bit Lc >= Eu - 26 (then every
 * term is a multiple of 2^(Eu-26), hence of the finer 2^(E-26)). For an f32 c, Lc >= xc - 24,
 * so the conditions are Xa - La + Xb - Lb <= 27, xc <= La + Lb + 26 and Lc >= Xa + Xb - 27.
 * Zeros: with some term nonzero, an exact sum of 0 is +0 in the model and in the double sum
 * (which starts from c, never -0 here); with every term zero the model gives c, which the sum
 * gives too unless c is -0, so a c of -0 is left to the general tile. Also left to it: Inf and
 * NaN anywhere, and a D that is subnormal in f32 (the double's bits are cut to f32 only for
 * normal results). Small integers (both programs above) and operands of few significant bits
 * within a few binades pass; random full-precision operands mostly do not, and cost the
 * checks (about 1 k instructions a tile) before the general tile runs. */
#define TC_X_NONE (-1000)   /* X of an all-zero row; its L is -TC_X_NONE: no condition fails */

/* 8 f16 values: their values as f32 (exact), alignment exponents x and lowest-bit exponents
 * L (TC_X_NONE and -TC_X_NONE for a zero), and a mask of Inf/NaN. */
#define V8_F16XL(h, val, x, lo, sp) do {                                                     \
        TcV8h hv_;                                                                             \
        memcpy(&hv_, (h), sizeof hv_);                                                         \
        TcV8i u_ = __builtin_convertvector(hv_, TcV8i);                                        \
        TcV8i e_ = u_ >> 10 & 31, enz_ = e_ != 0;                                              \
        TcV8i m_ = (u_ & 1023) | (enz_ & 1024), ee_ = e_ | (~enz_ & 1), mnz_ = m_ != 0;        \
        TcV8f mag_ = __builtin_convertvector(m_, TcV8f) * (TcV8f)((ee_ - 25 + 127) << 23);     \
        TcV8i lg_ = ((TcV8i)__builtin_convertvector(m_ & -m_, TcV8f) >> 23) - 127;            \
        (val) = (TcV8f)((TcV8i)mag_ | (u_ & 0x8000) << 16);                                    \
        (x) = (mnz_ & (ee_ - 14)) | (~mnz_ & TC_X_NONE);                                       \
        (lo) = (mnz_ & (ee_ - 25 + lg_)) | (~mnz_ & -TC_X_NONE);                               \
        (sp) |= e_ == 31;                                                                      \
    } while (0)
/* Lanes of one vector, or of two (indices past 7 the second's), picked by constant indices:
 * GCC's and clang's builtins differ. */
#if defined(__clang__)
#define TC_SHUF1(v, ...) __builtin_shufflevector((v), (v), __VA_ARGS__)
#define TC_SHUF2(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else
#define TC_SHUF1(v, ...) __builtin_shuffle((v), (TcV8i){ __VA_ARGS__ })
#define TC_SHUF2(a, b, ...) __builtin_shuffle((a), (b), (TcV8i){ __VA_ARGS__ })
#endif
#define V8_MIN(a, b) ({ TcV8i a_ = (a), b_ = (b), m_ = a_ < b_; (a_ & m_) | (b_ & ~m_); })
/* every lane the largest (smallest) of v's lanes */
#define V8_HMAX(v) ({ TcV8i h_ = (v);                                                          \
        h_ = V8_MAX(h_, TC_SHUF1(h_, 4, 5, 6, 7, 0, 1, 2, 3));             \
        h_ = V8_MAX(h_, TC_SHUF1(h_, 2, 3, 0, 1, 6, 7, 4, 5));             \
        V8_MAX(h_, TC_SHUF1(h_, 1, 0, 3, 2, 5, 4, 7, 6)); })
#define V8_HMIN(v) ({ TcV8i h_ = (v);                                                          \
        h_ = V8_MIN(h_, TC_SHUF1(h_, 4, 5, 6, 7, 0, 1, 2, 3));             \
        h_ = V8_MIN(h_, TC_SHUF1(h_, 2, 3, 0, 1, 6, 7, 4, 5));             \
        V8_MIN(h_, TC_SHUF1(h_, 1, 0, 3, 2, 5, 4, 7, 6)); })

typedef double TcV8d __attribute__((vector_size(64)));
typedef int64_t TcV8l __attribute__((vector_size(64)));
typedef uint64_t TcV8ul __attribute__((vector_size(64)));
typedef uint64_t TcV4ul __attribute__((vector_size(32)));

/* 8 f32 as doubles, stored at p (exact) */
#define V8F_TO_D(p, val) do {                                                                  \
        TcV4f f0_, f1_;                                                                        \
        memcpy(&f0_, &(val), sizeof f0_);                                                      \
        memcpy(&f1_, (const char *)&(val) + sizeof f0_, sizeof f1_);                           \
        TcV4d d0_ = __builtin_convertvector(f0_, TcV4d), d1_ = __builtin_convertvector(f1_, TcV4d); \
        memcpy((p), &d0_, sizeof d0_);                                                         \
        memcpy((p) + 4, &d1_, sizeof d1_);                                                     \
    } while (0)

/* The checks above for every element, and the operands as doubles (ad, bd, cd): returns 0
 * when every element passes. */
static inline __attribute__((always_inline)) int exact_prep(const uint16_t a[16][16], const uint16_t b[16][16],
                                                           const uint32_t c[16][16], double ad[16][16],
                                                           double bd[16][16], double cd[16][16])
{
    TcV8i sp = { 0 }, bad = { 0 }, XB[2], LB[2], v, lo;
    TcV8f val;
    for (int h = 0; h < 2; h++) { XB[h] = (TcV8i){ 0 } + TC_X_NONE; LB[h] = (TcV8i){ 0 } - TC_X_NONE; }
    for (int k = 0; k < 16; k++)
        for (int h = 0; h < 2; h++) {
            V8_F16XL(b[k] + 8 * h, val, v, lo, sp);
            XB[h] = V8_MAX(XB[h], v);
            LB[h] = V8_MIN(LB[h], lo);
            V8F_TO_D(bd[k] + 8 * h, val);
        }
    for (int i = 0; i < 16; i++) {
        TcV8i xa[2], la[2];
        for (int h = 0; h < 2; h++) {
            V8_F16XL(a[i] + 8 * h, val, xa[h], la[h], sp);
            V8F_TO_D(ad[i] + 8 * h, val);
        }
        TcV8i Xa = V8_HMAX(V8_MAX(xa[0], xa[1])), La = V8_HMIN(V8_MIN(la[0], la[1]));
        for (int h = 0; h < 2; h++) {
            TcV8i cv;
            memcpy(&cv, c[i] + 8 * h, sizeof cv);
            TcV8i ce = cv >> 23 & 255, cen = ce | (~(ce != 0) & 1), cnz = (cv & 0x7fffffff) != 0;
            TcV8i mc = (cv & 0x7fffff) | ((ce != 0) & 0x800000);
            TcV8i Lc = cen - 150 + (((TcV8i)__builtin_convertvector(mc & -mc, TcV8f) >> 23) - 127);
            sp |= ce == 255;
            bad |= (Xa - La + XB[h] - LB[h]) > 27;
            bad |= cnz & (((cen - 126) > La + LB[h] + 26) | (Lc < Xa + XB[h] - 27));
            bad |= cv == INT32_MIN;   /* -0 */
            TcV8f cf = (TcV8f)cv;
            V8F_TO_D(cd[i] + 8 * h, cf);
        }
    }
    TcV8i any = sp | bad;
    uint64_t q[4];
    memcpy(q, &any, sizeof q);
    return (q[0] | q[1] | q[2] | q[3]) != 0;
}

/* D as f32 bits from the exact sums d (NL doubles of vector type VD, integer types VL and
 * VUL, 32-bit VI): the double cut to f32 where it is normal there (or 0); *bad set where not. */
#define EXACT_OUT(VD, VL, VUL, VI, d, out, badv) do {                                          \
        VUL db_ = (VUL)(d), ed_ = db_ >> 52 & 0x7ff;                                           \
        VL nz_ = (VL)(db_ != 0);                                                               \
        (badv) |= nz_ & (VL)((ed_ < 1023 - 126) | (ed_ > 1023 + 127));                         \
        VUL r_ = ((db_ >> 29 & 0x3ffffffffull) - ((1023ull - 127) << 23)) | (db_ >> 32 & 0x80000000ull); \
        (out) = __builtin_convertvector((VL)r_ & nz_, VI);                                     \
    } while (0)

/* The sums for every element, c[i][j] + sum_k a[i][k] b[k][j] in doubles, NL lanes of j a
 * vector; FMA(x, y, z) is x * y + z, fused or not (exact either way). */
#define EXACT_BODY(VD, VL, VUL, VI, NL, FMA, BCAST, OUT) do {                                             \
        VL badv_ = { 0 };                                                                      \
        for (int i = 0; i < 16; i++) {                                                         \
            VD acc_[16 / NL];                                                                  \
            _Pragma("GCC unroll 4") for (int v = 0; v < 16 / NL; v++)                          \
                memcpy(&acc_[v], cd[i] + NL * v, sizeof acc_[v]);                              \
            _Pragma("GCC unroll 16") for (int k = 0; k < 16; k++) {                            \
                VD ak_ = BCAST(ad[i][k]);                                                      \
                _Pragma("GCC unroll 4") for (int v = 0; v < 16 / NL; v++) {                    \
                    VD bk_;                                                                    \
                    memcpy(&bk_, bd[k] + NL * v, sizeof bk_);                                  \
                    acc_[v] = FMA(ak_, bk_, acc_[v]);                                          \
                }                                                                              \
            }                                                                                  \
            _Pragma("GCC unroll 4") for (int v = 0; v < 16 / NL; v++) {                        \
                VI o_;                                                                         \
                OUT(VD, VL, VUL, VI, acc_[v], o_, badv_);                                      \
                memcpy(out[i] + NL * v, &o_, sizeof o_);                                       \
            }                                                                                  \
        }                                                                                      \
        for (int v = 0; v < NL; v++) if (badv_[v]) return 1;                                   \
    } while (0)
/* The same cut as EXACT_OUT by the conversion itself, where the caller has set the rounding
 * towards zero (EXACT_RZ_ON): a normal result keeps 24 bits, a subnormal one its multiple of
 * 2^-149, each towards zero, as f32_units does; 2^128 is out of reach (a nonzero product
 * makes c < 2^57, and f16 products sum below 2^37). VF: NL floats. */
#define EXACT_OUT_RZ4(VD, VL, VUL, VI, d, out, badv) ((out) = (VI)__builtin_convertvector((d), TcV4f))
#define EXACT_OUT_RZ8(VD, VL, VUL, VI, d, out, badv) ((out) = (VI)__builtin_convertvector((d), TcV8f))
/* MXCSR: every exception masked, rounding towards zero, no flush or denormals-are-zero; the
 * caller's value (flags too) put back on every way out */
#define EXACT_RZ_ON unsigned csr_ = __builtin_ia32_stmxcsr(); __builtin_ia32_ldmxcsr((csr_ & ~0xe040u) | 0x7f80u)
#define EXACT_RZ_OFF __builtin_ia32_ldmxcsr(csr_)
#define EXACT_NONE_ON (void)0
#define EXACT_NONE_OFF (void)0
#define EXACT_MULADD(x, y, z) ((x) * (y) + (z))
#define EXACT_BC4(x) ({ double x_ = (x); (TcV4d){ x_, x_, x_, x_ }; })
#define EXACT_BC8(x) ({ double x_ = (x); (TcV8d){ x_, x_, x_, x_, x_, x_, x_, x_ }; })

#define EXACT_FN(NAME, ATTR, VD, VL, VUL, VI, NL, FMA, BCAST, OUT, ON, OFF)                                       \
    ATTR int NAME(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16])      \
    {                                                                                          \
        double ad[16][16] __attribute__((aligned(64))), bd[16][16] __attribute__((aligned(64))); \
        double cd[16][16] __attribute__((aligned(64)));                                        \
        uint32_t out[16][16] __attribute__((aligned(64)));                                     \
        ON;                                                                                    \
        if (exact_prep(a, b, c, ad, bd, cd)) { OFF; return 1; }                                         \
        EXACT_BODY(VD, VL, VUL, VI, NL, FMA, BCAST, OUT);                                      \
        OFF;                                                \
        memcpy(c, out, sizeof out);                                                            \
        return 0;                                                                              \
    }

EXACT_FN(tc_tile16_f16_exact_plain, , TcV4d, TcV4l, TcV4ul, TcV4i, 4, EXACT_MULADD, EXACT_BC4, EXACT_OUT,
         EXACT_NONE_ON, EXACT_NONE_OFF)
#if defined(__x86_64__) && defined(__GNUC__)
#define EXACT_FMA256(x, y, z) __builtin_ia32_vfmaddpd256((x), (y), (z))
#define EXACT_FMA512(x, y, z) __builtin_ia32_vfmaddpd512_mask((x), (y), (z), (uint8_t)-1, 4)
EXACT_FN(exact_avx2, __attribute__((target("avx2,fma"))) static, TcV4d, TcV4l, TcV4ul, TcV4i, 4, EXACT_FMA256, EXACT_BC4,
         EXACT_OUT_RZ4, EXACT_RZ_ON, EXACT_RZ_OFF)
EXACT_FN(exact_avx512, __attribute__((target("avx512f,avx512dq"))) static, TcV8d, TcV8l, TcV8ul, TcV8i, 8,
         EXACT_FMA512, EXACT_BC8, EXACT_OUT_RZ8, EXACT_RZ_ON, EXACT_RZ_OFF)
#endif
static TileF16 *exact_fn;
static pthread_once_t exact_once = PTHREAD_ONCE_INIT;
static void exact_init(void)
{
    exact_fn = tc_tile16_f16_exact_plain;
#if defined(__x86_64__) && defined(__GNUC__)
    TileF16 *const builds[] = { tc_tile16_f16_exact_plain, exact_avx2, exact_avx512 };
    exact_fn = builds[simd_level(1)];
#endif
}

int tc_tile16_f16_exact(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16])
{
    pthread_once(&exact_once, exact_init);
    return exact_fn(a, b, c);
}

/* ---- the exact tile for wmma.mma, with its A and B decoded once for several mmas ----
 * A GEMM's warp keeps fragments in registers and multiplies each with several others
 * (cudaTensorCoreGemm: each A fragment with 4 B fragments, each B with 2 A). The decoding
 * and checks of an operand depend on its 256 elements only, so the last few operands decoded
 * are kept per thread, found again by their bits. */
enum { EXACT_WAYS = 4 };
typedef struct ExactOp {
    uint32_t raw[16][8];   /* the key: A's rows i, or B's columns j, as pairs of f16 along k */
    double d[16][16];      /* A: d[i][k]; B: d[k][j] */
    int32_t X[16], L[16];  /* A: per row i; B: per column j (TC_X_NONE, -TC_X_NONE: all zero) */
    int32_t Xmax, Lmin, span;   /* over the rows (columns): the largest X, least L, largest X - L */
    int sp, valid;         /* sp: an Inf or NaN */
} ExactOp;
typedef struct ExactCache { ExactOp op[2][EXACT_WAYS]; unsigned next[2]; } ExactCache;

/* The operand with these bits (rows of 16 f16), decoded into the cache if not there; tr: B
 * (the doubles stored transposed, d[k][j]). */
static inline __attribute__((always_inline)) const ExactOp *exact_op(ExactCache *C, int tr,
                                                                    const uint32_t raw[16][8])
{
    ExactOp *ops = C->op[tr];
    for (int w = 0; w < EXACT_WAYS; w++) {
        if (!ops[w].valid) continue;
        TcV8u diff = { 0 };
        for (int r = 0; r < 16; r++) {
            TcV8u x, y;
            memcpy(&x, raw[r], sizeof x);
            memcpy(&y, ops[w].raw[r], sizeof y);
            diff |= x ^ y;
        }
        uint64_t q[4];
        memcpy(q, &diff, sizeof q);
        if (!(q[0] | q[1] | q[2] | q[3])) return &ops[w];
    }
    ExactOp *o = &ops[C->next[tr]++ % EXACT_WAYS];
    memcpy(o->raw, raw, sizeof o->raw);
    TcV8i sp = { 0 };
    o->Xmax = o->span = 2 * TC_X_NONE;
    o->Lmin = -TC_X_NONE;
    for (int r = 0; r < 16; r++) {
        TcV8i x[2], lo[2];
        TcV8f val[2];
        for (int h = 0; h < 2; h++) V8_F16XL((const uint16_t *)raw[r] + 8 * h, val[h], x[h], lo[h], sp);
        TcV8i X = V8_HMAX(V8_MAX(x[0], x[1])), L = V8_HMIN(V8_MIN(lo[0], lo[1]));
        o->X[r] = X[0];
        o->L[r] = L[0];
        o->Xmax = X[0] > o->Xmax ? X[0] : o->Xmax;
        o->Lmin = L[0] < o->Lmin ? L[0] : o->Lmin;
        o->span = X[0] - L[0] > o->span ? X[0] - L[0] : o->span;
        if (!tr) {
            for (int h = 0; h < 2; h++) V8F_TO_D(o->d[r] + 8 * h, val[h]);
        } else {
            float f[16];
            memcpy(f, &val[0], sizeof val[0]);
            memcpy(f + 8, &val[1], sizeof val[1]);
            for (int k = 0; k < 16; k++) o->d[k][r] = (double)f[k];
        }
    }
    uint64_t q[4];
    memcpy(q, &sp, sizeof q);
    o->sp = (q[0] | q[1] | q[2] | q[3]) != 0;
    o->valid = 1;
    return o;
}

/* wmma_f16_exact's registers (ar: A's 4 to 7, br: B's 4 to 7, cr: C's) gathered into
 * rows, A and B looked up or decoded, the checks on c: 0 with ad, bd, cd ready, else 1. */
static inline __attribute__((always_inline)) int exact_rows_pre(ExactCache *C, const uint64_t *const ar[4],
                                                               const uint64_t *const br[4],
                                                               const uint64_t *const cr[8], uint32_t c[16][16],
                                                               const double (**adp)[16], const double (**bdp)[16],
                                                               double cd[16][16])
{
    uint32_t aw[16][8], bw[16][8];
    /* in vectors: lanes 4g .. 4g+3 of a register are 4 rows of 64 bits, whose low halves
     * are 4 words of a row of A (of a column of B), or with the next register's, 8 f32 of a
     * row of C */
    for (int p = 0; p < 2; p++) {   /* registers 4 + p and 6 + p: words 0-3 and 4-7 */
        const uint64_t *a0 = ar[p], *a1 = ar[2 + p];
        const uint64_t *b0 = br[2 * p], *b1 = br[2 * p + 1];
        for (int g = 0; g < 8; g++) {
            TcV8u x0, x1, y0, y1;
            memcpy(&x0, a0 + 4 * g, sizeof x0);
            memcpy(&x1, a1 + 4 * g, sizeof x1);
            memcpy(&y0, b0 + 4 * g, sizeof y0);
            memcpy(&y1, b1 + 4 * g, sizeof y1);
            TcV8u ra = TC_SHUF2(x0, x1, 0, 2, 4, 6, 8, 10, 12, 14), rb = TC_SHUF2(y0, y1, 0, 2, 4, 6, 8, 10, 12, 14);
            memcpy(aw[g + 8 * p], &ra, sizeof ra);
            memcpy(bw[g + 8 * p], &rb, sizeof rb);
        }
    }
    for (int i = 0; i < 8; i += 2) {   /* registers i, i + 1: columns 8(i >> 2) + 2t + 0..1 */
        const uint64_t *c0 = cr[i], *c1 = cr[i + 1];
        for (int g = 0; g < 8; g++) {
            TcV8u x0, x1;
            memcpy(&x0, c0 + 4 * g, sizeof x0);
            memcpy(&x1, c1 + 4 * g, sizeof x1);
            TcV8u r = TC_SHUF2(x0, x1, 0, 8, 2, 10, 4, 12, 6, 14);
            memcpy(c[g + 8 * ((i >> 1) & 1)] + 8 * (i >> 2), &r, sizeof r);
        }
    }
    const ExactOp *A = exact_op(C, 0, (const uint32_t (*)[8])aw), *B = exact_op(C, 1, (const uint32_t (*)[8])bw);
    /* the conditions per element, with the rows' and columns' bounds replaced by the whole
     * operand's (the span condition is the same: its two parts are separate maxima) */
    if (A->sp || B->sp || A->span + B->span > 27) return 1;
    int32_t xc_max = A->Lmin + B->Lmin + 26, lc_min = A->Xmax + B->Xmax - 27;
    TcV8i bad = { 0 }, xcv = (TcV8i){ 0 } + TC_X_NONE, lcv = (TcV8i){ 0 } - TC_X_NONE;
    for (int i = 0; i < 16; i++)
        for (int h = 0; h < 2; h++) {
            TcV8i cv;
            memcpy(&cv, c[i] + 8 * h, sizeof cv);
            TcV8i ce = cv >> 23 & 255, cen = ce | (~(ce != 0) & 1), cnz = (cv & 0x7fffffff) != 0;
            TcV8i mc = (cv & 0x7fffff) | ((ce != 0) & 0x800000);
            TcV8i Lc = cen - 150 + (((TcV8i)__builtin_convertvector(mc & -mc, TcV8f) >> 23) - 127);
            bad |= (ce == 255) | (cv == INT32_MIN);
            xcv = V8_MAX(xcv, (cnz & (cen - 126)) | (~cnz & TC_X_NONE));
            lcv = V8_MIN(lcv, (cnz & Lc) | (~cnz & -TC_X_NONE));
            TcV8f cf = (TcV8f)cv;
            V8F_TO_D(cd[i] + 8 * h, cf);
        }
    bad |= (xcv > xc_max) | (lcv < lc_min);
    uint64_t q[4];
    memcpy(q, &bad, sizeof q);
    if (q[0] | q[1] | q[2] | q[3]) return 1;
    *adp = A->d;
    *bdp = B->d;
    return 0;
}

/* D into the registers dr (a whole warp's), from c: the inverse of the gathering above, the
 * upper 32 bits of each register 0 */
static inline __attribute__((always_inline)) void exact_rows_post(uint64_t *const dr[8], const uint32_t c[16][16])
{
    const TcV8u zero = { 0 };
    for (int i = 0; i < 8; i += 2)
        for (int g = 0; g < 8; g++) {
            TcV8u r, x0, x1;
            memcpy(&r, c[g + 8 * ((i >> 1) & 1)] + 8 * (i >> 2), sizeof r);
            x0 = TC_SHUF2(r, zero, 0, 8, 2, 8, 4, 8, 6, 8);
            x1 = TC_SHUF2(r, zero, 1, 8, 3, 8, 5, 8, 7, 8);
            memcpy(dr[i] + 4 * g, &x0, sizeof x0);
            memcpy(dr[i + 1] + 4 * g, &x1, sizeof x1);
        }
}

/* The exact wmma tile: 0 with D written (into dr, or when dr is NULL into c for the caller to
 * scatter), or 1 with nothing written (the general tile then). */
#define EXACT_ROWS_FN(NAME, ATTR, VD, VL, VUL, VI, NL, FMA, BCAST, OUT, ON, OFF)                             \
    ATTR int NAME(ExactCache *C, const uint64_t *const ar[4], const uint64_t *const br[4],     \
                  const uint64_t *const cr[8], uint64_t *const dr[8], uint32_t c[16][16])      \
    {                                                                                          \
        double cd[16][16] __attribute__((aligned(64)));                                        \
        uint32_t out[16][16] __attribute__((aligned(64)));                                     \
        const double (*ad)[16], (*bd)[16];                                                     \
        ON;                                                                                    \
        if (exact_rows_pre(C, ar, br, cr, c, &ad, &bd, cd)) { OFF; return 1; }                                           \
        EXACT_BODY(VD, VL, VUL, VI, NL, FMA, BCAST, OUT);                                      \
        OFF;                                                                                                                              \
        if (dr) exact_rows_post(dr, (const uint32_t (*)[16])out);                              \
        else memcpy(c, out, sizeof out);                                                       \
        return 0;                                                                              \
    }
EXACT_ROWS_FN(exact_rows_plain, static, TcV4d, TcV4l, TcV4ul, TcV4i, 4, EXACT_MULADD, EXACT_BC4, EXACT_OUT,
              EXACT_NONE_ON, EXACT_NONE_OFF)
#if defined(__x86_64__) && defined(__GNUC__)
EXACT_ROWS_FN(exact_rows_avx2, __attribute__((target("avx2,fma"))) static, TcV4d, TcV4l, TcV4ul, TcV4i, 4,
              EXACT_FMA256, EXACT_BC4, EXACT_OUT_RZ4, EXACT_RZ_ON, EXACT_RZ_OFF)
EXACT_ROWS_FN(exact_rows_avx512, __attribute__((target("avx512f,avx512dq"))) static, TcV8d, TcV8l, TcV8ul, TcV8i,
              8, EXACT_FMA512, EXACT_BC8, EXACT_OUT_RZ8, EXACT_RZ_ON, EXACT_RZ_OFF)
#endif
typedef int ExactRows(ExactCache *, const uint64_t *const[4], const uint64_t *const[4], const uint64_t *const[8],
                      uint64_t *const[8], uint32_t[16][16]);
static ExactRows *exact_rows_fn;
static pthread_once_t exact_rows_once = PTHREAD_ONCE_INIT;
static void exact_rows_init(void)
{
    exact_rows_fn = exact_rows_plain;
#if defined(__x86_64__) && defined(__GNUC__)
    ExactRows *const builds[] = { exact_rows_plain, exact_rows_avx2, exact_rows_avx512 };
    exact_rows_fn = builds[simd_level(1)];
#endif
}

static TileF16 *tile_f16_fn;
static pthread_once_t tile_f16_once = PTHREAD_ONCE_INIT;
static void tile_f16_init(void)
{
    tile_f16_fn = tile_f16_plain;
#if defined(__x86_64__) && defined(__GNUC__)
    TileF16 *const builds[] = { tile_f16_plain, tile_f16_avx2, tile_f16_avx512 };
    tile_f16_fn = builds[simd_level(0)];
#endif
}

/* The exact case first, the general tile where it does not apply. */
int tc_tile16_f16(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16])
{
    if (!tc_tile16_f16_exact(a, b, c)) return 0;
    pthread_once(&tile_f16_once, tile_f16_init);
    return tile_f16_fn(a, b, c);
}

int tc_tile16_f16_plain(const uint16_t a[16][16], const uint16_t b[16][16], uint32_t c[16][16])
{
    return tc_tile16_f16_exact_plain(a, b, c) ? tile_f16_plain(a, b, c) : 0;
}

/* fp8 wgmma (tests/cuda/wgmma_fp8.cu, fp8_f16acc.cu, recorded on the H100): the fp8 tensor
 * cores keep 14 bits. The products (exact) and c are terms; E is the largest alignment
 * exponent of the nonzero terms, as in the model above; each term is cut towards zero to a
 * multiple of 2^(E-14), and their exact sum keeps its 14 leading bits, cut towards zero. With
 * f16 accumulators (c an f16 term) the exact sum is rounded to f16 to nearest instead.
 * Infinities and NaNs: IEEE, NaN canonical. a and b are the values as decoded f16. */
uint32_t tc_dot_fp8(const TcElem *a, const TcElem *b, int K, uint32_t c, int acc16)
{
    int cf = acc16 ? TC_F16 : TC_F32, E = INT32_MIN, special = tc_special(c, cf);
    for (int k = 0; k < K; k++) special |= a[k].special | b[k].special;
    if (special) {   /* rare: IEEE arithmetic in double (exact enough to give Inf or NaN) */
        double s = tc_val(c, cf);
        for (int k = 0; k < K; k++) s += tc_val(a[k].raw, TC_F16) * tc_val(b[k].raw, TC_F16);
        return acc16 ? f16_result(s) : isnan(s) ? 0x7fffffffu : fp_f32_bits((float)s);
    }
    int sc, qc, xc;
    uint64_t mc;
    tc_parts(c, cf, &sc, &mc, &qc, &xc);
    E = tc_top_exp(a, b, K, mc, xc);
    if (E == INT32_MIN) return acc16 ? c & 0x8000u : c & 0x80000000u;   /* every term zero: c's sign */
    int lsb = E - 14;
    int64_t S = tc_cut_sum(a, b, K, sc, mc, qc, lsb);
    if (acc16) return f16_result(ldexp((double)S, lsb));
    uint64_t mag = (uint64_t)(S < 0 ? -S : S);
    int bits = 64 - (mag ? __builtin_clzll(mag) : 64);
    if (bits > 14) mag = mag >> (bits - 14) << (bits - 14);
    float v = ldexpf((float)mag, lsb);
    return fp_f32_bits(S < 0 ? -v : v);
}

/* c + h in f32, as an FADD rounds it (NaN canonical): the last step of fp8 mma. */
static uint32_t fadd_f32(uint32_t c, uint32_t h)
{
    float v = fp_bits_f32(c) + fp_bits_f32(h);
    return isnan(v) ? 0x7fffffffu : fp_f32_bits(v);
}

/* Inst.imm of a floating-point mma: format | K << 4 | acc16 << 12 */
static int h_mma_float(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int f = (int)(in->imm & 15), K = (int)(in->imm >> 4 & 255), acc16 = (int)(in->imm >> 12 & 1);
    int ebits = f == TC_TF32 ? 32 : 16, E = 32 / ebits, na = 16 * K * ebits / 1024, nb = 8 * K * ebits / 1024;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t a[16][16], b[8][16], c[16][8];   /* b transposed: b[column][k] */
    uint32_t emask = ebits == 32 ? 0xffffffffu : 0xffffu;
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < na; j++) {   /* A: row g + 8(j%2) of chunk j/2 */
            uint32_t v = (uint32_t)ROW(w, A[j])[l];
            for (int e = 0; e < E; e++)
                a[g + 8 * (j % 2)][j / 2 * 4 * E + t * E + e] = v >> (e * ebits) & emask;
        }
        for (int j = 0; j < nb; j++) {   /* B: rows of chunk j, column g */
            uint32_t v = (uint32_t)ROW(w, B[j])[l];
            for (int e = 0; e < E; e++) b[g][j * 4 * E + t * E + e] = v >> (e * ebits) & emask;
        }
        for (int j = 0; j < (acc16 ? 2 : 4); j++) {
            uint32_t v = (uint32_t)ROW(w, C[j])[l];
            if (acc16) {
                c[g + 8 * j][2 * t] = v & 0xffff;
                c[g + 8 * j][2 * t + 1] = v >> 16;
            } else {
                c[g + 8 * (j / 2)][2 * t + j % 2] = v;
            }
        }
    }
    TcElem ad[16][16], bd[8][16];
    for (int i = 0; i < 16; i++) tc_decode(a[i], K, f, ad[i]);
    for (int i = 0; i < 8; i++) tc_decode(b[i], K, f, bd[i]);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        if (acc16) {
            for (int j = 0; j < 2; j++) {
                int row = g + 8 * j;
                uint32_t lo = tc_dot_dec(ad[row], bd[2 * t], K, f, c[row][2 * t], 1);
                uint32_t hi = tc_dot_dec(ad[row], bd[2 * t + 1], K, f, c[row][2 * t + 1], 1);
                ROW(w, D[j])[l] = lo | hi << 16;
            }
            continue;
        }
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            ROW(w, D[j])[l] = tc_dot_dec(ad[row], bd[col], K, f, c[row][col], 0);
        }
    }
    return STEP_NEXT;
}

/* mma.sync m8n8k4 on f16 (recorded by tests/cuda/mma_m8n8k4.cu): each quad pair (lanes
 * 4q..4q+3 and 4q+16..4q+19) computes its own 8x8x4 product; a lane's place in its pair is
 * p = lane%4 + 4(lane/16). A row-major: lane p holds row p, k = element; column-major: lane
 * holds column k = lane%4, rows element + 4(lane/16). B column-major: lane p holds column p;
 * row-major: row k = lane%4, columns element + 4(lane/16). f32 C/D element i: row lane%2 +
 * 2((i/2)%2) + 4(lane/16), column i%2 + 2((lane%4)/2) + 4(i/4); f16 C/D: row p, column i.
 * Inst.imm: A column-major | B row-major << 1 | f16 D << 2 | f16 C << 3. */
/* One element of m8n8k4. On sm_90 it is no tensor-core instruction: ptxas computes each
 * element in f32 (its SASS is HADD2.F32 conversions, an FFMA chain and an FADD): t = a0 b0,
 * t = fma(ak, bk, t) for k = 1, 2, 3, then D = c + t, rounded to f16 for f16 results (F2FP).
 * tests/cuda/mma_m8n8k4_wide.cu: all 24576 wide-range elements of every form match. */
static uint32_t m884_dot(const uint32_t a[4], const uint32_t b[4], uint32_t c, int c16, int d16)
{
    float t = fp_f16_to_f32(a[0]) * fp_f16_to_f32(b[0]);
    for (int k = 1; k < 4; k++) t = fmaf(fp_f16_to_f32(a[k]), fp_f16_to_f32(b[k]), t);
    float cf = c16 ? fp_f16_to_f32(c) : fp_bits_f32(c);
    float s = cf + t;
    if (isnan(s)) return d16 ? 0x7fffu : 0x7fffffffu;
    return d16 ? f16_result((double)s) : fp_f32_bits(s);
}

static int h_mma_m884(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int acol = (int)(in->imm & 1), brow = (int)(in->imm >> 1 & 1), d16 = (int)(in->imm >> 2 & 1), c16 = (int)(in->imm >> 3 & 1);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t a[4][8][4], b[4][8][4], c[4][8][8];   /* [quad pair][row or column][k or column] */
    for (int l = 0; l < WARP_SIZE; l++) {
        int q = (l % 16) / 4, p = l % 4 + 4 * (l / 16);
        for (int e = 0; e < 4; e++) {
            uint32_t av = (uint32_t)ROW(w, A[e / 2])[l] >> (16 * (e % 2)) & 0xffff;
            uint32_t bv = (uint32_t)ROW(w, B[e / 2])[l] >> (16 * (e % 2)) & 0xffff;
            if (acol) a[q][e + 4 * (l / 16)][l % 4] = av; else a[q][p][e] = av;
            if (brow) b[q][e + 4 * (l / 16)][l % 4] = bv; else b[q][p][e] = bv;   /* b[q][n][k] */
        }
        for (int i = 0; i < 8; i++) {
            int m = c16 ? p : l % 2 + 2 * ((i / 2) % 2) + 4 * (l / 16), n = c16 ? i : i % 2 + 2 * ((l % 4) / 2) + 4 * (i / 4);
            uint32_t v = (uint32_t)ROW(w, C[c16 ? i / 2 : i])[l];
            c[q][m][n] = c16 ? (v >> (16 * (i % 2)) & 0xffff) : v;
        }
    }
    FOR_LANES(mask, l) {
        int q = (l % 16) / 4, p = l % 4 + 4 * (l / 16);
        uint32_t out[8];
        for (int i = 0; i < 8; i++) {
            int m = d16 ? p : l % 2 + 2 * ((i / 2) % 2) + 4 * (l / 16), n = d16 ? i : i % 2 + 2 * ((l % 4) / 2) + 4 * (i / 4);
            out[i] = m884_dot(a[q][m], b[q][n], c[q][m][n], c16, d16);
        }
        for (int i = 0; i < (d16 ? 4 : 8); i++) ROW(w, D[i])[l] = d16 ? (out[2 * i] | out[2 * i + 1] << 16) : out[i];
    }
    return STEP_NEXT;
}

/* mma.sp (2:4 sparse A), recorded by tests/cuda/mma_sp.cu and mma_sp2.cu: m16n8k16 f16/bf16
 * with f32 accumulators and f16 with f16 accumulators, m16n8k32 f16 with f32 accumulators.
 * A holds K/2 values a row: register j holds row g + 8(j%2), compressed columns 8(j/2) + 2t
 * and +1. Compressed column c lands in group c/2 of four columns, at the position its
 * metadata nibble names (bits 0-1 for even c, 2-3 for odd c). Group q of row g (g+8) takes
 * nibble q%4 (4 + q%4) of the metadata register of lane 4g + (K/16) selector + q/4. B holds
 * K/8 registers, register j rows 8j + 2t and +1 of column g. The product is mma's with the
 * zeros in place. Inst.imm: selector | format << 4 | K << 8 | acc16 << 16. */
static int h_mma_sp(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int sel = (int)(in->imm & 3), f = (int)(in->imm >> 4 & 3), K = (int)(in->imm >> 8 & 63), acc16 = (int)(in->imm >> 16 & 1);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2],
                   *E = C + rl->count[3];
    uint32_t a[16][32], b[8][32], c[16][8];
    memset(a, 0, sizeof a);
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < K / 8; j++) {
            uint32_t v = (uint32_t)ROW(w, A[j])[l];
            int row = g + 8 * (j % 2);
            for (int e = 0; e < 2; e++) {
                int cc = 8 * (j / 2) + 2 * t + e, q = cc / 2;
                uint32_t meta = (uint32_t)ROW(w, E[0])[4 * g + (K / 16) * sel + q / 4];
                uint32_t nib = meta >> (4 * (q % 4 + 4 * (j % 2))) & 15, pos = (cc % 2 ? nib >> 2 : nib) & 3;
                a[row][4 * q + pos] = v >> (16 * e) & 0xffff;
            }
        }
        for (int j = 0; j < K / 8; j++) {
            uint32_t v = (uint32_t)ROW(w, B[j])[l];
            b[g][8 * j + 2 * t] = v & 0xffff;
            b[g][8 * j + 2 * t + 1] = v >> 16;
        }
        if (acc16) {
            for (int j = 0; j < 2; j++) {
                uint32_t v = (uint32_t)ROW(w, C[j])[l];
                c[g + 8 * j][2 * t] = v & 0xffff;
                c[g + 8 * j][2 * t + 1] = v >> 16;
            }
        } else {
            for (int j = 0; j < 4; j++) c[g + 8 * (j / 2)][2 * t + j % 2] = (uint32_t)ROW(w, C[j])[l];
        }
    }
    TcElem ad[16][32], bd[8][32];
    for (int i = 0; i < 16; i++) tc_decode(a[i], K, f, ad[i]);
    for (int i = 0; i < 8; i++) tc_decode(b[i], K, f, bd[i]);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        if (acc16) {
            for (int j = 0; j < 2; j++) {
                int row = g + 8 * j;
                uint32_t lo = tc_dot_dec(ad[row], bd[2 * t], K, f, c[row][2 * t], 1);
                uint32_t hi = tc_dot_dec(ad[row], bd[2 * t + 1], K, f, c[row][2 * t + 1], 1);
                ROW(w, D[j])[l] = lo | hi << 16;
            }
            continue;
        }
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            ROW(w, D[j])[l] = tc_dot_dec(ad[row], bd[col], K, f, c[row][col], 0);
        }
    }
    return STEP_NEXT;
}

/* mma.sp on 8-bit integers (tests/cuda/mma_sp_int.cu: m16n8k32 and m16n8k64, s8/u8 mixed,
 * .satfinite): the f16 forms' layouts with four elements a register. A's register j holds row
 * g + 8(j%2), compressed columns 16(j/2) + 4t .. +3; B's register j rows 16j + 4t .. +3 of
 * column g; C/D as dense mma's. Compressed column c lands in group c/2 of four columns at
 * the position its metadata nibble names (bits 0-1 for even c, 2-3 for odd c), as for f16,
 * but a row's nibbles are laid out unlike f16's: group q of row g + 8h takes nibble q%8 of the
 * metadata register of lane 4g + (K/16) selector + h + 2(q/8). The sum is exact. Inst.imm:
 * the MmaShape, selector << 36. */
static int h_mma_sp_int(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    MmaShape sh = unpack(in->imm);
    int K = sh.k, sel = (int)(in->imm >> 36 & 3), bits = sh.bits, V = 8 / bits, KB = K / V;   /* V values a byte */
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2],
                   *E = C + rl->count[3];
    int32_t a[16][128], b[8][128];
    int64_t acc[16][8];
    memset(a, 0, sizeof a);
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < KB / 16; j++) {
            uint32_t va = (uint32_t)ROW(w, A[j])[l], vb = (uint32_t)ROW(w, B[j])[l];
            int row = g + 8 * (j % 2);
            for (int e = 0; e < 4; e++) {   /* byte e: compressed byte 16(j/2) + 4t + e */
                int cc = 16 * (j / 2) + 4 * t + e, q = cc / 2;
                uint32_t meta = (uint32_t)ROW(w, E[0])[4 * g + (KB / 16) * sel + j % 2 + 2 * (q / 8)];
                uint32_t nib = meta >> (4 * (q % 8)) & 15, pos = (cc % 2 ? nib >> 2 : nib) & 3;
                for (int x = 0; x < V; x++) {
                    a[row][(4 * q + (int)pos) * V + x] = (int32_t)elem(va, e * V + x, bits, sh.a_signed);
                    b[g][(16 * j + 4 * t + e) * V + x] = (int32_t)elem(vb, e * V + x, bits, sh.b_signed);
                }
            }
        }
        for (int j = 0; j < 4; j++) acc[g + 8 * (j / 2)][2 * t + j % 2] = (int32_t)ROW(w, C[j])[l];
    }
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            int64_t v = acc[row][col];
            for (int k = 0; k < K; k++) v += (int64_t)a[row][k] * b[col][k];
            if (sh.sat) v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
            ROW(w, D[j])[l] = (uint32_t)v;
        }
    }
    return STEP_NEXT;
}

/* mma.sp on tf32 (tests/cuda/mma_sp_more.cu: m16n8k8 with selectors 0 and 3, m16n8k16 with
 * selector 1; native HMMA.SP.*.TF32). A's register j holds row g + 8(j%2), compressed column
 * 4(j/2) + t. The metadata counts in 16-bit halves: a tf32 value is two halves, so the
 * compressed value c is group c of f16's layout, and its nibble (0x4 or 0xe) puts it in the
 * first or the second column of dense pair c; group c of row g + 8h takes nibble c%4 + 4h of
 * lane 4g + (K/8) selector + c/4. B and C as dense tf32 mma; the arithmetic is the tf32 model.
 * Inst.imm: selector | K << 8. */
static int h_mma_sp_tf32(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int sel = (int)(in->imm & 3), K = (int)(in->imm >> 8 & 63);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2],
                   *E = C + rl->count[3];
    uint32_t a[16][16], b[8][16], c[16][8];
    memset(a, 0, sizeof a);
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < K / 4; j++) {
            int row = g + 8 * (j % 2), cc = 4 * (j / 2) + t;
            uint32_t meta = (uint32_t)ROW(w, E[0])[4 * g + (K / 8) * sel + cc / 4];
            uint32_t nib = meta >> (4 * (cc % 4 + 4 * (j % 2))) & 15;
            a[row][2 * cc + ((nib & 3) >= 2)] = (uint32_t)ROW(w, A[j])[l];
        }
        for (int j = 0; j < K / 4; j++) b[g][4 * j + t] = (uint32_t)ROW(w, B[j])[l];
        for (int j = 0; j < 4; j++) c[g + 8 * (j / 2)][2 * t + j % 2] = (uint32_t)ROW(w, C[j])[l];
    }
    TcElem ad[16][16], bd[8][16];
    for (int i = 0; i < 16; i++) tc_decode(a[i], K, TC_TF32, ad[i]);
    for (int i = 0; i < 8; i++) tc_decode(b[i], K, TC_TF32, bd[i]);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            ROW(w, D[j])[l] = tc_dot_dec(ad[row], bd[col], K, TC_TF32, c[row][col], 0);
        }
    }
    return STEP_NEXT;
}

/* mma.sp m16n8k64 .f32 on fp8 (tests/cuda/mma_sp_more.cu). Like dense fp8 mma, sm_90 has no
 * instruction for it: the values become f16 and two HMMA.SP.16832.F32 run, the first from
 * zero, the second onto it, then an FADD of C (SASS). The layouts are mma.sp s8's (A's
 * register j holds row g + 8(j%2), compressed columns 16(j/2) + 4t .. +3; group q of row
 * g + 8h takes nibble q%8 of lane 4g + h + 2(q/8)); the first HMMA takes the dense columns k
 * with k%8 < 4 (the even groups), the second the others. Inst.imm: A e5m2 | B e5m2 << 1. */
static int h_mma_sp_fp8(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int ae5 = (int)(in->imm & 1), be5 = (int)(in->imm >> 1 & 1);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2],
                   *E = C + rl->count[3];
    uint32_t a[16][2][32], b[8][2][32], c[16][8];   /* [row or column][HMMA][k of the half] */
    memset(a, 0, sizeof a);
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 4; j++) {
            uint32_t va = (uint32_t)ROW(w, A[j])[l], vb = (uint32_t)ROW(w, B[j])[l];
            int row = g + 8 * (j % 2);
            for (int e = 0; e < 4; e++) {   /* dense column k goes to HMMA k%8 / 4, at k/8 4 + k%4 */
                int cc = 16 * (j / 2) + 4 * t + e, q = cc / 2, kb = 16 * j + 4 * t + e;
                uint32_t meta = (uint32_t)ROW(w, E[0])[4 * g + j % 2 + 2 * (q / 8)];
                uint32_t nib = meta >> (4 * (q % 8)) & 15, ka = 4 * q + (int)((cc % 2 ? nib >> 2 : nib) & 3);
                a[row][ka % 8 / 4][ka / 8 * 4 + ka % 4] = tc_fp8_to_f16(va >> (8 * e), ae5);
                b[g][kb % 8 / 4][kb / 8 * 4 + kb % 4] = tc_fp8_to_f16(vb >> (8 * e), be5);
            }
        }
        for (int j = 0; j < 4; j++) c[g + 8 * (j / 2)][2 * t + j % 2] = (uint32_t)ROW(w, C[j])[l];
    }
    TcElem ad[16][2][32], bd[8][2][32];
    for (int i = 0; i < 16; i++) for (int h = 0; h < 2; h++) tc_decode(a[i][h], 32, TC_F16, ad[i][h]);
    for (int i = 0; i < 8; i++) for (int h = 0; h < 2; h++) tc_decode(b[i][h], 32, TC_F16, bd[i][h]);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            uint32_t h = tc_dot_dec(ad[row][0], bd[col][0], 32, TC_F16, 0, 0);
            h = tc_dot_dec(ad[row][1], bd[col][1], 32, TC_F16, h, 0);
            ROW(w, D[j])[l] = fadd_f32(c[row][col], h);
        }
    }
    return STEP_NEXT;
}

static int int_bits(int t, int *sgn);

static const char *bind_mma_sp_int(Inst *in, const InstDesc *d, const RowList *rl)
{
    int sa, sb, K = desc_has(d, MOD_M16N8K32) ? 32 : desc_has(d, MOD_M16N8K64) ? 64 :
                    desc_has(d, MOD_M16N8K128) ? 128 : 0;
    int bits = int_bits(d->types[1], &sa);
    if ((bits != 8 && bits != 4) || int_bits(d->types[2], &sb) != bits || d->types[0] != TY_S32 || d->types[3] != TY_S32)
        return "mma.sp on integers is .s32 += s8/u8 or s4/u4 (of one width)";
    int KB = K * bits / 8;
    if (KB != 32 && KB != 64)
        return bits == 8 ? "mma.sp on 8-bit integers exists as m16n8k32 and m16n8k64" : "mma.sp on 4-bit integers exists as m16n8k64 and m16n8k128";
    if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "mma.sp needs .row.col";
    if (!rl || rl->count[0] != 4 || rl->count[1] != (unsigned)KB / 16 || rl->count[2] != (unsigned)KB / 16 ||
        rl->count[3] != 4 || rl->count[4] != 1 || rl->count[5] != 1)
        return "wrong number of registers in an mma.sp operand (d, a, b, c, metadata, selector)";
    if (!(d->list_imm_mask >> 5 & 1) || d->list_imm[5] < 0 || d->list_imm[5] > (KB == 32 ? 1 : 0))
        return KB == 32 ? "this integer mma.sp has sparsity selector 0 or 1" : "this integer mma.sp has sparsity selector 0";
    MmaShape sh = { 16, K, bits, sa, sb, desc_has(d, MOD_SATFINITE), OPB_MUL };
    in->imm = pack(&sh) | (int64_t)d->list_imm[5] << 36;
    in->fn = h_mma_sp_int;
    return NULL;
}

uint32_t tc_fp8_to_f16(uint32_t v, int e5)
{
    if (e5) return (v & 0xff) << 8;   /* e5m2 is the upper byte of an f16 */
    uint32_t s = (v & 0x80) << 8, e = v >> 3 & 15, m = v & 7;
    if (e == 15 && m == 7) return s | 0x7e00;   /* e4m3's only NaN */
    if (e) return s | (e + 8) << 10 | m << 7;
    if (!m) return s;
    while (!(m & 8)) { m <<= 1; e--; }   /* a subnormal becomes a normal f16 */
    return s | (e + 9) << 10 | (m & 7) << 7;
}

/* mma m16n8k32 .f32 on fp8 (e4m3, e5m2, mixed). sm_90 has no fp8 mma.sync: ptxas converts
 * the values to f16 (F2FP.F16.E4M3.UNPACK_B, exact), runs HMMA.16816.F32 twice - the first
 * with zero accumulators, the second onto the first's result - and adds C with an FADD (its
 * SASS, cuobjdump). The first HMMA takes the low two bytes of each A and B register: columns
 * k with k%4 < 2. So each element is the f16 model of 16 products from 0, then of the other
 * 16 onto that, then c + that rounded to nearest (tests/cuda/mma_float.cu). With f16
 * accumulators the same with HMMA.16816.F16 and an HADD2: each step rounds to f16 to nearest
 * (tests/cuda/fp8_f16acc.cu). Inst.imm: A is e5m2 | B is e5m2 << 1 | f16 accumulators << 2. */
static int h_mma_fp8(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int ae5 = (int)(in->imm & 1), be5 = (int)(in->imm >> 1 & 1), acc16 = (int)(in->imm >> 2 & 1);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t a[16][2][16], b[8][2][16], c[16][8];   /* [row or column][HMMA step][k] */
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int j = 0; j < 4; j++) {   /* A: row g + 8(j%2), columns 16(j/2) + 4t + e */
            uint32_t v = (uint32_t)ROW(w, A[j])[l];
            for (int e = 0; e < 4; e++) {
                int k = 16 * (j / 2) + 4 * t + e;
                a[g + 8 * (j % 2)][e / 2][k / 4 * 2 + e % 2] = tc_fp8_to_f16(v >> (8 * e), ae5);
            }
        }
        for (int j = 0; j < 2; j++) {   /* B: rows 16j + 4t + e of column g */
            uint32_t v = (uint32_t)ROW(w, B[j])[l];
            for (int e = 0; e < 4; e++) {
                int k = 16 * j + 4 * t + e;
                b[g][e / 2][k / 4 * 2 + e % 2] = tc_fp8_to_f16(v >> (8 * e), be5);
            }
        }
        if (acc16) {   /* f16 C: register j holds row g + 8j, columns 2t and 2t+1 */
            for (int j = 0; j < 2; j++) {
                uint32_t v = (uint32_t)ROW(w, C[j])[l];
                c[g + 8 * j][2 * t] = v & 0xffff;
                c[g + 8 * j][2 * t + 1] = v >> 16;
            }
        } else {
            for (int j = 0; j < 4; j++) c[g + 8 * (j / 2)][2 * t + j % 2] = (uint32_t)ROW(w, C[j])[l];
        }
    }
    TcElem ad[16][2][16], bd[8][2][16];
    for (int i = 0; i < 16; i++) for (int h = 0; h < 2; h++) tc_decode(a[i][h], 16, TC_F16, ad[i][h]);
    for (int i = 0; i < 8; i++) for (int h = 0; h < 2; h++) tc_decode(b[i][h], 16, TC_F16, bd[i][h]);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int j = 0; acc16 && j < 2; j++) {
            uint32_t out[2];
            for (int x = 0; x < 2; x++) {
                int row = g + 8 * j, col = 2 * t + x;
                uint32_t h = tc_dot_dec(ad[row][0], bd[col][0], 16, TC_F16, 0, 1);
                h = tc_dot_dec(ad[row][1], bd[col][1], 16, TC_F16, h, 1);
                out[x] = f16_result((double)fp_f16_to_f32(c[row][col]) + fp_f16_to_f32(h));
            }
            ROW(w, D[j])[l] = out[0] | out[1] << 16;
        }
        for (int j = 0; !acc16 && j < 4; j++) {
            int row = g + 8 * (j / 2), col = 2 * t + j % 2;
            uint32_t s = tc_dot_dec(ad[row][0], bd[col][0], 16, TC_F16, 0, 0);
            s = tc_dot_dec(ad[row][1], bd[col][1], 16, TC_F16, s, 0);
            ROW(w, D[j])[l] = fadd_f32(c[row][col], s);
        }
    }
    return STEP_NEXT;
}

static const char *bind_mma_sp(Inst *in, const InstDesc *d, const RowList *rl)
{
    if (d->ntypes != 4) return "mma.sp needs .dtype.atype.btype.ctype";
    int dt = d->types[0], at = d->types[1], bt = d->types[2], ct = d->types[3], sgn;
    if (int_bits(at, &sgn)) return bind_mma_sp_int(in, d, rl);
    if (at == TY_TF32 || at == TY_E4M3 || at == TY_E5M2) {
        int tf = at == TY_TF32;
        int K = desc_has(d, MOD_M16N8K8) ? 8 : desc_has(d, MOD_M16N8K16) ? 16 : desc_has(d, MOD_M16N8K64) ? 64 : 0;
        if (tf ? bt != TY_TF32 || (K != 8 && K != 16) : (bt != TY_E4M3 && bt != TY_E5M2) || K != 64)
            return tf ? "mma.sp on tf32 exists as m16n8k8 and m16n8k16" : "mma.sp on fp8 exists as m16n8k64";
        if (dt != TY_F32 || ct != TY_F32)
            return tf ? "mma.sp on tf32 has f32 accumulators" : "mma.sp on fp8 has f32 accumulators on sm_90 (ptxas refuses f16 ones)";
        if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "mma.sp needs .row.col";
        unsigned nab = tf ? (unsigned)K / 4 : 4;
        if (!rl || rl->count[0] != 4 || rl->count[1] != nab || rl->count[2] != nab || rl->count[3] != 4 ||
            rl->count[4] != 1 || rl->count[5] != 1)
            return "wrong number of registers in an mma.sp operand (d, a, b, c, metadata, selector)";
        int maxsel = tf ? (K == 8 ? 3 : 1) : 0;
        if (!(d->list_imm_mask >> 5 & 1) || d->list_imm[5] < 0 || d->list_imm[5] > maxsel)
            return "mma.sp's sparsity selector is out of range for this shape (tf32 m16n8k8: 0-3, m16n8k16: 0-1; fp8: 0)";
        in->imm = tf ? (int64_t)d->list_imm[5] | (int64_t)K << 8 : (int64_t)(at == TY_E5M2) | (int64_t)(bt == TY_E5M2) << 1;
        in->fn = tf ? h_mma_sp_tf32 : h_mma_sp_fp8;
        return NULL;
    }
    int K = desc_has(d, MOD_M16N8K16) ? 16 : desc_has(d, MOD_M16N8K32) ? 32 : 0;
    int f32acc = dt == TY_F32 && ct == TY_F32, f16acc = dt == TY_F16 && ct == TY_F16;
    int ok = at == bt && K && ((at == TY_F16 && f32acc) || (at == TY_BF16 && f32acc && K == 16) ||
                               (at == TY_F16 && f16acc && K == 16));
    if (!ok)
        return "mma.sp is implemented for m16n8k16 .f32.f16.f16.f32, .f32.bf16.bf16.f32, .f16.f16.f16.f16 "
               "and m16n8k32 .f32.f16.f16.f32 (issue 10: the other forms are not yet measured)";
    if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "mma.sp needs .row.col";
    unsigned nd = f16acc ? 2 : 4;
    if (!rl || rl->count[0] != nd || rl->count[1] != K / 8 || rl->count[2] != K / 8 || rl->count[3] != nd ||
        rl->count[4] != 1 || rl->count[5] != 1)
        return "wrong number of registers in an mma.sp operand (d, a, b, c, metadata, selector)";
    if (!(d->list_imm_mask >> 5 & 1) || d->list_imm[5] < 0 || d->list_imm[5] > (K == 16 ? 3 : 1))
        return K == 16 ? "mma.sp m16n8k16's sparsity selector is 0 to 3" : "mma.sp m16n8k32's sparsity selector is 0 or 1";
    in->imm = (int64_t)d->list_imm[5] | (int64_t)(at == TY_BF16 ? TC_BF16 : TC_F16) << 4 | (int64_t)K << 8 |
              (int64_t)f16acc << 16;
    in->fn = h_mma_sp;
    return NULL;
}

static int int_bits(int t, int *sgn)
{
    switch (t) {
    case TY_S8: *sgn = 1; return 8;
    case TY_U8: *sgn = 0; return 8;
    case TY_S4: *sgn = 1; return 4;
    case TY_U4: *sgn = 0; return 4;
    case TY_B1: *sgn = 0; return 1;
    default: return 0;
    }
}

const char *bind_mma(Inst *in, const InstDesc *d)
{
    const RowList *rl = in->aux;
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "mma needs .sync.aligned";
    if (d->ntypes != 4) return "mma needs four types (d, a, b, c): mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype";
    if (desc_has(d, MOD_SP) || desc_has(d, MOD_SP_ORDERED_METADATA)) return bind_mma_sp(in, d, rl);
    if (desc_has(d, MOD_M8N8K4) && d->types[1] == TY_F16 && d->types[2] == TY_F16) {
        int dt = d->types[0], ct = d->types[3];
        if ((dt != TY_F16 && dt != TY_F32) || (ct != TY_F16 && ct != TY_F32))
            return "mma m8n8k4 on f16 has f32 or f16 accumulators";
        if (dt == TY_F16 && ct == TY_F32)
            return "mma m8n8k4 with f32 accumulators gives f32 results (.f16.f16.f16.f32 does not exist)";
        /* .alayout.blayout: the first layout modifier is A's; with one kind only, both are it */
        int acol = d->first_layout == MOD_COL;
        int bcol = desc_has(d, MOD_ROW) && desc_has(d, MOD_COL) ? !acol : acol;
        if (!rl || rl->count[0] != (dt == TY_F16 ? 4u : 8u) || rl->count[1] != 2 || rl->count[2] != 2 ||
            rl->count[3] != (ct == TY_F16 ? 4u : 8u))
            return "mma m8n8k4 takes {d} (8 f32 or 4 f16x2), {a0, a1}, {b0, b1}, {c}";
        in->imm = acol | !bcol << 1 | (dt == TY_F16) << 2 | (ct == TY_F16) << 3;
        in->fn = h_mma_m884;
        return NULL;
    }
    int dt = d->types[0], at = d->types[1], bt = d->types[2], ct = d->types[3];
    if (dt == TY_F64 && at == TY_F64 && bt == TY_F64 && ct == TY_F64) {
        if (!desc_has(d, MOD_M8N8K4)) return "f64 mma exists as m8n8k4";
        if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "f64 mma needs .row.col";
        if (desc_has(d, MOD_RZ) || desc_has(d, MOD_RM) || desc_has(d, MOD_RP))
            return "f64 mma with .rz/.rm/.rp is not implemented (.rn is)";
        if (!rl || rl->count[0] != 2 || rl->count[1] != 1 || rl->count[2] != 1 || rl->count[3] != 2)
            return "f64 mma m8n8k4 takes {d0, d1}, {a}, {b}, {c0, c1}";
        in->fn = h_mma_f64;
        return NULL;
    }
    if (at == bt && (at == TY_F16 || at == TY_BF16 || at == TY_TF32) &&
        ((dt == TY_F32 && ct == TY_F32) || (at == TY_F16 && dt == TY_F16 && ct == TY_F16))) {
        int f = at == TY_F16 ? TC_F16 : at == TY_BF16 ? TC_BF16 : TC_TF32, K = 0;
        if (desc_has(d, MOD_M16N8K16) && f != TC_TF32) K = 16;
        else if (desc_has(d, MOD_M16N8K8)) K = 8;
        else if (desc_has(d, MOD_M16N8K4) && f == TC_TF32) K = 4;
        if (!K) return f == TC_TF32 ? "tf32 mma exists as m16n8k4 and m16n8k8"
                                    : "f16/bf16 mma is implemented for m16n8k8 and m16n8k16 (m8n8k4: issue 10)";
        if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "this mma needs .row.col";
        int acc16 = dt == TY_F16, ebits = f == TC_TF32 ? 32 : 16;
        if (!rl || rl->count[0] != (acc16 ? 2u : 4u) || rl->count[1] != (unsigned)(16 * K * ebits / 1024) ||
            rl->count[2] != (unsigned)(8 * K * ebits / 1024) || rl->count[3] != (acc16 ? 2u : 4u))
            return "wrong number of registers in an mma operand for this shape";
        in->imm = f | K << 4 | acc16 << 12;
        in->fn = h_mma_float;
        return NULL;
    }
    if ((at == TY_E4M3 || at == TY_E5M2) && (bt == TY_E4M3 || bt == TY_E5M2)) {
        if (!desc_has(d, MOD_M16N8K32)) return "fp8 mma exists as m16n8k32";
        int acc16 = dt == TY_F16 && ct == TY_F16;
        if (!acc16 && (dt != TY_F32 || ct != TY_F32)) return "fp8 mma has .f32.f32 or .f16.f16 accumulators";
        if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "fp8 mma needs .row.col";
        unsigned nd = acc16 ? 2 : 4;
        if (!rl || rl->count[0] != nd || rl->count[1] != 4 || rl->count[2] != 2 || rl->count[3] != nd)
            return "fp8 mma m16n8k32 takes {d} (4 f32 or 2 f16x2), {a} (4), {b} (2), {c} (like d)";
        in->imm = (at == TY_E5M2) | (bt == TY_E5M2) << 1 | acc16 << 2;
        in->fn = h_mma_fp8;
        return NULL;
    }
    if (dt != TY_S32 || ct != TY_S32)
        return "this floating-point mma is not implemented yet (issue 10: the tensor cores' rounding for it is not yet measured)";
    MmaShape sh = {0};
    int bits = int_bits(at, &sh.a_signed), bbits = int_bits(bt, &sh.b_signed);
    if (!bits || bits != bbits) return "unsupported mma type combination";
    static const struct { int mod, m, k, bits; } shapes[] = {
        {MOD_M8N8K16, 8, 16, 8}, {MOD_M16N8K16, 16, 16, 8}, {MOD_M16N8K32, 16, 32, 8},
        {MOD_M8N8K32, 8, 32, 4}, {MOD_M16N8K32, 16, 32, 4}, {MOD_M16N8K64, 16, 64, 4},
        {MOD_M8N8K128, 8, 128, 1}, {MOD_M16N8K128, 16, 128, 1}, {MOD_M16N8K256, 16, 256, 1},
    };
    int found = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (desc_has(d, shapes[i].mod) && shapes[i].bits == bits) {
            sh.m = shapes[i].m;
            sh.k = shapes[i].k;
            found = 1;
        }
    if (!found) return "unsupported mma shape for these types";
    sh.bits = bits;
    if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "integer mma needs .row.col";
    sh.sat = desc_has(d, MOD_SATFINITE);
    if (bits == 1) {
        if (!desc_has(d, MOD_POPC)) return "b1 mma needs .and.popc or .xor.popc";
        sh.op = desc_has(d, MOD_AND) ? OPB_AND : desc_has(d, MOD_XOR) ? OPB_XOR : -1;
        if (sh.op < 0) return "b1 mma needs .and.popc or .xor.popc";
        if (sh.sat) return ".satfinite does not apply to b1 mma";
    }
    int E = 32 / bits, H = sh.m / 8, nchunk = sh.k / (4 * E);
    if (!rl || rl->count[0] != 2 * H || rl->count[1] != nchunk * H || rl->count[2] != nchunk ||
        rl->count[3] != 2 * H)
        return "wrong number of registers in an mma operand for this shape";
    in->imm = pack(&sh);
    in->fn = h_mma_int;
    return NULL;
}

/* ---- wmma: load, store and mma on whole fragments (8-bit integers, s32 accumulators) ----
 *
 * The fragment layouts are the H100's (recorded by tests/cuda/wmma_int.cu), with g = lane/4,
 * t = lane%4 and e the byte of a 32-bit register:
 *   m16n16k16  A: register j (0..1) holds row g+8j, columns 4t+e; B: register j holds rows
 *              4t+e of column g+8j; C: element i holds row g+8(i%4/2), column 8(i/4)+2t+i%2.
 *   m32n8k16   A: register j (0..3) holds row g+8j, columns 4t+e; B: rows 4t+e of column g;
 *              C: element i holds row g+8(i/2), column 2t+i%2.
 *   m8n32k16   the transpose of m32n8k16: A: row g, columns 4t+e; B: register j holds rows
 *              4t+e of column g+8j; C: element i holds row 2t+i%2, column g+8(i/2).
 * Operands (a RowList): load: D registers, [address] (base + offset), stride; store:
 * [address], registers, stride; mma: D, A, B, C. */

enum { W16x16, W32x8, W8x32, W8x8x4, W16x16x8 };
enum { FR_A, FR_B, FR_C };

/* Row and column (of the fragment's own matrix: A is MxK, B KxN, C MxN) of element i. */
static void frag_pos(int shape, int fr, int lane, int i, int *r, int *c)
{
    int g = lane / 4, t = lane % 4, j = i / 4, e = i % 4;
    if (shape == W8x8x4) {   /* f64: as mma.m8n8k4 */
        if (fr == FR_A) { *r = g; *c = t; }
        else if (fr == FR_B) { *r = t; *c = g; }
        else { *r = g; *c = 2 * t + i; }
        return;
    }
    if (shape == W16x16x8 && fr != FR_C) {   /* tf32 (tests/cuda/wmma_more.cu) */
        if (fr == FR_A) { *r = g + 8 * (i % 2); *c = t + 4 * (i / 2); }
        else { *r = t + 4 * (i % 2); *c = g + 8 * (i / 2); }
        return;
    }
    if (fr == FR_A) {
        if (shape == W8x32) { *r = g; *c = 4 * t + e; }
        else { *r = g + 8 * j; *c = 4 * t + e; }
    } else if (fr == FR_B) {
        if (shape == W32x8) { *r = 4 * t + e; *c = g; }
        else { *r = 4 * t + e; *c = g + 8 * j; }
    } else if (shape == W16x16 || shape == W16x16x8) {
        *r = g + 8 * (i % 4 / 2);
        *c = 8 * (i / 4) + 2 * t + i % 2;
    } else if (shape == W32x8) {
        *r = g + 8 * (i / 2);
        *c = 2 * t + i % 2;
    } else {
        *r = 2 * t + i % 2;
        *c = g + 8 * (i / 2);
    }
}

/* f16/bf16 A and B fragments (16 elements of 16 bits, in pairs per register; recorded by
 * tests/cuda/wmma_half.cu, some elements held twice): element i, pair p = i%8/2, q = i%2. */
static void half_pos(int shape, int fr, int lane, int i, int *r, int *c)
{
    int g = lane / 4, t = lane % 4, q = i % 2, p = i % 8 / 2;
    if (fr == FR_A) {
        if (shape == W8x32) { *r = g; *c = 2 * t + q + 8 * (i % 4 / 2); }
        else { *r = g + 8 * (p & 1) + (shape == W32x8 ? 16 * (i / 8) : 0); *c = 2 * t + q + 8 * (p >> 1); }
    } else {
        if (shape == W32x8) { *r = 2 * t + q + 8 * (i % 4 / 2); *c = g; }
        else if (shape == W16x16) { *r = 2 * t + q + 8 * (p & 1); *c = g + 8 * (p >> 1); }
        else { *r = 2 * t + q + 8 * (p >> 1); *c = g + 8 * (p & 1) + 16 * (i / 8); }
    }
}

static const int wdims[5][3] = { {16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {8, 8, 4}, {16, 16, 8} };   /* M, N, K */

static int frag_elems(int shape, int fr)
{
    const int *d = wdims[shape];
    int rows = fr == FR_B ? d[2] : d[0], cols = fr == FR_A ? d[2] : d[1];
    return rows * cols / 32;
}

/* frag_pos and half_pos tabulated once for every shape, fragment, layout (1: half_pos) and
 * lane, with the largest row and column a lane's elements reach: the handlers looked each
 * element's place up per element, per lane, per instruction. */
typedef struct WPos { uint8_t r[16], c[16], maxr, maxc; } WPos;
static WPos wpos[5][3][2][WARP_SIZE];
static pthread_once_t wpos_once = PTHREAD_ONCE_INIT;

/* The same places as indices into a tile of 32 x 32 elements (row-major memory: r * 32 + c;
 * column-major: c * 32 + r), for wmma.load/store of a whole warp at one address and stride
 * (ls_tile): the memory rows are copied into the tile, the registers read from it. maxr and
 * maxc: the largest row and column of any lane; bij: every element of the (maxr+1) x
 * (maxc+1) box held exactly once (C and D: a store writes exactly the box). */
typedef struct WTile { uint16_t idx[2][16][WARP_SIZE]; uint8_t maxr, maxc, bij; } WTile;
static WTile wtile[5][3][2];

static void wpos_fill(void)
{
    for (int shape = 0; shape < 5; shape++)
        for (int fr = 0; fr < 3; fr++)
            for (int h = 0; h < 2; h++)
                for (int l = 0; l < WARP_SIZE; l++) {
                    WPos *P = &wpos[shape][fr][h][l];
                    int n = h ? 16 : frag_elems(shape, fr);
                    for (int i = 0; i < n && i < 16; i++) {
                        int rr, cc;
                        if (h) half_pos(shape, fr, l, i, &rr, &cc);
                        else frag_pos(shape, fr, l, i, &rr, &cc);
                        P->r[i] = (uint8_t)rr;
                        P->c[i] = (uint8_t)cc;
                        if (rr > P->maxr) P->maxr = (uint8_t)rr;
                        if (cc > P->maxc) P->maxc = (uint8_t)cc;
                    }
                }
    for (int shape = 0; shape < 5; shape++)
        for (int fr = 0; fr < 3; fr++)
            for (int h = 0; h < 2; h++) {
                WTile *T = &wtile[shape][fr][h];
                int n = h ? 16 : frag_elems(shape, fr), dup = 0;
                uint8_t held[32 * 32] = { 0 };
                for (int l = 0; l < WARP_SIZE; l++) {
                    const WPos *P = &wpos[shape][fr][h][l];
                    if (P->maxr > T->maxr) T->maxr = P->maxr;
                    if (P->maxc > T->maxc) T->maxc = P->maxc;
                    for (int i = 0; i < n && i < 16; i++) {
                        T->idx[0][i][l] = (uint16_t)(P->r[i] * 32 + P->c[i]);
                        T->idx[1][i][l] = (uint16_t)(P->c[i] * 32 + P->r[i]);
                        dup |= held[P->r[i] * 32 + P->c[i]]++;
                    }
                }
                T->bij = !dup && n * WARP_SIZE == (T->maxr + 1) * (T->maxc + 1);
            }
}

static const WPos *wpos_of(int shape, int fr, int half)
{
    pthread_once(&wpos_once, wpos_fill);
    return wpos[shape][fr][half];
}

/* Inst.imm of wmma: shape | fragment << 4 | column-major << 8 | op << 12 | signed A << 16 |
 * signed B << 17 | satfinite << 18 | element bytes << 20 */
#define W_SHAPE(v) ((int)((v) & 15))
#define W_FRAG(v) ((int)((v) >> 4 & 15))
#define W_COL(v) ((int)((v) >> 8 & 1))
#define W_OP(v) ((int)((v) >> 12 & 15))
#define W_SA(v) ((int)((v) >> 16 & 1))
#define W_SB(v) ((int)((v) >> 17 & 1))
#define W_SAT(v) ((int)((v) >> 18 & 1))
#define W_BYTES(v) ((int)((v) >> 20 & 15))
#define W_HALF(v) ((int)((v) >> 24 & 3))   /* 1: f16, 2: bf16 (A and B elements) */
#define W_ACCM(v) ((int)((v) >> 28 & 3))   /* f16 accumulators: 0 none, 1 C and D, TC_C16_D32, TC_C32_D16 */
#define W_TF32(v) ((int)((v) >> 27 & 1))   /* tf32 A and B */
enum { W_LOAD, W_STORE, W_MMA };

/* One element's bytes (1, 2, 4 or 8), with a size the compiler sees. */
static inline void copy_elem(void *dst, const void *src, int bytes)
{
    switch (bytes) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* Element e of a register's word (elements of `bytes` packed from the low bits) to or from
 * memory at p: little-endian, so a store writes the low bytes of the shifted word */
static inline __attribute__((always_inline)) void elem_move(uint8_t *p, uint64_t *word, int bytes, int e, int store)
{
    uint64_t x = 0;
    if (store) {
        x = *word >> (8 * bytes * e);
        copy_elem(p, &x, bytes);
    } else {
        copy_elem(&x, p, bytes);
        *word |= bytes == 8 ? x : x << (8 * bytes * e);
    }
}

/* A lane's fragment lies in [a0, a0 + span): when a0 is aligned and the span lies in the
 * allocation this thread's cache holds (global, or generic inside the arena), every element
 * passes mem_lane_ptr's inline path, which returns the address itself, so one check does for
 * all. Otherwise NULL, and each element goes through mem_lane_ptr as before: a fault is
 * named by the same element, at the same address. */
static inline uint8_t *wmma_span(Warp *w, int space, uint64_t a0, uint64_t span, int bytes)
{
    if (a0 & (uint64_t)(bytes - 1)) return NULL;
    if (space == SP_SHARED) {   /* shared_slow's bounds for every element: the block's bytes */
        const Cta *c = w->cta;
        uint64_t have = c ? c->shared_size : 0;
        return a0 < have && span <= have - a0 ? c->shared + a0 : NULL;
    }
    if (space != SP_GLOBAL &&
        !(space == SP_GENERIC && mem_in_arena_fast(a0) && mem_in_arena_fast(a0 + span - 1)))
        return NULL;
    return mem_cache_hit(a0, span) ? (uint8_t *)(uintptr_t)a0 : NULL;
}

/* The lanes of a wmma.load/store: element i of lane l at row P->r[i], column P->c[i] of the
 * matrix at a0 with leading dimension ld, in the element bytes and order (col) given, which
 * the callers pass as constants so that each common form compiles to its own plain loop.
 * whole: the host address of lane 0's a0 when every lane's fragment is known to lie in
 * checked memory at the same a0 and ld (then no lane checks anything); else each lane checks
 * its span, and where that fails each element goes through mem_lane_ptr as it always did. */
static inline __attribute__((always_inline)) int ls_lanes(Warp *w, const Inst *in, uint32_t mask,
                                                          const WPos *pos, const int n, const int bytes,
                                                          const int col, const int store,
                                                          const uint32_t *regs, const uint64_t *base,
                                                          const uint64_t *ld, uint8_t *whole)
{
    const int per = bytes == 8 ? 1 : 4 / bytes;
    FOR_LANES(mask, l) {
        uint64_t words[16];   /* the registers, 32 or 64 bits each */
        const WPos *P = &pos[l];
        uint64_t ldl = (uint32_t)ld[l], a0 = base[l] + (uint64_t)in->imm;
        uint8_t *host = whole;
        if (!host) {
            uint64_t last = col ? (uint64_t)P->maxc * ldl + P->maxr : (uint64_t)P->maxr * ldl + P->maxc;
            host = wmma_span(w, in->space, a0, (last + 1) * (uint64_t)bytes, bytes);
        }
        if (host) {   /* checked: a register at a time, its elements shifted in or out */
            _Pragma("GCC unroll 16") for (int k = 0; k < n / per; k++) {
                uint64_t *row = ROW(w, regs[k]) + l, word = store ? *row : 0;
                _Pragma("GCC unroll 4") for (int e = 0; e < per; e++) {
                    uint64_t rr = P->r[k * per + e], cc = P->c[k * per + e];
                    elem_move(host + (col ? cc * ldl + rr : rr * ldl + cc) * (uint64_t)bytes, &word, bytes, e, store);
                }
                if (!store) *row = word;
            }
            continue;
        }
        if (store)
            for (int k = 0; k < n / per; k++) words[k] = ROW(w, regs[k])[l] & (bytes == 8 ? ~0ull : 0xffffffffull);
        else
            memset(words, 0, sizeof words);
        for (int i = 0; i < n; i++) {
            uint64_t rr = P->r[i], cc = P->c[i];
            uint64_t off = col ? cc * ldl + rr : rr * ldl + cc;
            uint8_t *p;
            if (host) {
                p = host + off * (uint64_t)bytes;
            } else {
                uint64_t addr = a0 + off * (uint64_t)bytes;
                /* a generic address in global memory takes the inline path of mem_lane_ptr */
                int sp = in->space == SP_GENERIC && mem_is_global(addr) ? SP_GLOBAL : in->space;
                p = mem_lane_ptr(w, sp, addr, (unsigned)bytes, (unsigned)bytes, l, store ? ACC_WRITE : ACC_READ);
                if (!p) return STEP_FAULT;
            }
            if (store) copy_elem(p, (uint8_t *)&words[i / per] + (i % per) * bytes, bytes);
            else copy_elem((uint8_t *)&words[i / per] + (i % per) * bytes, p, bytes);
        }
        if (!store)
            for (int k = 0; k < n / per; k++) ROW(w, regs[k])[l] = words[k];
    }
    return STEP_NEXT;
}

/* A whole warp's wmma.load/store at one address and stride ld whose box of memory rows is
 * checked (host): the rows copied into a tile and the registers read from it, or the
 * registers written into it and the rows copied out. Each register's bits are those
 * ls_lanes gives; a store writes each element of the box once (the caller makes sure the
 * fragment covers it exactly and the rows do not overlap), so memory ends the same. */
static inline __attribute__((always_inline)) void ls_tile(Warp *w, const WTile *T, const int n, const int bytes,
                                                         const int col, const int store, const uint32_t *regs,
                                                         uint8_t *host, uint64_t ldl)
{
    const int per = bytes == 8 ? 1 : 4 / bytes;
    uint8_t buf[32 * 32 * 8];
    int mrows = col ? T->maxc + 1 : T->maxr + 1, mcols = col ? T->maxr + 1 : T->maxc + 1;
    if (!store)
        for (int m = 0; m < mrows; m++)
            memcpy(buf + (size_t)m * 32 * bytes, host + m * ldl * bytes, (size_t)mcols * bytes);
    for (int k = 0; k < n / per; k++) {
        uint64_t *row = ROW(w, regs[k]);
        for (int l = 0; l < WARP_SIZE; l++) {
            uint64_t word = store ? row[l] : 0;
            for (int e = 0; e < per; e++) {
                elem_move(buf + (size_t)T->idx[col][k * per + e][l] * bytes, &word, bytes, e, store);
            }
            if (!store) row[l] = word;
        }
    }
    if (store)
        for (int m = 0; m < mrows; m++)
            memcpy(host + m * ldl * bytes, buf + (size_t)m * 32 * bytes, (size_t)mcols * bytes);
}

/* ls_tile for m16n16k16's f16 A (row-major) and B (column-major), whose registers each hold
 * a pair of elements adjacent in memory: register k of lane l = 4g + t, p = k % 4, holds
 * word t + 4(p >> 1) of A's row g + 8(p & 1), or word t + 4(p & 1) of B's column
 * g + 8(p >> 1) (half_pos), so lanes 4g .. 4g+3 read 16 bytes in a row; each register
 * gets the word zero-extended, as elem_move leaves it (cudaTensorCoreGemm: 60% of wmma_ls's
 * instructions went to the per-element moves). */
static void ls_pairs16(Warp *w, const uint32_t *regs, const uint8_t *host, uint64_t ldl, int b)
{
    for (int k = 0; k < 8; k++) {
        int p = k & 3, hi = b ? p >> 1 : p & 1, wd = b ? p & 1 : p >> 1;
        uint64_t *row = ROW(w, regs[k]);
        for (int g = 0; g < 8; g++) {
            uint32_t v[4];
            memcpy(v, host + ((uint64_t)(g + 8 * hi) * ldl + 8 * (uint64_t)wd) * 2, sizeof v);
            for (int t = 0; t < 4; t++) row[4 * g + t] = v[t];
        }
    }
}

/* ls_tile for m16n16k16's f32 C and D in row-major memory: register i of lane 4g + t holds
 * row g + 8((i >> 1) & 1), column 8(i >> 2) + 2t + (i & 1) (frag_pos), so registers i and
 * i + 1 of lanes 4g .. 4g+3 are 8 f32 in a row, alternately. A store writes every element of
 * the 16 x 16 box once (the caller checked that the rows do not overlap). */
static void ls_acc16(Warp *w, const uint32_t *regs, uint8_t *host, uint64_t ldl, int store)
{
    for (int i = 0; i < 8; i += 2) {
        uint64_t *r0 = ROW(w, regs[i]), *r1 = ROW(w, regs[i + 1]);
        for (int g = 0; g < 8; g++) {
            uint8_t *m = host + ((uint64_t)(g + 8 * ((i >> 1) & 1)) * ldl + 8 * (uint64_t)(i >> 2)) * 4;
            uint32_t v[8];
            if (store) {
                for (int t = 0; t < 4; t++) { v[2 * t] = (uint32_t)r0[4 * g + t]; v[2 * t + 1] = (uint32_t)r1[4 * g + t]; }
                memcpy(m, v, sizeof v);
            } else {
                memcpy(v, m, sizeof v);
                for (int t = 0; t < 4; t++) { r0[4 * g + t] = v[2 * t]; r1[4 * g + t] = v[2 * t + 1]; }
            }
        }
    }
}

static int wmma_ls(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int shape = W_SHAPE(v), fr = W_FRAG(v), col = W_COL(v), bytes = W_BYTES(v), store = W_OP(v) == W_STORE;
    int half = W_HALF(v) && fr != FR_C;
    const uint32_t *regs = store ? rl->rows + rl->count[0] : rl->rows;
    uint32_t stride_row = store ? rl->rows[rl->count[0] + rl->count[1]] : rl->rows[rl->count[0]];
    /* f16 A/B fragments hold 16 elements (some twice), bf16 ones each element once */
    int n = half ? (W_HALF(v) == 2 ? frag_elems(shape, fr) : 16) : frag_elems(shape, fr);
    const uint64_t *base = ROW(w, in->base), *ld = ROW(w, stride_row);
    const WPos *pos = wpos_of(shape, fr, half);
    /* the usual case: every lane the same address and stride, the whole tile checked once */
    uint8_t *whole = NULL;
    if (mask == 0xffffffffu) {
        int same = 1;
        for (int l = 1; l < WARP_SIZE; l++) same &= base[l] == base[0] && (uint32_t)ld[l] == (uint32_t)ld[0];
        if (same) {
            uint64_t ldl = (uint32_t)ld[0], a0 = base[0] + (uint64_t)in->imm, last = 0;
            for (int l = 0; l < WARP_SIZE; l++) {
                uint64_t e = col ? (uint64_t)pos[l].maxc * ldl + pos[l].maxr : (uint64_t)pos[l].maxr * ldl + pos[l].maxc;
                last = e > last ? e : last;
            }
            whole = wmma_span(w, in->space, a0, (last + 1) * (uint64_t)bytes, bytes);
            /* the box of rows lies in the span checked (the corner is some lane's), and a
             * store's rows do not overlap */
            const WTile *T = &wtile[shape][fr][half];
            uint64_t mrows = col ? T->maxc + 1u : T->maxr + 1u, mcols = col ? T->maxr + 1u : T->maxc + 1u;
            if (whole && n == (half ? 16 : frag_elems(shape, fr)) && (mrows - 1) * ldl + mcols - 1 <= last &&
                (!store || (T->bij && ldl >= mcols))) {
#define LT(N, B, C, S) do { ls_tile(w, T, N, B, C, S, regs, whole, ldl); return STEP_NEXT; } while (0)
                if (shape == W16x16 && half && W_HALF(v) == 1 && bytes == 2 && !store && n == 16 &&
                    col == (fr == FR_B)) {
                    ls_pairs16(w, regs, whole, ldl, fr == FR_B);
                    return STEP_NEXT;
                }
                if (shape == W16x16 && fr == FR_C && bytes == 4 && n == 8 && !col) {
                    ls_acc16(w, regs, whole, ldl, store);
                    return STEP_NEXT;
                }
                if (bytes == 2 && !store && n == 16) { if (col) LT(16, 2, 1, 0); LT(16, 2, 0, 0); }
                if (bytes == 4 && n == 8) {
                    if (store) { if (col) LT(8, 4, 1, 1); LT(8, 4, 0, 1); }
                    if (col) LT(8, 4, 1, 0);
                    LT(8, 4, 0, 0);
                }
                LT(n, bytes, col, store);
#undef LT
            }
        }
    }
    /* the common forms with their element count known too, so that the loops unroll:
     * m16n16k16's f16 A and B (16 elements) and f32 C and D (8) */
#define LS(N, B, C, S) return ls_lanes(w, in, mask, pos, N, B, C, S, regs, base, ld, whole)
    if (bytes == 2 && !store && n == 16) { if (col) LS(16, 2, 1, 0); LS(16, 2, 0, 0); }
    if (bytes == 4 && store && n == 8) { if (col) LS(8, 4, 1, 1); LS(8, 4, 0, 1); }
    if (bytes == 4 && !store && n == 8) { if (col) LS(8, 4, 1, 0); LS(8, 4, 0, 0); }
    if (bytes == 2 && !store) { if (col) LS(n, 2, 1, 0); LS(n, 2, 0, 0); }
    if (bytes == 4 && store) { if (col) LS(n, 4, 1, 1); LS(n, 4, 0, 1); }
    if (bytes == 4 && !store) { if (col) LS(n, 4, 1, 0); LS(n, 4, 0, 0); }
    LS(n, bytes, col, store);
#undef LS
}

/* Where each element of the f16 m16n16k16 A, B and C fragments is read from: register
 * (of the fragment's list), lane and bit offset, per element of A (row-major), B (B[k][j],
 * k-major) and C. An element held twice comes from the holder wmma_mma_half's loops write
 * last (lanes ascending, then registers), so both paths read the same bits. wsrc_ok: every
 * element has a holder (else the fast path is never taken). */
static uint16_t wsrc[3][256];   /* A, B: index into uint16_t[8][32][2]; C: into uint32_t[8][32] */
static uint8_t wdst[8][WARP_SIZE];   /* D's register i of lane l: element (r * 16 + c) of D */
static int wsrc_ok;
static pthread_once_t wsrc_once = PTHREAD_ONCE_INIT;

static void wsrc_fill(void)
{
    const WPos *pa = wpos_of(W16x16, FR_A, 1), *pb = wpos_of(W16x16, FR_B, 1), *pc = wpos_of(W16x16, FR_C, 0);
    uint8_t seen[3][256] = { { 0 } };
    for (int l = 0; l < WARP_SIZE; l++) {
        for (int i = 0; i < 16; i++) {
            int ia = pa[l].r[i] * 16 + pa[l].c[i], ib = pb[l].r[i] * 16 + pb[l].c[i];
            wsrc[FR_A][ia] = wsrc[FR_B][ib] = (uint16_t)(((i / 2) * WARP_SIZE + l) * 2 + i % 2);
            seen[FR_A][ia] = seen[FR_B][ib] = 1;
        }
        for (int i = 0; i < 8; i++) {
            int ic = pc[l].r[i] * 16 + pc[l].c[i];
            wsrc[FR_C][ic] = (uint16_t)(i * WARP_SIZE + l);
            wdst[i][l] = (uint8_t)ic;
            seen[FR_C][ic] = 1;
        }
    }
    wsrc_ok = 1;
    for (int f = 0; f < 3; f++)
        for (int e = 0; e < 256; e++) wsrc_ok &= seen[f][e];
}

/* wmma.mma's f16 m16n16k16 with f32 C and D (wmmaGemm, cudaTensorCoreGemm): the fragments'
 * registers copied out (their low 32 bits), the matrices gathered from them through wsrc,
 * the tile computed in vectors (tc_tile16_f16), D scattered through wdst. Returns 0 when it
 * did the instruction, 1 when it did nothing (an Inf or NaN: the general path). */
static int wmma_f16_tile(Warp *w, const RowList *rl, uint32_t mask)
{
    pthread_once(&wsrc_once, wsrc_fill);
    if (!wsrc_ok) return 1;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t ra[8][WARP_SIZE], rb[8][WARP_SIZE], rc[8 * WARP_SIZE];
    for (int r = 0; r < 8; r++) {
        const uint64_t *xa = ROW(w, A[r]), *xb = ROW(w, B[r]), *xc = ROW(w, C[r]);
        for (int l = 0; l < WARP_SIZE; l++) {
            ra[r][l] = (uint32_t)xa[l];
            rb[r][l] = (uint32_t)xb[l];
            rc[r * WARP_SIZE + l] = (uint32_t)xc[l];
        }
    }
    uint16_t a[256], b[256], ha[8 * WARP_SIZE * 2], hb[8 * WARP_SIZE * 2];
    uint32_t cf[256];
    memcpy(ha, ra, sizeof ha);   /* little-endian: the low half of a register first */
    memcpy(hb, rb, sizeof hb);
    for (int e = 0; e < 256; e++) {
        a[e] = ha[wsrc[FR_A][e]];
        b[e] = hb[wsrc[FR_B][e]];
        cf[e] = rc[wsrc[FR_C][e]];
    }
    if (tc_tile16_f16((const uint16_t (*)[16])a, (const uint16_t (*)[16])b, (uint32_t (*)[16])cf)) return 1;
    for (int i = 0; i < 8; i++) {
        uint64_t *d = ROW(w, D[i]);
        if (mask == FULL_MASK)
            for (int l = 0; l < WARP_SIZE; l++) d[l] = cf[wdst[i][l]];
        else
            FOR_LANES(mask, l) d[l] = cf[wdst[i][l]];
    }
    return 0;
}

/* wmma.mma's f16 m16n16k16 with f32 C and D where no term is cut (exact_rows_fn): A's and
 * B's registers read as the pairs of f16 they hold, without tables. In the m16n16k16 f16
 * fragments (half_pos, frag_pos) register k of lane l = 4g + t holds, for p = k % 4: A's
 * row g + 8(p & 1), columns 2t + 8(p >> 1) + 0..1 (a pair: word t + 4(p >> 1) of the row);
 * B's column g + 8(p >> 1), rows 2t + 8(p & 1) + 0..1; registers k and k + 4 hold the same
 * elements, and the later one is read (as wsrc does). C's and D's register i holds row
 * g + 8((i >> 1) & 1), column 8(i >> 2) + 2t + (i & 1). Returns 1 (nothing done) where the
 * exact tile does not apply. */
static int wmma_f16_exact(Warp *w, const RowList *rl, uint32_t mask)
{
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    ExactCache *cache = tc_thread_scratch(TC_SCRATCH_EXACT, sizeof(ExactCache));
    if (!cache) return 1;
    uint32_t c[16][16];
    const uint64_t *ar[4], *br[4], *cr[8];
    uint64_t *dr[8];
    for (int r = 0; r < 8; r++) {
        if (r < 4) { ar[r] = ROW(w, A[4 + r]); br[r] = ROW(w, B[4 + r]); }
        cr[r] = ROW(w, C[r]);
        dr[r] = ROW(w, D[r]);
    }
    pthread_once(&exact_rows_once, exact_rows_init);
    if (exact_rows_fn(cache, ar, br, cr, mask == FULL_MASK ? dr : NULL, c)) return 1;
    if (mask == FULL_MASK) return 0;
    for (int i = 0; i < 8; i++) {
        uint64_t *d = ROW(w, D[i]);
        const uint32_t *src = c[8 * ((i >> 1) & 1)] + 8 * (i >> 2) + (i & 1);
        FOR_LANES(mask, l) d[l] = src[16 * (l / 4) + 2 * (l % 4)];
    }
    return 0;
}

static int wmma_mma_half(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int shape = W_SHAPE(v), K = wdims[shape][2], accm = W_ACCM(v), tf32 = W_TF32(v);
    int c16 = TC_ACC_C16(accm), d16 = TC_ACC_D16(accm);
    int f = tf32 ? TC_TF32 : W_HALF(v) == 2 ? TC_BF16 : TC_F16;
    if (f == TC_F16 && shape == W16x16 && !accm && rl->count[0] == 8 && rl->count[1] == 8 &&
        rl->count[2] == 8 && rl->count[3] == 8 && (!wmma_f16_exact(w, rl, mask) || !wmma_f16_tile(w, rl, mask)))
        return STEP_NEXT;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t a[32][16], bt[32][16];   /* B transposed: bt[n][k] */
    uint32_t c[32][32];
    const WPos *pa = wpos_of(shape, FR_A, !tf32), *pb = wpos_of(shape, FR_B, !tf32), *pc = wpos_of(shape, FR_C, 0);
    int na = tf32 ? 4 : 2 * (int)rl->count[1], nb = tf32 ? 4 : 2 * (int)rl->count[2];
    for (int l = 0; l < WARP_SIZE; l++) {
        const WPos *P = &pa[l], *Q = &pb[l], *R = &pc[l];
        if (tf32) {
            for (int i = 0; i < 4; i++) {
                a[P->r[i]][P->c[i]] = (uint32_t)ROW(w, A[i])[l];
                bt[Q->c[i]][Q->r[i]] = (uint32_t)ROW(w, B[i])[l];
            }
        } else {   /* two elements a register, each register read once; i ascending, so a
                    * repeated element is the later register's, as before */
            for (int i = 0; i < na; i += 2) {
                uint32_t u = (uint32_t)ROW(w, A[i / 2])[l];
                a[P->r[i]][P->c[i]] = u & 0xffff;
                a[P->r[i + 1]][P->c[i + 1]] = u >> 16;
            }
            for (int i = 0; i < nb; i += 2) {
                uint32_t u = (uint32_t)ROW(w, B[i / 2])[l];
                bt[Q->c[i]][Q->r[i]] = u & 0xffff;
                bt[Q->c[i + 1]][Q->r[i + 1]] = u >> 16;
            }
        }
        for (int i = 0; i < 8; i++) {   /* f16 accumulators: two per register, low half first */
            uint32_t u = (uint32_t)ROW(w, C[c16 ? i / 2 : i])[l];
            c[R->r[i]][R->c[i]] = c16 ? (u >> (16 * (i % 2)) & 0xffff) : u;
        }
    }
    /* 32 rows of A and 32 columns of B, decoded once each: on the heap */
    TcRow *dec = tc_thread_scratch(TC_SCRATCH_WMMA, sizeof(TcRow) * 64);
    if (!dec)
        return warp_fault(w, 0, EMU_ERR_MEMORY_ALLOCATION, "wmma: out of host memory");
    int M = wdims[shape][0], N = wdims[shape][1];
    for (int i = 0; i < M; i++) tc_row_decode(a[i], K, f, dec + i);
    for (int i = 0; i < N; i++) tc_row_decode(bt[i], K, f, dec + 32 + i);
    if (!tf32) tc_row_tile16(dec, M, N, f, c, accm);   /* K is 16: c becomes D */
    FOR_LANES(mask, l) {
        const WPos *R = &pc[l];
        uint32_t out[8];
        for (int i = 0; i < 8; i++) {
            int rr = R->r[i], cc = R->c[i];
            const TcRow *ar = dec + rr, *bc = dec + 32 + cc;
            if (tf32)   /* two HMMA.1684 steps, k 0-3 then 4-7 onto the first's f32 result */
                out[i] = tc_row_dot(ar, bc, 4, 4, f, tc_row_dot(ar, bc, 0, 4, f, c[rr][cc], accm), accm);
            else
                out[i] = c[rr][cc];
        }
        for (int i = 0; i < (d16 ? 4 : 8); i++)
            ROW(w, D[i])[l] = d16 ? (out[2 * i] | out[2 * i + 1] << 16) : out[i];
    }
    return STEP_NEXT;
}

static int wmma_mma_f64(Warp *w, const Inst *in, uint32_t mask)
{
    return h_mma_f64(w, in, mask);   /* the same fragments and arithmetic as mma.m8n8k4 */
}

static int wmma_mma(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int shape = W_SHAPE(v), M = wdims[shape][0], N = wdims[shape][1], K = wdims[shape][2];
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    int16_t a[32][16], b[16][32];
    int64_t acc[32][32];
    for (int l = 0; l < WARP_SIZE; l++) {
        int rr, cc;
        for (int i = 0; i < frag_elems(shape, FR_A); i++) {
            frag_pos(shape, FR_A, l, i, &rr, &cc);
            a[rr][cc] = (int16_t)elem((uint32_t)ROW(w, A[i / 4])[l], i % 4, 8, W_SA(v));
        }
        for (int i = 0; i < frag_elems(shape, FR_B); i++) {
            frag_pos(shape, FR_B, l, i, &rr, &cc);
            b[rr][cc] = (int16_t)elem((uint32_t)ROW(w, B[i / 4])[l], i % 4, 8, W_SB(v));
        }
        for (int i = 0; i < frag_elems(shape, FR_C); i++) {
            frag_pos(shape, FR_C, l, i, &rr, &cc);
            acc[rr][cc] = (int32_t)ROW(w, C[i])[l];
        }
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int64_t s = 0;
            for (int k = 0; k < K; k++) s += (int64_t)a[i][k] * b[k][j];
            acc[i][j] += s;
        }
    FOR_LANES(mask, l) {
        for (int i = 0; i < frag_elems(shape, FR_C); i++) {
            int rr, cc;
            frag_pos(shape, FR_C, l, i, &rr, &cc);
            int64_t x = acc[rr][cc];
            if (W_SAT(v)) x = x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
            ROW(w, D[i])[l] = (uint32_t)(int32_t)(uint32_t)x;
        }
    }
    return STEP_NEXT;
}

/* ---- wmma on 4-bit integers (m8n8k32) and single bits (m8n8k128) ----
 * Recorded by tests/cuda/wmma_subbyte.cu: A (row-major) and B (column-major) fragments are
 * one register, the 32-bit word t of row (column) g in memory: elements tE .. tE+E-1 (E = 8
 * or 32, the lowest element in the lowest bits); C and D hold row g, columns 2t and 2t+1.
 * Products are exact (b1: popcount of a xor / and b). RowList.cfg: op | fragment << 4 |
 * column-major << 8 | bits << 12 (4 or 1) | a signed << 16 | b signed << 17 | b1 and << 18.
 * The stride is in elements. */
#define WS_OP(v) ((int)((v) & 15))
#define WS_FR(v) ((int)((v) >> 4 & 15))
#define WS_COL(v) ((int)((v) >> 8 & 1))
#define WS_BITS(v) ((int)((v) >> 12 & 15))

static int wmma_sub_ls(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int op = WS_OP(v), fr = WS_FR(v), col = WS_COL(v), bits = WS_BITS(v), store = op == W_STORE;
    const uint32_t *regs = store ? rl->rows + rl->count[0] : rl->rows;
    uint32_t stride_row = store ? rl->rows[rl->count[0] + rl->count[1]] : rl->rows[rl->count[0]];
    const uint64_t *base = ROW(w, in->base), *ld = ROW(w, stride_row);
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        uint64_t a0 = base[l] + (uint64_t)in->imm;
        if (fr != FR_C) {   /* one word: row (A) or column (B) g, word t */
            uint64_t rowbits = (uint64_t)(uint32_t)ld[l] * (uint64_t)bits;
            uint64_t addr = a0 + (uint64_t)g * rowbits / 8 + 4 * (uint64_t)t;
            int sp = in->space == SP_GENERIC && mem_is_global(addr) ? SP_GLOBAL : in->space;
            uint32_t *p = mem_lane_ptr(w, sp, addr, 4, 4, l, ACC_READ);
            if (!p) return STEP_FAULT;
            ROW(w, regs[0])[l] = *p;
            continue;
        }
        for (int i = 0; i < 2; i++) {   /* row g, column 2t + i */
            uint64_t rr = (uint64_t)g, cc = (uint64_t)(2 * t + i), ldv = (uint32_t)ld[l];
            uint64_t addr = a0 + 4 * (col ? cc * ldv + rr : rr * ldv + cc);
            int sp = in->space == SP_GENERIC && mem_is_global(addr) ? SP_GLOBAL : in->space;
            uint32_t *p = mem_lane_ptr(w, sp, addr, 4, 4, l, store ? ACC_WRITE : ACC_READ);
            if (!p) return STEP_FAULT;
            if (store) *p = (uint32_t)ROW(w, regs[i])[l];
            else ROW(w, regs[i])[l] = *p;
        }
    }
    return STEP_NEXT;
}

static int wmma_sub_mma(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int bits = WS_BITS(v), sa = (int)(v >> 16 & 1), sb = (int)(v >> 17 & 1), band = (int)(v >> 18 & 1);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    uint32_t a[8][4], b[8][4];   /* a[row][word], b[column][word] */
    int32_t c[8][8];
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        a[g][t] = (uint32_t)ROW(w, A[0])[l];
        b[g][t] = (uint32_t)ROW(w, B[0])[l];
        c[g][2 * t] = (int32_t)ROW(w, C[0])[l];
        c[g][2 * t + 1] = (int32_t)ROW(w, C[1])[l];
    }
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int i = 0; i < 2; i++) {
            int n = 2 * t + i;
            int64_t sum = c[g][n];
            for (int word = 0; word < 4; word++) {
                if (bits == 1) {
                    uint32_t x = band ? (a[g][word] & b[n][word]) : (a[g][word] ^ b[n][word]);
                    sum += popcount32(x);
                    continue;
                }
                for (int e = 0; e < 8; e++) {
                    int32_t xa = (int32_t)(a[g][word] >> (4 * e) & 15), xb = (int32_t)(b[n][word] >> (4 * e) & 15);
                    if (sa && xa > 7) xa -= 16;
                    if (sb && xb > 7) xb -= 16;
                    sum += (int64_t)xa * xb;
                }
            }
            ROW(w, D[i])[l] = (uint32_t)(int32_t)(uint32_t)sum;
        }
    }
    return STEP_NEXT;
}

static const char *bind_wmma_sub(Inst *in, const InstDesc *d, RowList *rl, int op, int bits)
{
    int64_t cfg = op | (int64_t)bits << 12;
    if (op == W_MMA) {
        if (d->ntypes != 4 || d->types[0] != TY_S32 || d->types[3] != TY_S32)
            return "sub-byte wmma.mma is .s32.atype.btype.s32";
        int ta = d->types[1], tb = d->types[2];
        if (bits == 4 ? !((ta == TY_S4 || ta == TY_U4) && (tb == TY_S4 || tb == TY_U4)) : (ta != TY_B1 || tb != TY_B1))
            return "wmma m8n8k32 takes .s4/.u4, m8n8k128 .b1";
        if (bits == 1 && (!desc_has(d, MOD_POPC) || !(desc_has(d, MOD_XOR) || desc_has(d, MOD_AND))))
            return "b1 wmma.mma needs .xor.popc or .and.popc";
        if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "sub-byte wmma.mma is .row.col";
        if (rl->count[0] != 2 || rl->count[1] != 1 || rl->count[2] != 1 || rl->count[3] != 2)
            return "sub-byte wmma.mma takes {d0, d1}, {a}, {b}, {c0, c1}";
        cfg |= (int64_t)(ta == TY_S4) << 16 | (int64_t)(tb == TY_S4) << 17 | (int64_t)desc_has(d, MOD_AND) << 18;
        rl->cfg = cfg;
        in->fn = wmma_sub_mma;
        return NULL;
    }
    int fr = desc_has(d, MOD_A) ? FR_A : desc_has(d, MOD_B) ? FR_B : (desc_has(d, MOD_C) || desc_has(d, MOD_D)) ? FR_C : -1;
    if (fr < 0) return "wmma.load needs .a, .b or .c; wmma.store needs .d";
    if (op == W_STORE && fr != FR_C) return "wmma.store stores .d fragments";
    if (d->ntypes != 1) return "wmma.load/store need one type";
    int t0 = d->types[0];
    if (fr == FR_C ? t0 != TY_S32 : bits == 4 ? (t0 != TY_S4 && t0 != TY_U4) : t0 != TY_B1)
        return "sub-byte wmma fragments are .s4/.u4 (m8n8k32) or .b1 (m8n8k128), accumulators .s32";
    if (fr == FR_A && !desc_has(d, MOD_ROW)) return "sub-byte wmma loads A row-major (.row)";
    if (fr == FR_B && !desc_has(d, MOD_COL)) return "sub-byte wmma loads B column-major (.col)";
    if (fr == FR_C && !desc_has(d, MOD_ROW) && !desc_has(d, MOD_COL)) return "wmma.load/store need .row or .col";
    if (!d->has_addr) return "wmma.load/store need an address [a]";
    int sp = d->space;
    if (sp != SP_NONE && sp != SP_GLOBAL && sp != SP_SHARED) return "wmma.load/store address global or shared memory";
    in->space = sp == SP_NONE ? SP_GENERIC : (uint8_t)sp;
    int ri = op == W_STORE ? 1 : 0;
    if (rl->count[ri] != (fr == FR_C ? 2u : 1u)) return "wrong number of registers for this wmma fragment";
    if (rl->count[ri + (op == W_STORE ? 1 : 2)] != 1) return "wmma.load/store need the stride operand";
    rl->cfg = cfg | (int64_t)fr << 4 | (int64_t)desc_has(d, MOD_COL) << 8;
    in->fn = wmma_sub_ls;
    return NULL;
}

const char *bind_wmma(Inst *in, const InstDesc *d)
{
    RowList *rl = in->aux;
    if (!rl) return "wmma needs its operands";
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "wmma needs .sync.aligned";
    int shape = desc_has(d, MOD_M16N16K16) ? W16x16 : desc_has(d, MOD_M32N8K16) ? W32x8 :
                desc_has(d, MOD_M8N32K16) ? W8x32 : desc_has(d, MOD_M8N8K4) ? W8x8x4 :
                desc_has(d, MOD_M16N16K8) ? W16x16x8 : -1;
    int f64 = d->ntypes >= 1 && d->types[0] == TY_F64;

    int op = desc_has(d, MOD_LOAD) ? W_LOAD : desc_has(d, MOD_STORE) ? W_STORE : desc_has(d, MOD_MMA) ? W_MMA : -1;
    if (op < 0) return "wmma needs .load, .store or .mma";
    if (desc_has(d, MOD_M8N8K32)) return bind_wmma_sub(in, d, rl, op, 4);
    if (desc_has(d, MOD_M8N8K128)) return bind_wmma_sub(in, d, rl, op, 1);
    /* f16/bf16 inputs with f32 or (f16) f16 accumulators, and tf32 (m16n16k8): load/store
     * .f16/.bf16/.tf32 (a, b) or .f32/.f16 (c, d); mma .dtype.ctype (f16 inputs),
     * .f32.bf16.bf16.f32 or .f32.tf32.tf32.f32 */
    int half = 0, accm = 0, tf32 = shape == W16x16x8;
    if (!f64 && shape >= 0 && shape != W8x8x4) {
        int t0 = d->ntypes ? d->types[0] : 0, nt = d->ntypes;
        if (tf32) {
            if (op == W_MMA && nt == 4 && t0 == TY_F32 && d->types[1] == TY_TF32 && d->types[2] == TY_TF32 && d->types[3] == TY_F32) half = 1;
            else if (op != W_MMA && nt == 1 && (t0 == TY_TF32 || t0 == TY_F32)) half = 1;
            else return "wmma m16n16k8 is tf32 with f32 accumulators: .tf32 fragments, .f32 accumulators, mma .f32.tf32.tf32.f32";
        } else if (op == W_MMA && nt == 2 && (t0 == TY_F32 || t0 == TY_F16) &&
                   (d->types[1] == TY_F32 || d->types[1] == TY_F16)) {   /* .dtype.ctype */
            half = 1;
            int t1 = d->types[1];
            accm = t0 == TY_F16 ? (t1 == TY_F16 ? 1 : TC_C32_D16) : (t1 == TY_F16 ? TC_C16_D32 : 0);
        } else if (op == W_MMA && nt == 4 && t0 == TY_F32 && d->types[1] == TY_BF16 && d->types[2] == TY_BF16 && d->types[3] == TY_F32) {
            half = 2;
        } else if (op != W_MMA && nt == 1 && (t0 == TY_F16 || t0 == TY_BF16 || t0 == TY_F32)) {
            half = t0 == TY_BF16 ? 2 : 1;
        }
    }
    if (half) {
        if (op == W_MMA) {
            int na = tf32 ? 4 : half == 2 ? frag_elems(shape, FR_A) / 2 : 8;
            int nb = tf32 ? 4 : half == 2 ? frag_elems(shape, FR_B) / 2 : 8;
            int nd = TC_ACC_D16(accm) ? 4 : 8, nc = TC_ACC_C16(accm) ? 4 : 8;
            if (rl->count[0] != nd || rl->count[1] != na || rl->count[2] != nb || rl->count[3] != nc)
                return "wrong number of registers in a wmma.mma operand for this shape and type";
            rl->cfg = shape | (int64_t)op << 12 | (int64_t)half << 24 | (int64_t)tf32 << 27 | (int64_t)accm << 28;
            in->fn = wmma_mma_half;
            return NULL;
        }
        int frh = desc_has(d, MOD_A) ? FR_A : desc_has(d, MOD_B) ? FR_B : (desc_has(d, MOD_C) || desc_has(d, MOD_D)) ? FR_C : -1;
        if (frh < 0) return "wmma.load needs .a, .b or .c; wmma.store needs .d";
        int t0 = d->types[0];
        if (frh == FR_C ? (t0 != TY_F32 && (t0 != TY_F16 || tf32)) : (t0 == TY_F32))
            return "wmma fragments are .f16/.bf16/.tf32, accumulators .f32 or (f16 inputs) .f16";
        if (op == W_STORE && frh != FR_C) return "wmma.store stores .d fragments";
        if (!desc_has(d, MOD_ROW) && !desc_has(d, MOD_COL)) return "wmma.load/store need .row or .col";
        if (!d->has_addr) return "wmma.load/store need an address [a]";
        int sp = d->space;
        if (sp != SP_NONE && sp != SP_GLOBAL && sp != SP_SHARED) return "wmma.load/store address global or shared memory";
        in->space = sp == SP_NONE ? SP_GENERIC : (uint8_t)sp;
        int ri = op == W_STORE ? 1 : 0;
        int bytes = frh == FR_C ? (t0 == TY_F16 ? 2 : 4) : tf32 ? 4 : 2;
        int nregs = frh == FR_C ? 8 * bytes / 4 : tf32 ? 4 : half == 2 ? frag_elems(shape, frh) / 2 : 8;
        if (rl->count[ri] != nregs) return "wrong number of registers for this wmma fragment";
        if (rl->count[ri + (op == W_STORE ? 1 : 2)] != 1) return "wmma.load/store need the stride operand";
        rl->cfg = shape | (int64_t)op << 12 | (int64_t)frh << 4 | (int64_t)desc_has(d, MOD_COL) << 8 |
                  (int64_t)bytes << 20 | (int64_t)(tf32 ? 0 : half) << 24;
        in->fn = wmma_ls;
        return NULL;
    }
    for (int i = 0; i < d->ntypes; i++)
        if (f64 ? d->types[i] != TY_F64 : (d->types[i] != TY_S8 && d->types[i] != TY_U8 && d->types[i] != TY_S32))
            return "unsupported wmma type combination";
    if (f64 != (shape == W8x8x4)) return "wmma on f64 is m8n8k4; on 8-bit integers m16n16k16, m32n8k16 or m8n32k16";
    if (shape < 0) return "unsupported wmma shape";
    int64_t cfg = shape | (int64_t)op << 12;
    if (op == W_MMA && f64) {
        if (desc_has(d, MOD_RZ) || desc_has(d, MOD_RM) || desc_has(d, MOD_RP))
            return "f64 wmma.mma with .rz/.rm/.rp is not implemented (.rn is)";
        if (d->ntypes != 4 || rl->count[0] != 2 || rl->count[1] != 1 || rl->count[2] != 1 || rl->count[3] != 2)
            return "f64 wmma.mma m8n8k4 takes {d0, d1}, {a}, {b}, {c0, c1}";
        rl->cfg = cfg;
        in->fn = wmma_mma_f64;
        return NULL;
    }
    if (op == W_MMA) {
        if (d->ntypes != 4 || d->types[0] != TY_S32 || d->types[3] != TY_S32)
            return "wmma.mma on integers: .s32.atype.btype.s32";
        cfg |= (int64_t)(d->types[1] == TY_S8) << 16 | (int64_t)(d->types[2] == TY_S8) << 17 |
               (int64_t)desc_has(d, MOD_SATFINITE) << 18;
        if (rl->count[0] != frag_elems(shape, FR_C) || rl->count[1] != frag_elems(shape, FR_A) / 4 ||
            rl->count[2] != frag_elems(shape, FR_B) / 4 || rl->count[3] != frag_elems(shape, FR_C))
            return "wrong number of registers in a wmma.mma operand for this shape";
        rl->cfg = cfg;
        in->fn = wmma_mma;
        return NULL;
    }
    int fr = desc_has(d, MOD_A) ? FR_A : desc_has(d, MOD_B) ? FR_B :
             (desc_has(d, MOD_C) || desc_has(d, MOD_D)) ? FR_C : -1;
    if (fr < 0) return "wmma.load needs .a, .b or .c; wmma.store needs .d";
    if (op == W_STORE && fr != FR_C) return "wmma.store stores .d fragments";
    if (!desc_has(d, MOD_ROW) && !desc_has(d, MOD_COL)) return "wmma.load/store need .row or .col";
    if (d->ntypes != 1) return "wmma.load/store need one type";
    int bytes = f64 ? 8 : fr == FR_C ? 4 : 1;
    if (!f64 && (fr == FR_C) != (d->types[0] == TY_S32)) return "8-bit fragments are .s8/.u8, accumulators .s32";
    if (!d->has_addr) return "wmma.load/store need an address [a]";
    int sp = d->space;
    if (sp != SP_NONE && sp != SP_GLOBAL && sp != SP_SHARED) return "wmma.load/store address global or shared memory";
    in->space = sp == SP_NONE ? SP_GENERIC : (uint8_t)sp;
    int nregs = bytes == 8 ? frag_elems(shape, fr) : frag_elems(shape, fr) / (4 / bytes);
    int ri = op == W_STORE ? 1 : 0;
    if (rl->count[ri] != nregs) return "wrong number of registers for this wmma fragment";
    if (rl->count[ri + (op == W_STORE ? 1 : 2)] != 1) return "wmma.load/store need the stride operand";
    cfg |= (int64_t)fr << 4 | (int64_t)desc_has(d, MOD_COL) << 8 | (int64_t)bytes << 20;
    rl->cfg = cfg;
    in->fn = wmma_ls;
    return NULL;
}
