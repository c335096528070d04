/* ptxrun.c - runs one PTX conformance test (tests/ptx/NAME.ptx) and prints its results.
 *
 * The same file builds two drivers: the emulator's (this file alone, linked with the
 * emulator library) and the real GPU's (tests/gpu/ptxrun_cuda.c defines PTXRUN_CUDA, includes
 * this file and supplies the CUDA driver-API backend). Parsing, buffer set-up and printing
 * are shared, so both print byte-identical output for the same outcome; that output, taken
 * on an H100, is the test's .expected file.
 *
 * Test format: directives in `//` comments (by convention at the top of the .ptx file):
 *   // @kernel NAME                 the .entry to launch (required)
 *   // @grid X [Y [Z]]              grid size, default 1 1 1
 *   // @block X [Y [Z]]             block size, default 32 1 1
 *   // @shared BYTES                dynamic shared memory, default 0
 *   // @cluster X [Y [Z]]           launch with thread-block clusters of X*Y*Z CTAs (the
 *                                   grid must be a multiple); without it, a plain launch
 *   // @arg buf NAME TYPE COUNT [= V1 V2 ...]
 *                                   a device buffer of COUNT elements, filled with 0xCD
 *                                   bytes; the listed values initialise its first elements
 *   // @arg TYPE VALUE              a scalar parameter
 *   // @arg tmap BUF DT RANK DIMS STRIDES BOX ESTRIDES IL SW L2 OOB
 *                                   a 128-byte tensor map parameter (declare it in the PTX as
 *                                   .param .align 64 .b8 NAME[128]), encoded over buffer BUF
 *                                   (an earlier @arg buf) with cuTensorMapEncodeTiled's
 *                                   arguments: DT a CUtensorMapDataType number, DIMS, BOX and
 *                                   ESTRIDES RANK comma-separated numbers, STRIDES RANK-1 of
 *                                   them in bytes ("-" for rank 1), IL SW L2 OOB the enum
 *                                   numbers. A refused encoding is a harness failure.
 *   // @dump NAME [NAME ...]        print these buffers after the launch, in this order
 *   // @expect-error                the module load or the launch is meant to fail
 *   // @tolerance-ulp N             (read by run_ptx_tests.sh only) 32-bit results may be
 *                                   N ulps from the expected ones: approximate functions
 *   // @tolerance-abs X             (same) 32-bit results, read as f32, may differ by X
 * @arg lines give the kernel's parameters in order. TYPE is u8 u16 u32 u64 s8 s16 s32 s64
 * b8 b16 b32 b64 f16 bf16 f32 f64. A VALUE is a decimal integer (may be negative), raw bits
 * in hex (0x7f800000, any type), or for f32/f64 a decimal float (1.5, -0, inf, 1e-40);
 * f16/bf16 values are hex bits only.
 *
 * Output (stdout): an error prints one line and stops, nothing is dumped after it:
 *   load: cudaErrorInvalidPtx        (codes 200..599: image/PTX/symbol errors, from the
 *                                     module load or, in the emulator, from the deferred
 *                                     translation at the first launch)
 *   launch: cudaErrorIllegalAddress  (any other code, from the launch or the synchronize)
 * Otherwise each dumped buffer prints one line per element: `out[3] = 0x0000002a`, with 2,
 * 4, 8 or 16 hex digits for 1, 2, 4, 8-byte types. Diagnostics go to stderr (not compared).
 * Exit status: 0 when the outcome (error or not) is what @expect-error says, 1 when it is
 * not, 2 for a malformed test or a harness failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>

#define MAX_ARGS 32
#define MAX_DUMPS 16
#define FILL_BYTE 0xCD

typedef struct Type { const char *name; unsigned size; char kind; } Type;  /* kind: u s f h */

