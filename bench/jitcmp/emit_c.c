/* emit_c.c - backend (a): C text for the system compiler, built into a .so and dlopen'ed,
 * with an on-disk cache keyed by a hash of the decoded program and the flags.
 *
 * Each instruction becomes a 32-lane loop over rows at constant offsets of R, calling the
 * same inline semantics (sem.h) the interpreter runs; constant rows become literals; a
 * branch target becomes a label. Memory instructions check the whole warp first (in the
 * block, aligned) and hand the instruction back to the interpreter otherwise; a warp whose
 * addresses are consecutive uses one contiguous access instead of a gather.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jitcmp.h"
#include "sem.h"

extern char **environ;

static const char prelude[] =
    "#include <stdint.h>\n"
    "typedef struct Ctx { uint64_t glo, glim; const uint8_t *shared; uint64_t slim; } Ctx;\n"
    SEM_STR(SEM_DEFS) "\n";

/* The vector shape: a row is one GNU C vector of 32 lanes (as LLVM IR's <32 x i64>), an
 * instruction one expression on such vectors, no loop for the vectorizer to find; only the
 * lane-to-mask reduction, fma (no generic vector fma) and gathers stay per-lane loops. */
#define VEC_DEFS                                                                             \
typedef uint64_t V64 __attribute__((vector_size(256), aligned(8)));                         \
typedef int64_t VS64 __attribute__((vector_size(256), aligned(8)));                         \
typedef uint32_t V32 __attribute__((vector_size(128), aligned(4)));                         \
typedef int32_t VS32 __attribute__((vector_size(128), aligned(4)));                         \
typedef float VF __attribute__((vector_size(128), aligned(4)));                             \
static inline V32 v_lo(V64 x) { return __builtin_convertvector(x, V32); }                  \
static inline V64 v_zx(V32 x) { return __builtin_convertvector(x, V64); }                  \
static inline V64 v_sx(V32 x) { return (V64)__builtin_convertvector((VS32)x, VS64); }      \
static inline VF v_f(V64 x) { return (VF)v_lo(x); }                                        \
static inline V64 v_canon(VF f)                                                            \
{ V32 n = (V32)(f != f); return v_zx(((V32)f & ~n) | (n & 0x7fffffffu)); }                 \
static inline VF v_fma(VF a, VF b, VF c)                                                   \
{ VF r; for (int l = 0; l < 32; l++) r[l] = __builtin_fmaf(a[l], b[l], c[l]); return r; }  \
static inline V32 v_sel(V32 m, V32 a, V32 b) { return (a & m) | (b & ~m); }                \
static inline V32 v_lanebit(void)                                                          \
{ V32 r; for (int l = 0; l < 32; l++) r[l] = 1u << l; return r; }                          \
static inline uint32_t v_mask(VS32 c)                                                      \
{ V32 t = (V32)c & v_lanebit(); uint32_t m = 0; for (int l = 0; l < 32; l++) m |= t[l]; return m; } \
static inline V32 v_pred(uint32_t m) { return (V32)(((V32){} + m & v_lanebit()) != 0); }   \
static inline uint64_t v_any(VS64 c) { uint64_t a = 0; for (int l = 0; l < 32; l++) a |= c[l]; return a; } \
static inline V64 v_lane4(void) { V64 r; for (int l = 0; l < 32; l++) r[l] = 4u * l; return r; }

static const char vec_prelude[] = SEM_STR(VEC_DEFS) "\n";

/* A growing string. */
typedef struct Buf { char *s; size_t n, cap; } Buf;

static void bprintf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(Buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && b->n + (size_t)k < b->cap) { b->n += (size_t)k; return; }
        b->cap = b->cap * 2 + (size_t)k + 256;
        b->s = realloc(b->s, b->cap);
        if (!b->s) { perror("jitcmp"); exit(1); }
    }
}

/* Text of operand row r at lane l (lane 0 when lane0): a literal for a constant row. */
static const char *opnd(const Prog *pg, int r, char *buf, int lane0)
{
    if (r < pg->nconst) snprintf(buf, 40, "0x%llxull", (unsigned long long)pg->cval[r]);
    else snprintf(buf, 40, lane0 ? "R[%d]" : "R[%d+l]", r * W);
    return buf;
}

