/* emit_llvm.c - backend (c): LLVM IR text, parsed in process, optimised with the new pass
 * manager and compiled by ORC's LLJIT, through LLVM's C API (LLVM 15).
 *
 * LLVM IR has vector types, so a 32-lane instruction is written as one operation on
 * <32 x i32>/<32 x float>/<32 x i64> values (no loop for a vectorizer to find): a row is a
 * <32 x i64> load or store at R + row * 256 bytes, a predicate a <32 x i1> <-> i32 bitcast,
 * a gather llvm.masked.gather. The backend splits the vectors to the host's width.
 */
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jitcmp.h"

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

typedef struct E { Buf b; const Prog *pg; int t; } E;    /* t: next SSA number */

/* A splat constant "<T v, T v, ...>" (the operand's type is written before it). */
static void splat(E *e, const char *ty, long long v)
{
    bprintf(&e->b, "<");
    for (int l = 0; l < W; l++) bprintf(&e->b, "%s%s %lld", l ? ", " : "", ty, v);
    bprintf(&e->b, ">");
}

/* Loads row r as <32 x i64> into a new value (a splat for a constant row); returns it. */
static int ld_row(E *e, int r)
{
    int t = e->t++;
    if (r < e->pg->nconst) {
        bprintf(&e->b, "  %%v%d = add <32 x i64> zeroinitializer, ", t);
        splat(e, "i64", (long long)e->pg->cval[r]);
        bprintf(&e->b, "\n");
        return t;
    }
    bprintf(&e->b, "  %%p%d = getelementptr i64, ptr %%R, i64 %d\n"
                   "  %%v%d = load <32 x i64>, ptr %%p%d, align 8\n", t, r * W, t, t);
    return t;
}
static void st_row(E *e, int r, int v)
{
    int t = e->t++;
    bprintf(&e->b, "  %%p%d = getelementptr i64, ptr %%R, i64 %d\n"
                   "  store <32 x i64> %%v%d, ptr %%p%d, align 8\n", t, r * W, v, t);
}
/* Value conversions, each a new SSA value. */
static int conv(E *e, const char *op, const char *from, int v, const char *to)
{
    int t = e->t++;
    bprintf(&e->b, "  %%v%d = %s <32 x %s> %%v%d to <32 x %s>\n", t, op, from, v, to);
    return t;
}
static int lo32(E *e, int r) { return conv(e, "trunc", "i64", ld_row(e, r), "i32"); }
static int f32(E *e, int r) { return conv(e, "bitcast", "i32", lo32(e, r), "float"); }
static int op2(E *e, const char *op, const char *ty, int a, int b)
{
    int t = e->t++;
    bprintf(&e->b, "  %%v%d = %s <32 x %s> %%v%d, %%v%d\n", t, op, ty, a, b);
    return t;
}
static void st32(E *e, int d, int v) { st_row(e, d, conv(e, "zext", "i32", v, "i64")); }
/* f32 result: NaN becomes the canonical 0x7fffffff. */
static void stf(E *e, int d, int f)
{
    int u = conv(e, "bitcast", "float", f, "i32");
    int nan = e->t++, t = e->t++;
    bprintf(&e->b, "  %%v%d = fcmp uno <32 x float> %%v%d, %%v%d\n", nan, f, f);
    bprintf(&e->b, "  %%v%d = select <32 x i1> %%v%d, <32 x i32> ", t, nan);
    splat(e, "i32", 0x7fffffff);
    bprintf(&e->b, ", <32 x i32> %%v%d\n", u);
    st32(e, d, t);
}
static int ld_pred(E *e, int p)
{
    int t = e->t++;
    bprintf(&e->b, "  %%q%d = getelementptr i32, ptr %%P, i64 %d\n"
                   "  %%i%d = load i32, ptr %%q%d, align 4\n", t, p, t, t);
    return t;
}

/* The per-warp check; leaves %v<x> the lanes' addresses (i64) and branches to the access
 * (contiguous or gathered) or hands the instruction back. Returns x. */
