/* exec_wgmma.c - wgmma: the warpgroup-level matrix multiply of sm_90a.
 *
 * wgmma.mma_async.sync.aligned.m64nNk16 with f16 or bf16 operands and f32 accumulators, or
 * f16 operands and f16 accumulators; A from registers or from a shared-memory descriptor, B
 * from a descriptor; scale-d, imm-scale-a/b and imm-trans-a/b. The four warps of a
 * warpgroup (warps 4q .. 4q+3 of the CTA) each compute their own 16 rows of the 64 x N
 * result: rows 16r .. 16r+15 for the warp of rank r. Recorded on the H100 by
 * tests/cuda/wgmma_probe.cu; what was measured:
 *   - accumulators: register i of a lane (g = lane/4, t = lane%4) holds row
 *     16r + g + 8(i%4/2), column 8(i/4) + 2t + i%2; f16 accumulators hold those elements in
 *     pairs, low half first;
 *   - A in registers: as mma.m16n8k16's A fragment, for the warp's 16 rows;
 *   - descriptors: start address, leading byte offset (LBO) and stride byte offset (SBO),
 *     in 16-byte units, swizzle mode in bits 62-63 (0 none, 1 128B, 2 64B, 3 32B). A K-major
 *     operand (rows r of M or N, columns k of K) is made of 8 x 16-byte core matrices: element
 *     (r, k) of a 16-bit type is at start + (r/8) SBO + (k/8) LBO + (r%8) 16 + (k%8) 2
 *     without swizzle; with a swizzle of S bytes, at start + (r/8) SBO + (r%8) S + 2k with
 *     the 16-byte chunk bits 4.. of the address XORed with bits 7.. (3, 2, 1 bits for S =
 *     128, 64, 32). A transposed (MN-major) operand without swizzle: (mn/8) SBO + (k/8) LBO
 *     + (k%8) 16 + (mn%8) 2; with a swizzle of S bytes (S/2 elements of M/N a row):
 *     (k/8) SBO + (mn/(S/2)) LBO + (k%8) S + (mn%(S/2)) 2, then the same XOR;
 *   - the arithmetic of each K = 16 dot product is mma's (tc_dot, emu/exec_mma.c).
 * Not yet measured, so rejected or reported: a nonzero base offset, tf32/fp8/integer types.
 *
 * Execution is synchronous: the product is computed when the instruction issues, so
 * wgmma.fence, commit_group and wait_group have nothing left to order (a program that is
 * correct under the asynchronous rules reads the same values). Reading the accumulators
 * before wait_group is therefore not detected yet (issue 10).
 */
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "tcore.h"
#include "racecheck.h"

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

/* The shared-memory address of element (r, k) of a 16-bit operand under descriptor desc
 * (r along M or N); -1 where the layout is not one that was measured. */
static int64_t desc_addr(uint64_t desc, int r, int k, int trans)
{
    uint64_t start = (desc & 0x3fff) << 4, lbo = (desc >> 16 & 0x3fff) << 4, sbo = (desc >> 32 & 0x3fff) << 4;
    int swz = (int)(desc >> 62), base_off = (int)(desc >> 49 & 7);
    if (base_off) return -1;
    if (trans && !swz)
        return (int64_t)(start + (uint64_t)(r / 8) * sbo + (uint64_t)(k / 8) * lbo + (uint64_t)(k % 8) * 16 + (uint64_t)(r % 8) * 2);
    if (!swz) return (int64_t)(start + (uint64_t)(r / 8) * sbo + (uint64_t)(k / 8) * lbo + (uint64_t)(r % 8) * 16 + (uint64_t)(k % 8) * 2);
    int S = swz == 1 ? 128 : swz == 2 ? 64 : 32, bits = swz == 1 ? 7 : swz == 2 ? 3 : 1;
    uint64_t a;
    if (trans)   /* S/2 elements of M/N per row of the atom; LBO steps atoms along M/N, SBO along K */
        a = start + (uint64_t)(k / 8) * sbo + (uint64_t)(r / (S / 2)) * lbo + (uint64_t)(k % 8) * (uint64_t)S + (uint64_t)(r % (S / 2)) * 2;
    else
        a = start + (uint64_t)(r / 8) * sbo + (uint64_t)(r % 8) * (uint64_t)S + (uint64_t)k * 2;
    return (int64_t)(a ^ ((a >> 7 & (uint64_t)bits) << 4));
}

