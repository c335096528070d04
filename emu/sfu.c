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
 * Checked on 2^18 random inputs of each form, where every result agreed.
 * The tables (emu/sfu_tables.zst, linked in by sfu_blob.S) hold the recorded results. Each
 * table is kept as one value per 64 entries plus a 2-bit code per entry (the step from the
 * previous entry), about 2.5 MiB each, built on first use.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "emu/sfu.h"

extern const unsigned char ptxemu_sfu_blob[], ptxemu_sfu_blob_end[];

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

/* (the .ftz form was not recorded: it is taken to be div.approx.ftz's) */
float sfu_div_full(float a, float b, int ftz)
{
    if (ftz) return flush(flush(a) * rcp_ftz(flush(b)));
    float ab = fabsf(b);
    if (ab != 0.0f && ab < 0x1p-126f) return (a * rcp_ftz(b * 0x1p24f)) * 0x1p24f;
    if (ab > 0x1p126f && !isinf(ab)) return (a * 0.25f) * rcp_ftz(b * 0.25f);
    return a * rcp_ftz(b);
}
