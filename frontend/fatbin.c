/* fatbin.c - walks an nvcc fatbinary, picks the PTX an sm_90 device should run and inflates it.
 *
 * The layout (measured on nvcc 13.0, see docs/fatbin.md) is a 16-byte fatbin header followed
 * by entries, each a self-describing header (>= 0x40 bytes) and a payload. Every offset and
 * size is checked against the bytes we were given before it is used, so a damaged fatbinary
 * gives FATBIN_ERR_FORMAT instead of a stray read.
 */
#include "fatbin.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define WRAPPER_MAGIC   0x466243b1u
#define FATBIN_MAGIC    0xBA55ED50u
#define FATBIN_HDR_MIN  16u
#define ENTRY_HDR_MIN   0x40u
#define FATBIN_MAX      (1ull << 32)  /* the wrapper states no size: refuse absurd ones   */
#define TEXT_MAX        (1ull << 31)  /* largest PTX we agree to inflate                  */
#define DEVICE_ARCH     90

enum { KIND_PTX = 1, KIND_ELF = 2 };

/* Entry flag bits (measured; see docs/fatbin.md). */
#define FL_LZ4          0x2000ull     /* payload is one raw LZ4 block                      */
#define FL_ZSTD         0x8000ull     /* payload is a zstd frame                           */
#define FL_OTHER_COMP   0x5000ull     /* 0x1000 is an older compression flag we never saw;
                                         0x4000 sits among them: refuse rather than guess */
#define FL_ARCH_SPEC    0x100000ull   /* sm_XXa / compute_XXa                              */
#define FL_FAMILY       0x200000ull   /* sm_XXXf / compute_XXXf                            */

/* Entry header field offsets. */
enum {
    EO_KIND = 0x00, EO_HSIZE = 0x04, EO_PSIZE = 0x08, EO_CSIZE = 0x10, EO_ARCH = 0x1c,
    EO_NAME_OFF = 0x20, EO_NAME_LEN = 0x24, EO_FLAGS = 0x28, EO_USIZE = 0x38
};

typedef struct Entry {
    const uint8_t *hdr;
    const uint8_t *payload;
    uint64_t psize, usize, flags;
    uint32_t hsize, csize, arch, name_off, name_len;
    unsigned kind;
} Entry;

/* What a scan found, for the choice and for the "no usable PTX" message. */
typedef struct Scan {
    Entry best;
    int best_rank;             /* -1: none yet */
    char sass[160];            /* "sm_80, sm_90a" */
    char newer_ptx[160];       /* "compute_100"   */
    int n_entries;
} Scan;

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static const char *arch_suffix(uint64_t flags)
{
    return (flags & FL_ARCH_SPEC) ? "a" : (flags & FL_FAMILY) ? "f" : "";
}

/* Appends "<prefix>_<arch><suffix>" to a comma list unless it is already there. */
static void list_add(char *list, size_t cap, const char *prefix, const Entry *e)
{
    char item[32];
    snprintf(item, sizeof item, "%s_%u%s", prefix, e->arch, arch_suffix(e->flags));
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += strlen(item)) {
        char end = p[strlen(item)];
        if ((p == list || p[-1] == ' ') && (end == ',' || end == '\0'))
            return;
    }
    size_t n = strlen(list);
    snprintf(list + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Decodes the entry header at p, which has `left` bytes up to the end of the fatbin. */
static int parse_entry(const uint8_t *p, uint64_t left, Entry *e, char *err, size_t errlen)
{
    if (left < ENTRY_HDR_MIN)
        return fail(err, errlen, FATBIN_ERR_FORMAT,
                    "fatbin entry header truncated (%llu bytes left, need %u)",
                    (unsigned long long)left, ENTRY_HDR_MIN);
    e->hdr = p;
    e->kind = rd16(p + EO_KIND);
    e->hsize = rd32(p + EO_HSIZE);
    e->psize = rd64(p + EO_PSIZE);
    e->csize = rd32(p + EO_CSIZE);
    e->arch = rd32(p + EO_ARCH);
    e->name_off = rd32(p + EO_NAME_OFF);
    e->name_len = rd32(p + EO_NAME_LEN);
    e->flags = rd64(p + EO_FLAGS);
    e->usize = rd64(p + EO_USIZE);
    if (e->hsize < ENTRY_HDR_MIN || e->hsize > left)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbin entry header size %u is invalid "
                    "(%llu bytes left)", e->hsize, (unsigned long long)left);
    if (e->psize > left - e->hsize)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbin entry payload of %llu bytes runs "
                    "past the fatbin end (%llu bytes left)", (unsigned long long)e->psize,
                    (unsigned long long)(left - e->hsize));
    /* The identifier lives in the header's variable tail, after the fixed 0x40 bytes. */
    if (e->name_len && (e->name_off < ENTRY_HDR_MIN || e->name_off > e->hsize ||
                        e->name_len > e->hsize - e->name_off))
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbin entry name (offset %u, %u bytes) "
                    "lies outside its %u-byte header", e->name_off, e->name_len, e->hsize);
    e->payload = p + e->hsize;
    return FATBIN_OK;
}

