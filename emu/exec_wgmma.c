/* exec_wgmma.c - wgmma: the warpgroup-level matrix multiply of sm_90a.
 *
 * wgmma.mma_async.sync.aligned: m64nNk16 with f16 or bf16 operands and f32 accumulators, or
 * f16 operands and f16 accumulators; m64nNk8 on tf32; m64nNk32 on s8/u8 with s32 accumulators
 * (.satfinite too); A from registers or from a shared-memory descriptor, B from a descriptor;
 * scale-d, imm-scale-a/b and imm-trans-a/b. (tests/cuda/wgmma_types.cu for tf32 and 8-bit.) The four warps of a
 * warpgroup (warps 4q .. 4q+3 of the CTA) each compute their own 16 rows of the 64 x N
 * result: rows 16r .. 16r+15 for the warp of rank r. Recorded on the H100 by
 * tests/cuda/wgmma_probe.cu; what was measured:
 *   - accumulators: register i of a lane (g = lane/4, t = lane%4) holds row
 *     16r + g + 8(i%4/2), column 8(i/4) + 2t + i%2; f16 accumulators hold those elements in
 *     pairs, low half first;
 *   - A in registers: register j holds row g + 8(j%2), columns (j/2) K/2 + t E .. +E-1 of the
 *     warp's 16 rows (E elements a register), as mma's A fragment;
 *   - descriptors: start address, leading byte offset (LBO) and stride byte offset (SBO),
 *     in 16-byte units, swizzle mode in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B). A K-major
 *     operand (rows r of M or N, columns k of K) is made of 8 x 16-byte core matrices: element
 *     (r, k) of es bytes (p = 16/es a row) is at start + (r/8) SBO + (k/p) LBO + (r%8) 16 +
 *     (k%p) es without swizzle; with a swizzle of S bytes, at start + (r/8) SBO + (r%8) S + k es with
 *     the 16-byte chunk bits 4.. of the address XORed with bits 7.. (3, 2, 1 bits for S =
 *     128, 64, 32). A transposed (MN-major) operand without swizzle: (mn/8) SBO + (k/8) LBO
 *     + (k%8) 16 + (mn%8) 2; with a swizzle of S bytes (S/2 elements of M/N a row):
 *     (k/8) SBO + (mn/(S/2)) LBO + (k%8) S + (mn%(S/2)) 2, then the same XOR;
 *   - the arithmetic of each dot product is mma's (tc_dot, emu/exec_mma.c); integers are exact.
 * Sparse (wgmma.mma_async.sp m64nNk32 f16, bind_mma_async_sp) too.
 * Not yet measured, so rejected or reported: a nonzero base offset, fp8 and b1 types.
 *
 * The four warps wait for each other at every wgmma.mma_async (warpgroup_gate). The
 * operation is then in flight: it joins the warp's open group (commit_group closes it) and
 * is computed at the latest legal moment, when a wait_group needs its group - for all four
 * warps of the warpgroup at once. Until then the accumulators keep their old values and
 * shared memory written meanwhile is what the operation reads, as an asynchronous unit's
 * would be; reading the accumulators early is not reported yet (issue 10).
 */
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "tcore.h"
#include "observe.h"
#include "scheduler.h"
#include "engine.h"

/* RowList.cfg of wgmma.mma_async */
#define WG_N(v) ((int)((v) & 511))
#define WG_FMT(v) ((int)((v) >> 9 & 3))
#define WG_ACC16(v) ((int)((v) >> 11 & 1))
#define WG_AREG(v) ((int)((v) >> 12 & 1))
#define WG_NEGA(v) ((int)((v) >> 13 & 1))
#define WG_NEGB(v) ((int)((v) >> 14 & 1))
#define WG_TA(v) ((int)((v) >> 15 & 1))
#define WG_TB(v) ((int)((v) >> 16 & 1))
#define WG_SDIMM(v) ((int)((v) >> 17 & 1))   /* scale-d is an immediate ...   */
#define WG_SDVAL(v) ((int)((v) >> 18 & 1))   /* ... with this value           */
#define WG_INT(v) ((int)((v) >> 19 & 1))     /* 8-bit integers, s32 accumulators */
#define WG_SA(v) ((int)((v) >> 20 & 1))      /* A signed (s8)                    */
#define WG_SB(v) ((int)((v) >> 21 & 1))
#define WG_SAT(v) ((int)((v) >> 22 & 1))     /* .satfinite                       */
#define WG_SP(v) ((int)((v) >> 23 & 1))      /* .sp: 2:4 sparse A (K = 32)       */
#define WG_SEL(v) ((int)((v) >> 24 & 1))     /* its sparsity selector            */
#define WG_FP8(v) ((int)((v) >> 25 & 1))     /* fp8 A and B (K = 32)             */
#define WG_AE5(v) ((int)((v) >> 26 & 1))     /* A is e5m2 (else e4m3)            */
#define WG_BE5(v) ((int)((v) >> 27 & 1))
#define WG_B1(v) ((int)((v) >> 28 & 1))      /* b1 .and.popc: bytes of 8 bits (K = 256) */

