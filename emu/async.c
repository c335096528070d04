/* async.c - the asynchronous engine: the queue of operations in flight, when they
 * complete, and what completing one does (see async.h for the contract). */
#include <stdlib.h>
#include <string.h>
#include "async.h"
#include "asyncop.h"
#include "exec.h"
#include "memory.h"
#include "tma.h"
#include "events.h"
#include "fp.h"
#include "observe.h"

struct AsyncQueue {
    AsyncOp *ops;
    uint32_t n, cap;
    int late;               /* PTXEMU_ASYNC=late: complete only when a wait needs it */
};

AsyncQueue *async_queue_new(void)
{
    AsyncQueue *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    const char *p = getenv("PTXEMU_ASYNC");
    q->late = p && !strcmp(p, "late");
    return q;
}

void async_queue_free(AsyncQueue *q)
{
    if (q) free(q->ops);
    free(q);
}

void async_queue_reset(AsyncQueue *q)
{
    q->n = 0;
}

int async_pending(const Cluster *cl)
{
    return cl->aq && cl->aq->n != 0;
}

AsyncOp *async_push(Warp *w, int lane, int kind)
{
    AsyncQueue *q = w->cta->cluster->aq;
    if (q->n == q->cap) {
        uint32_t nc = q->cap ? q->cap * 2 : 64;
        AsyncOp *n = realloc(q->ops, nc * sizeof *n);
        if (!n) return NULL;
        q->ops = n;
        q->cap = nc;
    }
    AsyncOp *op = &q->ops[q->n++];
    memset(op, 0, offsetof(AsyncOp, value));
    op->kind = (uint8_t)kind;
    op->w = w;
    op->lane = (uint8_t)lane;
    op->pc = w->pc;
    if (OBSERVING(w->launch->obs, OBS_SPAN)) op->span_t0 = ev_now();
    return op;
}

/* ---- mbarrier words -------------------------------------------------------------------
 * bits 0-19 arrivals still pending in the current phase, 20-39 the expected count,
 * 40-60 the pending transaction bytes (21-bit two's complement: complete-tx may come
 * before expect-tx), 62 the phase parity, 63 initialised. */

void mbar_complete_tx(uint64_t *m, uint32_t bytes)
{
    mbar_add_tx(m, -(int32_t)bytes);
    mbar_try_flip(m);
}

void mbar_arrive_async(uint64_t *m)
{
    uint64_t v = *m;
    if (MB_PENDING(v)) *m = v - 1;
    mbar_try_flip(m);
}

/* ---- completion ------------------------------------------------------------------------ */

static void reduce_elems(uint8_t *dst, const uint8_t *src, uint32_t size, int redop, int type);

/* f16/bf16 element-wise reductions */
static void red_half(uint8_t *dst, const uint8_t *src, uint32_t size, int type, int op)
{
    for (uint32_t i = 0; i + 2 <= size; i += 2) {
        uint16_t a, b;
        memcpy(&a, dst + i, 2); memcpy(&b, src + i, 2);
        uint32_t r;
        if (op == ARED_ADD) r = type == TY_F16 ? fp_f16_add_rn(a, b) : fp_bf16_add_rn(a, b);
        else {
            /* as measured on an H100: a NaN operand yields the other, two give 0x7fff,
             * -0 orders below +0 */
            uint16_t inf = type == TY_F16 ? 0x7c00 : 0x7f80;
            int an = (a & 0x7fff) > inf, bn = (b & 0x7fff) > inf;
            if (an || bn) r = an && bn ? 0x7fff : an ? b : a;
            else {
                int32_t ka = a & 0x8000 ? -(int32_t)(a & 0x7fff) - 1 : (int32_t)a;
                int32_t kb = b & 0x8000 ? -(int32_t)(b & 0x7fff) - 1 : (int32_t)b;
                r = (op == ARED_MIN) == (ka < kb) ? a : b;
            }
        }
        uint16_t v = (uint16_t)r;
        memcpy(dst + i, &v, 2);
    }
}

/* A tensor copy the H100 refuses: illegal instruction, misaligned address for alignment. */
static int op_fault(AsyncOp *op, const char *msg)
{
    op->w->pc = op->pc;
    int code = strstr(msg, "align") ? EMU_ERR_MISALIGNED_ADDRESS
             : strstr(msg, "outside every allocation") ? EMU_ERR_ILLEGAL_ADDRESS
             : EMU_ERR_ILLEGAL_INSTRUCTION;
    warp_fault(op->w, op->lane, code, "%s", msg);
    return -1;
}

