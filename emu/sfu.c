/* sfu.c - the H100's approximate functions (its MUFU unit), bit for bit.
 *
 * Measured on an H100 (tests/gpu/sfu/, docs/sfu.md):
 *   - rcp.approx, rsqrt.approx and sqrt.approx depend only on the mantissa (and the
 *     exponent's parity, for the square roots);
 *   - ex2.approx cuts |x| to 23 fractional bits (towards zero). It then looks 2^f up for
 *     x >= 0, and 2^-f in a second table for x < 0;
 *   - lg2.approx's results for [1,2) and [0.5,1) are tables (8 MiB each, unpacked), and the
 *     other binades follow from the first one;
 *   - the non-.ftz forms and the divisions are these lookups, scaled around subnormals.
 *   - sin/cos.approx take t = x / 2pi cut towards zero (the FMUL.RZ ptxas puts before
 *     MUFU), and MUFU.SIN/COS then depend only on floor(|t| 2^25) mod 2^25 and t's sign: one
 *     table of 2^24 sines gives both (cos is the sine a quarter turn on);
 *   - tanh.approx.f32 is x below 2^-8 and +-1 from 8 on; in between it ignores the low 2-6
 *     bits of x's mantissa (by binade) and is a table of the rest;
 *   - rcp/rsqrt.approx.ftz.f64 (MUFU.RCP64H/RSQ64H) are the f32 tables read at the top 20
 *     mantissa bits and cut to 20 bits; rsqrt.approx.f64 is ptxas's refinement of that;
 *   - ex2.approx on f16/bf16 is the f32 ex2 cut to 16 bits; tanh on f16/bf16 is a table
 *     of every input.
 * ex2, lg2, rcp, rsqrt and sqrt (both forms each), sin, cos (both forms each) and tanh
 * were compared with the GPU on every one of the 2^32 inputs: all agree (docs/sfu.md).
 * The tables (emu/sfu_tables.zst and sfu_tables2.zst, linked in by sfu_blob.S) hold the
 * recorded results. The first file's tables are kept as one value per 64 entries plus a
 * 2-bit code per entry (the step from the previous entry), about 2.5 MiB each, built on
 * first use; the second file's (sin 64 MiB, tanh 26 MiB) are unpacked whole, each on the
 * first use of its instruction.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "emu/sfu.h"

extern const unsigned char ptxemu_sfu_blob[], ptxemu_sfu_blob_end[];
extern const unsigned char ptxemu_sfu_blob2[], ptxemu_sfu_blob2_end[];

typedef struct Table {
    uint32_t n;
    int off;                  /* each step is its code plus off */
    uint32_t *base;           /* the value of every 64th entry   */
    uint64_t *codes;          /* 32 codes per word                */
    uint32_t *full;           /* lg2's tables: every value        */
} Table;

enum { T_EX2_POS, T_EX2_NEG, T_RCP, T_RSQRT, T_SQRT, T_LG2, T_LG2_HALF, T_COUNT };
static Table tables[T_COUNT];
static int ready;
int sfu_loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Kind 1: zigzag varints of each value's difference from 2*v[i-1] - v[i-2]. */
static int load_varint(Table *t, const uint8_t *p, size_t len, uint32_t n)
{
    t->n = n;
    if (!(t->full = malloc((size_t)n * sizeof *t->full))) return -1;
    size_t at = 0;
    int64_t v1 = 0, v2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t z = 0;
        for (int sh = 0;; sh += 7) {
            if (at >= len || sh > 63) return -1;
            uint8_t byte = p[at++];
            z |= (uint64_t)(byte & 127) << sh;
            if (!(byte & 128)) break;
        }
        int64_t r = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
        int64_t pred = i >= 2 ? 2 * v1 - v2 : v1;
        int64_t v = pred + r;
        t->full[i] = (uint32_t)v;
        v2 = v1;
        v1 = v;
    }
    return at == len ? 0 : -1;
}

