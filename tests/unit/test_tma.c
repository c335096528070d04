/* test_tma.c - replays the H100's recorded tensor copies (tests/tma-data/cases.txt, written by
 * tests/gpu/tma_probe.cu) through tma_encode_* and tma_transfer and compares bytes exactly,
 * plus encoder checks against the H100 driver's answers.
 *
 * Usage: test_tma [path/to/cases.txt]   (default: $srcdir/tests/tma-data/cases.txt or
 * tests/tma-data/cases.txt). Prints one line per failure and "N passed, N failed".
 * Build: gcc -std=gnu11 -O2 -I. tests/unit/test_tma.c emu/tma.c -o test_tma
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "emu/tma.h"

static int passed, failed;

static void fail(const char *fmt, int id, const char *what)
{
    printf(fmt, id, what);
    putchar('\n');
    failed++;
}

typedef struct {
    int id;
    char op, mode;
    int dt, rank, il, sw, oob, nlo, nup, ncoords, noffs, red;
    int gfill, repl, rv;   /* section M: global fill 1; tensormap.replace before the copy */
    uint64_t dims[5], strides[4];
    uint32_t box[5], es[5], cpp, ppc, smoff, tx;
    int lo[3], up[3], coords[5];
    uint16_t offs[3];
    uint64_t gsize;
    long long hwtx;    /* section L: bytes the H100 signalled (-1 never completed, -2 absent) */
    int enc;
    char st[64];
    size_t n;
    uint8_t *data;
} Rec;

static int list(const char *v, long long *out, int max)
{
    int n = 0;
    while (*v && n < max) {
        char *e;
        out[n++] = strtoll(v, &e, 10);
        v = *e == ',' ? e + 1 : e;
        if (v == e && *e != ',') break;
    }
    return n;
}

