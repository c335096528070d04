/* compile.c - the compiled tier (compile.h): a Program written as C, built by the system
 * compiler, cached on disk, loaded, and handed to warp_run.
 *
 * The C follows warp_run (emu/engine.c) instruction by instruction: one label per pc, the
 * guard, the step counts, the handler's result and the reconvergence check, with a switch on
 * the pc to enter or resume anywhere. An instruction whose handler a template made (emu/
 * jitop.h) is written as that template's loop with its rows as constants; a uniform branch
 * jumps to its label; every other instruction calls its handler as the interpreter does.
 * The headers the C includes are the machine's own, embedded in the library (jit_headers.c)
 * and written once into the cache, so the compiled code sees exactly the structures and
 * inline functions the library was built with. */
#define _GNU_SOURCE   /* dladdr: the report names handlers */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "compile.h"
#include "emu/emu.h"
#include "emu/jitop.h"
#include "emu/native.h"
#include "emu/exec_mem_fast.h"
#include "emu/exec_int_tmpl.h"   /* CMP_TO_GPR */
#include "emu/scheduler.h"       /* BAR_SYNC */

extern char **environ;

/* ---- text ---------------------------------------------------------------------------- */

typedef struct Buf { char *s; size_t n, cap; int oom; } Buf;

static void put(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Buf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) { b->oom = 1; return; }
        if (b->s && (size_t)k < b->cap - b->n) { b->n += (size_t)k; return; }
        size_t nc = (b->cap ? b->cap * 2 : 1 << 16) + (size_t)k;
        char *ns = realloc(b->s, nc);
        if (!ns) { b->oom = 1; return; }
        b->s = ns;
        b->cap = nc;
    }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

/* ---- settings ------------------------------------------------------------------------ */

#define JIT_JOBS_MAX 64         /* compilers of one build at once (PTXEMU_JIT_JOBS)          */

static struct {
    pthread_once_t once;
    int tier;
    uint64_t hot;               /* thread instructions that make a kernel worth building   */
    char cc[256];
    char dir[1024];             /* the cache                                                */
    int usable;                 /* the cache exists and the headers are in it              */
    char inc[1100];             /* -I folder of the headers                                 */
    uint64_t env_hash;          /* headers, compiler, flags, host CPU                       */
    int jobs;                   /* compilers a build runs at once (build's units)           */
} cfg = { PTHREAD_ONCE_INIT, TIER_AUTO, 100000000ull, "", "", 0, "", 0, 1 };

/* The flags the library is built with that change what C computes (Makefile.am's
 * AM_CFLAGS: no contraction of a*b+c), with the host's vector units: the compiled code runs
 * where it was built. Unlike the library, the compiled code may assume round-to-nearest
 * (-fno-rounding-math): the handlers of directed rounding it calls set the mode and put it
 * back, so it is never anything else while compiled code runs; and no one reads errno, which
 * lets fmaf and sqrtf be instructions and loops of them vectorize (-fno-math-errno). */
#define JIT_CFLAGS "-std=gnu11", "-O2", "-march=native", "-fPIC", "-shared", "-w", \
                   "-ffp-contract=off", "-fno-math-errno"

extern const char *const jit_headers[][2];   /* jit_headers.c: {path, text}, {NULL, NULL} */

static int mkdirs(const char *path)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *c = tmp + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
            *c = '/';
        }
    return mkdir(tmp, 0777) && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *path, const char *text, size_t n)
{
    char tmp[1300];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    int ok = fwrite(text, 1, n, f) == n;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path)) { unlink(tmp); return -1; }
    return 0;
}

/* What makes a built object valid besides its source: read once. */
static uint64_t environment_hash(void)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; jit_headers[i][0]; i++) {
        h = fnv(h, jit_headers[i][0], strlen(jit_headers[i][0]) + 1);
        h = fnv(h, jit_headers[i][1], strlen(jit_headers[i][1]) + 1);
    }
    static const char *const flags[] = { JIT_CFLAGS };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) h = fnv(h, flags[i], strlen(flags[i]) + 1);
    h = fnv(h, cfg.cc, strlen(cfg.cc) + 1);
    /* the host CPU: a cache shared by machines of a cluster must not hand out code built for
     * vector units another node lacks */
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[4096];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5)) h = fnv(h, line, strlen(line));
            else if (line[0] == '\n') break;   /* the first CPU is enough */
        fclose(f);
    }
    return h;
}

