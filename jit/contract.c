/* contract.c - fusing mul with add/sub into fma, as ptxas does on the H100.
 *
 * PTX lets the code generator fuse `mul` and `add`/`sub` that carry no rounding modifier,
 * and ptxas does; the fused result is rounded once, so a program sees it. The rule below is
 * what tests/ptx/fma_contract_*.ptx recorded on the H100 (docs/fma-contraction.md):
 *   - the mul: f16/bf16/f32/f64 (and x2) without rounding modifier, .sat or guard;
 *   - every reader of its product is an add/sub of the same type, also without rounding
 *     modifier, with the same .ftz (a store, a mul, a call argument... of the product, and
 *     nothing is fused), or a mov/neg whose own readers are such adds;
 *   - at each such add the mul is the only definition that reaches (through any distance,
 *     branch or loop, but not across a call, nor across an instruction ptxas gives a
 *     subroutine: IEEE div/rcp/sqrt, integer div/rem but u32); an add of two products fuses
 *     its first operand;
 *   - a mul by an immediate is fused also into adds in a loop it is outside of, and across
 *     those subroutines (ptxas computes it again beside each add);
 *   - at a join whose predecessors each end by falling or jumping into it, a product that
 *     reaches through one predecessor is fused when it comes that way (ptxas moves the add
 *     into the predecessors); a join reached by a conditional branch is not.
 * The pass runs once, after branch targets are known and before binding; it rewrites the
 * instructions into the <mul.captured>/<fma.contracted> forms of emu/exec_contract.c.
 */
#include <stdlib.h>
#include <string.h>
#include "jit/contract.h"
#include "emu/call.h"

#define MAX_DEFS 62      /* definitions of one register tracked (bit 0: undefined) */

typedef struct Use { uint32_t pc; int opd; uint64_t reach; } Use;

typedef struct Fa {
    ContractIn *c;
    uint32_t lo, n, nb;          /* first pc, instructions, blocks */
    uint32_t *block_of, *start;  /* start[b] .. start[b+1] */
    uint32_t (*succ)[2];         /* UINT32_MAX: none */
    uint32_t *npred;
    uint64_t *in, *out;
    /* the register being analysed */
    uint32_t row, ndefs, defs[MAX_DEFS];
    Use *uses; uint32_t nuses, capuses;
    /* rewrites decided: per pc the hidden rows of a captured product */
    uint32_t *cap_a, *cap_b;
    uint32_t stop_from;          /* stops_fusion: the mul being planned                     */
    int remat;                   /* the mul being planned has an immediate factor (remat)   */
} Fa;

static int is_fp(int t)
{
    return t == TY_F16 || t == TY_F16X2 || t == TY_BF16 || t == TY_BF16X2 || t == TY_F32 || t == TY_F64;
}

static int has_rnd(const InstDesc *d)
{
    return desc_has(d, MOD_RN) || desc_has(d, MOD_RZ) || desc_has(d, MOD_RM) || desc_has(d, MOD_RP);
}

static int ends_block(int op)
{
    return op == OP_bra || op == OP_brx || op == OP_ret || op == OP_exit || op == OP_trap;
}

static Inst *code(Fa *f, uint32_t pc) { return &f->c->code[pc]; }
static InstDesc *desc(Fa *f, uint32_t pc) { return &f->c->descs[pc]; }