static int check(E *e, const JInst *in, int pc, int shared, int *x0)
{
    int a = ld_row(e, in->a), x = e->t++, oob = e->t++, mis = e->t++, bad = e->t++, any = e->t++;
    bprintf(&e->b, "  %%v%d = add <32 x i64> %%v%d, ", x, a);
    splat(e, "i64", in->imm);
    bprintf(&e->b, "\n");
    if (shared) {
        int y = conv(e, "trunc", "i64", x, "i32");
        int z = conv(e, "zext", "i32", y, "i64");
        bprintf(&e->b, "  %%v%d = icmp ugt <32 x i64> %%v%d, %%slimv\n", oob, z);
        x = z;
    } else {
        int rel = e->t++;
        bprintf(&e->b, "  %%v%d = sub <32 x i64> %%v%d, %%glov\n", rel, x);
        bprintf(&e->b, "  %%v%d = icmp ugt <32 x i64> %%v%d, %%glimv\n", oob, rel);
    }
    int al = e->t++;
    bprintf(&e->b, "  %%v%d = and <32 x i64> %%v%d, ", al, x);
    splat(e, "i64", 3);
    bprintf(&e->b, "\n  %%v%d = icmp ne <32 x i64> %%v%d, zeroinitializer\n", mis, al);
    bprintf(&e->b, "  %%v%d = or <32 x i1> %%v%d, %%v%d\n", bad, oob, mis);
    bprintf(&e->b, "  %%v%d = call i1 @llvm.vector.reduce.or.v32i1(<32 x i1> %%v%d)\n", any, bad);
    /* consecutive: x[l] == x[0] + 4 l */
    int b0 = e->t++, bs = e->t++, ex = e->t++, ne = e->t++, nonaff = e->t++;
    bprintf(&e->b, "  %%v%d = extractelement <32 x i64> %%v%d, i64 0\n", b0, x);
    bprintf(&e->b, "  %%v%d = insertelement <32 x i64> poison, i64 %%v%d, i64 0\n", bs, b0);
    int sp = e->t++;
    bprintf(&e->b, "  %%v%d = shufflevector <32 x i64> %%v%d, <32 x i64> poison, <32 x i32> zeroinitializer\n", sp, bs);
    bprintf(&e->b, "  %%v%d = add <32 x i64> %%v%d, <", ex, sp);
    for (int l = 0; l < W; l++) bprintf(&e->b, "%si64 %d", l ? ", " : "", 4 * l);
    bprintf(&e->b, ">\n  %%v%d = icmp ne <32 x i64> %%v%d, %%v%d\n", ne, x, ex);
    bprintf(&e->b, "  %%v%d = call i1 @llvm.vector.reduce.or.v32i1(<32 x i1> %%v%d)\n", nonaff, ne);
    bprintf(&e->b, "  br i1 %%v%d, label %%back%d, label %%ok%d\n"
                   "back%d:\n  ret i32 %d\nok%d:\n"
                   "  br i1 %%v%d, label %%gath%d, label %%cont%d\n",
            any, pc, pc, pc, pc, pc, nonaff, pc, pc);
    *x0 = b0;
    return x;
}

/* A host pointer for each lane: global addresses as they are, shared offsets from the base. */
static int lane_ptrs(E *e, int x, int shared)
{
    int t = e->t++;
    if (shared) bprintf(&e->b, "  %%v%d = getelementptr i8, ptr %%shared, <32 x i64> %%v%d\n", t, x);
    else bprintf(&e->b, "  %%v%d = inttoptr <32 x i64> %%v%d to <32 x ptr>\n", t, x);
    return t;
}
static int base_ptr(E *e, int x0, int shared)
{
    int t = e->t++;
    if (shared) bprintf(&e->b, "  %%v%d = getelementptr i8, ptr %%shared, i64 %%v%d\n", t, x0);
    else bprintf(&e->b, "  %%v%d = inttoptr i64 %%v%d to ptr\n", t, x0);
    return t;
}

