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
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "compile.h"
#include "emu/emu.h"
#include "emu/jitop.h"
#include "emu/native.h"
#include "emu/exec_mem_fast.h"

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

static struct {
    pthread_once_t once;
    int tier;
    uint64_t hot;               /* thread instructions that make a kernel worth building   */
    char cc[256];
    char dir[1024];             /* the cache                                                */
    int usable;                 /* the cache exists and the headers are in it              */
    char inc[1100];             /* -I folder of the headers                                 */
    uint64_t env_hash;          /* headers, compiler, flags, host CPU                       */
} cfg = { PTHREAD_ONCE_INIT, TIER_AUTO, 100000000ull, "", "", 0, "", 0 };

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
 * define (exec_int_tmpl.h) and the compiler's builtins. */
static const char *const callable[] = {
    "MINV", "MAXV", "f32_of", "f64_of", "f32_ftz", "__builtin_popcount", "__builtin_popcountll",
    "__builtin_clz", "__builtin_clzll", "__builtin_bswap32", "__builtin_bswap64",
    "TINY", "fmaf", "fma", "sqrtf", "sqrt", "fabs", "fabsf", NULL
};

static int expr_ok(const char *e)
{
    for (const char *c = e; *c;) {
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))) { c++; continue; }
        const char *s = c;
        while (*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')) c++;
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

/* The entry of each instruction of the Program being written (jit_native_source). */
static __thread const JitOp **op_at;
static __thread const Inst *op_base;
static const JitOp *jitop_of_inst(const Inst *in) { return op_at[in - op_base]; }

/* ---- the C of a kernel --------------------------------------------------------------- */

static const char prologue[] =
    "#include \"emu/exec_int_tmpl.h\"\n"
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
    "#define SHORT(ran) if (__builtin_expect(w->short_turn, 0) && (ran)) { result = RUN_YIELD; goto out; }\n";

/* The largest kernel (PTX instructions) whose function is built at -O2 (jit_native_source) */
#define JIT_O2_MAX 400

static const char main_head[] =
    "int " NATIVE_SYMBOL "(Warp *w, uint32_t budget, const NativeRt *rt)\n"
    "{\n"
    "    const Inst *const code = w->prog->code;\n"
    "    uint64_t *const R = w->R;\n"
    "    uint32_t *const P = w->P;\n"
    "    uint64_t steps = 0, lanes = 0, slots = 0, idle = 0;\n"
    "    uint32_t mask, at = 0;\n"
    "    int r = STEP_NEXT, result;\n"
    "    (void)R;\n"
    "    goto dispatch;\n";

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
    if (!strcmp(o->kind, "CVTA")) {
        put(b, "ROWP(%u)[l] = (%s)(ROWP(%u)[l] + %lluull);", in->d[0], o->rt, in->base,
            (unsigned long long)in->imm);
    } else if (!strcmp(o->kind, "SELP")) {
        put(b, "ROWP(%u)[l] = (%s)(((sel%u >> l) & 1u) ? ROWP(%u)[l] : ROWP(%u)[l]);", in->d[0], o->rt, k,
            in->s[0], in->s[1]);
    } else if (!strcmp(o->kind, "F32") || !strcmp(o->kind, "F64")) {
        uint32_t rb = in->s[in->ns > 1 ? 1 : 0], rc = in->s[in->ns > 2 ? 2 : 0];
        if (o->kind[1] == '3')
            put(b, "{ float a = f32_in(ROWP(%u)[l], %s), b = f32_in(ROWP(%u)[l], %s), c = f32_in(ROWP(%u)[l], %s); "
                   "(void)b; (void)c; ROWP(%u)[l] = f32_out(%s, %s, %s, %s && (%s)); }",
                in->s[0], o->t[1], rb, o->t[1], rc, o->t[1], in->d[0], o->expr, o->t[1], o->t[2], o->t[1], o->t[0]);
        else
            put(b, "{ double a = f64_in(ROWP(%u)[l]), b = f64_in(ROWP(%u)[l]), c = f64_in(ROWP(%u)[l]); "
                   "(void)b; (void)c; ROWP(%u)[l] = fp_nan64(%s, a, b, c); }", in->s[0], rb, rc, in->d[0], o->expr);
    } else {   /* UN BIN TER QUAD: exec_int_tmpl.h's H_* */
        int n = !strcmp(o->kind, "UN") ? 1 : !strcmp(o->kind, "BIN") ? 2 : !strcmp(o->kind, "TER") ? 3 : 4;
        put(b, "{ ");
        for (int i = 0; i < n; i++) put(b, "%s %s = (%s)ROWP(%u)[l]; ", o->t[i], v[i], o->t[i], in->s[i]);
        put(b, "ROWP(%u)[l] = (%s)(%s); }", in->d[0], o->rt, o->expr);
    }
}

