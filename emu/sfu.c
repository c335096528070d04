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
 * 2-bit code per entry (the step from the previous entry), about 2.5 MiB each; the second
 * file's (sin 64 MiB, tanh 26 MiB) are unpacked whole. Each family (ex2, rcp, rsqrt, sqrt,
 * lg2; sin/cos, tanh, the halves' tanh) is built on the first use of its instruction, from
 * its file decompressed only as far as its last table: a program that only calls expf
 * unpacks 4 MiB where it used to unpack all 30 (1.46 G instructions, now about 15 M).
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

/* The first file's tables in its order, and the family (sfu.h) each belongs to. */
enum { T_EX2_POS, T_EX2_NEG, T_RCP, T_RSQRT, T_SQRT, T_LG2, T_LG2_HALF, T_COUNT };
static const uint8_t t_family[T_COUNT] = { SFU_EX2, SFU_EX2, SFU_RCP, SFU_RSQRT, SFU_SQRT, SFU_LG2, SFU_LG2 };
static const uint32_t t_size[T_COUNT] = { 1u << 23, 1u << 23, 1u << 23, 1u << 24, 1u << 24, 1u << 23, 1u << 23 };
static Table tables[T_COUNT];
int sfu_loaded[SFU_FAMILIES];
static int sfu_tried[SFU_FAMILIES];
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- reading a file: one zstd frame, decompressed as far as it is read, so that a family
 * stops at its last table (ex2's two are the first 4 MiB of the 30 MiB) ---- */

typedef struct Reader {
    ZSTD_DCtx *z;
    ZSTD_inBuffer in;
    uint8_t *scratch;         /* where skipped bytes go */
} Reader;
enum { SCRATCH = 1 << 18 };

static int rd_open(Reader *r, const unsigned char *b, const unsigned char *e)
{
    r->z = ZSTD_createDCtx();
    r->in = (ZSTD_inBuffer){ b, (size_t)(e - b), 0 };
    r->scratch = malloc(SCRATCH);
    return r->z && r->scratch ? 0 : -1;
}

static void rd_close(Reader *r)
{
    ZSTD_freeDCtx(r->z);
    free(r->scratch);
}

/* The next n bytes into dst, or past them when dst is NULL; 0 on success. */
static int rd_read(Reader *r, void *dst, size_t n)
{
    while (n) {
        size_t part = dst || n < SCRATCH ? n : SCRATCH;
        ZSTD_outBuffer out = { dst ? dst : r->scratch, part, 0 };
        while (out.pos < out.size) {
            size_t in0 = r->in.pos, out0 = out.pos;
            size_t ret = ZSTD_decompressStream(r->z, &out, &r->in);
            if (ZSTD_isError(ret) || (r->in.pos == in0 && out.pos == out0)) return -1;   /* no progress: the frame ended short */
        }
        n -= part;
        if (dst) dst = (uint8_t *)dst + part;
    }
    return 0;
}

/* Kind 1: zigzag varints of each value's difference r from 2*v[i-1] - v[i-2] (v[i-1] for
 * i = 1), that is of the change of the step d[i] = v[i] - v[i-1]: v follows from two running
 * sums, in uint32 arithmetic (the values' low 32 bits do not depend on the higher ones).
 * Nearly all varints are one byte (lg2's: 3236 of 16.8 M entries are longer): eight such at
 * a time, their zigzags undone together (23 instructions an entry before, about 7 now). */
static int load_varint(Table *t, const uint8_t *p, size_t len, uint32_t n)
{
    t->n = n;
    if (!n || !(t->full = malloc((size_t)n * sizeof *t->full))) return -1;
    const uint8_t *q = p, *end = p + len;
    uint32_t *o = t->full, v = 0, d = 0;
    for (uint32_t i = 0; i < n;) {
        if (i && n - i >= 8 && end - q >= 8) {
            uint64_t w;
            memcpy(&w, q, 8);
            if (!(w & 0x8080808080808080ull)) {
                /* each byte z to (z >> 1) ^ -(z & 1) as an int8 */
                uint64_t r = (w >> 1 & 0x7f7f7f7f7f7f7f7full) ^ ((w & 0x0101010101010101ull) * 0xff);
#pragma GCC unroll 8
                for (int j = 0; j < 8; j++) {
                    d += (uint32_t)(int32_t)(int8_t)(uint8_t)(r >> (8 * j));
                    v += d;
                    o[i + (uint32_t)j] = v;
                }
                i += 8;
                q += 8;
                continue;
            }
        }
        uint64_t z = 0;
        for (int sh = 0;; sh += 7) {
            if (q == end || sh > 63) return -1;
            uint8_t byte = *q++;
            z |= (uint64_t)(byte & 127) << sh;
            if (!(byte & 128)) break;
        }
        d += (uint32_t)((z >> 1) ^ -(z & 1));
        v += d;
        o[i] = v;
        if (!i) d = 0;   /* entry 0 is r itself; entry 1's prediction is entry 0 */
        i++;
    }
    return q == end ? 0 : -1;
}

/* The sum of the 32 2-bit fields of w (SWAR: no popcount instruction needed). */
static inline uint32_t sum2(uint64_t w)
{
    w = (w & 0x3333333333333333ull) + (w >> 2 & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((w * 0x0101010101010101ull) >> 56);
}

/* Kind 0: codes read straight into place; block b + 1's value is block b's plus its 64
 * steps, entries 64b+1 .. 64b+64 (word 2b less its first code, word 2b+1, word 2b+2's
 * first): a few word operations a block where a loop over the entries cost 10 a step. */
static int load_codes(Table *t, Reader *r, uint32_t n, uint32_t off, uint32_t first)
{
    size_t nbytes = ((size_t)n + 3) / 4, nwords = ((size_t)n + 31) / 32, nblocks = ((size_t)n + 63) / 64;
    t->n = n;
    t->off = (int)off;
    t->codes = calloc(nwords + 1, sizeof *t->codes);
    t->base = malloc(nblocks * sizeof *t->base);
    if (!t->codes || !t->base || rd_read(r, t->codes, nbytes)) return -1;   /* little-endian: byte i holds codes 4i..4i+3 */
    const uint64_t *c = t->codes;
    const uint64_t m2 = 0x3333333333333333ull, m4 = 0x0f0f0f0f0f0f0f0full;
    uint32_t v = first, step64 = 64u * off;
    t->base[0] = v;
    for (size_t b = 0; b + 1 < nblocks; b++) {
        uint64_t lo = c[2 * b] & ~3ull, hi = c[2 * b + 1];
        uint64_t x = (lo & m2) + (lo >> 2 & m2) + (hi & m2) + (hi >> 2 & m2);   /* nibbles <= 12 */
        x = (x & m4) + (x >> 4 & m4);                                           /* bytes <= 24  */
        v += (uint32_t)((x * 0x0101010101010101ull) >> 56) + (uint32_t)(c[2 * b + 2] & 3) + step64;
        t->base[b + 1] = v;
    }
    return 0;
}

static void table_free(Table *t)
{
    free(t->base);
    free(t->codes);
    free(t->full);
    *t = (Table){0};
}

/* Reads the first file as far as family fam's last table and builds that family's tables;
 * 0 on success. */
static int load_family(int fam)
{
    Reader r;
    uint32_t h[5];   /* id, entries, kind, offset or byte length, first value (kind 0) */
    int ok = rd_open(&r, ptxemu_sfu_blob, ptxemu_sfu_blob_end) == 0 && rd_read(&r, h, 16) == 0 &&
             !memcmp(h, "PTXEMU-SFU1", 12) && h[3] == T_COUNT;
    int left = 0;
    for (int k = 0; k < T_COUNT; k++) left += t_family[k] == fam;
    for (uint32_t k = 0; ok && left && k < T_COUNT; k++) {
        ok = rd_read(&r, h, 12) == 0 && h[0] == k + 1 && h[1] == t_size[k] && h[2] <= 1 &&
             rd_read(&r, h + 3, h[2] ? 4 : 8) == 0;
        if (!ok) break;
        size_t len = h[2] ? h[3] : ((size_t)h[1] + 3) / 4;
        if (t_family[k] != fam) {
            ok = rd_read(&r, NULL, len) == 0;
        } else if (h[2] == 0) {
            ok = load_codes(&tables[k], &r, h[1], h[3], h[4]) == 0;
            left--;
        } else {
            uint8_t *p = malloc(len ? len : 1);
            ok = p && rd_read(&r, p, len) == 0 && load_varint(&tables[k], p, len, h[1]) == 0;
            free(p);
            left--;
        }
    }
    rd_close(&r);
    if (!ok || left)
        for (int k = 0; k < T_COUNT; k++) if (t_family[k] == fam) table_free(&tables[k]);
    return ok && !left ? 0 : -1;
}

int sfu_ready(int fam)
{
    if (fam < 0 || fam >= SFU_FAMILIES) return 0;
    if (!__atomic_load_n(&sfu_tried[fam], __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&load_lock);
        if (!sfu_tried[fam]) {
            if (load_family(fam) == 0) __atomic_store_n(&sfu_loaded[fam], 1, __ATOMIC_RELEASE);
            __atomic_store_n(&sfu_tried[fam], 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&load_lock);
    }
    return __atomic_load_n(&sfu_loaded[fam], __ATOMIC_ACQUIRE);
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

/* Reads the second file as far as the last table listed in want (bit id) and keeps those
 * tables; 0 on success. */
static int load2(unsigned want)
{
    Reader r;
    uint32_t h[4];   /* id, entries, kind, bytes */
    int ok = rd_open(&r, ptxemu_sfu_blob2, ptxemu_sfu_blob2_end) == 0 && rd_read(&r, h, 16) == 0 &&
             !memcmp(h, "PTXEMU-SFU2", 12);
    uint32_t count = ok ? h[3] : 0;
    unsigned left = want;
    for (uint32_t k = 0; ok && left && k < count; k++) {
        ok = rd_read(&r, h, 16) == 0 && h[0] >= 1 && h[0] <= T2_COUNT && h[1] == t2_size[h[0]] && h[2] == 1;
        if (!ok) break;
        if (want >> h[0] & 1) {
            Table t = {0};
            uint8_t *p = malloc(h[3] ? h[3] : 1);
            ok = p && rd_read(&r, p, h[3]) == 0 && load_varint(&t, p, h[3], h[1]) == 0;
            free(p);
            if (ok) tab2[h[0]] = t.full;
            else free(t.full);
            left &= ~(1u << h[0]);
        } else {
            ok = rd_read(&r, NULL, h[3]) == 0;
        }
    }
    rd_close(&r);
    return ok && !left ? 0 : -1;
}
static void load_trig(void) { if (!load2(1u << T2_SIN)) __atomic_store_n(&sfu_trig_loaded, 1, __ATOMIC_RELEASE); }
static void load_tanh(void) { if (!load2(1u << T2_TANH)) __atomic_store_n(&sfu_tanh_loaded, 1, __ATOMIC_RELEASE); }
/* the halves' ex2 is the f32 unit's: their family needs SFU_EX2 too */
static void load_halfs(void)
{
    if (!load2(1u << T2_TANH_F16 | 1u << T2_TANH_BF16) && sfu_ready(SFU_EX2))
        __atomic_store_n(&sfu_halfs_loaded, 1, __ATOMIC_RELEASE);
}
int sfu_trig_ready(void) { pthread_once(&once_trig, load_trig); return __atomic_load_n(&sfu_trig_loaded, __ATOMIC_ACQUIRE); }
int sfu_tanh_ready(void) { pthread_once(&once_tanh, load_tanh); return __atomic_load_n(&sfu_tanh_loaded, __ATOMIC_ACQUIRE); }
int sfu_halfs_ready(void)
{
    pthread_once(&once_halfs, load_halfs);
    return __atomic_load_n(&sfu_halfs_loaded, __ATOMIC_ACQUIRE);
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