/* The shared-memory address of element (r, k), of es bytes, under descriptor desc (r along M
 * or N); -1 where the layout is not one that was measured. */
static int64_t desc_addr(uint64_t desc, int r, int k, int trans, int es)
{
    uint64_t start = (desc & 0x3fff) << 4, lbo = (desc >> 16 & 0x3fff) << 4, sbo = (desc >> 32 & 0x3fff) << 4;
    int swz = (int)(desc >> 62), base_off = (int)(desc >> 49 & 7), per = 16 / es;   /* elements a 16-byte row */
    if (base_off) return -1;
    if (trans && !swz)
        return (int64_t)(start + (uint64_t)(r / 8) * sbo + (uint64_t)(k / 8) * lbo + (uint64_t)(k % 8) * 16 + (uint64_t)(r % 8) * 2);
    if (!swz) return (int64_t)(start + (uint64_t)(r / 8) * sbo + (uint64_t)(k / per) * lbo + (uint64_t)(r % 8) * 16 + (uint64_t)(k % per) * (uint64_t)es);
    int S = swz == 1 ? 128 : swz == 2 ? 64 : 32, bits = swz == 1 ? 7 : swz == 2 ? 3 : 1;
    uint64_t a;
    if (trans)   /* S/2 elements of M/N per row of the atom; LBO steps atoms along M/N, SBO along K */
        a = start + (uint64_t)(k / 8) * sbo + (uint64_t)(r / (S / 2)) * lbo + (uint64_t)(k % 8) * (uint64_t)S + (uint64_t)(r % (S / 2)) * 2;
    else
        a = start + (uint64_t)(r / 8) * sbo + (uint64_t)(r % 8) * (uint64_t)S + (uint64_t)k * (uint64_t)es;
    return (int64_t)(a ^ ((a >> 7 & (uint64_t)bits) << 4));
}

/* Reads element (r, k) through a descriptor; fills *v, or returns nonzero after a fault.
 * The race detector sees each read as lane 0's, through the async proxy. */
static int read_elem(Warp *w, const Inst *in, uint64_t desc, int r, int k, int trans, int es, uint32_t *v)
{
    int64_t a = desc_addr(desc, r, k, trans, es);
    if (a < 0) {
        warp_fault(w, 0, EMU_ERR_ILLEGAL_INSTRUCTION, "wgmma: a shared-memory descriptor with a nonzero "
                   "base offset is not implemented yet: its semantics were not measured");
        return 1;
    }
    uint8_t *p = mem_lane_ptr(w, SP_SHARED, (uint64_t)a, (unsigned)es, (unsigned)es, 0, ACC_READ);
    if (!p) return 1;
    if (w->launch && OBSERVING(w->launch->obs, OBS_MEM | OBS_ASYNC)) {
        /* ordered with other threads' writes, and read through the async proxy: written
         * by the generic proxy, it needs fence.proxy.async in between */
        uint8_t *host[WARP_SIZE] = { p };
        OBSERVE(w->launch->obs, mem, w, in, 1u, (unsigned)es, ACC_READ, host);
        OBSERVE(w->launch->obs, async_proxy_read, w, 0, p, (uint32_t)es);
    }
    *v = 0;
    memcpy(v, p, (size_t)es);   /* little-endian host */
    return 0;
}

/* An 8-bit integer dot product: exact, wrapped to 32 bits or clamped with .satfinite; with
 * b1, the bits of a and b's 32 bytes ANDed and counted. */