static void emit_mem_check(Buf *b, const Prog *pg, const JInst *in, int pc, int shared)
{
    char ba[40], bl[40];
    opnd(pg, in->a, ba, 1);
    opnd(pg, in->a, bl, 0);
    if (shared) {
        bprintf(b, "  { uint32_t o0 = (uint32_t)(%s + %dull); uint64_t bad = 0, aff = 0;\n"
                   "    for (int l = 0; l < 32; l++) { uint32_t o = (uint32_t)(%s + %dull);"
                   " bad |= (o > c->slim) | (o & 3); aff |= o ^ (o0 + 4u * l); }\n"
                   "    if (bad) return %d;\n", ba, in->imm, bl, in->imm, pc);
    } else {
        bprintf(b, "  { uint64_t x0 = %s + %dull; uint64_t bad = 0, aff = 0;\n"
                   "    for (int l = 0; l < 32; l++) { uint64_t x = %s + %dull;"
                   " bad |= (x - c->glo > c->glim) | (x & 3); aff |= x ^ (x0 + 4u * l); }\n"
                   "    if (bad) return %d;\n", ba, in->imm, bl, in->imm, pc);
    }
}

static void emit_inst(Buf *b, const Prog *pg, const JInst *in, int pc)
{
    char ba[40], bb[40], bc[40];
    const char *a = opnd(pg, in->a, ba, 0), *bs = opnd(pg, in->b, bb, 0), *cs = opnd(pg, in->c, bc, 0);
    int d = in->d * W;
    switch (in->op) {
#define U1(OP, F) case J_##OP: bprintf(b, "  for (int l = 0; l < 32; l++) R[%d+l] = " F "(%s);\n", d, a); break;
#define U2(OP, F) case J_##OP: bprintf(b, "  for (int l = 0; l < 32; l++) R[%d+l] = " F "(%s, %s);\n", d, a, bs); break;
#define U3(OP, F) case J_##OP: bprintf(b, "  for (int l = 0; l < 32; l++) R[%d+l] = " F "(%s, %s, %s);\n", d, a, bs, cs); break;
    U1(MOV, "sem_mov")
    U2(ADD_S32, "sem_add_s32") U2(ADD_S64, "sem_add_s64") U2(MUL_LO_S32, "sem_mul_lo_s32")
    U3(MAD_LO_S32, "sem_mad_lo_s32") U2(MUL_WIDE_S32, "sem_mul_wide_s32")
    U2(SHL_B32, "sem_shl_b32") U2(XOR_B32, "sem_xor_b32") U2(AND_B32, "sem_and_b32")
    U2(MIN_S32, "sem_min_s32") U2(ADD_F32, "sem_add_f32") U2(MUL_F32, "sem_mul_f32")
    U3(FMA_F32, "sem_fma_f32")
#undef U1
#undef U2
#undef U3
    case J_SETP_LT_S32: case J_SETP_GE_S32:
        bprintf(b, "  { uint32_t m = 0; for (int l = 0; l < 32; l++) m |= %s(%s, %s) << l;"
                   " P[%d] = m; }\n", in->op == J_SETP_LT_S32 ? "sem_lt_s32" : "sem_ge_s32",
                a, bs, in->p);
        break;
    case J_SELP_B32:
        bprintf(b, "  { uint32_t m = P[%d]; for (int l = 0; l < 32; l++)"
                   " R[%d+l] = sem_selp_b32(%s, %s, m >> l & 1); }\n", in->p, d, a, bs);
        break;
    case J_LD_GLOBAL_F32:
        emit_mem_check(b, pg, in, pc, 0);
        bprintf(b, "    if (!aff) { const uint32_t *q = (const uint32_t *)(uintptr_t)x0;"
                   " for (int l = 0; l < 32; l++) R[%d+l] = q[l]; }\n"
                   "    else for (int l = 0; l < 32; l++)"
                   " R[%d+l] = *(const uint32_t *)(uintptr_t)(%s + %dull); }\n",
                d, d, a, in->imm);
        break;
    case J_ST_GLOBAL_F32:
        emit_mem_check(b, pg, in, pc, 0);
        bprintf(b, "    if (!aff) { uint32_t *q = (uint32_t *)(uintptr_t)x0;"
                   " for (int l = 0; l < 32; l++) q[l] = (uint32_t)R[%d+l]; }\n"
                   "    else for (int l = 0; l < 32; l++)"
                   " *(uint32_t *)(uintptr_t)(%s + %dull) = (uint32_t)R[%d+l]; }\n",
                d, a, in->imm, d);
        break;
    case J_LD_SHARED_F32:
        emit_mem_check(b, pg, in, pc, 1);
        bprintf(b, "    if (!aff) { const uint32_t *q = (const uint32_t *)(c->shared + o0);"
                   " for (int l = 0; l < 32; l++) R[%d+l] = q[l]; }\n"
                   "    else for (int l = 0; l < 32; l++) R[%d+l] ="
                   " *(const uint32_t *)(c->shared + (uint32_t)(%s + %dull)); }\n",
                d, d, a, in->imm);
        break;
    case J_BRA:
        bprintf(b, "  { uint32_t m = P[%d]; if (m == 0xffffffffu) goto L%d; if (m) return %d; }\n",
                in->p, in->imm, pc);
        break;
    case J_EXIT:
        bprintf(b, "  return -1;\n");
        break;
    }
}

