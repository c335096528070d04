/* test_fatbin.c - unit tests of frontend/fatbin.c: nvcc-built fixtures, synthetic fatbins,
 * truncations at every offset, random byte flips, and (when nvcc is present) a fresh build.
 *
 * Fixtures live in tests/fatbin-data (found through argv[1], $abs_top_srcdir, $top_srcdir or
 * the current directory); docs/fatbin.md says how each was made.
 */
#include "frontend/fatbin.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <unistd.h>
#include <zstd.h>

#include "check.h"

/* ---- little helpers ----------------------------------------------------------------------- */

typedef struct Buf { uint8_t *p; size_t n, cap; } Buf;

static void put(Buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) { perror("realloc"); exit(2); }
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_le(Buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) { uint8_t c = (uint8_t)(v >> (8 * i)); put(b, &c, 1); }
}

static void pad8(Buf *b) { while (b->n % 8) put_le(b, 0, 1); }
static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void set_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* One synthetic entry, laid out like nvcc 13 does (see docs/fatbin.md). */
typedef struct Ent {
    unsigned kind, arch;
    uint64_t flags;
    const void *payload;
    size_t psize;
    uint32_t csize;
    uint64_t usize;
    const char *name;
    uint32_t hsize_override;   /* nonzero: write this header size instead of the real one */
} Ent;

static void put_entry(Buf *b, const Ent *e)
{
    size_t name_len = e->name ? strlen(e->name) : 0;
    size_t name_room = name_len ? (name_len + 8) & ~(size_t)7 : 0;
    uint32_t hsize = (uint32_t)(0x40 + name_room + 8);   /* + empty options record */
    uint32_t opts = (uint32_t)(0x40 + name_room);
    put_le(b, e->kind, 2);
    put_le(b, 0x0101, 2);
    put_le(b, e->hsize_override ? e->hsize_override : hsize, 4);
    put_le(b, e->psize, 8);
    put_le(b, e->csize, 4);
    put_le(b, opts, 4);
    put_le(b, 0x00090000, 4);                              /* minor 0, major 9 */
    put_le(b, e->arch, 4);
    put_le(b, name_len ? 0x40 : 0, 4);
    put_le(b, name_len, 4);
    put_le(b, e->flags | 0x11, 8);                         /* 64-bit, linux */
    put_le(b, 0, 8);
    put_le(b, e->usize, 8);
    if (name_len) { put(b, e->name, name_len); put_le(b, 0, 1); pad8(b); }
    put_le(b, opts + 8, 4);
    put_le(b, 0, 4);
    put(b, e->payload, e->psize);
}

static Buf make_fatbin(const Ent *e, int n)
{
    Buf body = {0}, fb = {0};
    for (int i = 0; i < n; i++) put_entry(&body, &e[i]);
    put_le(&fb, 0xBA55ED50u, 4);
    put_le(&fb, 1, 2);
    put_le(&fb, 16, 2);
    put_le(&fb, body.n, 8);
    put(&fb, body.p, body.n);
    free(body.p);
    return fb;
}

static Ent ptx(unsigned arch, uint64_t flags, const char *text)
{
    Ent e = { .kind = 1, .arch = arch, .flags = flags, .payload = text,
              .psize = strlen(text) + 1 };
    return e;
}

static Ent elf(unsigned arch, uint64_t flags)
{
    static const uint8_t img[16] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0x41 };
    Ent e = { .kind = 2, .arch = arch, .flags = flags, .payload = img, .psize = sizeof img };
    return e;
}

static int pick(const Buf *b, FatbinPtx *out, char *err, size_t errlen)
{
    return fatbin_pick_ptx_data(b->p, b->n, out, err, errlen);
}

static int pick_ents(const Ent *e, int n, FatbinPtx *out, char *err, size_t errlen)
{
    Buf b = make_fatbin(e, n);
    int rc = pick(&b, out, err, errlen);
    free(b.p);
    return rc;
}

static int pick_wrapped(const void *data, FatbinPtx *out, char *err, size_t errlen)
{
    struct { int magic, version; const void *data; void *aux; } w = { 0x466243b1, 1, data, NULL };
    return fatbin_pick_ptx(&w, out, err, errlen);
}

/* ---- fixtures ------------------------------------------------------------------------------ */

static char data_dir[4096];

