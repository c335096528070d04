/* kernels.c - the three programs in decoded form, their fixed workloads, and an
 * interpreter of the same form (a handler per instruction, as emu/exec_*.c has) that serves
 * as the reference for the digests and as the fallback a compiled block hands back to. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "jitcmp.h"
#include "sem.h"

SEM_DEFS

const char *const jop_name[J_COUNT] = {
#define X(n, s) s,
    JOPS(X)
#undef X
};
const char *const kernel_name[K_COUNT] = { "saxpy", "matmul", "big" };

char last_object[300];

double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* CPU time of this process and of the children it has waited for (cc, as, ld): on a
 * machine shared by other jobs it counts what a compile costs, not how long it queued. */
double cpu_ms(void)
{
    struct timespec ts;
    struct rusage ru;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    getrusage(RUSAGE_CHILDREN, &ru);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6 + (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
}

/* Run times are this thread's CPU time: the other jobs' time slices are not counted. */
static double thread_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *msg)
{
    fprintf(stderr, "jitcmp: %s\n", msg);
    exit(1);
}

/* ---- building programs ---- */

/* Constants first (rows [0, nconst)), then variables. */
static int konst(Prog *pg, uint64_t v)
{
    for (int i = 0; i < pg->nconst; i++)
        if (pg->cval[i] == v) return i;
    if (pg->nrows > pg->nconst || pg->nconst == MAX_CONST) die("constants after variables");
    pg->cval[pg->nconst] = v;
    pg->nrows = ++pg->nconst;
    return pg->nconst - 1;
}

static int var(Prog *pg) { return pg->nrows++; }

static int ins(Prog *pg, int op, int d, int a, int b, int c, int p, int imm)
{
    if (pg->n == pg->cap) {
        pg->cap = pg->cap ? 2 * pg->cap : 64;
        pg->code = realloc(pg->code, pg->cap * sizeof *pg->code);
        if (!pg->code) die("out of memory");
    }
    pg->code[pg->n] = (JInst){ .op = (uint8_t)op, .p = (uint8_t)p, .d = (uint16_t)d,
                               .a = (uint16_t)a, .b = (uint16_t)b, .c = (uint16_t)c,
                               .imm = imm };
    return pg->n++;
}

/* The body of bench/saxpy.cu's kernel as nvcc -O2 writes it (the cvta.to.global moves
 * dropped): one guarded branch, two loads, an fma, a store. */
static void build_saxpy(Prog *pg)
{
    int c4 = konst(pg, 4);
    int n = var(pg), alpha = var(pg), x = var(pg), y = var(pg), ntid = var(pg);
    int ctaid = var(pg), tid = var(pg);
    int r1 = var(pg), rd5 = var(pg), rd6 = var(pg), rd7 = var(pg);
    int f2 = var(pg), f3 = var(pg), f4 = var(pg);
    pg->row_param[0] = n; pg->row_param[1] = alpha; pg->row_param[2] = x;
    pg->row_param[3] = y; pg->row_param[4] = ntid;
    pg->row_ctaid = ctaid; pg->row_tidx = tid; pg->row_tidy = -1;
    pg->npreds = 1;
    ins(pg, J_MAD_LO_S32, r1, ntid, ctaid, tid, 0, 0);
    ins(pg, J_SETP_GE_S32, 0, r1, n, 0, 0, 0);
    int br = ins(pg, J_BRA, 0, 0, 0, 0, 0, 0);
    ins(pg, J_MUL_WIDE_S32, rd5, r1, c4, 0, 0, 0);
    ins(pg, J_ADD_S64, rd6, x, rd5, 0, 0, 0);
    ins(pg, J_LD_GLOBAL_F32, f2, rd6, 0, 0, 0, 0);
    ins(pg, J_ADD_S64, rd7, y, rd5, 0, 0, 0);
    ins(pg, J_LD_GLOBAL_F32, f3, rd7, 0, 0, 0, 0);
    ins(pg, J_FMA_F32, f4, f2, alpha, f3, 0, 0);
    ins(pg, J_ST_GLOBAL_F32, f4, rd7, 0, 0, 0, 0);
    pg->code[br].imm = ins(pg, J_EXIT, 0, 0, 0, 0, 0, 0);
}

