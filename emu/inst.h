/* inst.h - the decoded instruction: what translation produces and the interpreter runs.
 *
 * Contract: every Inst carries its handler `fn`, chosen once at translation by the opcode's
 * binder from its types and modifiers, and fully resolved operands: register rows (immediates
 * and per-warp constants such as %tid.x are rows too, filled when a warp starts), a base row
 * plus byte offset for addresses, and a pc for branch targets. Handlers never look at text.
 */
#ifndef PTXEMU_INST_H
#define PTXEMU_INST_H

#include <stdint.h>
#include <stddef.h>
#include "../frontend/ptx_ast.h"

typedef struct Warp Warp;
typedef struct Inst Inst;

/* What a handler returns to the run loop. */
enum {
    STEP_NEXT = 0,   /* go on at pc+1 (the common case)                                    */
    STEP_JUMP,       /* the handler set the lanes' next pc itself (bra, call, ret)          */
    STEP_BLOCK,      /* the running lanes wait (barrier, warp sync); pc already advanced     */
    STEP_EXIT,       /* the running lanes have exited                                       */
    STEP_FAULT,      /* a fault was recorded with warp_fault(); the kernel is aborted       */
    STEP_YIELD       /* pc already advanced; end this warp's turn (a failed mbarrier wait)  */
};

/* mask: the lanes that execute (active group AND guard predicate). Never 0 when called
 * for ordinary instructions; control handlers may be called with 0 (a guarded branch
 * nobody takes) and must handle it. */
typedef int (*Handler)(Warp *w, const Inst *in, uint32_t mask);

/* Modifiers an instruction may carry, declared once. The translator sets bits in
 * InstDesc.mods; binders test them with desc_has(). */
