/* jitlog.c - what only ptxas knows: the info log of a verbose JIT link (CU_JIT_LOG_VERBOSE),
 * as the GPU's driver writes it (ptxas's report for each kernel, then the linker's summary),
 * and how many registers each kernel gets, for occupancy and numRegs (launch.c).
 *
 * ptxemu compiles nothing, so it cannot know how many registers ptxas would give a kernel.
 * When NVIDIA's ptxas is installed (PTXEMU_PTXAS, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)
 * it is run once on each PTX text for sm_90a, the H100's JIT target, and its report is put
 * into the log in the driver's layout. Without ptxas the log says so instead of guessing.
 * Measured on the H100 (tests/cuda/jit_log.cu): the driver prefixes ptxas's continuation
 * lines with "ptxas         . ", does not print ptxas's "cumulative stack size", and its
 * linker reports per kernel the stack frame, static shared memory plus the 1 KiB the H100
 * reserves a block when there is any, and 0x210 bytes of constant bank 0 before the
 * parameters. A cached JIT result prints no ptxas lines on the GPU; ptxemu has no cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "runtime/driver/jitlog.h"
#include "frontend/ptx_ast.h"

extern char **environ;

typedef struct Buf { char *s; size_t n, cap; } Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (b->s && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        size_t cap = (b->cap + (size_t)k + 1) * 2;
        char *s = realloc(b->s, cap);
        if (!s) return;
        b->s = s;
        b->cap = cap;
    }
}

static int executable(const char *p)
{
    return p && *p && access(p, X_OK) == 0;
}

/* ptxas's path, or NULL. PTXEMU_PTXAS names it ("" turns the report off). */
static char *find_ptxas(void)
{
    const char *env = getenv("PTXEMU_PTXAS");
    if (env) return executable(env) ? strdup(env) : NULL;
    char buf[4096];
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        snprintf(buf, sizeof buf, "%.*s/ptxas", (int)len, path);
        if (len && executable(buf)) return strdup(buf);
        path = end ? end + 1 : NULL;
    }
    const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
    for (size_t i = 0; i < sizeof homes / sizeof *homes; i++) {
        if (!homes[i]) continue;
        snprintf(buf, sizeof buf, "%s/bin/ptxas", homes[i]);
        if (executable(buf)) return strdup(buf);
    }
    return NULL;
}

/* Run ptxas on one text; its combined output, or NULL. */
/* "--maxrregcount N" on the text's options line (PTX_OPTIONS_MARK): N into out. */
static int max_regs_option(const char *text, char *out, size_t n)
{
    const char *mark = NULL;
    for (const char *p = strstr(text, PTX_OPTIONS_MARK); p; p = strstr(p + 1, PTX_OPTIONS_MARK)) mark = p;
    if (!mark) return 0;
    const char *o = strstr(mark, "--maxrregcount ");
    const char *eol = strchr(mark, '\n');
    if (!o || (eol && o > eol)) return 0;
    unsigned v;
    if (sscanf(o + strlen("--maxrregcount "), "%u", &v) != 1 || !v) return 0;
    snprintf(out, n, "%u", v);
    return 1;
}