static const Type types[] = {
    {"u8", 1, 'u'}, {"u16", 2, 'u'}, {"u32", 4, 'u'}, {"u64", 8, 'u'},
    {"s8", 1, 's'}, {"s16", 2, 's'}, {"s32", 4, 's'}, {"s64", 8, 's'},
    {"b8", 1, 'u'}, {"b16", 2, 'u'}, {"b32", 4, 'u'}, {"b64", 8, 'u'},
    {"f16", 2, 'h'}, {"bf16", 2, 'h'}, {"f32", 4, 'f'}, {"f64", 8, 'f'},
};

typedef struct Arg {
    char name[32];
    const Type *type;
    int is_buf;
    size_t count;              /* elements, buffers only                      */
    unsigned char *host;       /* initial contents, then the dumped contents  */
    uint64_t dev;              /* device address of a buffer                  */
    _Alignas(64) unsigned char scalar[128];  /* a scalar's bytes; a buffer's device
                                                address; a tensor map */
    int tmap_buf;              /* tensor maps: the buffer's argument index, else -1  */
    int dt, il, sw, l2, oob;
    uint32_t rank, box[5], es[5];
    uint64_t dims[5], strides[4];
} Arg;

typedef struct Test {
    const char *path;
    char kernel[128];
    unsigned grid[3], block[3], shared, cluster[3];
    int has_cluster;           /* @cluster given: launch with these cluster dimensions */
    int nargs, ndumps, expect_error;
    Arg args[MAX_ARGS];
    int dumps[MAX_DUMPS];
} Test;

/* The backend: the emulator below, or the CUDA driver API in gpu/ptxrun_cuda.c. Each
 * returns 0 or a cudaError_t/CUresult number (identical for the codes used here). */
static int be_init(void);
static int be_load(const char *ptx, size_t len, const char *path, const char *kernel);
static int be_alloc(uint64_t *dev, size_t bytes);
static int be_upload(uint64_t dev, const void *src, size_t bytes);
static int be_download(void *dst, uint64_t dev, size_t bytes);
static int be_launch(const unsigned grid[3], const unsigned block[3], unsigned shared,
                     const unsigned *cluster, void **args);   /* cluster: NULL or [3] */
static int be_encode_tiled(void *tmap, const Arg *a, uint64_t gaddr);

static const struct { int code; const char *name; } err_names[] = {
    {0, "cudaSuccess"}, {1, "cudaErrorInvalidValue"}, {2, "cudaErrorMemoryAllocation"},
    {9, "cudaErrorInvalidConfiguration"}, {13, "cudaErrorInvalidSymbol"},
    {98, "cudaErrorInvalidDeviceFunction"}, {200, "cudaErrorInvalidKernelImage"},
    {209, "cudaErrorNoKernelImageForDevice"}, {218, "cudaErrorInvalidPtx"},
    {222, "cudaErrorUnsupportedPtxVersion"}, {400, "cudaErrorInvalidResourceHandle"},
    {500, "cudaErrorSymbolNotFound"}, {700, "cudaErrorIllegalAddress"},
    {701, "cudaErrorLaunchOutOfResources"}, {702, "cudaErrorLaunchTimeout"},
    {710, "cudaErrorAssert"}, {714, "cudaErrorHardwareStackError"},
    {715, "cudaErrorIllegalInstruction"}, {716, "cudaErrorMisalignedAddress"},
    {717, "cudaErrorInvalidAddressSpace"}, {718, "cudaErrorInvalidPc"},
    {719, "cudaErrorLaunchFailure"}, {801, "cudaErrorNotSupported"},
    {999, "cudaErrorUnknown"},
};

static const char *err_name(int code)
{
    static char buf[32];
    for (size_t i = 0; i < sizeof err_names / sizeof err_names[0]; i++)
        if (err_names[i].code == code) return err_names[i].name;
    snprintf(buf, sizeof buf, "cudaError(%d)", code);
    return buf;
}

static void die(const Test *t, int line, const char *msg, const char *what)
{
    fprintf(stderr, "ptxrun: %s:%d: %s%s%s\n", t->path, line, msg, what ? ": " : "",
            what ? what : "");
    exit(2);
}