static int build_blocks(Fa *f)
{
    uint32_t n = f->n;
    uint8_t *leader = calloc(n + 1, 1);
    f->block_of = calloc(n, sizeof *f->block_of);
    if (!leader || !f->block_of) { free(leader); return -1; }
    leader[0] = 1;
    for (uint32_t i = 0; i < n; i++) {
        const Inst *in = code(f, f->lo + i);
        if (in->op == OP_bra && in->imm >= f->lo && (uint64_t)in->imm < f->lo + n) leader[in->imm - f->lo] = 1;
        if (ends_block(in->op)) leader[i + 1] = 1;
    }
    f->nb = 0;
    for (uint32_t i = 0; i < n; i++) f->nb += leader[i];
    f->start = calloc(f->nb + 1, sizeof *f->start);
    f->succ = calloc(f->nb, sizeof *f->succ);
    f->npred = calloc(f->nb, sizeof *f->npred);
    f->in = calloc(f->nb, sizeof *f->in);
    f->out = calloc(f->nb, sizeof *f->out);
    if (!f->start || !f->succ || !f->npred || !f->in || !f->out) { free(leader); return -1; }
    for (uint32_t i = 0, b = 0; i < n; i++) {
        if (leader[i]) f->start[b++] = i;
        f->block_of[i] = b - 1;
    }
    f->start[f->nb] = n;
    free(leader);
    for (uint32_t b = 0; b < f->nb; b++) {
        uint32_t last = f->start[b + 1] - 1;
        const Inst *in = code(f, f->lo + last);
        uint32_t k = 0;
        f->succ[b][0] = f->succ[b][1] = UINT32_MAX;
        if (in->op == OP_bra) {
            if (in->imm >= f->lo && (uint64_t)in->imm < f->lo + n) f->succ[b][k++] = f->block_of[in->imm - f->lo];
            if (in->pg && last + 1 < n) f->succ[b][k++] = f->block_of[last + 1];
        } else if (!(ends_block(in->op) && !in->pg) && last + 1 < n) {
            f->succ[b][k++] = f->block_of[last + 1];
        }
        for (uint32_t j = 0; j < k; j++) f->npred[f->succ[b][j]]++;
    }
    return 0;
}

/* Instructions that stop fusion as a call does (tests/ptx/fma_contract_expand.ptx, recorded on
 * the H100): the IEEE-rounded f32/f64 div, rcp and sqrt, and integer div/rem of every type but
 * u32. ptxas gives them a subroutine (a slow path, or a call it later inlines: rem.s32 by 3
 * ends up as plain integer code and still stops it). The approximate forms, div.full, the
 * other SFU functions and u32 division do not. */
static int acts_as_call(Fa *f, uint32_t pc)
{
    const Inst *in = code(f, pc);
    const InstDesc *d = desc(f, pc);
    if (d->ntypes < 1) return 0;
    int t = d->types[0];
    if (in->op == OP_div || in->op == OP_rem)
        return is_fp(t) ? has_rnd(d) || t == TY_F64 : t != TY_U32;
    if (in->op == OP_rcp || in->op == OP_sqrt)
        return (t == TY_F32 && has_rnd(d)) || (t == TY_F64 && !desc_has(d, MOD_APPROX));
    return 0;
}


/* What a mul and an add on either side of are not fused across, as measured on an H200
 * (tests/cuda/fma_contract_async.cu's unrolled loop bodies, checked by fma_contract_fence.cu):
 * membar and fence (not fence.proxy), a bulk copy or bulk reduction from shared into global
 * memory, and a loop (an mbarrier wait loop; a single try_wait does not stop it). bar.sync,
 * barrier.cluster, bar.warp.sync, atom, red, cp.async, bulk commit and wait_group, test_wait
 * and try_wait, nanosleep and fence.proxy.async do not. f->stop_from: the mul's pc (a
 * backward branch counts when it jumps back to after the mul). */
static int stops_fusion(Fa *f, uint32_t pc)
{
    const Inst *in = code(f, pc);
    const InstDesc *d = desc(f, pc);
    if (in->op == OP_membar) return 1;
    if (in->op == OP_fence) return !desc_has(d, MOD_PROXY);
    /* a bulk copy or reduction from shared into global memory */
    if (in->op == OP_cp)
        return desc_has(d, MOD_BULK) && !desc_has(d, MOD_PREFETCH) && d->nspaces >= 1 && d->spaces[0] == SP_GLOBAL;
    /* a loop between the two (an mbarrier wait loop): its back edge is a backward branch */
    if (in->op == OP_bra) return (uint64_t)in->imm >= f->lo && (uint64_t)in->imm <= pc && (uint64_t)in->imm > f->stop_from;
    return 0;
}