/* Each CTA named by a multicast mask, or just the one destination. */
static int for_targets(AsyncOp *op, uint8_t **dst, uint64_t **mbar, int max)
{
    if (!op->cta_mask) { dst[0] = op->dst; mbar[0] = op->mbar; return 1; }
    Cluster *cl = op->w->cta->cluster;
    int n = 0;
    for (uint32_t r = 0; r < cl->n && n < max; r++)
        if (op->cta_mask >> r & 1) {
            dst[n] = cl->ctas[r]->shared + op->dst_off;
            mbar[n] = op->mbar ? (uint64_t *)(cl->ctas[r]->shared + op->mbar_off) : NULL;
            n++;
        }
    return n;
}

/* complete-tx on m; the race detector checks the bytes land in the phase they were issued
 * in and sees the phase end */
static void signal_tx(AsyncOp *op, uint64_t *m, uint32_t bytes)
{
    Launch *L = op->w->launch;
    if (!op->cta_mask) OBSERVE(L->obs, mbar_tx, op->w, op->pc, op->lane, m, op->tag);
    mbar_complete_tx(m, bytes);
    OBSERVE(L->obs, mbar_sync, L, m);
}

/* The bytes an operation wrote, for the tools: each destination (shared memory of a CTA of
 * the cluster, or global memory; tensor stores tell theirs through tma_store_hook). */
static void tell_written(const AsyncOp *op, uint8_t *const *dst, int n)
{
    uint32_t size = op->kind == AOP_TENSOR ? tma_box_bytes(op->tmap) : op->size;
    if (op->kind == AOP_CPASYNC_ARRIVE || (op->kind == AOP_TENSOR && op->tdir != TMA_LOAD)) return;
    for (int i = 0; i < (op->kind == AOP_BULK || op->kind == AOP_TENSOR ? n : 1); i++)
        OBSERVE(op->w->launch->obs, async_wrote, op->w,
                op->kind == AOP_BULK || op->kind == AOP_TENSOR ? dst[i] : op->dst, size);
}

/* Its span: the operation from its issue to now. */
static void span_op(const AsyncOp *op)
{
    static const char *const names[] = { [AOP_CPASYNC] = "cp.async",
        [AOP_CPASYNC_ARRIVE] = "cp.async.mbarrier.arrive", [AOP_BULK] = "cp.async.bulk",
        [AOP_BULK_REDUCE] = "cp.reduce.async.bulk", [AOP_TENSOR] = "cp.async.bulk.tensor",
        [AOP_ST_ASYNC] = "st.async", [AOP_RED_ASYNC] = "red.async" };
    const Cta *c = op->w->cta;
    Event e = { .kind = EV_ASYNC, .t0 = op->span_t0, .t1 = ev_now(), .launch = op->w->launch->seq,
                .L = op->w->launch,
                .name = op->kind < sizeof names / sizeof names[0] && names[op->kind] ? names[op->kind] : "async",
                .cta_linear = c->linear, .warp = op->w->id, .worker = ev_worker(),
                .bytes = op->kind == AOP_TENSOR ? tma_box_bytes(op->tmap) : op->size };
    OBSERVE(op->w->launch->obs, span, &e);
}

static int complete(AsyncOp *op)
{
    uint8_t *dst[MAX_CLUSTER];
    uint64_t *mbar[MAX_CLUSTER];
    int n = for_targets(op, dst, mbar, MAX_CLUSTER);
    uint32_t obs = op->w->launch->obs;   /* the tools see each landing */
    char err[300];
    switch (op->kind) {
    case AOP_CPASYNC:
        if (op->src_size) memcpy(op->dst, op->src, op->src_size);
        memset(op->dst + op->src_size, 0, op->size - op->src_size);
        OBSERVE(obs, async_land, op->w, op->lane, op->pc, op->dst, op->size, NULL);
        break;
    case AOP_CPASYNC_ARRIVE:
        OBSERVE(obs, async_signal, op->w, op->mbar);
        OBSERVE(obs, mbar_arrive, op->w, NULL, op->mbar);
        mbar_arrive_async(op->mbar);
        OBSERVE(obs, mbar_sync, op->w->launch, op->mbar);
        break;
    case AOP_BULK:
        for (int i = 0; i < n; i++) {
            if (op->byte_mask != 0xffff) {
                for (uint32_t k = 0; k < op->size; k++)
                    if (op->byte_mask >> (k % 16) & 1) dst[i][k] = op->src[k];
            } else
                memmove(dst[i], op->src, op->size);
            OBSERVE(obs, async_land, op->w, op->lane, op->pc, dst[i], op->size, mbar[i]);
            if (mbar[i]) signal_tx(op, mbar[i], op->size);
        }
        break;
    case AOP_BULK_REDUCE:
        reduce_elems(op->dst, op->src, op->size, op->redop, op->rtype);
        OBSERVE(obs, async_land, op->w, op->lane, op->pc, op->dst, op->size, op->mbar);
        if (op->mbar) signal_tx(op, op->mbar, op->size);
        break;
    case AOP_TENSOR: {
        uint32_t bytes = tma_box_bytes(op->tmap);
        for (int i = 0; i < n; i++) {
            uint8_t *smem = op->tdir == TMA_LOAD ? dst[i] : op->dst;
            uint32_t soff = op->tdir == TMA_LOAD ? op->dst_off : op->src_off;
            if (tma_transfer(op->tmap, op->tdir, op->tmode, op->coords, op->ndims, op->offsets,
                             smem, soff, op->smem_avail, op->redop, err, sizeof err) < 0)
                return op_fault(op, err);
            if (op->tdir == TMA_LOAD) OBSERVE(obs, async_land, op->w, op->lane, op->pc, dst[i], bytes, mbar[i]);
            if (mbar[i]) signal_tx(op, mbar[i], bytes);
        }
        break;
    }
    case AOP_ST_ASYNC:
        memcpy(op->dst, op->value, op->size);
        OBSERVE(obs, async_land, op->w, op->lane, op->pc, op->dst, op->size, op->mbar);
        signal_tx(op, op->mbar, op->size);
        break;
    case AOP_RED_ASYNC:
        reduce_elems(op->dst, op->value, op->size, op->redop, op->rtype);
        OBSERVE(obs, async_land, op->w, op->lane, op->pc, op->dst, op->size, op->mbar);
        signal_tx(op, op->mbar, op->size);
        break;
    default:
        break;
    }
    op->done = 1;
    if (OBSERVING(obs, OBS_SPAN)) span_op(op);
    if (OBSERVING(obs, OBS_MEM)) tell_written(op, dst, n);
    return 0;
}