static const Type *find_type(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, name)) return &types[i];
    return NULL;
}

/* One value of type ty into dst (little-endian, ty->size bytes); 0 on success. */
static int parse_value(const char *tok, const Type *ty, unsigned char *dst)
{
    char *end;
    uint64_t bits;
    errno = 0;
    if (!strncmp(tok, "0x", 2) || !strncmp(tok, "0X", 2)) {
        bits = strtoull(tok + 2, &end, 16);
        if (ty->size < 8 && bits >> (8 * ty->size)) return -1;   /* too wide for the type */
    } else if (ty->kind == 'f' && ty->size == 4) {
        float f = strtof(tok, &end);       /* strtof: no double rounding for subnormals */
        uint32_t b;
        memcpy(&b, &f, 4);
        bits = b;
    } else if (ty->kind == 'f') {
        double f = strtod(tok, &end);
        memcpy(&bits, &f, 8);
    } else if (ty->kind == 'h') {
        return -1;                          /* f16/bf16: hex bits only */
    } else if (tok[0] == '-') {
        int64_t v = strtoll(tok, &end, 10);
        if (ty->size < 8 && v < -(INT64_C(1) << (8 * ty->size - 1))) return -1;
        bits = (uint64_t)v;
    } else {
        bits = strtoull(tok, &end, 10);
        if (ty->size < 8 && bits >> (8 * ty->size)) return -1;
    }
    if (*end || end == tok || errno == EINVAL) return -1;
    for (unsigned i = 0; i < ty->size; i++) dst[i] = (unsigned char)(bits >> (8 * i));
    return 0;
}

/* Splits s into whitespace-separated words in place; returns their count. */
static int split(char *s, char **w, int max)
{
    int n = 0;
    for (char *p = strtok(s, " \t\r\n"); p && n < max; p = strtok(NULL, " \t\r\n")) w[n++] = p;
    return n;
}

static void parse_dims(Test *t, int line, char **w, int n, unsigned dim[3])
{
    if (n < 2 || n > 4) die(t, line, "expected 1 to 3 sizes", w[0]);
    for (int i = 0; i < 3; i++) {
        char *end;
        unsigned long v = i + 1 < n ? strtoul(w[i + 1], &end, 0) : 1;
        if ((i + 1 < n && *end) || v == 0 || v > 0x7fffffffu) die(t, line, "bad size", w[0]);
        dim[i] = (unsigned)v;
    }
}

/* A comma-separated list of exactly n numbers ("-" for none). */
static void parse_list(Test *t, int line, const char *s, uint64_t *v, uint32_t n)
{
    uint32_t k = 0;
    if (strcmp(s, "-"))
        for (const char *p = s;; p++) {
            char *end;
            if (k == n) die(t, line, "too many numbers in a @arg tmap list", s);
            v[k++] = strtoull(p, &end, 0);
            if (end == p || (*end && *end != ',')) die(t, line, "bad @arg tmap list", s);
            if (!*end) break;
            p = end;
        }
    if (k != n) die(t, line, "too few numbers in a @arg tmap list", s);
}

static void parse_tmap(Test *t, int line, Arg *a, char **w, int n)
{
    uint64_t v[5];
    if (n != 13) die(t, line, "@arg tmap BUF DT RANK DIMS STRIDES BOX ESTRIDES IL SW L2 OOB", NULL);
    a->tmap_buf = -1;
    for (int k = 0; k < t->nargs - 1; k++)
        if (t->args[k].is_buf && !strcmp(t->args[k].name, w[2])) a->tmap_buf = k;
    if (a->tmap_buf < 0) die(t, line, "@arg tmap over an unknown buffer (declare it first)", w[2]);
    snprintf(a->name, sizeof a->name, "tmap");
    a->dt = atoi(w[3]);
    a->rank = (uint32_t)atoi(w[4]);
    if (a->rank < 1 || a->rank > 5) die(t, line, "@arg tmap rank is 1 to 5", w[4]);
    parse_list(t, line, w[5], a->dims, a->rank);
    parse_list(t, line, w[6], a->strides, a->rank - 1);
    parse_list(t, line, w[7], v, a->rank);
    for (uint32_t i = 0; i < a->rank; i++) a->box[i] = (uint32_t)v[i];
    parse_list(t, line, w[8], v, a->rank);
    for (uint32_t i = 0; i < a->rank; i++) a->es[i] = (uint32_t)v[i];
    a->il = atoi(w[9]); a->sw = atoi(w[10]); a->l2 = atoi(w[11]); a->oob = atoi(w[12]);
}