static uint32_t int_dot(const uint32_t *a, const uint32_t *b, int K, int sa, int sb, int32_t c, int sat, int b1)
{
    if (b1) {
        uint32_t n = (uint32_t)c;
        for (int k = 0; k < K; k++) n += (uint32_t)__builtin_popcount(a[k] & b[k]);
        return n;
    }
    int64_t sum = c;
    for (int k = 0; k < K; k++)
        sum += (int64_t)(sa ? (int8_t)a[k] : (uint8_t)a[k]) * (sb ? (int8_t)b[k] : (uint8_t)b[k]);
    if (sat) sum = sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : sum;
    return (uint32_t)sum;
}

/* The four warps of a warpgroup issue a wgmma together: the tensor cores start when all of
 * them have issued it, and a wait_group that returns means every warp's operands were read.
 * Programs rely on it (CUTLASS reuses the operands' shared memory after wait_group without
 * a barrier), so a warp that arrives first parks (like bar.sync, but with its pc left on the
 * wgmma, which it executes again when released) until the last warp of its warpgroup arrives.
 * Returns STEP_BLOCK while it must wait, STEP_NEXT to go on. */
static int wgmma_issue(Warp *w, const Inst *in);
enum { WG_ISSUED = 100 };   /* warpgroup_gate: released, and the opener issued the operation */

static int warpgroup_gate(Warp *w, const Inst *in, uint32_t mask)
{
    Cta *c = w->cta;
    uint32_t q = w->id / 4, first = 4 * q, n = 0;
    if (q >= 8) return STEP_NEXT;
    if (w->wg_target && c->wg_gen[q] >= w->wg_target) {   /* released */
        w->wg_target = 0;
        if (w->wg_issued) { w->wg_issued = 0; return WG_ISSUED; }
        return STEP_NEXT;
    }
    for (uint32_t i = first; i < first + 4 && i < c->nwarps; i++) n += c->warps[i].alive != 0;
    w->wg_target = c->wg_gen[q] + 1;
    if (++c->wg_arrived[q] < n) {   /* park */
        w->waiting |= mask;
        w->bar_wait |= mask;
        for (uint32_t m = mask; m; m &= m - 1) w->bar_id[__builtin_ctz(m)] = WGMMA_GATE_ID;
        warp_regroup(w);
        return STEP_BLOCK;
    }
    c->wg_arrived[q] = 0;   /* the last one opens the gate and releases the others */
    c->wg_gen[q]++;
    w->wg_target = 0;
    for (uint32_t i = first; i < first + 4 && i < c->nwarps; i++) {
        Warp *o = &c->warps[i];
        uint32_t lanes = 0;
        for (uint32_t m = o->bar_wait; m; m &= m - 1)
            if (o->bar_id[__builtin_ctz(m)] == WGMMA_GATE_ID) lanes |= 1u << __builtin_ctz(m);
        if (!lanes) continue;
        /* the gate's opener issues the operation of every warp it releases, at once: a
         * released warp may run only later, and a warp of the group must not see its wait
         * complete before the whole warpgroup's operation was issued (the hardware's
         * operation is one, for the warpgroup) */
        const Inst *oin = o->pc < o->prog->ncode && o->prog->code[o->pc].op == OP_wgmma ? &o->prog->code[o->pc] : in;
        int r = wgmma_issue(o, oin);
        if (r != STEP_NEXT) return r;
        o->wg_issued = 1;
        o->bar_wait &= ~lanes;
        warp_unpark(o, lanes);
    }
    return STEP_NEXT;
}

/* An operation in flight: what was read at issue (descriptors, scale-d, A's registers, the
 * sparse metadata); shared memory and the accumulators are read when it completes. */
typedef struct WgOp {
    const Inst *in;
    uint32_t warp, group, scale_d;
    uint64_t da, db;
    uint32_t areg[4][WARP_SIZE], meta[WARP_SIZE];
} WgOp;
typedef struct WgQueue { WgOp *ops; uint32_t n, cap; } WgQueue;

void wgmma_free_queue(Cta *c)
{
    if (!c->wgq) return;
    free(c->wgq->ops);
    free(c->wgq);
    c->wgq = NULL;
}

/* Sparse A: compressed value x of row i (of the warp's 16), compressed column c, goes where
 * the metadata says - 16-bit types as mma.sp m16n8k32's, tf32 counting halves as mma.sp
 * tf32's, 8-bit types as mma.sp m16n8k64 s8's. */