#define PTX_MODS(X) \
    X(RN) X(RZ) X(RM) X(RP) X(RNI) X(RZI) X(RMI) X(RPI) X(RNA) X(RS) \
    X(FTZ) X(SAT) X(APPROX) X(FULL) X(NAN) X(XORSIGN) X(ABS) X(RELU) X(SATFINITE) \
    X(HI) X(LO) X(WIDE) X(CC) \
    X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(LS) X(HS) \
    X(EQU) X(NEU) X(LTU) X(LEU) X(GTU) X(GEU) X(NUM) \
    X(AND) X(OR) X(XOR) X(NOT) \
    X(ADD) X(MIN) X(MAX) X(INC) X(DEC) X(CAS) X(EXCH) X(POPC) X(RED) \
    X(UP) X(DOWN) X(BFLY) X(IDX) \
    X(ALL) X(ANY) X(UNI) X(BALLOT) \
    X(SYNC) X(ALIGNED) X(ARRIVE) X(WARP) X(POS) \
    X(CA) X(CG) X(CS) X(LU) X(CV) X(WB) X(WT) X(NC) X(VOLATILE) \
    X(RELAXED) X(ACQUIRE) X(RELEASE) X(ACQ_REL) X(SC) X(WEAK) X(MMIO) \
    X(CTA) X(GPU) X(SYS) X(CLUSTER) \
    X(TO) X(SHIFTAMT) X(L) X(R) X(WRAP) X(CLAMP) X(SHR7) X(SHR15) \
    X(F4E) X(B4E) X(RC8) X(ECL) X(ECR) X(RC16) \
    X(RCP) X(SQRT) X(RSQRT) X(SIN) X(COS) X(LG2) X(EX2) X(TANH) \
    X(NOFTZ) X(CODE) X(PROXY) X(ASYNC) X(ALIAS) X(PARTIAL) X(MASK) X(EXPAND) \
    X(NOINC) X(BYTE) X(ZEROFILL) X(SHARED_CTA) X(SHARED_CLUSTER) \
    X(L1_EVICT_NORMAL) X(L1_EVICT_FIRST) X(L1_EVICT_LAST) X(L1_EVICT_UNCHANGED) \
    X(L1_NO_ALLOCATE) X(L2_EVICT_NORMAL) X(L2_EVICT_FIRST) X(L2_EVICT_LAST) X(L2_EVICT_UNCHANGED) \
    X(L2_CACHE_HINT) X(L2_64B) X(L2_128B) X(L2_256B) X(L2) X(L1) X(LEVEL) \
    X(FINITE) X(INFINITE) X(NUMBER) X(NOTANUMBER) X(NORMAL) X(SUBNORMAL) X(GL) X(UNIFORM) \
    X(WAIT) X(TRY_WAIT) X(TEST_WAIT) X(PARITY) X(EXPECT_TX) X(COMPLETE_TX) X(ARRIVE_DROP) \
    X(NOCOMPLETE) X(INIT) X(INVAL) X(PENDING_COUNT) X(MBARRIER_COMPLETE_TX_BYTES) \
    X(BULK) X(BULK_GROUP) X(MULTICAST_CLUSTER) X(COMMIT_GROUP) X(WAIT_GROUP) X(WAIT_ALL) \
    X(TENSOR) X(TILE) X(IM2COL) X(READ) X(CP_MASK) X(PREFETCH) X(TENSORMAP) X(REDUCE) \
    X(MBARRIER) X(MBARRIER_INIT) X(LAUNCH_DEPENDENTS) X(EVICT_NORMAL) \
    X(EVICT_FIRST) X(EVICT_LAST) X(EVICT_UNCHANGED) X(NO_ALLOCATE) X(FRACTIONAL) X(CVT) \
    X(L2_EVICT_LAST_UNCHANGED) X(TENSORMAP_GENERIC) X(RELEASE_SYNC_RESTRICT) \
    X(SYNC_RESTRICT_SHARED_CLUSTER) X(ACQUIRE_SYNC_RESTRICT_SHARED_CLUSTER) X(SHARED_CTA_MOD) \
    X(IGNORE_SRC) \
    X(REPLACE) X(B1024) X(GLOBAL_ADDRESS) X(RANK) X(BOX_DIM) X(GLOBAL_DIM) X(GLOBAL_STRIDE) \
    X(ELEMENT_STRIDE) X(ELEMTYPE) X(INTERLEAVE_LAYOUT) X(SWIZZLE_MODE) X(SWIZZLE_ATOMICITY) \
    X(FILL_MODE) \
    X(A1D) X(A2D) X(CUBE) X(ACUBE) X(GRAD) X(B) X(P) X(G) X(A) X(TRAP) X(ZERO) \
    X(WIDTH) X(HEIGHT) X(DEPTH) X(CHANNEL_DATA_TYPE) X(CHANNEL_ORDER) X(NORMALIZED_COORDS) \
    X(FILTER_MODE) X(ADDR_MODE_0) X(ADDR_MODE_1) X(ADDR_MODE_2) X(NUM_MIPMAP_LEVELS) \
    X(NUM_SAMPLES) X(ARRAY_SIZE) \
    X(M8N8) X(X1) X(X2) X(X4) X(TRANS) X(ROW) X(COL) \
    X(M8N8K4) X(M8N8K16) X(M8N8K32) X(M8N8K128) X(M16N8K16) X(M16N8K32) X(M16N8K64) \
    X(M16N8K128) X(M16N8K256) X(M16N8K8) X(M16N8K4) \
    X(M16N16K16) X(M32N8K16) X(M8N32K16) X(M16N16K8) X(LOAD) X(STORE) X(MMA) X(C) X(D) \
    X(FENCE) X(MMA_ASYNC) X(CP_FENCEPROXY) X(SP) X(SP_ORDERED_METADATA)

enum {
#define X(n) MOD_##n,
    PTX_MODS(X)
#undef X
    MOD_COUNT
};

#define INST_MAXD 4
#define INST_MAXS 8   /* cp.async.bulk.tensor.5d: map, 5 coordinates, mbarrier, mask */