static void compact(AsyncQueue *q)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < q->n; i++)
        if (!q->ops[i].done) q->ops[k++] = q->ops[i];
    q->n = k;
}

/* Complete the operations `want` selects, oldest first. An mbarrier arrive that cp.async
 * triggers waits for the thread's earlier cp.async operations, which complete first. */
typedef int (*Want)(const AsyncOp *op, const void *arg);

static int force(AsyncQueue *q, Want want, const void *arg)
{
    int rc = 0;
    for (uint32_t i = 0; i < q->n && !rc; i++) {
        AsyncOp *op = &q->ops[i];
        if (op->done || !want(op, arg)) continue;
        if (op->kind == AOP_CPASYNC_ARRIVE)
            for (uint32_t j = 0; j < i && !rc; j++) {
                AsyncOp *p = &q->ops[j];
                if (!p->done && p->kind == AOP_CPASYNC && p->w == op->w && p->lane == op->lane)
                    rc = complete(p);
            }
        if (!rc) rc = complete(op);
    }
    compact(q);
    return rc;
}

static int want_all(const AsyncOp *op, const void *arg) { (void)op; (void)arg; return 1; }

static int want_this(const AsyncOp *op, const void *arg) { return op == arg; }

int async_complete_index(Cluster *cl, uint32_t k)
{
    AsyncQueue *q = cl->aq;
    if (!q->n) return 0;
    return force(q, want_this, &q->ops[k % q->n]);
}

const AsyncOp *async_op_at(const Cluster *cl, uint32_t i)
{
    return cl->aq && i < cl->aq->n ? &cl->aq->ops[i] : NULL;
}

uint32_t async_count(const Cluster *cl)
{
    return cl->aq ? cl->aq->n : 0;
}

int async_round(Cluster *cl)
{
    if (!cl->aq->n || cl->aq->late) return 0;
    return force(cl->aq, want_all, NULL);
}

int async_drain(Cluster *cl)
{
    return cl->aq->n ? force(cl->aq, want_all, NULL) : 0;
}

typedef struct GroupWant { const Warp *w; int lane, kind; uint32_t before; } GroupWant;

static int want_group(const AsyncOp *op, const void *arg)
{
    const GroupWant *g = arg;
    int kind = op->kind == AOP_CPASYNC ? GROUP_CPASYNC : op->group_kind;
    return op->w == g->w && op->lane == g->lane && kind == g->kind && op->group < g->before;
}

int async_force_groups(Warp *w, int lane, int kind, uint32_t before)
{
    GroupWant g = { w, lane, kind, before };
    return force(w->cta->cluster->aq, want_group, &g);
}

static int want_mbar(const AsyncOp *op, const void *arg)
{
    (void)arg;
    return op->mbar != NULL;
}

int async_force_mbarriers(Warp *w)
{
    return force(w->cta->cluster->aq, want_mbar, NULL);
}

/* ---- element-wise reductions (cp.reduce.async.bulk, red.async) -------------------------- */

