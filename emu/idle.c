/* idle.c - blocks of a launch whose every thread leaves at the kernel's first branch (idle.h).
 *
 * The start of the kernel is evaluated once a launch, symbolically: a register holds an
 * affine form c + a.tid + b.ctaid with exact integer coefficients, where %ntid, %nctaid,
 * constants and kernel parameters are the launch's numbers. The first guarded branch (or
 * guarded ret/exit) is the guard: when one side of it is `ret`/`exit`, the threads that go
 * there are those where a comparison of two such forms holds. A comparison is exact only
 * where neither side can wrap, so the range of every value compared or widened is checked
 * over the whole grid; add, sub, mul.lo and mad.lo wrap as the forms do (arithmetic modulo
 * 2^width), so they need no check. Over a block the form's extremes lie at the corners of
 * %tid's box, which leaves a linear condition on %ctaid: S = b.ctaid >= bound (or <=).
 * Anything else - a load, a store, a call, a guarded instruction before the guard, a
 * special register that is not one of those four - ends the walk and no block is idle. */
#include <stdlib.h>
#include <string.h>
#include "idle.h"
#include "machine.h"
#include "exec.h"
#include "model.h"

typedef __int128 I128;
#define NV 6                    /* tid.x, tid.y, tid.z, ctaid.x, ctaid.y, ctaid.z */
#define WALK_MAX 64             /* instructions looked at before giving up */
#define COEF_MAX ((I128)1 << 96)

typedef struct Aff { I128 c, a[NV]; uint8_t w, ok; } Aff;   /* w: bits the row holds */
typedef struct Cmp { Aff d; int cmp, ok; } Cmp;             /* d cmp 0, exact integers */

typedef struct Walk {
    const Launch *L;
    const Program *p;
    I128 hi[NV];                /* each variable's largest value (the smallest is 0) */
    Aff *row;                   /* by row: what the walk knows of it                   */
    Cmp *pred;                  /* by predicate                                        */
    uint32_t steps, idle_steps, slots;
} Walk;

static I128 lim(int w) { return (I128)1 << w; }

/* the comparison that holds where cmp does not (integers: no NaN) */
static int flip(int cmp)
{
    static const int neg[] = { [CMP_LT] = CMP_GE, [CMP_LE] = CMP_GT, [CMP_GT] = CMP_LE, [CMP_GE] = CMP_LT };
    return neg[cmp];
}

static int coef_ok(const Aff *x)
{
    if (x->c >= COEF_MAX || x->c <= -COEF_MAX) return 0;
    for (int i = 0; i < NV; i++)
        if (x->a[i] >= COEF_MAX || x->a[i] <= -COEF_MAX) return 0;
    return 1;
}

static int is_const(const Aff *x)
{
    for (int i = 0; i < NV; i++)
        if (x->a[i]) return 0;
    return 1;
}

/* The smallest and largest value of x over the grid and the block. */
static void range(const Walk *k, const Aff *x, I128 *mn, I128 *mx)
{
    *mn = *mx = x->c;
    for (int i = 0; i < NV; i++) {
        I128 t = x->a[i] * k->hi[i];
        if (t < 0) *mn += t; else *mx += t;
    }
}

/* x read as a w-bit integer of signedness s: the same form when every value it takes fits
 * (then the bits are the number), a constant reduced to the type, else not ok. */
static Aff exact(const Walk *k, Aff x, int w, int s)
{
    if (!x.ok || x.w < w) { x.ok = 0; return x; }
    if (is_const(&x)) {
        I128 v = x.c % lim(w);
        if (v < 0) v += lim(w);
        if (s && v >= lim(w - 1)) v -= lim(w);
        x.c = v;
    } else {
        I128 mn, mx;
        range(k, &x, &mn, &mx);
        x.ok = s ? mn >= -lim(w - 1) && mx < lim(w - 1) : mn >= 0 && mx < lim(w);
    }
    x.w = (uint8_t)w;
    return x;
}

/* What row r holds at the walk's point: a special register, a constant of the launch, or
 * what an earlier instruction wrote. */
static Aff row_value(const Walk *k, uint32_t r)
{
    Aff x;
    memset(&x, 0, sizeof x);
    for (int id = SR_TID_X; id <= SR_NCTAID_Z; id++) {
        if (k->p->sreg_row[id] != (int32_t)r) continue;
        x.ok = 1;
        x.w = 32;
        if (id <= SR_TID_Z) x.a[id - SR_TID_X] = 1;
        else if (id >= SR_CTAID_X && id <= SR_CTAID_Z) x.a[3 + id - SR_CTAID_X] = 1;
        else if (id <= SR_NTID_Z) x.c = k->L->block[id - SR_NTID_X];
        else x.c = k->L->grid[id - SR_NCTAID_X];
        return x;
    }
    for (int id = 0; id < SR_COUNT_STATIC; id++)
        if (k->p->sreg_row[id] == (int32_t)r) return x;   /* another special register */
    if (r < k->p->first_var_row) {
        x.ok = 1;
        x.w = 64;
        x.c = (I128)k->L->const_rows[(size_t)r * WARP_SIZE];
        return x;
    }
    return r < k->p->nrows ? k->row[r] : x;
}