static void setup(void)
{
    const char *t = getenv("PTXEMU_TIER");
    if (t && *t) {
        if (!strcmp(t, "interp")) cfg.tier = TIER_INTERP;
        else if (!strcmp(t, "compiled")) cfg.tier = TIER_COMPILED;
        else if (!strcmp(t, "auto")) cfg.tier = TIER_AUTO;
        else fprintf(stderr, "ptxemu: PTXEMU_TIER=%s: expected interp, compiled or auto; using auto\n", t);
    }
    const char *hot = getenv("PTXEMU_JIT_HOT");
    if (hot && *hot) {
        char *end;
        unsigned long long v = strtoull(hot, &end, 10);
        if (*end) fprintf(stderr, "ptxemu: PTXEMU_JIT_HOT=%s is not a number; using %llu\n", hot,
                          (unsigned long long)cfg.hot);
        else cfg.hot = v;
    }
    /* PTXEMU_JIT_JOBS, at most the CPUs this process may run on (its affinity, as a batch
     * system or taskset sets it): more compilers than those only share them */
    cpu_set_t cpus;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ncpu = !sched_getaffinity(0, sizeof cpus, &cpus) ? CPU_COUNT(&cpus) : online > 0 ? (int)online : 1;
    if (online > 0 && ncpu > online) ncpu = (int)online;
    cfg.jobs = ncpu;
    const char *jobs = getenv("PTXEMU_JIT_JOBS");
    if (jobs && *jobs) {
        char *end;
        long v = strtol(jobs, &end, 10);
        if (*end || v < 1) fprintf(stderr, "ptxemu: PTXEMU_JIT_JOBS=%s is not a number of 1 or more; using %d\n",
                                   jobs, cfg.jobs);
        else if (v < cfg.jobs) cfg.jobs = (int)v;
    }
    if (cfg.jobs < 1) cfg.jobs = 1;
    if (cfg.jobs > JIT_JOBS_MAX) cfg.jobs = JIT_JOBS_MAX;
    const char *cc = getenv("PTXEMU_JIT_CC");
    snprintf(cfg.cc, sizeof cfg.cc, "%s", cc && *cc ? cc : "cc");
    if (cfg.tier == TIER_INTERP) return;
    const char *d = getenv("PTXEMU_JIT_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (d && *d) snprintf(cfg.dir, sizeof cfg.dir, "%s", d);
    else if (xdg && *xdg) snprintf(cfg.dir, sizeof cfg.dir, "%s/ptxemu/jit", xdg);
    else if (home && *home) snprintf(cfg.dir, sizeof cfg.dir, "%s/.cache/ptxemu/jit", home);
    else snprintf(cfg.dir, sizeof cfg.dir, "/tmp/ptxemu-jit-%ld", (long)getuid());
    cfg.env_hash = environment_hash();
    snprintf(cfg.inc, sizeof cfg.inc, "%s/include-%016llx", cfg.dir, (unsigned long long)cfg.env_hash);
    struct stat st;
    if (mkdirs(cfg.dir)) {
        fprintf(stderr, "ptxemu: jit: cannot create the cache %s (%s); kernels run interpreted\n",
                cfg.dir, strerror(errno));
        return;
    }
    if (stat(cfg.inc, &st)) {   /* the headers, once per build of the library */
        for (int i = 0; jit_headers[i][0]; i++) {
            char path[1300], *slash;
            snprintf(path, sizeof path, "%s/%s", cfg.inc, jit_headers[i][0]);
            if ((slash = strrchr(path, '/'))) { *slash = 0; mkdirs(path); *slash = '/'; }
            if (write_file(path, jit_headers[i][1], strlen(jit_headers[i][1]))) {
                fprintf(stderr, "ptxemu: jit: cannot write %s; kernels run interpreted\n", path);
                return;
            }
        }
    }
    cfg.usable = 1;
}

int jit_tier(void)
{
    pthread_once(&cfg.once, setup);
    return cfg.tier;
}

/* ---- the inlinable handlers (emu/jitop.h) -------------------------------------------- */

extern const JitOp __start_ptxemu_jitop[], __stop_ptxemu_jitop[];

/* Functions a template's expression may call: those the headers of the compiled code
 * define (exec_int_tmpl.h) and the compiler's builtins. An expression that reads the
 * instruction (in->...) stays with its handler: the compiled code has no `in`. */
static const char *const callable[] = {
    "MINV", "MAXV", "f32_of", "f64_of", "f32_ftz", "__builtin_popcount", "__builtin_popcountll",
    "__builtin_clz", "__builtin_clzll", "__builtin_bswap32", "__builtin_bswap64",
    "TINY", "fmaf", "fma", "sqrtf", "sqrt", "fabs", "fabsf",
    "hi_u16", "hi_s16", "hi_u32", "hi_s32", "hi_u64", "hi_s64",
    "udiv_16", "urem_16", "sdiv_16", "srem_16", "udiv_32", "urem_32", "sdiv_32", "srem_32",
    "udiv_64", "urem_64", "sdiv_64", "srem_64", "shf", "prmt",
    "cvt_ff_lane", "cvt_fi_lane", "cvt_if_lane", "cvt_ii_sat_lane", "cvt_tf32_satfinite_lane", NULL
};

/* C identifiers in a template's expression: where one may start, and how long it is */
static int id_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static size_t id_len(const char *c)
{
    size_t n = 0;
    while (id_start(c[n]) || (c[n] >= '0' && c[n] <= '9')) n++;
    return n;
}

static int expr_ok(const char *e)
{
    for (const char *c = e; *c;) {
        if (!id_start(*c)) { c++; continue; }
        const char *s = c;
        c += id_len(c);
        if (c - s == 2 && !strncmp(s, "in", 2)) return 0;   /* reads the Inst (prmt's modes): the handler's */
        const char *n = c;
        while (*n == ' ') n++;
        if (*n != '(') continue;
        int known = c - s > 3 && !strncmp(s, "fp_", 3);   /* fp.h's */
        for (int i = 0; callable[i] && !known; i++)
            known = strlen(callable[i]) == (size_t)(c - s) && !strncmp(callable[i], s, (size_t)(c - s));
        if (!known) return 0;
    }
    return 1;
}

static const JitOp *jitop_find(Handler fn)
{
    for (const JitOp *o = __start_ptxemu_jitop; o < __stop_ptxemu_jitop; o++)
        if (o->fn == fn) {
            if (!expr_ok(o->expr)) return NULL;
            for (int i = 0; i < 4; i++) if (!expr_ok(o->t[i])) return NULL;   /* CMP's getter, F32's tiny */
            return o;
        }
    return NULL;
}

/* The lane expression of template o for instruction in: o->expr with the names a handler
 * made by exec_cvt.c's CVT_LANES gives its instruction's fields (IN_FL: aux8, IN_RND: rnd,
 * IN_IMM: imm) replaced by their values, constants of the compiled code. */
static const char *inst_expr(char *out, size_t n, const JitOp *o, const Inst *in)
{
    size_t k = 0;
    for (const char *c = o->expr; *c && k + 32 < n;) {
        /* not an identifier's start (a digit run's letters, e.g. 0x1p23f, stay as they are) */
        if (!id_start(*c) || (c > o->expr && (id_start(c[-1]) || (c[-1] >= '0' && c[-1] <= '9')))) {
            out[k++] = *c++;
            continue;
        }
        size_t len = id_len(c);
        if (len == 5 && !strncmp(c, "IN_FL", 5)) k += (size_t)snprintf(out + k, n - k, "%u", (unsigned)in->aux8);
        else if (len == 6 && !strncmp(c, "IN_RND", 6)) k += (size_t)snprintf(out + k, n - k, "%u", (unsigned)in->rnd);
        else if (len == 6 && !strncmp(c, "IN_IMM", 6))
            k += (size_t)snprintf(out + k, n - k, "0x%llxull", (unsigned long long)in->imm);
        else { memcpy(out + k, c, len < n - k - 1 ? len : n - k - 1); k += len < n - k - 1 ? len : n - k - 1; }
        c += len;
    }
    out[k < n ? k : n - 1] = 0;
    return out;
}

/* The entry of each instruction of the Program being written (jit_native_source). */
static __thread const JitOp **op_at;
static __thread const Inst *op_base;
static const JitOp *jitop_of_inst(const Inst *in) { return op_at[in - op_base]; }

/* ---- the C of a kernel --------------------------------------------------------------- */

/* jit_warp_fast for the lanes of mask only (a run for part of a warp, run_partial_ok): the
 * same checks as memory.c's arena_fast over the mask's lanes, then mem_warp_fast with the
 * mask; the lanes outside it get a pointer to jit_nowhere, so that the run's loop, which
 * loads for all 32 lanes, reads harmless bytes there (it stores for the mask's lanes only).
 * 64 bytes: the widest access, ld.v4.b64, is 32. */
#define JIT_WARP_FAST_MASK \
    "static const uint64_t jit_nowhere[8] __attribute__((aligned(64)));\n" \
    "static inline __attribute__((always_inline)) int jit_warp_fast_mask(Warp *w, const Inst *in, const NativeRt *rt,\n" \
    "    const uint64_t *A, uint64_t imm, unsigned size, uint32_t mask, uint8_t **p)\n" \
    "{\n" \
    "    uint64_t st, lim;\n" \
    "    if (!rt->arena_block(A[__builtin_ctz(mask)] + imm, size, &st, &lim)) {\n" \
    "        uint64_t bad = 0;\n" \
    "        for (int l = 0; l < WARP_SIZE; l++) {\n" \
    "            uint64_t x = A[l] + imm, o = x - st, on = 0ull - ((mask >> l) & 1u);\n" \
    "            bad |= (((o | (lim - o)) >> 63) | (x & (size - 1))) & on;\n" \
    "            p[l] = (uint8_t *)(uintptr_t)((x & on) | ((uint64_t)(uintptr_t)jit_nowhere & ~on));\n" \
    "        }\n" \
    "        if (!bad) return 0;\n" \
    "    }\n" \
    "    if (rt->warp_fast(w, in, mask, size, p)) return -1;\n" \
    "    for (int l = 0; l < WARP_SIZE; l++) if (!((mask >> l) & 1u)) p[l] = (uint8_t *)(uintptr_t)jit_nowhere;\n" \
    "    return 0;\n" \
    "}\n"

static const char prologue[] =
    "#include \"emu/exec_int_tmpl.h\"\n"
    "#include \"emu/cvt_lane.h\"\n"
    "#include \"emu/exec_mem_fast.h\"\n"
    "#include \"emu/fp.h\"\n"
    "#include \"emu/engine.h\"\n"
    "#include \"emu/native.h\"\n"
    "#define ROWP(r) (R + (size_t)(r) * WARP_SIZE)\n"
    "#define FLUSH() do { w->steps += steps; w->lane_steps += lanes; w->slots += slots; w->idle_steps += idle; steps = lanes = slots = idle = 0; } while (0)\n"
    "#define GUARD(pg, pneg, c) mask = w->active & (P[pg] ^ (pneg)); steps++; slots += (c); lanes += (uint64_t)__builtin_popcount(mask); idle += !mask\n"
    "#define NEXT() if (++w->pc == w->merge_pc) { rt->regroup(w); goto dispatch; }\n"
    "#define CALL(k) if (mask) { FLUSH(); r = code[k].fn(w, &code[k], mask); if (r != STEP_NEXT) { at = k; goto after; } }\n"
    /* the short turn after a barrier release (sched.c's run_short) ends after an instruction
     * other warps can observe, or after a run that loads */
    "#define SHORT(ran) if (__builtin_expect(w->short_turn, 0) && (ran)) { result = RUN_YIELD; goto out; }\n"
    /* a whole warp's global (const, param, generic) access whose lanes are not consecutive:
     * mem_warp_fast's arena path (memory.c's arena_fast) with the lanes checked here, in
     * vector code of the host's width, the allocation found by mem_arena_block; anything
     * else (another allocation, a lane out of it, misaligned, a generic shared address) to
     * mem_warp_fast itself, then to the handler, which faults as the interpreter does */
    "static inline __attribute__((always_inline)) int jit_warp_fast(Warp *w, const Inst *in, const NativeRt *rt,\n"
    "    const uint64_t *A, uint64_t imm, unsigned size, uint8_t **p)\n"
    "{\n"
    "    uint64_t st, lim;\n"
    "    if (!rt->arena_block(A[0] + imm, size, &st, &lim)) {\n"
    "        uint64_t bad = 0, any = 0;\n"
    "        for (int l = 0; l < WARP_SIZE; l++) {\n"
    "            uint64_t x = A[l] + imm, o = x - st;\n"
    "            bad |= o | (lim - o);\n"
    "            any |= x;\n"
    "            p[l] = (uint8_t *)(uintptr_t)x;\n"
    "        }\n"
    "        if (!((bad >> 63) | (any & (size - 1)))) return 0;\n"
    "    }\n"
    "    return rt->warp_fast(w, in, FULL_MASK, size, p);\n"
    "}\n"
    JIT_WARP_FAST_MASK;

/* The largest kernel (PTX instructions) whose function is built at -O2 (jit_native_source) */
#ifndef JIT_O2_MAX   /* a test build may set it lower: every kernel in parts */
#define JIT_O2_MAX 400
#endif

#define MAIN_SIGNATURE "int " NATIVE_SYMBOL "(Warp *w, uint32_t budget, const NativeRt *rt)\n"

/* The locals of a function that runs instructions (the kernel's, or a part's: emit_part). */
#define BODY_HEAD \
    "    const Inst *const code = w->prog->code;\n" \
    "    uint64_t *const R = w->R;\n" \
    "    uint32_t *const P = w->P;\n" \
    "    uint64_t steps = 0, lanes = 0, slots = 0, idle = 0;\n" \
    "    uint32_t mask, at = 0;\n" \
    "    int r = STEP_NEXT, result;\n" \
    "    (void)R;\n" \
    "    goto dispatch;\n"

static const char main_head[] = MAIN_SIGNATURE "{\n" BODY_HEAD;

/* The rest of warp_run's loop for a result other than STEP_NEXT of the instruction at `at`. */
static const char epilogue[] =
    "after:\n"
    "    if (r == STEP_FAULT) { result = RUN_FAULT; goto out; }\n"
    "    if (r == STEP_YIELD) {\n"
    "        if (past_merge(w)) rt->regroup(w);\n"
    "        result = w->active ? RUN_YIELD : RUN_BLOCKED;\n"
    "        goto out;\n"
    "    }\n"
    "    if (r == STEP_JUMP) {\n"
    "        if (past_merge(w)) rt->regroup(w);\n"
    "        if (w->pc <= at && --budget == 0) {\n"
    "            result = w->active ? RUN_YIELD : (w->alive ? RUN_BLOCKED : RUN_DONE);\n"
    "            goto out;\n"
    "        }\n"
    "    }\n"
    "    if (!w->active) { result = w->alive ? RUN_BLOCKED : RUN_DONE; goto out; }\n";

/* ---- lanewise instructions: one lane's statement, from the handler's template ---------- */

/* The kinds whose handler computes each lane from the same lane's rows only. */
static int lanewise(const JitOp *o)
{
    static const char *const k[] = { "UN", "BIN", "TER", "QUAD", "F32", "F64", "CVTA", "SELP", NULL };
    for (int i = 0; o && k[i]; i++) if (!strcmp(o->kind, k[i])) return 1;
    return 0;
}

/* The statement for lane l of instruction k (rows as constants: R[row * 32 + l]); SELP reads
 * its predicate from sel<k>, set before the lane loop. */
static void lane_body(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    static const char *const v[] = { "a", "b", "c", "e" };
    char d[32];
    snprintf(d, sizeof d, "ROWP(%u)[l]", in->d[0]);
    if (!strcmp(o->kind, "CVTA")) {
        put(b, "%s = (%s)(ROWP(%u)[l] + %lluull);", d, o->rt, in->base, (unsigned long long)in->imm);
    } else if (!strcmp(o->kind, "SELP")) {
        put(b, "%s = (%s)(((sel%u >> l) & 1u) ? ROWP(%u)[l] : ROWP(%u)[l]);", d, o->rt, k, in->s[0], in->s[1]);
    } else if (!strcmp(o->kind, "F32") || !strcmp(o->kind, "F64")) {
        uint32_t rb = in->s[in->ns > 1 ? 1 : 0], rc = in->s[in->ns > 2 ? 2 : 0];
        if (o->kind[1] == '3')
            put(b, "{ float a = f32_in(ROWP(%u)[l], %s), b = f32_in(ROWP(%u)[l], %s), c = f32_in(ROWP(%u)[l], %s); "
                   "(void)b; (void)c; %s = f32_out(%s, %s, %s, %s && (%s)); }",
                in->s[0], o->t[1], rb, o->t[1], rc, o->t[1], d, o->expr, o->t[1], o->t[2], o->t[1], o->t[0]);
        else
            put(b, "{ double a = f64_in(ROWP(%u)[l]), b = f64_in(ROWP(%u)[l]), c = f64_in(ROWP(%u)[l]); "
                   "(void)b; (void)c; %s = fp_nan64(%s, a, b, c); }", in->s[0], rb, rc, d, o->expr);
    } else {   /* UN BIN TER QUAD: exec_int_tmpl.h's H_* */
        int n = !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : !strcmp(o->kind, "TER") ? 3 : 4;
        put(b, "{ ");
        char ex[512];
        for (int i = 0; i < n; i++) put(b, "%s %s = (%s)ROWP(%u)[l]; ", o->t[i], v[i], o->t[i], in->s[i]);
        put(b, "%s = (%s)(%s); }", d, o->rt, inst_expr(ex, sizeof ex, o, in));
    }
}

static void lane_setup(Buf *b, const Inst *in, uint32_t k, const JitOp *o, const char *indent)
{
    if (!strcmp(o->kind, "SELP"))
        put(b, "%suint32_t sel%u = P[%u] ^ %uu;\n", indent, k, in->s[2], (in->flags & IF_NEG_C) ? ~0u : 0u);
}

/* Whether the kernel being written has a loop of its own for a whole warp (a small kernel). */
static __thread int partial_inline;

/* The pcs of the function being written, [fn_lo, fn_hi): a jump elsewhere goes through the
 * dispatcher (emit_part). */
static __thread uint32_t fn_lo, fn_hi;
static int pc_local(uint32_t pc) { return pc >= fn_lo && pc < fn_hi; }

/* The lane loops of an instruction: for a whole warp (vectorizable) and for part of one,
 * over the lanes of the mask only (a walk of its set bits: a warp whose lanes have mostly
 * exited costs what they do). A small kernel has both; a large one, whose function is
 * built at -O1, which vectorizes nothing, has only the second, for every mask (half the
 * code to compile). emit_loops_end closes what emit_loops opened; the body goes between. */
static void emit_loops(Buf *b, int whole)
{
    if (whole) put(b, "        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) ");
    else put(b, "        for (uint32_t m_ = mask; m_; m_ &= m_ - 1u) { int l = __builtin_ctz(m_); ");
}
static void emit_loops_end(Buf *b, int whole)
{
    put(b, whole ? "\n" : " }\n");
}
/* The test that opens the loops' branch (whole: the whole warp's; else part of one, or, in a
 * large kernel, every mask); the last branch is closed by "    }\n". */
static void emit_mask_open(Buf *b, int whole)
{
    put(b, whole ? "    if (mask == FULL_MASK) {\n" : partial_inline ? "    } else if (mask) {\n" : "    if (mask) {\n");
}

/* One lanewise instruction on its own, as the handler's loop (LANES, machine.h) inline. */
static void emit_lanewise(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    for (int whole = partial_inline; whole >= 0; whole--) {
        emit_mask_open(b, whole);
        lane_setup(b, in, k, o, "        ");
        emit_loops(b, whole);
        lane_body(b, in, k, o);
        emit_loops_end(b, whole);
    }
    put(b, "    }\n");
}

/* mov's pack (d, {s0, ...}) and unpack ({d0, ...}, a): the handler's loop, with its element
 * function (o->expr) per element, in emit_lanewise's loops. */
static void emit_pack(Buf *b, const Inst *in, const JitOp *o)
{
    int pack = !strcmp(o->kind, "PACK");
    unsigned n = pack ? in->ns : in->nd, ew = in->aux8;
    for (int whole = partial_inline; whole >= 0; whole--) {
        emit_mask_open(b, whole);
        emit_loops(b, whole);
        if (pack) {
            put(b, "{ uint64_t v = 0;");
            for (unsigned i = 0; i < n; i++) put(b, " v |= %s(ROWP(%u)[l], %uu, %uu);", o->expr, in->s[i], ew, i);
            put(b, " ROWP(%u)[l] = v; }", in->d[0]);
        } else {
            put(b, "{ uint64_t v = ROWP(%u)[l];", in->s[0]);
            for (unsigned i = 0; i < n; i++) put(b, " ROWP(%u)[l] = %s(v, %uu, %uu);", in->d[i], o->expr, ew, i);
            put(b, " }");
        }
        emit_loops_end(b, whole);
    }
    put(b, "    }\n");
}

/* ---- contracted mul/add pairs (emu/exec_contract.c) ----------------------------------- */

/* 0, or the form of a contracted instruction: 1 <mul.captured>, 2 <mov.captured>,
 * 3 <fma.contracted>, 4 the same at a join. */
static int contract_kind(const JitOp *o)
{
    static const char *const k[] = { "MULC", "MOVC", "FMAC", "FMACJ", NULL };
    for (int i = 0; o && k[i]; i++) if (!strcmp(o->kind, k[i])) return i + 1;
    return 0;
}

/* The template of a contracted instruction's bound handler (alt: a join's add/sub), when it
 * is one a lane statement can be written from; else NULL (the instruction calls its handler). */
static const JitOp *contract_part(const Inst *in, int alt)
{
    ContractJit c;
    if (!contract_jit(in, &c)) return NULL;
    const JitOp *o = jitop_find(alt ? c.alt : c.main);
    if (o && strstr(o->expr, "IN_")) return NULL;   /* contract_expr writes the expression as it is */
    static const char *const k[] = { "UN", "BIN", "TER", "F32", "F64", NULL };
    for (int i = 0; o && k[i]; i++) if (!strcmp(o->kind, k[i])) return o;
    return NULL;
}

static int contract_inline(const Inst *in, const JitOp *o)
{
    int ck = contract_kind(o);
    return ck && contract_part(in, 0) && (ck != 4 || contract_part(in, 1));
}

/* Whether source j of a contracted instruction is a row it does not read: <fma.contracted>'s
 * scratch rows s[3], s[4] (written before they are read; the inline form never writes them)
 * and, away from a join, the original add's operands s[5], s[6]. */
static int contract_unread(const JitOp *o, int j)
{
    int ck = contract_kind(o);
    return (ck == 3 && j >= 3) || (ck == 4 && (j == 3 || j == 4));
}

/* The statement name = cast(value) of template o over the sources x[0..2] (C expressions of
 * the rows' 64-bit values), as its handler computes each lane (lane_body, run_value). */
static void contract_expr(Buf *b, const JitOp *o, const char *const x[3], const char *name, const char *cast)
{
    static const char *const v[] = { "a", "b", "c" };
    if (!strcmp(o->kind, "F32"))
        put(b, "{ float a = f32_in(%s, %s), b = f32_in(%s, %s), c = f32_in(%s, %s); (void)b; (void)c; "
               "%s = %s(f32_out(%s, %s, %s, %s && (%s))); }",
            x[0], o->t[1], x[1], o->t[1], x[2], o->t[1], name, cast, o->expr, o->t[1], o->t[2], o->t[1], o->t[0]);
    else if (!strcmp(o->kind, "F64"))
        put(b, "{ double a = f64_in(%s), b = f64_in(%s), c = f64_in(%s); (void)b; (void)c; %s = %s(fp_nan64(%s, a, b, c)); }",
            x[0], x[1], x[2], name, cast, o->expr);
    else {   /* UN BIN TER */
        int n = !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : 3;
        put(b, "{ ");
        for (int i = 0; i < n; i++) put(b, "%s %s = (%s)%s; ", o->t[i], v[i], o->t[i], x[i]);
        put(b, "%s = %s(%s); }", name, cast, o->expr);
    }
}

/* The result type of template o (run_type's). */
static const char *contract_type(const JitOp *o)
{
    if (!strcmp(o->kind, "F32")) return "uint32_t";
    if (!strcmp(o->kind, "F64")) return "uint64_t";
    return o->rt;
}

/* x with the type's sign bit flipped when neg (exec_contract.c's copy_rows with a flip) */
static const char *contract_neg(char out[112], const char *x, int neg, uint64_t sign)
{
    if (neg) snprintf(out, 112, "(%s ^ 0x%llxull)", x, (unsigned long long)sign);
    else snprintf(out, 112, "%s", x);
    return out;
}

/* One lane l of a contracted instruction over its rows (exec_contract.c's handlers, lane by
 * lane: each lane reads its sources before it writes; f: sel<k>, the lanes of a join fused). */
static void contract_lane(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    int ck = contract_kind(o);
    const JitOp *mo = contract_part(in, 0);
    ContractJit c;
    contract_jit(in, &c);
    char r[3][48], x[3][112], dst[48], cast[48];
    const char *xs[3];
    snprintf(dst, sizeof dst, "ROWP(%u)[l]", in->d[0]);
    snprintf(cast, sizeof cast, "(%s)", contract_type(mo));
    for (int j = 0; j < 3; j++) snprintf(r[j], sizeof r[j], "ROWP(%u)[l]", in->s[j]);
    put(b, "{ ");
    if (ck == 1) {   /* the factors copied first: d may be one of them */
        put(b, "uint64_t x0 = %s, x1 = %s; ROWP(%u)[l] = x0; ROWP(%u)[l] = x1; ", r[0], r[1], in->d[1], in->d[2]);
        xs[0] = "x0"; xs[1] = "x1"; xs[2] = "x0";
        contract_expr(b, mo, xs, dst, cast);
    } else if (ck == 2) {
        put(b, "uint64_t x0 = %s, x1 = %s, x2 = %s; ROWP(%u)[l] = x1; ROWP(%u)[l] = x2; ", r[0],
            contract_neg(x[1], r[1], in->aux8 & CF_NEG, c.sign), r[2], in->d[1], in->d[2]);
        xs[0] = xs[1] = xs[2] = "x0";
        contract_expr(b, mo, xs, dst, cast);
    } else {
        if (ck == 4) put(b, "if ((sel%u >> l) & 1u) { ", k);
        put(b, "uint64_t x0 = %s, x1 = %s, x2 = %s; ", contract_neg(x[0], r[0], in->aux8 & CF_NEG_A, c.sign), r[1],
            contract_neg(x[2], r[2], in->aux8 & CF_NEG_C, c.sign));
        xs[0] = "x0"; xs[1] = "x1"; xs[2] = "x2";
        contract_expr(b, mo, xs, dst, cast);
        if (ck == 4) {   /* the other lanes: the original add/sub of s[5], s[6] */
            const JitOp *ao = contract_part(in, 1);
            snprintf(cast, sizeof cast, "(%s)", contract_type(ao));
            put(b, " } else { uint64_t y0 = ROWP(%u)[l], y1 = ROWP(%u)[l]; ", in->s[5], in->s[6]);
            xs[0] = "y0"; xs[1] = "y1"; xs[2] = "y0";
            contract_expr(b, ao, xs, dst, cast);
            put(b, " }");
        }
    }
    put(b, " }");
}

/* A contracted instruction written inline (contract_inline) on its own: emit_lanewise's
 * loops, with the captured mul's flag set and a join's read and cleared for the lanes of mask
 * first (the predicate is not a row). */
static void emit_contract(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    int ck = contract_kind(o);
    for (int whole = partial_inline; whole >= 0; whole--) {
        emit_mask_open(b, whole);
        if (ck == 1 && in->imm > 0) put(b, "        P[%u] |= mask;\n", (uint32_t)(in->imm - 1));
        if (ck == 4)
            put(b, "        uint32_t sel%u = mask & P[%u];\n        P[%u] &= ~mask;\n", k, (uint32_t)(in->imm - 1),
                (uint32_t)(in->imm - 1));
        emit_loops(b, whole);
        contract_lane(b, in, k, o);
        emit_loops_end(b, whole);
    }
    put(b, "    }\n");
}

/* Whether a run (emit_run) may hold contracted instruction in: unguarded, written inline, and
 * neither form that touches a predicate (a captured mul at a join, the add there). */
static int run_contract_ok(const Inst *in, const JitOp *o)
{
    int ck = contract_kind(o);
    return ck && ck != 4 && !(ck == 1 && in->imm > 0) && !in->pg && !in->pneg && contract_inline(in, o);
}

static void emit_span(Buf *b, const Inst *in, uint32_t i, const char *q, const char *T, const char *v);

/* ---- liveness: which rows a later instruction may still read -------------------------- */

/* Rows live at the start of each pc (0..ncode), a bitset of live_words words each, or NULL
 * when the kernel's flow cannot be followed (calls, indirect branches): then every row is
 * live. A thread's path is a path of the flow graph (a lane that does not run an instruction
 * neither reads nor writes there), so a row a run writes that no path from its end reads
 * before writing it again is dead for every lane: the run keeps it in a local only. Reads
 * are over-approximated (every row an instruction names, destinations included, for any
 * instruction not known to write them whole); only an unguarded lanewise instruction or
 * load kills its destination. The end of the kernel leads back to its start: a slot's next
 * warp finds the rows the last one left (sched.c reuses them), and a kernel that reads a row
 * before writing it would see them. */
static __thread uint64_t *live_in;
static __thread uint32_t live_words;
static __thread uint8_t *uni_row;   /* rows the same in every lane wherever a run reads them */
static int row_uniform(const Program *p, uint32_t r);

static void row_set(uint64_t *s, const Program *p, uint32_t r)
{
    if (r < p->nrows) s[r >> 6] |= 1ull << (r & 63);
}

static int row_live(uint32_t pc, uint32_t r)
{
    return !live_in || (live_in[(size_t)pc * live_words + (r >> 6)] >> (r & 63) & 1);
}

/* The rows instruction k kills (a whole write by every lane that runs it), into kill. */
static int inst_kills(const Inst *in, const JitOp *o, uint32_t d[INST_MAXD])
{
    if (in->pg || in->pneg || !o) return 0;
    if (lanewise(o)) { d[0] = in->d[0]; return 1; }
    /* shfl.sync writes every lane it runs for (exec_warp.c: a whole warp's rows, or the
     * lanes of its mask once they have converged) */
    if (!strcmp(o->kind, "SHFL")) { d[0] = in->d[0]; return 1; }
    if (contract_kind(o)) {   /* every lane it runs writes the product (sum) and the captures */
        int n = contract_kind(o) <= 2 ? 3 : 1;
        for (int e = 0; e < n; e++) d[e] = in->d[e];
        return n;
    }
    if (!strcmp(o->kind, "LD") || !strcmp(o->kind, "LDS")) {
        int v = atoi(o->t[1]);
        for (int e = 0; e < v && e < INST_MAXD; e++) d[e] = in->d[e];
        return v < INST_MAXD ? v : INST_MAXD;
    }
    return 0;
}

/* Rows written once in the whole kernel, before its first branch and first branch target
 * (every lane that is alive when a run starts has executed the write, and nothing writes the
 * row again), by an unguarded lanewise instruction of uniform sources (row_uniform, or such
 * rows), and not read before it (not live at the start): the parameters' copies, the block's
 * offsets. A run reads them once, not per lane (a run runs only for a whole warp, which a warp
 * of fewer threads never is). */
static void uniform_rows(const Program *p, const JitOp **ops)
{
    uni_row = NULL;
    uint32_t *defs = calloc(p->nrows, sizeof *defs);
    uint8_t *u = calloc(p->nrows, 1);
    if (!defs || !u) { free(defs); free(u); return; }
    uint32_t prefix = p->ncode;
    for (uint32_t k = 0; k < p->ncode; k++) {
        const Inst *i = &p->code[k];
        for (int j = 0; j < INST_MAXD; j++) if (i->d[j] < p->nrows) defs[i->d[j]]++;
        if ((i->op == OP_mma || i->op == OP_wmma || i->op == OP_wgmma) && i->aux) {
            const RowList *rl = i->aux;
            for (uint32_t j = 0; j < rl->n; j++) if (rl->rows[j] < p->nrows) defs[rl->rows[j]]++;
        }
        if (i->op == OP_bra) {
            if (k < prefix) prefix = k;
            if ((uint64_t)i->imm < prefix) prefix = (uint32_t)i->imm;
        }
        if (i->op == OP_exit || i->op == OP_ret || i->op == OP_trap || i->op == OP_brkpt)
            if (k < prefix) prefix = k;
    }
    uni_row = u;   /* row_uniform reads it while it grows */
    for (uint32_t k = 0; k < prefix; k++) {
        const Inst *i = &p->code[k];
        const JitOp *o = ops[k];
        uint32_t d = i->d[0];
        if (!o || !lanewise(o) || !strcmp(o->kind, "SELP") || i->pg || i->pneg) continue;
        if (d >= p->nrows || d < p->first_var_row || defs[d] != 1 || row_live(0, d)) continue;
        int ok = 1;
        if (!strcmp(o->kind, "CVTA")) ok = row_uniform(p, i->base);
        else {
            int nsrc = !strcmp(o->kind, "F32") || !strcmp(o->kind, "F64") ? (i->ns < 3 ? i->ns : 3)
                     : !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : !strcmp(o->kind, "TER") ? 3 : 4;
            for (int j = 0; j < nsrc; j++) ok &= row_uniform(p, i->s[j]);
        }
        if (ok) u[d] = 1;
    }
    free(defs);
}

static void liveness(const Program *p, const JitOp **ops)
{
    live_in = NULL;
    live_words = (p->nrows + 63) / 64;
    if ((uint64_t)(p->ncode + 1) * live_words > (8u << 20)) return;
    for (uint32_t k = 0; k < p->ncode; k++)
        if (p->code[k].op == OP_call || p->code[k].op == OP_brx) return;
    uint32_t W = live_words;
    uint64_t *in = calloc((size_t)(p->ncode + 1) * W, sizeof *in);
    uint64_t *use = calloc((size_t)p->ncode * W, sizeof *use), *out = malloc(W * sizeof *out);
    if (!in || !use || !out) { free(in); free(use); free(out); return; }
    for (uint32_t k = 0; k < p->ncode; k++) {
        const Inst *i = &p->code[k];
        uint64_t *u = use + (size_t)k * W;
        uint32_t kd[INST_MAXD];
        int nk = inst_kills(i, ops[k], kd);
        for (int j = 0; j < INST_MAXS; j++) if (!contract_unread(ops[k], j)) row_set(u, p, i->s[j]);
        if (!nk) for (int j = 0; j < INST_MAXD; j++) row_set(u, p, i->d[j]);
        if (i->op != OP_bra) row_set(u, p, i->base);   /* a branch's base is its reconvergence pc */
        if ((i->op == OP_mma || i->op == OP_wmma || i->op == OP_wgmma) && i->aux) {
            const RowList *rl = i->aux;
            for (uint32_t j = 0; j < rl->n; j++) row_set(u, p, rl->rows[j]);
        }
    }
    /* backward passes until nothing changes; pc ncode (the end) is the kernel's start */
    int changed = 1, passes = 0;
    while (changed && passes++ < 200) {
        changed = 0;
        memcpy(in + (size_t)p->ncode * W, in, W * sizeof *in);
        for (uint32_t k = p->ncode; k-- > 0;) {
            const Inst *i = &p->code[k];
            int op = i->op, always = !i->pg && !i->pneg;
            memset(out, 0, W * sizeof *out);
            if (op == OP_exit || op == OP_ret || op == OP_trap || op == OP_brkpt) {
                if (!always) for (uint32_t j = 0; j < W; j++) out[j] |= in[(size_t)(k + 1) * W + j];
                for (uint32_t j = 0; j < W; j++) out[j] |= in[j];
            } else {
                if (op != OP_bra || !always)
                    for (uint32_t j = 0; j < W; j++) out[j] |= in[(size_t)(k + 1) * W + j];
                if (op == OP_bra) {
                    uint32_t t = (uint32_t)i->imm < p->ncode ? (uint32_t)i->imm : p->ncode;
                    for (uint32_t j = 0; j < W; j++) out[j] |= in[(size_t)t * W + j];
                }
            }
            uint32_t kd[INST_MAXD];
            int nk = inst_kills(i, ops[k], kd);
            for (int e = 0; e < nk; e++)
                if (kd[e] < p->nrows && kd[e] >= p->first_var_row) out[kd[e] >> 6] &= ~(1ull << (kd[e] & 63));
            const uint64_t *u = use + (size_t)k * W;
            uint64_t *dst = in + (size_t)k * W;
            for (uint32_t j = 0; j < W; j++) {
                uint64_t v = out[j] | u[j];
                if (v != dst[j]) { dst[j] = v; changed = 1; }
            }
        }
    }
    free(use);
    free(out);
    if (changed) { free(in); return; }
    memcpy(in + (size_t)p->ncode * W, in, W * sizeof *in);
    live_in = in;
    uniform_rows(p, ops);
}


/* A load a run may hold: unguarded, without .acquire (a fence after the whole warp's loads). */
static int run_load(const Inst *in, const JitOp *o)
{
    return o && (!strcmp(o->kind, "LD") || !strcmp(o->kind, "LDS")) && !in->pg && !in->pneg &&
           !(in->aux8 & MO_ACQUIRE);
}

/* A global store a run may end with: unguarded, without .release (a fence before the whole
 * warp's stores). */
static int run_store(const Inst *in, const JitOp *o)
{
    return o && !strcmp(o->kind, "ST") && !in->pg && !in->pneg && !(in->aux8 & MO_RELEASE);
}

/* A .shared store a run may hold (anywhere in it): unguarded, without .release. Its lanes
 * store after the loop of the phase it ends (emit_run), in the handler's lane order, once
 * exec_mem_fast.h's shared_fast check passed for every lane; else the run ends before it and
 * the handler runs it, faulting where the interpreter does (tests/tier/shared_run.ptx). */
static int run_sts(const Inst *in, const JitOp *o)
{
    return o && !strcmp(o->kind, "STS") && !in->pg && !in->pneg && !(in->aux8 & MO_RELEASE);
}

static int shfl_imm(const Program *p, const Inst *in);
static uint32_t shfl_map(int mode, int bv, int cv, int seg, uint8_t map[WARP_SIZE]);

/* A shuffle a run may hold: unguarded, its lanes' sources known when compiled (shfl_imm), a
 * membermask of every lane. A run runs only for a whole warp, for which emit_shfl's inline
 * form is what the handler computes: each lane the value of its source lane, and a predicate
 * of the lanes in range. Its source is copied (s<i>) before the loop of its phase. */
static int run_shfl(const Program *p, const Inst *in, const JitOp *o)
{
    if (!o || strcmp(o->kind, "SHFL") || in->pg || in->pneg || !shfl_imm(p, in)) return 0;
    int mode = atoi(o->t[0]);
    return mode >= 0 && mode <= 3 && (uint32_t)p->row_init[in->s[3]] == FULL_MASK;
}

/* A setp a run may hold: unguarded, writing predicates (set's register form writes a row the
 * run's map would not see). Its lanes' bits are gathered in its phase's loop (t<i>) and
 * cmp_finish, the handler's own end, writes the predicates after that loop. */
static int run_cmp(const Inst *in, const JitOp *o)
{
    return o && !strcmp(o->kind, "CMP") && !in->pg && !in->pneg && in->aux8 != CMP_TO_GPR;
}

/* A conditional branch a run may hold: the run goes on past it when no lane takes it (the
 * interpreter's step of a guard that leaves no lane: one step, no lane, one idle step), and
 * ends before it otherwise, with the rows live there written, so that the kernel's own code
 * runs the branch (a jump of the whole warp, or a divergence). Its predicate is read where it
 * stands (P[pg], after the cmp_finish of every setp before it), not when the run starts, so
 * a setp of the run may feed it: saxpy's and vectorAdd's bounds test `@%p1 bra` joins the
 * index computation before it and the loads and store after it into one run. */
static int run_bra(const Inst *in, const JitOp *o)
{
    return o && in->op == OP_bra && !strcmp(o->kind, "BRA") && in->pg;
}

/* Whether the run being written runs for part of a warp too (run_partial_ok): its function
 * takes the lanes, `mask`, and its checks, stores, setps and rows see only those. */
static __thread int run_part;

/* ---- a run's lanes: values in locals, rows only for what is read after the run -------- */

/* A row whose value is the same in every lane of a warp wherever a run reads it: a constant
 * or parameter row, a special register other than the lane's own ids (sched.c fills them), or
 * one of uniform_rows'. */
static int row_uniform(const Program *p, uint32_t r)
{
    if (r < p->nrows && uni_row && uni_row[r]) return 1;
    if (r >= p->first_var_row || r == ROW_SINK) return 0;
    static const int lanes[] = { SR_TID_X, SR_TID_Y, SR_TID_Z, SR_LANEID, SR_LANEMASK_EQ, SR_LANEMASK_LT,
                                 SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE };
    for (size_t i = 0; i < sizeof lanes / sizeof lanes[0]; i++)
        if (p->sreg_row[lanes[i]] == (int32_t)r) return 0;
    return 1;
}

/* Where a row's value is at one point of a run: the local last written for it (v<id> in the
 * lane loop, u<id> computed once before it when the same in every lane), else its row. */
/* ofs: for a 64-bit value of the lanes, what its lanes differ by: a value u + X with u the same
 * in every lane (an add of a uniform value, a cvta) differs between lanes as X does, so its
 * lanes are consecutive exactly when X's are (X[l] - X[0] = l * size, modulo 2^64, the same
 * test). It names X: a local's id + 1, or RUN_ROWKEY | row for a row the run reads (rows do
 * not change while the run's checks are made), 0 for none (the value itself). */
typedef struct RunLoc { uint32_t row, id; int uni; const char *type; int phase, arr; uint32_t ofs; } RunLoc;
#define RUN_ROWKEY 0x80000000u
/* wd: the run's widening multiplies by a uniform factor (RUN_WIDEKEY | index in ofs): a value
 * (int64_t)X * K (mul.wide.s32, or its .u32 form) has consecutive lanes of stride K when X's
 * lanes are X[0] + l with no wrap between lane 0 and lane 31, a test of 32-bit lanes (twice
 * the lanes a vector instruction takes) where the 64-bit products' cost two passes more:
 * saxpy's and vectorAdd's `mul.wide.s32 %rd5, %r1, 4`. X and K as where the run keeps them. */
typedef struct RunWide { char x[48], k[48]; int sgn; uint32_t xrow; } RunWide;   /* xrow: X's row, or ~0u */
typedef struct RunMap { RunLoc m[4 * 64 + 8]; int n, nwd; RunWide wd[16]; } RunMap;
#define RUN_WIDEKEY 0x40000000u

static const RunLoc *run_find(const RunMap *m, uint32_t row)
{
    for (int j = m->n; j-- > 0;) if (m->m[j].row == row) return &m->m[j];
    return NULL;
}

/* A uniform row is read at lane 0 in the lane loops too: one load the compiler broadcasts,
 * where 32 lanes of a 64-bit row read as 32-bit values cost a vector load and a pack per 4
 * lanes (saxpy's `mul.wide.s32 %rd5, %r1, 4` reads the constant 4 from a row). */
static const char *run_src(char out[48], const Program *p, const RunMap *m, uint32_t row, int scalar)
{
    const RunLoc *x = run_find(m, row);
    (void)scalar;
    if (x) snprintf(out, 48, "((uint64_t)%s%u%s)", x->uni ? "u" : "v", x->id, x->arr ? "[l]" : "");
    else snprintf(out, 48, row_uniform(p, row) ? "ROWP(%u)[0]" : "ROWP(%u)[l]", row);
    return out;
}

/* The key of what a run's value in row differs by between lanes (RunLoc.ofs): a local's
 * ofs, else the local itself, else the row. */
static uint32_t run_ofs_key(const RunMap *m, uint32_t row)
{
    const RunLoc *x = run_find(m, row);
    if (!x) return RUN_ROWKEY | row;
    return x->ofs ? x->ofs : x->id + 1;
}

static int run_src_uniform(const Program *p, const RunMap *m, uint32_t row)
{
    const RunLoc *x = run_find(m, row);
    return x ? x->uni : row_uniform(p, row);
}

/* The type of the value a lanewise instruction stores in its row (zero- or sign-extended by
 * C's conversion to uint64_t, as the handler's store does). */
static const char *run_type(const JitOp *o)
{
    if (!strcmp(o->kind, "F32")) return "uint32_t";   /* f32_out's upper half is 0 */
    if (!strcmp(o->kind, "F64")) return "uint64_t";
    return o->rt;
}

/* The statement computing instruction i's value into name, cast by cast: the handler's
 * expression over its sources (src: where each is). */
static void run_value(Buf *b, const Program *p, const RunMap *m, const Inst *in, uint32_t i, const JitOp *o,
                      const char *name, const char *cast, int scalar)
{
    static const char *const v[] = { "a", "b", "c", "e" };
    char s0[48], s1[48], s2[48];
    if (!strcmp(o->kind, "CVTA")) {
        put(b, "%s = %s(%s + %lluull);", name, cast, run_src(s0, p, m, in->base, scalar), (unsigned long long)in->imm);
    } else if (!strcmp(o->kind, "SELP")) {
        put(b, "%s = %s(((sel%u >> l) & 1u) ? %s : %s);", name, cast, i, run_src(s0, p, m, in->s[0], scalar),
            run_src(s1, p, m, in->s[1], scalar));
    } else if (!strcmp(o->kind, "F32") || !strcmp(o->kind, "F64")) {
        uint32_t rb = in->s[in->ns > 1 ? 1 : 0], rc = in->s[in->ns > 2 ? 2 : 0];
        run_src(s0, p, m, in->s[0], scalar);
        run_src(s1, p, m, rb, scalar);
        run_src(s2, p, m, rc, scalar);
        if (o->kind[1] == '3')
            put(b, "{ float a = f32_in(%s, %s), b = f32_in(%s, %s), c = f32_in(%s, %s); (void)b; (void)c; "
                   "%s = %s(f32_out(%s, %s, %s, %s && (%s))); }",
                s0, o->t[1], s1, o->t[1], s2, o->t[1], name, cast, o->expr, o->t[1], o->t[2], o->t[1], o->t[0]);
        else
            put(b, "{ double a = f64_in(%s), b = f64_in(%s), c = f64_in(%s); (void)b; (void)c; %s = %s(fp_nan64(%s, a, b, c)); }",
                s0, s1, s2, name, cast, o->expr);
    } else {   /* UN BIN TER QUAD: exec_int_tmpl.h's H_* */
        int nsrc = !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : !strcmp(o->kind, "TER") ? 3 : 4;
        put(b, "{ ");
        char ex[512];
        for (int j = 0; j < nsrc; j++) put(b, "%s %s = (%s)%s; ", o->t[j], v[j], o->t[j], run_src(s0, p, m, in->s[j], scalar));
        inst_expr(ex, sizeof ex, o, in);
        /* a division in a run for part of a warp: only the mask's lanes divide (the others'
         * values are never written back). A hardware divide is 10-20 cycles and does not
         * vectorize; simpleAttributes' branches, half a warp each, divided 32 lanes twice. */
        if (run_part && !scalar && (strstr(ex, "div_") || strstr(ex, "rem_")))
            put(b, "%s = %s(((mask >> l) & 1u) ? (%s) : 0); }", name, cast, ex);
        else
            put(b, "%s = %s(%s); }", name, cast, ex);
    }
}

/* Whether lanewise instruction in, at this point of a run, computes the same value in every
 * lane: unguarded, not a selp (its predicate is per lane), every source uniform. */
static int run_inst_uniform(const Program *p, const RunMap *m, const Inst *in, const JitOp *o)
{
    if (in->pg || !strcmp(o->kind, "SELP")) return 0;
    if (!strcmp(o->kind, "CVTA")) return run_src_uniform(p, m, in->base);
    int nsrc = !strcmp(o->kind, "F32") || !strcmp(o->kind, "F64") ? (in->ns < 3 ? in->ns : 3)
             : !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : !strcmp(o->kind, "TER") ? 3 : 4;
    int uni = 1;
    for (int j = 0; j < nsrc; j++) uni &= run_src_uniform(p, m, in->s[j]);
    return uni;
}

static void run_def(RunMap *m, Buf *b, RunLoc x)
{
    if (m->n < (int)(sizeof m->m / sizeof m->m[0])) m->m[m->n++] = x;
    else b->oom = 1;
}

/* The bytes of a load's element type (exec_mem.c's), 0 for another. */
static uint32_t type_size(const char *t)
{
    static const char *const n[] = { "uint8_t", "int8_t", "uint16_t", "int16_t", "uint32_t", "int32_t", "uint64_t", "int64_t" };
    for (int i = 0; i < 8; i++) if (!strcmp(t, n[i])) return 1u << (i / 2);
    return 0;
}

/* A load of a run starts a new phase when its address is a value the run computed in the
 * phase before it: the phase's loop must end, and the value be where the phase's checks,
 * made before its loop, see it. */
static int run_starts_phase(const RunMap *m, const Inst *in, int phase)
{
    const RunLoc *x = run_find(m, in->base);
    return x && x->phase == phase;
}

/* The name of a local in an expression: v<id>[l] when it lives on between the phases. */
static const char *run_name(char out[32], const RunLoc *x)
{
    if (x->uni) snprintf(out, 32, "u%u", x->id);
    else if (x->arr) snprintf(out, 32, "v%u[l]", x->id);
    else snprintf(out, 32, "v%u", x->id);
    return out;
}

/* A contracted instruction i of a run (run_contract_ok) for lane l, as run_phase_body's other
 * lanewise ones: its sources read where the run keeps them, its rows (the product or the sum,
 * and a capture's two factor rows) C locals v<i*4>, v<i*4+1>, v<i*4+2>. */
static void run_contract(Buf *decl, Buf *body, const Program *p, RunMap *m, const Inst *in, uint32_t i,
                         const JitOp *o, int phase, int last)
{
    int ck = contract_kind(o);
    const JitOp *mo = contract_part(in, 0);
    ContractJit c;
    contract_jit(in, &c);
    char r[3][48], x[3][112], nm[32], cast[48];
    const char *xs[3];
    for (int j = 0; j < 3; j++) run_src(r[j], p, m, in->s[j], 0);
    RunLoc locs[3];
    int nl = 0;
    if (ck == 1 || ck == 2) {   /* the factors, copied (a neg's first one negated) */
        contract_neg(x[1], r[ck == 1 ? 0 : 1], ck == 2 && (in->aux8 & CF_NEG), c.sign);
        snprintf(x[2], sizeof x[2], "%s", r[ck == 1 ? 1 : 2]);
        for (int j = 1; j <= 2; j++) {
            RunLoc f = { in->d[j], i * 4 + (uint32_t)j, 0, "uint64_t", phase, !last, 0 };
            if (!last && decl) put(decl, "    uint64_t v%u[WARP_SIZE];\n", f.id);
            put(body, "            %s%s = %s;\n", last ? "uint64_t " : "", run_name(nm, &f), x[j]);
            locs[nl++] = f;
        }
        if (ck == 1) { xs[0] = r[0]; xs[1] = r[1]; xs[2] = r[0]; }
        else xs[0] = xs[1] = xs[2] = r[0];
    } else {
        xs[0] = contract_neg(x[0], r[0], in->aux8 & CF_NEG_A, c.sign);
        xs[1] = r[1];
        xs[2] = contract_neg(x[2], r[2], in->aux8 & CF_NEG_C, c.sign);
    }
    const char *T = contract_type(mo);
    RunLoc d = { in->d[0], i * 4, 0, T, phase, !last, 0 };
    if (!last && decl) put(decl, "    %s v%u[WARP_SIZE];\n", T, d.id);
    put(body, "            ");
    if (last) put(body, "%s %s; ", T, run_name(nm, &d));
    snprintf(cast, sizeof cast, "(%s)", T);
    contract_expr(body, mo, xs, run_name(nm, &d), cast);
    put(body, "\n");
    for (int j = 0; j < nl; j++) run_def(m, body, locs[j]);
    run_def(m, body, d);
}

/* Where the lanes of a run's shuffle read (run_shfl): every lane one source (same: map[0]),
 * one range [lo, hi) at a distance delta (shift; the copy s<i> starts off places in, after
 * padding for a negative delta), or the table map. */
typedef struct RunShfl { uint8_t map[WARP_SIZE]; uint32_t pv; int same, shift, lo, hi, delta, off, size, edge; } RunShfl;

static void run_shfl_map(const Program *p, const Inst *in, const JitOp *o, RunShfl *sh)
{
    uint64_t bv = p->row_init[in->s[1]], cv = p->row_init[in->s[2]];
    sh->pv = shfl_map(atoi(o->t[0]), (int)(bv & 31), (int)(cv & 31), (int)((cv >> 8) & 31), sh->map);
    sh->same = 1;
    sh->shift = 1;
    sh->lo = sh->hi = -1;
    sh->delta = 0;
    for (int l = 0; l < WARP_SIZE; l++) {
        sh->same &= sh->map[l] == sh->map[0];
        if (sh->map[l] == l) continue;
        if (sh->lo < 0) { sh->lo = l; sh->delta = sh->map[l] - l; }
        else if (sh->hi >= 0 || sh->map[l] - l != sh->delta) sh->shift = 0;
        if (l + 1 == WARP_SIZE || sh->map[l + 1] == l + 1) { if (sh->hi < 0) sh->hi = l + 1; }
    }
    if (sh->lo < 0) sh->lo = sh->hi = 0;   /* no lane reads another: a shift of nothing */
    sh->shift &= !sh->same;
    int pad = sh->shift ? (sh->delta < 0 ? -sh->delta : sh->delta) : 0;   /* the table and one lane: none */
    sh->off = sh->shift && sh->delta < 0 ? pad : 0;
    sh->size = WARP_SIZE + pad;
    /* edge: the lanes that keep their own value are exactly those whose source would lie past
     * the warp's edge (shfl.down/up over the whole warp, reduction's tree): the padding then
     * holds those lanes' own values, at the place each lane reads, and every lane reads
     * s[off + l + delta] with no select (gcc 12 left bench reduction's offset-1 shuffle with
     * the select a scalar loop: 31 iterations of 11 instructions a warp) */
    sh->edge = sh->shift && (sh->delta > 0 ? sh->lo == 0 && sh->hi == WARP_SIZE - sh->delta
                                           : sh->hi == WARP_SIZE && sh->lo == pad);
}

/* A run's .shared load of v elements into x, each element its own access at its own offset
 * (the offset passed the check: below 2^31, so a signed index gathers). One memcpy of a
 * vector (16 bytes: a 128-bit integer) has no vector type and kept gcc 12 from vectorizing
 * the whole loop around it; with an element each, and the partial warp's lane test inside
 * the index (the mask's other lanes read offset 0), globalToShmemAsyncCopy's tile loop of 16
 * FMAs vectorizes with gathers (issue 22). A single element is written as before. */
static void run_lds_elems(Buf *body, const char *base, uint32_t imm, int v)
{
    const char *keep = run_part ? " & (0u - ((mask >> l) & 1u))" : "";
    if (v == 1) {
        put(body, run_part ? "memcpy(x, shm + (int32_t)(((uint32_t)%s + %uu)%s), sizeof x);"
                           : "memcpy(x, shm + (int32_t)((uint32_t)%s + %uu%s), sizeof x);", base, imm, keep);
        return;
    }
    for (int j = 0; j < v; j++)
        put(body, "%smemcpy(&x[%d], shm + (int32_t)(((uint32_t)%s + %uu + %du * (uint32_t)sizeof x[0])%s), sizeof x[0]);",
            j ? " " : "", j, base, imm, j, keep);
}

/* The statements of instructions a..e of a run for one lane l (variant 0: the loads' lanes
 * consecutive from q<i>, 1: through p<i>[l]) into body, values the same in every lane into
 * pre and the arrays of values that live on after the phase into decl (with_decl). */
static void run_phase_body(Buf *pre, Buf *decl, Buf *body, const Program *p, RunMap *m, uint32_t a, uint32_t e,
                           int variant, int phase, int last)
{
    char nm[32], src[48];
    for (uint32_t i = a; i < e; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        if (run_sts(in, o)) {   /* stored after the phase's loop (run_sts_emit) */
            if (last) {   /* the run's last instruction: its operands, out of the loop */
                put(body, "            sta[l] = %s;", run_src(src, p, m, in->base, 0));
                for (int j = 0; j < in->vec; j++) put(body, " stv%d[l] = %s;", j, run_src(src, p, m, in->s[j], 0));
                put(body, "\n");
            }
            continue;
        }
        if (run_load(in, o)) {
            int v = atoi(o->t[1]);
            RunLoc xs[INST_MAXD];
            for (int j = 0; j < v; j++) {
                xs[j] = (RunLoc){ in->d[j], i * 4 + j, 0, o->t[0], phase, !last, 0 };
                if (!last && decl) put(decl, "    %s v%u[WARP_SIZE];\n", o->t[0], i * 4 + j);
                else if (last) put(body, "            %s v%u;\n", o->t[0], i * 4 + j);
            }
            put(body, "            { %s x[%d]; ", o->t[0], v);
            if (!strcmp(o->kind, "LDS"))
                run_lds_elems(body, run_src(src, p, m, in->base, 0), (uint32_t)in->imm, v);
            else if (!variant) put(body, "memcpy(x, q%u + (size_t)l * sizeof x, sizeof x);", i);
            else put(body, "memcpy(x, p%u[l], sizeof x);", i);
            for (int j = 0; j < v; j++) put(body, " %s = x[%d];", run_name(nm, &xs[j]), j);
            put(body, " }\n");
            for (int j = 0; j < v; j++) run_def(m, body, xs[j]);
            continue;
        }
        if (run_contract_ok(in, o)) { run_contract(decl, body, p, m, in, i, o, phase, last); continue; }
        if (run_bra(in, o)) continue;   /* its test starts its phase (emit_run) */
        if (run_cmp(in, o)) {   /* this lane's bit; cmp_finish after the phase's loop (emit_run) */
            char s1[48];
            put(body, "            { %s a = %s(%s), b = %s(%s); t%u |= (uint32_t)(%s) << l; }\n", o->t[0], o->t[1],
                run_src(src, p, m, in->s[0], 0), o->t[1], run_src(s1, p, m, in->s[1], 0), i, o->expr);
            continue;
        }
        if (run_shfl(p, in, o)) {
            if (run_src_uniform(p, m, in->s[0])) {   /* every lane reads the same value */
                RunLoc x = { in->d[0], i * 4, 1, "uint32_t", phase, 0, 0 };
                if (pre) put(pre, "    uint32_t u%u = (uint32_t)%s;\n", i * 4, run_src(src, p, m, in->s[0], 1));
                run_def(m, body, x);
                continue;
            }
            /* the lane's source in s<i>, the copy emit_run made before this phase's loop (the
             * shuffle starts its phase): a shift of one range of lanes reads two places and
             * selects, which vectorizes; another map reads through a table */
            RunShfl sh;
            run_shfl_map(p, in, o, &sh);
            RunLoc x = { in->d[0], i * 4, 0, "uint32_t", phase, !last, 0 };
            if (!last && decl) put(decl, "    uint32_t v%u[WARP_SIZE];\n", x.id);
            put(body, "            %s%s = ", last ? "uint32_t " : "", run_name(nm, &x));
            if (sh.same) put(body, "s%u[%d];\n", i, sh.map[0]);
            else if (sh.edge) put(body, "s%u[%d + l + %d];\n", i, sh.off, sh.delta);
            else if (sh.shift)
                put(body, "(l >= %d && l < %d) ? s%u[%d + l + %d] : s%u[%d + l];\n", sh.lo, sh.hi, i, sh.off, sh.delta,
                    i, sh.off);
            else put(body, "s%u[smap%u[l]];\n", i, i);
            run_def(m, body, x);
            continue;
        }
        if (!in->pg && in->pneg) continue;   /* a guard of !true: no lane */
        const char *T = run_type(o);
        char cast[48];
        if (run_inst_uniform(p, m, in, o)) {
            RunLoc x = { in->d[0], i * 4, 1, T, phase, 0, 0 };
            if (pre) {
                snprintf(cast, sizeof cast, "(%s)", T);
                put(pre, "    %s u%u; ", T, i * 4);
                run_value(pre, p, m, in, i, o, run_name(nm, &x), cast, 1);
                put(pre, "\n");
            }
            run_def(m, body, x);
            continue;
        }
        RunLoc x = { in->d[0], i * 4, 0, in->pg ? "uint64_t" : T, phase, !last, 0 };
        if (!in->pg && !strcmp(o->kind, "CVTA")) x.ofs = run_ofs_key(m, in->base);
        else if (!in->pg && !strcmp(o->kind, "BIN") && !strcmp(o->rt, "uint64_t") && m->nwd < 16 &&
                 ((!strcmp(o->expr, "(int64_t)a * b") && !strcmp(o->t[0], "int32_t") && !strcmp(o->t[1], "int32_t")) ||
                  (!strcmp(o->expr, "(uint64_t)a * b") && !strcmp(o->t[0], "uint32_t") && !strcmp(o->t[1], "uint32_t")))) {
            int u0 = run_src_uniform(p, m, in->s[0]), u1 = run_src_uniform(p, m, in->s[1]);
            const RunLoc *xl = run_find(m, in->s[u0 ? 1 : 0]);
            if (u0 != u1 && (!xl || xl->arr)) {   /* X readable where the checks are: an array or a row */
                RunWide *wd = &m->wd[m->nwd];
                run_src(wd->x, p, m, in->s[u0 ? 1 : 0], 0);
                run_src(wd->k, p, m, in->s[u0 ? 0 : 1], 1);
                wd->sgn = o->t[0][0] == 'i';
                wd->xrow = xl ? ~0u : in->s[u0 ? 1 : 0];
                x.ofs = RUN_WIDEKEY | (uint32_t)m->nwd++;
            }
        }
        else if (!in->pg && !strcmp(o->kind, "BIN") && !strcmp(o->expr, "a + b") && !strcmp(o->rt, "uint64_t") &&
                 !strcmp(o->t[0], "uint64_t") && !strcmp(o->t[1], "uint64_t")) {
            int u0 = run_src_uniform(p, m, in->s[0]), u1 = run_src_uniform(p, m, in->s[1]);
            if (u0 != u1) x.ofs = run_ofs_key(m, in->s[u0 ? 1 : 0]);
        }
        if (!last && decl) put(decl, "    %s v%u[WARP_SIZE];\n", x.type, x.id);
        put(body, "            ");
        if (last) put(body, "%s ", x.type);
        run_name(nm, &x);
        if (in->pg) {   /* the lanes the guard leaves out keep the value before */
            snprintf(cast, sizeof cast, "(uint64_t)(%s)", T);
            put(body, "%s = %s; if ((g%u >> l) & 1u) ", nm, run_src(src, p, m, in->d[0], 0), i);
        } else {
            snprintf(cast, sizeof cast, "(%s)", T);
            if (last) put(body, "%s; ", nm);
        }
        if (!in->pg && last) { /* declared above: "T v; " then the value */ }
        run_value(body, p, m, in, i, o, nm, cast, 0);
        put(body, "\n");
        run_def(m, body, x);
    }
}

/* A run for part of a warp (w->active, not every lane): lanewise instructions, setps and
 * .shared loads and stores only. Its loop computes every lane (the lanes outside the mask
 * from whatever their rows hold: the handlers' expressions are defined for any value, as
 * they are for a whole warp's), but only the mask's lanes are checked, load (the others
 * read offset 0, which is not used), store, write their predicates (cmp_finish) and
 * their rows: the instructions' effects on those lanes, as the handlers' loops over the
 * mask have. Global, const, param and generic loads and stores too (run_part_mem): their
 * pointers come from jit_warp_fast_mask, and a span of consecutive lanes is used only when
 * the mask is the whole warp. Shuffles (another lane's value), .local accesses (local_fast's
 * check takes whole warps here) and a branch the run passes (its test reads all 32 lanes'
 * predicates; the two were built apart and no test holds both) keep a run to whole warps. */
/* The fewest lanes for which a run for part of a warp is entered: its loop costs 32 lanes
 * whatever the mask, the instructions one by one only the mask's (their loops walk its
 * bits), and a run's f64 work does not vectorize. Callgrind of the kernel's object,
 * HeCBench feynman-kac (its pow called from random walks most of whose lanes have left their
 * loop) and binomial, one by one 3790 M and 550 M; a run from 1 lane: 4344 M, 350 M; from 8:
 * 3262 M, 358 M; from 16: 3325 M, 397 M (docs/benchmarks.md) */
#ifndef RUN_PART_MIN
#define RUN_PART_MIN 8
#endif

/* A load or the final store a run for part of a warp may hold: .shared loads (checked for
 * the mask's lanes in the phase's loop), and global, const, param and generic accesses,
 * whose lanes' pointers jit_warp_fast_mask finds for the mask's lanes only (a divergent
 * branch's gather and scatter: cuda-samples simpleAttributes' loop body, half a warp each
 * side). .local and frame accesses keep a run to whole warps (local_fast's check there). */
static int mem_local(const Inst *in);
static int run_part_mem(const Inst *in, const JitOp *o)
{
    if (!strcmp(o->kind, "LDS")) return 1;
    return !mem_local(in) && (in->space == SP_GLOBAL || in->space == SP_CONST || in->space == SP_PARAM ||
                              in->space == SP_GENERIC);
}

/* The pcs a bra jumps to (jit_native_source), or NULL: a warp enters the code there from the
 * middle of the run emitted before, so a run starts there too. Without it, a loop head or a
 * join inside a run ran all its instructions up to the next run one instruction at a time:
 * bench reduction's second half (warp 0 after `if (lane < 8)`) its five shuffles, HeCBench
 * md5hash's switch on the key length (joining 2 instructions into a run of 64) 56% of its
 * time in the 62 instructions after the join. emit_run adds the pc after a run's first access
 * when the run is not entered in a barrier's short turn (a .shared store after that access). */
static __thread uint8_t *join_at;
enum { JOIN_ANY = 1 | 2, JOIN_LOOP = 2 };   /* join_at's values: a target, a backward branch's */

/* The pcs a barrier's short turn (sched.c's run_short) may reach before its first access, or
 * NULL: only a run there needs the run after its first access (emit_run's late_sts). Any other
 * run with a .shared store after its first access is entered after an access already stopped
 * the short turn, so the pc after its own first access is no place a turn resumes at. Without
 * this, each such run made the next pc a run start, that one the next: tests/cuda/wgmma.cu's
 * copy loops of ld.global and st.shared pairs had a run of 64 instructions at each of 16
 * consecutive pcs, 1.2 MB of C (36 s of cc) for a kernel of 187 instructions. Marked
 * generously: a short turn starts where a warp's lanes wait, so at branch targets, after a
 * branch and after any instruction the C calls (a barrier, a call, a warp sync); it goes on
 * past anything but an unguarded switch point (translate.c's IF_PREEMPT: where it stops). A
 * pc missed here costs speed only: the run is not entered in a short turn, and the next
 * turn goes on one instruction at a time up to the next run. */
static __thread uint8_t *short_at;

static int run_partial_ok(const Program *p, uint32_t k, uint32_t n)
{
    int global = 0, join = 0;
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        if (run_shfl(p, in, o) || run_bra(in, o) || ((run_store(in, o) || run_load(in, o)) && !run_part_mem(in, o)))
            return 0;
        global |= (run_store(in, o) || run_load(in, o)) && strcmp(o->kind, "LDS");
        join |= i > k && join_at && join_at[i];
    }
    /* a run for part of a warp ends at a branch target (emit_insts), which one for whole
     * warps does not: a run with global accesses across a join stays a whole warp's, as it
     * was before those could run for part of one, rather than be cut in two */
    return !(global && join);
}

