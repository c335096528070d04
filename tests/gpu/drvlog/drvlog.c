/* drvlog.c - a logging libcuda.so.1 for machines with a real GPU: it forwards every call to the
 * real driver and writes one line per call (arguments, bytes they point at before and after,
 * the result) to $DRVLOG_OUT. It is how ptxemu found out what NVIDIA's static runtime asks of
 * the driver: which functions through cuGetProcAddress, which private tables through
 * cuGetExportTable, and what their entries take and return (docs/driver.md).
 *
 * Every function pointer handed to the program (exported names, cuGetProcAddress results,
 * export-table entries) is a trampoline generated at run time. The trampoline keeps the
 * caller's return address on a per-thread stack, calls the real function with the caller's
 * registers and stack arguments untouched, logs the result and returns to the caller.
 * x86-64 only. Build: see record_driver_calls.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "runtime/driver/integrity.h"

typedef struct Tramp {
    void *real;
    char name[96];
} Tramp;

static void *real_lib;
static FILE *logf_;
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static int pipefd[2] = { -1, -1 };

/* ---- logging helpers ---- */

static void logline(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&log_mu);
    vfprintf(logf_ ? logf_ : stderr, fmt, ap);
    fflush(logf_ ? logf_ : stderr);
    pthread_mutex_unlock(&log_mu);
    va_end(ap);
}

/* Copies n readable bytes at p into out; 0 when p is not readable (tested through a pipe,
 * which fails with EFAULT instead of crashing). */
static int peek(const void *p, void *out, size_t n)
{
    if ((uintptr_t)p < 4096 || pipefd[0] < 0) return 0;
    pthread_mutex_lock(&log_mu);
    ssize_t w = write(pipefd[1], p, n);
    int ok = w == (ssize_t)n && read(pipefd[0], out, n) == (ssize_t)n;
    if (w > 0 && !ok) { char junk[256]; (void)!read(pipefd[0], junk, (size_t)w); }
    pthread_mutex_unlock(&log_mu);
    return ok;
}

#define PEEK 48

static void hex(char *out, const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
}

/* ---- trampolines ---- */

typedef struct Frame {
    void *ret;
    Tramp *t;
    uint64_t args[6];
    unsigned char before[6][PEEK];
    unsigned char ok[6];
    unsigned long seq;
} Frame;

#define DEPTH 256
static __thread Frame frames[DEPTH];
static __thread int nframes;
static unsigned long seq_counter;

void *drvlog_enter(Tramp *t, void *ret, uint64_t *regs);
void *drvlog_exit(uint64_t rax);

/* regs: rdi rsi rdx rcx r8 r9 rax (saved by the common stub). Returns the real function. */
void *drvlog_enter(Tramp *t, void *ret, uint64_t *regs)
{
    if (nframes >= DEPTH) abort();
    Frame *f = &frames[nframes++];
    f->ret = ret;
    f->t = t;
    f->seq = __atomic_add_fetch(&seq_counter, 1, __ATOMIC_RELAXED);
    char line[2048];
    int k = snprintf(line, sizeof line, "%*s> #%lu %s(", 2 * (nframes - 1), "", f->seq, t->name);
    for (int i = 0; i < 6; i++) {
        f->args[i] = regs[i];
        f->ok[i] = (uint8_t)peek((void *)regs[i], f->before[i], PEEK);
        k += snprintf(line + k, sizeof line - k, "%s%#lx", i ? ", " : "", (unsigned long)regs[i]);
    }
    snprintf(line + k, sizeof line - k, ")\n");
    logline("%s", line);
    for (int i = 0; i < 6; i++)
        if (f->ok[i]) {
            char h[2 * PEEK + 1];
            hex(h, f->before[i], PEEK);
            logline("%*s    a%d@ %s\n", 2 * (nframes - 1), "", i, h);
        }
    /* strings are worth seeing whole */
    if (!strcmp(t->name, "cuGetProcAddress") || !strcmp(t->name, "cuGetProcAddress_v2"))
        logline("%*s    sym=%s version=%lu flags=%#lx\n", 2 * (nframes - 1), "",
                (const char *)regs[0], (unsigned long)regs[2], (unsigned long)regs[3]);
    return t->real;
}