/* Everything the binder needs besides the Inst itself; lives only during translation. */
typedef struct InstDesc {
    int op;                     /* OP_* from ops.def */
    uint8_t types[4];           /* the type modifiers in order, e.g. cvt.f32.s32 -> {F32,S32} */
    int ntypes;
    uint64_t mods[(MOD_COUNT + 63) / 64];
    int vec;                    /* .v2/.v4/.v8, else 1 */
    int space;                  /* SP_* named on the instruction, SP_NONE when none */
    int nd, ns;                 /* how many destination / source rows were filled in Inst */
    int has_addr;               /* a [..] operand was lowered into base/imm */
    int src_imm_mask;           /* bit i: source i was an immediate (now a constant row) */
    int tensor_dims;            /* .1d ... .5d of a tensor copy, else 0 */
    int wg_m, wg_n, wg_k;       /* wgmma's .mMnNkK shape, else 0 */
    int first_layout;           /* MOD_ROW or MOD_COL, whichever came first (mma .alayout.blayout) */
    uint32_t list_imm_mask;     /* RowList instructions: bit i: operand i is an immediate ... */
    int64_t list_imm[10];       /* ... with this value (ROWLIST_MAX)                          */
    int spaces[3], nspaces;     /* every state space named, in order (cp: dst, src)    */
    int naddr;                  /* [..] operands: the first is base/imm, later ones rows in s[] */
    int addr_src[4];            /* index in s[] of the row holding each later address */
    uint32_t src_pred_mask;     /* bit i: source i is a predicate                      */
    uint64_t imm_val[INST_MAXS];/* value of source i when it was an immediate          */
    const char *text;           /* the opcode with modifiers, for messages */
    uint32_t obs;               /* the groups of events tools watch (observe.h): the binder
                                 * picks an observed handler variant for them, else plain */
} InstDesc;

static inline int desc_has(const InstDesc *d, int mod)
{
    return (int)((d->mods[mod >> 6] >> (mod & 63)) & 1);
}

/* Rounding modes (Inst.rnd). */
enum { RND_NONE = 0, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RS };
/* Comparison codes (Inst.cmp); the unordered ones are true when either input is NaN. */
enum { CMP_EQ = 0, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQU, CMP_NEU, CMP_LTU,
       CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };
/* Inst.flags bits. */
enum { IF_FTZ = 1, IF_SAT = 2, IF_APPROX = 4, IF_FRAME = 8 /* address is frame-relative */,
       IF_NEG_C = 16 /* predicate source negated */, IF_RELU = 32, IF_NAN = 64,
       IF_PREEMPT = 128 /* touches state other warps see: a deterministic-mode switch point */ };


/* Inst.aux8 of the contracted forms <fma.contracted> and <mov.captured> (exec_contract.c). */
enum { CF_NEG_A = 1, CF_NEG_C = 2, CF_JOIN = 4, CF_SUB = 8, CF_NEG = 16 };

/* Inst.sync: the memory order (SEM_*) and scope (SCOPE_*) of a memory, fence or mbarrier
 * instruction, which the race detector's happens-before reads. */
enum { SEM_WEAK = 0, SEM_RELAXED, SEM_ACQUIRE, SEM_RELEASE, SEM_ACQ_REL };
enum { SCOPE_NONE = 0, SCOPE_CTA, SCOPE_CLUSTER, SCOPE_GPU, SCOPE_SYS };
#define SYNC(sem, scope) ((uint8_t)((sem) | (scope) << 3))
#define SYNC_SEM(s) ((s) & 7)
#define SYNC_SCOPE(s) ((s) >> 3 & 7)