/* The statement that writes lane l's row from a run's local: every lane for a whole warp's
 * run, the mask's lanes for one that may run for part of a warp (the others keep theirs). */
static void run_row_write(Buf *b, const char *indent, uint32_t row, const char *val)
{
    if (run_part)   /* a blend, not a select: gcc 12 vectorizes it (a select of 64-bit rows under a
                     * 32-bit lane test became a masked load it could not do, the loop stayed scalar) */
        put(b, "%s{ const uint64_t k_ = 0ull - (uint64_t)((mask >> l) & 1u); ROWP(%u)[l] = ((uint64_t)%s & k_) | (ROWP(%u)[l] & ~k_); }\n",
            indent, row, val, row);
    else put(b, "%sROWP(%u)[l] = (uint64_t)%s;\n", indent, row, val);
}

/* lanes and idle counts of the instructions k..e-1 of a run (engine.c's profile); in a run
 * for part of a warp, of the mask's lanes */
static void run_counts(Buf *b, const Program *p, uint32_t k, uint32_t e, const char *indent)
{
    put(b, "%s*lanes_out = 0", indent);
    for (uint32_t i = k; i < e; i++) {
        const Inst *in = &p->code[i];
        if (in->op == OP_bra) continue;   /* a branch the run passes: no lane took it */
        if (in->pg) put(b, run_part ? " + (uint64_t)__builtin_popcount(g%u & mask)" : " + (uint64_t)__builtin_popcount(g%u)", i);
        else if (!in->pneg) put(b, run_part ? " + (uint64_t)__builtin_popcount(mask)" : " + 32");
    }
    /* the guarded instructions no lane executes: the profile leaves them out (engine.c) */
    put(b, ";\n%s*idle_out = 0", indent);
    for (uint32_t i = k; i < e; i++) {
        const Inst *in = &p->code[i];
        if (in->op == OP_bra) put(b, " + 1");
        else if (in->pg) put(b, run_part ? " + ((g%u & mask) == 0)" : " + (g%u == 0)", i);
        else if (in->pneg) put(b, " + 1");
    }
    put(b, ";\n");
}

