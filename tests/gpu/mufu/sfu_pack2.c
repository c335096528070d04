/* sfu_pack2.c - turns the recordings of sfu3_probe.cu and sfu4_probe.cu into
 * emu/sfu_tables2.zst, the tables behind ptxemu's sin, cos and tanh .approx (emu/sfu.c,
 * docs/sfu.md). Not part of the build: run it after recording.
 *
 * Tables (kind 1 of emu/sfu.c: zigzag varints of each value's difference from the linear
 * prediction 2 v[i-1] - v[i-2], as sfu_pack.c writes lg2's), each the GPU's results bit for
 * bit, so the file is the recording itself, packed:
 *   1  MUFU.SIN at t = k 2^-25, k < 2^24 (sfu4_probe: sin_lo.bin); the rest of the circle
 *      and MUFU.COS follow from it, as the recording checked (S[k + 2^24] = -S[k],
 *      C[k] = S[k + 2^23]);
 *   2  tanh.approx.f32 on [2^-8, 8), binade by binade, the low q bits of each input dropped
 *      (sfu4_probe: tanh.bin; q = 6 6 6 5 5 4 4 4 3 2 3 for exponents -8 .. 2);
 *   3  tanh.approx.f16 on every input; 4 tanh.approx.bf16 on every input (sfu3_probe: the
 *      third and fourth of the eight tables in half.bin).
 * The inputs are stored as first differences (the probes' scripts did that on the GPU
 * machine, to compress them for the trip back).
 *
 * Build: gcc -O2 -o sfu_pack2 sfu_pack2.c -lzstd;  run: ./sfu_pack2 RUN1_DIR RUN2_DIR OUT.zst
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

typedef struct Buf { uint8_t *p; size_t n, cap; } Buf;
static void put(Buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) { b->cap = (b->n + n) * 2; b->p = realloc(b->p, b->cap); }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void put32(Buf *b, uint32_t v) { put(b, &v, 4); }

static uint32_t *load_delta(const char *dir, const char *name, size_t n, size_t skip)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    uint32_t *d = malloc((skip + n) * 4);
    if (!f || !d || fread(d, 4, skip + n, f) != skip + n) { fprintf(stderr, "cannot read %s\n", p); exit(1); }
    fclose(f);
    for (size_t i = 1; i < skip + n; i++) d[i] += d[i - 1];   /* undo the first differences */
    memmove(d, d + skip, n * 4);
    return d;
}

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

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: sfu_pack2 RUN1_DIR RUN2_DIR OUT.zst\n"); return 2; }
    Buf b = {0};
    put(&b, "PTXEMU-SFU2\0", 12);
    put32(&b, 4);
    uint32_t *v = load_delta(argv[2], "sin_lo.bin", 1u << 24, 0);
    table_varint(&b, 1, v, 1u << 24);
    free(v);
    v = load_delta(argv[2], "tanh.bin", 6684672, 0);
    table_varint(&b, 2, v, 6684672);
    free(v);
    /* half.bin: ex2.f16, ex2.bf16, tanh.f16, tanh.bf16, then the x2 forms (u32 each) */
    v = load_delta(argv[1], "half.bin.delta", 2u << 16, 2u << 16);
    table_varint(&b, 3, v, 1u << 16);
    table_varint(&b, 4, v + (1u << 16), 1u << 16);
    free(v);
    size_t cap = ZSTD_compressBound(b.n);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, b.p, b.n, 19);
    if (ZSTD_isError(zn)) { fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(zn)); return 1; }
    FILE *f = fopen(argv[3], "wb");
    if (!f || fwrite(z, 1, zn, f) != zn || fclose(f)) { fprintf(stderr, "cannot write %s\n", argv[3]); return 1; }
    printf("%zu bytes (%zu unpacked)\n", zn, b.n);
    return 0;
}