#define RED_INT(NAME, T, ST)                                                              \
    static void red_##NAME(T *d, const T *s, uint32_t n, int op)                          \
    {                                                                                     \
        for (uint32_t i = 0; i < n; i++) {                                                \
            T old = __atomic_load_n(&d[i], __ATOMIC_RELAXED), v, b = s[i];                \
            do {                                                                          \
                switch (op) {                                                             \
                case ARED_ADD: v = old + b; break;                                        \
                case ARED_MIN: v = (ST)old < (ST)b ? old : b; break;                      \
                case ARED_MAX: v = (ST)old > (ST)b ? old : b; break;                      \
                case ARED_INC: v = old >= b ? 0 : old + 1; break;                         \
                case ARED_DEC: v = (old == 0 || old > b) ? b : old - 1; break;            \
                case ARED_AND: v = old & b; break;                                        \
                case ARED_OR: v = old | b; break;                                         \
                default: v = old ^ b; break;                                              \
                }                                                                         \
            } while (!__atomic_compare_exchange_n(&d[i], &old, v, 0, __ATOMIC_RELAXED,    \
                                                  __ATOMIC_RELAXED));                     \
        }                                                                                 \
    }
RED_INT(u32, uint32_t, uint32_t)
RED_INT(u64, uint64_t, uint64_t)
RED_INT(s32, uint32_t, int32_t)   /* signed: only min/max compare differently */
RED_INT(s64, uint64_t, int64_t)

/* min/max of f32 bit patterns: -0 orders below +0; a NaN operand yields the other one,
 * two NaNs the canonical NaN (H100 bulk reductions). */
static uint32_t fminmax32(uint32_t a, uint32_t b, int op)
{
    int an = (a & 0x7fffffffu) > 0x7f800000u, bn = (b & 0x7fffffffu) > 0x7f800000u;
    if (an || bn) return an && bn ? 0x7fffffffu : an ? b : a;
    /* map the bit patterns to integers that order like the floats, -0 below +0 */
    int32_t ka = (int32_t)(a & 0x80000000u ? ~a : a | 0x80000000u) ^ INT32_MIN;
    int32_t kb = (int32_t)(b & 0x80000000u ? ~b : b | 0x80000000u) ^ INT32_MIN;
    return (op == ARED_MIN) == (ka < kb) ? a : b;
}

static void red_float(uint8_t *d, const uint8_t *s, uint32_t size, int type, int op)
{
    if (type == TY_F32) {
        uint32_t *dd = (uint32_t *)d;
        for (uint32_t i = 0; i < size / 4; i++) {
            uint32_t old = __atomic_load_n(&dd[i], __ATOMIC_RELAXED), v, b;
            memcpy(&b, s + 4 * i, 4);
            do {
                float x, y;
                memcpy(&x, &old, 4); memcpy(&y, &b, 4);
                v = fminmax32(old, b, op);
                if (op == ARED_ADD) {
                    /* measured on an H100: subnormals kept, any NaN result is 0x7fffffff */
                    float r = x + y;
                    memcpy(&v, &r, 4);
                    if (r != r) v = 0x7fffffffu;
                }
            } while (!__atomic_compare_exchange_n(&dd[i], &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        }
        return;
    }
    uint64_t *dd = (uint64_t *)d;
    for (uint32_t i = 0; i < size / 8; i++) {
        uint64_t old = __atomic_load_n(&dd[i], __ATOMIC_RELAXED), v, b;
        memcpy(&b, s + 8 * i, 8);
        do {
            double x, y, r;
            memcpy(&x, &old, 8); memcpy(&y, &b, 8);
            r = op == ARED_MIN ? (x < y ? x : y) : op == ARED_MAX ? (x > y ? x : y) : x + y;
            memcpy(&v, &r, 8);
            /* measured on an H100 (tests/ptx-async/reduce_global): a NaN source wins, else
             * a NaN destination stays as it was, bits unchanged */
            if (y != y) v = b;
            else if (x != x) v = old;
        } while (!__atomic_compare_exchange_n(&dd[i], &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    }
}

static void reduce_elems(uint8_t *dst, const uint8_t *src, uint32_t size, int redop, int type)
{
    switch (type) {
    case TY_S32: red_s32((uint32_t *)dst, (const uint32_t *)src, size / 4, redop); break;
    case TY_S64: red_s64((uint64_t *)dst, (const uint64_t *)src, size / 8, redop); break;
    case TY_U64: case TY_B64: red_u64((uint64_t *)dst, (const uint64_t *)src, size / 8, redop); break;
    case TY_F32: case TY_F64: red_float(dst, src, size, type, redop); break;
    case TY_F16: case TY_BF16: red_half(dst, src, size, type, redop); break;
    default: red_u32((uint32_t *)dst, (const uint32_t *)src, size / 4, redop); break;
    }
}