/* Every row live at pc a that the run wrote before it, from its local: the state the
 * interpreter has there. */
static void run_commit(Buf *b, const RunMap *m, uint32_t a)
{
    char nm[32];
    for (int j = 0; j < m->n; j++) {
        const RunLoc *x = &m->m[j];
        if (run_find(m, x->row) != x || !row_live(a, x->row)) continue;
        put(b, "        for (int l = 0; l < WARP_SIZE; l++) ");
        run_row_write(b, "", x->row, run_name(nm, x));
    }
}

/* A run of n instructions from k - lanewise ones and loads - for a whole warp, in one loop
 * over the lanes per phase (the compiler keeps each lane's values in vector registers from
 * one instruction to the next). It stands for the steps warp_run would take when the whole
 * warp runs, nothing can make it regroup on the way (the merge pc is not in the run) and no
 * wgmma is in flight. Before each phase's loop its loads' addresses must pass the memory
 * system's whole-warp checks; a phase starts at a load whose address the phase before
 * computed. A value is a C local (a row is written only when a later instruction may read
 * it: liveness); one the same in every lane is computed once. When a phase's check fails,
 * the run ends before it with the rows live there written, and the instructions go on one
 * by one, where a load that faults faults as it would in the interpreter. The run is a
 * function of its own (in fb): alone, the compiler vectorizes its loops, which in the middle
 * of a kernel of many labels it may not. It returns how many instructions it ran (0: none). */

/* A run's access at instruction i through address src + imm, elements of sizeof(T) * V: q<i>
 * is the first lane's host pointer when the 32 lanes' addresses are consecutive and
 * mem_warp_span accepts them, else NULL (p<i> then takes mem_warp_fast's pointers). */
/* An ld/st of .local memory or of a frame slot: each lane's own window (exec_mem_fast.h's
 * local_fast), never consecutive host addresses, so no span is looked for. */
static int mem_local(const Inst *in)
{
    return (in->flags & IF_FRAME) || in->space == SP_LOCAL;
}

/* What a run's consecutive-lanes checks found so far (put_span_check): each test of what
 * the lanes' addresses differ by (RunLoc.ofs) for an element size, in c<at>, and each span
 * looked up, in q<at>, by the address's value (a local's id + 1, or RUN_ROWKEY | row), offset,
 * size and the instruction's space. saxpy's two loads and store differ between lanes by the
 * same `mul.wide` (x + 4i, y + 4i): one test instead of three, and its store, at its second
 * load's address, takes that load's span: no call. */
typedef struct RunChecks {
    int nc, nq, mc;   /* mc: a span is looked up in the worker's cache (mc_, read once a run) */
    struct RunTest { uint32_t key, size, at; } c[64];
    struct RunSpan { uint32_t addr, size, at, space, frame; uint64_t imm; } q[64];
} RunChecks;

/* The lane test c<at> of key for size-byte accesses the run has written already, or -1. */
static int run_test_at(const RunChecks *ck, uint32_t key, uint32_t size)
{
    int c = -1;
    for (int j = 0; size && j < ck->nc; j++) if (ck->c[j].key == key && ck->c[j].size == size) c = (int)ck->c[j].at;
    return c;
}

/* Once lane test c<c> passed: mem_warp_span's test inline (exec_mem_fast.h: the same accesses,
 * no call), q<i> the span; later accesses to the same bytes take it (put_span_check). */
static void put_span_lookup(Buf *b, RunChecks *ck, const Inst *in, uint32_t i, int c, const char *src, uint64_t imm,
                            const char *T, const char *V, uint32_t addr, uint32_t size)
{
    /* a run for part of a warp (run_part) has a span only when it runs for the whole warp */
    put(b, "    if (!c%d%s) { uint64_t a0; { int l = 0; a0 = %s + %lluull; }\n"
           "        if (mem_span_cached(mc_, __atomic_load_n(rt->generation, __ATOMIC_ACQUIRE), a0, sizeof(%s) * %s)) "
           "q%u = (uint8_t *)(uintptr_t)a0; }\n", c, run_part ? " && mask == FULL_MASK" : "", src, (unsigned long long)imm,
        T, V, i);
    ck->mc = 1;
    if (size && ck->nq < 64)
        ck->q[ck->nq++] = (struct RunSpan){ addr, size, i, in->space, in->flags & IF_FRAME, imm };
}

static void put_span_check(Buf *b, const Program *p, const RunMap *m, RunChecks *ck, const Inst *in, uint32_t i,
                           uint64_t imm, const char *T, const char *V)
{
    char src[48];
    run_src(src, p, m, in->base, 0);
    /* mem_warp_span's spaces: no other has a span (.local, frames: each lane's own window;
     * generic: the handler sorts the lanes out) */
    if (mem_local(in) || (in->space != SP_GLOBAL && in->space != SP_CONST && in->space != SP_PARAM)) {
        put(b, "    uint8_t *q%u = NULL, *p%u[WARP_SIZE];\n", i, i);
        return;
    }
    uint32_t size = type_size(T) * (uint32_t)atoi(V);
    const RunLoc *ax = run_find(m, in->base);
    uint32_t addr = ax ? ax->id + 1 : RUN_ROWKEY | in->base;
    for (int j = 0; size && j < ck->nq; j++)   /* the same bytes looked up already */
        if (ck->q[j].addr == addr && ck->q[j].imm == imm && ck->q[j].size == size && ck->q[j].space == in->space &&
            ck->q[j].frame == (in->flags & IF_FRAME)) {
            put(b, "    uint8_t *q%u = q%u, *p%u[WARP_SIZE];\n", i, ck->q[j].at, i);
            return;
        }
    /* the lanes' differences: the value the address was computed from (ofs), when the run
     * keeps it in an array or reads it from a row; else the address itself */
    uint32_t key = run_ofs_key(m, in->base);
    char osrc[48];
    snprintf(osrc, sizeof osrc, "%s", src);
    /* a row the run has written since: its memory may hold the new value (a failed span
     * writes its address row for mem_warp_fast), so the address itself is tested */
    uint32_t krow = (key & RUN_ROWKEY) ? key & ~RUN_ROWKEY : (key & RUN_WIDEKEY) ? m->wd[key & 0xffff].xrow : ~0u;
    if (krow != ~0u && run_find(m, krow)) key = ax ? ax->id + 1 : RUN_ROWKEY | in->base;
    if ((key & RUN_WIDEKEY) && !(key & RUN_ROWKEY)) {
        /* (int64_t)X * K: X's lanes X[0] + l as 32-bit values, no wrap from lane 0 to lane 31
         * (then the products step by K exactly), and K the element size. A warp whose lanes
         * are consecutive another way fails the test and takes mem_warp_fast's pointers. */
        const RunWide *wd = &m->wd[key & 0xffff];
        int c = run_test_at(ck, key, size);
        put(b, "    uint8_t *q%u = NULL, *p%u[WARP_SIZE];\n", i, i);
        if (c < 0) {
            put(b, "    uint64_t c%u;\n    {\n        uint32_t o0, bad;\n        { int l = 0; o0 = (uint32_t)%s; }\n"
                   "        bad = (%s)(uint32_t)%s != (%s)(sizeof(%s) * %s) || (%s)o0 > %s;\n"
                   "        for (int l = 0; l < WARP_SIZE; l++) bad |= (uint32_t)%s ^ (o0 + (uint32_t)l);\n"
                   "        c%u = bad;\n    }\n",
                i, wd->x, wd->sgn ? "int32_t" : "uint32_t", wd->k, wd->sgn ? "int32_t" : "uint32_t", T, V,
                wd->sgn ? "int32_t" : "uint32_t", wd->sgn ? "0x7fffffff - 31" : "0xffffffffu - 31u", wd->x, i);
            c = (int)i;
            if (size && ck->nc < 64) ck->c[ck->nc++] = (struct RunTest){ key, size, i };
        }
        put_span_lookup(b, ck, in, i, c, src, imm, T, V, addr, size);
        return;
    }
    if (key & RUN_ROWKEY) {
        if (key != (RUN_ROWKEY | in->base)) snprintf(osrc, sizeof osrc, "ROWP(%u)[l]", key & ~RUN_ROWKEY);
    } else {
        const RunLoc *ox = NULL;
        for (int j = 0; j < m->n; j++) if (!m->m[j].uni && m->m[j].id + 1 == key) ox = &m->m[j];
        if (ox && ox->arr) snprintf(osrc, sizeof osrc, "((uint64_t)v%u[l])", ox->id);
        else if (!ax || ax->id + 1 != key) key = ax ? ax->id + 1 : RUN_ROWKEY | in->base;
    }
    int c = run_test_at(ck, key, size);
    put(b, "    uint8_t *q%u = NULL, *p%u[WARP_SIZE];\n", i, i);
    if (c < 0) {
        put(b, "    uint64_t c%u = 0;\n    {\n        uint64_t o0;\n        { int l = 0; o0 = %s; }\n"
               "        for (int l = 0; l < WARP_SIZE; l++) c%u |= %s ^ (o0 + (uint64_t)l * (sizeof(%s) * %s));\n    }\n",
            i, osrc, i, osrc, T, V);
        c = (int)i;
        if (size && ck->nc < 64) ck->c[ck->nc++] = (struct RunTest){ key, size, i };
    }
    put_span_lookup(b, ck, in, i, c, src, imm, T, V, addr, size);
}
/* The call that fills p with a whole warp's host pointers for instruction i (sizeof(T) * V
 * bytes a lane), nonzero when the handler must decide: jit_warp_fast (the prologue) for the
 * spaces whose addresses may be arena addresses, mem_warp_fast for the others. */
static void put_warp_fast(Buf *b, const Inst *in, uint32_t i, const char *T, const char *V, const char *p)
{
    int sp = in->space;
    if (!(in->flags & IF_FRAME) && (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_PARAM || sp == SP_GENERIC) && run_part)
        put(b, "jit_warp_fast_mask(w, &code[%u], rt, ROWP(%u), %lluull, sizeof(%s) * %s, mask, %s)", i, in->base,
            (unsigned long long)in->imm, T, V, p);
    else if (!(in->flags & IF_FRAME) && (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_PARAM || sp == SP_GENERIC))
        put(b, "jit_warp_fast(w, &code[%u], rt, ROWP(%u), %lluull, sizeof(%s) * %s, %s)", i, in->base,
            (unsigned long long)in->imm, T, V, p);
    else if (mem_local(in))   /* exec_mem_fast.h's local_fast, as memory.c's fast_ptrs calls it */
        put(b, "({ uint64_t o_[WARP_SIZE]; local_fast(w, ROWP(%u), %lluull, %d, FULL_MASK, sizeof(%s) * %s, %s, o_); })",
            in->base, (unsigned long long)in->imm, (in->flags & IF_FRAME) != 0, T, V, p);
    else put(b, "rt->warp_fast(w, &code[%u], FULL_MASK, sizeof(%s) * %s, %s)", i, T, V, p);
}