struct Inst {
    Handler fn;
    uint16_t op;            /* OP_* (for messages, traces and counters)                     */
    uint8_t t, t2;          /* primary and secondary type (cvt: t = destination, t2 = source)*/
    uint8_t rnd, cmp;       /* rounding mode, comparison                                    */
    uint8_t bop;            /* boolean combine (setp .and/.or/.xor) or atomic/reduce op     */
#define ATOM_BOP_CAS 9      /* Inst.bop of atom.cas (the race detector exempts cas loops)   */
    uint8_t flags;          /* IF_*                                                          */
    uint8_t space;          /* SP_* for memory instructions                                  */
    uint8_t vec;            /* vector width of a memory access, 1 otherwise                  */
    uint8_t nd, ns;         /* destinations / sources used                                   */
    uint8_t aux8;           /* binder-specific small field (shfl mode, vote mode, ...)       */
    uint8_t pneg_bit;       /* guard negated                                                 */
    uint16_t pg;            /* guard predicate index (0 = always-true predicate)            */
    uint32_t pneg;          /* 0 or 0xffffffff: xor applied to the guard's mask             */
    uint32_t d[INST_MAXD];  /* destination rows (GPR rows or predicate indices by opcode)   */
    uint32_t s[INST_MAXS];  /* source rows (GPR rows or predicate indices by opcode)        */
    uint32_t base;          /* address base row (row 0 is all zeros)                         */
    int64_t imm;            /* address offset; branch/call target pc; binder-specific        */
    uint32_t line;          /* PTX source line                                               */
    uint32_t loc;           /* index into Program.locs (CUDA file:line), 0 = none            */
    uint8_t sync;           /* memory order and scope (SYNC_*), for the race detector         */
    uint8_t cost;           /* issue slots on the SM (op_issue_cost), for the time model      */
    void *aux;              /* binder-specific data owned by the Program (call descriptors) */
};

/* The operands of an instruction with more registers than Inst holds (mma): every row in
 * order, and how many each operand has (Inst.aux of OP_mma; translation owns it). */
#define ROWLIST_MAX 10   /* operands of an mma, wmma or wgmma (wgmma.sp has 10) */
typedef struct RowList {
    uint32_t n;
    uint8_t count[ROWLIST_MAX]; /* operand i has count[i] rows */
    int64_t cfg;                /* the binder's decoded modifiers (wmma)  */
    uint32_t rows[];
} RowList;

/* A divergent branch's reconvergence pc (bra's Inst.base) when its paths only meet by
 * leaving the function. */
#define RPC_EXIT 0xfffffffeu

/* Reserved rows and predicates of every program. */
enum { ROW_ZERO = 0, ROW_SINK = 1, ROW_FIRST_FREE = 2 };
/* P[PRED_FALSE] stays 0: no instruction writes it (constant false operands read it). */
enum { PRED_TRUE = 0, PRED_SINK = 1, PRED_FALSE = 2, PRED_FIRST_FREE = 3 };

/* A binder chooses the handler for one instruction. Returns NULL on success, else a static
 * message such as "unsupported type for add". */
typedef const char *(*Binder)(Inst *in, const InstDesc *d);

/* Opcode ids, one per line of ops.def. */
enum {
#define OP(name, str, fmt, binder) OP_##name,
#include "ops.def"
#undef OP
    OP_COUNT
};

/* Operand formats (ops.def column 3): how the translator lays out operands. */
enum {
    FMT_DS,      /* first operand is a destination (vector/pair allowed), the rest sources  */
    FMT_S,       /* all operands are sources (st, red, bar, ...)                            */
    FMT_BRANCH,  /* bra label                                                                */
    FMT_CALL,    /* call (rets), func, (args)                                                */
    FMT_NONE     /* no operands (ret, exit, trap, ...)                                      */
};

typedef struct OpInfo { const char *name; int fmt; Binder bind; } OpInfo;
extern const OpInfo op_info[OP_COUNT];
int op_lookup(const char *name);   /* OP_* or -1 */
/* The issue slots a bound instruction takes on an H100/H200 SM scheduler, from the units'
 * rates (profile.c's time model): 1 for most, more for the half-rate and slower units. */
uint8_t op_issue_cost(const Inst *in);

#endif