static int load_table(Table *t, const uint8_t *p, size_t left, size_t *used)
{
    if (left < 20) return -1;
    uint32_t n, kind, param, first;
    memcpy(&n, p + 4, 4);
    memcpy(&kind, p + 8, 4);
    memcpy(&param, p + 12, 4);
    if (kind == 1) {
        if (!n || left - 16 < param) return -1;
        *used = 16 + (size_t)param;
        return load_varint(t, p + 16, param, n);
    }
    memcpy(&first, p + 16, 4);
    size_t nbytes = ((size_t)n + 3) / 4;
    if (kind != 0 || !n || left - 20 < nbytes) return -1;
    t->n = n;
    t->off = (int)param;
    size_t nwords = ((size_t)n + 31) / 32, nblocks = ((size_t)n + 63) / 64;
    t->codes = calloc(nwords + 1, sizeof *t->codes);
    t->base = malloc(nblocks * sizeof *t->base);
    if (!t->codes || !t->base) return -1;
    memcpy(t->codes, p + 20, nbytes);   /* little-endian: byte i holds codes 4i..4i+3 */
    uint32_t v = first;
    for (uint32_t i = 0; i < n; i++) {
        if (i) v += (uint32_t)((int)(t->codes[i / 32] >> (2 * (i % 32)) & 3) + t->off);
        if (i % 64 == 0) t->base[i / 64] = v;
    }
    *used = 20 + nbytes;
    return 0;
}

static void load(void)
{
    size_t zn = (size_t)(ptxemu_sfu_blob_end - ptxemu_sfu_blob);
    unsigned long long n = ZSTD_getFrameContentSize(ptxemu_sfu_blob, zn);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (64u << 20)) return;
    uint8_t *raw = malloc((size_t)n);
    if (!raw) return;
    size_t got = ZSTD_decompress(raw, (size_t)n, ptxemu_sfu_blob, zn);
    uint32_t count;
    if (ZSTD_isError(got) || got != n || n < 16 || memcmp(raw, "PTXEMU-SFU1", 12)) { free(raw); return; }
    memcpy(&count, raw + 12, 4);
    size_t at = 16;
    int ok = count == T_COUNT;
    for (uint32_t k = 0; ok && k < count; k++) {
        uint32_t id;
        size_t used;
        memcpy(&id, raw + at, 4);
        ok = id >= 1 && id <= T_COUNT && load_table(&tables[id - 1], raw + at, (size_t)n - at, &used) == 0;
        at += ok ? used : 0;
    }
    free(raw);
    ready = ok;
    __atomic_store_n(&sfu_loaded, ok, __ATOMIC_RELEASE);
}

int sfu_ready(void)
{
    pthread_once(&once, load);
    return ready;
}