static void sp_place(const WgOp *op, int64_t v, uint32_t a[16][64], int i, int c, uint32_t x)
{
    if (WG_INT(v) || WG_FP8(v)) {
        int q = c / 2;
        uint32_t nib = op->meta[4 * (i % 8) + i / 8 + 2 * (q / 8)] >> (4 * (q % 8)) & 15;
        a[i][4 * q + ((c % 2 ? nib >> 2 : nib) & 3)] = x;
    } else if (WG_FMT(v) == TC_TF32) {
        uint32_t nib = op->meta[4 * (i % 8) + 2 * WG_SEL(v) + c / 4] >> (4 * (c % 4 + 4 * (i / 8))) & 15;
        a[i][2 * c + ((nib & 3) >= 2)] = x;
    } else {
        int q = c / 2;
        uint32_t nib = op->meta[4 * (i % 8) + 2 * WG_SEL(v) + q / 4] >> (4 * (q % 4 + 4 * (i / 8))) & 15;
        a[i][4 * q + ((c % 2 ? nib >> 2 : nib) & 3)] = x;
    }
}

/* Computes op into its warp's accumulators. */
static int wgmma_compute(Warp *w, const WgOp *op)
{
    const Inst *in = op->in;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int N = WG_N(v), f = WG_FMT(v), acc16 = WG_ACC16(v), isint = WG_INT(v), rank = (int)(w->id % 4);
    int fp8 = WG_FP8(v), bytes = isint || fp8;
    int sp = WG_SP(v), K = sp ? (bytes ? 64 : f == TC_TF32 ? 16 : 32) : bytes ? 32 : f == TC_TF32 ? 8 : 16;
    int es = bytes ? 1 : f == TC_TF32 ? 4 : 2, E = 4 / es;
    const uint32_t *D = rl->rows;
    uint32_t a[16][64], bt[256][64];   /* this warp's 16 rows of A; B transposed: bt[n][k] */
    uint32_t sign = isint ? 0 : f == TC_TF32 ? 0x80000000u : 0x8000u, emask = es == 4 ? 0xffffffffu : (1u << (8 * es)) - 1;
    if (WG_AREG(v) && sp) {   /* register j: row g + 8(j%2), compressed columns (j/2) 4E + t E + e */
        memset(a, 0, sizeof a);
        for (int l = 0; l < WARP_SIZE; l++) {
            int g = l / 4, t = l % 4;
            for (int j = 0; j < 4; j++)
                for (int e = 0; e < E; e++)
                    sp_place(op, v, a, g + 8 * (j % 2), (j / 2) * 4 * E + t * E + e, op->areg[j][l] >> (8 * es * e) & emask);
        }
    } else if (WG_AREG(v)) {   /* register j: row g + 8(j%2), columns (j/2) K/2 + t E + e */
        for (int l = 0; l < WARP_SIZE; l++) {
            int g = l / 4, t = l % 4;
            for (int j = 0; j < 4; j++) {
                uint32_t x = op->areg[j][l];
                for (int e = 0; e < E; e++)
                    a[g + 8 * (j & 1)][(j >> 1) * (K / 2) + t * E + e] = x >> (8 * es * e) & emask;
            }
        }
    } else if (sp) {   /* K/2 compressed values a row, placed by the metadata (see top) */
        memset(a, 0, sizeof a);
        for (int i = 0; i < 16; i++)
            for (int c = 0; c < K / 2; c++) {
                uint32_t x;
                if (read_elem(w, in, op->da, 16 * rank + i, c, WG_TA(v), es, &x)) return STEP_FAULT;
                sp_place(op, v, a, i, c, x);
            }
    } else {
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < K; k++)
                if (read_elem(w, in, op->da, 16 * rank + i, k, WG_TA(v), es, &a[i][k])) return STEP_FAULT;
    }
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            if (read_elem(w, in, op->db, n, k, WG_TB(v), es, &bt[n][k])) return STEP_FAULT;
    if (fp8) {   /* as f16 values (exact) */
        for (int i = 0; i < 16; i++) for (int k = 0; k < K; k++) a[i][k] = tc_fp8_to_f16(a[i][k], WG_AE5(v));
        for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) bt[n][k] = tc_fp8_to_f16(bt[n][k], WG_BE5(v));
    }
    if (WG_NEGA(v))
        for (int i = 0; i < 16; i++) for (int k = 0; k < K; k++) a[i][k] ^= sign;
    if (WG_NEGB(v))
        for (int n = 0; n < N; n++) for (int k = 0; k < K; k++) bt[n][k] ^= sign;
    TcElem *dec = NULL;   /* 16 rows of A and up to 256 columns of B, 64 each: on the heap */
    if (!isint) {
        if (!(dec = tc_thread_scratch(TC_SCRATCH_WGMMA, sizeof(TcElem) * (16 + 256) * 64)))
            return warp_fault(w, 0, EMU_ERR_MEMORY_ALLOCATION, "wgmma: out of host memory");
        for (int i = 0; i < 16; i++) tc_decode(a[i], K, f, dec + i * 64);
        for (int n = 0; n < N; n++) tc_decode(bt[n], K, f, dec + (16 + n) * 64);
    }
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4, nreg = acc16 ? N / 4 : N / 2;
        uint32_t out[128];
        for (int i = 0; i < N / 2; i++) {
            int row = g + 8 * (i % 4 / 2), col = 8 * (i / 4) + 2 * t + i % 2;
            uint32_t c = (uint32_t)ROW(w, D[acc16 ? i / 2 : i])[l];
            if (acc16) c = c >> (16 * (i % 2)) & 0xffff;
            if (!(op->scale_d >> l & 1)) c = 0;
            out[i] = isint ? int_dot(a[row], bt[col], K, WG_SA(v), WG_SB(v), (int32_t)c, WG_SAT(v), WG_B1(v))
                   : fp8 ? tc_dot_fp8(dec + row * 64, dec + (16 + col) * 64, K, c, acc16)
                         : tc_dot_dec(dec + row * 64, dec + (16 + col) * 64, K, f, c, acc16);
        }
        for (int i = 0; i < nreg; i++)
            ROW(w, D[i])[l] = acc16 ? (out[2 * i] | out[2 * i + 1] << 16) : out[i];
    }
    return STEP_NEXT;
}

