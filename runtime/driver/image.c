/* image.c - what a module image holds: the PTX texts ptxemu can run, from any image the
 * driver API accepts.
 *
 *   - PTX text (NUL-terminated);
 *   - a fatbinary (magic 0xBA55ED50) or nvcc's wrapper of one (0x466243b1): the PTX an sm_90
 *     device runs; a fatbinary that holds only device-linked SASS (-rdc=true) is replaced by
 *     the per-file PTX of the __nv_relfatbin section of the ELF file it came from, to be
 *     linked;
 *   - an ELF cubin: SASS only, unless NVRTC made it under the ptxemu launcher (the NVRTC shim
 *     remembers the PTX of every cubin it hands out);
 *   - ptxemu's linked image, what cuLinkComplete returns: several PTX texts to link.
 * The texts are named for diagnostics ("vectorAdd.cu.ptx" when the fatbinary records the
 * source file, else "<program>.ptx") and, with PTXEMU_DUMP_PTX=DIR, written into DIR.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/driver/image.h"
#include "frontend/elffile.h"
#include "frontend/fatbin.h"
#include "frontend/ptx_ast.h"

#define WRAPPER_MAGIC 0x466243b1u
#define FATBIN_MAGIC 0xBA55ED50u
static const char link_magic[16] = "PTXEMU-LINKED";

static uint32_t rd32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

void image_free(Image *im)
{
    for (int i = 0; i < im->n; i++) {
        free(im->text[i]);
        free(im->name[i]);
    }
    free(im->text);
    free(im->len);
    free(im->name);
    memset(im, 0, sizeof *im);
}

int image_add(Image *im, const char *text, size_t len, const char *name)
{
    char **t = realloc(im->text, (size_t)(im->n + 1) * sizeof *t);
    if (t) im->text = t;
    size_t *l = realloc(im->len, (size_t)(im->n + 1) * sizeof *l);
    if (l) im->len = l;
    char **nm = realloc(im->name, (size_t)(im->n + 1) * sizeof *nm);
    if (nm) im->name = nm;
    char *copy = malloc(len + 1);
    char *ncopy = strdup(name ? name : "program.ptx");
    if (!t || !l || !nm || !copy || !ncopy) {
        free(copy);
        free(ncopy);
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = 0;
    im->text[im->n] = copy;
    im->len[im->n] = len;
    im->name[im->n] = ncopy;
    im->n++;
    return 0;
}

int image_add_option(Image *im, const char *opt)
{
    for (int i = 0; i < im->n; i++) {
        char *t = im->text[i], *mark = NULL;
        for (char *p = strstr(t, PTX_OPTIONS_MARK); p; p = strstr(p + 1, PTX_OPTIONS_MARK)) mark = p;
        size_t keep = mark ? (size_t)(mark - t) : im->len[i];
        const char *old = mark ? mark + strlen(PTX_OPTIONS_MARK) : "";
        size_t oldlen = strcspn(old, "\n");
        if (strstr(old, opt) && strstr(old, opt) < old + oldlen) continue;   /* there already */
        size_t n = keep + strlen(PTX_OPTIONS_MARK) + oldlen + strlen(opt) + 4;
        char *nt = malloc(n);
        if (!nt) return -1;
        int k = snprintf(nt, n, "%.*s%s%s%.*s%s%s\n", (int)keep, t,
                         keep && t[keep - 1] != '\n' ? "\n" : "", PTX_OPTIONS_MARK, (int)oldlen, old,
                         oldlen ? " " : "", opt);
        free(t);
        im->text[i] = nt;
        im->len[i] = (size_t)k;
    }
    return 0;
}

/* The program's file name, for naming PTX without a recorded source file. */
static void program_name(char *out, size_t n)
{
    char exe[512] = "program";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) exe[k] = 0;
    const char *slash = strrchr(exe, '/');
    snprintf(out, n, "%s", slash ? slash + 1 : exe);
}

/* "<source>.ptx" for a fatbinary entry that names its source, else "<program>.ptx"; the
 * text is also written to $PTXEMU_DUMP_PTX/<that name>. */