static void find_data_dir(int argc, char **argv)
{
    const char *cands[4] = { argc > 1 ? argv[1] : NULL, getenv("abs_top_srcdir"),
                             getenv("top_srcdir"), "." };
    for (int i = 0; i < 4; i++) {
        if (!cands[i]) continue;
        snprintf(data_dir, sizeof data_dir, "%s%s", cands[i],
                 i == 0 ? "" : "/tests/fatbin-data");
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/sm90a.fatbin", data_dir);
        if (access(probe, R_OK) == 0) return;
    }
    snprintf(data_dir, sizeof data_dir, "tests/fatbin-data");
}

static Buf load(const char *name)
{
    char path[4200];
    Buf b = {0};
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open fixture %s (pass the fixture directory as argv[1])", path);
    if (!f) return b;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) put(&b, chunk, n);
    fclose(f);
    return b;
}

/* Entry boundaries (offsets from the fatbin start) by an independent walk of the fixture. */
static int entry_ends(const Buf *b, size_t *ends, int max)
{
    size_t hs = get_le(b->p + 6, 2), end = hs + get_le(b->p + 8, 8), off = hs;
    int n = 0;
    while (off + 16 <= end && n < max) {
        off += get_le(b->p + off + 4, 4) + get_le(b->p + off + 8, 8);
        ends[n++] = off - hs;
    }
    return n;
}

static void test_fixture_sm90a(void)
{
    Buf b = load("sm90a.fatbin");
    if (!b.p) return;
    FatbinPtx p;
    char err[512] = "";
    int rc = pick(&b, &p, err, sizeof err);
    CHECK(rc == FATBIN_OK, "sm90a: rc %d (%s)", rc, err);
    if (rc == FATBIN_OK) {
        CHECK(p.arch == 90 && p.arch_specific == 1, "sm90a: arch %d specific %d", p.arch,
              p.arch_specific);
        CHECK(strstr(p.text, "\n.target sm_90a\n") != NULL, "sm90a: picked the wrong PTX");
        CHECK(strstr(p.text, ".visible .entry _Z2vaPKfS0_Pfi(") != NULL, "sm90a: no kernel");
        CHECK(p.len == 957 && strlen(p.text) == p.len, "sm90a: len %zu", p.len);
        CHECK(strcmp(p.name, "fatbin") == 0, "sm90a: name '%s'", p.name);
    }
    fatbin_free(&p);
    CHECK(p.text == NULL, "fatbin_free leaves text");
    /* The same through the wrapper nvcc passes to __cudaRegisterFatBinary. */
    rc = pick_wrapped(b.p, &p, err, sizeof err);
    CHECK(rc == FATBIN_OK && p.arch_specific == 1 && p.len == 957, "sm90a wrapped: rc %d (%s)",
          rc, err);
    fatbin_free(&p);
    free(b.p);
}

static char *text_of(const char *fixture, int want_arch)
{
    Buf b = load(fixture);
    if (!b.p) return NULL;
    FatbinPtx p;
    char err[512] = "";
    int rc = pick(&b, &p, err, sizeof err);
    free(b.p);
    CHECK(rc == FATBIN_OK, "%s: rc %d (%s)", fixture, rc, err);
    if (rc) return NULL;
    CHECK(p.arch == want_arch && !p.arch_specific, "%s: arch %d specific %d", fixture, p.arch,
          p.arch_specific);
    CHECK(strlen(p.text) == p.len, "%s: len %zu strlen %zu", fixture, p.len, strlen(p.text));
    return p.text;
}

static void test_fixture_encodings(void)
{
    char *plain = text_of("nocompress.fatbin", 90);   /* NUL-padded, flags 0x11 */
    char *lz4 = text_of("lz4.fatbin", 90);            /* flag 0x2000 */
    char *mix = text_of("mix80.fatbin", 80);          /* compute_80 PTX + sm_90 SASS */
    if (plain) {
        CHECK(strlen(plain) == 956 && strstr(plain, "\n.target sm_90\n"), "plain PTX text");
        CHECK(plain[strlen(plain) - 1] == '\n', "plain PTX should end with the text's newline");
    }
    if (plain && lz4) CHECK(strcmp(plain, lz4) == 0, "LZ4 and plain PTX differ");
    if (mix) CHECK(strstr(mix, "\n.target sm_80\n") != NULL, "mix80: wrong target");
    free(plain); free(lz4); free(mix);
}