void *drvlog_exit(uint64_t rax)
{
    Frame *f = &frames[--nframes];
    logline("%*s< #%lu %s = %#lx\n", 2 * nframes, "", f->seq, f->t->name, (unsigned long)rax);
    for (int i = 0; i < 6; i++) {
        unsigned char after[PEEK];
        if (!f->ok[i] || !peek((void *)f->args[i], after, PEEK)) continue;
        if (!memcmp(after, f->before[i], PEEK)) continue;
        char h[2 * PEEK + 1];
        hex(h, after, PEEK);
        logline("%*s    a%d> %s\n", 2 * nframes, "", i, h);
    }
    return f->ret;
}

/* The common stub: r11 = Tramp*. */
__asm__(
    ".text\n"
    ".globl drvlog_common\n"
    ".hidden drvlog_common\n"
    "drvlog_common:\n"
    "  pop %r10\n"                      /* caller's return address; rsp = 16n */
    "  sub $192, %rsp\n"
    "  mov %rdi, 0(%rsp)\n"
    "  mov %rsi, 8(%rsp)\n"
    "  mov %rdx, 16(%rsp)\n"
    "  mov %rcx, 24(%rsp)\n"
    "  mov %r8, 32(%rsp)\n"
    "  mov %r9, 40(%rsp)\n"
    "  mov %rax, 48(%rsp)\n"
    "  movdqu %xmm0, 64(%rsp)\n"
    "  movdqu %xmm1, 80(%rsp)\n"
    "  movdqu %xmm2, 96(%rsp)\n"
    "  movdqu %xmm3, 112(%rsp)\n"
    "  movdqu %xmm4, 128(%rsp)\n"
    "  movdqu %xmm5, 144(%rsp)\n"
    "  movdqu %xmm6, 160(%rsp)\n"
    "  movdqu %xmm7, 176(%rsp)\n"
    "  mov %r11, %rdi\n"
    "  mov %r10, %rsi\n"
    "  mov %rsp, %rdx\n"
    "  call drvlog_enter\n"
    "  mov %rax, %r11\n"
    "  mov 0(%rsp), %rdi\n"
    "  mov 8(%rsp), %rsi\n"
    "  mov 16(%rsp), %rdx\n"
    "  mov 24(%rsp), %rcx\n"
    "  mov 32(%rsp), %r8\n"
    "  mov 40(%rsp), %r9\n"
    "  mov 48(%rsp), %rax\n"
    "  movdqu 64(%rsp), %xmm0\n"
    "  movdqu 80(%rsp), %xmm1\n"
    "  movdqu 96(%rsp), %xmm2\n"
    "  movdqu 112(%rsp), %xmm3\n"
    "  movdqu 128(%rsp), %xmm4\n"
    "  movdqu 144(%rsp), %xmm5\n"
    "  movdqu 160(%rsp), %xmm6\n"
    "  movdqu 176(%rsp), %xmm7\n"
    "  add $192, %rsp\n"
    "  call *%r11\n"
    "  sub $16, %rsp\n"
    "  mov %rax, 0(%rsp)\n"
    "  mov %rdx, 8(%rsp)\n"
    "  mov %rax, %rdi\n"
    "  call drvlog_exit\n"
    "  mov %rax, %r10\n"
    "  mov 0(%rsp), %rax\n"
    "  mov 8(%rsp), %rdx\n"
    "  add $16, %rsp\n"
    "  push %r10\n"
    "  ret\n");
void drvlog_common(void);

/* Code pages: each trampoline is `movabs $tramp, %r11; movabs $common, %rax; jmp *%rax`...
 * but rax carries the vector-register count of variadic calls, so r10 is used instead. */