static void parse_arg(Test *t, int line, char **w, int n)
{
    if (t->nargs == MAX_ARGS) die(t, line, "too many @arg", NULL);
    Arg *a = &t->args[t->nargs++];
    memset(a, 0, sizeof *a);
    a->tmap_buf = -1;
    if (n >= 2 && !strcmp(w[1], "tmap")) {
        parse_tmap(t, line, a, w, n);
    } else if (n >= 2 && !strcmp(w[1], "buf")) {
        if (n < 5 || (n > 5 && strcmp(w[5], "="))) die(t, line, "@arg buf NAME TYPE COUNT [= values]", NULL);
        char *end;
        a->is_buf = 1;
        snprintf(a->name, sizeof a->name, "%s", w[2]);
        if (!(a->type = find_type(w[3]))) die(t, line, "unknown type", w[3]);
        a->count = strtoul(w[4], &end, 0);
        if (*end || a->count == 0 || a->count > (1u << 24)) die(t, line, "bad count", w[4]);
        if (n > 6 && (size_t)(n - 6) > a->count) die(t, line, "more values than elements", NULL);
        a->host = malloc(a->count * a->type->size);
        if (!a->host) die(t, line, "out of memory", NULL);
        memset(a->host, FILL_BYTE, a->count * a->type->size);
        for (int i = 6; i < n; i++)
            if (parse_value(w[i], a->type, a->host + (size_t)(i - 6) * a->type->size))
                die(t, line, "bad value", w[i]);
    } else {
        if (n != 3) die(t, line, "@arg TYPE VALUE", NULL);
        if (!(a->type = find_type(w[1]))) die(t, line, "unknown type", w[1]);
        if (parse_value(w[2], a->type, a->scalar)) die(t, line, "bad value", w[2]);
    }
}

static void parse_dump(Test *t, int line, char **w, int n)
{
    for (int i = 1; i < n; i++) {
        int k = 0;
        while (k < t->nargs && !(t->args[k].is_buf && !strcmp(t->args[k].name, w[i]))) k++;
        if (k == t->nargs) die(t, line, "@dump of an unknown buffer (declare it first)", w[i]);
        if (t->ndumps == MAX_DUMPS) die(t, line, "too many dumps", NULL);
        t->dumps[t->ndumps++] = k;
    }
}

static void parse_directive(Test *t, int line, char *text)
{
    char *w[4096];
    int n = split(text, w, 4096);
    if (n == 4096) die(t, line, "directive too long", NULL);
    if (!strcmp(w[0], "@kernel") && n == 2) snprintf(t->kernel, sizeof t->kernel, "%s", w[1]);
    else if (!strcmp(w[0], "@grid")) parse_dims(t, line, w, n, t->grid);
    else if (!strcmp(w[0], "@block")) parse_dims(t, line, w, n, t->block);
    else if (!strcmp(w[0], "@cluster")) {
        parse_dims(t, line, w, n, t->cluster);
        t->has_cluster = 1;
    }
    else if (!strcmp(w[0], "@shared") && n == 2) t->shared = (unsigned)strtoul(w[1], NULL, 0);
    else if (!strcmp(w[0], "@arg")) parse_arg(t, line, w, n);
    else if (!strcmp(w[0], "@dump")) parse_dump(t, line, w, n);
    else if (!strcmp(w[0], "@expect-error") && n == 1) t->expect_error = 1;
    else if ((!strcmp(w[0], "@tolerance-ulp") || !strcmp(w[0], "@tolerance-abs")) && n == 2) {
        /* read by run_ptx_tests.sh, which compares */
    }
    else die(t, line, "unknown or malformed directive", w[0]);
}