/* Issue: the warps of the warpgroup meet (warpgroup_gate), then the operation joins the
 * CTA's queue in the warp's open group; it completes when a wait_group needs it. */
/* Issue op for w: what the instruction reads then joins the CTA's queue in w's open group. */
static int wgmma_issue(Warp *w, const Inst *in)
{
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    Cta *c = w->cta;
    if (!c->wgq && !(c->wgq = calloc(1, sizeof *c->wgq)))
        return warp_fault(w, 0, EMU_ERR_MEMORY_ALLOCATION, "wgmma: out of host memory");
    WgQueue *qu = c->wgq;
    if (qu->n == qu->cap) {
        uint32_t nc = qu->cap ? qu->cap * 2 : 16;
        WgOp *no = realloc(qu->ops, nc * sizeof *no);
        if (!no) return warp_fault(w, 0, EMU_ERR_MEMORY_ALLOCATION, "wgmma: out of host memory");
        qu->ops = no;
        qu->cap = nc;
    }
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *P = B + rl->count[2];
    const uint32_t *META = NULL;
    if (WG_SP(v)) { META = P; P = META + rl->count[3] + rl->count[4]; }   /* d, a, b, meta, sel, scale-d */
    WgOp *op = &qu->ops[qu->n++];
    w->wg_inflight++;
    op->in = in;
    op->warp = w->id;
    op->group = w->wg_commits;
    op->scale_d = WG_SDIMM(v) ? (WG_SDVAL(v) ? 0xffffffffu : 0) : w->P[P[0]];
    op->da = WG_AREG(v) ? 0 : ROW(w, A[0])[0];
    op->db = ROW(w, B[0])[0];
    if (WG_AREG(v))
        for (int j = 0; j < 4; j++)
            for (int l = 0; l < WARP_SIZE; l++) op->areg[j][l] = (uint32_t)ROW(w, A[j])[l];
    if (META)
        for (int l = 0; l < WARP_SIZE; l++) op->meta[l] = (uint32_t)ROW(w, META[0])[l];
    return STEP_NEXT;
}

static int h_wgmma(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    if ((r = warpgroup_gate(w, in, mask)) == WG_ISSUED) return STEP_NEXT;   /* the opener issued it */
    if (r != STEP_NEXT) return r;
    return wgmma_issue(w, in);
}

/* Completes, in issue order, the operations of w's warpgroup in groups older than
 * `before`: all four warps', since a warp's wait_group returning means the warpgroup's
 * operation is done (programs reuse the operands' shared memory right after it). */