static Aff add(Aff x, const Aff *y, int sign)
{
    x.ok = x.ok && y->ok;
    x.c += sign * y->c;
    for (int i = 0; i < NV; i++) x.a[i] += sign * y->a[i];
    return x;
}

/* x * y where one of them is a constant; not ok otherwise */
static Aff mul(Aff x, Aff y)
{
    if (!is_const(&x)) { Aff t = x; x = y; y = t; }
    if (!is_const(&x)) { y.ok = 0; return y; }
    y.c *= x.c;
    for (int i = 0; i < NV; i++) y.a[i] *= x.c;
    y.ok = x.ok && y.ok;
    return y;
}

/* Ring arithmetic of width w: any representative of the sources' bits will do. */
static Aff ring(const Walk *k, uint32_t r, int w)
{
    Aff x = row_value(k, r);
    if (x.w < w) x.ok = 0;
    else if (is_const(&x)) x = exact(k, x, w, 1);   /* small numbers keep the forms' ranges small */
    return x;
}

/* 1 for .s32/.s64, 0 for .u32/.u64, -1 for any other type */
static int int_sign(int t)
{
    return t == TY_S32 || t == TY_S64 ? 1 : t == TY_U32 || t == TY_U64 ? 0 : -1;
}

/* The value an integer instruction writes, or not ok. */
static Aff arith(const Walk *k, const Inst *in)
{
    Aff x, bad;
    memset(&bad, 0, sizeof bad);
    int bits, sgn, form = int_affine_form(in, &bits, &sgn);
    switch (form) {
    case IA_ADD: case IA_SUB:
        { Aff y = ring(k, in->s[1], bits); x = add(ring(k, in->s[0], bits), &y, form == IA_ADD ? 1 : -1); }
        break;
    case IA_MUL: case IA_MAD:
        x = mul(ring(k, in->s[0], bits), ring(k, in->s[1], bits));
        if (form == IA_MAD) { Aff y = ring(k, in->s[2], bits); x = add(x, &y, 1); }
        break;
    case IA_MUL_WIDE: case IA_MAD_WIDE:
        x = mul(exact(k, row_value(k, in->s[0]), bits, sgn), exact(k, row_value(k, in->s[1]), bits, sgn));
        bits *= 2;
        if (form == IA_MAD_WIDE) { Aff y = ring(k, in->s[2], bits); x = add(x, &y, 1); }
        break;
    default:
        if (in->op == OP_shl && (bits = shl_bits(in))) {
            Aff n = exact(k, row_value(k, in->s[1]), 32, 0);
            if (!n.ok || !is_const(&n) || n.c >= bits) return bad;
            x = mul(ring(k, in->s[0], bits), (Aff){ .c = (I128)1 << (int)n.c, .w = 64, .ok = 1 });
        } else if (in->op == OP_cvt && !(in->flags & IF_SAT) && int_sign(in->t) >= 0 && int_sign(in->t2) >= 0) {
            int dw = 8 * ptx_type_size(in->t), sw = 8 * ptx_type_size(in->t2);
            /* widening extends by the source's sign: the exact value; narrowing wraps */
            x = dw > sw ? exact(k, row_value(k, in->s[0]), sw, int_sign(in->t2)) : ring(k, in->s[0], dw);
            bits = dw;
        } else if (in->op == OP_mov && in->nd == 1 && in->ns == 1 &&
                   (ptx_type_size(in->t) == 4 || ptx_type_size(in->t) == 8)) {
            bits = 8 * ptx_type_size(in->t);
            x = ring(k, in->s[0], bits);
        } else {
            return bad;
        }
    }
    x.w = (uint8_t)bits;
    if (x.ok) x.ok = coef_ok(&x);
    return x;
}

/* Instructions that only compute registers: the walk goes past them, forgetting what they
 * write when it cannot follow them. Everything else (memory, barriers, calls, anything
 * another thread could see or that could fault) ends it. */
static int pure(const Inst *in)
{
    if (in->flags & IF_PREEMPT) return 0;
    switch (in->op) {
    case OP_add: case OP_sub: case OP_mul: case OP_mad: case OP_shl: case OP_shr: case OP_and:
    case OP_or: case OP_xor: case OP_not: case OP_cvt: case OP_cvta: case OP_mov: case OP_setp:
    case OP_selp: case OP_min: case OP_max: case OP_neg: case OP_abs:
        return 1;
    default:
        return 0;
    }
}