/* Preference of a PTX entry for the sm_90 device; -1 when it cannot run there. */
static int ptx_rank(const Entry *e)
{
    if (e->kind != KIND_PTX || e->arch > DEVICE_ARCH)
        return -1;
    return (int)e->arch * 4 + ((e->flags & FL_ARCH_SPEC) ? 2 : (e->flags & FL_FAMILY) ? 1 : 0);
}

static void scan_note(Scan *s, const Entry *e)
{
    int r = ptx_rank(e);
    s->n_entries++;
    if (r > s->best_rank) {
        s->best_rank = r;
        s->best = *e;
    }
    if (e->kind == KIND_ELF)
        list_add(s->sass, sizeof s->sass, "sm", e);
    else if (e->kind == KIND_PTX && r < 0)
        list_add(s->newer_ptx, sizeof s->newer_ptx, "compute", e);
}

static int scan_entries(const uint8_t *p, uint64_t size, Scan *s, char *err, size_t errlen)
{
    uint64_t off = 0;
    while (off < size) {
        Entry e;
        int rc = parse_entry(p + off, size - off, &e, err, errlen);
        if (rc)
            return rc;
        scan_note(s, &e);
        off += e.hsize + e.psize;   /* both bounded by size - off above */
    }
    return FATBIN_OK;
}

static int no_ptx(const Scan *s, char *err, size_t errlen)
{
    const char *fix = "rebuild it with -arch=sm_90 (or -gencode arch=compute_90,code=compute_90)"
                      " so ptxemu can read its PTX";
    if (s->newer_ptx[0])
        return fail(err, errlen, FATBIN_ERR_NO_PTX, "the program carries PTX only for %s, newer "
                    "than the emulated sm_90%s%s; %s", s->newer_ptx,
                    s->sass[0] ? ", and SASS for " : "", s->sass, fix);
    if (s->sass[0])
        return fail(err, errlen, FATBIN_ERR_NO_PTX, "the program carries only SASS for %s "
                    "(no PTX); %s", s->sass, fix);
    if (s->n_entries)
        return fail(err, errlen, FATBIN_ERR_NO_PTX, "the fatbinary has no PTX or SASS entry "
                    "(only other kinds, e.g. LTO IR); %s", fix);
    return fail(err, errlen, FATBIN_ERR_NO_PTX, "the fatbinary holds no code entries");
}

/* One raw LZ4 block (the format of lz4's LZ4_decompress_safe): sequences of a token
 * (literal length high nibble, match length - 4 low nibble, 15 = more length bytes follow),
 * the literals, and a 2-byte little-endian back offset. The last sequence has no match. */
static int lz4_len(const uint8_t *src, size_t n, size_t *i, size_t *len)
{
    if (*len != 15)
        return 0;
    for (;;) {
        if (*i >= n)
            return -1;
        uint8_t b = src[(*i)++];
        *len += b;
        if (b != 255)
            return 0;
        if (*len > TEXT_MAX)
            return -1;
    }
}