static int wgmma_complete(Warp *w, uint32_t before)
{
    Cta *c = w->cta;
    WgQueue *qu = c->wgq;
    if (!qu) return STEP_NEXT;
    uint32_t q = w->id / 4, keep = 0;
    for (uint32_t i = 0; i < qu->n; i++) {
        WgOp *op = &qu->ops[i];
        if (op->warp / 4 == q && op->group < before) {
            Warp *ow = &c->warps[op->warp];
            if (ow->wg_inflight) ow->wg_inflight--;
            if (wgmma_compute(ow, op) != STEP_NEXT) return STEP_FAULT;
            OBSERVE(w->launch->obs, wgmma_done, ow);
            continue;
        }
        if (keep != i) qu->ops[keep] = *op;
        keep++;
    }
    qu->n = keep;
    OBSERVE(w->launch->obs, wgmma_acquire, w);
    return STEP_NEXT;
}

void wgmma_check_access(Warp *w, const Inst *in)
{
    if (in->op == OP_wgmma || !w->cta->wgq) return;   /* wgmma chains on its own accumulators */
    const WgQueue *qu = w->cta->wgq;
    for (uint32_t i = 0; i < qu->n; i++) {
        const WgOp *op = &qu->ops[i];
        if (op->warp != w->id) continue;
        const RowList *rl = op->in->aux;
        for (uint32_t k = 0; k < rl->count[0]; k++) {
            uint32_t row = rl->rows[k];
            int hit = in->base == row;
            for (int j = 0; j < in->ns; j++) hit |= in->s[j] == row;
            for (int j = 0; j < in->nd; j++) hit |= in->d[j] == row;
            if (hit && OBSERVE(w->launch->obs, wgmma_early, w, in, __builtin_ctz(w->active ? w->active : 1),
                               (uint32_t)(op->in - w->prog->code)))
                return;   /* a hazard a tool (the race detector) reports */
            if (hit) {
                warp_warn(w, 0, "an accumulator register of a wgmma.mma_async in flight (PTX line %u) is "
                          "accessed before wgmma.wait_group: undefined, the GPU may give the old or the new "
                          "value (ptxemu gives the new one once any warp of the warpgroup waited)", op->in->line);
                return;
            }
        }
    }
}

/* wgmma.fence orders register accesses, which issue order already does here. */
static int h_wgmma_fence(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    return r ? r : STEP_NEXT;
}

static int h_wgmma_commit(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    w->wg_commits++;
    return STEP_NEXT;
}

/* wait_group N: every committed group but the N most recent is complete. */
static int h_wgmma_wait(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    uint32_t n = (uint32_t)in->imm;
    return wgmma_complete(w, w->wg_commits >= n ? w->wg_commits - n : 0);
}

/* wgmma.mma_async.sp (recorded by tests/cuda/wgmma_sp.cu): m64nNk32 .f32.f16.f16, A (64 x 16
 * compressed) and B from descriptors. Operands: d, a-desc, b-desc, sp-meta, sp-sel,
 * scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b. Within each warp the metadata
 * is mma.sp m16n8k32's: group q of row g (g+8) takes nibble q%4 (4 + q%4) of lane
 * 4g + 2 sel + q/4. */