/* Reads element (r, k) through a descriptor; fills *v, or returns nonzero after a fault.
 * The race detector sees each read as lane 0's, through the async proxy. */
static int read_elem(Warp *w, const Inst *in, uint64_t desc, int r, int k, int trans, uint32_t *v)
{
    int64_t a = desc_addr(desc, r, k, trans);
    if (a < 0) {
        warp_fault(w, 0, EMU_ERR_ILLEGAL_INSTRUCTION, "wgmma: a shared-memory descriptor with a nonzero "
                   "base offset is not implemented yet: its semantics were not measured");
        return 1;
    }
    uint8_t *p = mem_lane_ptr(w, SP_SHARED, (uint64_t)a, 2, 2, 0, ACC_READ);
    if (!p) return 1;
    if (__builtin_expect(w->launch && w->launch->racecheck, 0)) {
        /* ordered with other threads' writes, and read through the async proxy: written
         * by the generic proxy, it needs fence.proxy.async in between */
        uint8_t *host[WARP_SIZE] = { p };
        race_access(w, in, 1u, 2, ACC_READ, host);
        race_async_read_issue(w, 0, p, 2);
        race_async_read_done(w, p, 2);
    }
    uint16_t h;
    memcpy(&h, p, 2);
    *v = h;
    return 0;
}

static int h_wgmma(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    int64_t v = rl->cfg;
    int N = WG_N(v), f = WG_FMT(v), acc16 = WG_ACC16(v), rank = (int)(w->id % 4);
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *P = B + rl->count[2];
    uint32_t a[16][16], bt[256][16];   /* this warp's 16 rows of A; B transposed: bt[n][k] */
    uint32_t sign = f == TC_F16 || f == TC_BF16 ? 0x8000u : 0;
    if (WG_AREG(v)) {
        for (int l = 0; l < WARP_SIZE; l++) {
            int g = l / 4, t = l % 4;
            for (int j = 0; j < 4; j++) {
                uint32_t x = (uint32_t)ROW(w, A[j])[l];
                a[g + 8 * (j & 1)][2 * t + 8 * (j >> 1)] = x & 0xffff;
                a[g + 8 * (j & 1)][2 * t + 8 * (j >> 1) + 1] = x >> 16;
            }
        }
    } else {
        uint64_t da = ROW(w, A[0])[0];
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 16; k++)
                if (read_elem(w, in, da, 16 * rank + i, k, WG_TA(v), &a[i][k])) return STEP_FAULT;
    }
    uint64_t db = ROW(w, B[0])[0];
    for (int n = 0; n < N; n++)
        for (int k = 0; k < 16; k++)
            if (read_elem(w, in, db, n, k, WG_TB(v), &bt[n][k])) return STEP_FAULT;
    if (WG_NEGA(v))
        for (int i = 0; i < 16; i++) for (int k = 0; k < 16; k++) a[i][k] ^= sign;
    if (WG_NEGB(v))
        for (int n = 0; n < N; n++) for (int k = 0; k < 16; k++) bt[n][k] ^= sign;
    uint32_t scale_d = WG_SDIMM(v) ? (WG_SDVAL(v) ? 0xffffffffu : 0) : w->P[P[0]];
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4, nreg = acc16 ? N / 4 : N / 2;
        uint32_t out[128];
        for (int i = 0; i < N / 2; i++) {
            int row = g + 8 * (i % 4 / 2), col = 8 * (i / 4) + 2 * t + i % 2;
            uint32_t c = (uint32_t)ROW(w, D[acc16 ? i / 2 : i])[l];
            if (acc16) c = c >> (16 * (i % 2)) & 0xffff;
            if (!(scale_d >> l & 1)) c = 0;
            out[i] = tc_dot(a[row], bt[col], 16, f, c, acc16);
        }
        for (int i = 0; i < nreg; i++)
            ROW(w, D[i])[l] = acc16 ? (out[2 * i] | out[2 * i + 1] << 16) : out[i];
    }
    return STEP_NEXT;
}