static void ptx_name(const char *entry_name, const char *text, size_t len, char *out, size_t n)
{
    char base[300];
    if (!entry_name || !*entry_name || !strcmp(entry_name, "fatbin")) {
        program_name(base, sizeof base);
    } else {
        const char *slash = strrchr(entry_name, '/');
        snprintf(base, sizeof base, "%s", slash ? slash + 1 : entry_name);
    }
    snprintf(out, n, "%s.ptx", base);
    const char *dir = getenv("PTXEMU_DUMP_PTX");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, out);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(text, 1, len, f) != len)
        fprintf(stderr, "ptxemu: cannot write the PTX to %s\n", path);
    if (f) fclose(f);
}

/* The entry's ptxas options travel with its text as a last comment line, where they shift
 * no line number; the parser reads them back (PTX_OPTIONS_MARK, e.g. -fmad=false). */
static int add_fatbin_ptx(Image *im, FatbinPtx *p)
{
    char name[320];
    ptx_name(p->name, p->text, p->len, name, sizeof name);
    int rc;
    if (p->options[0]) {
        size_t n = p->len + strlen(PTX_OPTIONS_MARK) + strlen(p->options) + 3;
        char *t = malloc(n);
        if (!t) { fatbin_free(p); return -1; }
        int k = snprintf(t, n, "%.*s\n%s%s\n", (int)p->len, p->text, PTX_OPTIONS_MARK, p->options);
        rc = image_add(im, t, (size_t)k, name);
        free(t);
    } else {
        rc = image_add(im, p->text, p->len, name);
    }
    fatbin_free(p);
    return rc;
}

/* ---- -rdc=true: the per-file PTX in the __nv_relfatbin section ---- */

/* The file the image was loaded from: the program, or a shared object holding it. */
static int image_file(const void *image, char *path, size_t n)
{
    Dl_info di;
    if (dladdr(image, &di) && di.dli_fname && di.dli_fname[0] && strchr(di.dli_fname, '/')) {
        snprintf(path, n, "%s", di.dli_fname);
        return 0;
    }
    ssize_t k = readlink("/proc/self/exe", path, n - 1);
    if (k <= 0) return -1;
    path[k] = 0;
    return 0;
}

typedef struct RelCtx { Image *im; int found; } RelCtx;

static int add_rel(const void *fb, size_t size, void *arg)
{
    RelCtx *c = arg;
    FatbinPtx ptx;
    char e2[512] = "";
    if (fatbin_pick_ptx_data(fb, size, &ptx, e2, sizeof e2) != FATBIN_OK) return 0;
    if (add_fatbin_ptx(c->im, &ptx)) return 1;
    c->found++;
    return 0;
}

/* Each fatbinary in __nv_relfatbin (one per translation unit, one after the other). */
static int relfatbin_ptx(const void *image, Image *im, char *err, size_t errlen)
{
    char path[4096];
    if (image_file(image, path, sizeof path)) return -1;
    size_t size, off, len;
    unsigned char *f = elf_read_file(path, &size);
    if (!f) return -1;
    RelCtx c = { im, 0 };
    if (elf_section(f, size, "__nv_relfatbin", &off, &len) == 0)
        fatbin_each(f + off, len, add_rel, &c);
    free(f);
    if (!c.found) return -1;
    snprintf(err, errlen, "%d separately compiled modules from %.400s", c.found, path);
    return 0;
}

/* ---- host objects and archives given to the JIT linker ---- */

typedef struct ObjCtx { Image *im; int found; char why[512]; } ObjCtx;

static int add_obj_ptx(const void *fb, size_t size, void *arg)
{
    ObjCtx *c = arg;
    FatbinPtx ptx;
    char e2[512] = "";
    if (fatbin_pick_ptx_data(fb, size, &ptx, e2, sizeof e2) != FATBIN_OK) {
        if (!c->why[0]) snprintf(c->why, sizeof c->why, "%s", e2);
        return 0;
    }
    if (add_fatbin_ptx(c->im, &ptx)) return 1;
    c->found++;
    return 0;
}