/* The sum of the 32 2-bit fields of w (SWAR: no popcount instruction needed). */
static inline uint32_t sum2(uint64_t w)
{
    w = (w & 0x3333333333333333ull) + (w >> 2 & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((w * 0x0101010101010101ull) >> 56);
}

/* Entry i: its block's value plus the steps of entries start+1 .. i. */
static inline uint32_t lookup(const Table *t, uint32_t i)
{
    uint32_t start = i & ~63u, k = i - start, w = start / 32;
    uint64_t a = 0, b = 0;
    if (k) {
        uint32_t k0 = k < 31 ? k : 31;
        a = t->codes[w] & (k0 == 31 ? ~0ull : (1ull << (2 * (k0 + 1))) - 1) & ~3ull;
        if (k >= 32) {
            uint32_t k1 = k - 32;
            b = t->codes[w + 1] & (k1 == 31 ? ~0ull : (1ull << (2 * (k1 + 1))) - 1);
        }
    }
    return t->base[start / 64] + sum2(a) + sum2(b) + (uint32_t)((int)k * t->off);
}

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t f_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float flush(float x) { return (f_bits(x) & 0x7f800000u) ? x : copysignf(0.0f, x); }

/* ---- ex2.approx ---- */

static float ex2_ftz(float x)
{
    if (isnan(x)) return bits_f(0x7fffffffu);
    x = flush(x);
    if (x >= 128.0f) return INFINITY;
    if (x <= -127.0f) return 0.0f;
    /* |x| with 23 fractional bits, cut towards zero; exact in double */
    uint64_t X = (uint64_t)((double)fabsf(x) * 8388608.0);
    int64_t n = (int64_t)(X >> 23);
    uint32_t f = (uint32_t)(X & 0x7fffff), t;
    int64_t e;
    if (x >= 0.0f) {
        t = lookup(&tables[T_EX2_POS], f);        /* 2^(1+f) */
        e = ((t >> 23) & 255) - 1 + n;
    } else {
        t = lookup(&tables[T_EX2_NEG], f);        /* 2^-(1+f) */
        e = ((t >> 23) & 255) + 1 - n;
    }
    if (e <= 0) return 0.0f;
    if (e >= 255) return INFINITY;
    return bits_f((uint32_t)e << 23 | (t & 0x7fffff));
}

float sfu_ex2(float x, int ftz)
{
    /* measured: below 2^-126 the non-.ftz form squares ex2(x/2) */
    if (!ftz && x < -126.0f) {
        float h = ex2_ftz(x * 0.5f);
        return h * h;
    }
    return ex2_ftz(x);
}

/* ---- rcp.approx, rsqrt.approx ---- */

static float rcp_ftz(float x)
{
    uint32_t b = f_bits(x);
    int e = (int)(b >> 23 & 255);
    if (isnan(x)) return bits_f(0x7fffffffu);
    if (e == 0) return copysignf(INFINITY, x);
    if (e == 255) return copysignf(0.0f, x);
    uint32_t t = lookup(&tables[T_RCP], b & 0x7fffff);   /* 1/1.m */
    int ne = (int)(t >> 23 & 255) - (e - 127);
    if (ne <= 0) return copysignf(0.0f, x);
    return bits_f((b & 0x80000000u) | (uint32_t)ne << 23 | (t & 0x7fffff));
}

float sfu_rcp(float x, int ftz)
{
    uint32_t e = f_bits(x) >> 23 & 255;
    if (!ftz && e == 0 && (f_bits(x) & 0x7fffff)) return rcp_ftz(x * 0x1p24f) * 0x1p24f;
    if (!ftz && e >= 253 && e < 255) return rcp_ftz(x * 0.25f) * 0.25f;
    return rcp_ftz(x);
}

static float rsqrt_ftz(float x)
{
    uint32_t b = f_bits(x);
    int e = (int)(b >> 23 & 255);
    if (isnan(x)) return bits_f(0x7fffffffu);
    if (e == 0) return copysignf(INFINITY, x);
    if (b >> 31) return bits_f(0x7fffffffu);
    if (e == 255) return 0.0f;
    int k = e - 127, par = k & 1, half = (k - par) / 2;
    uint32_t t = lookup(&tables[T_RSQRT], (uint32_t)par << 23 | (b & 0x7fffff));
    return bits_f((uint32_t)((int)(t >> 23 & 255) - half) << 23 | (t & 0x7fffff));
}

float sfu_rsqrt(float x, int ftz)
{
    uint32_t b = f_bits(x);
    if (!ftz && (b >> 23 & 255) == 0 && (b & 0x7fffff)) return rsqrt_ftz(x * 0x1p24f) * 0x1p12f;
    return rsqrt_ftz(x);
}

static float sqrt_ftz(float x)
{
    uint32_t b = f_bits(x);
    int e = (int)(b >> 23 & 255);
    if (isnan(x)) return bits_f(0x7fffffffu);
    if (e == 0) return copysignf(0.0f, x);
    if (b >> 31) return bits_f(0x7fffffffu);
    if (e == 255) return INFINITY;
    int k = e - 127, par = k & 1, half = (k - par) / 2;
    uint32_t t = lookup(&tables[T_SQRT], (uint32_t)par << 23 | (b & 0x7fffff));
    return bits_f((uint32_t)((int)(t >> 23 & 255) + half) << 23 | (t & 0x7fffff));
}

float sfu_sqrt(float x, int ftz)
{
    uint32_t b = f_bits(x);
    if (!ftz && (b >> 23 & 255) == 0 && (b & 0x7fffff)) return sqrt_ftz(x * 0x1p24f) * 0x1p-12f;
    return sqrt_ftz(x);
}

/* ---- lg2.approx: the results for [1,2) and [0.5,1) are tables; elsewhere the exponent is
 * added in fixed point with 23 fractional bits and the result cut to f32 towards zero, a
 * negative one through its ones' complement (lg2(0.25) is -1.99999988) ---- */

static float cut_f32(uint64_t v)   /* v * 2^-23, cut to 24 significant bits */
{
    if (!v) return 0.0f;
    int bits = 64 - __builtin_clzll(v);
    if (bits > 24) v = v >> (bits - 24) << (bits - 24);
    return (float)v * 0x1p-23f;   /* exact: v has at most 24 significant bits */
}

static int64_t fix23(uint32_t b)   /* floor(f * 2^23) for the f32 f >= 0 with bits b */
{
    int ex = (int)(b >> 23 & 255), sh = ex - 127;
    if (!ex || sh <= -24) return 0;
    uint64_t man = (b & 0x7fffff) | 0x800000;   /* f = man * 2^(ex - 150) */
    return sh >= 0 ? (int64_t)(man << sh) : (int64_t)(man >> -sh);
}

static float lg2_ftz(float x)
{
    uint32_t b = f_bits(x);
    int ex = (int)(b >> 23 & 255);
    if (isnan(x)) return bits_f(0x7fffffffu);
    if (ex == 0) return -INFINITY;
    if (b >> 31) return bits_f(0x7fffffffu);
    if (ex == 255) return INFINITY;
    int e = ex - 127;
    uint32_t m = b & 0x7fffff;
    if (e == 0) return bits_f(tables[T_LG2].full[m]);
    if (e == -1) return bits_f(tables[T_LG2_HALF].full[m]);
    int64_t T = (int64_t)e * (1 << 23) + fix23(tables[T_LG2].full[m]);
    return T >= 0 ? cut_f32((uint64_t)T) : -cut_f32((uint64_t)(-T - 1));
}

float sfu_lg2(float x, int ftz)
{
    uint32_t b = f_bits(x);
    if (!ftz && (b >> 23 & 255) == 0 && (b & 0x7fffff))
        return (b >> 31) ? bits_f(0x7fffffffu) : lg2_ftz(x * 0x1p24f) - 24.0f;
    return lg2_ftz(x);
}

/* ---- div.approx, div.full: a times the reciprocal, scaled at the ends of the range ---- */

float sfu_div(float a, float b, int ftz)
{
    if (ftz) return flush(flush(a) * rcp_ftz(flush(b)));
    float ab = fabsf(b);
    if (ab != 0.0f && ab < 0x1p-126f) return (a * rcp_ftz(b * 0x1p24f)) * 0x1p24f;
    if (ab > 0x1p126f && !isinf(ab)) return a * copysignf(0.0f, b);
    return a * rcp_ftz(b);
}

/* div.full.ftz.f32 is div.approx.ftz's product, scaled as div.full's for |b| > 2^126 */
float sfu_div_full(float a, float b, int ftz)
{
    if (ftz) {
        a = flush(a);
        b = flush(b);
        float fb = fabsf(b);
        if (fb > 0x1p126f && !isinf(fb)) return flush(flush(a * 0.25f) * rcp_ftz(b * 0.25f));
        return flush(a * rcp_ftz(b));
    }
    float ab = fabsf(b);
    if (ab != 0.0f && ab < 0x1p-126f) return (a * rcp_ftz(b * 0x1p24f)) * 0x1p24f;
    if (ab > 0x1p126f && !isinf(ab)) return (a * 0.25f) * rcp_ftz(b * 0.25f);
    return a * rcp_ftz(b);
}

/* ---- the second file: sin/cos, tanh, tanh on halves (emu/sfu_tables2.zst) ----
 * Tables of kind 1, each unpacked whole; a family is loaded on the first use of its
 * instruction, so a program that never takes a sine pays nothing for the 64 MiB table. */

enum { T2_SIN = 1, T2_TANH, T2_TANH_F16, T2_TANH_BF16, T2_COUNT = T2_TANH_BF16 };
#define SIN_N (1u << 24)
#define TANH_N 6684672u
static const uint32_t t2_size[T2_COUNT + 1] = { 0, SIN_N, TANH_N, 1u << 16, 1u << 16 };
static uint32_t *tab2[T2_COUNT + 1];
int sfu_trig_loaded, sfu_tanh_loaded, sfu_halfs_loaded;
static pthread_once_t once_trig = PTHREAD_ONCE_INIT, once_tanh = PTHREAD_ONCE_INIT,
                      once_halfs = PTHREAD_ONCE_INIT;

/* Decompresses the second file and keeps the tables listed in want (bit id); 0 on success. */
static int load2(unsigned want)
{
    size_t zn = (size_t)(ptxemu_sfu_blob2_end - ptxemu_sfu_blob2);
    unsigned long long n = ZSTD_getFrameContentSize(ptxemu_sfu_blob2, zn);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (64u << 20) || n < 16) return -1;
    uint8_t *raw = malloc((size_t)n);
    if (!raw) return -1;
    size_t got = ZSTD_decompress(raw, (size_t)n, ptxemu_sfu_blob2, zn);
    uint32_t count;
    int ok = !ZSTD_isError(got) && got == n && !memcmp(raw, "PTXEMU-SFU2", 12);
    if (ok) memcpy(&count, raw + 12, 4);
    size_t at = 16;
    for (uint32_t k = 0; ok && k < count; k++) {
        uint32_t h[4];
        if ((size_t)n - at < 16) { ok = 0; break; }
        memcpy(h, raw + at, 16);   /* id, entries, kind, bytes */
        if (h[0] < 1 || h[0] > T2_COUNT || h[1] != t2_size[h[0]] || h[2] != 1 || (size_t)n - at - 16 < h[3]) { ok = 0; break; }
        if (want >> h[0] & 1) {
            Table t = {0};
            ok = load_varint(&t, raw + at + 16, h[3], h[1]) == 0;
            if (ok) tab2[h[0]] = t.full;
            else free(t.full);
        }
        at += 16 + (size_t)h[3];
    }
    free(raw);
    for (unsigned id = 1; ok && id <= T2_COUNT; id++) ok = !(want >> id & 1) || tab2[id];
    return ok ? 0 : -1;
}
static void load_trig(void) { if (!load2(1u << T2_SIN)) __atomic_store_n(&sfu_trig_loaded, 1, __ATOMIC_RELEASE); }
static void load_tanh(void) { if (!load2(1u << T2_TANH)) __atomic_store_n(&sfu_tanh_loaded, 1, __ATOMIC_RELEASE); }
static void load_halfs(void)
{
    if (!load2(1u << T2_TANH_F16 | 1u << T2_TANH_BF16)) __atomic_store_n(&sfu_halfs_loaded, 1, __ATOMIC_RELEASE);
}
int sfu_trig_ready(void) { pthread_once(&once_trig, load_trig); return __atomic_load_n(&sfu_trig_loaded, __ATOMIC_ACQUIRE); }
int sfu_tanh_ready(void) { pthread_once(&once_tanh, load_tanh); return __atomic_load_n(&sfu_tanh_loaded, __ATOMIC_ACQUIRE); }
int sfu_halfs_ready(void)
{
    pthread_once(&once_halfs, load_halfs);
    return __atomic_load_n(&sfu_halfs_loaded, __ATOMIC_ACQUIRE) && sfu_ready();
}