static void test_fixture_ident_and_sass(void)
{
    Buf b = load("ident.fatbin");
    FatbinPtx p;
    char err[512] = "";
    if (b.p) {
        int rc = pick(&b, &p, err, sizeof err);
        CHECK(rc == FATBIN_OK && strcmp(p.name, "va.cu") == 0, "ident: rc %d name '%s' (%s)",
              rc, rc ? "" : p.name, err);
        fatbin_free(&p);
        free(b.p);
    }
    b = load("sassonly.fatbin");
    if (b.p) {
        int rc = pick(&b, &p, err, sizeof err);
        CHECK(rc == FATBIN_ERR_NO_PTX && p.text == NULL, "sass only: rc %d", rc);
        CHECK(strstr(err, "only SASS for sm_90 (no PTX)") && strstr(err, "-arch=sm_90"),
              "sass only: message '%s'", err);
        free(b.p);
    }
}

/* The .nv_fatbin section of a two-file program: the dlink fatbin, then one per .cu file. */
static void test_fixture_section(void)
{
    Buf b = load("multi-section.bin");
    if (!b.p) return;
    const char *want[3] = { NULL, "_Z2vaPKfS0_Pfi", "_Z2vbPfi" };
    size_t off = 0;
    int i = 0;
    for (; off + 16 <= b.n && i < 3; i++) {
        FatbinPtx p;
        char err[512] = "";
        int rc = pick_wrapped(b.p + off, &p, err, sizeof err);
        if (!want[i])
            CHECK(rc == FATBIN_ERR_NO_PTX, "section fatbin %d: rc %d (%s)", i, rc, err);
        else
            CHECK(rc == FATBIN_OK && strstr(p.text, want[i]), "section fatbin %d: rc %d (%s)",
                  i, rc, err);
        fatbin_free(&p);
        off += get_le(b.p + off + 6, 2) + get_le(b.p + off + 8, 8);
    }
    CHECK(i == 3 && off == b.n, "section: walked %d fatbins to %zu of %zu", i, off, b.n);
    free(b.p);
}

/* ---- robustness ---------------------------------------------------------------------------- */

static int rc_valid(int rc, const FatbinPtx *p, const char *err)
{
    if (rc == FATBIN_OK) return p->text && p->len > 0 && strlen(p->text) == p->len;
    return (rc == FATBIN_ERR_FORMAT || rc == FATBIN_ERR_NO_PTX || rc == FATBIN_ERR_ZSTD ||
            rc == FATBIN_ERR_NOMEM) && p->text == NULL && err[0];
}

/* Every proper prefix, in a buffer of exactly that size so ASan sees any over-read. */
static void test_truncations(const char *fixture)
{
    Buf b = load(fixture);
    if (!b.p) return;
    int bad = 0;
    for (size_t len = 0; len < b.n; len++) {
        uint8_t *c = malloc(len ? len : 1);
        memcpy(c, b.p, len);
        FatbinPtx p;
        char err[512] = "";
        int rc = fatbin_pick_ptx_data(c, len, &p, err, sizeof err);
        if (rc != FATBIN_ERR_FORMAT || !err[0]) {
            if (bad++ < 3) CHECK(0, "%s cut at %zu: rc %d", fixture, len, rc);
        }
        fatbin_free(&p);
        free(c);
    }
    CHECK(bad == 0, "%s: %d truncations not rejected", fixture, bad);
    free(b.p);
}

/* Shrink the header's body size to every smaller value (the wrapper path trusts it):
 * cuts inside an entry are errors, cuts at an entry boundary leave a valid fatbin. */