/* The .shared store i of a run starting at k, after the loop of the phase it ends: every
 * lane's offset through exec_mem_fast.h's shared_fast check (the low 32 bits of the address
 * plus imm, in bounds and aligned); when one fails, the run ends before the store with the
 * rows live there written, and the handler runs it (and faults as the interpreter does).
 * Then the lanes store in the handler's order (FOR_LANES_ST: the lane the H200 keeps when
 * lanes store to one word). */
/* (The checks below keep a lane's failure bits when it is in the mask by and-ing with all
 * ones, 0u - bit: and-ing with the bit itself dropped a misalignment of 2, tests/tier/
 * shared_run_misaligned.ptx once its run could run for part of a warp.) */
static void run_sts_emit(Buf *b, const Program *p, const RunMap *m, uint32_t k, uint32_t i, int last)
{
    const Inst *in = &p->code[i];
    const JitOp *o = jitop_of_inst(in);
    const char *T = o->t[0];
    int v = atoi(o->t[1]);
    char src[48];
    if (last) {   /* the run's last instruction, its operands in sta/stv (run_phase_body) */
        put(b, "    {\n        uint32_t bad = 0;\n        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {"
               " uint32_t o = (uint32_t)sta[l] + %uu; bad |= (((uint64_t)o + sizeof(%s) * %d > ssz) | (o & (sizeof(%s) * %d - 1)))%s; }\n"
               "        if (bad) {\n", (uint32_t)in->imm, T, v, T, v, run_part ? " & (0u - ((mask >> l) & 1u))" : "");
        /* the rows live before the store: those live after the run (written by the loop) and
         * the store's operands, where the run computed them */
        if (run_find(m, in->base)) {
            put(b, "            for (int l = 0; l < WARP_SIZE; l++) ");
            run_row_write(b, "", in->base, "sta[l]");
        }
        for (int j = 0; j < v; j++) {
            char sv[16];
            snprintf(sv, sizeof sv, "stv%d[l]", j);
            if (!run_find(m, in->s[j])) continue;
            put(b, "            for (int l = 0; l < WARP_SIZE; l++) ");
            run_row_write(b, "", in->s[j], sv);
        }
        run_counts(b, p, k, i, "            ");
        put(b, "            return %u;\n        }\n    }\n", i - k);
        put(b, "    FOR_LANES_ST(%s, sizeof(%s) * %d, l) { %s x[%d];", run_part ? "mask" : "FULL_MASK", T, v, T, v);
        for (int e = 0; e < v; e++) put(b, " x[%d] = (%s)stv%d[l];", e, T, e);
        put(b, " memcpy(shm + (uint32_t)((uint32_t)sta[l] + %uu), x, sizeof x); }\n", (uint32_t)in->imm);
        return;
    }
    run_src(src, p, m, in->base, 0);
    put(b, "    {\n        uint32_t bad = 0;\n        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {"
           " uint32_t o = (uint32_t)%s + %uu; bad |= (((uint64_t)o + sizeof(%s) * %d > ssz) | (o & (sizeof(%s) * %d - 1)))%s; }\n"
           "        if (bad) {\n", src, (uint32_t)in->imm, T, v, T, v, run_part ? " & (0u - ((mask >> l) & 1u))" : "");
    run_commit(b, m, i);
    run_counts(b, p, k, i, "            ");
    put(b, "            return %u;\n        }\n    }\n", i - k);
    put(b, "    FOR_LANES_ST(%s, sizeof(%s) * %d, l) { %s x[%d];", run_part ? "mask" : "FULL_MASK", T, v, T, v);
    for (int e = 0; e < v; e++) put(b, " x[%d] = (%s)%s;", e, T, run_src(src, p, m, in->s[e], 0));
    put(b, " memcpy(shm + (uint32_t)((uint32_t)%s + %uu), x, sizeof x); }\n", run_src(src, p, m, in->base, 0),
        (uint32_t)in->imm);
}

static void emit_run(Buf *b, Buf *fb, const Program *p, uint32_t k, uint32_t n, int wgmma)
{
    /* before the join this run may add below (late_sts): that one is where its next turn
     * enters, not a branch target that keeps it to whole warps */
    int part = run_partial_ok(p, k, n);
    /* the issue slots (time model) and whether a load ran, after each prefix */
    put(fb, "static const uint32_t run%u_slots[%u] = { 0", k, n + 1);
    uint32_t cost = 0;
    for (uint32_t i = k; i < k + n; i++) put(fb, ", %u", cost += p->code[i].cost);
    put(fb, " };\nstatic const uint8_t run%u_loaded[%u] = { 0", k, n + 1);
    int loaded = 0;
    for (uint32_t i = k; i < k + n; i++) {
        const JitOp *o = jitop_of_inst(&p->code[i]);
        put(fb, ", %d", loaded |= run_load(&p->code[i], o) || run_store(&p->code[i], o) || run_sts(&p->code[i], o));
    }
    /* a .shared store, or the global store that ends the run, after another access of the
     * run is not run in the short turn after a barrier (sched.c's run_short): the interpreter
     * stops after the first access there, so the other warps' first accesses (a read of the
     * word this one stores) come before it; the instructions go one by one and stop where the
     * interpreter does, and a run starts after that first access (join_at), where the next
     * turn goes on. (The global store: tests/tier/run_global_partial.ptx, whose warps' first
     * turns after the barrier each loaded and stored before the next warp's first load.) */
    int late_sts = 0;
    uint32_t first = 0, access = 0;
    for (uint32_t i = k; i < k + n; i++) {
        const JitOp *o = jitop_of_inst(&p->code[i]);
        int sts = run_sts(&p->code[i], o) || run_store(&p->code[i], o);
        late_sts |= sts && access;
        if (!access && (sts || run_load(&p->code[i], o))) { access = 1; first = i; }
    }
    if (late_sts && join_at && (!short_at || short_at[k]) && first + 1 < k + n) join_at[first + 1] |= 1;
    /* a store ends the run: its lanes after the phases' loops */
    const Inst *sti = &p->code[k + n - 1];
    int st = run_store(sti, jitop_of_inst(sti));
    uint32_t ne = st ? n - 1 : n;
    put(fb, " };\n");
    run_part = part;
    /* the merge pc may be where the run ends (the end of an if's body, a run for part of a
     * warp): the warp regroups there, as NEXT() and the interpreter's loop do, before the
     * short turn's end */
    char enter[64];
    snprintf(enter, sizeof enter, run_part ? "__builtin_popcount(w->active) >= %d" : "w->active == FULL_MASK", RUN_PART_MIN);
    put(b, "    if (%s && !(w->merge_pc > %u && w->merge_pc < %u)%s%s) {\n"
           "        uint64_t ln, id;\n        uint32_t m = run%u(w, code, rt, &ln, &id%s);\n        if (m) {\n"
           "            steps += m;\n            slots += run%u_slots[m];\n            lanes += ln;\n            idle += id;\n"
           "            w->pc = %u + m;\n"
           "            if (w->pc == w->merge_pc) { rt->regroup(w); SHORT(run%u_loaded[m]) goto dispatch; }\n"
           "            SHORT(run%u_loaded[m])\n",
        enter, k, k + n, wgmma ? " && !w->wg_inflight" : "", late_sts ? " && !w->short_turn" : "",
        k, run_part ? ", w->active" : "", k, k, k, k);
    if (pc_local(k + n)) put(b, "            if (m == %u) goto L%u;\n", n, k + n);
    put(b, "            goto dispatch;\n        }\n    }\n");

    /* the phases: starts[0..nph); a .shared store ends one (the one that ends the run ends
     * the last phase, whose loop keeps its values in scalars and writes the rows read after
     * the run: the store's address and values are copied for it, run_phase_body's sta/stv) */
    uint32_t starts[67];
    int nph = 0;
    RunMap *m = calloc(1, sizeof *m);
    if (!m) { fb->oom = 1; run_part = 0; return; }
    starts[nph++] = k;
    for (uint32_t i = k; i < k + ne; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        /* at most n phases: a shuffle of values that differ between lanes starts one, so that
         * its source is complete in every lane before its loop */
        if ((i > k && run_sts(&p->code[i - 1], jitop_of_inst(&p->code[i - 1]))) ||
            (run_load(in, o) && run_starts_phase(m, in, nph - 1)) ||
            (i > k && run_shfl(p, in, o) && !run_src_uniform(p, m, in->s[0])) || (i > k && run_bra(in, o)))
            starts[nph++] = i;
        Buf scratch = { 0 };
        run_phase_body(NULL, NULL, &scratch, p, m, i, i + 1, 1, nph - 1, 0);
        free(scratch.s);
    }
    starts[nph] = k + ne;
    /* the pre-pass's buffers were only for the map: throw them away */
    m->n = 0;
    m->nwd = 0;

    Buf decl = { 0 }, pre = { 0 }, main = { 0 };
    RunChecks ck = { 0 };
    int lds = 0;
    for (uint32_t i = k; i < k + n; i++) {
        const JitOp *o = jitop_of_inst(&p->code[i]);
        lds |= (run_load(&p->code[i], o) && !strcmp(o->kind, "LDS")) || run_sts(&p->code[i], o);
    }
    if (run_sts(sti, jitop_of_inst(sti))) {   /* the operands of the store that ends the run */
        put(&decl, "    uint64_t sta[WARP_SIZE]");
        for (int j = 0; j < sti->vec; j++) put(&decl, ", stv%d[WARP_SIZE]", j);
        put(&decl, ";\n");
    }
    for (int ph = 0; ph < nph; ph++) {
        uint32_t a = starts[ph], e = starts[ph + 1];
        int last = ph == nph - 1 && !st, nld = 0, nlds = 0;
        char src[48], fail[64];
        if (ph == 0) snprintf(fail, sizeof fail, "return 0;");
        else snprintf(fail, sizeof fail, "goto fail%u;", a);
        for (uint32_t i = a; i < e; i++) {
            const JitOp *o = jitop_of_inst(&p->code[i]);
            if (run_load(&p->code[i], o)) { if (strcmp(o->kind, "LDS")) nld++; else nlds++; }
        }
        /* a branch that starts the phase first: taken (a loop's back edge, mostly), the run
         * ends before it, and the phase's checks below would be for nothing (cuda-samples
         * scan: the run after its loop's second barrier tested the 32 lanes of the .shared
         * load after the loop before it found the back edge taken, every step) */
        if (run_bra(&p->code[a], jitop_of_inst(&p->code[a])))   /* the whole warp: mask = P[pg] ^ pneg */
            put(&main, "    if (P[%u] ^ %uu) %s\n", p->code[a].pg, p->code[a].pneg, fail);
        /* the .shared loads: exec_mem_fast.h's whole-warp check of each, in one pass over
         * the lanes (offsets as shared_fast computes them: the low 32 bits plus imm). The
         * loads of one address row whose offsets are multiples of their size, below 2^31,
         * are checked together: the row's alignment, and its largest offset with no wrap
         * (stricter than each: when it fails, the instructions run one by one) */
        if (nlds) {
            put(&main, "    {\n        uint32_t bad = 0;\n        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {\n");
            uint8_t done[64] = { 0 };
            for (uint32_t i = a; i < e; i++) {
                const Inst *in = &p->code[i];
                const JitOp *o = jitop_of_inst(in);
                if (done[i - k] || !run_load(in, o) || strcmp(o->kind, "LDS")) continue;
                uint32_t size = (uint32_t)atoi(o->t[1]) * type_size(o->t[0]);
                uint32_t hi = 0, grouped = 0;
                for (uint32_t j = i; j < e; j++) {
                    const Inst *jn = &p->code[j];
                    const JitOp *jo = jitop_of_inst(jn);
                    if (done[j - k] || !run_load(jn, jo) || strcmp(jo->kind, "LDS") || jn->base != in->base) continue;
                    uint32_t jsize = (uint32_t)atoi(jo->t[1]) * type_size(jo->t[0]);
                    if (!size || jsize != size || jn->imm < 0 || jn->imm >= (1ll << 31) || (uint64_t)jn->imm % size) continue;
                    done[j - k] = 1;
                    grouped++;
                    if ((uint32_t)jn->imm > hi) hi = (uint32_t)jn->imm;
                }
                run_src(src, p, m, in->base, 0);
                if (grouped)
                    put(&main, "            { uint32_t o = (uint32_t)%s; bad |= (((uint64_t)o + %uu + %uu > ssz) | (o & %uu))%s; }\n",
                        src, hi, size, size - 1, run_part ? " & (0u - ((mask >> l) & 1u))" : "");
                if (done[i - k]) continue;
                /* off > shared_size - size, for any shared_size: off + size > shared_size */
                put(&main, "            { uint32_t o = (uint32_t)%s + %uu; bad |= (((uint64_t)o + sizeof(%s) * %s > ssz) | (o & (sizeof(%s) * %s - 1)))%s; }\n",
                    src, (uint32_t)in->imm, o->t[0], o->t[1], o->t[0], o->t[1], run_part ? " & (0u - ((mask >> l) & 1u))" : "");
            }
            put(&main, "        }\n        if (bad) %s\n    }\n", fail);
        }
        if (nld) put(&main, "    int span%d = 1;\n", ph);
        for (uint32_t i = a; i < e; i++) {
            const Inst *in = &p->code[i];
            const JitOp *o = jitop_of_inst(in);
            if (!run_load(in, o) || !strcmp(o->kind, "LDS")) continue;
            /* consecutive lanes (mem_warp_span) or mem_warp_fast's pointers, which reads the
             * address row: a value of the run is written to it first */
            const char *T = o->t[0], *V = o->t[1];
            run_src(src, p, m, in->base, 0);
            put_span_check(&main, p, m, &ck, in, i, in->imm, T, V);
            put(&main, "    if (!q%u) {\n", i);
            if (run_find(m, in->base)) {
                put(&main, "        for (int l = 0; l < WARP_SIZE; l++) ");
                run_row_write(&main, "", in->base, src);
            }
            char pn[16];
            snprintf(pn, sizeof pn, "p%u", i);
            put(&main, "        if (");
            put_warp_fast(&main, in, i, T, V, pn);
            put(&main, ") %s\n        span%d = 0;\n    }\n", fail, ph);
        }
        if (nld) {   /* the per-lane loop reads every load through p<i>: those of consecutive lanes too */
            put(&main, "    if (!span%d) {\n", ph);
            for (uint32_t i = a; i < e; i++) {
                const Inst *in = &p->code[i];
                const JitOp *o = jitop_of_inst(in);
                if (!run_load(in, o) || !strcmp(o->kind, "LDS")) continue;
                put(&main, "        if (q%u) for (int l = 0; l < WARP_SIZE; l++) p%u[l] = q%u + (size_t)l * sizeof(%s) * %s;\n",
                    i, i, i, o->t[0], o->t[1]);
            }
            put(&main, "    }\n");
        }
        if (ph > 0) {   /* a failed check: the instructions before the phase are done */
            Buf f = { 0 };
            put(&f, "    if (0) {\n    fail%u:\n", a);
            run_commit(&f, m, a);
            run_counts(&f, p, k, a, "        ");
            put(&f, "        return %u;\n    }\n", a - k);
            /* placed after the run's return (below); kept in decl's tail buffer */
            put(&main, "%s", f.s ? f.s : "");
            main.oom |= f.oom;
            free(f.s);
        }
        /* the phase's shuffles (run_shfl), after its checks: the predicate of the lanes in
         * range, and the copy of the source that starts the phase */
        for (uint32_t i = a; i < e; i++) {
            const Inst *in = &p->code[i];
            const JitOp *o = jitop_of_inst(in);
            if (run_cmp(in, o)) put(&decl, "    uint32_t t%u = 0;\n", i);
            if (!run_shfl(p, in, o)) continue;
            RunShfl sh;
            run_shfl_map(p, in, o, &sh);
            if (i == a && !run_src_uniform(p, m, in->s[0])) {
                put(&main, "    uint32_t s%u[%d];\n", i, sh.size);
                if (sh.size > WARP_SIZE && !sh.edge)
                    put(&main, "    for (int l = 0; l < %d; l++) s%u[%d + l] = 0;\n", sh.size - WARP_SIZE, i,
                        sh.delta < 0 ? 0 : WARP_SIZE);
                put(&main, "    _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) s%u[%d + l] = (uint32_t)%s;\n",
                    i, sh.off, run_src(src, p, m, in->s[0], 0));
                /* the edge lanes' own values where they read: past the top (down: lane l at
                 * 32 - delta + k reads 32 + k) or below the bottom (up: lane k reads k, its
                 * value at off + k) */
                if (sh.edge && sh.delta > 0)
                    put(&main, "    for (int l = 0; l < %d; l++) s%u[%d + l] = s%u[%d + l];\n", sh.delta, i,
                        WARP_SIZE, i, WARP_SIZE - sh.delta);
                else if (sh.edge)
                    put(&main, "    for (int l = 0; l < %d; l++) s%u[l] = s%u[%d + l];\n", sh.off, i, i, sh.off);
                if (!sh.same && !sh.shift) {
                    put(&main, "    static const uint8_t smap%u[WARP_SIZE] = { %u", i, sh.map[0]);
                    for (int l = 1; l < WARP_SIZE; l++) put(&main, ", %u", sh.map[l]);
                    put(&main, " };\n");
                }
            }
            put(&main, "    P[%u] = %uu;\n", in->d[1], sh.pv);
        }
        /* the loop twice where the phase loads global memory: once for lanes whose addresses
         * are all consecutive (contiguous vector loads), once through per-lane pointers */
        RunMap *m0 = malloc(sizeof *m0);
        if (!m0) { main.oom = 1; break; }
        for (int variant = nld ? 0 : 1; variant < 2; variant++) {
            Buf body = { 0 };
            RunMap *mm = variant ? m : m0;
            if (!variant) *m0 = *m;
            run_phase_body(variant ? &pre : NULL, variant ? &decl : NULL, &body, p, mm, a, e, variant, ph, last);
            if (last) {   /* the rows read after the run: their final values */
                char nm[32];
                for (int j = 0; j < mm->n; j++) {
                    const RunLoc *x = &mm->m[j];
                    if (run_find(mm, x->row) != x || !row_live(k + n, x->row)) continue;
                    run_row_write(&body, "            ", x->row, run_name(nm, x));
                }
            }
            if (nld) put(&main, variant ? "    else\n" : "    if (span%d)\n", ph);
            put(&main, "    _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {\n%s    }\n", body.s ? body.s : "");
            main.oom |= body.oom;
            free(body.s);
        }
        free(m0);
        /* the phase's setps: the handler's end with every lane's bit */
        for (uint32_t i = a; i < e; i++)
            if (run_cmp(&p->code[i], jitop_of_inst(&p->code[i])))
                put(&main, "    cmp_finish(w, &code[%u], %s, t%u);\n", i, run_part ? "mask" : "FULL_MASK", i);
        if (e > a && run_sts(&p->code[e - 1], jitop_of_inst(&p->code[e - 1]))) run_sts_emit(&main, p, m, k, e - 1, last);
    }
    if (st && !main.oom) {   /* the store, after a check of its addresses as emit_mem's */
        const JitOp *o = jitop_of_inst(sti);
        const char *T = o->t[0], *V = o->t[1];
        uint32_t i = k + n - 1;
        int v = atoi(V);
        char src[48], nm[32];
        run_src(src, p, m, sti->base, 0);
        put_span_check(&main, p, m, &ck, sti, i, sti->imm, T, V);
        put(&main, "    if (!q%u) {\n", i);
        if (run_find(m, sti->base)) {
            put(&main, "        for (int l = 0; l < WARP_SIZE; l++) ");
            run_row_write(&main, "", sti->base, src);
        }
        char pn[16];
        snprintf(pn, sizeof pn, "p%u", i);
        put(&main, "        if (");
        put_warp_fast(&main, sti, i, T, V, pn);
        put(&main, ") {\n");
        run_commit(&main, m, i);
        run_counts(&main, p, k, i, "            ");
        put(&main, "            return %u;\n        }\n    }\n", i - k);
        /* the rows read after the run */
        Buf fin = { 0 };
        for (int j = 0; j < m->n; j++) {
            const RunLoc *x = &m->m[j];
            if (run_find(m, x->row) != x || !row_live(k + n, x->row)) continue;
            run_row_write(&fin, "        ", x->row, run_name(nm, x));
        }
        if (fin.s) put(&main, "    _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {\n%s    }\n", fin.s);
        main.oom |= fin.oom;
        free(fin.s);
        /* consecutive lanes: one block (distinct addresses, so lane order cannot matter);
         * else the handler's lane order (FOR_LANES_ST, machine.h) */
        /* each lane's element straight to its place: the compiler stores whole vectors, where
         * a copy through an array of the warp's elements went through the stack twice */
        put(&main, "    if (q%u)\n        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) { %s x[%d];", i, T, v);
        for (int e = 0; e < v; e++) put(&main, " x[%d] = (%s)%s;", e, T, run_src(src, p, m, sti->s[e], 0));
        put(&main, " memcpy(q%u + (size_t)l * sizeof x, x, sizeof x); }\n    else\n", i);
        put(&main, "        FOR_LANES_ST(%s, sizeof(%s) * %d, l) { %s x[%d];", run_part ? "mask" : "FULL_MASK", T, v, T, v);
        for (int e = 0; e < v; e++) put(&main, " x[%d] = (%s)%s;", e, T, run_src(src, p, m, sti->s[e], 0));
        put(&main, " memcpy(p%u[l], x, sizeof x); }\n", i);
    }
    free(m);

    b = fb;   /* the function */
    /* unroll-loops: a run is lane loops of 32 iterations, 4 or 8 once vectorized (2 or 4
     * with AVX-512), whose counter, compare and branch were a third of a short loop's
     * instructions, and the rows written at a run's exit are loops too; unrolled, bench
     * saxpy's run took 316 instructions a warp against 460, reduction's first run 578
     * against 785 (callgrind, AVX2). Only the runs: the kernel's function around them is
     * one loop an instruction, mostly for part of a warp, and large (compile time). */
    put(b, "/* instructions %u..%u */\n__attribute__((noinline, optimize(\"unroll-loops\"))) static uint32_t run%u(Warp *w, const Inst *code, "
           "const NativeRt *rt, uint64_t *lanes_out, uint64_t *idle_out%s)\n{\n    uint64_t *const R = w->R;\n"
           "    uint32_t *const P = w->P;\n    (void)code; (void)rt; (void)P;\n", k, k + n - 1, k,
        run_part ? ", const uint32_t mask" : "");
    if (ck.mc) put(b, "    const MemCache *const mc_ = rt->span_cache();\n");
    if (lds) put(b, "    const Cta *cta = w->cta;\n    if (!cta) return 0;\n"
                    "    uint8_t *const shm = cta->shared;\n    const uint32_t ssz = cta->shared_size;\n");
    if (decl.s) put(b, "%s", decl.s);
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        if (run_load(in, o)) continue;
        lane_setup(b, in, i, o, "    ");
        if (in->pg && !run_bra(in, o)) put(b, "    uint32_t g%u = P[%u] ^ %uu;\n", i, in->pg, in->pneg);
    }
    if (pre.s) put(b, "%s", pre.s);
    if (main.s) put(b, "%s", main.s);
    run_counts(b, p, k, k + n, "    ");
    put(b, "    return %u;\n}\n\n", n);
    b->oom |= decl.oom | pre.oom | main.oom;
    free(decl.s);
    free(pre.s);
    free(main.s);
    run_part = 0;
}

