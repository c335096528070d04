/* test_driver.c - ptxemu's libcuda.so.1 against the facts recorded from an H100's driver
 * (tests/expected/driver/): every exported name exists; cuGetProcAddress hands out, for every
 * recorded (name, version, flags), the symbol the driver handed out; error names and strings,
 * device attributes (but those ptxemu reports absent on purpose) and the export tables NVIDIA's
 * runtime asks for; and the integrity digest's MD2 against RFC 1319's test vectors.
 * Needs abs_top_srcdir (make check sets it) to find the recordings.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda.h>
#include "tests/unit/check.h"
#include "runtime/driver/integrity.h"

static char path_buf[4096];

static FILE *facts(const char *name)
{
    const char *src = getenv("abs_top_srcdir");
    snprintf(path_buf, sizeof path_buf, "%s/tests/expected/driver/%s", src ? src : ".", name);
    FILE *f = fopen(path_buf, "r");
    if (!f) fprintf(stderr, "cannot open %s\n", path_buf);
    return f;
}

/* The library itself, to look its symbols up by name. */
static void *self(void)
{
    Dl_info di;
    if (!dladdr((void *)cuInit, &di)) return NULL;
    return dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

static void test_exports(void *lib)
{
    FILE *f = facts("exports.txt");
    CHECK(f != NULL, "exports.txt");
    if (!f) return;
    char name[256];
    int n = 0, missing = 0;
    while (fscanf(f, "%255s", name) == 1) {
        n++;
        if (!dlsym(lib, name)) {
            if (missing++ < 10) fprintf(stderr, "not exported: %s\n", name);
        }
    }
    fclose(f);
    CHECK(n > 600 && missing == 0, "%d of %d recorded driver names are missing", missing, n);
}

static const char *sym_name(void *p)
{
    Dl_info di;
    if (!p) return "NULL";
    if (dladdr(p, &di) && di.dli_sname && di.dli_saddr == p) return di.dli_sname;
    return "?";
}

static void test_proc_addresses(void)
{
    FILE *f = facts("procs.txt");
    CHECK(f != NULL, "procs.txt");
    if (!f) return;
    char line[512], name[256], want[256];
    int ver, rc, st, lines = 0, bad = 0;
    unsigned long long flags;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%255s %d %llu rc=%d st=%d %255s", name, &ver, &flags, &rc, &st, want) != 6)
            continue;
        lines++;
        void *p = NULL;
        CUdriverProcAddressQueryResult got_st = (CUdriverProcAddressQueryResult)-1;
        CUresult r = cuGetProcAddress(name, &p, ver, flags, &got_st);
        const char *got = sym_name(p);
        if ((int)r != rc || (int)got_st != st || strcmp(got, want)) {
            if (bad++ < 10)
                fprintf(stderr, "%s@%d flags %llu: rc=%d st=%d %s, recorded rc=%d st=%d %s\n", name,
                        ver, flags, (int)r, (int)got_st, got, rc, st, want);
        }
    }
    fclose(f);
    CHECK(lines > 4000 && bad == 0, "%d of %d cuGetProcAddress answers differ from the H100's",
          bad, lines);
    void *p = (void *)1;
    CUdriverProcAddressQueryResult st2;
    CHECK(cuGetProcAddress("cuNoSuchFunction", &p, 13000, 0, &st2) == CUDA_SUCCESS &&
          st2 == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && !p, "an unknown name with a status");
    CHECK(cuGetProcAddress("cuInit", &p, 99999, 0, &st2) == CUDA_ERROR_INVALID_VALUE,
          "a version newer than the driver");
}

static void test_errors(void)
{
    FILE *f = facts("errors.txt");
    CHECK(f != NULL, "errors.txt");
    if (!f) return;
    char line[1024];
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int code, rc1, rc2;
        char name[256], msg[768];
        if (sscanf(line, "%d\t%d\t%255[^\t]\t%d\t%767[^\n]", &code, &rc1, name, &rc2, msg) != 5)
            continue;
        n++;
        const char *gn = NULL, *gs = NULL;
        cuGetErrorName((CUresult)code, &gn);
        cuGetErrorString((CUresult)code, &gs);
        if (!gn || !gs || strcmp(gn, name) || strcmp(gs, msg)) {
            if (bad++ < 5) fprintf(stderr, "code %d: %s / %s\n", code, gn ? gn : "?", gs ? gs : "?");
        }
    }
    fclose(f);
    CHECK(n > 90 && bad == 0, "%d of %d error names/strings differ", bad, n);
    const char *s = (const char *)1;
    CHECK(cuGetErrorName((CUresult)77777, &s) == CUDA_ERROR_INVALID_VALUE && !s, "unknown code");
}

/* The attributes ptxemu reports absent on purpose (runtime/driver/device.c). */
static int overridden(int a)
{
    static const int skip[] = { 91, 99, 102, 103, 107, 110, 112, 113, 114, 116, 117, 118, 119,
                                121, 122, 123, 124, 128, 141, 142, 144, 145 };
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (skip[i] == a) return 1;
    return 0;
}