static void test_body_cuts(const char *fixture)
{
    Buf b = load(fixture);
    if (!b.p) return;
    size_t ends[16], hs = get_le(b.p + 6, 2), body = get_le(b.p + 8, 8);
    int ne = entry_ends(&b, ends, 16), bad = 0;
    for (size_t fs = 0; fs <= body; fs++) {
        uint8_t *c = malloc(hs + fs);
        memcpy(c, b.p, hs + fs);
        set_le(c + 8, fs, 8);
        int boundary = fs == 0;
        for (int i = 0; i < ne; i++) boundary |= ends[i] == fs;
        FatbinPtx p;
        char err[512] = "";
        int rc = pick_wrapped(c, &p, err, sizeof err);
        int ok = boundary ? (rc == FATBIN_OK || rc == FATBIN_ERR_NO_PTX) && rc_valid(rc, &p, err)
                          : rc == FATBIN_ERR_FORMAT;
        if (!ok && bad++ < 3) CHECK(0, "%s body cut to %zu: rc %d (%s)", fixture, fs, rc, err);
        fatbin_free(&p);
        free(c);
    }
    CHECK(bad == 0, "%s: %d body cuts misjudged", fixture, bad);
    free(b.p);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* Random flips, half of them aimed at the headers (first 0x100 bytes of each entry). */
static void test_flips(const char *fixture, int rounds)
{
    Buf b = load(fixture);
    if (!b.p) return;
    size_t ends[16], hs = get_le(b.p + 6, 2);
    int ne = entry_ends(&b, ends, 16), bad = 0, oks = 0;
    for (int r = 0; r < rounds; r++) {
        uint8_t *c = malloc(b.n);
        memcpy(c, b.p, b.n);
        int flips = 1 + (int)(next_rand() % 3);
        for (int k = 0; k < flips; k++) {
            size_t pos;
            if (next_rand() & 1) {   /* the fatbin header or the entry after boundary `which` */
                int which = ne ? (int)(next_rand() % (unsigned)ne) : 0;
                size_t start = which == 0 ? 0 : hs + ends[which - 1];
                pos = start + next_rand() % 0x100;
            } else {
                pos = next_rand() % b.n;
            }
            if (pos < b.n) c[pos] ^= (uint8_t)(1u << (next_rand() % 8));
        }
        /* The wrapper path has no length but the header's: keep those sizes intact there. */
        if (!(r & 1)) memcpy(c + 6, b.p + 6, 10);
        FatbinPtx p;
        char err[512] = "";
        int rc = (r & 1) ? fatbin_pick_ptx_data(c, b.n, &p, err, sizeof err)
                         : pick_wrapped(c, &p, err, sizeof err);
        oks += rc == FATBIN_OK;
        if (!rc_valid(rc, &p, err) && bad++ < 3)
            CHECK(0, "%s flip round %d: rc %d, inconsistent result", fixture, r, rc);
        fatbin_free(&p);
        free(c);
    }
    CHECK(bad == 0, "%s: %d flip rounds gave inconsistent results", fixture, bad);
    FatbinPtx p;
    char err[512];
    int clean = fatbin_pick_ptx_data(b.p, b.n, &p, err, sizeof err);
    fatbin_free(&p);
    CHECK(oks < rounds && (clean != FATBIN_OK || oks > 0), "%s: flips gave %d successes of %d",
          fixture, oks, rounds);
    free(b.p);
}

/* ---- synthetic fatbins --------------------------------------------------------------------- */

static void expect_ok(const Ent *e, int n, int arch, int spec, const char *text, const char *what)
{
    FatbinPtx p;
    char err[512] = "";
    int rc = pick_ents(e, n, &p, err, sizeof err);
    CHECK(rc == FATBIN_OK, "%s: rc %d (%s)", what, rc, err);
    if (rc == FATBIN_OK) {
        CHECK(p.arch == arch && p.arch_specific == spec, "%s: arch %d specific %d", what,
              p.arch, p.arch_specific);
        CHECK(strcmp(p.text, text) == 0 && p.len == strlen(text), "%s: text '%.40s'", what,
              p.text);
    }
    fatbin_free(&p);
}

static void expect_err(const Ent *e, int n, int want, const char *needle, const char *what)
{
    FatbinPtx p;
    char err[512] = "";
    int rc = pick_ents(e, n, &p, err, sizeof err);
    CHECK(rc == want && p.text == NULL, "%s: rc %d, want %d (%s)", what, rc, want, err);
    if (needle) CHECK(strstr(err, needle) != NULL, "%s: message '%s' lacks '%s'", what, err,
                      needle);
    fatbin_free(&p);
}

static void test_choice(void)
{
    Ent a[] = { ptx(75, 0, "A75"), ptx(90, 0, "A90"), ptx(80, 0, "A80") };
    expect_ok(a, 3, 90, 0, "A90", "newest <= 90");
    Ent b[] = { ptx(90, 0x100000, "B90a"), ptx(90, 0, "B90") };
    expect_ok(b, 2, 90, 1, "B90a", "sm_90a first");
    Ent c[] = { ptx(90, 0, "C90"), ptx(90, 0x100000, "C90a"), elf(90, 0x100000) };
    expect_ok(c, 3, 90, 1, "C90a", "sm_90a second");
    Ent d[] = { ptx(100, 0x200000, "D100f"), ptx(120, 0x100000, "D120a"), ptx(86, 0, "D86") };
    expect_ok(d, 3, 86, 0, "D86", "newer PTX skipped");
    Ent e[] = { ptx(100, 0, "E100"), elf(100, 0) };
    expect_err(e, 2, FATBIN_ERR_NO_PTX, "PTX only for compute_100", "only newer PTX");
    Ent f[] = { elf(80, 0), elf(90, 0x100000), elf(90, 0x100000) };
    expect_err(f, 3, FATBIN_ERR_NO_PTX, "only SASS for sm_80, sm_90a (no PTX); rebuild it with "
               "-arch=sm_90", "SASS only");
    expect_err(NULL, 0, FATBIN_ERR_NO_PTX, "no code entries", "empty fatbin");
    Ent g[] = { { .kind = 8, .arch = 90, .payload = "x", .psize = 1 } };
    expect_err(g, 1, FATBIN_ERR_NO_PTX, "no PTX", "LTO IR only");
}

static void test_plain_and_names(void)
{
    Ent a[] = { { .kind = 1, .arch = 90, .payload = "PTX\0\0\0junk", .psize = 10 } };
    expect_ok(a, 1, 90, 0, "PTX", "text ends at first NUL");
    Ent b[] = { { .kind = 1, .arch = 90, .payload = "PTXTEXT", .psize = 7 } };
    expect_ok(b, 1, 90, 0, "PTXTEXT", "payload without NUL");
    Ent c[] = { { .kind = 1, .arch = 90, .payload = "\0\0\0\0", .psize = 4 } };
    expect_err(c, 1, FATBIN_ERR_FORMAT, "empty", "empty PTX");

    Ent d = ptx(90, 0, "named");
    d.name = "kernel.cu";
    FatbinPtx p;
    char err[512] = "";
    int rc = pick_ents(&d, 1, &p, err, sizeof err);
    CHECK(rc == FATBIN_OK && strcmp(p.name, "kernel.cu") == 0, "name: rc %d '%s'", rc,
          rc ? "" : p.name);
    fatbin_free(&p);

    char longname[400];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    d.name = longname;
    rc = pick_ents(&d, 1, &p, err, sizeof err);
    CHECK(rc == FATBIN_OK && strlen(p.name) == sizeof p.name - 1, "long name: rc %d", rc);
    fatbin_free(&p);

    /* Point the name past the header: an inconsistent entry. */
    d.name = "kernel.cu";
    Buf fb = make_fatbin(&d, 1);
    set_le(fb.p + 16 + 0x20, 0x1000, 4);
    rc = pick(&fb, &p, err, sizeof err);
    CHECK(rc == FATBIN_ERR_FORMAT && strstr(err, "name"), "name outside header: rc %d (%s)",
          rc, err);
    set_le(fb.p + 16 + 0x20, 0x40, 4);
    set_le(fb.p + 16 + 0x24, 0xfffffff0u, 4);
    rc = pick(&fb, &p, err, sizeof err);
    CHECK(rc == FATBIN_ERR_FORMAT && strstr(err, "name"), "name longer than header: rc %d (%s)",
          rc, err);
    free(fb.p);
}

static void test_headers(void)
{
    Ent one = ptx(90, 0, "ok");
    Buf fb = make_fatbin(&one, 1);
    FatbinPtx p;
    char err[512];
    /* wrap: also try through the wrapper, which trusts the header's sizes unless absurd. */
    struct { uint32_t off; int bytes; uint64_t val; int wrap; const char *what; } cases[] = {
        { 0, 4, 0xBA55ED51u, 1, "fatbin magic" },
        { 4, 2, 2, 1, "fatbin version" },
        { 6, 2, 8, 1, "fatbin header size < 16" },
        { 6, 2, 0xffff, 0, "fatbin header size > avail" },
        { 8, 8, 0x1000, 0, "body > avail" },
        { 8, 8, 0xffffffffffffffffull, 1, "huge body" },
        { 8, 8, 0x100000000ull, 1, "4 GiB body" },
        { 16 + 4, 4, 0x20, 1, "entry header < 0x40" },
        { 16 + 4, 4, 0xfffffff0u, 1, "entry header past end" },
        { 16 + 8, 8, 0xfffffffffffffff0ull, 1, "entry payload past end" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *c = malloc(fb.n);
        memcpy(c, fb.p, fb.n);
        set_le(c + cases[i].off, cases[i].val, cases[i].bytes);
        err[0] = 0;
        int rc = fatbin_pick_ptx_data(c, fb.n, &p, err, sizeof err);
        CHECK(rc == FATBIN_ERR_FORMAT && err[0], "%s: rc %d", cases[i].what, rc);
        err[0] = 0;
        rc = cases[i].wrap ? pick_wrapped(c, &p, err, sizeof err) : FATBIN_ERR_FORMAT;
        CHECK(rc == FATBIN_ERR_FORMAT && (err[0] || !cases[i].wrap), "%s (wrapped): rc %d",
              cases[i].what, rc);
        free(c);
    }
    /* Trailing bytes inside the body too short for an entry header. */
    Buf t = {0};
    put(&t, fb.p, fb.n);
    put_le(&t, 0, 8);
    set_le(t.p + 8, get_le(t.p + 8, 8) + 8, 8);
    CHECK(pick(&t, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "trailing garbage in body");
    free(t.p);
    /* Bytes after the body are not ours: a section may hold more fatbins. */
    Buf u = {0};
    put(&u, fb.p, fb.n);
    put_le(&u, 0xdeadbeef, 8);
    CHECK(pick(&u, &p, err, sizeof err) == FATBIN_OK, "bytes after the fatbin");
    fatbin_free(&p);
    free(u.p);

    CHECK(fatbin_pick_ptx_data(NULL, 100, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "NULL data");
    CHECK(fatbin_pick_ptx_data(fb.p, fb.n, NULL, err, sizeof err) == FATBIN_ERR_FORMAT,
          "NULL out");
    CHECK(fatbin_pick_ptx(NULL, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "NULL wrapper");
    struct { int magic, version; const void *data; void *aux; } w = { 0x466243b0, 1, fb.p, NULL };
    CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "wrapper magic");
    w.magic = 0x466243b1;
    w.version = 3;
    CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "wrapper version");
    w.version = 2;                                   /* the dlink wrapper's version */
    CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_OK, "wrapper version 2");
    fatbin_free(&p);
    w.data = NULL;
    CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "wrapper data NULL");
    /* A tiny or absent error buffer must be safe. */
    char tiny[8];
    w.data = fb.p;
    w.version = 9;
    CHECK(fatbin_pick_ptx(&w, &p, tiny, sizeof tiny) == FATBIN_ERR_FORMAT &&
          strlen(tiny) == 7, "tiny error buffer");
    CHECK(fatbin_pick_ptx(&w, &p, NULL, 0) == FATBIN_ERR_FORMAT, "NULL error buffer");
    fatbin_free(NULL);
    /* A header that claims more than the readable memory it lies in (0xffff-byte header at
     * the end of a page followed by an inaccessible one): an error, not a fault. */
    long pg = sysconf(_SC_PAGESIZE);
    uint8_t *two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED && fb.n <= (size_t)pg, "mmap for the guard-page case");
    if (two != MAP_FAILED && fb.n <= (size_t)pg) {
        mprotect(two + pg, (size_t)pg, PROT_NONE);
        uint8_t *at = two + pg - ((fb.n + 7) & ~(size_t)7);
        memcpy(at, fb.p, fb.n);
        w.version = 1;
        w.data = at;
        CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_OK, "fatbin at a page end");
        fatbin_free(&p);
        set_le(at + 6, 0xffff, 2);
        err[0] = 0;
        CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT && strstr(err, "readable"),
              "header size 0xffff before a guard page: %s", err);
        set_le(at + 6, 16, 2);
        set_le(at + 8, get_le(at + 8, 8) + 4096, 8);
        CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT, "body past the guard page");
        w.data = two + pg;
        CHECK(fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_ERR_FORMAT && strstr(err, "not readable"),
              "wrapper data in an inaccessible page");
        munmap(two, 2 * (size_t)pg);
    }
    free(fb.p);
}