/* bar.sync a (no thread count) of a whole warp with no region open and no lane parked:
 * engine.h's bar_sync_whole, the handler's own code for that case (exec_ctrl.c), inline, the
 * release through the runtime when the warp completes the barrier, and the turn's end as the
 * handler's STEP_BLOCK or STEP_YIELD ends it (the epilogue). Anything else (part of a warp,
 * an id out of range: the handler faults) calls the handler.
 * A barrier every few instructions (cuda-samples scan: two a loop step) paid the call, the
 * handler's operand checks and the generic arrival at every one. */
static void emit_bar(Buf *b, const Inst *in, uint32_t k)
{
    put(b, "    if (mask == FULL_MASK && w->active == FULL_MASK && !w->sp && !w->waiting && ROWP(%u)[0] < 16) {\n"
           "        FLUSH();\n        bar_sync_whole(w, (int)ROWP(%u)[0], %uu, rt->bar_release);\n"
           "        result = w->active ? RUN_YIELD : RUN_BLOCKED;\n        goto out;\n    }\n"
           "    CALL(%u)\n", in->s[0], in->s[0], k + 1, k);
}

/* setp/set: every lane compared, then the handler's finish (exec_int_tmpl.h), which writes
 * the lanes of mask only: the handler's own code for any mask */
static void emit_cmp(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    put(b, "    if (mask) {\n        const uint64_t *A = ROWP(%u), *B = ROWP(%u);\n        uint32_t t = 0;\n"
           "        for (int l = 0; l < WARP_SIZE; l++) { %s a = %s(A[l]), b = %s(B[l]); t |= (uint32_t)(%s) << l; }\n"
           "        cmp_finish(w, &code[%u], mask, t);\n    }\n", in->s[0], in->s[1], o->t[0], o->t[1], o->t[1],
        o->expr, k);
}

/* q = mem_warp_span's host address of the lanes of instruction i when they are consecutive
 * (checked here, in a loop the compiler vectorizes), else NULL */
static void emit_span(Buf *b, const Inst *in, uint32_t i, const char *q, const char *T, const char *v)
{
    put(b, "        uint8_t *%s = NULL;\n        {\n            const uint64_t *A = ROWP(%u), a0 = A[0] + %lluull;\n"
           "            uint64_t bad = 0;\n            for (int l = 0; l < WARP_SIZE; l++) bad |= (A[l] + %lluull) ^ "
           "(a0 + (uint64_t)l * (sizeof(%s) * %s));\n"
           "            if (!bad) %s = rt->warp_span(w, &code[%u], a0, sizeof(%s) * %s);\n        }\n",
        q, in->base, (unsigned long long)in->imm, (unsigned long long)in->imm, T, v, q, i, T, v);
}

/* ld/st: a whole warp whose addresses pass the memory system's whole-warp checks (no fault
 * possible: mem_warp_fast, or exec_mem_fast.h's .shared path) accesses memory inline, as the
 * handler would; anything else calls the handler, which checks each lane and faults. */
static void emit_mem(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    int ld = o->kind[0] == 'L', shared = o->kind[2] == 'S', v = atoi(o->t[1]);
    const char *T = o->t[0];
    put(b, "    if (mask == FULL_MASK) {\n");
    if (shared)
        put(b, "        uint32_t off[WARP_SIZE];\n        uint8_t *sh = shared_fast(w, &code[%u], mask, sizeof(%s) * %d, off);\n"
               "        if (!sh) goto C%u;\n", k, T, v, k);
    const char *at = shared ? "sh + off[l]" : "p[l]";
    if (!ld && (in->aux8 & MO_RELEASE)) put(b, "        __atomic_thread_fence(__ATOMIC_RELEASE);\n");
    int local = mem_local(in);
    if (local) {
        put(b, "        uint8_t *p[WARP_SIZE];\n        if (");
        put_warp_fast(b, in, k, T, o->t[1], "p");
        put(b, ") goto C%u;\n", k);
    } else if (!shared) {
        /* consecutive lanes (mem_warp_span): one block of memory, copied as one; its lanes
         * are distinct, so a store's lane order cannot matter */
        emit_span(b, in, k, "q", T, o->t[1]);
        put(b, "        if (q) {\n            %s x[WARP_SIZE * %d];\n", T, v);
        if (ld) {
            put(b, "            memcpy(x, q, sizeof x);\n            for (int l = 0; l < WARP_SIZE; l++) {");
            for (int e = 0; e < v; e++) put(b, " ROWP(%u)[l] = (uint64_t)x[l * %d + %d];", in->d[e], v, e);
            put(b, " }\n");
        } else {
            put(b, "            for (int l = 0; l < WARP_SIZE; l++) {");
            for (int e = 0; e < v; e++) put(b, " x[l * %d + %d] = (%s)ROWP(%u)[l];", v, e, T, in->s[e]);
            put(b, " }\n            memcpy(q, x, sizeof x);\n");
        }
        put(b, "        } else {\n");
        put(b, "        uint8_t *p[WARP_SIZE];\n        if (");
        put_warp_fast(b, in, k, T, o->t[1], "p");
        put(b, ") goto C%u;\n", k);
    }
    /* loads: no lane's access depends on another's; stores go in the handler's order
     * (FOR_LANES_ST, machine.h: the lane the H200 keeps when lanes store to one address) */
    if (ld) put(b, "        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) { %s x[%d];", T, v);
    else put(b, "        FOR_LANES_ST(FULL_MASK, sizeof(%s) * %d, l) { %s x[%d];", T, v, T, v);
    if (ld) {
        put(b, " memcpy(x, %s, sizeof x);", at);
        for (int e = 0; e < v; e++) put(b, " ROWP(%u)[l] = (uint64_t)x[%d];", in->d[e], e);
    } else {
        for (int e = 0; e < v; e++) put(b, " x[%d] = (%s)ROWP(%u)[l];", e, T, in->s[e]);
        put(b, " memcpy(%s, x, sizeof x);", at);
    }
    put(b, " }\n");
    if (!shared && !local) put(b, "        }\n");
    if (ld && (in->aux8 & MO_ACQUIRE)) put(b, "        __atomic_thread_fence(__ATOMIC_ACQUIRE);\n");
    if (shared) {
        /* part of a warp (`if (lane == 0) sums[warp] = v`, `lane < 8 ? sums[lane] : 0`): the
         * handler's own path (exec_mem.c's lds_/sts_: shared_fast checks the mask's lanes,
         * then each lane's access, stores in FOR_LANES_ST's order), without the call (bench
         * reduction's one-lane store cost 67 instructions a warp through it) */
        put(b, "    } else if (mask) {\n        uint32_t off[WARP_SIZE];\n"
               "        uint8_t *sh = shared_fast(w, &code[%u], mask, sizeof(%s) * %d, off);\n        if (!sh) goto C%u;\n",
            k, T, v, k);
        if (!ld && (in->aux8 & MO_RELEASE)) put(b, "        __atomic_thread_fence(__ATOMIC_RELEASE);\n");
        if (ld) {
            put(b, "        for (uint32_t m_ = mask; m_; m_ &= m_ - 1u) { int l = __builtin_ctz(m_); %s x[%d]; memcpy(x, sh + off[l], sizeof x);", T, v);
            for (int e = 0; e < v; e++) put(b, " ROWP(%u)[l] = (uint64_t)x[%d];", in->d[e], e);
        } else {
            /* one lane: no order to keep, and FOR_LANES_ST would test all 32 */
            for (int one = 1; one >= 0; one--) {
                if (one) put(b, "        if (!(mask & (mask - 1u))) { int l = __builtin_ctz(mask); %s x[%d];", T, v);
                else put(b, " } else FOR_LANES_ST(mask, sizeof(%s) * %d, l) { %s x[%d];", T, v, T, v);
                for (int e = 0; e < v; e++) put(b, " x[%d] = (%s)ROWP(%u)[l];", e, T, in->s[e]);
                put(b, " memcpy(sh + off[l], x, sizeof x);");
            }
        }
        put(b, " }\n");
        if (ld && (in->aux8 & MO_ACQUIRE)) put(b, "        __atomic_thread_fence(__ATOMIC_ACQUIRE);\n");
    }
    put(b, "    } else {\n    C%u:\n        CALL(%u)\n    }\n", k, k);
}

/* shfl_src (exec_warp.c) for a known offset bv, clamp cv and segment mask seg: each lane's
 * source (itself when out of range) into map; returns the lanes in range (pval). */
static uint32_t shfl_map(int mode, int bv, int cv, int seg, uint8_t map[WARP_SIZE])
{
    uint32_t pv = 0;
    for (int l = 0; l < WARP_SIZE; l++) {
        int maxl = (l & seg) | (cv & ~seg), j, ok;
        switch (mode) {
        case 0: j = l - bv; ok = j >= maxl; break;
        case 1: j = l + bv; ok = j <= maxl; break;
        case 2: j = l ^ bv; ok = j <= maxl; break;
        default: j = (l & seg) | (bv & ~seg); ok = j <= maxl; break;
        }
        map[l] = (uint8_t)(ok ? j : l);
        pv |= (uint32_t)ok << l;
    }
    return pv;
}

/* exec_warp.c's SHFL_IMM (aux8 bit 0): offset, clamp and membermask were immediates, constant
 * rows whose values row_init holds */
static int shfl_imm(const Program *p, const Inst *in)
{
    return (in->aux8 & 1) && in->s[1] < p->first_var_row && in->s[2] < p->first_var_row && in->s[3] < p->first_var_row;
}

/* shfl.sync for a whole warp, inline; anything else - part of a warp, offsets that differ
 * between lanes, a membermask short of a lane - calls the handler, which waits, reports and
 * gives 0 as the interpreter does. Offset, clamp and membermask immediates (exec_warp.c's
 * SHFL_IMM, aux8 bit 0: constant rows whose values row_init holds) give each lane's source at
 * compile time: a shift of a range of lanes (up, down) or a table. Registers: the handler's
 * whole-warp test (shfl_full_uniform: the three rows the same in every lane, all 64 bits, the
 * membermask naming every lane), then a range shift for up and down without segments, else
 * shfl_src's formula a lane. The lanes' sources are copied first when d is a; a shift into
 * another row reads them in place. */
static void emit_shfl(Buf *b, const Program *p, const Inst *in, uint32_t k, const JitOp *o)
{
    int mode = atoi(o->t[0]);
    if (mode < 0 || mode > 3) { put(b, "    CALL(%u)\n", k); return; }
    if (shfl_imm(p, in)) {
        uint64_t bv = p->row_init[in->s[1]], cv = p->row_init[in->s[2]], mv = p->row_init[in->s[3]];
        if ((uint32_t)mv != FULL_MASK) { put(b, "    CALL(%u)\n", k); return; }
        uint8_t map[WARP_SIZE];
        uint32_t pv = shfl_map(mode, (int)(bv & 31), (int)(cv & 31), (int)((cv >> 8) & 31), map);
        /* the lanes that read another: one range at one distance? */
        int lo = -1, hi = -1, delta = 0, shift = 1, same = 1;
        for (int l = 0; l < WARP_SIZE; l++) {
            same &= map[l] == map[0];
            if (map[l] == l) continue;
            if (lo < 0) { lo = l; delta = map[l] - l; }
            else if (hi >= 0 || map[l] - l != delta) shift = 0;
            if (l + 1 == WARP_SIZE || map[l + 1] == l + 1) { if (hi < 0) hi = l + 1; }
        }
        put(b, "    if (mask == FULL_MASK) {\n        const uint64_t *A = ROWP(%u);\n        uint64_t *D = ROWP(%u);\n",
            in->s[0], in->d[0]);
        if (shift && !same && in->d[0] != in->s[0]) {
            /* d is not a (a reduction's d|p, a): each lane straight from its source, no copy */
            if (lo < 0) lo = hi = 0;
            put(b, "        for (int l = 0; l < %d; l++) D[l] = (uint32_t)A[l];\n", lo);
            if (lo < hi) put(b, "        for (int l = %d; l < %d; l++) D[l] = (uint32_t)A[l + %d];\n", lo, hi, delta);
            put(b, "        for (int l = %d; l < WARP_SIZE; l++) D[l] = (uint32_t)A[l];\n"
                   "        P[%u] = %uu;\n    } else CALL(%u)\n", hi, in->d[1], pv, k);
            return;
        }
        put(b, "        uint32_t src[WARP_SIZE];\n        for (int l = 0; l < WARP_SIZE; l++) src[l] = (uint32_t)A[l];\n");
        if (same) put(b, "        for (int l = 0; l < WARP_SIZE; l++) D[l] = src[%u];\n", map[0]);
        else if (shift) {
            put(b, "        for (int l = 0; l < WARP_SIZE; l++) D[l] = src[l];\n");
            if (lo >= 0) put(b, "        for (int l = %d; l < %d; l++) D[l] = src[l + %d];\n", lo, hi, delta);
        } else {
            put(b, "        static const uint8_t map[WARP_SIZE] = { %u", map[0]);
            for (int l = 1; l < WARP_SIZE; l++) put(b, ", %u", map[l]);
            put(b, " };\n        for (int l = 0; l < WARP_SIZE; l++) D[l] = src[map[l]];\n");
        }
        put(b, "        P[%u] = %uu;\n    } else CALL(%u)\n", in->d[1], pv, k);
        return;
    }
    put(b, "    if (!(mask == FULL_MASK && jit_shfl%d(ROWP(%u), ROWP(%u), ROWP(%u), ROWP(%u), ROWP(%u), &P[%u])))\n"
           "        CALL(%u)\n", mode, in->s[0], in->s[1], in->s[2], in->s[3], in->d[0], in->d[1], k);
}

/* The C of jit_shfl<mode>(A, B, C, M, D, pv): a whole warp's shfl.sync of register offset,
 * clamp and membermask rows B, C, M, inline when they are the same in every lane (emit_shfl);
 * 0 when not. A function of its own, as a run's: alone, the compiler vectorizes its loops. */
static void put_shfl_fn(Buf *b, int mode)
{
    static const char *const j[] = { "l - bv", "l + bv", "l ^ bv", "(l & seg) | (bv & ~seg)" };
    put(b, "__attribute__((noinline)) static int jit_shfl%d(const uint64_t *A, const uint64_t *B, const uint64_t *C,\n"
           "    const uint64_t *M, uint64_t *D, uint32_t *pvp)\n{\n"
           "    uint64_t diff = 0;\n"
           "    for (int l = 0; l < WARP_SIZE; l++) diff |= (B[l] ^ B[0]) | (C[l] ^ C[0]) | (M[l] ^ M[0]);\n"
           "    if (diff || (uint32_t)M[0] != FULL_MASK) return 0;\n"
           "    const int bv = (int)(B[0] & 31), cv = (int)(C[0] & 31), seg = (int)((C[0] >> 8) & 31);\n"
           "    uint32_t src[WARP_SIZE], pv = 0;\n"
           "    for (int l = 0; l < WARP_SIZE; l++) src[l] = (uint32_t)A[l];\n", mode);
    if (mode == 0 || mode == 1) {
        /* without segments: up, lanes from cv + bv on read l - bv; down, lanes up to
         * cv - bv read l + bv (exec_warp.c's shfl_full_uniform); each a select (by masks) between
         * two loads at fixed distances from a copy padded by a warp of zeros (never selected),
         * so that the loop is vector code */
        put(b, "    if (!seg) {\n        uint32_t s2[2 * WARP_SIZE];\n");
        if (mode == 0)
            put(b, "        const int lo = cv + bv;\n"
                   "        for (int l = 0; l < WARP_SIZE; l++) { s2[l] = 0; s2[WARP_SIZE + l] = src[l]; }\n"
                   "        for (int l = 0; l < WARP_SIZE; l++) {\n"
                   "            uint32_t m = 0u - (uint32_t)(l >= lo);\n"
                   "            D[l] = (s2[WARP_SIZE + l - bv] & m) | (s2[WARP_SIZE + l] & ~m);\n        }\n"
                   "        *pvp = lo >= WARP_SIZE ? 0 : ~((1u << lo) - 1);\n        return 1;\n    }\n");
        else
            put(b, "        int hi = cv - bv + 1;\n        if (hi < 0) hi = 0;\n"
                   "        for (int l = 0; l < WARP_SIZE; l++) { s2[l] = src[l]; s2[WARP_SIZE + l] = 0; }\n"
                   "        for (int l = 0; l < WARP_SIZE; l++) {\n"
                   "            uint32_t m = 0u - (uint32_t)(l < hi);\n"
                   "            D[l] = (s2[l + bv] & m) | (s2[l] & ~m);\n        }\n"
                   "        *pvp = hi >= WARP_SIZE ? FULL_MASK : (1u << hi) - 1;\n        return 1;\n    }\n");
    }
    put(b, "    for (int l = 0; l < WARP_SIZE; l++) {\n"
           "        int maxl = (l & seg) | (cv & ~seg), j = %s, ok = %s;\n"
           "        D[l] = src[ok ? j : l];\n"
           "        pv |= (uint32_t)ok << l;\n"
           "    }\n"
           "    *pvp = pv;\n    return 1;\n}\n\n", j[mode], mode == 0 ? "j >= maxl" : "j <= maxl");
}

/* and, or, xor, not and mov of predicates (exec_cmp.c): a predicate is one mask of the warp's
 * lanes, so the handler's pred_put is one statement for all of them. */
static void emit_pred(Buf *b, const Inst *in, const JitOp *o)
{
    int two = !strcmp(o->t[0], "2");
    uint32_t neg = !strcmp(o->t[1], "1") && (in->flags & IF_NEG_C) ? ~0u : 0u;
    put(b, "    if (mask) { uint32_t a = P[%u] ^ %uu, b = P[%u]; (void)b; P[%u] = (P[%u] & ~mask) | ((uint32_t)(%s) & mask); }\n",
        in->s[0], neg, two ? in->s[1] : in->s[0], in->d[0], in->d[0], o->expr);
}

/* bra: a uniform branch goes to its label (warp_run's STEP_JUMP path while nothing needs a
 * regroup); a divergent one calls the handler. */
static void emit_bra(Buf *b, const Inst *in, uint32_t k)
{
    uint32_t t = (uint32_t)in->imm;
    put(b, "    if (mask) {\n        if (mask == w->active) {\n            w->pc = %u;\n"
           "            if (!past_merge(w)) {\n", t);
    if (t <= k) put(b, "                if (--budget == 0) { result = RUN_YIELD; goto out; }\n");
    if (pc_local(t)) put(b, "                goto L%u;\n", t);
    else put(b, "                goto dispatch;\n");   /* another part's (emit_part) */
    put(b, "            }\n            r = STEP_JUMP;\n        } else {\n"
           "            FLUSH();\n            r = code[%u].fn(w, &code[%u], mask);\n        }\n"
           "        at = %u;\n        goto after;\n    }\n", k, k, k);
}

/* The length of the run that may start at k (emit_run): lanewise instructions and loads, and
 * .shared stores, and a global store that ends it; at most 64. */