static void emit_mem(E *e, const JInst *in, int pc)
{
    int sh = in->op == J_LD_SHARED_F32, x0;
    int x = check(e, in, pc, sh, &x0);
    if (in->op == J_ST_GLOBAL_F32) {
        bprintf(&e->b, "cont%d:\n", pc);
        int v = lo32(e, in->d), p = base_ptr(e, x0, 0);
        bprintf(&e->b, "  store <32 x i32> %%v%d, ptr %%v%d, align 4\n  br label %%next%d\ngath%d:\n",
                v, p, pc, pc);
        /* a scatter writes lanes in order, as the interpreter does: the highest lane of
         * lanes with one address wins */
        int v2 = lo32(e, in->d), ps = lane_ptrs(e, x, 0);
        bprintf(&e->b, "  call void @llvm.masked.scatter.v32i32.v32p0(<32 x i32> %%v%d, <32 x ptr> %%v%d,"
                       " i32 4, <32 x i1> <", v2, ps);
        for (int l = 0; l < W; l++) bprintf(&e->b, "%si1 true", l ? ", " : "");
        bprintf(&e->b, ">)\n  br label %%next%d\nnext%d:\n", pc, pc);
        return;
    }
    bprintf(&e->b, "cont%d:\n", pc);
    int p = base_ptr(e, x0, sh), v = e->t++;
    bprintf(&e->b, "  %%v%d = load <32 x i32>, ptr %%v%d, align 4\n", v, p);
    st32(e, in->d, v);
    bprintf(&e->b, "  br label %%next%d\ngath%d:\n", pc, pc);
    int ps = lane_ptrs(e, x, sh), g = e->t++;
    bprintf(&e->b, "  %%v%d = call <32 x i32> @llvm.masked.gather.v32i32.v32p0(<32 x ptr> %%v%d,"
                   " i32 4, <32 x i1> <", g, ps);
    for (int l = 0; l < W; l++) bprintf(&e->b, "%si1 true", l ? ", " : "");
    bprintf(&e->b, ">, <32 x i32> poison)\n");
    st32(e, in->d, g);
    bprintf(&e->b, "  br label %%next%d\nnext%d:\n", pc, pc);
}

static void emit_inst(E *e, const JInst *in, int pc)
{
    switch (in->op) {
    case J_MOV: st_row(e, in->d, ld_row(e, in->a)); break;
    case J_ADD_S64: st_row(e, in->d, op2(e, "add", "i64", ld_row(e, in->a), ld_row(e, in->b))); break;
    case J_ADD_S32: st32(e, in->d, op2(e, "add", "i32", lo32(e, in->a), lo32(e, in->b))); break;
    case J_MUL_LO_S32: st32(e, in->d, op2(e, "mul", "i32", lo32(e, in->a), lo32(e, in->b))); break;
    case J_XOR_B32: st32(e, in->d, op2(e, "xor", "i32", lo32(e, in->a), lo32(e, in->b))); break;
    case J_AND_B32: st32(e, in->d, op2(e, "and", "i32", lo32(e, in->a), lo32(e, in->b))); break;
    case J_MAD_LO_S32:
        st32(e, in->d, op2(e, "add", "i32", op2(e, "mul", "i32", lo32(e, in->a), lo32(e, in->b)),
                           lo32(e, in->c)));
        break;
    case J_MUL_WIDE_S32:
        st_row(e, in->d, op2(e, "mul", "i64", conv(e, "sext", "i32", lo32(e, in->a), "i64"),
                             conv(e, "sext", "i32", lo32(e, in->b), "i64")));
        break;
    case J_SHL_B32: {   /* counts above 31 give 0 (shl by them is poison in IR) */
        int a = lo32(e, in->a), s = lo32(e, in->b), sh = op2(e, "shl", "i32", a, s);
        int big = e->t++, r = e->t++;
        bprintf(&e->b, "  %%v%d = icmp ugt <32 x i32> %%v%d, ", big, s);
        splat(e, "i32", 31);
        bprintf(&e->b, "\n  %%v%d = select <32 x i1> %%v%d, <32 x i32> zeroinitializer, <32 x i32> %%v%d\n",
                r, big, sh);
        st32(e, in->d, r);
        break;
    }
    case J_MIN_S32: {
        int t = e->t++, a = lo32(e, in->a), b = lo32(e, in->b);
        bprintf(&e->b, "  %%v%d = call <32 x i32> @llvm.smin.v32i32(<32 x i32> %%v%d, <32 x i32> %%v%d)\n",
                t, a, b);
        st32(e, in->d, t);
        break;
    }
    case J_SETP_LT_S32: case J_SETP_GE_S32: {
        int a = lo32(e, in->a), b = lo32(e, in->b), c = e->t++, m = e->t++, q = e->t++;
        bprintf(&e->b, "  %%v%d = icmp %s <32 x i32> %%v%d, %%v%d\n", c,
                in->op == J_SETP_LT_S32 ? "slt" : "sge", a, b);
        bprintf(&e->b, "  %%v%d = bitcast <32 x i1> %%v%d to i32\n", m, c);
        bprintf(&e->b, "  %%q%d = getelementptr i32, ptr %%P, i64 %d\n"
                       "  store i32 %%v%d, ptr %%q%d, align 4\n", q, in->p, m, q);
        break;
    }
    case J_SELP_B32: {
        int p = ld_pred(e, in->p), m = e->t++, r = e->t++, a = lo32(e, in->a), b = lo32(e, in->b);
        bprintf(&e->b, "  %%v%d = bitcast i32 %%i%d to <32 x i1>\n", m, p);
        bprintf(&e->b, "  %%v%d = select <32 x i1> %%v%d, <32 x i32> %%v%d, <32 x i32> %%v%d\n", r, m, a, b);
        st32(e, in->d, r);
        break;
    }
    case J_ADD_F32: stf(e, in->d, op2(e, "fadd", "float", f32(e, in->a), f32(e, in->b))); break;
    case J_MUL_F32: stf(e, in->d, op2(e, "fmul", "float", f32(e, in->a), f32(e, in->b))); break;
    case J_FMA_F32: {
        int a = f32(e, in->a), b = f32(e, in->b), c = f32(e, in->c), t = e->t++;
        bprintf(&e->b, "  %%v%d = call <32 x float> @llvm.fma.v32f32(<32 x float> %%v%d, "
                       "<32 x float> %%v%d, <32 x float> %%v%d)\n", t, a, b, c);
        stf(e, in->d, t);
        break;
    }
    case J_LD_GLOBAL_F32: case J_ST_GLOBAL_F32: case J_LD_SHARED_F32:
        emit_mem(e, in, pc);
        break;
    case J_BRA: {
        int p = ld_pred(e, in->p), all = e->t++, none = e->t++;
        bprintf(&e->b, "  %%v%d = icmp eq i32 %%i%d, -1\n"
                       "  br i1 %%v%d, label %%L%d, label %%nall%d\nnall%d:\n"
                       "  %%v%d = icmp eq i32 %%i%d, 0\n"
                       "  br i1 %%v%d, label %%fall%d, label %%div%d\ndiv%d:\n  ret i32 %d\nfall%d:\n",
                all, p, all, in->imm, pc, pc, none, p, none, pc, pc, pc, pc, pc);
        break;
    }
    case J_EXIT:
        bprintf(&e->b, "  ret i32 -1\ndead%d:\n", pc);
        break;
    }
}