/* Operand row r as a V64 expression. */
static const char *vopnd(const Prog *pg, int r, char *buf)
{
    if (r < pg->nconst) snprintf(buf, 48, "((V64){} + 0x%llxull)", (unsigned long long)pg->cval[r]);
    else snprintf(buf, 48, "(*(V64 *)(R + %d))", r * W);
    return buf;
}

static void vemit_mem(Buf *b, const Prog *pg, const JInst *in, int pc)
{
    char ba[48], bd[48];
    vopnd(pg, in->a, ba);
    vopnd(pg, in->d, bd);
    int d = in->d * W;
    if (in->op == J_LD_SHARED_F32) {
        bprintf(b, "  { V64 x = v_zx(v_lo(%s + %dull));"
                   " if (v_any((VS64)(x > c->slim) | (VS64)(x & 3))) return %d;\n"
                   "    if (!v_any((VS64)(x != x[0] + v_lane4()))) *(V64 *)(R + %d) = v_zx(*(const V32 *)(c->shared + x[0]));\n"
                   "    else { V32 v; for (int l = 0; l < 32; l++) v[l] = *(const uint32_t *)(c->shared + x[l]);"
                   " *(V64 *)(R + %d) = v_zx(v); } }\n", ba, in->imm, pc, d, d);
        return;
    }
    bprintf(b, "  { V64 x = %s + %dull;"
               " if (v_any((VS64)(x - c->glo > c->glim) | (VS64)(x & 3))) return %d;\n", ba, in->imm, pc);
    if (in->op == J_LD_GLOBAL_F32)
        bprintf(b, "    if (!v_any((VS64)(x != x[0] + v_lane4()))) *(V64 *)(R + %d) = v_zx(*(const V32 *)(uintptr_t)x[0]);\n"
                   "    else { V32 v; for (int l = 0; l < 32; l++) v[l] = *(const uint32_t *)(uintptr_t)x[l];"
                   " *(V64 *)(R + %d) = v_zx(v); } }\n", d, d);
    else
        bprintf(b, "    V32 v = v_lo(%s);\n"
                   "    if (!v_any((VS64)(x != x[0] + v_lane4()))) *(V32 *)(uintptr_t)x[0] = v;\n"
                   "    else for (int l = 0; l < 32; l++) *(uint32_t *)(uintptr_t)x[l] = v[l]; }\n", bd);
}