/* Reads the directives of the PTX text (modified: directive lines are cut into words). */
static void parse_test(Test *t, char *text)
{
    int line = 1;
    t->grid[0] = t->grid[1] = t->grid[2] = 1;
    t->block[0] = 32; t->block[1] = t->block[2] = 1;
    for (char *p = text; *p; line++) {
        char *eol = strchr(p, '\n');
        char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (q[0] == '/' && q[1] == '/') {
            q += 2;
            while (*q == ' ' || *q == '\t') q++;
            if (*q == '@') {
                size_t len = eol ? (size_t)(eol - q) : strlen(q);
                char *copy = malloc(len + 1);
                if (!copy) die(t, line, "out of memory", NULL);
                memcpy(copy, q, len);
                copy[len] = 0;
                parse_directive(t, line, copy);   /* copies what it keeps */
                free(copy);
            }
        }
        if (!eol) break;
        p = eol + 1;
    }
    if (!t->kernel[0]) die(t, line, "no @kernel directive", NULL);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

static void print_buffer(const Arg *a)
{
    unsigned sz = a->type->size;
    for (size_t i = 0; i < a->count; i++) {
        uint64_t v = 0;
        for (unsigned b = 0; b < sz; b++) v |= (uint64_t)a->host[i * sz + b] << (8 * b);
        printf("%s[%zu] = 0x%0*llx\n", a->name, i, (int)(2 * sz), (unsigned long long)v);
    }
}

/* Prints the error line for a failed step; returns the exit status. */
static int report_error(const Test *t, int code)
{
    printf("%s: %s\n", code >= 200 && code < 600 ? "load" : "launch", err_name(code));
    fflush(stdout);
    if (!t->expect_error) fprintf(stderr, "ptxrun: %s: unexpected error %d\n", t->path, code);
    return t->expect_error ? 0 : 1;
}

static int run_test(Test *t, const char *ptx, size_t len)
{
    void *params[MAX_ARGS];
    int rc = be_load(ptx, len, t->path, t->kernel);
    if (rc) return report_error(t, rc);
    for (int i = 0; i < t->nargs; i++) {
        Arg *a = &t->args[i];
        params[i] = a->scalar;
        if (a->tmap_buf >= 0) {
            int rc2 = be_encode_tiled(a->scalar, a, t->args[a->tmap_buf].dev);
            if (rc2) {
                fprintf(stderr, "ptxrun: %s: encoding the tensor map failed (%d)\n", t->path, rc2);
                return 2;
            }
            continue;
        }
        if (!a->is_buf) continue;
        size_t bytes = a->count * a->type->size;
        if (be_alloc(&a->dev, bytes) || be_upload(a->dev, a->host, bytes)) {
            fprintf(stderr, "ptxrun: %s: cannot set up buffer %s\n", t->path, a->name);
            return 2;
        }
        memcpy(a->scalar, &a->dev, 8);
    }
    rc = be_launch(t->grid, t->block, t->shared, t->has_cluster ? t->cluster : NULL, params);
    if (rc) return report_error(t, rc);
    for (int i = 0; i < t->ndumps; i++) {
        Arg *a = &t->args[t->dumps[i]];
        if (be_download(a->host, a->dev, a->count * a->type->size)) {
            fprintf(stderr, "ptxrun: %s: cannot read back buffer %s\n", t->path, a->name);
            return 2;
        }
        print_buffer(a);
    }
    fflush(stdout);
    if (t->expect_error) fprintf(stderr, "ptxrun: %s: expected an error, got none\n", t->path);
    return t->expect_error ? 1 : 0;
}

int main(int argc, char **argv)
{
    static Test t;
    size_t len;
    if (argc != 2) {
        fprintf(stderr, "usage: %s TEST.ptx\n", argv[0]);
        return 2;
    }
    t.path = argv[1];
    char *ptx = read_file(argv[1], &len);
    char *scratch = ptx ? malloc(len + 1) : NULL;
    if (!scratch) {
        fprintf(stderr, "ptxrun: cannot read %s\n", argv[1]);
        return 2;
    }
    memcpy(scratch, ptx, len + 1);
    parse_test(&t, scratch);
    free(scratch);
    if (be_init()) {
        fprintf(stderr, "ptxrun: backend initialisation failed\n");
        free(ptx);
        return 2;
    }
    int rc = run_test(&t, ptx, len);
    free(ptx);
    return rc;
}

#ifndef PTXRUN_CUDA
/* ---- the emulator backend ---- */
#include "jit/jit.h"
#include "emu/memory.h"
#include "emu/tma.h"
#include "emu/tools/attach.h"

static EmuKernel *emu_kernel;

/* Weak until the emulator implements cluster launches: a test without @cluster never
 * needs it, and one with @cluster reports cudaErrorNotSupported while it is missing. */
#pragma weak emu_launch_ex

static int be_init(void)
{
    tools_attach();   /* PTXEMU_RACECHECK and the other tools' variables, as the driver does */
    return emu_init(0);
}

static int be_load(const char *ptx, size_t len, const char *path, const char *kernel)
{
    char err[1024] = "";
    int code = EMU_ERR_INVALID_PTX;
    JitModule *m = jit_module_load(ptx, len, path, err, sizeof err, &code);
    if (!m) {
        fprintf(stderr, "%s\n", err);
        return code ? code : EMU_ERR_INVALID_PTX;
    }
    emu_kernel = jit_module_kernel(m, kernel);
    if (!emu_kernel) {
        fprintf(stderr, "ptxrun: no .entry %s in %s\n", kernel, path);
        return 500;             /* what cuModuleGetFunction says: CUDA_ERROR_NOT_FOUND */
    }
    return 0;
}

static int be_alloc(uint64_t *dev, size_t bytes)
{
    *dev = mem_alloc(bytes, MEM_DEVICE);
    return *dev ? 0 : EMU_ERR_MEMORY_ALLOCATION;
}

static int be_upload(uint64_t dev, const void *src, size_t bytes)
{
    void *p = mem_host(dev, bytes);
    if (!p) return EMU_ERR_INVALID_VALUE;
    memcpy(p, src, bytes);
    return 0;
}

static int be_download(void *dst, uint64_t dev, size_t bytes)
{
    const void *p = mem_host(dev, bytes);
    if (!p) return EMU_ERR_INVALID_VALUE;
    memcpy(dst, p, bytes);
    return 0;
}

static int be_encode_tiled(void *tmap, const Arg *a, uint64_t gaddr)
{
    return tma_encode_tiled(tmap, a->dt, a->rank, (void *)(uintptr_t)gaddr, a->dims, a->strides,
                            a->box, a->es, a->il, a->sw, a->l2, a->oob);
}

static int be_launch(const unsigned grid[3], const unsigned block[3], unsigned shared,
                     const unsigned *cluster, void **args)
{
    char err[1024] = "";
    int code;
    if (!cluster)
        code = emu_launch(emu_kernel, grid, block, shared, args, err, sizeof err);
    else if (emu_launch_ex)
        code = emu_launch_ex(emu_kernel, grid, block, cluster, shared, args, err, sizeof err);
    else {
        snprintf(err, sizeof err, "ptxrun: this emulator build has no emu_launch_ex (@cluster)");
        code = EMU_ERR_NOT_SUPPORTED;
    }
    if (code) fprintf(stderr, "%s\n", err);
    return code;
}
#endif