static Buf zstd_frame(const char *text, size_t n, int with_size)
{
    Buf z = {0};
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, with_size);
    z.cap = ZSTD_compressBound(n);
    z.p = malloc(z.cap);
    if (with_size) {
        z.n = ZSTD_compress2(cc, z.p, z.cap, text, n);
    } else {   /* streaming with no pledged size: the frame records no content size */
        ZSTD_inBuffer in = { text, n, 0 };
        ZSTD_outBuffer out = { z.p, z.cap, 0 };
        size_t left;
        do left = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end); while (left && !ZSTD_isError(left));
        z.n = out.pos;
    }
    ZSTD_freeCCtx(cc);
    if (ZSTD_isError(z.n)) { printf("zstd compression failed\n"); exit(2); }
    return z;
}

static Ent zent(const Buf *z, size_t pad, uint64_t usize)
{
    Ent e = { .kind = 1, .arch = 90, .flags = 0x8000, .payload = z->p, .psize = z->n + pad,
              .csize = (uint32_t)z->n, .usize = usize };
    return e;
}

static void test_zstd(void)
{
    /* A large, repetitive text so the inflate buffer has to grow many times. */
    size_t n = 0;
    char *big = malloc(1 << 21);
    while (n + 40 < (1u << 21))
        n += (size_t)sprintf(big + n, "\tadd.s32 %%r%zu, %%r%zu, 1;\n", n % 97, n % 89);
    Buf z = zstd_frame(big, n + 1, 1), zu = zstd_frame(big, n + 1, 0);
    Buf zp = {0};   /* NUL-padded payload, as nvcc writes it */
    put(&zp, z.p, z.n);
    put_le(&zp, 0, 4);
    Ent e = zent(&zp, 0, n + 1);
    e.csize = (uint32_t)z.n;
    expect_ok(&e, 1, 90, 0, big, "zstd with size");
    e = zent(&zu, 0, 0);
    expect_ok(&e, 1, 90, 0, big, "zstd, frame without size, entry without size");
    e = zent(&zu, 0, n + 1);
    expect_ok(&e, 1, 90, 0, big, "zstd, frame without size, entry with size");
    e = zent(&zu, 0, n + 11);
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "inflated to", "zstd output short of the stated size");
    e = zent(&zu, 0, n / 2);
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "past", "zstd output beyond the stated size");
    e = zent(&z, 0, n + 5);
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "frame says", "zstd size mismatch");
    e = zent(&z, 0, n + 1);
    e.csize -= 5;
    expect_err(&e, 1, FATBIN_ERR_ZSTD, NULL, "zstd frame cut short");
    e = zent(&z, 0, n + 1);
    e.csize = 0;
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "does not fit", "zstd csize 0");
    e.csize = (uint32_t)z.n + 1;
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "does not fit", "zstd csize > payload");
    Ent g = ptx(90, 0x8000, "this is not a zstd frame");
    g.csize = (uint32_t)g.psize;
    g.usize = 100;
    expect_err(&g, 1, FATBIN_ERR_ZSTD, "zstd", "not a zstd frame");
    Ent h = ptx(90, 0x1000, "x");
    expect_err(&h, 1, FATBIN_ERR_FORMAT, "0x1000", "old compression flag");
    Ent k = ptx(90, 0xA000, "x");
    expect_err(&k, 1, FATBIN_ERR_FORMAT, "both", "two compression flags");
    /* A damaged entry that is not the one chosen does not matter. */
    Ent both[] = { ptx(80, 0x1000, "x"), ptx(90, 0, "fine") };
    expect_ok(both, 2, 90, 0, "fine", "unchosen bad entry");
    free(big); free(z.p); free(zu.p); free(zp.p);
}