static int lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *outlen)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t tok = src[i++];
        size_t lit = tok >> 4, match = tok & 15;
        if (lz4_len(src, n, &i, &lit) || lit > n - i || lit > cap - o)
            return -1;
        memcpy(dst + o, src + i, lit);
        i += lit;
        o += lit;
        if (i == n)
            break;                       /* last sequence: literals only */
        if (n - i < 2)
            return -1;
        size_t back = rd16(src + i);
        i += 2;
        if (lz4_len(src, n, &i, &match))
            return -1;
        match += 4;
        if (back == 0 || back > o || match > cap - o)
            return -1;
        for (size_t k = 0; k < match; k++, o++)   /* bytewise: source may overlap output */
            dst[o] = dst[o - back];
    }
    *outlen = o;
    return 0;
}

static int inflate_lz4(const Entry *e, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    /* LZ4 expands at most ~255:1, which bounds what a damaged size field can make us allocate. */
    if (e->usize == 0 || e->usize > TEXT_MAX || e->usize > (uint64_t)e->csize * 255 + 64)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "LZ4 entry states an implausible size: "
                    "%llu bytes from %u", (unsigned long long)e->usize, e->csize);
    *buf = malloc(e->usize + 1);
    if (!*buf)
        return fail(err, errlen, FATBIN_ERR_NOMEM, "out of memory inflating %llu bytes of PTX",
                    (unsigned long long)e->usize);
    if (lz4_block(e->payload, e->csize, *buf, e->usize, len) || *len != e->usize)
        return fail(err, errlen, FATBIN_ERR_ZSTD, "LZ4-compressed PTX entry is corrupt "
                    "(expected %llu bytes)", (unsigned long long)e->usize);
    return FATBIN_OK;
}

/* Grows *buf to at least `want` bytes (plus room for a NUL), never past `limit`. */
static int grow(uint8_t **buf, size_t *cap, size_t want, size_t limit)
{
    size_t n = *cap ? *cap : 4096;
    while (n < want)
        n *= 2;
    if (n > limit)
        n = limit;
    uint8_t *p = realloc(*buf, n + 1);
    if (!p)
        return -1;
    *buf = p;
    *cap = n;
    return 0;
}

/* Streams the frame(s) so the buffer tracks real output: a damaged size field cannot make
 * us allocate gigabytes up front, and frames without a content size still work. */
static int zstd_stream(const uint8_t *src, size_t n, size_t limit, uint8_t **buf, size_t *len,
                       char *err, size_t errlen)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    size_t cap = 0, ret = 1;
    if (!dc || grow(buf, &cap, (n * 8 < limit ? n * 8 : limit), limit)) {
        ZSTD_freeDCtx(dc);
        return fail(err, errlen, FATBIN_ERR_NOMEM, "out of memory inflating PTX");
    }
    ZSTD_inBuffer in = { src, n, 0 };
    ZSTD_outBuffer out = { *buf, cap, 0 };
    while (in.pos < in.size || (ret != 0 && out.pos == out.size)) {
        if (out.pos == out.size) {
            if (cap >= limit) {
                ZSTD_freeDCtx(dc);
                return fail(err, errlen, FATBIN_ERR_FORMAT, "zstd PTX entry inflates past "
                            "its stated size of %zu bytes", limit);
            }
            if (grow(buf, &cap, cap * 2, limit)) {
                ZSTD_freeDCtx(dc);
                return fail(err, errlen, FATBIN_ERR_NOMEM, "out of memory inflating PTX");
            }
            out.dst = *buf;
            out.size = cap;
        }
        size_t before_in = in.pos, before_out = out.pos;
        ret = ZSTD_decompressStream(dc, &out, &in);
        if (ZSTD_isError(ret))
            break;
        if (in.pos == before_in && out.pos == before_out && out.pos < out.size)
            break;                       /* no progress: input ended inside a frame */
    }
    ZSTD_freeDCtx(dc);
    if (ZSTD_isError(ret))
        return fail(err, errlen, FATBIN_ERR_ZSTD, "zstd-compressed PTX entry is corrupt: %s",
                    ZSTD_getErrorName(ret));
    if (ret != 0)
        return fail(err, errlen, FATBIN_ERR_ZSTD, "zstd-compressed PTX entry is truncated");
    *len = out.pos;
    return FATBIN_OK;
}