/* ---- sin.approx, cos.approx ---- */

/* t = x * (1/2pi), the f32 constant 0x3e22f983, cut towards zero (FMUL.RZ): the product is
 * exact in double, and its nearest float is moved one step towards zero when it rounded up
 * in magnitude. */
static float turns(float x, int ftz)
{
    if (ftz) x = flush(x);
    double p = (double)x * (double)bits_f(0x3e22f983u);
    float f = (float)p;
    if (fabs((double)f) > fabs(p)) f = nextafterf(f, 0.0f);
    return f;
}

/* MUFU.SIN at k/2^25 turns: the table holds the first half turn, the second is its negative */
static uint32_t sine_at(uint32_t k)
{
    return k < SIN_N ? tab2[T2_SIN][k] : tab2[T2_SIN][k - SIN_N] ^ 0x80000000u;
}

/* floor(|t| 2^25) mod 2^25; from 2^24 on t has no fraction */
static uint32_t turn_index(float t)
{
    double a = fabs((double)t);
    return a >= 0x1p24 ? 0 : (uint32_t)(uint64_t)(a * 0x1p25) & (2 * SIN_N - 1);
}

float sfu_sin(float x, int ftz)
{
    float t = turns(x, ftz);   /* the .ftz and plain forms agree: MUFU flushes t itself */
    if (isnan(t) || isinf(t)) return bits_f(0x7fffffffu);
    uint32_t r = sine_at(turn_index(t));
    return bits_f(signbit(t) ? r ^ 0x80000000u : r);
}