/* libcudadevrt.a's one member: its device code is the device runtime, which ptxemu provides
 * itself (emu/cdp.c, emu/devrt_cg.c). */
static int is_devrt_member(const char *name)
{
    return !strcmp(name, "cuda_device_runtime.o");
}

CUresult image_read_object(const void *data, size_t size, const char *name, Image *im,
                           char *err, size_t errlen)
{
    const unsigned char *p = data;
    size_t off, len;
    if (size < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) || p[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "%s is not a 64-bit ELF object", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (elf_section(p, size, "__nv_relfatbin", &off, &len) && elf_section(p, size, ".nv_fatbin", &off, &len)) {
        if (is_devrt_member(name)) return CUDA_SUCCESS;
        snprintf(err, errlen, "%s holds no device code (no __nv_relfatbin or .nv_fatbin section)", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    ObjCtx c = { im, 0, "" };
    fatbin_each(p + off, len, add_obj_ptx, &c);
    if (c.found || is_devrt_member(name)) return CUDA_SUCCESS;
    snprintf(err, errlen, "%s: %s", name, c.why[0] ? c.why : "no PTX ptxemu can run");
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* An ar archive: "!<arch>\n", then per member a 60-byte header (name, ..., decimal size,
 * "`\n") and its bytes, padded to an even offset. GNU names end in '/'; "/" is the symbol
 * table, "//" the table of long names that "/N" members point into. */
CUresult image_read_archive(const void *data, size_t size, const char *name, Image *im,
                            char *err, size_t errlen)
{
    const char *p = data, *longnames = NULL;
    size_t longlen = 0, at = 8;
    if (size < 8 || memcmp(p, "!<arch>\n", 8)) {
        snprintf(err, errlen, "%s is not an archive (ar) of objects", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    int members = 0;
    while (at + 60 <= size) {
        const char *h = p + at;
        char field[17], mname[256];
        memcpy(field, h + 48, 10);
        field[10] = 0;
        char *end;
        unsigned long long msize = strtoull(field, &end, 10);
        if (end == field || memcmp(h + 58, "`\n", 2) || msize > size - at - 60) {
            snprintf(err, errlen, "%s: damaged archive member header at offset %zu", name, at);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        const char *body = h + 60;
        memcpy(field, h, 16);
        field[16] = 0;
        for (int i = 15; i >= 0 && field[i] == ' '; i--) field[i] = 0;
        if (!strcmp(field, "//")) {
            longnames = body;
            longlen = (size_t)msize;
        } else if (strcmp(field, "/") && strcmp(field, "/SYM64/")) {
            if (field[0] == '/' && longnames) {   /* "/N": offset N of the long names */
                size_t o = strtoul(field + 1, NULL, 10), k = 0;
                while (o + k < longlen && longnames[o + k] != '/' && longnames[o + k] != '\n' &&
                       k + 1 < sizeof mname) { mname[k] = longnames[o + k]; k++; }
                mname[k] = 0;
            } else {
                size_t k = strlen(field);
                if (k && field[k - 1] == '/') field[k - 1] = 0;
                snprintf(mname, sizeof mname, "%s", field);
            }
            CUresult e = image_read_object(body, (size_t)msize, mname, im, err, errlen);
            if (e != CUDA_SUCCESS) {
                char inner[512];
                snprintf(inner, sizeof inner, "%s", err);
                snprintf(err, errlen, "%s(%s)", name, inner);
                return e;
            }
            members++;
        }
        at += 60 + (size_t)msize + (msize & 1);
    }
    if (!members) {
        snprintf(err, errlen, "%s: an archive without objects", name);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return CUDA_SUCCESS;
}

/* ---- NVRTC cubins ---- */

/* The NVRTC shim (libptxemu-nvrtc.so, preloaded by the launcher) answers this. */
typedef const char *(*nvrtc_lookup_fn)(const void *cubin, size_t size, size_t *len);

static size_t elf_size(const unsigned char *p)
{
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    size_t end = eh.e_shoff + (size_t)eh.e_shnum * eh.e_shentsize;
    size_t ph = eh.e_phoff + (size_t)eh.e_phnum * eh.e_phentsize;
    return end > ph ? end : ph;
}

static CUresult from_elf(const unsigned char *p, size_t avail, Image *im, char *err, size_t errlen)
{
    if (avail < sizeof(Elf64_Ehdr) || elf_size(p) > avail) {
        snprintf(err, errlen, "the ELF image's headers run past the %zu readable bytes it lies in", avail);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (p[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "the image is a 32-bit ELF file, not a CUDA module");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    Elf64_Ehdr eh;
    memcpy(&eh, p, sizeof eh);
    if (eh.e_machine != 190 /* EM_CUDA */) {
        snprintf(err, errlen, "the image is an ELF file for machine %u, not a CUDA cubin",
                 eh.e_machine);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    nvrtc_lookup_fn look = (nvrtc_lookup_fn)dlsym(RTLD_DEFAULT, "ptxemu_nvrtc_ptx");
    size_t len = 0;
    const char *ptx = look ? look(p, elf_size(p), &len) : NULL;
    if (ptx) {
        char name[320];
        ptx_name("nvrtc", ptx, len, name, sizeof name);
        return image_add(im, ptx, len, name) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    }
    snprintf(err, errlen, "the image is a cubin for sm_%u: SASS only, and ptxemu runs PTX. Load "
             "PTX instead (nvcc -ptx, or -fatbin with a compute_XX target; NVRTC programs run "
             "unchanged under the ptxemu launcher, which keeps the PTX of their cubins)",
             (unsigned)((eh.e_flags >> 8) & 0xff));
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* ---- ptxemu's linked image (cuLinkComplete) ---- */

int image_is_linked(const void *image)
{
    return image && !strncmp(image, link_magic, sizeof link_magic);
}

/* magic[16], u32 count, then per text: u32 name length, u64 text length, name, text. */
void *image_pack(const Image *im, size_t *size)
{
    size_t n = sizeof link_magic + 4;
    for (int i = 0; i < im->n; i++) n += 12 + strlen(im->name[i]) + im->len[i];
    unsigned char *b = malloc(n), *p = b;
    if (!b) return NULL;
    memcpy(p, link_magic, sizeof link_magic);
    p += sizeof link_magic;
    uint32_t cnt = (uint32_t)im->n;
    memcpy(p, &cnt, 4);
    p += 4;
    for (int i = 0; i < im->n; i++) {
        uint32_t nl = (uint32_t)strlen(im->name[i]);
        uint64_t tl = im->len[i];
        memcpy(p, &nl, 4);
        memcpy(p + 4, &tl, 8);
        p += 12;
        memcpy(p, im->name[i], nl);
        p += nl;
        memcpy(p, im->text[i], tl);
        p += tl;
    }
    *size = n;
    return b;
}

static CUresult unpack(const unsigned char *p, size_t avail, Image *im)
{
    const unsigned char *end = p + avail;
    if (avail < sizeof link_magic + 4) return CUDA_ERROR_INVALID_IMAGE;
    p += sizeof link_magic;
    uint32_t cnt = rd32(p);
    p += 4;
    if (cnt == 0 || cnt > 4096) return CUDA_ERROR_INVALID_IMAGE;
    for (uint32_t i = 0; i < cnt; i++) {
        if ((size_t)(end - p) < 12) return CUDA_ERROR_INVALID_IMAGE;
        uint32_t nl = rd32(p);
        uint64_t tl;
        memcpy(&tl, p + 4, 8);
        p += 12;
        if (nl > 4096 || tl > (1ull << 31) || (uint64_t)(end - p) < nl + tl) return CUDA_ERROR_INVALID_IMAGE;
        char name[4097];
        memcpy(name, p, nl);
        name[nl] = 0;
        p += nl;
        if (image_add(im, (const char *)p, (size_t)tl, name)) return CUDA_ERROR_OUT_OF_MEMORY;
        p += tl;
    }
    return CUDA_SUCCESS;
}

/* ---- what an image is ---- */

static CUresult fatbin_error(int rc)
{
    return rc == FATBIN_ERR_NO_PTX ? CUDA_ERROR_NO_BINARY_FOR_GPU
           : rc == FATBIN_ERR_NOMEM ? CUDA_ERROR_OUT_OF_MEMORY
                                    : CUDA_ERROR_INVALID_IMAGE;
}

static CUresult from_fatbin(const void *image, int wrapper, size_t avail, Image *im, char *err,
                            size_t errlen)
{
    FatbinPtx ptx;
    int rc;
    if (wrapper) {
        rc = fatbin_pick_ptx(image, &ptx, err, errlen);
    } else {
        const unsigned char *p = image;
        uint64_t body = 0;
        if (avail >= 16) memcpy(&body, p + 8, 8);
        uint64_t total = avail >= 16 ? (uint64_t)(p[6] | p[7] << 8) + body : 0;
        if (avail < 16 || total > avail) {
            snprintf(err, errlen, "the fatbinary's sizes run past the %zu readable bytes it lies in", avail);
            rc = FATBIN_ERR_FORMAT;
        } else
            rc = total > (1ull << 32) ? FATBIN_ERR_FORMAT
                                      : fatbin_pick_ptx_data(image, (size_t)total, &ptx, err, errlen);
    }
    if (rc == FATBIN_OK)
        return add_fatbin_ptx(im, &ptx) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    /* the device-linked fatbinary of -rdc=true carries SASS only; the PTX is elsewhere */
    char note[512];
    if (rc == FATBIN_ERR_NO_PTX && relfatbin_ptx(image, im, note, sizeof note) == 0)
        return CUDA_SUCCESS;
    if (!err[0]) snprintf(err, errlen, "cannot read the fatbinary");
    return fatbin_error(rc);
}

/* Printable text that starts like PTX (comments, directives). */
static int looks_like_ptx(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    return !strncmp(s, "//", 2) || !strncmp(s, "/*", 2) || *s == '.';
}

CUresult image_read(const void *image, Image *im, char *err, size_t errlen)
{
    memset(im, 0, sizeof *im);
    err[0] = 0;
    if (!image) return CUDA_ERROR_INVALID_VALUE;
    const unsigned char *p = image;
    /* no magic holds a zero byte: a shorter string is text, and read no further */
    uint32_t magic = strnlen(image, 4) == 4 ? rd32(p) : 0;
    /* binary images state no length: what they may claim is bounded by readable memory */
    size_t avail = magic ? fatbin_readable_after(image) : 0;
    CUresult e;
    if (!magic && !looks_like_ptx(image)) {
        snprintf(err, errlen, "the image is empty or too short to be a module");
        e = CUDA_ERROR_INVALID_IMAGE;
    } else if (magic == WRAPPER_MAGIC || magic == FATBIN_MAGIC) {
        e = from_fatbin(image, magic == WRAPPER_MAGIC, avail, im, err, errlen);
    } else if (magic && !memcmp(p, ELFMAG, SELFMAG)) {
        e = from_elf(p, avail, im, err, errlen);
    } else if (image_is_linked(image)) {
        e = unpack(p, magic ? avail : 0, im);
        if (e != CUDA_SUCCESS) snprintf(err, errlen, "damaged linked image");
    } else if (looks_like_ptx(image)) {
        char name[320];
        size_t len = strlen(image);
        ptx_name(NULL, image, len, name, sizeof name);
        e = image_add(im, image, len, name) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    } else {
        snprintf(err, errlen, "the image is neither PTX, a fatbinary nor a cubin (it starts "
                 "%02x %02x %02x %02x)", p[0], p[1], p[2], p[3]);
        e = CUDA_ERROR_INVALID_IMAGE;
    }
    if (e != CUDA_SUCCESS) image_free(im);
    return e;
}