static void vemit_inst(Buf *b, const Prog *pg, const JInst *in, int pc)
{
    char ba[48], bb[48], bc[48];
    const char *a = vopnd(pg, in->a, ba), *bs = vopnd(pg, in->b, bb), *cs = vopnd(pg, in->c, bc);
    int d = in->d * W;
    switch (in->op) {
    case J_MOV: bprintf(b, "  *(V64 *)(R + %d) = %s;\n", d, a); break;
    case J_ADD_S64: bprintf(b, "  *(V64 *)(R + %d) = %s + %s;\n", d, a, bs); break;
#define VOP(OP, E) case J_##OP: bprintf(b, "  *(V64 *)(R + %d) = v_zx(" E ");\n", d, a, bs); break;
    VOP(ADD_S32, "v_lo(%s) + v_lo(%s)") VOP(MUL_LO_S32, "v_lo(%s) * v_lo(%s)")
    VOP(XOR_B32, "v_lo(%s) ^ v_lo(%s)") VOP(AND_B32, "v_lo(%s) & v_lo(%s)")
#undef VOP
    case J_MAD_LO_S32:
        bprintf(b, "  *(V64 *)(R + %d) = v_zx(v_lo(%s) * v_lo(%s) + v_lo(%s));\n", d, a, bs, cs);
        break;
    case J_MUL_WIDE_S32:
        bprintf(b, "  *(V64 *)(R + %d) = (V64)((VS64)v_sx(v_lo(%s)) * (VS64)v_sx(v_lo(%s)));\n", d, a, bs);
        break;
    case J_SHL_B32:
        bprintf(b, "  { V32 s = v_lo(%s); *(V64 *)(R + %d) = v_zx((v_lo(%s) << (s & 31)) & (V32)(s <= 31)); }\n",
                bs, d, a);
        break;
    case J_MIN_S32:
        bprintf(b, "  { V32 a = v_lo(%s), b = v_lo(%s); *(V64 *)(R + %d) = v_zx(v_sel((V32)((VS32)a < (VS32)b), a, b)); }\n",
                a, bs, d);
        break;
    case J_SETP_LT_S32: case J_SETP_GE_S32:
        bprintf(b, "  P[%d] = v_mask((VS32)v_lo(%s) %s (VS32)v_lo(%s));\n", in->p, a,
                in->op == J_SETP_LT_S32 ? "<" : ">=", bs);
        break;
    case J_SELP_B32:
        bprintf(b, "  *(V64 *)(R + %d) = v_zx(v_sel(v_pred(P[%d]), v_lo(%s), v_lo(%s)));\n", d, in->p, a, bs);
        break;
    case J_ADD_F32: bprintf(b, "  *(V64 *)(R + %d) = v_canon(v_f(%s) + v_f(%s));\n", d, a, bs); break;
    case J_MUL_F32: bprintf(b, "  *(V64 *)(R + %d) = v_canon(v_f(%s) * v_f(%s));\n", d, a, bs); break;
    case J_FMA_F32:
        bprintf(b, "  *(V64 *)(R + %d) = v_canon(v_fma(v_f(%s), v_f(%s), v_f(%s)));\n", d, a, bs, cs);
        break;
    case J_LD_GLOBAL_F32: case J_ST_GLOBAL_F32: case J_LD_SHARED_F32:
        vemit_mem(b, pg, in, pc);
        break;
    default:
        emit_inst(b, pg, in, pc);       /* bra, exit: the same in both shapes */
        break;
    }
}

/* The whole file. b->opt chooses the target: "avx2" puts a target attribute on the
 * function (what a runtime choice by cpuid would do), other targets come from flags. */
char *c_emit_text(const Backend *be, const Prog *pg)
{
    Buf b = { 0 };
    char *target = calloc(pg->n + 1, 1);
    for (int i = 0; i < pg->n; i++)
        if (pg->code[i].op == J_BRA) target[pg->code[i].imm] = 1;
    int vec = strstr(be->opt, "vec") != NULL;
    bprintf(&b, "%s%s", prelude, vec ? vec_prelude : "");
    if (strstr(be->opt, "attr-avx2")) bprintf(&b, "__attribute__((target(\"avx2,fma\")))\n");
    bprintf(&b, "int block_%s(uint64_t *restrict R, uint32_t *restrict P, const Ctx *restrict c)\n{\n",
            pg->name);
    for (int i = 0; i < pg->n; i++) {
        if (target[i]) bprintf(&b, "L%d:;\n", i);
        bprintf(&b, "  /* %d: %s */\n", i, jop_name[pg->code[i].op]);
        if (vec) vemit_inst(&b, pg, &pg->code[i], i);
        else emit_inst(&b, pg, &pg->code[i], i);
    }
    bprintf(&b, "}\n");
    free(target);
    return b.s;
}

/* ---- compiling and the cache ---- */

static const char *cache_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *e = getenv("JITCMP_CACHE");
        snprintf(dir, sizeof dir, "%s", e ? e : "/tmp/jitcmp-cache");
        mkdir(dir, 0700);
    }
    return dir;
}

/* The cache key: the decoded program (standing for the PTX text and kernel name), the
 * flags; a real cache adds the compiler's version and the host's CPU features. */