static int inflate_zstd(const Entry *e, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    unsigned long long fsize = ZSTD_getFrameContentSize(e->payload, e->csize);
    if (fsize == ZSTD_CONTENTSIZE_ERROR)
        return fail(err, errlen, FATBIN_ERR_ZSTD, "compressed PTX entry is not a zstd frame");
    if (e->usize && fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != e->usize)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "zstd PTX entry: header says %llu bytes, "
                    "frame says %llu", (unsigned long long)e->usize, fsize);
    uint64_t limit = e->usize ? e->usize
                   : fsize != ZSTD_CONTENTSIZE_UNKNOWN ? fsize : TEXT_MAX;
    if (limit == 0 || limit > TEXT_MAX)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "zstd PTX entry states an implausible "
                    "size of %llu bytes", (unsigned long long)limit);
    int rc = zstd_stream(e->payload, e->csize, (size_t)limit, buf, len, err, errlen);
    if (rc == FATBIN_OK && e->usize && *len != e->usize)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "zstd PTX entry inflated to %zu bytes, "
                    "header says %llu", *len, (unsigned long long)e->usize);
    return rc;
}

static int copy_plain(const Entry *e, uint8_t **buf, size_t *len, char *err, size_t errlen)
{
    /* Plain payloads are NUL-padded: only the part before the first NUL is text. */
    const uint8_t *nul = memchr(e->payload, 0, e->psize);
    *len = nul ? (size_t)(nul - e->payload) : (size_t)e->psize;
    *buf = malloc(*len + 1);
    if (!*buf)
        return fail(err, errlen, FATBIN_ERR_NOMEM, "out of memory copying %zu bytes of PTX",
                    *len);
    memcpy(*buf, e->payload, *len);
    return FATBIN_OK;
}

/* Produces the NUL-terminated text of a PTX entry in a fresh malloc'ed buffer. */
static int entry_text(const Entry *e, char **text, size_t *textlen, char *err, size_t errlen)
{
    uint64_t comp = e->flags & (FL_LZ4 | FL_ZSTD | FL_OTHER_COMP);
    if (comp & FL_OTHER_COMP)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "PTX entry uses compression flag 0x%llx, "
                    "which ptxemu cannot decode; rebuild with --no-compress",
                    (unsigned long long)(comp & FL_OTHER_COMP));
    if (comp == (FL_LZ4 | FL_ZSTD))
        return fail(err, errlen, FATBIN_ERR_FORMAT, "PTX entry claims both LZ4 (0x2000) and "
                    "zstd (0x8000) compression");
    if (comp && (e->csize == 0 || e->csize > e->psize))
        return fail(err, errlen, FATBIN_ERR_FORMAT, "compressed PTX entry size %u does not fit "
                    "its %llu-byte payload", e->csize, (unsigned long long)e->psize);
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = comp == FL_ZSTD ? inflate_zstd(e, &buf, &len, err, errlen)
           : comp == FL_LZ4  ? inflate_lz4(e, &buf, &len, err, errlen)
           : copy_plain(e, &buf, &len, err, errlen);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[len] = 0;                        /* every path leaves room for it */
    len = strlen((char *)buf);           /* decompressed text also ends at its first NUL */
    if (len == 0) {
        free(buf);
        return fail(err, errlen, FATBIN_ERR_FORMAT, "PTX entry for compute_%u is empty",
                    e->arch);
    }
    *text = (char *)buf;
    *textlen = len;
    return FATBIN_OK;
}