char *llvm_emit_text(const Prog *pg, const char *fname)
{
    E e = { .pg = pg };
    char *target = calloc(pg->n + 1, 1);
    for (int i = 0; i < pg->n; i++)
        if (pg->code[i].op == J_BRA) target[pg->code[i].imm] = 1;
    bprintf(&e.b,
        "declare <32 x float> @llvm.fma.v32f32(<32 x float>, <32 x float>, <32 x float>)\n"
        "declare <32 x i32> @llvm.smin.v32i32(<32 x i32>, <32 x i32>)\n"
        "declare i1 @llvm.vector.reduce.or.v32i1(<32 x i1>)\n"
        "declare <32 x i32> @llvm.masked.gather.v32i32.v32p0(<32 x ptr>, i32, <32 x i1>, <32 x i32>)\n"
        "declare void @llvm.masked.scatter.v32i32.v32p0(<32 x i32>, <32 x ptr>, i32, <32 x i1>)\n"
        "define i32 @%s(ptr noalias %%R, ptr noalias %%P, ptr noalias %%C) {\nentry:\n"
        "  %%glo = load i64, ptr %%C, align 8\n"
        "  %%c1 = getelementptr i64, ptr %%C, i64 1\n  %%glim = load i64, ptr %%c1, align 8\n"
        "  %%c2 = getelementptr i64, ptr %%C, i64 2\n  %%shared = load ptr, ptr %%c2, align 8\n"
        "  %%c3 = getelementptr i64, ptr %%C, i64 3\n  %%slim = load i64, ptr %%c3, align 8\n"
        "  %%g0 = insertelement <32 x i64> poison, i64 %%glo, i64 0\n"
        "  %%glov = shufflevector <32 x i64> %%g0, <32 x i64> poison, <32 x i32> zeroinitializer\n"
        "  %%g1 = insertelement <32 x i64> poison, i64 %%glim, i64 0\n"
        "  %%glimv = shufflevector <32 x i64> %%g1, <32 x i64> poison, <32 x i32> zeroinitializer\n"
        "  %%g2 = insertelement <32 x i64> poison, i64 %%slim, i64 0\n"
        "  %%slimv = shufflevector <32 x i64> %%g2, <32 x i64> poison, <32 x i32> zeroinitializer\n"
        "  br label %%L0\nL0:\n", fname);
    for (int i = 0; i < pg->n; i++) {
        if (target[i] && i) bprintf(&e.b, "  br label %%L%d\nL%d:\n", i, i);
        emit_inst(&e, &pg->code[i], i);
    }
    bprintf(&e.b, "  ret i32 -1\n}\n");
    free(target);
    return e.b.s;
}