static void test_attributes(void)
{
    FILE *f = facts("attrs.txt");
    CHECK(f != NULL, "attrs.txt");
    if (!f) return;
    char line[256];
    int n = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        int a, rc, v;
        if (sscanf(line, "attr %d rc=%d v=%d", &a, &rc, &v) != 3 || overridden(a)) continue;
        int got = -12345;
        CUresult r = cuDeviceGetAttribute(&got, (CUdevice_attribute)a, 0);
        n++;
        if ((int)r != rc || (rc == 0 && got != v)) {
            if (bad++ < 5) fprintf(stderr, "attribute %d: rc=%d %d, H100 rc=%d %d\n", a, r, got, rc, v);
        }
    }
    fclose(f);
    CHECK(n > 350 && bad == 0, "%d of %d device attributes differ from the H100's", bad, n);
}

static void test_export_tables(void)
{
    static const unsigned char ids[][16] = {
        { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 },
        { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 },
        { 0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc },
        { 0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e },
        { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 },
        { 0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9 },
    };
    /* the sizes the H100's tables state in their first word (tests/gpu/drvlog logs) */
    static const size_t sizes[] = { 0x68, 0x38, 0x18, 0x78, 0x18, 0x18 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        CUuuid id;
        memcpy(id.bytes, ids[i], 16);
        const void *t = NULL;
        CUresult r = cuGetExportTable(&t, &id);
        CHECK(r == CUDA_SUCCESS && t && *(const size_t *)t == sizes[i], "export table %zu", i);
    }
    CUuuid cls = { { (char)0xc6, (char)0x93, 0x33, 0x6e, 0x11, 0x21, (char)0xdf, 0x11, (char)0xa8,
                     (char)0xc3, 0x68, (char)0xf3, 0x55, (char)0xd8, (char)0x95, (char)0x93 } };
    const void *t = NULL;
    CHECK(cuGetExportTable(&t, &cls) == CUDA_SUCCESS && t, "context-local storage table");
    CUuuid unknown;
    memset(unknown.bytes, 0x5a, 16);
    CHECK(cuGetExportTable(&t, &unknown) == CUDA_ERROR_INVALID_VALUE, "an unknown table");

    /* the integrity check's fixed answers for versions ending in 0 and 1 (measured) */
    CUuuid ic;
    memcpy(ic.bytes, ids[4], 16);
    const void *const *tab = NULL;
    cuGetExportTable((const void **)&tab, &ic);
    CUresult (*check)(unsigned, unsigned long long, unsigned char *) =
        (CUresult (*)(unsigned, unsigned long long, unsigned char *))tab[1];
    unsigned char out[16];
    static const unsigned char v0[16] = { 0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                                          0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e };
    CHECK(check(13000, 1795551527ull, out) == CUDA_SUCCESS && !memcmp(out, v0, 16),
          "integrity answer for version 13000");
}

/* Entry [1] of table f8cff951 logs a runtime error from a format and the caller's va_list,
 * as the static runtime calls it (cudaSetDevice(1) on the H100); it consumes the arguments. */
typedef CUresult (*ErrLog)(const char *, const void *, const char *, va_list, const void *);

static int log_through(ErrLog fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    CUresult r = fn("CUDA", NULL, fmt, ap, NULL);
    int next = va_arg(ap, int);   /* what follows the consumed arguments */
    va_end(ap);
    return r == CUDA_SUCCESS ? next : -1;
}

static void test_error_log(void)
{
    CUuuid id = { { (char)0xf8, (char)0xcf, (char)0xf9, 0x51, 0x21, 0x46, (char)0x8b, 0x4e,
                    (char)0xb9, (char)0xe2, (char)0xfb, 0x46, (char)0x9e, 0x7c, 0x0d, (char)0xd9 } };
    const void *const *tab = NULL;
    CHECK(cuGetExportTable((const void **)&tab, &id) == CUDA_SUCCESS && tab, "table f8cff951");
    if (!tab) return;
    CHECK(log_through((ErrLog)tab[1], "Invalid device number %d provided, must be in the range "
                      "of 0 to %d", 1, 0, 4242) == 4242, "the error log consumes its arguments");
}

static void test_md2(void)
{
    static const struct { const char *in, *hex; } v[] = {
        { "", "8350e5a3e24c153df2275c9f80692773" },
        { "a", "32ec01ec4a6dac72c0ab96fb34c0b5d1" },
        { "abc", "da853b0d3f88d99b30283a69e6ded6bb" },
        { "message digest", "ab4f496bfb2a530b219ff33031fe06b0" },
        { "abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b" },
        { "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
          "d5976f79d83d3a0dc9806c3c66f3efd8" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        unsigned char d[16];
        char hex[33];
        md2_digest(v[i].in, strlen(v[i].in), d);
        for (int k = 0; k < 16; k++) sprintf(hex + 2 * k, "%02x", d[k]);
        CHECK(!strcmp(hex, v[i].hex), "MD2(\"%s\") = %s", v[i].in, hex);
    }
}

int main(void)
{
    test_md2();
    CHECK(cuInit(0) == CUDA_SUCCESS, "cuInit");
    void *lib = self();
    CHECK(lib != NULL, "the library's own handle");
    if (lib) test_exports(lib);
    test_proc_addresses();
    test_errors();
    test_attributes();
    test_export_tables();
    test_error_log();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