static int writes_row(Fa *f, uint32_t pc, uint32_t row)
{
    const Inst *in = code(f, pc);
    if (in->op == OP_setp) return 0;   /* its destinations are predicates */
    if ((in->op == OP_mma || in->op == OP_wmma) && in->aux) {   /* D: the first operand */
        const RowList *rl = in->aux;
        for (uint32_t k = 0; k < rl->count[0]; k++) if (rl->rows[k] == row) return 1;
        return 0;
    }
    for (int k = 0; k < in->nd; k++) if (in->d[k] == row) return 1;
    return 0;
}

/* Operand index of the first read of row at pc: 0..ns-1, or 99 for an address/call use. */
static int reads_row(Fa *f, uint32_t pc, uint32_t row)
{
    const Inst *in = code(f, pc);
    const InstDesc *d = desc(f, pc);
    for (int k = 0; k < in->ns; k++)
        if (in->s[k] == row && !(d->src_pred_mask >> k & 1)) return k;
    if (d->has_addr && in->base == row) return 99;
    if ((in->op == OP_mma || in->op == OP_wmma) && in->aux) {
        const RowList *rl = in->aux;
        for (uint32_t k = rl->count[0]; k < rl->n; k++) if (rl->rows[k] == row) return 99;
    }
    if (in->op == OP_call && in->aux) {
        const CallDesc *cd = in->aux;
        for (uint32_t k = 0; k < cd->nargs; k++)
            if (cd->args[k].kind == CA_ROW && cd->args[k].src == row) return 99;
        if (cd->indirect && cd->callee_row == row) return 99;
    }
    return -1;
}

/* ptxas does not fuse across a call: every call reaches as one more definition of every
 * register, CALL_BIT, so that a product it separates from its add is never the only one.
 * Calls share the bit, so a kernel with many of them does not run out of definitions. */
#define CALL_BIT (1ull << 63)
static int kills_all(Fa *f, uint32_t pc)
{
    return code(f, pc)->op == OP_call || (!f->remat && acts_as_call(f, pc));
}

static int def_index(Fa *f, uint32_t pc)
{
    for (uint32_t i = 0; i < f->ndefs; i++) if (f->defs[i] == pc) return (int)i;
    return -1;
}

static uint64_t step(Fa *f, uint32_t pc, uint64_t set)
{
    const Inst *in = code(f, pc);
    if (kills_all(f, pc)) return (in->pg && in->op != OP_call) ? set | CALL_BIT : CALL_BIT;
    int i = def_index(f, pc);
    if (i < 0) return set;
    uint64_t bit = 2ull << i;
    return in->pg ? set | bit : bit;
}

/* Reaching definitions of f->row and its reads. Returns -1 on too many definitions. */
static int analyse_row(Fa *f, uint32_t row)
{
    f->row = row;
    f->ndefs = 0;
    f->nuses = 0;
    for (uint32_t i = 0; i < f->n; i++)
        if (writes_row(f, f->lo + i, row)) {
            if (f->ndefs == MAX_DEFS) return -1;
            f->defs[f->ndefs++] = f->lo + i;
        }
    memset(f->in, 0, f->nb * sizeof *f->in);
    memset(f->out, 0, f->nb * sizeof *f->out);
    f->in[0] = 1;   /* undefined on entry */
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = 0; b < f->nb; b++) {
            uint64_t s = f->in[b];
            for (uint32_t i = f->start[b]; i < f->start[b + 1]; i++) s = step(f, f->lo + i, s);
            if (s != f->out[b]) { f->out[b] = s; changed = 1; }
            for (int k = 0; k < 2; k++) {
                uint32_t t = f->succ[b][k];
                if (t != UINT32_MAX && (f->in[t] | s) != f->in[t]) { f->in[t] |= s; changed = 1; }
            }
        }
    }
    for (uint32_t b = 0; b < f->nb; b++) {
        uint64_t s = f->in[b];
        for (uint32_t i = f->start[b]; i < f->start[b + 1]; i++) {
            uint32_t pc = f->lo + i;
            int k = reads_row(f, pc, row);
            if (k >= 0) {
                if (f->nuses == f->capuses) {
                    uint32_t cap = f->capuses ? 2 * f->capuses : 16;
                    Use *u = realloc(f->uses, cap * sizeof *u);
                    if (!u) return -1;
                    f->uses = u;
                    f->capuses = cap;
                }
                f->uses[f->nuses++] = (Use){ pc, k, s };
            }
            s = step(f, pc, s);
        }
    }
    return 0;
}