static void entry_name(const Entry *e, char *name, size_t cap)
{
    size_t n = 0;
    if (e->name_len) {
        const char *s = (const char *)e->hdr + e->name_off;
        while (n < e->name_len && n + 1 < cap && s[n])
            n++;
        memcpy(name, s, n);
    }
    name[n] = 0;
    if (n == 0)
        snprintf(name, cap, "fatbin");
}

/* The ptxas options recorded with a PTX entry (-Xptxas, -fmad=false, -G), or "": the record
 * at header offset 0x14 is u32 string offset, u32 length, then the string (docs/fatbin.md). */
static void entry_options(const Entry *e, char *opts, size_t cap)
{
    opts[0] = 0;
    uint32_t rec = rd32(e->hdr + 0x14);
    if (!rec || rec > e->hsize || e->hsize - rec < 8) return;
    uint32_t off = rd32(e->hdr + rec), len = rd32(e->hdr + rec + 4);
    if (off > e->hsize || len > e->hsize - off) return;
    size_t n = 0;
    const char *s = (const char *)e->hdr + off;
    while (n < len && n + 1 < cap && s[n]) n++;
    memcpy(opts, s, n);
    opts[n] = 0;
}

/* Whether a SASS entry holds functions: a cubin names each in a section ".text.<name>".
 * A compressed one cannot be looked into here and counts as code. */
static int elf_has_code(const Entry *e)
{
    if (e->flags & (FL_LZ4 | FL_ZSTD | FL_OTHER_COMP))
        return 1;
    static const char text[] = "\0.text.";
    for (uint64_t i = 0; i + sizeof text - 1 <= e->psize; i++)
        if (!memcmp(e->payload + i, text, sizeof text - 1))
            return 1;
    return 0;
}

int fatbin_has_code(const void *data, size_t avail)
{
    const uint8_t *p = data;
    if (avail < FATBIN_HDR_MIN || rd32(p) != FATBIN_MAGIC)
        return 1;
    uint64_t hsize = rd16(p + 6), body = rd64(p + 8);
    if (hsize < FATBIN_HDR_MIN || hsize > avail || body > avail - hsize)
        return 1;
    for (uint64_t off = 0; off < body;) {
        Entry e;
        if (parse_entry(p + hsize + off, body - off, &e, NULL, 0))
            return 1;
        if (e.kind == KIND_PTX || (e.kind == KIND_ELF && elf_has_code(&e)))
            return 1;
        off += e.hsize + e.psize;
    }
    return 0;
}

int fatbin_pick_ptx_data(const void *data, size_t avail, FatbinPtx *out, char *err,
                         size_t errlen)
{
    const uint8_t *p = data;
    if (!out)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "no output given for the fatbinary");
    memset(out, 0, sizeof *out);
    if (!p || avail < FATBIN_HDR_MIN)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbinary is missing or shorter than its "
                    "%u-byte header", FATBIN_HDR_MIN);
    if (rd32(p) != FATBIN_MAGIC)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "bad fatbinary magic 0x%08x (want 0x%08x)",
                    rd32(p), FATBIN_MAGIC);
    unsigned version = rd16(p + 4), hsize = rd16(p + 6);
    uint64_t fsize = rd64(p + 8);
    if (version != 1)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "unsupported fatbinary version %u",
                    version);
    if (hsize < FATBIN_HDR_MIN || hsize > avail || fsize > avail - hsize)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbinary sizes (header %u, body %llu) "
                    "exceed the %zu bytes available", hsize, (unsigned long long)fsize, avail);
    Scan s;
    memset(&s, 0, sizeof s);
    s.best_rank = -1;
    int rc = scan_entries(p + hsize, fsize, &s, err, errlen);
    if (rc)
        return rc;
    if (s.best_rank < 0)
        return no_ptx(&s, err, errlen);
    rc = entry_text(&s.best, &out->text, &out->len, err, errlen);
    if (rc)
        return rc;
    out->arch = (int)s.best.arch;
    out->arch_specific = (s.best.flags & FL_ARCH_SPEC) != 0;
    entry_name(&s.best, out->name, sizeof out->name);
    entry_options(&s.best, out->options, sizeof out->options);
    return FATBIN_OK;
}