static Ent lzent(const uint8_t *blk, size_t n, uint64_t usize)
{
    Ent e = { .kind = 1, .arch = 90, .flags = 0x2000, .payload = blk, .psize = n,
              .csize = (uint32_t)n, .usize = usize };
    return e;
}

static void test_lz4(void)
{
    /* "ab" + 10-byte copy at distance 2 + literal "!". */
    static const uint8_t s1[] = { 0x26, 'a', 'b', 2, 0, 0x10, '!' };
    Ent e = lzent(s1, sizeof s1, 13);
    expect_ok(&e, 1, 90, 0, "abababababab!", "lz4 short");
    /* 300 literals ('x', length 15+255+30) and a 279-byte copy (4+15+255+5) at distance 1. */
    uint8_t s2[400];
    size_t n = 0;
    s2[n++] = 0xff; s2[n++] = 255; s2[n++] = 30;
    memset(s2 + n, 'x', 300); n += 300;
    s2[n++] = 1; s2[n++] = 0; s2[n++] = 255; s2[n++] = 5;
    s2[n++] = 0x10; s2[n++] = 0;
    char want[600];
    memset(want, 'x', 579);
    want[579] = 0;
    e = lzent(s2, n, 580);
    expect_ok(&e, 1, 90, 0, want, "lz4 long lengths");
    static const uint8_t zero_off[] = { 0x26, 'a', 'b', 0, 0, 0x10, '!' };
    e = lzent(zero_off, sizeof zero_off, 13);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 offset 0");
    static const uint8_t far_off[] = { 0x26, 'a', 'b', 3, 0, 0x10, '!' };
    e = lzent(far_off, sizeof far_off, 13);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 offset before start");
    static const uint8_t long_lit[] = { 0x90, 'a', 'b' };
    e = lzent(long_lit, sizeof long_lit, 9);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 literals past input");
    e = lzent(s1, sizeof s1, 12);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 output past stated size");
    e = lzent(s1, sizeof s1, 14);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 output short of stated size");
    e = lzent(s1, sizeof s1, 1u << 20);
    expect_err(&e, 1, FATBIN_ERR_FORMAT, "implausible", "lz4 absurd size");
    static const uint8_t cut_len[] = { 0x2f, 'a', 'b', 2, 0 };
    e = lzent(cut_len, sizeof cut_len, 40);
    expect_err(&e, 1, FATBIN_ERR_ZSTD, "LZ4", "lz4 match length cut off");
}