/* An add/sub that may absorb a product of type t and .ftz ftz read as operand k. */
static int fusable_add(Fa *f, uint32_t pc, int k, int t, int ftz)
{
    const Inst *in = code(f, pc);
    const InstDesc *d = desc(f, pc);
    return (in->op == OP_add || in->op == OP_sub) && d->ntypes == 1 && d->types[0] == t &&
           !has_rnd(d) && desc_has(d, MOD_FTZ) == ftz && in->nd == 1 && in->ns == 2 && k < 2;
}

/* The join rule: the use reads the value its block starts with, every predecessor ends by
 * falling or jumping into it, and each brings one definition. */
static int join_ok(Fa *f, const Use *u)
{
    uint32_t b = f->block_of[u->pc - f->lo];
    if (code(f, u->pc)->pg || f->in[b] != u->reach) return 0;
    for (uint32_t i = f->start[b]; i < u->pc - f->lo; i++)
        if (def_index(f, f->lo + i) >= 0 || kills_all(f, f->lo + i)) return 0;
    for (uint32_t p = 0; p < f->nb; p++) {
        int into = f->succ[p][0] == b || f->succ[p][1] == b;
        if (!into) continue;
        if (f->succ[p][1] != UINT32_MAX) return 0;          /* a conditional branch */
        if (__builtin_popcountll(f->out[p]) != 1) return 0;
    }
    return b != 0;   /* the entry block has no predecessor edge for "undefined" */
}

typedef struct Plan {
    uint32_t pc;          /* the add */
    int opd;              /* the operand that is the product */
    uint32_t a, b;        /* rows holding the factors */
    uint32_t flag;        /* join: predicate index + 1, else 0 */
} Plan;

typedef struct Work {
    Plan *plans; uint32_t nplans, capplans;
    uint8_t *taken;       /* per pc: this add was rewritten */
    uint32_t *join_a, *join_b, *join_flag;   /* per pc of a join's add: shared rows, flag */
} Work;

static int add_plan(Work *w, Plan p)
{
    if (w->nplans == w->capplans) {
        uint32_t cap = w->capplans ? 2 * w->capplans : 16;
        Plan *n = realloc(w->plans, cap * sizeof *n);
        if (!n) return -1;
        w->plans = n;
        w->capplans = cap;
    }
    w->plans[w->nplans++] = p;
    return 0;
}

/* Whether block `from` lies on a cycle that avoids block `avoid`: a reader inside a loop
 * that its mul is outside of. A reader in the mul's own block is inside every loop the mul
 * is (the cycle back to it passes the mul): HeCBench's thomas, whose loop body multiplies and
 * subtracts in one block, is fused by ptxas. */
static int in_loop_without(Fa *f, uint32_t from, uint32_t avoid)
{
    if (from == avoid) return 0;
    uint8_t *seen = calloc(f->nb, 1);
    uint32_t *stack = malloc((f->nb + 1) * sizeof *stack), sp = 0;
    int found = 0;
    if (!seen || !stack) { free(seen); free(stack); return 1; }
    for (int k = 0; k < 2; k++) if (f->succ[from][k] != UINT32_MAX) stack[sp++] = f->succ[from][k];
    while (sp && !found) {
        uint32_t b = stack[--sp];
        if (b == from) { found = 1; break; }
        if (b == avoid || seen[b]) continue;
        seen[b] = 1;
        for (int k = 0; k < 2; k++)
            if (f->succ[b][k] != UINT32_MAX && sp < f->nb) stack[sp++] = f->succ[b][k];
    }
    free(seen);
    free(stack);
    return found;
}