static uint32_t run_length(const Program *p, uint32_t k)
{
    uint32_t n = 0, nw = 0, pw[128], npw = 0;
    for (; k + n < p->ncode && n < 64; n++) {
        const Inst *in = &p->code[k + n];
        const JitOp *o = jitop_of_inst(in);
        int ld = run_load(in, o), cmp = run_cmp(in, o), sh = run_shfl(p, in, o), br = run_bra(in, o);
        if (br && !n) break;
        /* a predicate the run writes (setp, shuffle) is written where its instruction is,
         * but a guard or selp reads its predicate when the run starts (g<i>, sel<i>): the
         * run stops before an instruction that reads or writes a predicate it wrote */
        uint32_t pr[4], npr = 0;
        if (in->pg && !br) pr[npr++] = in->pg;   /* a branch reads its predicate where it stands */
        if (o && (!strcmp(o->kind, "SELP") || (cmp && in->bop))) pr[npr++] = in->s[2];
        if (cmp) { pr[npr++] = in->d[0]; if (in->nd > 1) pr[npr++] = in->d[1]; }
        if (sh) pr[npr++] = in->d[1];
        int clash = 0;   /* PRED_SINK (a `_` destination) is written, never read */
        for (uint32_t x = 0; x < npr; x++)
            for (uint32_t y = 0; y < npw; y++) clash |= pr[x] == pw[y] && pr[x] != PRED_SINK;
        if (clash) break;
        if (cmp) { pw[npw++] = in->d[0]; if (in->nd > 1) pw[npw++] = in->d[1]; }
        if (sh) pw[npw++] = in->d[1];
        if (n && run_store(in, o)) { n++; break; }
        if (!ld && !run_sts(in, o) && !lanewise(o) && !run_contract_ok(in, o) && !cmp && !sh && !br) break;
        nw += ld ? in->vec : 1;
        if (nw >= 120) { n++; break; }
    }
    /* a branch that would end the run: the kernel's code runs it (nothing after it to join) */
    while (n && run_bra(&p->code[k + n - 1], jitop_of_inst(&p->code[k + n - 1]))) n--;
    return n;
}

/* How the compiled C runs an instruction: emit_insts writes it by this, and the report
 * (jit_report) counts by it. */
enum { F_CALL, F_BRA, F_LANE, F_CONTRACT, F_CMP, F_PACK, F_SHFL, F_MEM, F_PRED, F_BAR };
static int inst_form(const Inst *in, const JitOp *o)
{
    const char *kd = o ? o->kind : "";
    if (!strcmp(kd, "BRA")) return F_BRA;
    if (lanewise(o)) return F_LANE;
    if (contract_kind(o)) return contract_inline(in, o) ? F_CONTRACT : F_CALL;
    if (!strcmp(kd, "CMP")) return F_CMP;
    if (!strcmp(kd, "PACK") || !strcmp(kd, "UNPACK")) return F_PACK;
    if (!strcmp(kd, "SHFL")) return F_SHFL;
    if (!strcmp(kd, "PRED")) return F_PRED;
    if (!strcmp(kd, "LD") || !strcmp(kd, "LDS") || !strcmp(kd, "ST") || !strcmp(kd, "STS")) return F_MEM;
    if (!strcmp(kd, "BAR") && in->ns == 1) return F_BAR;   /* bar.sync a, without a thread count */
    return F_CALL;
}

/* short_at's pcs (above) */
static uint8_t *short_reach(const Program *p, const JitOp **ops)
{
    uint8_t *at = calloc(p->ncode + 1, 1);
    uint32_t *todo = malloc((p->ncode + 1) * sizeof *todo), n = 0;
    if (!at || !todo) { free(at); free(todo); return NULL; }
    for (uint32_t k = 0; k < p->ncode; k++) {
        const Inst *in = &p->code[k];
        int form = inst_form(in, ops[k]);
        if (in->op == OP_bra && (uint64_t)in->imm < p->ncode && !at[in->imm]) { at[in->imm] = 1; todo[n++] = (uint32_t)in->imm; }
        if ((form == F_BRA || form == F_CALL || form == F_BAR) && !at[k + 1]) { at[k + 1] = 1; todo[n++] = k + 1; }
    }
    while (n) {
        uint32_t k = todo[--n];
        if (k >= p->ncode) continue;
        const Inst *in = &p->code[k];
        int guarded = in->pg || in->pneg;
        if ((in->flags & IF_PREEMPT) && !guarded) continue;   /* the turn stops after it */
        uint32_t next[2], nn = 0;
        if (in->op == OP_bra && (uint64_t)in->imm < p->ncode) next[nn++] = (uint32_t)in->imm;
        if (in->op != OP_bra || guarded) next[nn++] = k + 1;
        for (uint32_t i = 0; i < nn; i++)
            if (!at[next[i]]) { at[next[i]] = 1; todo[n++] = next[i]; }
    }
    free(todo);
    return at;
}

/* ---- what the compiled C calls (PTXEMU_JIT_REPORT) ------------------------------------- */

/* The name of a handler: its symbol in the library's own symbol table (handlers are static,
 * so the dynamic one lacks them); "?" when the file has none (a stripped library). */
static void handler_name(Handler fn, char *out, size_t n)
{
    snprintf(out, n, "?");
    Dl_info di;
    void *addr;
    memcpy(&addr, &fn, sizeof addr);
    if (!dladdr(addr, &di) || !di.dli_fname) return;
    if (di.dli_sname && di.dli_saddr == addr) { snprintf(out, n, "%s", di.dli_sname); return; }
    int fd = open(di.dli_fname, O_RDONLY);
    if (fd < 0) return;
    struct stat st;
    void *map = fstat(fd, &st) ? MAP_FAILED : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return;
    const unsigned char *f = map;
    size_t size = (size_t)st.st_size;
    const Elf64_Ehdr *eh = map;
    uint64_t off = (uint64_t)((uintptr_t)addr - (uintptr_t)di.dli_fbase);
    if (size >= sizeof *eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
        eh->e_shoff && eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size) {
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
            const Elf64_Shdr *str = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > size || str->sh_offset + str->sh_size > size) continue;
            const Elf64_Sym *sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
            for (size_t j = 0; j < sh[i].sh_size / sizeof *sym; j++)
                if (ELF64_ST_TYPE(sym[j].st_info) == STT_FUNC && sym[j].st_value == off &&
                    sym[j].st_name < str->sh_size) {
                    snprintf(out, n, "%.*s", (int)(str->sh_size - sym[j].st_name),
                             (const char *)f + str->sh_offset + sym[j].st_name);
                    break;
                }
        }
    }
    munmap(map, size);
}

/* Print, for kernel p being written, the handlers its C calls instead of inlining: "calls"
 * for an instruction always called, "partial" for a global load, store (emit_mem) or shuffle
 * (emit_shfl) inlined for a whole warp but called for part of one, "known" for the shuffles
 * among those whose lanes' sources are known when compiled (shfl_imm). PTXEMU_JIT_REPORT=1:
 * one line per handler, most sites first; =json: one JSON object per kernel. */
static void jit_report(const Program *p, const JitOp **ops)
{
    const char *rep = getenv("PTXEMU_JIT_REPORT");
    if (!rep || !*rep || !strcmp(rep, "0")) return;
    int json = !strcmp(rep, "json");
    typedef struct { Handler fn; uint16_t op; uint32_t calls, partial, known; } Row;
    Row *rows = calloc(p->ncode + 1, sizeof *rows);
    if (!rows) return;
    uint32_t nrows = 0, inlined = 0, called = 0, partials = 0;
    for (uint32_t k = 0; k < p->ncode; k++) {
        int form = inst_form(&p->code[k], ops[k]);
        /* a .shared access is inline for any mask (emit_mem), a global one and a bar.sync
         * (emit_bar) for whole warps */
        int call = form == F_CALL,
            partial = (form == F_MEM && ops[k]->kind[2] != 'S') || form == F_SHFL || form == F_BAR;
        if (!call && !partial) { inlined++; continue; }
        uint32_t j = 0;
        while (j < nrows && rows[j].fn != p->code[k].fn) j++;
        if (j == nrows) rows[nrows++] = (Row){ p->code[k].fn, p->code[k].op, 0, 0, 0 };
        rows[j].calls += call;
        rows[j].partial += partial;
        rows[j].known += form == F_SHFL && shfl_imm(p, &p->code[k]);
        called += call;
        partials += partial;
    }
    for (uint32_t i = 1; i < nrows; i++)   /* most sites first */
        for (uint32_t j = i; j > 0 && rows[j].calls + rows[j].partial > rows[j - 1].calls + rows[j - 1].partial; j--) {
            Row t = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = t;
        }
    Buf b = { 0 };
    if (json)
        put(&b, "{\"kernel\":\"%s\",\"instructions\":%u,\"inline\":%u,\"partial\":%u,\"calls\":%u,\"handlers\":[",
            p->name, p->ncode, inlined, partials, called);
    for (uint32_t i = 0; i < nrows; i++) {
        char name[256], kn[64];
        handler_name(rows[i].fn, name, sizeof name);
        if (json)
            put(&b, "%s{\"handler\":\"%s\",\"op\":\"%s\",\"calls\":%u,\"partial\":%u,\"known\":%u}", i ? "," : "",
                name, op_info[rows[i].op].name, rows[i].calls, rows[i].partial, rows[i].known);
        else
            put(&b, "ptxemu: jit report: %s: %s (%s): %u sites called, %u inline for a whole warp only%s\n",
                p->name, name, op_info[rows[i].op].name, rows[i].calls, rows[i].partial,
                rows[i].known ? (snprintf(kn, sizeof kn, " (%u with each lane's source known)", rows[i].known), kn) : "");
    }
    if (json) put(&b, "]}\n");
    else put(&b, "ptxemu: jit report: %s: %u instructions: %u inline, %u inline for a whole warp only, %u called\n",
             p->name, p->ncode, inlined, partials, called);
    if (b.s && !b.oom) fputs(b.s, stderr);
    free(b.s);
    free(rows);
}

/* The instructions [lo, hi) of the function being written: a label each, and their C. */
static void emit_insts(Buf *b, Buf *fb, const Program *p, uint32_t lo, uint32_t hi, int wgmma, uint32_t *run_end)
{
    for (uint32_t k = lo; k < hi; k++) {
        const Inst *in = &p->code[k];
        put(b, "L%u: /* %s, PTX line %u */\n", k, op_info[in->op].name, in->line);
        /* the instructions before run_end belong to the run emitted last; a branch target
         * inside it starts one too: lanes that diverged before it meet there, and the run
         * before (entered only by the whole warp from its start) is not taken */
        if (k >= *run_end || (join_at && join_at[k])) {
            uint32_t n = run_length(p, k);
            /* a run for part of a warp ends at a branch target (where one starts): the merge
             * pc of the lanes that take the branch is one, and a run is not entered with its
             * merge pc inside (binomial's 32 FMAs of the lanes still computing, then the store
             * all lanes meet at). Any run ends at a loop's head: what went on past it was the
             * loop's body again, once in the run before the loop and once in its head's run
             * (the warp goes from one to the other through the head's label, pc_local). Past
             * an if's join a whole warp's run goes on: the code after the join is in two runs,
             * but the warp that skipped nothing keeps its values in the run's locals (bench
             * reduction: 3% more instructions when its bounds test's join ended the run) */
            if (n >= 2 && join_at) {
                for (uint32_t j = k + 1; j < k + n; j++) if (join_at[j] & JOIN_LOOP) { n = j - k; break; }
                /* (what is left may run for part of a warp only now: run_partial_ok keeps a
                 * run with global accesses across a join to whole warps) */
                if (n >= 2 && run_partial_ok(p, k, n))
                    for (uint32_t j = k + 1; j < k + n; j++) if (join_at[j]) { n = j - k; break; }
            }
            if (n >= 2) {
                emit_run(b, fb, p, k, n, wgmma);
                if (k + n > *run_end) *run_end = k + n;
            }
        }
        put(b, "    GUARD(%u, %uu, %u);\n", in->pg, in->pneg, in->cost);
        if (wgmma)   /* an accumulator of a wgmma in flight read early is a warning (engine.c) */
            put(b, "    if (__builtin_expect(w->wg_inflight != 0, 0)) rt->wgmma_check(w, &code[%u]);\n", k);
        const JitOp *o = jitop_of_inst(in);
        switch (inst_form(in, o)) {
        case F_BRA: emit_bra(b, in, k); break;
        case F_LANE: emit_lanewise(b, in, k, o); break;
        case F_CONTRACT: emit_contract(b, in, k, o); break;
        case F_CMP: emit_cmp(b, in, k, o); break;
        case F_PACK: emit_pack(b, in, o); break;
        case F_SHFL: emit_shfl(b, p, in, k, o); break;
        case F_MEM: emit_mem(b, in, k, o); break;
        case F_PRED: emit_pred(b, in, o); break;
        case F_BAR: emit_bar(b, in, k); break;
        default: put(b, "    CALL(%u)\n", k);
        }
        put(b, "    NEXT()\n");
        if (in->flags & IF_PREEMPT) put(b, "    SHORT(mask)\n");
    }
    put(b, "    goto dispatch;\n%s    goto dispatch;\ndispatch:\n    switch (w->pc) {\n", epilogue);
    for (uint32_t k = lo; k < hi; k++) put(b, "    case %u: goto L%u;\n", k, k);
}

/* A large kernel (over JIT_O2_MAX instructions) is written as parts of JIT_PART
 * instructions, a function each at -O1, and a dispatcher that calls the part holding w->pc.
 * GCC's time on one function grows faster than its size (dataflow bitmaps: blocks times
 * pseudos), and the kernel's function has a block per instruction, each reachable from its
 * switch. call_blocks.ptx (tests/ptx, 1835 instructions): 75 s of cc as one function at
 * -O1, 55 s as parts of 256, 39 s of 64, 37 s of 32 (18 s of it its runs' functions at -O2);
 * parts of 64 at -O2: 71 s (docs/jit-backends.md).
 * A part is the kernel's function for its pcs: it enters at any of them from its switch,
 * runs them, and returns -1 (its counters flushed, the budget handed back) when w->pc leaves
 * it, where the kernel's function would have gone to another label or to its switch; the
 * dispatcher calls the part of the new pc, so the warp runs the same instructions in the same
 * order and yields at the same points. A pc past the end goes to the interpreter, as the
 * kernel's switch's default does. */
#ifndef JIT_PART
#define JIT_PART 64
#endif

/* A large kernel's parts are cut into translation units of JIT_UNIT parts, each compiled by
 * a cc of its own at once (build(), PTXEMU_JIT_JOBS of them) and linked into the one shared
 * object: a part is its own function at -O1 and its runs' functions are only its own, so
 * nothing one unit compiles depends on another's. The cut depends on the kernel alone (not
 * on the jobs), so one source, one object, one cache key whatever the host. Each unit costs
 * a cc's start and the headers (0.05 s of CPU): call_blocks.ptx's 29 parts in 15 units took
 * 20.9 CPU-s of cc (1.3-1.7 s a unit) against 22-23 s as one file, and on 16 cores 3.7 s of
 * wall time against 31 s (docs/jit-backends.md). */
#ifndef JIT_UNIT
#define JIT_UNIT 2
#endif

#define PART_SIGNATURE "int part%u(Warp *w, uint32_t *budget_io, const NativeRt *rt)"

static void emit_part(Buf *b, Buf *fb, const Program *p, uint32_t part, int wgmma, uint32_t *run_end)
{
    fn_lo = part * JIT_PART;
    fn_hi = fn_lo + JIT_PART < p->ncode ? fn_lo + JIT_PART : p->ncode;
    /* hidden: the dispatcher of unit 0 calls it directly, and dlsym sees only the kernel */
    put(b, "__attribute__((optimize(\"O1\"), noinline, visibility(\"hidden\"))) " PART_SIGNATURE "\n"
           "{\n    uint32_t budget = *budget_io;\n%s", part, BODY_HEAD);
    emit_insts(b, fb, p, fn_lo, fn_hi, wgmma, run_end);
    put(b, "    default: break;\n    }\n    FLUSH();\n    *budget_io = budget;\n    return -1;\n"
            "out:\n    FLUSH();\n    *budget_io = budget;\n    return result;\n}\n");
}

/* The kernel's C as translation units (a NULL-ended array of malloc'd texts; *nunits of
 * them): one for a kernel of JIT_O2_MAX instructions or fewer, the same text as before units
 * existed; a large kernel's parts JIT_UNIT to a unit, each unit with the prologue and the
 * shuffle functions, unit 0 with the dispatcher. NULL when out of memory. */
static char **native_units(const Program *p, uint32_t *nunits)
{
    int wgmma = 0;
    const JitOp **ops = calloc(p->ncode + 1, sizeof *ops);
    if (!ops) return NULL;
    for (uint32_t k = 0; k < p->ncode; k++) {
        wgmma |= p->code[k].op == OP_wgmma;
        ops[k] = jitop_find(p->code[k].fn);
    }
    op_at = ops;
    op_base = p->code;
    join_at = calloc(p->ncode + 1, 1);
    for (uint32_t k = 0; join_at && k < p->ncode; k++)
        if (p->code[k].op == OP_bra && (uint64_t)p->code[k].imm < p->ncode)
            join_at[p->code[k].imm] |= p->code[k].imm <= k ? JOIN_LOOP : 1;
    short_at = short_reach(p, ops);
    liveness(p, ops);
    Buf sh = { 0 };   /* jit_shfl<mode> the kernel calls: before the runs' functions */
    int shfl_fns = 0;
    for (uint32_t k = 0; k < p->ncode; k++)
        if (ops[k] && !strcmp(ops[k]->kind, "SHFL") && !shfl_imm(p, &p->code[k])) {
            int mode = atoi(ops[k]->t[0]);
            if (mode >= 0 && mode <= 3 && !(shfl_fns >> mode & 1)) put_shfl_fn(&sh, mode);
            if (mode >= 0 && mode <= 3) shfl_fns |= 1 << mode;
        }
    /* A large kernel's runs, its hot loops, are built at -O2 and the rest at -O1 (emit_part): at
     * -O1 a small kernel's function costs 1-5% more instructions (callgrind on matrixMul and
     * saxpy of bench/) */
    partial_inline = p->ncode <= JIT_O2_MAX;
    jit_report(p, ops);
    uint32_t run_end = 0;
    uint32_t nparts = (p->ncode + JIT_PART - 1) / JIT_PART;
    uint32_t n = p->ncode > JIT_O2_MAX ? (nparts + JIT_UNIT - 1) / JIT_UNIT : 1;
    char **units = calloc(n + 1, sizeof *units);
    int oom = !units || sh.oom;
    for (uint32_t u = 0; u < n && !oom; u++) {
        Buf b = { 0 }, fb = { 0 }, all = { 0 };   /* the functions that run instructions; the runs'; the unit */
        if (p->ncode > JIT_O2_MAX) {
            for (uint32_t i = u * JIT_UNIT; i < (u + 1) * JIT_UNIT && i < nparts; i++)
                emit_part(&b, &fb, p, i, wgmma, &run_end);
            if (u == 0) {
                for (uint32_t i = 0; i < nparts; i++)
                    put(&b, PART_SIGNATURE " __attribute__((visibility(\"hidden\")));\n", i);
                put(&b, MAIN_SIGNATURE "{\n    for (;;) {\n        int r;\n        switch (w->pc) {\n");
                for (uint32_t i = 0; i < nparts; i++)
                    put(&b, "        case %u ... %u: r = part%u(w, &budget, rt); break;\n", i * JIT_PART,
                        (i + 1) * JIT_PART < p->ncode ? (i + 1) * JIT_PART - 1 : p->ncode - 1, i);
                put(&b, "        default: return rt->interp(w, budget);\n        }\n"
                        "        if (r >= 0) return r;\n    }\n}\n");
            }
            put(&all, "/* ptxemu compiled kernel %s (%u instructions), unit %u of %u */\n%s",
                p->name, p->ncode, u, n, prologue);
        } else {
            /* A small kernel is one function at -O2: a label a PTX instruction, the code between
             * its runs (emit_run), and a switch to enter at any pc. */
            put(&b, "%s", main_head);
            fn_lo = 0;
            fn_hi = UINT32_MAX;
            emit_insts(&b, &fb, p, 0, p->ncode, wgmma, &run_end);
            put(&b, "    default: break;\n    }\n    FLUSH();\n    return rt->interp(w, budget);\n"
                    "out:\n    FLUSH();\n    return result;\n}\n");
            put(&all, "/* ptxemu compiled kernel %s (%u instructions) */\n%s", p->name, p->ncode, prologue);
        }
        if (sh.s) put(&all, "%s", sh.s);
        if (fb.s) put(&all, "%s", fb.s);
        if (b.s) put(&all, "%s", b.s);
        oom = b.oom || fb.oom || all.oom;
        free(b.s);
        free(fb.s);
        if (oom) free(all.s);
        else units[u] = all.s;
    }
    free(sh.s);
    free(ops);
    free(join_at);
    join_at = NULL;
    free(short_at);
    short_at = NULL;
    free(live_in);
    live_in = NULL;
    free(uni_row);
    uni_row = NULL;
    if (oom) {
        for (uint32_t u = 0; units && u < n; u++) free(units[u]);
        free(units);
        return NULL;
    }
    *nunits = n;
    return units;
}

static void free_units(char **units)
{
    for (char **u = units; u && *u; u++) free(*u);
    free(units);
}

char *jit_native_source(const Program *p)
{
    uint32_t n;
    char **units = native_units(p, &n);
    if (!units) return NULL;
    Buf all = { 0 };
    for (uint32_t u = 0; u < n; u++) put(&all, "%s", units[u]);
    free_units(units);
    if (all.oom) { free(all.s); return NULL; }
    return all.s;
}