/* ---- a fresh nvcc build, when nvcc is installed --------------------------------------------- */

static void test_nvcc(void)
{
    const char *nvcc = getenv("NVCC");
    if (!nvcc || !*nvcc) nvcc = "/usr/local/cuda/bin/nvcc";
    if (access(nvcc, X_OK) != 0) {
        printf("skip: %s not found; the fresh-build check did not run (fixtures did)\n", nvcc);
        return;
    }
    char dir[] = "/tmp/test_fatbin_XXXXXX", cmd[8192], path[256];
    if (!mkdtemp(dir)) { CHECK(0, "mkdtemp failed"); return; }
    snprintf(path, sizeof path, "%s/k.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f) { CHECK(0, "cannot write %s", path); return; }
    fprintf(f, "__global__ void fresh_kernel(int *p) { p[threadIdx.x] = 7; }\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd %s && '%s' -gencode arch=compute_90a,code=compute_90a "
             "-gencode arch=compute_80,code=sm_80 -fatbin -o k.fatbin k.cu >/dev/null 2>&1 && "
             "'%s' -gencode arch=compute_90,code=sm_90 -fatbin -o s.fatbin k.cu >/dev/null 2>&1",
             dir, nvcc, nvcc);
    int st = system(cmd);
    CHECK(st == 0, "nvcc failed (%d): %s", st, cmd);
    char saved_dir[sizeof data_dir];
    memcpy(saved_dir, data_dir, sizeof data_dir);
    snprintf(data_dir, sizeof data_dir, "%s", dir);
    if (st == 0) {
        Buf b = load("k.fatbin");
        FatbinPtx p;
        char err[512] = "";
        int rc = b.p ? pick(&b, &p, err, sizeof err) : -1;
        CHECK(rc == FATBIN_OK && p.arch == 90 && p.arch_specific &&
              strstr(p.text, "\n.target sm_90a\n") && strstr(p.text, "fresh_kernel"),
              "fresh sm_90a build: rc %d (%s)", rc, err);
        if (rc == FATBIN_OK) fatbin_free(&p);
        free(b.p);
        b = load("s.fatbin");
        rc = b.p ? pick(&b, &p, err, sizeof err) : -1;
        CHECK(rc == FATBIN_ERR_NO_PTX && strstr(err, "only SASS for sm_90"),
              "fresh SASS-only build: rc %d (%s)", rc, err);
        free(b.p);
    }
    memcpy(data_dir, saved_dir, sizeof data_dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", dir);
}

int main(int argc, char **argv)
{
    find_data_dir(argc, argv);
    test_fixture_sm90a();
    test_fixture_encodings();
    test_fixture_ident_and_sass();
    test_fixture_section();
    test_choice();
    test_plain_and_names();
    test_headers();
    test_zstd();
    test_lz4();
    const char *small[] = { "lz4.fatbin", "ident.fatbin", "sm90a.fatbin", "nocompress.fatbin",
                            "sassonly.fatbin" };
    for (int i = 0; i < 5; i++) {
        test_truncations(small[i]);
        test_body_cuts(small[i]);
        test_flips(small[i], 4000);
    }
    test_nvcc();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