static int exits(const Inst *in)
{
    return (in->op == OP_ret || in->op == OP_exit) && in->pg == PRED_TRUE && !in->pneg;
}

/* pc reaches ret/exit through unconditional branches only: the instructions it takes, or 0 */
static uint32_t exit_path(const Program *p, uint32_t pc, uint32_t *slots)
{
    for (uint32_t n = 1; n <= 4 && pc < p->ncode; n++) {
        const Inst *in = &p->code[pc];
        *slots += in->cost;
        if (exits(in)) return n;
        if (in->op != OP_bra || in->pg != PRED_TRUE || in->pneg) return 0;
        pc = (uint32_t)in->imm;
    }
    return 0;
}

static void set_pred(Walk *k, const Inst *in)
{
    int bits, sgn, cmp = int_cmp_form(in, &bits, &sgn);
    Cmp c;
    memset(&c, 0, sizeof c);
    if (cmp >= CMP_LT && cmp <= CMP_GE) {
        Aff a = exact(k, row_value(k, in->s[0]), bits, sgn), b = exact(k, row_value(k, in->s[1]), bits, sgn);
        c.d = add(a, &b, -1);
        c.cmp = cmp;
        c.ok = a.ok && b.ok && coef_ok(&c.d);
    }
    if (in->op == OP_not && in->t == TY_PRED && in->s[0] < k->p->npreds && k->pred[in->s[0]].ok) {
        c = k->pred[in->s[0]];
        c.cmp = flip(c.cmp);
    }
    for (int i = 0; i < in->nd && i < 2; i++) {
        if (in->d[i] >= k->p->npreds) continue;
        k->pred[in->d[i]] = c;
        if (i == 1 && c.ok) k->pred[in->d[1]].cmp = flip(c.cmp);   /* setp's complement */
    }
}

/* The rule from the guard: threads where `exit_if` (d cmp 0) holds leave. Every thread of a
 * block leaves when the condition holds at the worst corner of %tid's box. */
static int rule_from(const Walk *k, Cmp e, IdleRule *r)
{
    I128 tmin = e.d.c, tmax = e.d.c;
    for (int i = 0; i < 3; i++) {
        I128 t = e.d.a[i] * k->hi[i];
        if (t < 0) tmin += t; else tmax += t;
    }
    for (int i = 0; i < 3; i++) r->b[i] = (int64_t)e.d.a[3 + i];
    /* S + tmax < 0, S + tmax <= 0, S + tmin > 0, S + tmin >= 0 */
    switch (e.cmp) {
    case CMP_LT: r->dir = -1; r->bound = -tmax - 1; break;
    case CMP_LE: r->dir = -1; r->bound = -tmax; break;
    case CMP_GT: r->dir = 1; r->bound = -tmin + 1; break;
    case CMP_GE: r->dir = 1; r->bound = -tmin; break;
    default: return 0;
    }
    return 1;
}

/* Walk the kernel's start to its guard; 1 with r's condition set, else 0. */
static int walk(Walk *k, IdleRule *r)
{
    const Program *p = k->p;
    uint32_t pc = 0;
    for (uint32_t n = 0; n < WALK_MAX && pc < p->ncode; n++) {
        const Inst *in = &p->code[pc];
        int guarded = in->pg != PRED_TRUE || in->pneg;
        if (in->op == OP_bra || in->op == OP_ret || in->op == OP_exit) {
            if (!guarded) {
                if (in->op != OP_bra) {   /* every thread leaves: every block is idle */
                    k->steps++;
                    k->slots += in->cost;
                    r->dir = 1; r->bound = 0; memset(r->b, 0, sizeof r->b);
                    return 1;
                }
                k->steps++;
                k->slots += in->cost;
                pc = (uint32_t)in->imm;
                continue;
            }
            if (in->pg >= p->npreds || !k->pred[in->pg].ok) return 0;
            Cmp e = k->pred[in->pg];
            if (in->pneg) e.cmp = flip(e.cmp);
            uint32_t slots = 0, len;
            if (in->op != OP_bra) {                       /* @p ret: the guard's lanes leave */
                len = 1;
            } else if ((len = exit_path(p, (uint32_t)in->imm, &slots))) {   /* taken: leave */
                len++;
            } else {                                      /* the others leave: after the bra */
                slots = 0;
                if (!(len = exit_path(p, pc + 1, &slots))) return 0;
                len++;
                e.cmp = flip(e.cmp);
                k->idle_steps++;   /* in an idle block no lane takes it */
            }
            k->steps += len;
            k->slots += in->cost + slots;
            return rule_from(k, e, r);
        }
        if (guarded || !pure(in)) return 0;
        k->steps++;
        k->slots += in->cost;
        if (in->op == OP_setp || in->t == TY_PRED) {   /* writes predicates */
            set_pred(k, in);
        } else {
            Aff x = arith(k, in);
            for (int i = 0; i < in->nd; i++)
                if (in->d[i] < p->nrows) {
                    Aff u;
                    memset(&u, 0, sizeof u);
                    k->row[in->d[i]] = i == 0 && in->nd == 1 ? x : u;
                }
        }
        pc++;
    }
    return 0;
}

