/* exec_contract.c - the instructions of a contracted mul/add pair (frontend/contract.c decides
 * which pairs; docs/fma-contraction.md says why).
 *
 * ptxas turns `mul` + `add`/`sub` without rounding modifiers into one fma. The emulator keeps
 * the mul (its product may have other readers) and makes it remember its factors:
 *   <mul.captured>  d[0] = a*b as the mul computes it; d[1] = a, d[2] = b. With Inst.imm > 0,
 *                   it also sets the lanes' bits of predicate imm-1 (the add at a join checks
 *                   them to know the value came through this mul).
 *   <mov.captured>  a mov/neg of a captured product: d[0] as the mov/neg computes it, and the
 *                   factors copied along (d[1] negated for neg).
 *   <fma.contracted> the add: d[0] = fma(±A, B, ±c) with s[0] = A, s[1] = B, s[2] = c; s[3]
 *                   and s[4] are scratch rows for -A and -c (aux8 bits CF_NEG_A/CF_NEG_C).
 *                   With CF_JOIN, only lanes whose predicate imm-1 is set are fused; the others
 *                   run the original add/sub on s[5], s[6], and the predicate is cleared.
 * Each binder binds the original instruction's handler once and keeps it in a small table
 * (aux), so the hot path runs the existing mul/fma/add handlers unchanged.
 */
#include <pthread.h>
#include <string.h>
#include "exec.h"
#include "jitop.h"

typedef struct Bound { Handler fn; uint8_t rnd, flags, aux8, t; } Bound;
typedef struct Pair { Bound main, alt; } Pair;

/* Handlers never die while any Program may use them: a fixed table, interned. */
#define MAX_PAIRS 256
static Pair pairs[MAX_PAIRS];
static unsigned npairs;
static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;

static const Pair *intern(const Pair *p)
{
    const Pair *r = NULL;
    pthread_mutex_lock(&pairs_lock);
    for (unsigned i = 0; i < npairs && !r; i++)
        if (!memcmp(&pairs[i], p, sizeof *p)) r = &pairs[i];
    if (!r && npairs < MAX_PAIRS) {
        pairs[npairs] = *p;
        r = &pairs[npairs++];
    }
    pthread_mutex_unlock(&pairs_lock);
    return r;
}

/* Binds `in` as opcode `op` (with desc d, rounding forced to .rn when rn) into b. */
static const char *bind_as(const Inst *in, const InstDesc *d, int op, int rn, int nd, int ns, Bound *b)
{
    Inst tmp = *in;
    InstDesc td = *d;
    td.op = op;
    tmp.op = (uint16_t)op;
    tmp.nd = (uint8_t)nd;
    td.nd = nd;
    tmp.ns = (uint8_t)ns;
    td.ns = ns;
    if (rn) td.mods[MOD_RN >> 6] |= 1ull << (MOD_RN & 63);
    const char *e = op_info[op].bind(&tmp, &td);
    if (e) return e;
    memset(b, 0, sizeof *b);
    b->fn = tmp.fn;
    b->rnd = tmp.rnd;
    b->flags = tmp.flags;
    b->aux8 = tmp.aux8;
    b->t = tmp.t;
    return NULL;
}

static int run_as(Warp *w, const Inst *in, const Bound *b, uint32_t mask)
{
    Inst x = *in;
    x.fn = b->fn;
    x.rnd = b->rnd;
    x.flags = b->flags;
    x.aux8 = b->aux8;
    x.t = b->t;
    x.nd = 1;
    return b->fn(w, &x, mask);
}

static uint64_t sign_of(int t)
{
    switch (t) {
    case TY_F64: return 1ull << 63;
    case TY_F32: return 1ull << 31;
    case TY_F16X2: case TY_BF16X2: return 0x80008000ull;
    default: return 0x8000ull;
    }
}

static void copy_rows(Warp *w, uint32_t dst, uint32_t src, uint64_t flip, uint32_t mask)
{
    uint64_t *d = &w->R[(size_t)dst * WARP_SIZE];
    const uint64_t *s = &w->R[(size_t)src * WARP_SIZE];
    for (int l = 0; l < WARP_SIZE; l++)
        if (mask >> l & 1) d[l] = s[l] ^ flip;
}

/* ---- <mul.captured> ---- */

