/* sfu_pack.c - turns the H100 recordings of sfu_probe.cu and sfu_probe2.cu into
 * emu/sfu_tables.zst, the tables behind ptxemu's ex2/rcp/rsqrt/sqrt/lg2.approx (emu/sfu.c,
 * docs/sfu.md). Not part of the build: run it after recording, from the recordings' folder.
 *
 * The probes store each result as an int8 difference from the correctly rounded value, which
 * this program recomputes with long double (x86-64, as on the recording machine) to get the
 * H100's bits back (lg2: int32 differences). The tables hold those bits, not the differences,
 * so ptxemu needs no libm agreement: each table is its first value and then one 2-bit code
 * per entry, the difference from the previous entry less a fixed offset; lg2's, whose steps
 * vary more, are varints of the difference from a linear prediction.
 *
 * Build: gcc -O2 -o sfu_pack sfu_pack.c -lzstd -lm;  run: ./sfu_pack DATA_DIR OUT.zst
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static signed char *load(const char *dir, const char *name, size_t want)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    signed char *d = malloc(want);
    if (!f || !d || fread(d, 1, want, f) != want) { fprintf(stderr, "cannot read %s\n", p); exit(1); }
    fclose(f);
    for (size_t i = 0; i < want; i++)
        if (d[i] == -128) { fprintf(stderr, "%s: entry %zu is out of the int8 range\n", p, i); exit(1); }
    return d;
}

typedef struct Buf { uint8_t *p; size_t n, cap; } Buf;
static void put(Buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2; b->p = realloc(b->p, b->cap); }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void put32(Buf *b, uint32_t v) { put(b, &v, 4); }

/* A table of kind 0: id, entries, kind, offset, first value, then the packed codes of
 * entries 1..n-1 (each the step from the previous entry less the offset). */
static void table(Buf *b, uint32_t id, const uint32_t *v, uint32_t n, int off)
{
    put32(b, id);
    put32(b, n);
    put32(b, 0);
    put32(b, (uint32_t)off);
    put32(b, v[0]);
    size_t nbytes = ((size_t)n + 3) / 4;
    uint8_t *codes = calloc(nbytes, 1);
    for (uint32_t i = 1; i < n; i++) {
        int c = (int)(v[i] - v[i - 1]) - off;
        if (c < 0 || c > 3) { fprintf(stderr, "table %u: entry %u does not fit (%d)\n", id, i, c); exit(1); }
        codes[i / 4] |= (uint8_t)(c << (2 * (i % 4)));
    }
    put(b, codes, nbytes);
    free(codes);
}

/* A table of kind 1, for values whose steps vary too much for 2 bits (lg2): id, entries,
 * kind, byte length, then per entry the zigzag varint of its difference from the linear
 * prediction 2*v[i-1] - v[i-2] (v[-1] = v[-2] = 0). */
static void table_varint(Buf *b, uint32_t id, const uint32_t *v, uint32_t n)
{
    Buf o = {0};
    for (uint32_t i = 0; i < n; i++) {
        int64_t pred = i >= 2 ? 2 * (int64_t)v[i - 1] - (int64_t)v[i - 2] : i ? (int64_t)v[i - 1] : 0;
        int64_t r = (int64_t)v[i] - pred;
        uint64_t z = (uint64_t)r << 1 ^ (uint64_t)(r >> 63);
        do {
            uint8_t byte = (uint8_t)((z & 127) | (z >> 7 ? 128 : 0));
            put(&o, &byte, 1);
            z >>= 7;
        } while (z);
    }
    put32(b, id);
    put32(b, n);
    put32(b, 1);
    put32(b, (uint32_t)o.n);
    put(b, o.p, o.n);
    free(o.p);
}

static int32_t *load32(const char *dir, const char *name, size_t n)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    int32_t *d = malloc(n * 4);
    if (!f || !d || fread(d, 4, n, f) != n) { fprintf(stderr, "cannot read %s\n", p); exit(1); }
    fclose(f);
    return d;
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: sfu_pack DATA_DIR OUT.zst\n"); return 2; }
    const uint32_t N = 1u << 23;
    uint32_t *v = malloc(4u << 24);
    Buf b = {0};
    put(&b, "PTXEMU-SFU1", 12);
    put32(&b, 7);
    /* 1: ex2 of 1+f, f on the 2^-23 grid (x in [1,2)) */
    signed char *d = load(argv[1], "ex2_1_2.i8", N);
    for (uint32_t i = 0; i < N; i++) v[i] = fb((float)exp2l(bf(0x3f800000u | i))) + (uint32_t)(int)d[i];
    table(&b, 1, v, N, 0);
    /* 2: ex2 of -(1+f) (x in [-2,-1)) */
    d = load(argv[1], "ex2_m2_m1.i8", N);
    for (uint32_t i = 0; i < N; i++) v[i] = fb((float)exp2l(bf(0xbf800000u | i))) + (uint32_t)(int)d[i];
    table(&b, 2, v, N, -3);
    /* 3: rcp of 1.m */
    d = load(argv[1], "rcp_1_2.i8", N);
    for (uint32_t i = 0; i < N; i++) v[i] = fb((float)(1.0L / bf(0x3f800000u | i))) + (uint32_t)(int)d[i];
    table(&b, 3, v, N, -2);
    /* 4: rsqrt of [1,4) */
    d = load(argv[1], "rsqrt_1_4.i8", 2 * N);
    for (uint32_t i = 0; i < 2 * N; i++) v[i] = fb((float)(1.0L / sqrtl(bf(0x3f800000u + i)))) + (uint32_t)(int)d[i];
    table(&b, 4, v, 2 * N, -3);
    /* 5: sqrt of [1,4) */
    d = load(argv[1], "sqrt_1_4.i8", 2 * N);
    for (uint32_t i = 0; i < 2 * N; i++) v[i] = fb((float)sqrtl(bf(0x3f800000u + i))) + (uint32_t)(int)d[i];
    table(&b, 5, v, 2 * N, -1);
    /* 6, 7: lg2 of [1,2) and of [0.5,1) (int32 differences in the recording) */
    int32_t *w = load32(argv[1], "lg2_1_2.i32", N);
    for (uint32_t i = 0; i < N; i++) v[i] = fb((float)log2l(bf(0x3f800000u | i))) + (uint32_t)w[i];
    table_varint(&b, 6, v, N);
    w = load32(argv[1], "lg2_h_1.i32", N);
    for (uint32_t i = 0; i < N; i++) v[i] = fb((float)log2l(bf(0x3f000000u | i))) + (uint32_t)w[i];
    table_varint(&b, 7, v, N);
    size_t cap = ZSTD_compressBound(b.n);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, b.p, b.n, 19);
    if (ZSTD_isError(zn)) { fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(zn)); return 1; }
    FILE *f = fopen(argv[2], "wb");
    if (!f || fwrite(z, 1, zn, f) != zn) { fprintf(stderr, "cannot write %s\n", argv[2]); return 1; }
    fclose(f);
    fprintf(stderr, "%zu bytes of tables, %zu compressed\n", b.n, zn);
    return 0;
}