/* How many bytes from p on are mapped readable (following adjacent readable mappings), from
 * /proc/self/maps; SIZE_MAX when that cannot be read. The wrapper states no length, so this
 * bounds what a corrupt header can make us read: an error instead of a fault. */
size_t fatbin_readable_after(const void *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return SIZE_MAX;
    uintptr_t a = (uintptr_t)p, end = 0;
    unsigned long lo, hi;
    char perms[8], line[512];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
        if (end && lo == end && perms[0] == 'r') end = hi;          /* adjacent: extend */
        else if (end) break;
        else if (a >= lo && a < hi && perms[0] == 'r') end = hi;
    }
    fclose(f);
    return end ? (size_t)(end - a) : 0;
}

int fatbin_pick_ptx(const void *wrapper, FatbinPtx *out, char *err, size_t errlen)
{
    /* __fatBinC_Wrapper_t: int magic; int version; const void *data; void *filename_or_fatbins.
     * Version 1 is a per-file fatbin, version 2 the linked (-rdc / dlink) one. */
    struct { int magic, version; const void *data; void *aux; } w;
    if (out)
        memset(out, 0, sizeof *out);
    if (!wrapper)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "no fatbinary wrapper given");
    /* the wrapper itself must be readable too (found by fuzz_module: 4 magic bytes at the end
     * of the readable memory) */
    if (fatbin_readable_after(wrapper) < sizeof w)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "the fatbinary wrapper at %p is cut short by "
                    "unreadable memory", wrapper);
    memcpy(&w, wrapper, sizeof w);
    if ((uint32_t)w.magic != WRAPPER_MAGIC)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "bad fatbinary wrapper magic 0x%08x "
                    "(want 0x%08x)", (uint32_t)w.magic, WRAPPER_MAGIC);
    if (w.version != 1 && w.version != 2)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "unsupported fatbinary wrapper version %d",
                    w.version);
    if (!w.data)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbinary wrapper has no data");
    /* The wrapper gives no length: the fatbin header's, once it looks sane and stays inside
     * readable memory. */
    const uint8_t *d = w.data;
    size_t mapped = fatbin_readable_after(d);
    if (mapped < FATBIN_HDR_MIN)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "the fatbinary's memory is not readable");
    if (rd32(d) != FATBIN_MAGIC)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "bad fatbinary magic 0x%08x (want 0x%08x)",
                    rd32(d), FATBIN_MAGIC);
    uint64_t total = (uint64_t)rd16(d + 6) + rd64(d + 8);
    if (rd64(d + 8) >= FATBIN_MAX || total >= FATBIN_MAX || total > SIZE_MAX)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbinary claims an implausible size of "
                    "%llu bytes", (unsigned long long)rd64(d + 8));
    if (total > mapped)
        return fail(err, errlen, FATBIN_ERR_FORMAT, "fatbinary sizes (header %u, body %llu) "
                    "run past the %zu readable bytes it lies in", rd16(d + 6),
                    (unsigned long long)rd64(d + 8), mapped);
    return fatbin_pick_ptx_data(d, (size_t)total, out, err, errlen);
}

int fatbin_each(const void *section, size_t len,
                int (*fn)(const void *fatbin, size_t size, void *arg), void *arg)
{
    const uint8_t *p = section;
    int n = 0;
    for (size_t at = 0; at + FATBIN_HDR_MIN <= len;) {
        if (rd32(p + at) != FATBIN_MAGIC) { at += 8; continue; }
        uint64_t total = (uint64_t)rd16(p + at + 6) + rd64(p + at + 8);
        if (total > len - at || total < FATBIN_HDR_MIN) break;
        n++;
        if (fn(p + at, (size_t)total, arg)) break;
        at += (total + 7) & ~(uint64_t)7;
    }
    return n;
}

void fatbin_free(FatbinPtx *p)
{
    if (!p)
        return;
    free(p->text);
    p->text = NULL;
    p->len = 0;
}