/* Shared layout of the tiled kernel: As[16][MM_KT] then Bs[MM_KT][16] floats, static sizes
 * as a kernel's .shared arrays have; the loop bound k is a parameter. */
#define MM_KT 256
#define MM_BS_OFF (16 * MM_KT * 4)

/* The inner loop of bench/matrixMul.cu as nvcc -O2 writes it (16 steps of two ld.shared and
 * an fma chain on distinct registers, a counter and a uniform backward branch), over a strip
 * of k held in shared memory, then the store of the result. */
static void build_matmul(Prog *pg)
{
    int c2 = konst(pg, 2), c4 = konst(pg, 4), c16 = konst(pg, 16), c64 = konst(pg, 64);
    int crow = konst(pg, MM_KT * 4), c0 = konst(pg, 0), c256 = konst(pg, 256);
    int cbs = konst(pg, MM_BS_OFF), cstep = konst(pg, 16 * 64);
    int k = var(pg), out = var(pg), ctaid = var(pg), tx = var(pg), ty = var(pg);
    pg->row_param[0] = k; pg->row_param[1] = out;
    pg->row_ctaid = ctaid; pg->row_tidx = tx; pg->row_tidy = ty;
    pg->npreds = 1;
    int r7 = var(pg), r8 = var(pg), r9 = var(pg), i = var(pg), acc = var(pg);
    ins(pg, J_MUL_LO_S32, r7, ty, crow, 0, 0, 0);
    ins(pg, J_SHL_B32, r9, tx, c2, 0, 0, 0);
    ins(pg, J_ADD_S32, r8, r9, cbs, 0, 0, 0);
    ins(pg, J_MOV, acc, c0, 0, 0, 0, 0);
    ins(pg, J_MOV, i, c0, 0, 0, 0, 0);
    int loop = pg->n, prev = acc;
    for (int j = 0; j < 16; j++) {
        int fa = var(pg), fb = var(pg), s = j == 15 ? acc : var(pg);
        ins(pg, J_LD_SHARED_F32, fa, r8, 0, 0, 0, 64 * j);
        ins(pg, J_LD_SHARED_F32, fb, r7, 0, 0, 0, 4 * j);
        ins(pg, J_FMA_F32, s, fb, fa, prev, 0, 0);
        prev = s;
    }
    ins(pg, J_ADD_S32, r7, r7, c64, 0, 0, 0);
    ins(pg, J_ADD_S32, r8, r8, cstep, 0, 0, 0);
    ins(pg, J_ADD_S32, i, i, c16, 0, 0, 0);
    ins(pg, J_SETP_LT_S32, 0, i, k, 0, 0, 0);
    ins(pg, J_BRA, 0, 0, 0, 0, 0, loop);
    int t = var(pg), t2 = var(pg), rd = var(pg);
    ins(pg, J_MAD_LO_S32, t, ty, c16, tx, 0, 0);
    ins(pg, J_MAD_LO_S32, t2, ctaid, c256, t, 0, 0);
    ins(pg, J_MUL_WIDE_S32, rd, t2, c4, 0, 0, 0);
    ins(pg, J_ADD_S64, rd, out, rd, 0, 0, 0);
    ins(pg, J_ST_GLOBAL_F32, acc, rd, 0, 0, 0, 0);
    ins(pg, J_EXIT, 0, 0, 0, 0, 0, 0);
}

#define BIG_INSTS 2000
#define BIG_VARS 40

static uint32_t rnd_state = 12345;
static uint32_t rnd(uint32_t n)
{
    rnd_state ^= rnd_state << 13; rnd_state ^= rnd_state >> 17; rnd_state ^= rnd_state << 5;
    return rnd_state % n;
}

/* A long generated body: integer and f32 arithmetic, compare-and-select, shared-memory
 * table lookups and a forward branch on a warp-uniform value every ~40 instructions, over
 * 40 live values; about BIG_INSTS instructions, like the larger real kernels. */