static const char *bind_mma_async_sp(Inst *in, const InstDesc *d)
{
    RowList *rl = in->aux;
    int N = d->wg_n;
    if (d->ntypes != 3) return "wgmma.mma_async.sp needs .dtype.atype.btype";
    int dt = d->types[0], at = d->types[1], bt = d->types[2];
    int half = at == bt && (at == TY_F16 || at == TY_BF16) && (dt == TY_F32 || (dt == TY_F16 && at == TY_F16));
    int isint = dt == TY_S32 && (at == TY_S8 || at == TY_U8) && (bt == TY_S8 || bt == TY_U8);
    int fp8 = (dt == TY_F32 || dt == TY_F16) && (at == TY_E4M3 || at == TY_E5M2) && (bt == TY_E4M3 || bt == TY_E5M2);
    int tf32 = dt == TY_F32 && at == TY_TF32 && bt == TY_TF32;
    if (!half && !isint && !fp8 && !tf32) return "wgmma.mma_async.sp is f16/bf16, tf32, fp8 or 8-bit integers";
    int K = half ? 32 : tf32 ? 16 : 64, acc16 = dt == TY_F16, areg = rl && rl->count[1] == 4;
    if (d->wg_m != 64 || d->wg_k != K || N < 8 || N > 256 || N % 8)
        return half ? "wgmma.mma_async.sp on f16/bf16 is m64nNk32 (N 8 .. 256)" : tf32 ? "wgmma.mma_async.sp on tf32 is m64nNk16"
                    : "8-bit wgmma.mma_async.sp is m64nNk64 (N 8 .. 256)";
    if (!rl || rl->count[0] != (unsigned)(acc16 ? N / 4 : N / 2) || (rl->count[1] != 1 && !areg) || rl->count[2] != 1 ||
        rl->count[3] != 1)
        return "wgmma.mma_async.sp takes d, a (a descriptor or four registers), b-desc, sp-meta, sp-sel, scale-d and its immediates";
    int nimm = half ? (areg ? 3 : 4) : fp8 || tf32 ? 2 : 0;   /* after sp-sel and scale-d */
    for (int i = 4; i < 6 + nimm; i++)
        if (i != 5 && (rl->count[i] != 1 || !(d->list_imm_mask >> i & 1)))
            return "wgmma.mma_async.sp's sp-sel and imm-scale/imm-trans operands are immediates";
    if (d->list_imm[4] < 0 || d->list_imm[4] > (half || tf32 ? 1 : 0))
        return half || tf32 ? "wgmma.mma_async.sp's sparsity selector is 0 or 1" : "8-bit wgmma.mma_async.sp's sparsity selector is 0";
    int64_t sa = nimm ? d->list_imm[6] : 1, sb = nimm ? d->list_imm[7] : 1;
    int64_t ta = nimm == 4 ? d->list_imm[8] : 0, tb = nimm == 4 ? d->list_imm[9] : nimm == 3 ? d->list_imm[8] : 0;
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1)) return "imm-scale-a/b are 1 or -1";
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return "imm-trans-a/b are 0 or 1";
    if (desc_has(d, MOD_SATFINITE) && !isint) return ".satfinite applies to integer wgmma";
    int64_t cfg = N | (int64_t)(tf32 ? TC_TF32 : at == TY_BF16 ? TC_BF16 : TC_F16) << 9 | (int64_t)acc16 << 11 |
                  (int64_t)areg << 12 | (int64_t)ta << 15 | (int64_t)tb << 16 |
                  (int64_t)(sa < 0) << 13 | (int64_t)(sb < 0) << 14 |
                  (int64_t)1 << 23 | (int64_t)d->list_imm[4] << 24 | (int64_t)isint << 19 |
                  (int64_t)(at == TY_S8) << 20 | (int64_t)(bt == TY_S8) << 21 |
                  (int64_t)desc_has(d, MOD_SATFINITE) << 22 | (int64_t)fp8 << 25 |
                  (int64_t)(at == TY_E5M2) << 26 | (int64_t)(bt == TY_E5M2) << 27;
    if (d->list_imm_mask >> 5 & 1) cfg |= (int64_t)1 << 17 | (int64_t)(d->list_imm[5] != 0) << 18;
    rl->cfg = cfg;
    in->fn = h_wgmma;
    return NULL;
}