static I128 floor_div(I128 a, I128 b)
{
    I128 q = a / b;
    return a % b && (a < 0) != (b < 0) ? q - 1 : q;
}

static I128 clamp(I128 v, uint64_t n) { return v < 0 ? 0 : v > (I128)n ? (I128)n : v; }

/* Blocks [lo, hi) of a one-dimensional grid of n hold every busy one: idle is c*x >= d
 * (the rule times its direction), a half-line of x. */
static void bounds_1d(IdleRule *r, uint64_t n)
{
    I128 c = (I128)r->dir * r->b[0], d = (I128)r->dir * r->bound, lo = 0, hi = n;
    if (c == 0) hi = 0 >= d ? 0 : n;
    else if (c > 0) hi = clamp(-floor_div(-d, c), n);      /* idle from ceil(d / c) on */
    else lo = clamp(floor_div(d, c) + 1, n);               /* idle up to floor(d / c) */
    r->lo = (uint64_t)lo;
    r->hi = (uint64_t)(hi < lo ? lo : hi);
}

int idle_block(const Launch *L, uint64_t index)
{
    const IdleRule *r = &L->idle;
    uint64_t x = index % L->grid[0], y = index / L->grid[0] % L->grid[1], z = index / ((uint64_t)L->grid[0] * L->grid[1]);
    I128 s = (I128)r->b[0] * x + (I128)r->b[1] * y + (I128)r->b[2] * z;
    return r->dir > 0 ? s >= r->bound : s <= r->bound;
}

void idle_count(Launch *L, uint64_t n)
{
    if (!n) return;
    IdleRule *r = &L->idle;
    __atomic_fetch_add(&r->skipped, n, __ATOMIC_RELAXED);
    __atomic_fetch_add(&L->warp_insts, n * r->warp_insts, __ATOMIC_RELAXED);
    __atomic_fetch_add(&L->warp_slots, n * r->slots, __ATOMIC_RELAXED);
    __atomic_fetch_add(&L->thread_insts, n * r->thread_insts, __ATOMIC_RELAXED);
    WarpMax m = { r->warp_slots, r->warp_steps, 0, 0 };
    model_warps_done(L, &m);
}

void idle_plan(Launch *L, int plain)
{
    IdleRule *r = &L->idle;
    const Program *p = L->prog;
    uint64_t n = L->ncta;
    memset(r, 0, sizeof *r);
    r->hi = n / (L->cluster_size ? L->cluster_size : 1);   /* clusters: every one is handed out */
    const char *env = getenv("PTXEMU_IDLE_BLOCKS");
    if ((env && !strcmp(env, "run")) || !plain || L->obs || L->cooperative || L->cluster_size != 1 || !n)
        return;
    Walk k;
    memset(&k, 0, sizeof k);
    k.L = L;
    k.p = p;
    for (int i = 0; i < 3; i++) { k.hi[i] = (I128)L->block[i] - 1; k.hi[3 + i] = (I128)L->grid[i] - 1; }
    k.row = calloc(p->nrows ? p->nrows : 1, sizeof *k.row);
    k.pred = calloc(p->npreds ? p->npreds : 1, sizeof *k.pred);
    int ok = k.row && k.pred && walk(&k, r);
    free(k.row);
    free(k.pred);
    if (!ok) { memset(r, 0, sizeof *r); r->hi = n; return; }
    uint64_t threads = (uint64_t)L->block[0] * L->block[1] * L->block[2];
    uint64_t warps = (threads + WARP_SIZE - 1) / WARP_SIZE, runs = k.steps - k.idle_steps;
    r->warp_insts = warps * runs;
    r->slots = warps * k.slots;
    r->thread_insts = threads * runs;
    r->warp_steps = k.steps;
    r->warp_slots = k.slots;
    if (L->grid[1] == 1 && L->grid[2] == 1) {
        bounds_1d(r, n);
        idle_count(L, n - (r->hi - r->lo));
        r->on = 0;   /* every block in [lo, hi) is busy */
    } else {   /* test each block, if one can be idle at all: S's extreme over the grid */
        I128 mn = 0, mx = 0;
        for (int i = 0; i < 3; i++) {
            I128 t = (I128)r->b[i] * (L->grid[i] - 1);
            if (t < 0) mn += t; else mx += t;
        }
        r->on = r->dir > 0 ? mx >= r->bound : mn <= r->bound;
    }
}