static void build_big(Prog *pg)
{
    static const uint64_t kv[] = { 0, 1, 2, 3, 5, 7, 13, 31, 100, 1000, 0xdeadbeef,
                                   0x3f800000, 0x3f000000, 0x40490fdb, 0xbf400000 };
    int kr[sizeof kv / sizeof kv[0]];
    int nk = (int)(sizeof kv / sizeof kv[0]);
    for (int i = 0; i < nk; i++) kr[i] = konst(pg, kv[i]);
    int cmask = konst(pg, 0x3fc), c4 = konst(pg, 4), c256 = konst(pg, 256);
    int out = var(pg), ctaid = var(pg), tid = var(pg);
    pg->row_param[0] = out;
    pg->row_ctaid = ctaid; pg->row_tidx = tid; pg->row_tidy = -1;
    pg->npreds = 2;
    int v[BIG_VARS], tmp = var(pg);
    for (int i = 0; i < BIG_VARS; i++) {
        v[i] = var(pg);
        ins(pg, J_MAD_LO_S32, v[i], tid, kr[1 + i % (nk - 1)], ctaid, 0, 0);
    }
    rnd_state = 12345;
    int pending = -1, skip = 0;
    while (pg->n < BIG_INSTS - 50) {
        if (pending >= 0 && --skip == 0) {
            pg->code[pending].imm = pg->n;
            pending = -1;
        }
        if (pending < 0 && pg->n % 40 == 0) {   /* warp-uniform: depends on %ctaid only */
            ins(pg, J_SETP_LT_S32, 0, ctaid, kr[4 + rnd(4)], 0, 0, 0);
            pending = ins(pg, J_BRA, 0, 0, 0, 0, 0, 0);
            skip = 5 + rnd(10);
            continue;
        }
        int d = v[rnd(BIG_VARS)], a = v[rnd(BIG_VARS)], b = v[rnd(BIG_VARS)];
        int c = v[rnd(BIG_VARS)], k = kr[rnd(nk)];
        switch (rnd(12)) {
        case 0: ins(pg, J_ADD_S32, d, a, b, 0, 0, 0); break;
        case 1: ins(pg, J_MUL_LO_S32, d, a, k, 0, 0, 0); break;
        case 2: ins(pg, J_MAD_LO_S32, d, a, b, c, 0, 0); break;
        case 3: ins(pg, J_XOR_B32, d, a, b, 0, 0, 0); break;
        case 4: ins(pg, J_SHL_B32, d, a, kr[1 + rnd(5)], 0, 0, 0); break;
        case 5: ins(pg, J_MIN_S32, d, a, b, 0, 0, 0); break;
        case 6:
            ins(pg, J_SETP_LT_S32, 1, a, b, 0, 0, 0);
            ins(pg, J_SELP_B32, d, c, k, 0, 1, 0);
            break;
        case 7: ins(pg, J_ADD_F32, d, a, b, 0, 0, 0); break;
        case 8: ins(pg, J_MUL_F32, d, a, k, 0, 0, 0); break;
        case 9: case 10: ins(pg, J_FMA_F32, d, a, b, c, 0, 0); break;
        default:
            ins(pg, J_AND_B32, tmp, a, cmask, 0, 0, 0);
            ins(pg, J_LD_SHARED_F32, d, tmp, 0, 0, 0, 0);
            break;
        }
    }
    if (pending >= 0) pg->code[pending].imm = pg->n;
    for (int i = 1; i < BIG_VARS; i++) ins(pg, J_XOR_B32, v[0], v[0], v[i], 0, 0, 0);
    int t = var(pg), rd = var(pg);
    ins(pg, J_MAD_LO_S32, t, ctaid, c256, tid, 0, 0);
    ins(pg, J_MUL_WIDE_S32, rd, t, c4, 0, 0, 0);
    ins(pg, J_ADD_S64, rd, out, rd, 0, 0, 0);
    ins(pg, J_ST_GLOBAL_F32, v[0], rd, 0, 0, 0, 0);
    ins(pg, J_EXIT, 0, 0, 0, 0, 0, 0);
}