static const char *bind_mma_async(Inst *in, const InstDesc *d)
{
    RowList *rl = in->aux;
    if (!rl) return "wgmma.mma_async needs its operands";
    if (d->wg_m != 64) return "wgmma.mma_async needs a shape .m64nNkK";
    int N = d->wg_n;
    if (N < 8 || N > 256 || N % 8) return "wgmma's N is 8 .. 256 in steps of 8";
    if (desc_has(d, MOD_SP)) return bind_mma_async_sp(in, d);
    if (d->ntypes != 3) return "wgmma.mma_async needs .dtype.atype.btype";
    int dt = d->types[0], at = d->types[1], bt = d->types[2];
    int b1 = dt == TY_S32 && at == TY_B1 && bt == TY_B1;
    if (b1 && (!desc_has(d, MOD_AND) || !desc_has(d, MOD_POPC))) return "b1 wgmma needs .and.popc";
    if (b1 && d->wg_k != 256) return "b1 wgmma is m64nNk256";
    int isint = (dt == TY_S32 && (at == TY_S8 || at == TY_U8) && (bt == TY_S8 || bt == TY_U8)) || b1;
    int fp8 = (dt == TY_F32 || dt == TY_F16) && (at == TY_E4M3 || at == TY_E5M2) && (bt == TY_E4M3 || bt == TY_E5M2);
    int tf32 = (dt == TY_F32 && at == TY_TF32 && bt == TY_TF32) || fp8;   /* the same operands */
    int half = at == bt && (at == TY_F16 || at == TY_BF16) && (dt == TY_F32 || (dt == TY_F16 && at == TY_F16));
    if (!isint && !tf32 && !half)
        return "wgmma.mma_async is implemented for .f32.f16.f16, .f32.bf16.bf16, .f16.f16.f16, .f32.tf32.tf32, "
               "fp8 (.e4m3/.e5m2) and .s32 with .s8/.u8 or .b1 (.and.popc)";
    if (!b1 && d->wg_k != (isint || fp8 ? 32 : tf32 ? 8 : 16))
        return isint ? "8-bit integer wgmma is m64nNk32" : fp8 ? "fp8 wgmma is m64nNk32"
             : tf32 ? "tf32 wgmma is m64nNk8" : "f16/bf16 wgmma is m64nNk16";
    int acc16 = dt == TY_F16, areg = rl->count[1] == 4;
    if (rl->count[0] != (unsigned)(acc16 ? N / 4 : N / 2))
        return "wrong number of accumulator registers for this wgmma shape";
    if (!areg && rl->count[1] != 1) return "wgmma's A is four registers or a descriptor";
    if (rl->count[2] != 1 || rl->count[3] != 1) return "wgmma needs a B descriptor and scale-d";
    /* immediates: f16/bf16 imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b; tf32
     * imm-scale-a, imm-scale-b; integers none */
    int nimm = isint ? 0 : tf32 ? 2 : areg ? 3 : 4, first = 4;
    for (int i = first; i < first + nimm; i++) {
        if (rl->count[i] != 1 || !(d->list_imm_mask >> i & 1))
            return isint ? "integer wgmma takes d, a, b-desc, scale-d"
                 : tf32 ? "tf32 and fp8 wgmma take imm-scale-a, imm-scale-b"
                 : areg ? "wgmma with A in registers takes imm-scale-a, imm-scale-b, imm-trans-b"
                        : "wgmma takes imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b";
    }
    if (first + nimm < 8 && rl->count[first + nimm] != 0) return "too many operands for this wgmma";
    int64_t sa = nimm ? (int64_t)d->list_imm[4] : 1, sb = nimm ? (int64_t)d->list_imm[5] : 1;
    int ta = nimm == 4 ? (int)d->list_imm[6] : 0, tb = nimm >= 3 ? (int)d->list_imm[areg ? 6 : 7] : 0;
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1)) return "imm-scale-a/b are 1 or -1";
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return "imm-trans-a/b are 0 or 1";
    if (desc_has(d, MOD_SATFINITE) && (!isint || b1)) return ".satfinite applies to 8-bit integer wgmma";
    int fmt = fp8 ? TC_F16 : tf32 ? TC_TF32 : at == TY_BF16 ? TC_BF16 : TC_F16;
    int64_t cfg = N | (int64_t)fmt << 9 | (int64_t)acc16 << 11 |
                  (int64_t)areg << 12 | (int64_t)(sa < 0) << 13 | (int64_t)(sb < 0) << 14 |
                  (int64_t)ta << 15 | (int64_t)tb << 16 | (int64_t)isint << 19 |
                  (int64_t)(at == TY_S8) << 20 | (int64_t)(bt == TY_S8) << 21 |
                  (int64_t)desc_has(d, MOD_SATFINITE) << 22 | (int64_t)fp8 << 25 |
                  (int64_t)(at == TY_E5M2) << 26 | (int64_t)(bt == TY_E5M2) << 27 | (int64_t)b1 << 28;
    if (d->list_imm_mask >> 3 & 1) cfg |= (int64_t)1 << 17 | (int64_t)(d->list_imm[3] != 0) << 18;
    rl->cfg = cfg;
    in->fn = h_wgmma;
    return NULL;
}

const char *bind_wgmma(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "wgmma needs .sync.aligned";
    if (desc_has(d, MOD_MMA_ASYNC)) return bind_mma_async(in, d);
    if (desc_has(d, MOD_FENCE)) { in->fn = h_wgmma_fence; return NULL; }
    if (desc_has(d, MOD_COMMIT_GROUP)) { in->fn = h_wgmma_commit; return NULL; }
    if (desc_has(d, MOD_WAIT_GROUP)) {
        const RowList *rl = in->aux;
        if (!rl || rl->count[0] != 1 || !(d->list_imm_mask & 1) || d->list_imm[0] < 0 || d->list_imm[0] > 255)
            return "wgmma.wait_group takes an immediate group count";
        in->imm = d->list_imm[0];
        in->fn = h_wgmma_wait;
        return NULL;
    }
    return "wgmma needs .mma_async, .fence, .commit_group or .wait_group";
}