static void lane_setup(Buf *b, const Inst *in, uint32_t k, const JitOp *o, const char *indent)
{
    if (!strcmp(o->kind, "SELP"))
        put(b, "%suint32_t sel%u = P[%u] ^ %uu;\n", indent, k, in->s[2], (in->flags & IF_NEG_C) ? ~0u : 0u);
}

/* One lanewise instruction on its own: a whole warp's lanes inline; a part of a warp, the
 * handler (rarer, and half the code to compile). */
static void emit_lanewise(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    put(b, "    if (mask == FULL_MASK) {\n");
    lane_setup(b, in, k, o, "        ");
    put(b, "        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) ");
    lane_body(b, in, k, o);
    put(b, "\n    } else CALL(%u)\n", k);
}

static void emit_span(Buf *b, const Inst *in, uint32_t i, const char *q, const char *T, const char *v);

/* A load a run may hold: unguarded, without .acquire (a fence after the whole warp's loads). */
static int run_load(const Inst *in, const JitOp *o)
{
    return o && (!strcmp(o->kind, "LD") || !strcmp(o->kind, "LDS")) && !in->pg && !in->pneg &&
           !(in->aux8 & MO_ACQUIRE);
}

/* A run of n instructions from k - lanewise ones and loads - for a whole warp in one loop over
 * the lanes (the compiler keeps each lane's values in vector registers from one instruction to
 * the next). It stands for the n steps warp_run would take when the whole warp runs, nothing
 * can make it regroup on the way (the merge pc is not in the run), no wgmma is in flight, and
 * every load's addresses pass the memory system's whole-warp checks before the loop (their
 * address rows are not written in the run, and nothing in it stores); each guarded lanewise
 * instruction keeps the lanes its guard leaves out. Otherwise the instructions run one by one
 * after it, where a load that faults faults as it would in the interpreter. */
/* The run is a function of its own (in fb): alone, the compiler vectorizes its loop, which in
 * the middle of a kernel of many labels it may not. It returns 1 when a check fails. */