float sfu_cos(float x, int ftz)
{
    float t = turns(x, ftz);
    if (isnan(t) || isinf(t)) return bits_f(0x7fffffffu);
    return bits_f(sine_at((turn_index(t) + SIN_N / 2) & (2 * SIN_N - 1)));
}

/* ---- tanh.approx.f32 ---- */

/* Binades -8 .. 2: how many low mantissa bits MUFU.TANH ignores, and where each binade's
 * table starts. */
static const uint8_t tanh_q[11] = { 6, 6, 6, 5, 5, 4, 4, 4, 3, 2, 3 };

float sfu_tanh(float x)
{
    uint32_t u = f_bits(x), s = u & 0x80000000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return bits_f(0x7fffffffu);
    int e = (int)(a >> 23) - 127;
    if (e < -8) return x;                                /* subnormals too */
    if (e >= 3) return bits_f(s | 0x3f800000u);          /* infinities too */
    uint32_t off = 0;
    for (int i = 0; i < e + 8; i++) off += 1u << (23 - tanh_q[i]);
    return bits_f(s | tab2[T2_TANH][off + ((a & 0x7fffffu) >> tanh_q[e + 8])]);
}

/* ---- ex2 and tanh on f16 and bf16 (MUFU.EX2.F16/BF16, MUFU.TANH.F16/BF16) ---- */