/* ---- building ------------------------------------------------------------------------ */

/* The compiler's environment: ours without LD_PRELOAD, which holds what the launcher put
 * before the program (the CUDA shim, in a sanitizer build the ASan runtime) and must not be
 * loaded into cc and its passes. env has room for every entry of environ and the NULL. */
static void compiler_env(char **env, size_t room)
{
    size_t n = 0;
    for (char **e = environ; *e && n + 1 < room; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) != 0) env[n++] = *e;
    env[n] = NULL;
}

/* The compilers of one build (build()): each runs under one of the build's job slots, so
 * that a module unloaded while its kernel compiles stops them all instead of waiting for them
 * (a program that ends while a big kernel of it still compiles would otherwise wait at its
 * exit for the whole build), and a unit that fails stops its siblings, whose work is lost
 * anyway. A pid is cleared under cc_lock before the child is reaped, so a kill never reaches
 * a reused pid; each child leads its own process group, so cc's passes stop with it. */
typedef struct Cc {
    pid_t pid[JIT_JOBS_MAX];    /* the compiler of each job slot while it runs; 0: none     */
    int stop;                   /* start no more: cancelled, or a unit failed                */
    int cancelled;              /* the build was stopped: not worth a warning                */
    int urgent;                 /* a launch waits for it: its compilers go first             */
    int announced;              /* counted in cc_urgent before it asked for a compiler       */
} Cc;
static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process's compilers at once, over all builds (several kernels of a module build at
 * once under `compiled`, several hot ones under `auto`): at most cfg.jobs. A compiler of a
 * build a launch waits for (Cc.urgent) starts before any other waiting one. Under cc_lock. */
static pthread_cond_t cc_free = PTHREAD_COND_INITIALIZER;
static int cc_busy;             /* compilers running (or about to)                          */
static int cc_urgent;           /* urgent builds' threads waiting for one, and announced builds */

/* Wait for a compiler of the process's cfg.jobs for cc; -1 (none taken) when cc was stopped,
 * or when *next reached n (a unit worker's build has no unit left for it; NULL: not one). */
static int cc_get(Cc *cc, const uint32_t *next, uint32_t n)
{
    pthread_mutex_lock(&cc_lock);
    int counted = cc->announced, none = 0;
    cc->announced = 0;
    for (;;) {
        if (cc->stop || (none = next && *next >= n)) break;
        if (cc->urgent && !counted) { counted = 1; cc_urgent++; }
        if (cc_busy < cfg.jobs && (counted || !cc_urgent)) break;
        pthread_cond_wait(&cc_free, &cc_lock);
    }
    if (counted) { cc_urgent--; pthread_cond_broadcast(&cc_free); }
    int ok = !cc->stop && !none;
    if (ok) cc_busy++;
    pthread_mutex_unlock(&cc_lock);
    return ok ? 0 : -1;
}

static void cc_put(void)
{
    pthread_mutex_lock(&cc_lock);
    cc_busy--;
    pthread_cond_broadcast(&cc_free);
    pthread_mutex_unlock(&cc_lock);
}

/* Stop cc's compilers: those running now are killed, none starts after. Under cc_lock. */
static void cc_stop(Cc *cc)
{
    cc->stop = 1;
    for (int i = 0; i < JIT_JOBS_MAX; i++)
        if (cc->pid[i] > 0) kill(-cc->pid[i], SIGKILL);
    pthread_cond_broadcast(&cc_free);   /* its threads waiting for a compiler give up */
}

/* The compiler runs under a shell that leads its process group (so that a kill of the group
 * reaches cc's passes, and the terminal's Ctrl-C does not leave a half-written object) and
 * that watches a pipe only this process can write: when the process dies without unloading
 * its modules (killed by a signal, by `timeout`, by a batch system's limit), the pipe ends and
 * the shell kills the group, so no compiler outlives its program. */
static const char cc_watch[] =
    "\"$@\" & c=$!; (read x <&3; kill -KILL 0) 2>/dev/null & r=$!; exec 3<&-; "
    "wait $c; s=$?; kill $r 2>/dev/null; exit $s";

/* cc with the tier's flags on the files of in (NULL-ended) into out, its messages into log,
 * in job slot `slot` of cc; `object`: compile only (-c), else build the shared object. 0 or -1
 * (it failed, was killed, or cc was stopped before it started). */
static int run_cc(Cc *cc, int slot, const char *const *in, int object, const char *out, const char *log)
{
    static const char *const flags[] = { JIT_CFLAGS };
    size_t nin = 0;
    while (in[nin]) nin++;
    const char **argv = malloc((16 + sizeof flags / sizeof flags[0] + nin) * sizeof *argv);
    if (!argv) return -1;
    int n = 0;
    argv[n++] = "/bin/sh";
    argv[n++] = "-c";
    argv[n++] = cc_watch;
    argv[n++] = "sh";
    argv[n++] = cfg.cc;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) argv[n++] = flags[i];
    char inc[1200];
    snprintf(inc, sizeof inc, "-I%s", cfg.inc);
    argv[n++] = inc;
    if (object) argv[n++] = "-c";
    argv[n++] = "-o";
    argv[n++] = out;
    for (size_t i = 0; i < nin; i++) argv[n++] = in[i];
    argv[n] = NULL;
    int watch[2];
    if (pipe2(watch, O_CLOEXEC)) { free(argv); return -1; }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_adddup2(&fa, watch[0], 3);
    size_t room = 1;
    for (char **e = environ; *e; e++) room++;
    char **env = malloc(room * sizeof *env);
    if (!env) {
        posix_spawn_file_actions_destroy(&fa);
        close(watch[0]);
        close(watch[1]);
        free(argv);
        return -1;
    }
    compiler_env(env, room);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    pthread_mutex_lock(&cc_lock);
    int rc = cc->stop ? -1 : posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, env);
    if (!rc) cc->pid[slot] = pid;
    pthread_mutex_unlock(&cc_lock);
    free(env);
    free(argv);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(watch[0]);
    if (rc) { close(watch[1]); return -1; }
    /* wait without reaping, so that the pid stays ours while cc->pid names it */
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&cc_lock);
    cc->pid[slot] = 0;
    pthread_mutex_unlock(&cc_lock);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) { close(watch[1]); return -1; }
    close(watch[1]);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Load the kernel of the shared object at path into p; 0 or -1. */
static int load(Program *p, const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1;
    void *fn = dlsym(lib, NATIVE_SYMBOL);
    if (!fn) { dlclose(lib); return -1; }
    p->native_lib = lib;
    __atomic_store_n(&p->native, fn, __ATOMIC_RELEASE);
    return 0;
}

/* A build's units (native_units) and the files they pass through: unit i is written to c[i],
 * compiled to o[i] with its messages in log[i]; a kernel of one unit goes from c[0] to the
 * shared object in one cc, as before units existed. */
typedef char Path[1300];
typedef struct Job {
    Cc *cc;
    uint32_t n;
    Path *c, *o, *log;
    uint32_t next;              /* the next unit to compile (under cc_lock)                 */
    uint32_t failed;            /* the first unit that failed, plus one; 0: none            */
    int slot;                   /* the job slot of the next worker to start (under cc_lock)  */
} Job;

/* One of the build's concurrent compilers: units, one after another, until none is left or
 * one has failed. */
static void *unit_worker(void *arg)
{
    Job *j = arg;
    if (cc_get(j->cc, &j->next, j->n)) return NULL;   /* kept across its units: none goes to another build between them */
    pthread_mutex_lock(&cc_lock);
    int slot = j->slot++;
    for (;;) {
        if (j->cc->stop || j->next == j->n) break;
        uint32_t i = j->next++;
        if (j->next == j->n) pthread_cond_broadcast(&cc_free);   /* this build's workers still waiting need none */
        pthread_mutex_unlock(&cc_lock);
        const char *in[] = { j->c[i], NULL };
        int rc = run_cc(j->cc, slot, in, 1, j->o[i], j->log[i]);
        pthread_mutex_lock(&cc_lock);
        if (rc) {
            if (!j->failed && !j->cc->cancelled) j->failed = i + 1;
            cc_stop(j->cc);
        }
    }
    pthread_mutex_unlock(&cc_lock);
    cc_put();
    return NULL;
}

/* Compile the units of j with up to cfg.jobs compilers at once (this thread one of them);
 * 0 when all were compiled. */
static int compile_units(Job *j)
{
    uint32_t nt = (uint32_t)cfg.jobs < j->n ? (uint32_t)cfg.jobs : j->n;
    pthread_t t[JIT_JOBS_MAX];
    uint32_t started = 0;
    for (uint32_t i = 1; i < nt; i++) {   /* fewer workers if a thread cannot start */
        if (pthread_create(&t[started], NULL, unit_worker, j)) break;
        started++;
    }
    unit_worker(j);
    for (uint32_t i = 0; i < started; i++) pthread_join(t[i], NULL);
    return j->failed || j->cc->stop ? -1 : 0;
}

/* Build p (or find it built in the cache) and load it; 0 or -1 after saying why once. cc
 * holds the compilers while they run. */
static int build(Program *p, Cc *cc)
{
    if (!cfg.usable) return -1;
    uint32_t n;
    char **units = native_units(p, &n);
    if (!units) return -1;
    uint64_t h = cfg.env_hash;   /* a kernel of one unit: the hash of its source, as before */
    for (uint32_t u = 0; u < n; u++) h = fnv(h, units[u], strlen(units[u]));
    char so[1300], tmp[1300], linklog[1300];
    snprintf(so, sizeof so, "%s/%016llx.so", cfg.dir, (unsigned long long)h);
    if (!access(so, R_OK) && !load(p, so)) { free_units(units); return 0; }
    Path *c = calloc(n, sizeof *c), *o = calloc(n, sizeof *o), *log = calloc(n, sizeof *log);
    int rc = c && o && log ? 0 : -1;
    snprintf(tmp, sizeof tmp, "%s/%016llx.%ld.so", cfg.dir, (unsigned long long)h, (long)getpid());
    snprintf(linklog, sizeof linklog, "%s/%016llx.log", cfg.dir, (unsigned long long)h);
    for (uint32_t u = 0; u < n && !rc; u++) {
        if (n == 1) {
            snprintf(c[u], sizeof c[u], "%s/%016llx.%ld.c", cfg.dir, (unsigned long long)h, (long)getpid());
            snprintf(log[u], sizeof log[u], "%s", linklog);
        } else {
            snprintf(c[u], sizeof c[u], "%s/%016llx.%ld.%u.c", cfg.dir, (unsigned long long)h, (long)getpid(), u);
            snprintf(o[u], sizeof o[u], "%s/%016llx.%ld.%u.o", cfg.dir, (unsigned long long)h, (long)getpid(), u);
            snprintf(log[u], sizeof log[u], "%s/%016llx.%u.log", cfg.dir, (unsigned long long)h, u);
        }
        rc = write_file(c[u], units[u], strlen(units[u]));
    }
    free_units(units);
    const char *bad_c = c ? c[0] : "", *bad_log = linklog;   /* what the warning names */
    if (!rc && n == 1) {
        const char *in[] = { c[0], NULL };
        rc = cc_get(cc, NULL, 0);
        if (!rc) { rc = run_cc(cc, 0, in, 0, tmp, log[0]); cc_put(); }
    } else if (!rc) {
        Job j = { cc, n, c, o, log, 0, 0, 0 };
        rc = compile_units(&j);
        if (j.failed) { bad_c = c[j.failed - 1]; bad_log = log[j.failed - 1]; }
        const char **in = rc ? NULL : malloc((n + 1) * sizeof *in);
        if (!rc && !in) rc = -1;
        if (!rc) {   /* the link, in the compiled objects' order */
            for (uint32_t u = 0; u < n; u++) in[u] = o[u];
            in[n] = NULL;
            rc = cc_get(cc, NULL, 0);
            if (!rc) { rc = run_cc(cc, 0, in, 0, tmp, linklog); cc_put(); }
            bad_c = "its units' .c files";
        }
        free(in);
    }
    if (!rc) rc = rename(tmp, so);
    if (!rc) rc = load(p, so);
    pthread_mutex_lock(&cc_lock);
    int cancelled = cc->cancelled;
    pthread_mutex_unlock(&cc_lock);
    int keep = rc ? !cancelled : getenv("PTXEMU_JIT_KEEP") != NULL;   /* kept: what was compiled */
    if (rc && !cancelled)
        fprintf(stderr, "ptxemu: jit: kernel %s could not be compiled (%s, %s); it runs interpreted\n",
                p->name, bad_c, bad_log);
    for (uint32_t u = 0; c && o && log && u < n; u++) {
        if (!keep && c[u][0]) unlink(c[u]);
        if (o[u][0]) unlink(o[u]);
        if (!keep && log[u][0] && strcmp(log[u], linklog)) unlink(log[u]);
    }
    if (!keep) unlink(linklog);
    if (rc) unlink(tmp);
    free(c);
    free(o);
    free(log);
    return rc ? -1 : 0;
}

/* ---- the builders ---------------------------------------------------------------------
 * A build runs on the thread that waits for it (jit_native_new, jit_native_wait) or on a
 * builder thread that takes it from the queue: the hot kernels of `auto`, and under
 * `compiled` the other kernels of a module whose first kernel is being built. Up to cfg.jobs
 * builder threads; their compilers and every other build's share the process's cfg.jobs
 * (cc_get), a waited-for build's first. */

/* Program.native_state */
enum { NS_NONE = 0, NS_QUEUED, NS_BUILDING, NS_DONE };

#define QUEUE_MAX 256
static struct {
    pthread_mutex_t lock;
    pthread_cond_t more, built;
    Program *q[QUEUE_MAX];
    int n;
    Program *building[JIT_JOBS_MAX + 1];   /* builds in progress: the builders', one waited for */
    Cc *cc[JIT_JOBS_MAX + 1];              /* their compilers                                  */
    int threads, idle;                     /* builder threads started, and those waiting for work */
} B = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, { 0 }, { 0 }, 0, 0 };

/* Build p with cc on this thread, registered so that jit_native_forget can stop it. Takes
 * B.lock held, p claimed (NS_BUILDING); returns with B.lock held, p NS_DONE. */
static int build_registered(Program *p, Cc *cc)
{
    int at = -1;
    for (int i = 0; i <= JIT_JOBS_MAX && at < 0; i++) if (!B.building[i]) at = i;
    if (at >= 0) { B.building[at] = p; B.cc[at] = cc; }   /* none free: the waiting threads' builds */
    pthread_mutex_unlock(&B.lock);
    int rc = build(p, cc);
    pthread_mutex_lock(&cc_lock);
    if (cc->announced) { cc->announced = 0; cc_urgent--; pthread_cond_broadcast(&cc_free); }   /* found built */
    pthread_mutex_unlock(&cc_lock);
    pthread_mutex_lock(&B.lock);
    /* stopped (stop_builders, jit_native_forget): as if never started, so that a launch that
     * still comes (a held launch run at the exit) builds it then */
    pthread_mutex_lock(&cc_lock);
    int cancelled = cc->cancelled;
    pthread_mutex_unlock(&cc_lock);
    __atomic_store_n(&p->native_state, cancelled && !p->native ? NS_NONE : NS_DONE, __ATOMIC_RELEASE);
    if (at >= 0) { B.building[at] = NULL; B.cc[at] = NULL; }
    pthread_cond_broadcast(&B.built);
    return rc;
}

static void *builder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&B.lock);
    for (;;) {
        B.idle++;
        while (!B.n) pthread_cond_wait(&B.more, &B.lock);
        B.idle--;
        Program *p = B.q[0];
        memmove(B.q, B.q + 1, (size_t)--B.n * sizeof *B.q);
        Cc cc = { { 0 }, 0, 0, 0, 0 };
        p->native_state = NS_BUILDING;
        build_registered(p, &cc);
    }
    return NULL;
}

/* At the process's exit, the builds still queued or running go: a program that exits without
 * unloading its modules (tests/ptxrun) would otherwise leave the builder threads' temporary
 * files in the cache, their compilers killed by cc_watch. Their Programs are left unbuilt
 * (NS_NONE): a launch after this (the driver's held launches run at the exit) builds its
 * kernel itself (jit_native_wait), as it would have without siblings. */
static void stop_builders(void)
{
    pthread_mutex_lock(&B.lock);
    for (int i = 0; i < B.n; i++) B.q[i]->native_state = NS_NONE;
    B.n = 0;
    for (;;) {
        int busy = 0;
        for (int i = 0; i <= JIT_JOBS_MAX; i++)
            if (B.building[i]) {
                busy = 1;
                pthread_mutex_lock(&cc_lock);
                B.cc[i]->cancelled = 1;
                cc_stop(B.cc[i]);
                pthread_mutex_unlock(&cc_lock);
            }
        if (!busy) break;
        pthread_cond_wait(&B.built, &B.lock);
    }
    pthread_mutex_unlock(&B.lock);
}

/* Queue p (NS_NONE) for a builder thread, starting one if none is idle; under B.lock. */
static void enqueue(Program *p)
{
    if (B.n == QUEUE_MAX) return;
    if (!B.threads) atexit(stop_builders);
    if (B.idle <= B.n && B.threads < cfg.jobs) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        B.threads += pthread_create(&t, &a, builder, NULL) == 0;
        pthread_attr_destroy(&a);
    }
    if (!B.threads) return;
    p->native_state = NS_QUEUED;
    B.q[B.n++] = p;
    pthread_cond_signal(&B.more);
}

int jit_native_new(Program *p, Program *const *siblings, int nsiblings)
{
    if (jit_tier() != TIER_COMPILED || p->obs) return 0;
    Cc cc = { { 0 }, 0, 0, 1, 0 };   /* its caller waits */
    pthread_mutex_lock(&B.lock);
    if (nsiblings > 0) {
        /* the siblings' compilers wait until p's first has started */
        pthread_mutex_lock(&cc_lock);
        cc.announced = 1;
        cc_urgent++;
        pthread_mutex_unlock(&cc_lock);
        for (int i = 0; i < nsiblings; i++)
            if (!siblings[i]->obs && siblings[i]->native_state == NS_NONE) enqueue(siblings[i]);
    }
    p->native_state = NS_BUILDING;
    int rc = build_registered(p, &cc);
    pthread_mutex_unlock(&B.lock);
    return rc;
}

int jit_native_wait(Program *p)
{
    if (__atomic_load_n(&p->native_state, __ATOMIC_ACQUIRE) == NS_DONE || jit_tier() != TIER_COMPILED || p->obs)
        return jit_tier() != TIER_COMPILED || p->obs || __atomic_load_n(&p->native, __ATOMIC_ACQUIRE) ? 0 : -1;
    pthread_mutex_lock(&B.lock);
    for (;;) {
        if (p->native_state == NS_BUILDING) {
            for (int i = 0; i <= JIT_JOBS_MAX; i++)
                if (B.building[i] == p) {   /* its compilers go first from now on */
                    pthread_mutex_lock(&cc_lock);
                    B.cc[i]->urgent = 1;
                    pthread_cond_broadcast(&cc_free);
                    pthread_mutex_unlock(&cc_lock);
                }
            while (p->native_state == NS_BUILDING) pthread_cond_wait(&B.built, &B.lock);
            continue;   /* done, or stopped before it was (NS_NONE) */
        }
        if (p->native_state != NS_DONE) {   /* not started: build it here */
            for (int i = 0; i < B.n; i++)
                if (B.q[i] == p) { memmove(B.q + i, B.q + i + 1, (size_t)(B.n - i - 1) * sizeof *B.q); B.n--; break; }
            Cc cc = { { 0 }, 0, 0, 1, 0 };
            p->native_state = NS_BUILDING;
            build_registered(p, &cc);
        }
        break;
    }
    pthread_mutex_unlock(&B.lock);
    return __atomic_load_n(&p->native, __ATOMIC_ACQUIRE) ? 0 : -1;
}

void jit_native_hot(Program *p, uint64_t total)
{
    if (total < cfg.hot || jit_tier() != TIER_AUTO || p->obs ||
        __atomic_load_n(&p->native_state, __ATOMIC_RELAXED) != NS_NONE)
        return;
    pthread_mutex_lock(&B.lock);
    if (p->native_state == NS_NONE) enqueue(p);
    pthread_mutex_unlock(&B.lock);
}

void jit_native_forget(Program *p)
{
    if (!p) return;
    pthread_mutex_lock(&B.lock);
    for (int i = 0; i < B.n; i++)
        if (B.q[i] == p) { memmove(B.q + i, B.q + i + 1, (size_t)(B.n - i - 1) * sizeof *B.q); B.n--; break; }
    if (p->native_state == NS_QUEUED) p->native_state = NS_DONE;
    for (int i = 0; i <= JIT_JOBS_MAX; i++)
        if (B.building[i] == p) {
            /* its compilers stop: the kernel they were building is going away */
            pthread_mutex_lock(&cc_lock);
            B.cc[i]->cancelled = 1;
            cc_stop(B.cc[i]);
            pthread_mutex_unlock(&cc_lock);
        }
    while (p->native_state == NS_BUILDING) pthread_cond_wait(&B.built, &B.lock);
    pthread_mutex_unlock(&B.lock);
    __atomic_store_n(&p->native, NULL, __ATOMIC_RELEASE);
    if (p->native_lib) dlclose(p->native_lib);
    p->native_lib = NULL;
}