static void emit_run(Buf *b, Buf *fb, const Program *p, uint32_t k, uint32_t n, int wgmma)
{
    uint32_t cost = 0;   /* the run's issue slots, for the time model */
    for (uint32_t i = k; i < k + n; i++) cost += p->code[i].cost;
    int loads = 0;
    for (uint32_t i = k; i < k + n; i++) loads |= run_load(&p->code[i], jitop_of_inst(&p->code[i]));
    put(b, "    if (w->active == FULL_MASK && !(w->merge_pc > %u && w->merge_pc <= %u)%s) {\n"
           "        uint64_t ln, id;\n        if (!run%u(w, code, rt, &ln, &id)) {\n            steps += %u;\n"
           "            slots += %u;\n            lanes += ln;\n            idle += id;\n            w->pc = %u;\n"
           "%s            goto L%u;\n        }\n    }\n",
        k, k + n, wgmma ? " && !w->wg_inflight" : "", k, n, cost, k + n, loads ? "            SHORT(1)\n" : "",
        k + n);
    b = fb;   /* the function */
    put(b, "/* instructions %u..%u */\n__attribute__((noinline)) static int run%u(Warp *w, const Inst *code, "
           "const NativeRt *rt, uint64_t *lanes_out, uint64_t *idle_out)\n{\n    uint64_t *const R = w->R;\n    uint32_t *const P = w->P;\n"
           "    (void)code; (void)rt; (void)P;\n", k, k + n - 1, k);
    put(b, "    {\n");
    /* the .shared loads: exec_mem_fast.h's whole-warp check of each, in one pass over the
     * lanes (offsets as shared_fast computes them: the low 32 bits of the row plus imm) */
    int nlds = 0;
    for (uint32_t i = k; i < k + n; i++) {
        const JitOp *o = jitop_of_inst(&p->code[i]);
        nlds += run_load(&p->code[i], o) && !strcmp(o->kind, "LDS");
    }
    if (nlds) {
        put(b, "        const Cta *cta = w->cta;\n        if (!cta) return 1;\n"
               "        uint8_t *const shm = cta->shared;\n        const uint32_t ssz = cta->shared_size;\n"
               "        uint32_t bad = 0;\n        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {\n");
        for (uint32_t i = k; i < k + n; i++) {
            const Inst *in = &p->code[i];
            const JitOp *o = jitop_of_inst(in);
            if (!run_load(in, o) || strcmp(o->kind, "LDS")) continue;
            /* off > shared_size - size, for any shared_size: off + size > shared_size */
            put(b, "            { uint32_t o = (uint32_t)ROWP(%u)[l] + %uu; bad |= ((uint64_t)o + sizeof(%s) * %s > ssz) | (o & (sizeof(%s) * %s - 1)); }\n",
                in->base, (uint32_t)in->imm, o->t[0], o->t[1], o->t[0], o->t[1]);
        }
        put(b, "        }\n        if (bad) return 1;\n");
    }
    int nld = 0;
    put(b, "        int span = 1;\n");
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        if (run_load(in, o)) {
            if (strcmp(o->kind, "LDS")) {
                /* consecutive lanes (mem_warp_span) or mem_warp_fast's pointers */
                char q[16];
                snprintf(q, sizeof q, "q%u", i);
                emit_span(b, in, i, q, o->t[0], o->t[1]);
                put(b, "        uint8_t *p%u[WARP_SIZE];\n"
                       "        if (!q%u) { if (rt->warp_fast(w, &code[%u], FULL_MASK, sizeof(%s) * %s, p%u)) return 1; span = 0; }\n"
                       "        else for (int l = 0; l < WARP_SIZE; l++) p%u[l] = q%u + (size_t)l * sizeof(%s) * %s;\n",
                    i, i, i, o->t[0], o->t[1], i, i, i, o->t[0], o->t[1]);
                nld++;
            }
            continue;
        }
        lane_setup(b, in, i, o, "        ");
        if (in->pg) put(b, "        uint32_t g%u = P[%u] ^ %uu;\n", i, in->pg, in->pneg);
    }
    /* the loop twice where the run loads global memory: once for lanes whose addresses are
     * all consecutive (contiguous vector loads), once through per-lane pointers */
    for (int variant = nld ? 0 : 1; variant < 2; variant++) {
    if (nld) put(b, variant ? "        else\n" : "        if (span)\n");
    put(b, "        _Pragma(\"GCC ivdep\") for (int l = 0; l < WARP_SIZE; l++) {\n");
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        const JitOp *o = jitop_of_inst(in);
        put(b, "            ");
        if (run_load(in, o)) {
            int v = atoi(o->t[1]);
            if (!strcmp(o->kind, "LDS"))
                /* the offset passed the check: below 2^31, a signed index gathers */
                put(b, "{ %s x[%d]; memcpy(x, shm + (int32_t)((uint32_t)ROWP(%u)[l] + %uu), sizeof x);", o->t[0], v, in->base,
                    (uint32_t)in->imm);
            else if (!variant) put(b, "{ %s x[%d]; memcpy(x, q%u + (size_t)l * sizeof x, sizeof x);", o->t[0], v, i);
            else put(b, "{ %s x[%d]; memcpy(x, p%u[l], sizeof x);", o->t[0], v, i);
            for (int e = 0; e < v; e++) put(b, " ROWP(%u)[l] = (uint64_t)x[%d];", in->d[e], e);
            put(b, " }\n");
            continue;
        }
        if (in->pg) put(b, "if ((g%u >> l) & 1u) ", i);
        else if (in->pneg) put(b, "if (0) ");   /* a guard of !true: no lane */
        lane_body(b, in, i, o);
        put(b, "\n");
    }
    put(b, "        }\n");
    }
    put(b, "        (void)span;\n        *lanes_out = 0");
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        if (in->pg) put(b, " + (uint64_t)__builtin_popcount(g%u)", i);
        else if (!in->pneg) put(b, " + 32");
    }
    /* the guarded instructions no lane executes: the profile leaves them out (engine.c) */
    put(b, ";\n        *idle_out = 0");
    for (uint32_t i = k; i < k + n; i++) {
        const Inst *in = &p->code[i];
        if (in->pg) put(b, " + (g%u == 0)", i);
        else if (in->pneg) put(b, " + 1");
    }
    put(b, ";\n        return 0;\n    }\n}\n\n");
}