static unsigned char *code;
static size_t code_used, code_cap;

static void *make_tramp(void *real, const char *name)
{
    if (!real) return NULL;
    if (!code || code_used + 32 > code_cap) {
        code_cap = 1 << 20;
        code = mmap(NULL, code_cap, PROT_READ | PROT_WRITE | PROT_EXEC,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (code == MAP_FAILED) abort();
        code_used = 0;
    }
    Tramp *t = calloc(1, sizeof *t);
    t->real = real;
    snprintf(t->name, sizeof t->name, "%s", name);
    unsigned char *p = code + code_used;
    uint64_t tp = (uint64_t)(uintptr_t)t, cp = (uint64_t)(uintptr_t)drvlog_common;
    p[0] = 0x49; p[1] = 0xbb; memcpy(p + 2, &tp, 8);          /* movabs $t, %r11     */
    p[10] = 0x49; p[11] = 0xba; memcpy(p + 12, &cp, 8);       /* movabs $common, %r10 */
    p[20] = 0x41; p[21] = 0xff; p[22] = 0xe2;                 /* jmp *%r10            */
    code_used += 32;
    return p;
}

/* ---- the exported names: generated table of every cu* name of the driver ---- */

#include "names.h"   /* #define DRVLOG_NAMES X(cuInit) X(...) ... */
#define X(n) 0,
__attribute__((visibility("hidden"))) void *drvlog_ptrs[] = { DRVLOG_NAMES 0 };
#undef X
#define X(n) #n,
static const char *drvlog_names[] = { DRVLOG_NAMES 0 };
#undef X

static pthread_mutex_t wrap_mu = PTHREAD_MUTEX_INITIALIZER;

static int is_in_real(const void *p)
{
    Dl_info di;
    if (!p || !dladdr(p, &di) || !di.dli_fname) return 0;
    return strstr(di.dli_fname, "libcuda") != NULL || strstr(di.dli_fname, "libnvidia") != NULL;
}

/* Export tables: copied with their function entries wrapped, remembered per table address. */
typedef struct Table { const void *real; void **copy; unsigned char uuid[16]; } Table;
static Table tables[64];
static int ntables;

static const unsigned char integrity_uuid[16] = { 0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b,
                                                  0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2 };
static const unsigned char cudart_uuid[16] = { 0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                               0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9 };
typedef int (*check_fn)(unsigned, uint64_t, unsigned char *);
static check_fn real_check;
static int my_check(unsigned version, uint64_t secs, unsigned char *out);

static Table *table_of(const unsigned char *uuid)
{
    for (int i = 0; i < ntables; i++)
        if (!memcmp(tables[i].uuid, uuid, 16)) return &tables[i];
    return NULL;
}

/* The devices as the digest sees them, from the real driver. */
static int devices(IntegrityDevice *d, int max)
{
    int n = 0;
    int (*count)(int *) = dlsym(real_lib, "cuDeviceGetCount");
    int (*get)(int *, int) = dlsym(real_lib, "cuDeviceGet");
    int (*uuidf)(unsigned char *, int) = dlsym(real_lib, "cuDeviceGetUuid_v2");
    int (*attr)(int *, int, int) = dlsym(real_lib, "cuDeviceGetAttribute");
    if (!count || count(&n)) return 0;
    if (n > max) n = max;
    for (int i = 0; i < n; i++) {
        int dev = 0;
        get(&dev, i);
        uuidf(d[i].uuid, dev);
        attr(&d[i].pci_domain, 50, dev);
        attr(&d[i].pci_bus, 33, dev);
        attr(&d[i].pci_device, 34, dev);
    }
    return n;
}

static void hex16(char *o, const unsigned char *b) { hex(o, b, 16); }

/* Checks ptxemu's digest against the driver's (real tables), then answers for the wrapped
 * tables the runtime holds. */
static int my_check(unsigned version, uint64_t secs, unsigned char *out)
{
    unsigned char real[16], mine[16], alt[16];
    int rc = real_check(version, secs, real);
    IntegrityDevice devs[16];
    int nd = devices(devs, 16);
    int dv = 0;
    int (*drvver)(int *) = dlsym(real_lib, "cuDriverGetVersion");
    drvver(&dv);
    Table *it = table_of(integrity_uuid), *ct = table_of(cudart_uuid);
    IntegrityInput in = { (uint32_t)dv, version, (uint32_t)getpid(), (uint32_t)pthread_self(),
                          ct ? ct->real : NULL, it ? it->real : NULL, (void *)real_check, secs };
    integrity_answer(&in, devs, nd, mine);
    char a[40], b[40], c[40];
    hex16(a, real);
    hex16(b, mine);
    logline("    integrity v=%u secs=%lu rc=%d driver=%s ptxemu=%s %s (devices %d, driver version %d)\n",
            version, (unsigned long)secs, rc, a, b, memcmp(real, mine, 16) ? "DIFFER" : "same", nd, dv);
    if (memcmp(real, mine, 16)) {   /* the obvious alternatives, to say which holds */
        IntegrityInput v2 = in;
        v2.thread = (uint32_t)syscall(SYS_gettid);
        integrity_answer(&v2, devs, nd, alt);
        hex16(c, alt);
        logline("    alt gettid: %s %s\n", c, memcmp(real, alt, 16) ? "differ" : "same");
        v2 = in;
        v2.cudart_table = in.integrity_table;
        v2.integrity_table = in.cudart_table;
        integrity_answer(&v2, devs, nd, alt);
        hex16(c, alt);
        logline("    alt swapped tables: %s %s\n", c, memcmp(real, alt, 16) ? "differ" : "same");
        integrity_answer(&in, devs, 0, alt);
        hex16(c, alt);
        logline("    alt no devices: %s %s\n", c, memcmp(real, alt, 16) ? "differ" : "same");
    }
    in.cudart_table = ct ? (void *)ct->copy : NULL;
    in.integrity_table = it ? (void *)it->copy : NULL;
    in.check_fn = (void *)my_check;
    integrity_answer(&in, devs, nd, out);
    return rc;
}

static void *wrap_table(const void *real, const unsigned char *uuid)
{
    pthread_mutex_lock(&wrap_mu);
    for (int i = 0; i < ntables; i++)
        if (tables[i].real == real) { pthread_mutex_unlock(&wrap_mu); return tables[i].copy; }
    const uint64_t *src = real;
    uint64_t first;
    int n = 0;
    if (peek(src, &first, 8) && first < 0x1000 && first % 8 == 0 && first >= 8) n = (int)(first / 8);
    if (!n) {   /* no size word: entries while they point into the driver */
        uint64_t v;
        while (n < 64 && peek(src + n, &v, 8) && is_in_real((void *)v)) n++;
    }
    char id[40];
    hex(id, uuid, 16);
    logline("    table %s at %p: %d entries (first word %#lx)\n", id, real, n,
            (unsigned long)(n ? src[0] : 0));
    void **copy = calloc((size_t)n + 1, sizeof *copy);
    for (int i = 0; i < n; i++) {
        void *v = (void *)src[i];
        if (is_in_real(v)) {
            char nm[96];
            snprintf(nm, sizeof nm, "ET_%.8s[%d]", id, i);
            copy[i] = make_tramp(v, nm);
            logline("      [%d] fn %p\n", i, v);
        } else {
            copy[i] = v;
            logline("      [%d] data %#lx\n", i, (unsigned long)src[i]);
        }
    }
    if (ntables < 64) {
        tables[ntables].real = real;
        tables[ntables].copy = copy;
        memcpy(tables[ntables].uuid, uuid, 16);
        ntables++;
    }
    if (!memcmp(uuid, integrity_uuid, 16) && n > 1) {
        real_check = (check_fn)src[1];
        copy[1] = (void *)my_check;
    }
    pthread_mutex_unlock(&wrap_mu);
    return copy;
}

/* cuGetProcAddress and cuGetExportTable get special wrappers around the logging trampoline:
 * their outputs must be wrapped too. */
typedef int (*gpa_v2_fn)(const char *, void **, int, uint64_t, int *);
typedef int (*gpa_fn)(const char *, void **, int, uint64_t);
typedef int (*get_table_fn)(const void **, const unsigned char *);
static gpa_v2_fn real_gpa_v2;
static gpa_fn real_gpa;
static get_table_fn real_get_table;

static int my_gpa(const char *sym, void **pfn, int ver, uint64_t flags);
static int my_gpa_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    int rc = real_gpa_v2(sym, pfn, ver, flags, status);
    logline("    gpa_v2 %s ver=%d flags=%#lx -> rc=%d status=%d\n", sym, ver,
            (unsigned long)flags, rc, status ? *status : -1);
    if (rc == 0 && pfn && *pfn) {
        char nm[96];
        snprintf(nm, sizeof nm, "%s@%d", sym, ver);
        if (!strcmp(sym, "cuGetExportTable")) *pfn = make_tramp(dlsym(RTLD_DEFAULT, "drvlog_get_table"), nm);
        else if (!strcmp(sym, "cuGetProcAddress"))
            *pfn = make_tramp(ver >= 12000 ? (void *)my_gpa_v2 : (void *)my_gpa, nm);
        else *pfn = make_tramp(*pfn, nm);
    }
    return rc;
}