uint16_t sfu_half(int op_tanh, uint16_t h, int bf)
{
    if (op_tanh) return (uint16_t)tab2[bf ? T2_TANH_BF16 : T2_TANH_F16][h];
    /* ex2: the f32 unit's result, cut to 16 bits; an f16 result of 2^16 or more is infinite */
    float x;
    if (bf) {
        x = bits_f((uint32_t)h << 16);
    } else {
        uint32_t e = h >> 10 & 31, m = h & 1023;
        x = e == 31 ? (m ? NAN : copysignf(INFINITY, h & 0x8000 ? -1.0f : 1.0f))
                    : ldexpf((float)(e ? m | 1024 : m), (int)(e ? e : 1) - 25) * (h & 0x8000 ? -1.0f : 1.0f);
    }
    float r = sfu_ex2(x, 1);
    if (isnan(r)) return 0x7fff;
    if (bf) return (uint16_t)(f_bits(r) >> 16);
    if (r >= 65536.0f) return 0x7c00;
    if (r == 0.0f) return 0;
    /* r > 0: cut to f16 towards zero */
    int e;
    float m = frexpf(r, &e);   /* r = m 2^e, m in [0.5, 1) */
    if (e < -13) {             /* below 2^-14: subnormal f16, steps of 2^-24 */
        uint32_t q = (uint32_t)ldexpf(r, 24);
        return (uint16_t)q;
    }
    uint32_t q = (uint32_t)ldexpf(m, 11);   /* 1024 .. 2047 */
    return (uint16_t)((uint32_t)(e + 14) << 10 | (q & 1023));
}