/* Whether block `to` is reachable from block `from` without passing block `avoid`. */
static int reaches_without(Fa *f, uint32_t from, uint32_t to, uint32_t avoid)
{
    uint8_t *seen = calloc(f->nb, 1);
    uint32_t *stack = malloc((f->nb + 1) * sizeof *stack), sp = 0;
    int found = 0;
    if (!seen || !stack) { free(seen); free(stack); return 1; }
    stack[sp++] = from;
    while (sp && !found) {
        uint32_t b = stack[--sp];
        if (b == to) { found = 1; break; }
        if (b == avoid || seen[b]) continue;
        seen[b] = 1;
        for (int k = 0; k < 2; k++)
            if (f->succ[b][k] != UINT32_MAX && sp < f->nb) stack[sp++] = f->succ[b][k];
    }
    free(seen);
    free(stack);
    return found;
}

/* The add at pc reads the product (operand opd) inside a loop its mul (block mb) is outside
 * of: ptxas fuses it only when it can hoist the add out of the loop too, that is when its
 * other operand is not written inside the loop (fma_contract_f32.ptx case 7 adds a constant:
 * fused; tests/cuda/fma_contract_async.cu adds a value loaded in the loop: plain, on an
 * H200, whatever else the loop holds). */
static int add_invariant(Fa *f, uint32_t pc, int opd, uint32_t mb)
{
    const Inst *in = code(f, pc);
    if (in->ns < 2) return 0;
    uint32_t row = in->s[opd ? 0 : 1], rb = f->block_of[pc - f->lo];
    for (uint32_t q = f->lo; q < f->lo + f->n; q++) {
        if (!writes_row(f, q, row)) continue;
        uint32_t qb = f->block_of[q - f->lo];
        if (reaches_without(f, rb, qb, mb) && reaches_without(f, qb, rb, mb)) return 0;
    }
    return 1;
}

/* The product defined at pc (a mul, or a mov/neg of one): are all its readers fusable adds
 * (directly, or through one mov/neg)? Fills the readers into uses (copied). depth 0: a mul. */
static int all_fusable(Fa *f, uint32_t pc, int t, int ftz, Use **out, uint32_t *nout, int depth)
{
    const Inst *in = code(f, pc);
    if (analyse_row(f, in->d[0]) < 0) return 0;
    int di = def_index(f, pc);
    if (di < 0) return 0;
    uint64_t bit = 2ull << di;
    uint32_t n = 0;
    Use *mine = malloc((f->nuses + 1) * sizeof *mine);
    if (!mine) return 0;
    for (uint32_t i = 0; i < f->nuses; i++) if (f->uses[i].reach & bit) mine[n++] = f->uses[i];
    int ok = n > 0;
    /* measured: several readers inside a loop the mul is outside of, and nothing is fused
     * (tests/cuda/fma_contract.cu); one reader there is fused only when the add can leave
     * the loop too (add_invariant). A mul by an immediate (remat) is fused there too. */
    for (uint32_t i = 0; i < n && ok && !f->remat; i++)
        if (in_loop_without(f, f->block_of[mine[i].pc - f->lo], f->block_of[pc - f->lo]))
            ok = n == 1 && add_invariant(f, mine[i].pc, mine[i].opd, f->block_of[pc - f->lo]);
    /* a product that lives across a fence or an mbarrier wait (stops_fusion) to any of its
     * readers is fused into none of them (the code between, in order, stands for the paths) */
    uint32_t last = pc;
    for (uint32_t i = 0; i < n; i++) if (mine[i].pc > last) last = mine[i].pc;
    f->stop_from = pc;
    for (uint32_t q = pc + 1; q < last && ok; q++) ok = !stops_fusion(f, q);
    for (uint32_t i = 0; i < n && ok; i++) {
        const Use *u = &mine[i];
        const Inst *ui = code(f, u->pc);
        if (u->reach != bit) {
            ok = depth == 0 && n == 1 && fusable_add(f, u->pc, u->opd, t, ftz) && join_ok(f, u);
        } else if (fusable_add(f, u->pc, u->opd, t, ftz)) {
            ok = 1;
        } else if (depth == 0 && (ui->op == OP_mov || ui->op == OP_neg) && ui->nd == 1 && ui->ns == 1 &&
                   desc(f, u->pc)->ntypes == 1 && desc(f, u->pc)->types[0] == t && !ui->pg &&
                   desc_has(desc(f, u->pc), MOD_FTZ) == (ui->op == OP_neg ? ftz : 0)) {
            Use *sub; uint32_t ns;
            ok = all_fusable(f, u->pc, t, ftz, &sub, &ns, 1);
            if (ok) free(sub);
        } else {
            ok = 0;
        }
    }
    if (!ok) { free(mine); return 0; }
    *out = mine;
    *nout = n;
    return 1;
}