static void parse_header(char *line, Rec *r)
{
    memset(r, 0, sizeof *r);
    r->hwtx = -2;
    long long v[5];
    char *save, *tok = strtok_r(line, " \n", &save);
    tok = strtok_r(NULL, " \n", &save);
    r->id = atoi(tok);
    while ((tok = strtok_r(NULL, " \n", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = tok, *val = eq + 1;
        int n;
        if (!strcmp(k, "op")) r->op = val[0];
        else if (!strcmp(k, "mode")) r->mode = val[0];
        else if (!strcmp(k, "dt")) r->dt = atoi(val);
        else if (!strcmp(k, "rank")) r->rank = atoi(val);
        else if (!strcmp(k, "il")) r->il = atoi(val);
        else if (!strcmp(k, "sw")) r->sw = atoi(val);
        else if (!strcmp(k, "oob")) r->oob = atoi(val);
        else if (!strcmp(k, "red")) r->red = atoi(val);   /* TMA_RED_* order; absent: add */
        else if (!strcmp(k, "gfill")) r->gfill = atoi(val);
        else if (!strcmp(k, "repl")) r->repl = atoi(val);
        else if (!strcmp(k, "rv")) r->rv = atoi(val);
        else if (!strcmp(k, "cpp")) r->cpp = (uint32_t)atoi(val);
        else if (!strcmp(k, "ppc")) r->ppc = (uint32_t)atoi(val);
        else if (!strcmp(k, "smoff")) r->smoff = (uint32_t)atoi(val);
        else if (!strcmp(k, "tx")) r->tx = (uint32_t)atoi(val);
        else if (!strcmp(k, "hwtx")) r->hwtx = strtoll(val, NULL, 10);
        else if (!strcmp(k, "gsize")) r->gsize = strtoull(val, NULL, 10);
        else if (!strcmp(k, "enc")) r->enc = atoi(val);
        else if (!strcmp(k, "n")) r->n = strtoull(val, NULL, 10);
        else if (!strcmp(k, "st")) snprintf(r->st, sizeof r->st, "%s", val);
        else if (!strcmp(k, "dims")) { n = list(val, v, 5); for (int i = 0; i < n; i++) r->dims[i] = (uint64_t)v[i]; }
        else if (!strcmp(k, "strides")) { n = list(val, v, 4); for (int i = 0; i < n; i++) r->strides[i] = (uint64_t)v[i]; }
        else if (!strcmp(k, "box")) { n = list(val, v, 5); for (int i = 0; i < n; i++) r->box[i] = (uint32_t)v[i]; }
        else if (!strcmp(k, "es")) { n = list(val, v, 5); for (int i = 0; i < n; i++) r->es[i] = (uint32_t)v[i]; }
        else if (!strcmp(k, "lo")) { r->nlo = list(val, v, 3); for (int i = 0; i < r->nlo; i++) r->lo[i] = (int)v[i]; }
        else if (!strcmp(k, "up")) { r->nup = list(val, v, 3); for (int i = 0; i < r->nup; i++) r->up[i] = (int)v[i]; }
        else if (!strcmp(k, "coords")) { r->ncoords = list(val, v, 5); for (int i = 0; i < r->ncoords; i++) r->coords[i] = (int)v[i]; }
        else if (!strcmp(k, "offs")) { r->noffs = list(val, v, 3); for (int i = 0; i < r->noffs; i++) r->offs[i] = (uint16_t)v[i]; }
    }
}

static int elsize(int dt)
{
    static const int sz[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    return dt >= 0 && dt < 13 ? sz[dt] : 1;
}

/* The probe's patterns (tests/gpu/tma_probe.cu). */
static void fill_global(uint8_t *g, size_t size, int el)
{
    for (size_t i = 0; i < size / el; i++) {
        uint64_t v = el == 1 ? ((i + (i >> 8) * 0x35) & 0xff) : i;
        memcpy(g + i * el, &v, el);
    }
}

static uint8_t smem_pat(uint32_t k)
{
    uint32_t w = (k >> 2) * 2654435761u + 0x12345678u;
    return (uint8_t)(w >> ((k & 3) * 8));
}

#define SMEM_BYTES (64 * 1024)
/* Past the recorded global buffer: interleaved boxes read up to 16/32 bytes per dim-0
 * coordinate, beyond small buffers (case 126); the H100 read zeros there. */
#define GTAIL (64 * 1024)

static int encode(const Rec *r, void *tm, void *g)
{
    if (r->mode == 'T')
        return tma_encode_tiled(tm, r->dt, (uint32_t)r->rank, g, r->dims, r->strides, r->box,
                                r->es, r->il, r->sw, 0, r->oob);
    return tma_encode_im2col(tm, r->dt, (uint32_t)r->rank, g, r->dims, r->strides, r->lo,
                             r->up, r->cpp, r->ppc, r->es, r->il, r->sw, 0, r->oob);
}

static void replay(const Rec *r)
{
    int el = elsize(r->dt);
    uint8_t *g = aligned_alloc(256, ((r->gsize + 255) & ~255ull) + GTAIL);
    uint8_t *sm = aligned_alloc(1024, SMEM_BYTES + 1024);
    _Alignas(64) uint8_t tm[TMAP_BYTES];
    if (!g || !sm) { fail("case %d: %s", r->id, "out of memory"); free(g); free(sm); return; }
    if (r->op == 'S') memset(g, 0xCD, r->gsize); else fill_global(g, r->gsize, el);
    if (r->gfill && r->op != 'S')
        for (uint64_t k = 0; k < r->gsize; k++) g[k] = smem_pat((uint32_t)k) ^ 0x5a;
    memset(g + r->gsize, 0, ((r->gsize + 255) & ~255ull) + GTAIL - r->gsize);
    memset(tm, 0, sizeof tm);
    int enc = encode(r, tm, g);
    if ((enc != 0) != (r->enc != 0)) {
        char m[64];
        snprintf(m, sizeof m, "encode returned %d, the H100's driver %d", enc, r->enc);
        fail("case %d: %s", r->id, m);
        goto out;
    }
    if (enc) { passed++; goto out; }
    /* Section M: the probe's kernel edited the map with tensormap.replace before the copy. */
    static const int repl_field[5] = {0, TMA_F_RANK, TMA_F_INTERLEAVE, TMA_F_FILL_MODE, TMA_F_ELEMTYPE};
    static const int repl_value[5] = {0, -1, 1, 1, 11};
    int rank = r->rank;
    if (r->repl > 0 && r->repl < 5) {
        char e[160];
        uint64_t v = (uint64_t)(r->repl == 1 ? r->rv : repl_value[r->repl]);
        if (tma_replace_field(tm, repl_field[r->repl], 0, v, e, sizeof e)) {
            fail("case %d: %s", r->id, e);
            goto out;
        }
        if (r->repl == 1) rank = r->rv + 1;
    }
    if (r->smoff % 128) { passed++; goto out; }  /* the caller checks shared alignment */
    uint8_t *s = sm + r->smoff;
    uint32_t dumplen = ((r->tx + 15) & ~15u) + 256;
    if (r->op == 'L' && r->n > dumplen) dumplen = (uint32_t)r->n;   /* section L: 16 KiB */
    /* the probe's shared memory past what it filled read as zero (stores of case 479) */
    memset(sm, 0, SMEM_BYTES + 1024);
    for (uint32_t k = 0; k < dumplen; k++) s[k] = r->op == 'L' ? 0xAB : smem_pat(k);
    int dir = r->op == 'L' ? TMA_LOAD : r->op == 'S' ? TMA_STORE : TMA_REDUCE;
    char err[200] = "";
    int rc = tma_transfer(tm, dir, r->mode == 'T' ? TMA_MODE_TILE : TMA_MODE_IM2COL, r->coords,
                          rank, r->offs, s, r->smoff, SMEM_BYTES - r->smoff, r->red, err,
                          sizeof err);
    /* An interleaved load whose mbarrier expected tx= bytes rather than what the engine
     * signals completes at random on the H100 (ok or timeout, measured); its data are the same
     * either way, and ptxemu must reproduce them. */
    int hw_ok = !strcmp(r->st, "ok") || (r->il && !strcmp(r->st, "timeout"));
    if (!hw_ok) {
        /* The H100 faulted or never completed the transfer: ptxemu must refuse it. */
        if (rc == 0) {
            char m[128];
            snprintf(m, sizeof m, "accepted a transfer the H100 answered with %s", r->st);
            fail("case %d: %s", r->id, m);
        } else passed++;
        goto out;
    }
    /* The probe expects the box's elements (tx=); an interleaved box moves and signals more
     * (hwtx=, measured in section L). */
    uint32_t want = r->il && r->hwtx >= 0 ? (uint32_t)r->hwtx : r->tx;
    uint32_t have = r->il && r->hwtx < 0 ? tma_box_elem_bytes(tm) : tma_box_bytes(tm);
    if (have != want) {
        char m[64];
        snprintf(m, sizeof m, "box bytes %u, expected %u", have, want);
        fail("case %d: %s", r->id, m);
        goto out;
    }
    if (rc) { fail("case %d: %s", r->id, err); goto out; }
    const uint8_t *got = r->op == 'L' ? s : g;
    for (size_t k = 0; k < r->n; k++)
        if (got[k] != r->data[k]) {
            char m[96];
            snprintf(m, sizeof m, "byte %zu is %02x, the H100 wrote %02x", k, got[k], r->data[k]);
            fail("case %d: %s", r->id, m);
            goto out;
        }
    passed++;
out:
    free(g);
    free(sm);
}

static int hexval(int c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

static void replay_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) { printf("cannot open %s\n", path); failed++; return; }
    char *line = NULL;
    size_t cap = 0;
    Rec r;
    int have = 0;
    size_t got = 0;
    while (getline(&line, &cap, f) > 0) {
        if (line[0] == '#') continue;
        if (!strncmp(line, "case ", 5)) {
            if (have) { replay(&r); free(r.data); }
            parse_header(line, &r);
            r.data = malloc(r.n ? r.n : 1);
            got = 0;
            have = 1;
            continue;
        }
        for (char *p = line; p[0] && p[1] && p[0] != '\n' && got < r.n; p += 2)
            r.data[got++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
    }
    if (have) { replay(&r); free(r.data); }
    free(line);
    fclose(f);
}

/* ---- encoder spot checks (from tests/expected/cuda/tma_encode.0.out) ---- */

static void expect(int got, int want, const char *what)
{
    if (got == want) passed++;
    else { printf("encode %s: got %d, the H100's driver %d\n", what, got, want); failed++; }
}

static void encode_checks(void)
{
    static _Alignas(256) uint8_t buf[1 << 16];
    _Alignas(64) uint8_t tm[TMAP_BYTES];
    uint64_t dims[5] = {64, 32, 4, 4, 4}, st[4] = {128, 4096, 16384, 65536};
    uint32_t box[5] = {64, 8, 2, 2, 2}, es[5] = {1, 1, 1, 1, 1};
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es, 0, 0, 0, 0), 0, "base");
    expect(tma_encode_tiled(tm, 1, 6, buf, dims, st, box, es, 0, 0, 0, 0), 1, "rank 6");
    expect(tma_encode_tiled(tm, 13, 2, buf, dims, st, box, es, 0, 0, 0, 0), 1, "packed type");
    expect(tma_encode_tiled(tm, 1, 2, buf + 8, dims, st, box, es, 0, 0, 0, 0), 1, "address +8");
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es, 0, 4, 0, 0), 1, "swizzle 128B atom");
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es, 0, 2, 0, 0), 1, "sw64 inner 128");
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es, 0, 3, 0, 0), 0, "sw128 inner 128");
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es, 0, 0, 0, 1), 1, "nan fill u16");
    expect(tma_encode_tiled(tm, 6, 2, buf, dims, st, box, es, 0, 0, 0, 1), 0, "nan fill f16");
    uint64_t st0[4] = {0, 4096, 16384, 65536};
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st0, box, es, 0, 0, 0, 0), 0, "stride 0");
    uint32_t es9[5] = {1, 9, 1, 1, 1}, es0[5] = {0, 1, 1, 1, 1};
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es9, 0, 0, 0, 0), 1, "es 9");
    expect(tma_encode_tiled(tm, 1, 2, buf, dims, st, box, es0, 0, 0, 0, 0), 1, "es0 0");
    uint64_t d3[5] = {16, 32, 4, 4, 4}, s3[4] = {32, 512, 0, 0};
    uint32_t b3[5] = {16, 8, 2, 1, 1};
    expect(tma_encode_tiled(tm, 1, 3, buf, d3, s3, b3, es, 2, 0, 0, 0), 0, "il32 swizzle none");
    expect(tma_encode_tiled(tm, 1, 3, buf + 16, d3, s3, b3, es, 2, 1, 0, 0), 1, "il32 address +16");
    expect(tma_replace_address(tm, buf + 16), 0, "replace il32 +16");
    expect(tma_replace_address(tm, buf + 8), 1, "replace +8");
    uint64_t di[5] = {64, 8, 8, 2, 2}, si[4] = {128, 1024, 8192, 16384};
    int lo[3] = {-1, -1, -1}, up[3] = {-1, -1, -1}, lo0[3] = {0, -1, -1}, up8[3] = {-8, -1, -1};
    expect(tma_encode_im2col(tm, 1, 4, buf, di, si, lo, up, 64, 32, es, 0, 0, 0, 0), 0, "im2col base");
    expect(tma_encode_im2col(tm, 1, 4, buf, di, si, lo0, up8, 64, 32, es, 0, 0, 0, 0), 1, "im2col empty W");
    expect(tma_encode_im2col(tm, 1, 4, buf, di, si, lo, up, 4, 32, es, 0, 0, 0, 0), 1, "im2col cpp 8 bytes");
    expect(tma_encode_im2col(tm, 1, 4, buf, di, si, lo, up, 64, 1025, es, 0, 0, 0, 0), 1, "im2col ppc 1025");
    int lo129[3] = {-1, -129, -1};
    expect(tma_encode_im2col(tm, 1, 4, buf, di, si, lo129, up, 64, 32, es, 0, 0, 0, 0), 1, "im2col lo -129");
    /* A map that was never encoded is recognised. */
    memset(tm, 0, sizeof tm);
    char err[100];
    expect(tma_valid(tm, err, sizeof err), 0, "zero map is not valid");
}

int main(int argc, char **argv)
{
    char path[1024];
    const char *srcdir = getenv("srcdir");
    if (argc > 1) snprintf(path, sizeof path, "%s", argv[1]);
    else snprintf(path, sizeof path, "%s/tests/tma-data/cases.txt", srcdir ? srcdir : ".");
    encode_checks();
    replay_file(path);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