static char *run_ptxas(const char *ptxas, const char *text, int relocatable)
{
    char tmpl[4096];
    const char *dir = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/ptxemu-jit-XXXXXX.ptx", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(tmpl, 4);
    if (fd < 0) return NULL;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    int pipefd[2];
    if (!ok || pipe(pipefd)) { unlink(tmpl); return NULL; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    char *argv[10] = { (char *)ptxas, "-arch=sm_90a", "-v", "-o", "/dev/null", tmpl };
    int argc = 6;
    if (relocatable) argv[argc++] = "-c";   /* several texts linked: each compiled on its own */
    /* a register limit the program set (CU_JIT_MAX_REGISTERS), on the options line */
    char regs[16];
    if (max_regs_option(text, regs, sizeof regs)) {
        argv[argc++] = "--maxrregcount";
        argv[argc++] = regs;
    }
    pid_t pid;
    int err = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    Buf out = { 0 };
    char chunk[4096];
    ssize_t k;
    while (!err && ((k = read(pipefd[0], chunk, sizeof chunk)) > 0 || (k < 0 && errno == EINTR)))
        if (k > 0) put(&out, "%.*s", (int)k, chunk);
    close(pipefd[0]);
    int status = 0;
    if (!err) while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    unlink(tmpl);
    if (err || !WIFEXITED(status) || WEXITSTATUS(status) != 0) { free(out.s); return NULL; }
    return out.s ? out.s : strdup("");
}

/* What the report says of one kernel. */
typedef struct Props { char name[256]; unsigned regs, bars, stack; } Props;

/* Copy ptxas's report into the log in the driver's layout, collecting what the linker's
 * summary needs. */
static void take_report(Buf *log, char *rep, unsigned long *gmem, Props *p, int np)
{
    Props *cur = NULL;
    for (char *line = strtok(rep, "\n"); line; line = strtok(NULL, "\n")) {
        static const char cumulative[] = " bytes cumulative stack size";
        char *c = strstr(line, cumulative);
        if (c) {   /* drop ", N bytes cumulative stack size", which the driver's ptxas omits */
            char *start = c, *rest = c + strlen(cumulative);
            while (start > line && start[-1] != ',') start--;
            if (start > line) memmove(start - 1, rest, strlen(rest) + 1);
        }
        unsigned long g;
        char name[256];
        if (sscanf(line, "ptxas info : %lu bytes gmem", &g) == 1)
            *gmem += g;
        if (sscanf(line, "ptxas info    : Function properties for %255s", name) == 1) {
            cur = NULL;
            for (int i = 0; i < np; i++) if (!strcmp(p[i].name, name)) cur = &p[i];
        }
        unsigned a, b;
        if (cur && sscanf(line, " %u bytes stack frame", &a) == 1) cur->stack = a;
        if (cur && sscanf(line, "ptxas info    : Used %u registers, used %u barriers", &a, &b) == 2) {
            cur->regs = a;
            cur->bars = b;
        }
        if (!strncmp(line, "ptxas", 5)) put(log, "%s\n", line);
        else put(log, "ptxas         . %s\n", line);
    }
}

char *jitlog_verbose(const char *const *texts, int n, JitModule *em)
{
    Buf log = { 0 };
    char *rep = jitlog_ptxas_report(texts, n);
    if (!rep) {
        put(&log, "ptxemu: no ptxas found (PTXEMU_PTXAS, PATH, CUDA_HOME), or it could not "
                  "compile this PTX: registers and stack frames, which ptxas decides, are not "
                  "reported");
        return log.s;
    }
    int nk = em ? jit_module_kernel_count(em) : 0;
    Props *p = calloc(nk ? (size_t)nk : 1, sizeof *p);
    JitKernelInfo *info = calloc(nk ? (size_t)nk : 1, sizeof *info);
    if (!p || !info) { free(p); free(info); free(rep); return NULL; }
    for (int i = 0; i < nk; i++) {
        EmuKernel *k = jit_module_kernel_at(em, i);
        const char *name = jit_kernel_name(k);
        snprintf(p[i].name, sizeof p[i].name, "%s", name ? name : "");
        jit_kernel_info(k, &info[i]);
    }
    unsigned long gmem = 0;
    take_report(&log, rep, &gmem, p, nk);
    put(&log, "info    : %lu bytes gmem\n", gmem);
    for (int i = 0; i < nk; i++) {
        unsigned smem = info[i].shared_static ? info[i].shared_static + 1024 : 0;
        put(&log, "info    : Function properties for '%s':\n", p[i].name);
        put(&log, "info    : used %u registers, used %u barriers, %u stack, %u bytes smem, "
                  "%u bytes cmem[0], 0 bytes lmem\n", p[i].regs, p[i].bars, p[i].stack, smem,
            0x210 + info[i].param_bytes);
    }
    free(p);
    free(info);
    free(rep);
    if (log.n && log.s[log.n - 1] == '\n') log.s[--log.n] = 0;   /* the driver's ends without one */
    return log.s;
}

char *jitlog_ptxas_report(const char *const *texts, int n)
{
    char *ptxas = find_ptxas();
    if (!ptxas) return NULL;
    Buf all = { 0 };
    for (int i = 0; i < n; i++) {
        char *rep = run_ptxas(ptxas, texts[i], n > 1);
        if (!rep) { free(all.s); all.s = NULL; break; }
        put(&all, "%s", rep);
        free(rep);
    }
    free(ptxas);
    return all.s;
}

int jitlog_regs(const char *report, const char *name)
{
    /* "ptxas info    : Function properties for NAME", then a stack line, then
     * "ptxas info    : Used N registers, ..." */
    size_t len = strlen(name);
    for (const char *p = report; p && (p = strstr(p, "Function properties for ")); p++) {
        const char *nm = p + strlen("Function properties for ");
        if (strncmp(nm, name, len) || (nm[len] != '\n' && nm[len] != '\r')) continue;
        const char *used = strstr(nm, "Used ");
        const char *next = strstr(nm, "Function properties for ");
        unsigned r;
        if (used && (!next || used < next) && sscanf(used, "Used %u registers", &r) == 1) return (int)r;
        return -1;
    }
    return -1;
}