static uint32_t new_row(Fa *f) { return f->c->new_row(f->c->ctx); }

/* Captures the product at pc into fresh rows (a mul) or copies its source's (a mov/neg). */
static void capture(Fa *f, uint32_t pc, uint32_t a, uint32_t b, uint32_t src_a, uint32_t src_b, uint32_t flag)
{
    Inst *in = code(f, pc);
    InstDesc *d = desc(f, pc);
    if (in->op == OP_mul) {
        in->op = OP_mulc;
        in->imm = flag;
    } else {
        in->aux8 = in->op == OP_neg ? CF_NEG : 0;
        in->op = OP_movc;
        in->s[1] = src_a;
        in->s[2] = src_b;
        in->ns = 3;
    }
    d->op = in->op;
    in->d[1] = a;
    in->d[2] = b;
    in->nd = 3;
    d->nd = 3;
    d->ns = in->ns;
}

/* Plans the adds that read the product of the mul at pc (f->remat set: plan_mul). */
static int plan_mul_uses(Fa *f, Work *w, uint32_t pc)
{
    const InstDesc *d = desc(f, pc);
    int t = d->types[0], ftz = desc_has(d, MOD_FTZ);
    Use *uses; uint32_t n;
    if (!all_fusable(f, pc, t, ftz, &uses, &n, 0)) return 0;
    uint32_t a, b, flag = 0;
    if (n == 1 && __builtin_popcountll(uses[0].reach) > 1) {
        /* a join: every mul that reaches it in one piece shares the rows and the flag */
        uint32_t u = uses[0].pc;
        if (!w->join_a[u]) {
            w->join_a[u] = new_row(f);
            w->join_b[u] = new_row(f);
            w->join_flag[u] = f->c->new_pred(f->c->ctx) + 1;
        }
        a = w->join_a[u];
        b = w->join_b[u];
        flag = w->join_flag[u];
    } else {
        a = new_row(f);
        b = new_row(f);
    }
    capture(f, pc, a, b, 0, 0, flag);
    for (uint32_t i = 0; i < n; i++) {
        const Inst *ui = code(f, uses[i].pc);
        if (ui->op == OP_mov || ui->op == OP_neg) {
            uint32_t ma = new_row(f), mb = new_row(f);
            Use *sub; uint32_t ns;
            if (!all_fusable(f, uses[i].pc, t, ftz, &sub, &ns, 1)) continue;   /* decided above */
            capture(f, uses[i].pc, ma, mb, a, b, 0);
            for (uint32_t j = 0; j < ns; j++)
                if (add_plan(w, (Plan){ sub[j].pc, sub[j].opd, ma, mb, 0 }) < 0) { free(sub); free(uses); return -1; }
            free(sub);
        } else if (add_plan(w, (Plan){ uses[i].pc, uses[i].opd, a, b, flag }) < 0) {
            free(uses);
            return -1;
        }
    }
    free(uses);
    return 0;
}

/* Plans the adds that read the product of the mul at pc. */
static int plan_mul(Fa *f, Work *w, uint32_t pc)
{
    /* ptxas computes a product of a register and an immediate again beside each reader, as
     * it needs no more registers there than the factor: the H200 fuses it into adds inside a
     * loop the mul is outside of (one or two of them, whatever the add's other operand) and
     * across an rcp.rn, where a product of two registers is plain (tests/cuda/
     * fma_contract_sink.cu; HeCBench's dxtc2: 9.0f * color_sum before its permutation loop) */
    f->remat = (desc(f, pc)->src_imm_mask & 3) != 0;
    int rc = plan_mul_uses(f, w, pc);
    f->remat = 0;
    return rc;
}