static uint64_t key_of(const Backend *be, const Prog *pg)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t *p = (const uint8_t *)pg->code;
    for (size_t i = 0; i < (size_t)pg->n * sizeof *pg->code; i++) h = (h ^ p[i]) * 1099511628211ull;
    for (int i = 0; i < pg->nconst; i++) h = (h ^ pg->cval[i]) * 1099511628211ull;
    for (const char *s = be->opt; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    for (const char *s = getenv("JITCMP_CC") ? getenv("JITCMP_CC") : "cc"; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static void so_path(const Backend *be, const Prog *pg, char *path, size_t n)
{
    snprintf(path, n, "%s/%016llx.so", cache_dir(), (unsigned long long)key_of(be, pg));
}

static BlockFn load(const Prog *pg, const char *path, void **handle)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "jitcmp: dlopen: %s\n", dlerror()); return NULL; }
    char sym[64];
    snprintf(sym, sizeof sym, "block_%s", pg->name);
    BlockFn fn = (BlockFn)(uintptr_t)dlsym(h, sym);
    if (!fn) { dlclose(h); return NULL; }
    *handle = h;
    return fn;
}

static BlockFn c_compile(const Backend *be, const Prog *pg, void **handle,
                         double *emit_ms, double *compile_ms, double *load_ms)
{
    char path[300], src[300], tmp[320];
    double t0 = now_ms();
    so_path(be, pg, path, sizeof path);
    snprintf(src, sizeof src, "%.*s.c", (int)(strlen(path) - 3), path);
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    char *text = c_emit_text(be, pg);
    FILE *f = fopen(src, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) { perror(src); free(text); return NULL; }
    free(text);
    double t1 = now_ms();
    /* cc FLAGS -shared -fPIC -ffp-contract=off -o tmp src: posix_spawn (vfork), so a big
     * emulator process costs nothing to fork */
    char flags[200];
    snprintf(flags, sizeof flags, "%s", be->opt);
    char *argv[24];
    int argc = 0;
    const char *cc = getenv("JITCMP_CC") ? getenv("JITCMP_CC") : "cc";
    argv[argc++] = (char *)cc;
    for (char *s = strtok(flags, " "); s && argc < 16; s = strtok(NULL, " "))
        if (strcmp(s, "attr-avx2") && strcmp(s, "vec")) argv[argc++] = s;
    argv[argc++] = "-shared"; argv[argc++] = "-fPIC"; argv[argc++] = "-ffp-contract=off"; argv[argc++] = "-Wno-psabi";
    argv[argc++] = "-o"; argv[argc++] = tmp; argv[argc++] = src; argv[argc] = NULL;
    pid_t pid;
    int st;
    if (posix_spawnp(&pid, cc, NULL, NULL, argv, environ) || waitpid(pid, &st, 0) < 0 ||
        !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "jitcmp: cc failed on %s\n", src);
        return NULL;
    }
    if (rename(tmp, path)) { perror(path); return NULL; }   /* publish atomically */
    snprintf(last_object, sizeof last_object, "%s", path);
    double t2 = now_ms();
    BlockFn fn = load(pg, path, handle);
    double t3 = now_ms();
    *emit_ms = t1 - t0; *compile_ms = t2 - t1; *load_ms = t3 - t2;
    return fn;
}

BlockFn c_cache_lookup(const Backend *be, const Prog *pg, void **handle, double *hash_ms,
                       double *load_ms)
{
    char path[300];
    double t0 = now_ms();
    so_path(be, pg, path, sizeof path);
    struct stat sb;
    if (stat(path, &sb)) return NULL;
    double t1 = now_ms();
    BlockFn fn = load(pg, path, handle);
    *hash_ms = t1 - t0;
    *load_ms = now_ms() - t1;
    return fn;
}

static void c_release(void *h) { if (h) dlclose(h); }

const Backend c_backends[] = {
    { "cc -O2", "c", c_compile, c_release, "-O2", 2 },
    { "cc -O1 avx2", "c", c_compile, c_release, "-O1 attr-avx2", 1 },
    { "cc -O2 avx2", "c", c_compile, c_release, "-O2 attr-avx2", 2 },
    { "cc -O2 x86-64-v4", "c", c_compile, c_release, "-O2 -march=x86-64-v4", 2 },
    { "cc -O2 native", "c", c_compile, c_release, "-O2 -march=native", 2 },
    { "cc -O3 native", "c", c_compile, c_release, "-O3 -march=native", 3 },
    { "cc vec -O2 avx2", "c", c_compile, c_release, "-O2 attr-avx2 vec", 2 },
    { "cc vec -O2 native", "c", c_compile, c_release, "-O2 -march=native vec", 2 },
};
const int n_c_backends = sizeof c_backends / sizeof c_backends[0];