/* wgmma.fence, commit_group and wait_group: with the product computed at issue there is
 * nothing in flight to order or wait for (see the top of this file). */
static int h_wgmma_order(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    return r ? r : STEP_NEXT;
}

static const char *bind_mma_async(Inst *in, const InstDesc *d)
{
    RowList *rl = in->aux;
    if (!rl) return "wgmma.mma_async needs its operands";
    if (d->wg_m != 64) return "wgmma.mma_async needs a shape .m64nNkK";
    int N = d->wg_n;
    if (N < 8 || N > 256 || N % 8) return "wgmma's N is 8 .. 256 in steps of 8";
    if (d->ntypes != 3) return "wgmma.mma_async needs .dtype.atype.btype";
    int dt = d->types[0], at = d->types[1], bt = d->types[2];
    if (at != bt || !(at == TY_F16 || at == TY_BF16) || !(dt == TY_F32 || (dt == TY_F16 && at == TY_F16)))
        return "wgmma.mma_async is implemented for .f32.f16.f16, .f32.bf16.bf16 and .f16.f16.f16 "
               "(tf32, fp8 and integer types: issue 10)";
    if (d->wg_k != 16) return "f16/bf16 wgmma is m64nNk16";
    int acc16 = dt == TY_F16, areg = rl->count[1] == 4;
    if (rl->count[0] != (unsigned)(acc16 ? N / 4 : N / 2))
        return "wrong number of accumulator registers for this wgmma shape";
    if (!areg && rl->count[1] != 1) return "wgmma's A is four registers or a descriptor";
    if (rl->count[2] != 1 || rl->count[3] != 1) return "wgmma needs a B descriptor and scale-d";
    int nimm = areg ? 3 : 4, first = 4;
    for (int i = first; i < first + nimm; i++) {
        if (rl->count[i] != 1 || !(d->src_imm_mask >> i & 1))
            return areg ? "wgmma with A in registers takes imm-scale-a, imm-scale-b, imm-trans-b"
                        : "wgmma takes imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b";
    }
    int64_t sa = (int64_t)d->imm_val[4], sb = (int64_t)d->imm_val[5];
    int ta = areg ? 0 : (int)d->imm_val[6], tb = (int)d->imm_val[areg ? 6 : 7];
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1)) return "imm-scale-a/b are 1 or -1";
    if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) return "imm-trans-a/b are 0 or 1";
    int64_t cfg = N | (int64_t)(at == TY_BF16 ? TC_BF16 : TC_F16) << 9 | (int64_t)acc16 << 11 |
                  (int64_t)areg << 12 | (int64_t)(sa < 0) << 13 | (int64_t)(sb < 0) << 14 |
                  (int64_t)ta << 15 | (int64_t)tb << 16;
    if (d->src_imm_mask >> 3 & 1) cfg |= (int64_t)1 << 17 | (int64_t)(d->imm_val[3] != 0) << 18;
    rl->cfg = cfg;
    in->fn = h_wgmma;
    return NULL;
}

const char *bind_wgmma(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "wgmma needs .sync.aligned";
    if (desc_has(d, MOD_MMA_ASYNC)) return bind_mma_async(in, d);
    if (desc_has(d, MOD_FENCE) || desc_has(d, MOD_COMMIT_GROUP) || desc_has(d, MOD_WAIT_GROUP)) {
        in->fn = h_wgmma_order;
        return NULL;
    }
    return "wgmma needs .mma_async, .fence, .commit_group or .wait_group";
}