/* Rewrites an add/sub into <fma.contracted>. */
static void fuse(Fa *f, const Plan *p, uint32_t scratch_a, uint32_t scratch_c)
{
    Inst *in = code(f, p->pc);
    InstDesc *d = desc(f, p->pc);
    uint32_t x = in->s[0], y = in->s[1];
    uint8_t cf = 0;
    if (in->op == OP_sub) cf |= CF_SUB | (p->opd == 0 ? CF_NEG_C : CF_NEG_A);
    if (p->flag) cf |= CF_JOIN;
    in->s[0] = p->a;
    in->s[1] = p->b;
    in->s[2] = p->opd == 0 ? y : x;
    in->s[3] = scratch_a;
    in->s[4] = scratch_c;
    in->s[5] = x;
    in->s[6] = y;
    in->ns = 7;
    in->aux8 = cf;
    in->imm = p->flag;
    in->op = OP_fmac;
    d->op = OP_fmac;
    d->ns = 7;
    d->src_imm_mask = 0;
    d->src_pred_mask = 0;
}

static int contract_fn(ContractIn *c, uint32_t lo, uint32_t hi, Work *w)
{
    Fa f;
    memset(&f, 0, sizeof f);
    f.c = c;
    f.lo = lo;
    f.n = hi - lo;
    int rc = -1;
    for (uint32_t pc = lo; pc < hi; pc++) if (c->code[pc].op == OP_brx) return 0;
    if (!f.n || build_blocks(&f) < 0) goto out;
    w->nplans = 0;
    for (uint32_t pc = lo; pc < hi; pc++) {
        const Inst *in = &c->code[pc];
        const InstDesc *d = &c->descs[pc];
        if (in->op == OP_mul && d->ntypes == 1 && is_fp(d->types[0]) && !has_rnd(d) &&
            !desc_has(d, MOD_SAT) && !in->pg && in->nd == 1 && in->ns == 2)
            if (plan_mul(&f, w, pc) < 0) goto out;
    }
    uint32_t scratch_a = 0, scratch_c = 0;
    for (uint32_t i = 0; i < w->nplans; i++) {
        Plan *p = &w->plans[i];
        if (w->taken[p->pc]) continue;   /* an add of two products: its first operand */
        if (code(&f, p->pc)->op != OP_add && code(&f, p->pc)->op != OP_sub) continue;
        Plan *best = p;
        for (uint32_t j = i + 1; j < w->nplans; j++)
            if (w->plans[j].pc == p->pc && w->plans[j].opd < best->opd) best = &w->plans[j];
        if (!scratch_a) { scratch_a = new_row(&f); scratch_c = new_row(&f); }
        w->taken[p->pc] = 1;
        fuse(&f, best, scratch_a, scratch_c);
    }
    rc = 0;
out:
    free(f.block_of); free(f.start); free(f.succ); free(f.npred); free(f.in); free(f.out); free(f.uses);
    return rc;
}

int contract_fma(ContractIn *c)
{
    Work w;
    memset(&w, 0, sizeof w);
    w.taken = calloc(c->ncode + 1, 1);
    w.join_a = calloc(c->ncode + 1, sizeof *w.join_a);
    w.join_b = calloc(c->ncode + 1, sizeof *w.join_b);
    w.join_flag = calloc(c->ncode + 1, sizeof *w.join_flag);
    int rc = w.taken && w.join_a && w.join_b && w.join_flag ? 0 : -1;
    for (int i = 0; i < c->nfns && rc == 0; i++)
        rc = contract_fn(c, c->fn_start[i], c->fn_start[i + 1], &w);
    free(w.plans);
    free(w.taken);
    free(w.join_a);
    free(w.join_b);
    free(w.join_flag);
    return rc;
}