static int my_gpa(const char *sym, void **pfn, int ver, uint64_t flags)
{
    int st = 0;
    return my_gpa_v2(sym, pfn, ver, flags, &st);
}

__attribute__((visibility("default"))) int drvlog_gpa_v2(const char *sym, void **pfn, int ver,
                                                        uint64_t flags, int *status)
{
    return my_gpa_v2(sym, pfn, ver, flags, status);
}

__attribute__((visibility("default"))) int drvlog_get_table(const void **table,
                                                           const unsigned char *uuid)
{
    int rc = real_get_table(table, uuid);
    char id[40];
    hex(id, uuid, 16);
    logline("    cuGetExportTable %s -> rc=%d table=%p\n", id, rc, rc == 0 ? *table : NULL);
    if (rc == 0 && *table) *table = wrap_table(*table, uuid);
    return rc;
}

__attribute__((constructor)) static void drvlog_init(void)
{
    const char *out = getenv("DRVLOG_OUT");
    logf_ = out ? fopen(out, "a") : NULL;
    if (pipe(pipefd)) pipefd[0] = -1;
    const char *path = getenv("DRVLOG_REAL");
    real_lib = dlopen(path ? path : "/usr/lib/x86_64-linux-gnu/libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!real_lib) { fprintf(stderr, "drvlog: %s\n", dlerror()); abort(); }
    real_gpa_v2 = (gpa_v2_fn)dlsym(real_lib, "cuGetProcAddress_v2");
    real_gpa = (gpa_fn)dlsym(real_lib, "cuGetProcAddress");
    real_get_table = (get_table_fn)dlsym(real_lib, "cuGetExportTable");
    logline("drvlog: loaded in pid %d\n", (int)getpid());
    for (int i = 0; drvlog_names[i]; i++) {
        const char *n = drvlog_names[i];
        void *r;
        if (!strcmp(n, "cuGetProcAddress_v2")) r = (void *)my_gpa_v2;
        else if (!strcmp(n, "cuGetProcAddress")) r = (void *)my_gpa;
        else if (!strcmp(n, "cuGetExportTable")) r = (void *)drvlog_get_table;
        else r = dlsym(real_lib, n);
        char nm[96];
        snprintf(nm, sizeof nm, "sym:%s", n);
        drvlog_ptrs[i] = make_tramp(r, nm);
    }
}
