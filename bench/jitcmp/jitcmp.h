/* jitcmp.h - the prototype's decoded form, the ABI of a compiled block, and the backends.
 *
 * A cut-down copy of what the emulator runs (emu/inst.h, emu/machine.h): a warp's registers
 * are lane-contiguous 64-bit rows R[row * 32 + lane], predicates 32-bit lane masks in P[],
 * each instruction names its rows and, for an address, a byte offset. Rows below
 * Prog.nconst are constants known at translation (immediates), as the translator's constant
 * rows are; every other row (parameters, %tid, %ctaid included) is a value of the run.
 *
 * A compiled block runs one full warp from pc 0 and returns -1 when the warp exits, or the
 * pc of an instruction it hands back to the interpreter unexecuted (a divergent branch, an
 * access that fails the per-warp check): registers are up to date at that pc, so the
 * interpreter's handler can go on from there and report the fault as it does today.
 */
#ifndef JITCMP_H
#define JITCMP_H

#include <stdint.h>

#define W 32                    /* lanes of a warp */

/* opcode, PTX spelling */
#define JOPS(X)                                                                         \
    X(MOV, "mov.b64")           X(ADD_S32, "add.s32")       X(ADD_S64, "add.s64")       \
    X(MUL_LO_S32, "mul.lo.s32") X(MAD_LO_S32, "mad.lo.s32") X(MUL_WIDE_S32, "mul.wide.s32") \
    X(SHL_B32, "shl.b32")       X(XOR_B32, "xor.b32")       X(AND_B32, "and.b32")       \
    X(MIN_S32, "min.s32")       X(SETP_LT_S32, "setp.lt.s32") X(SETP_GE_S32, "setp.ge.s32") \
    X(SELP_B32, "selp.b32")     X(ADD_F32, "add.rn.f32")    X(MUL_F32, "mul.rn.f32")    \
    X(FMA_F32, "fma.rn.f32")    X(LD_GLOBAL_F32, "ld.global.f32")                       \
    X(ST_GLOBAL_F32, "st.global.f32") X(LD_SHARED_F32, "ld.shared.f32")                 \
    X(BRA, "@p bra")            X(EXIT, "exit")

enum {
#define X(n, s) J_##n,
    JOPS(X)
#undef X
    J_COUNT
};
extern const char *const jop_name[J_COUNT];

/* One decoded instruction. d: destination row (st: the value row); a, b, c: source rows;
 * p: predicate written (setp) or read (selp, bra); imm: byte offset of an address, or the
 * branch target pc. */
typedef struct JInst {
    uint8_t op, p;
    uint16_t d, a, b, c;
    int32_t imm;
} JInst;

#define MAX_CONST 64
typedef struct Prog {
    const char *name;
    JInst *code;
    int n, cap;
    int nrows, npreds;
    int nconst;                 /* rows [0, nconst) hold cval[] in every lane */
    uint64_t cval[MAX_CONST];
    /* rows the launch fills, as the emulator fills %tid, %ctaid and parameter rows */
    int row_tidx, row_tidy, row_ctaid, row_param[6];
} Prog;

/* What a block needs from the machine besides the warp: the global block every access of
 * the launch falls in (the emulator's one-entry cache of arena_fast), and the CTA's shared
 * memory. An access outside them goes back to the interpreter. */
typedef struct Ctx {
    uint64_t glo, glim;         /* global: addresses [glo, glo + glim] may start a 4-byte access */
    const uint8_t *shared;
    uint64_t slim;              /* shared: offsets [0, slim] may start a 4-byte access */
} Ctx;

typedef int (*BlockFn)(uint64_t *R, uint32_t *P, const Ctx *c);

/* ---- kernels.c: the three programs, their workloads, the interpreter ---- */
enum { K_SAXPY, K_MATMUL, K_BIG, K_COUNT };
extern const char *const kernel_name[K_COUNT];
void prog_build(Prog *pg, int kernel);
void prog_free(Prog *pg);

/* The fixed workload of a kernel: its memory, its launch shape, a checksum of the result. */
typedef struct Work Work;
Work *work_new(int kernel, const Prog *pg, int scale);
void work_reset(Work *wk);            /* inputs back to their initial values */
/* Runs every warp of the launch through fn (NULL: the interpreter); returns the seconds. */
double work_run(Work *wk, BlockFn fn);
double work_native(Work *wk);         /* the same computation written in C (native.c) */
uint64_t work_digest(const Work *wk); /* hash of the output bytes */
void work_free(Work *wk);
int interp_block(const Prog *pg, uint64_t *R, uint32_t *P, const Ctx *c, int pc);

/* ---- native.c: the computations as a C programmer writes them ---- */
void native_saxpy(int n, float alpha, const float *x, float *y);
void native_matmul_tile(int kt, int k, const float *as, const float *bs, float *out);

/* ---- the backends ---- */
typedef struct Backend {
    const char *name;           /* e.g. "cc -O2 avx2" */
    const char *family;         /* "c", "gccjit", "llvm" */
    /* Compile pg into a callable block; *handle gets what release() frees. Fills the
     * phases it can tell apart (ms): emit (building text or API calls), compile, load. */
    BlockFn (*compile)(const struct Backend *b, const Prog *pg, void **handle,
                       double *emit_ms, double *compile_ms, double *load_ms);
    void (*release)(void *handle);
    const char *opt;            /* backend-specific: flags or level */
    int level;
} Backend;

extern const Backend c_backends[];      extern const int n_c_backends;
extern const Backend gccjit_backends[]; extern const int n_gccjit_backends;
extern const Backend llvm_backends[];   extern const int n_llvm_backends;

/* The on-disk caches alone: emit_c.c (hash, find the .so, dlopen, dlsym), emit_llvm.c
 * (hash, read the object file, JIT-link it) */
BlockFn c_cache_lookup(const Backend *b, const Prog *pg, void **handle, double *hash_ms,
                       double *load_ms);
BlockFn llvm_cache_lookup(const Backend *b, const Prog *pg, void **handle, double *hash_ms,
                          double *load_ms);
/* emit_c.c, emit_llvm.c: the generated text, for inspection (caller frees) */
char *c_emit_text(const Backend *b, const Prog *pg);
char *llvm_emit_text(const Prog *pg, const char *fname);
/* one-time cost of a process: creating the first LLJIT (ms; loading the library is
 * measured by loadcost.c) */
double llvm_setup_ms(void);

/* the file the last compile wrote (the .so or object), "" when none */
extern char last_object[300];
double now_ms(void);
double cpu_ms(void);

#endif