/* ---- ORC ---- */

/* One LLJIT per backend variant (the JIT's target machine fixes the CPU and the codegen
 * level), created once per process like the emulator would. */
typedef struct Jit { LLVMOrcLLJITRef jit; LLVMTargetMachineRef tm; } Jit;
static Jit jits[8];

static void fail(const char *what, LLVMErrorRef err)
{
    char *m = LLVMGetErrorMessage(err);
    fprintf(stderr, "jitcmp: llvm: %s: %s\n", what, m);
    LLVMDisposeErrorMessage(m);
}

static LLVMTargetMachineRef make_tm(const char *cpu_opt, int level)
{
    char *triple = LLVMGetDefaultTargetTriple(), *err = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        fprintf(stderr, "jitcmp: llvm: %s\n", err);
        exit(1);
    }
    char *cpu = NULL, *feat = NULL;
    if (!strcmp(cpu_opt, "native")) { cpu = LLVMGetHostCPUName(); feat = LLVMGetHostCPUFeatures(); }
    LLVMCodeGenOptLevel cg = level >= 2 ? LLVMCodeGenLevelDefault : level == 1 ? LLVMCodeGenLevelLess
                                                                              : LLVMCodeGenLevelNone;
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu ? cpu : cpu_opt,
                                                      feat ? feat : "", cg, LLVMRelocPIC,
                                                      LLVMCodeModelJITDefault);
    LLVMDisposeMessage(triple);
    if (cpu) LLVMDisposeMessage(cpu);
    if (feat) LLVMDisposeMessage(feat);
    return tm;
}

static Jit *jit_for(const Backend *be)
{
    int i = (int)(be - llvm_backends);
    Jit *j = &jits[i];
    if (j->jit) return j;
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();
    j->tm = make_tm(be->opt, be->level);
    LLVMOrcJITTargetMachineBuilderRef jtmb =
        LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(make_tm(be->opt, be->level));
    LLVMOrcLLJITBuilderRef bld = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(bld, jtmb);
    LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, bld);
    if (err) { fail("LLJIT", err); exit(1); }
    return j;
}

double llvm_setup_ms(void)
{
    double t0 = now_ms();
    jit_for(&llvm_backends[0]);
    double t = now_ms() - t0;
    char *cpu = LLVMGetHostCPUName();
    printf("setup: llvm_host_cpu=%s\n", cpu);
    LLVMDisposeMessage(cpu);
    return t;
}

/* The cache file of a program: the same key as the C backend's (decoded program, flags). */
static void obj_path(const Backend *be, const Prog *pg, char *path, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    const uint8_t *p = (const uint8_t *)pg->code;
    for (size_t i = 0; i < (size_t)pg->n * sizeof *pg->code; i++) h = (h ^ p[i]) * 1099511628211ull;
    for (int i = 0; i < pg->nconst; i++) h = (h ^ pg->cval[i]) * 1099511628211ull;
    h = (h ^ (uint64_t)be->level) * 1099511628211ull;
    for (const char *s = be->opt; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    const char *dir = getenv("JITCMP_CACHE") ? getenv("JITCMP_CACHE") : "/tmp/jitcmp-cache";
    snprintf(path, n, "%s/%016llx.o", dir, (unsigned long long)h);
}

/* Adds an object file to the JIT under a resource tracker of its own (release() removes
 * it, so the same symbol can be loaded again) and looks the block up. */
static BlockFn add_object(Jit *j, const Prog *pg, LLVMMemoryBufferRef obj, void **handle)
{
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->jit);
    LLVMOrcResourceTrackerRef rt = LLVMOrcJITDylibCreateResourceTracker(jd);
    LLVMErrorRef err = LLVMOrcLLJITAddObjectFileWithRT(j->jit, rt, obj);   /* takes obj */
    if (err) { fail("add", err); exit(1); }
    char fname[64];
    snprintf(fname, sizeof fname, "block_%s", pg->name);
    LLVMOrcExecutorAddress addr;
    err = LLVMOrcLLJITLookup(j->jit, &addr, fname);             /* links the object here */
    if (err) { fail("lookup", err); exit(1); }
    *handle = rt;
    return (BlockFn)(uintptr_t)addr;
}