/* ---- rcp.approx.ftz.f64, rsqrt.approx.ftz.f64 (MUFU.RCP64H, MUFU.RSQ64H), rsqrt.approx.f64 ----
 * The units read the high word (sign, exponent, 20 mantissa bits), and their result is the
 * f32 unit's at mantissa m << 3, cut to 20 bits, with the low word zero. */

static uint32_t rcp64h(uint32_t hi)
{
    uint32_t s = hi & 0x80000000u, e = hi >> 20 & 0x7ff, m = hi & 0xfffff;
    if (e == 0) return s | 0x7ff00000u;
    if (e == 0x7ff) return m ? 0x7fffffffu : s;
    uint32_t t = f_bits(rcp_ftz(bits_f(0x3f800000u | m << 3)));
    int ne = (int)(t >> 23 & 255) - 127 - ((int)e - 1023) + 1023;
    if (ne <= 0) return s;
    return s | (uint32_t)ne << 20 | (t & 0x7fffff) >> 3;
}

static uint32_t rsq64h(uint32_t hi)
{
    uint32_t e = hi >> 20 & 0x7ff, m = hi & 0xfffff;
    if (e == 0) return (hi & 0x80000000u) | 0x7ff00000u;
    if (hi >> 31 || (e == 0x7ff && m)) return 0x7fffffffu;
    if (e == 0x7ff) return 0;
    int k = (int)e - 1023, par = k & 1, half = (k - par) / 2;
    uint32_t t = f_bits(rsqrt_ftz(bits_f((uint32_t)(127 + par) << 23 | m << 3)));
    return (uint32_t)((int)(t >> 23 & 255) - 127 - half + 1023) << 20 | (t & 0x7fffff) >> 3;
}

uint64_t sfu_rcp64(uint64_t x) { return (uint64_t)rcp64h((uint32_t)(x >> 32)) << 32; }
uint64_t sfu_rsqrt64_ftz(uint64_t x) { return (uint64_t)rsq64h((uint32_t)(x >> 32)) << 32; }

static double d_bits(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }
static uint64_t bits_d(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

/* One step of ptxas's refinement: r + (1/2 + 3/8 e)(r e), e = 1 - x r^2, each an IEEE
 * double operation as the SASS does it (DMUL, DFMA). */
static double rsqrt_refine(double x)
{
    double r = d_bits(sfu_rsqrt64_ftz(bits_d(x)));
    double e = fma(x, -(r * r), 1.0);
    return fma(fma(e, 0.375, 0.5), r * e, r);
}

/* rsqrt.approx.f64: the SASS's fast path for positive normal x, and its slow path for the
 * rest (zero, negative, infinite, NaN, subnormal: scaled by 2^54 and back by 2^27). */
double sfu_rsqrt64(double x)
{
    uint64_t b = bits_d(x);
    uint32_t hi = (uint32_t)(b >> 32);
    if ((uint32_t)(hi - 0x00100000u) < 0x7fe00000u) return rsqrt_refine(x);
    if (x == 0) return d_bits((uint64_t)((hi & 0x80000000u) | 0x7ff00000u) << 32);
    if (isnan(x)) return x + x;
    if (hi >> 31) return d_bits(0xfff8000000000000ull);
    if (isinf(x)) return 0.0;
    return rsqrt_refine(x * 0x1p54) * 0x1p27;
}