static int h_mulc(Warp *w, const Inst *in, uint32_t mask)
{
    const Pair *p = in->aux;
    copy_rows(w, in->d[1], in->s[0], 0, mask);   /* before the mul: d may be a factor */
    copy_rows(w, in->d[2], in->s[1], 0, mask);
    if (in->imm > 0) w->P[in->imm - 1] |= mask;
    return run_as(w, in, &p->main, mask);
}

const char *bind_mulc(Inst *in, const InstDesc *d)
{
    Pair p;
    memset(&p, 0, sizeof p);
    const char *e = bind_as(in, d, OP_mul, 0, 1, 2, &p.main);
    if (e) return e;
    if (!(in->aux = (void *)intern(&p))) return "too many kinds of contracted instructions";
    in->fn = h_mulc;
    return NULL;
}

/* ---- <mov.captured> ---- */

static int h_movc(Warp *w, const Inst *in, uint32_t mask)
{
    const Pair *p = in->aux;
    copy_rows(w, in->d[1], in->s[1], (in->aux8 & CF_NEG) ? sign_of(in->t) : 0, mask);
    copy_rows(w, in->d[2], in->s[2], 0, mask);
    Inst x = *in;
    x.ns = 1;
    return run_as(w, &x, &p->main, mask);
}

const char *bind_movc(Inst *in, const InstDesc *d)
{
    Pair p;
    memset(&p, 0, sizeof p);
    const char *e = bind_as(in, d, (in->aux8 & CF_NEG) ? OP_neg : OP_mov, 0, 1, 1, &p.main);
    if (e) return e;
    if (!(in->aux = (void *)intern(&p))) return "too many kinds of contracted instructions";
    in->fn = h_movc;
    return NULL;
}

/* ---- <fma.contracted> ---- */

static int fused(Warp *w, const Inst *in, const Pair *p, uint32_t mask)
{
    Inst x = *in;
    uint64_t sign = sign_of(in->t);
    if (in->aux8 & CF_NEG_A) { copy_rows(w, in->s[3], in->s[0], sign, mask); x.s[0] = in->s[3]; }
    if (in->aux8 & CF_NEG_C) { copy_rows(w, in->s[4], in->s[2], sign, mask); x.s[2] = in->s[4]; }
    x.ns = 3;
    return run_as(w, &x, &p->main, mask);
}

static int h_fmac(Warp *w, const Inst *in, uint32_t mask)
{
    return fused(w, in, in->aux, mask);
}

/* At a join: the lanes whose value came through the captured mul are fused. */
static int h_fmac_join(Warp *w, const Inst *in, uint32_t mask)
{
    const Pair *p = in->aux;
    uint32_t *flag = &w->P[in->imm - 1];
    uint32_t f = mask & *flag, plain = mask & ~f;
    *flag &= ~mask;
    int r = STEP_NEXT;
    if (f) r = fused(w, in, p, f);
    if (r == STEP_NEXT && plain) {
        Inst x = *in;
        x.s[0] = in->s[5];
        x.s[1] = in->s[6];
        x.ns = 2;
        r = run_as(w, &x, &p->alt, plain);
    }
    return r;
}

const char *bind_fmac(Inst *in, const InstDesc *d)
{
    Pair p;
    memset(&p, 0, sizeof p);
    const char *e = bind_as(in, d, OP_fma, 1, 1, 3, &p.main);
    if (!e && (in->aux8 & CF_JOIN))
        e = bind_as(in, d, (in->aux8 & CF_SUB) ? OP_sub : OP_add, 0, 1, 2, &p.alt);
    if (e) return e;
    if (!(in->aux = (void *)intern(&p))) return "too many kinds of contracted instructions";
    in->fn = (in->aux8 & CF_JOIN) ? h_fmac_join : h_fmac;
    return NULL;
}

/* The compiled tier (jit/compile.c) writes these instructions inline, with the bound
 * handlers' own templates: the kinds say which form, contract_jit gives the handlers. */
JIT_OP(h_mulc, "MULC", "", "", "", "", "", "")
JIT_OP(h_movc, "MOVC", "", "", "", "", "", "")
JIT_OP(h_fmac, "FMAC", "", "", "", "", "", "")
JIT_OP(h_fmac_join, "FMACJ", "", "", "", "", "", "")

int contract_jit(const Inst *in, ContractJit *c)
{
    if (in->fn != h_mulc && in->fn != h_movc && in->fn != h_fmac && in->fn != h_fmac_join) return 0;
    const Pair *p = in->aux;
    c->main = p->main.fn;
    c->alt = p->alt.fn;
    c->sign = sign_of(in->t);
    return 1;
}