void prog_build(Prog *pg, int kernel)
{
    memset(pg, 0, sizeof *pg);
    pg->name = kernel_name[kernel];
    if (kernel == K_SAXPY) build_saxpy(pg);
    else if (kernel == K_MATMUL) build_matmul(pg);
    else build_big(pg);
}

void prog_free(Prog *pg) { free(pg->code); pg->code = NULL; }

/* ---- the interpreter: one handler per instruction, lane loops over rows ---- */

/* Next pc, -1 when the warp exits, -2 for what the harness's workloads never do (a
 * divergent branch, an access outside the checked block). */
typedef int (*Handler)(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc);
#define ROWP(r) (R + (size_t)(r) * W)
#define LANES _Pragma("GCC ivdep") for (int l = 0; l < W; l++)

#define DEF1(OP, F) static int h_##OP(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc) \
    { (void)P; (void)c; uint64_t *d = ROWP(in->d); const uint64_t *a = ROWP(in->a);      \
      do { LANES d[l] = F(a[l]); } while (0); return pc + 1; }
#define DEF2(OP, F) static int h_##OP(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc) \
    { (void)P; (void)c; uint64_t *d = ROWP(in->d);                                        \
      const uint64_t *a = ROWP(in->a), *b = ROWP(in->b);                                  \
      do { LANES d[l] = F(a[l], b[l]); } while (0); return pc + 1; }
#define DEF3(OP, F) static int h_##OP(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc) \
    { (void)P; (void)c; uint64_t *d = ROWP(in->d);                                        \
      const uint64_t *a = ROWP(in->a), *b = ROWP(in->b), *e = ROWP(in->c);                \
      do { LANES d[l] = F(a[l], b[l], e[l]); } while (0); return pc + 1; }
DEF1(MOV, sem_mov)
DEF2(ADD_S32, sem_add_s32)
DEF2(ADD_S64, sem_add_s64)
DEF2(MUL_LO_S32, sem_mul_lo_s32)
DEF3(MAD_LO_S32, sem_mad_lo_s32)
DEF2(MUL_WIDE_S32, sem_mul_wide_s32)
DEF2(SHL_B32, sem_shl_b32)
DEF2(XOR_B32, sem_xor_b32)
DEF2(AND_B32, sem_and_b32)
DEF2(MIN_S32, sem_min_s32)
DEF2(ADD_F32, sem_add_f32)
DEF2(MUL_F32, sem_mul_f32)
DEF3(FMA_F32, sem_fma_f32)

#define DEFSETP(OP, F) static int h_##OP(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc) \
    { (void)c; const uint64_t *a = ROWP(in->a), *b = ROWP(in->b); uint32_t m = 0;         \
      for (int l = 0; l < W; l++) m |= F(a[l], b[l]) << l;                                \
      P[in->p] = m; return pc + 1; }
DEFSETP(SETP_LT_S32, sem_lt_s32)
DEFSETP(SETP_GE_S32, sem_ge_s32)

static int h_SELP_B32(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)c;
    uint64_t *d = ROWP(in->d);
    const uint64_t *a = ROWP(in->a), *b = ROWP(in->b);
    uint32_t m = P[in->p];
    LANES d[l] = sem_selp_b32(a[l], b[l], m >> l & 1);
    return pc + 1;
}

static int h_LD_GLOBAL_F32(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)P;
    uint64_t *d = ROWP(in->d);
    const uint64_t *a = ROWP(in->a);
    uint64_t bad = 0;
    for (int l = 0; l < W; l++) {
        uint64_t x = a[l] + (uint64_t)(int64_t)in->imm;
        bad |= (x - c->glo > c->glim) | (x & 3);
    }
    if (bad) return -2;
    for (int l = 0; l < W; l++) {
        uint32_t v;
        memcpy(&v, (const void *)(uintptr_t)(a[l] + (uint64_t)(int64_t)in->imm), 4);
        d[l] = v;
    }
    return pc + 1;
}