/* text -> parse -> passes -> object in memory (written to the cache) -> JIT-linked. The
 * object goes through the TargetMachine rather than LLJIT's IR layer so that it can be
 * cached: the C API has no ObjectCache hook. */
static BlockFn ll_compile(const Backend *be, const Prog *pg, void **handle,
                          double *emit_ms, double *compile_ms, double *load_ms)
{
    Jit *j = jit_for(be);
    char fname[64];
    snprintf(fname, sizeof fname, "block_%s", pg->name);
    double t0 = now_ms();
    char *text = llvm_emit_text(pg, fname);
    double t1 = now_ms();
    LLVMContextRef cx = LLVMContextCreate();
    LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(text, strlen(text), "jit");
    free(text);
    LLVMModuleRef m;
    char *msg = NULL;
    if (LLVMParseIRInContext(cx, mb, &m, &msg)) {          /* takes mb */
        fprintf(stderr, "jitcmp: llvm: parse: %s\n", msg);
        exit(1);
    }
    if (be->level > 0) {
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        LLVMErrorRef err = LLVMRunPasses(m, be->level >= 2 ? "default<O2>" : "default<O1>", j->tm, po);
        LLVMDisposePassBuilderOptions(po);
        if (err) { fail("passes", err); exit(1); }
    }
    LLVMMemoryBufferRef obj;
    if (LLVMTargetMachineEmitToMemoryBuffer(j->tm, m, LLVMObjectFile, &msg, &obj)) {
        fprintf(stderr, "jitcmp: llvm: codegen: %s\n", msg);
        exit(1);
    }
    LLVMDisposeModule(m);
    LLVMContextDispose(cx);
    double t2 = now_ms();
    char path[300];
    obj_path(be, pg, path, sizeof path);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(LLVMGetBufferStart(obj), 1, LLVMGetBufferSize(obj), f);
        fclose(f);
        snprintf(last_object, sizeof last_object, "%s", path);
    }
    BlockFn fn = add_object(j, pg, obj, handle);
    double t3 = now_ms();
    *emit_ms = t1 - t0;
    *compile_ms = t2 - t1;   /* parse + passes + codegen */
    *load_ms = t3 - t2;      /* cache write + JIT link */
    return fn;
}

BlockFn llvm_cache_lookup(const Backend *be, const Prog *pg, void **handle, double *hash_ms,
                          double *load_ms)
{
    Jit *j = jit_for(be);
    char path[300];
    double t0 = now_ms();
    obj_path(be, pg, path, sizeof path);
    LLVMMemoryBufferRef obj;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &obj, &msg)) { LLVMDisposeMessage(msg); return NULL; }
    double t1 = now_ms();
    BlockFn fn = add_object(j, pg, obj, handle);
    *hash_ms = t1 - t0;
    *load_ms = now_ms() - t1;
    return fn;
}

static void ll_release(void *h)
{
    if (!h) return;
    LLVMErrorRef err = LLVMOrcResourceTrackerRemove(h);
    if (err) fail("remove", err);
    LLVMOrcReleaseResourceTracker(h);
}


const Backend llvm_backends[] = {
    { "llvm -O2 native", "llvm", ll_compile, ll_release, "native", 2 },
    { "llvm -O1 native", "llvm", ll_compile, ll_release, "native", 1 },
    { "llvm -O0 native", "llvm", ll_compile, ll_release, "native", 0 },
    { "llvm -O2 avx2", "llvm", ll_compile, ll_release, "haswell", 2 },
};
const int n_llvm_backends = sizeof llvm_backends / sizeof llvm_backends[0];