/* setp/set: every lane compared, then the handler's finish (exec_int_tmpl.h) */
static void emit_cmp(Buf *b, const Inst *in, uint32_t k, const JitOp *o)
{
    put(b, "    if (mask == FULL_MASK) {\n        const uint64_t *A = ROWP(%u), *B = ROWP(%u);\n        uint32_t t = 0;\n"
           "        for (int l = 0; l < WARP_SIZE; l++) { %s a = %s(A[l]), b = %s(B[l]); t |= (uint32_t)(%s) << l; }\n"
           "        cmp_finish(w, &code[%u], mask, t);\n    } else CALL(%u)\n", in->s[0], in->s[1], o->t[0], o->t[1], o->t[1],
        o->expr, k, k);
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
    if (!shared) {
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
        put(b, "        uint8_t *p[WARP_SIZE];\n        if (rt->warp_fast(w, &code[%u], mask, sizeof(%s) * %d, p)) goto C%u;\n",
            k, T, v, k);
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
    if (!shared) put(b, "        }\n");
    if (ld && (in->aux8 & MO_ACQUIRE)) put(b, "        __atomic_thread_fence(__ATOMIC_ACQUIRE);\n");
    put(b, "    } else {\n    C%u:\n        CALL(%u)\n    }\n", k, k);
}

/* bra: a uniform branch goes to its label (warp_run's STEP_JUMP path while nothing needs a
 * regroup); a divergent one calls the handler. */
static void emit_bra(Buf *b, const Inst *in, uint32_t k)
{
    uint32_t t = (uint32_t)in->imm;
    put(b, "    if (mask) {\n        if (mask == w->active) {\n            w->pc = %u;\n"
           "            if (!past_merge(w)) {\n", t);
    if (t <= k) put(b, "                if (--budget == 0) { result = RUN_YIELD; goto out; }\n");
    put(b, "                goto L%u;\n            }\n            r = STEP_JUMP;\n        } else {\n"
           "            FLUSH();\n            r = code[%u].fn(w, &code[%u], mask);\n        }\n"
           "        at = %u;\n        goto after;\n    }\n", t, k, k, k);
}

/* The length of the run that may start at k (emit_run): lanewise instructions and loads whose
 * address rows nothing before them in the run writes, at most 64. */
static uint32_t run_length(const Program *p, uint32_t k)
{
    uint32_t n = 0, nw = 0, written[128];
    for (; k + n < p->ncode && n < 64; n++) {
        const Inst *in = &p->code[k + n];
        const JitOp *o = jitop_of_inst(in);
        int ld = run_load(in, o);
        if (!ld && !lanewise(o)) break;
        if (ld) {
            int clash = 0;
            for (uint32_t i = 0; i < nw; i++) clash |= written[i] == in->base;
            if (clash) break;
        }
        for (int e = 0; e < (ld ? in->vec : 1) && nw < 128; e++) written[nw++] = in->d[e];
        if (nw >= 120) { n++; break; }
    }
    return n;
}

char *jit_native_source(const Program *p)
{
    Buf b = { 0 };
    int wgmma = 0;
    const JitOp **ops = calloc(p->ncode + 1, sizeof *ops);
    if (!ops) return NULL;
    for (uint32_t k = 0; k < p->ncode; k++) {
        wgmma |= p->code[k].op == OP_wgmma;
        ops[k] = jitop_find(p->code[k].fn);
    }
    op_at = ops;
    op_base = p->code;
    Buf fb = { 0 };   /* the runs' functions, before the kernel's */
    /* The kernel's function holds a label a PTX instruction and the code between the runs.
     * GCC's -O2 time (register allocation and liveness over thousands of labels) grows
     * faster than its size: 11 s against 2.6 s at -O1 for one of 2600 lines. A large kernel's
     * function is built at -O1 and its runs' functions (emit_run), its hot loops, at -O2;
     * a small one's at -O2 (at -O1 the function costs 1-5% more instructions: callgrind on
     * matrixMul and saxpy of bench/). */
    if (p->ncode > JIT_O2_MAX) put(&b, "__attribute__((optimize(\"O1\"))) ");
    put(&b, "%s", main_head);
    uint32_t run_end = 0;   /* the instructions before it belong to the run emitted last */
    for (uint32_t k = 0; k < p->ncode; k++) {
        const Inst *in = &p->code[k];
        put(&b, "L%u: /* %s, PTX line %u */\n", k, op_info[in->op].name, in->line);
        if (k >= run_end) {
            uint32_t n = run_length(p, k);
            if (n >= 2) { emit_run(&b, &fb, p, k, n, wgmma); run_end = k + n; }
        }
        put(&b, "    GUARD(%u, %uu, %u);\n", in->pg, in->pneg, in->cost);
        if (wgmma)   /* an accumulator of a wgmma in flight read early is a warning (engine.c) */
            put(&b, "    if (__builtin_expect(w->wg_inflight != 0, 0)) rt->wgmma_check(w, &code[%u]);\n", k);
        const JitOp *o = jitop_of_inst(in);
        const char *kd = o ? o->kind : "";
        if (!strcmp(kd, "BRA")) emit_bra(&b, in, k);
        else if (lanewise(o)) emit_lanewise(&b, in, k, o);
        else if (!strcmp(kd, "CMP")) emit_cmp(&b, in, k, o);
        else if (!strcmp(kd, "LD") || !strcmp(kd, "LDS") || !strcmp(kd, "ST") || !strcmp(kd, "STS"))
            emit_mem(&b, in, k, o);
        else put(&b, "    CALL(%u)\n", k);
        put(&b, "    NEXT()\n");
        if (in->flags & IF_PREEMPT) put(&b, "    SHORT(mask)\n");
    }
    put(&b, "    goto dispatch;\n%s    goto dispatch;\ndispatch:\n    switch (w->pc) {\n", epilogue);
    for (uint32_t k = 0; k < p->ncode; k++) put(&b, "    case %u: goto L%u;\n", k, k);
    put(&b, "    default: break;\n    }\n    FLUSH();\n    return rt->interp(w, budget);\n"
            "out:\n    FLUSH();\n    return result;\n}\n");
    free(ops);
    Buf all = { 0 };
    put(&all, "/* ptxemu compiled kernel %s (%u instructions) */\n%s", p->name, p->ncode, prologue);
    if (fb.s) put(&all, "%s", fb.s);
    if (b.s) put(&all, "%s", b.s);
    int oom = b.oom || fb.oom || all.oom;
    free(b.s);
    free(fb.s);
    if (oom) { free(all.s); return NULL; }
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

/* The background builder's compiler while it runs (0: none), so that a module unloaded while
 * its kernel compiles stops the compiler instead of waiting for it: a program that ends while
 * a big kernel of it still compiles would otherwise wait at its exit for the whole build.
 * The pid is cleared under cc_lock before the child is reaped, so a kill never reaches a
 * reused pid; the child leads its own process group, so cc's passes stop with it. */
static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t cc_child;
static int cc_cancelled;      /* the running build was stopped: not worth a warning */

static int run_cc(const char *src, const char *out, const char *log)
{
    const char *argv[32];
    int n = 0;
    argv[n++] = cfg.cc;
    static const char *const flags[] = { JIT_CFLAGS };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) argv[n++] = flags[i];
    char inc[1200];
    snprintf(inc, sizeof inc, "-I%s", cfg.inc);
    argv[n++] = inc;
    argv[n++] = "-o";
    argv[n++] = out;
    argv[n++] = src;
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    size_t room = 1;
    for (char **e = environ; *e; e++) room++;
    char **env = malloc(room * sizeof *env);
    if (!env) { posix_spawn_file_actions_destroy(&fa); return -1; }
    compiler_env(env, room);
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    pthread_mutex_lock(&cc_lock);
    int rc = cc_cancelled ? -1 : posix_spawnp(&pid, cfg.cc, &fa, &at, (char *const *)argv, env);
    if (!rc) cc_child = pid;
    pthread_mutex_unlock(&cc_lock);
    free(env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc) return -1;
    /* wait without reaping, so that the pid stays ours while cc_child names it */
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&cc_lock);
    cc_child = 0;
    pthread_mutex_unlock(&cc_lock);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
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

/* Build p (or find it built in the cache) and load it; 0 or -1 after saying why once. */
static int build(Program *p)
{
    if (!cfg.usable) return -1;
    char *src = jit_native_source(p);
    if (!src) return -1;
    uint64_t h = fnv(cfg.env_hash, src, strlen(src));
    char so[1300], c[1300], tmp[1300], log[1300];
    snprintf(so, sizeof so, "%s/%016llx.so", cfg.dir, (unsigned long long)h);
    if (!access(so, R_OK) && !load(p, so)) { free(src); return 0; }
    snprintf(c, sizeof c, "%s/%016llx.%ld.c", cfg.dir, (unsigned long long)h, (long)getpid());
    snprintf(tmp, sizeof tmp, "%s/%016llx.%ld.so", cfg.dir, (unsigned long long)h, (long)getpid());
    snprintf(log, sizeof log, "%s/%016llx.log", cfg.dir, (unsigned long long)h);
    int rc = write_file(c, src, strlen(src));
    free(src);
    if (!rc) rc = run_cc(c, tmp, log);
    if (!rc) rc = rename(tmp, so);
    if (!rc) rc = load(p, so);
    if (rc) {
        pthread_mutex_lock(&cc_lock);
        int cancelled = cc_cancelled;
        pthread_mutex_unlock(&cc_lock);
        if (!cancelled)
            fprintf(stderr, "ptxemu: jit: kernel %s could not be compiled (%s, %s); it runs interpreted\n",
                    p->name, c, log);
        else
            unlink(c);
        unlink(tmp);
        return -1;
    }
    if (!getenv("PTXEMU_JIT_KEEP")) { unlink(c); unlink(log); }   /* kept: what was compiled */
    return 0;
}

/* ---- the background builder ---------------------------------------------------------- */

/* Program.native_state */
enum { NS_NONE = 0, NS_QUEUED, NS_BUILDING, NS_DONE };

#define QUEUE_MAX 256
static struct {
    pthread_mutex_t lock;
    pthread_cond_t more, built;
    Program *q[QUEUE_MAX];
    int n;
    Program *building;
    int started;
} B = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0 }, 0, NULL, 0 };