static int h_ST_GLOBAL_F32(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)P;
    const uint64_t *s = ROWP(in->d), *a = ROWP(in->a);
    uint64_t bad = 0;
    for (int l = 0; l < W; l++) {
        uint64_t x = a[l] + (uint64_t)(int64_t)in->imm;
        bad |= (x - c->glo > c->glim) | (x & 3);
    }
    if (bad) return -2;
    for (int l = 0; l < W; l++) {
        uint32_t v = (uint32_t)s[l];
        memcpy((void *)(uintptr_t)(a[l] + (uint64_t)(int64_t)in->imm), &v, 4);
    }
    return pc + 1;
}

static int h_LD_SHARED_F32(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)P;
    uint64_t *d = ROWP(in->d);
    const uint64_t *a = ROWP(in->a);
    uint32_t off[W];
    uint64_t bad = 0;
    for (int l = 0; l < W; l++) {
        off[l] = (uint32_t)(a[l] + (uint64_t)(int64_t)in->imm);
        bad |= (off[l] > c->slim) | (off[l] & 3);
    }
    if (bad) return -2;
    for (int l = 0; l < W; l++) {
        uint32_t v;
        memcpy(&v, c->shared + off[l], 4);
        d[l] = v;
    }
    return pc + 1;
}

/* Taken by all lanes, by none, or divergent (not in these workloads). */
static int h_BRA(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)R; (void)c;
    uint32_t m = P[in->p];
    return m == 0xffffffffu ? in->imm : m == 0 ? pc + 1 : -2;
}

static int h_EXIT(uint64_t *R, uint32_t *P, const Ctx *c, const JInst *in, int pc)
{
    (void)R; (void)P; (void)c; (void)in; (void)pc;
    return -1;
}

static const Handler handlers[J_COUNT] = {
#define X(n, s) h_##n,
    JOPS(X)
#undef X
};

int interp_block(const Prog *pg, uint64_t *R, uint32_t *P, const Ctx *c, int pc)
{
    while (pc >= 0) {
        const JInst *in = &pg->code[pc];
        pc = handlers[in->op](R, P, c, in, pc);
    }
    return pc;
}

/* ---- workloads ---- */

struct Work {
    int kernel;
    const Prog *pg;
    uint32_t ncta, nwarps;      /* CTAs, warps per CTA */
    uint8_t *mem; size_t mem_size;
    float *x, *y, *out;         /* inside mem */
    size_t n, nout;
    float *x0, *y0;             /* saxpy's inputs, to reset y */
    uint8_t *shared; size_t shared_size;
    uint64_t *R; uint32_t *P;
    Ctx ctx;
};

static float frand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f - 0.5f;
}

static void *xalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (!p) die("out of memory");
    memset(p, 0, n);
    return p;
}

Work *work_new(int kernel, const Prog *pg, int scale)
{
    Work *wk = calloc(1, sizeof *wk);
    if (!wk) die("out of memory");
    wk->kernel = kernel;
    wk->pg = pg;
    wk->nwarps = 8;
    uint32_t seed = 1;
    if (kernel == K_SAXPY) {
        wk->n = (size_t)scale << 20;            /* floats of x and of y */
        wk->ncta = (uint32_t)(wk->n / 256);
        wk->mem_size = 2 * wk->n * 4;
    } else {
        wk->ncta = kernel == K_MATMUL ? 64u * scale : 32u * scale;
        wk->nout = (size_t)wk->ncta * 256;
        wk->mem_size = wk->nout * 4;
    }
    wk->mem = xalloc(wk->mem_size);
    if (kernel == K_SAXPY) {
        wk->x = (float *)wk->mem;
        wk->y = wk->x + wk->n;
        wk->x0 = xalloc(wk->n * 4);
        wk->y0 = xalloc(wk->n * 4);
        for (size_t i = 0; i < wk->n; i++) { wk->x0[i] = frand(&seed); wk->y0[i] = frand(&seed); }
    } else {
        wk->out = (float *)wk->mem;
    }
    wk->shared_size = kernel == K_MATMUL ? 2 * 16 * MM_KT * 4 : kernel == K_BIG ? 1024 : 4;
    wk->shared = xalloc(wk->shared_size);
    for (size_t i = 0; i < wk->shared_size / 4; i++) ((float *)wk->shared)[i] = frand(&seed);
    wk->R = xalloc((size_t)pg->nrows * W * 8);
    wk->P = xalloc((size_t)(pg->npreds + 1) * 4);
    wk->ctx = (Ctx){ .glo = (uint64_t)(uintptr_t)wk->mem, .glim = wk->mem_size - 4,
                     .shared = wk->shared, .slim = wk->shared_size - 4 };
    work_reset(wk);
    return wk;
}