static void *builder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&B.lock);
    for (;;) {
        while (!B.n) pthread_cond_wait(&B.more, &B.lock);
        Program *p = B.q[0];
        memmove(B.q, B.q + 1, (size_t)--B.n * sizeof *B.q);
        B.building = p;
        p->native_state = NS_BUILDING;
        pthread_mutex_unlock(&B.lock);
        build(p);
        pthread_mutex_lock(&B.lock);
        pthread_mutex_lock(&cc_lock);
        cc_cancelled = 0;
        pthread_mutex_unlock(&cc_lock);
        p->native_state = NS_DONE;
        B.building = NULL;
        pthread_cond_broadcast(&B.built);
    }
    return NULL;
}

int jit_native_new(Program *p)
{
    if (jit_tier() != TIER_COMPILED || p->obs) return 0;
    p->native_state = NS_DONE;
    return build(p);
}

void jit_native_hot(Program *p, uint64_t total)
{
    if (total < cfg.hot || jit_tier() != TIER_AUTO || p->obs ||
        __atomic_load_n(&p->native_state, __ATOMIC_RELAXED) != NS_NONE)
        return;
    pthread_mutex_lock(&B.lock);
    if (p->native_state == NS_NONE && B.n < QUEUE_MAX) {
        if (!B.started) {
            pthread_t t;
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
            B.started = pthread_create(&t, &a, builder, NULL) == 0;
            pthread_attr_destroy(&a);
        }
        if (B.started) {
            p->native_state = NS_QUEUED;
            B.q[B.n++] = p;
            pthread_cond_signal(&B.more);
        }
    }
    pthread_mutex_unlock(&B.lock);
}

void jit_native_forget(Program *p)
{
    if (!p) return;
    pthread_mutex_lock(&B.lock);
    for (int i = 0; i < B.n; i++)
        if (B.q[i] == p) { memmove(B.q + i, B.q + i + 1, (size_t)(B.n - i - 1) * sizeof *B.q); B.n--; break; }
    if (B.building == p) {
        /* its compiler stops: the kernel it was building is going away */
        pthread_mutex_lock(&cc_lock);
        cc_cancelled = 1;
        if (cc_child > 0) kill(-cc_child, SIGKILL);
        pthread_mutex_unlock(&cc_lock);
    }
    while (B.building == p) pthread_cond_wait(&B.built, &B.lock);
    pthread_mutex_unlock(&B.lock);
    __atomic_store_n(&p->native, NULL, __ATOMIC_RELEASE);
    if (p->native_lib) dlclose(p->native_lib);
    p->native_lib = NULL;
}