void work_reset(Work *wk)
{
    if (wk->kernel == K_SAXPY) {
        memcpy(wk->x, wk->x0, wk->n * 4);
        memcpy(wk->y, wk->y0, wk->n * 4);
    } else {
        memset(wk->out, 0, wk->nout * 4);
    }
}

static void fill_row(uint64_t *R, int row, uint64_t v)
{
    if (row >= 0) for (int l = 0; l < W; l++) R[row * W + l] = v;
}

/* What the emulator does at a launch: constant and parameter rows once, %ctaid per CTA,
 * %tid per warp; then each warp runs from pc 0 (compiled, or interpreted). */
double work_run(Work *wk, BlockFn fn)
{
    const Prog *pg = wk->pg;
    uint64_t *R = wk->R;
    uint32_t *P = wk->P;
    for (int i = 0; i < pg->nconst; i++) fill_row(R, i, pg->cval[i]);
    if (wk->kernel == K_SAXPY) {
        float alpha = 1.5f;
        uint32_t ab;
        memcpy(&ab, &alpha, 4);
        fill_row(R, pg->row_param[0], wk->n);
        fill_row(R, pg->row_param[1], ab);
        fill_row(R, pg->row_param[2], (uint64_t)(uintptr_t)wk->x);
        fill_row(R, pg->row_param[3], (uint64_t)(uintptr_t)wk->y);
        fill_row(R, pg->row_param[4], 256);
    } else if (wk->kernel == K_MATMUL) {
        fill_row(R, pg->row_param[0], MM_KT);
        fill_row(R, pg->row_param[1], (uint64_t)(uintptr_t)wk->out);
    } else {
        fill_row(R, pg->row_param[0], (uint64_t)(uintptr_t)wk->out);
    }
    double t0 = thread_s();
    for (uint32_t cta = 0; cta < wk->ncta; cta++) {
        fill_row(R, pg->row_ctaid, cta);
        for (uint32_t w = 0; w < wk->nwarps; w++) {
            for (int l = 0; l < W; l++) {
                if (wk->kernel == K_MATMUL) {
                    R[pg->row_tidx * W + l] = l % 16;
                    R[pg->row_tidy * W + l] = 2 * w + l / 16;
                } else {
                    R[pg->row_tidx * W + l] = w * W + l;
                }
            }
            int r = fn ? fn(R, P, &wk->ctx) : interp_block(pg, R, P, &wk->ctx, 0);
            if (r >= 0) r = interp_block(pg, R, P, &wk->ctx, r);   /* handed back */
            if (r != -1) die("a warp diverged or accessed memory outside its block");
        }
    }
    return thread_s() - t0;
}

double work_native(Work *wk)
{
    double t0 = thread_s();
    if (wk->kernel == K_SAXPY) {
        native_saxpy((int)wk->n, 1.5f, wk->x, wk->y);
    } else if (wk->kernel == K_MATMUL) {
        const float *as = (const float *)wk->shared, *bs = as + 16 * MM_KT;
        for (uint32_t cta = 0; cta < wk->ncta; cta++)
            native_matmul_tile(MM_KT, MM_KT, as, bs, wk->out + (size_t)cta * 256);
    } else {
        return -1;      /* no hand-written form: the generated body is the computation */
    }
    return thread_s() - t0;
}

uint64_t work_digest(const Work *wk)
{
    const uint8_t *p = wk->kernel == K_SAXPY ? (const uint8_t *)wk->y : (const uint8_t *)wk->out;
    size_t n = wk->kernel == K_SAXPY ? wk->n * 4 : wk->nout * 4;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

void work_free(Work *wk)
{
    free(wk->mem); free(wk->x0); free(wk->y0); free(wk->shared); free(wk->R); free(wk->P);
    free(wk);
}
