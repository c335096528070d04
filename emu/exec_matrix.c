/* exec_matrix.c - warp-collective 8x8 matrix moves between shared memory and registers:
 * ldmatrix, stmatrix and movmatrix (m8n8, 16-bit elements), the data paths of tensor-core
 * code.
 *
 * Layout (PTX ISA, "Warp-level matrix load/store instructions"): lane 8i+r gives the address
 * of row r of matrix i (16 bytes, 16-byte aligned). Lane l holds, for each matrix, the 32-bit
 * word of row l/4, elements 2(l%4) and 2(l%4)+1 (the low half first). With .trans it holds
 * column l/4's elements 2(l%4) and 2(l%4)+1 instead. All 32 lanes must execute together
 * (.sync.aligned): the handler waits for them as shfl.sync does.
 */
#include <string.h>
#include "exec.h"
#include "memory.h"
#include "observe.h"

/* An 8x8 matrix of 16-bit elements, m[row][col]. */
typedef uint16_t Mat[8][8];

static inline uint32_t word_of(const Mat m, int lane, int trans)
{
    int g = lane / 4, t = lane % 4;
    return trans ? (uint32_t)m[2 * t][g] | (uint32_t)m[2 * t + 1][g] << 16
                 : (uint32_t)m[g][2 * t] | (uint32_t)m[g][2 * t + 1] << 16;
}

static inline void put_word(Mat m, int lane, int trans, uint32_t v)
{
    int g = lane / 4, t = lane % 4;
    if (trans) { m[2 * t][g] = (uint16_t)v; m[2 * t + 1][g] = (uint16_t)(v >> 16); }
    else       { m[g][2 * t] = (uint16_t)v; m[g][2 * t + 1] = (uint16_t)(v >> 16); }
}

/* The row addresses come from lanes 0 .. 8n-1 (all of them for .x4). */
static inline __attribute__((always_inline)) int rows_of(Warp *w, const Inst *in, int n,
                                                         uint8_t *p[WARP_SIZE], int access, const int V)
{
    uint32_t need = n == 4 ? 0xffffffffu : (1u << (8 * n)) - 1;
    return (V ? mem_warp_ptrs_observed : mem_warp_ptrs)(w, in, need, 16, access, p);
}

#define CONVERGE_ALL()                                                               \
    do {                                                                             \
        int r_ = warp_converge(w, in, mask, 0xffffffffu);                            \
        if (r_) return r_;                                                           \
    } while (0)

static inline __attribute__((always_inline)) int h_ldmatrix(Warp *w, const Inst *in, uint32_t mask,
                                                            const int V)
{
    CONVERGE_ALL();
    int n = in->aux8 & 7, trans = in->aux8 >> 3 & 1;
    uint8_t *p[WARP_SIZE];
    if (rows_of(w, in, n, p, ACC_READ, V)) return STEP_FAULT;
    for (int i = 0; i < n; i++) {
        Mat m;
        for (int r = 0; r < 8; r++) memcpy(m[r], p[8 * i + r], 16);
        uint64_t *d = ROW(w, in->d[i]);
        FOR_LANES(mask, l) d[l] = word_of(m, l, trans);
    }
    return STEP_NEXT;
}
OBS_VARIANTS(h_ldmatrix)

static inline __attribute__((always_inline)) int h_stmatrix(Warp *w, const Inst *in, uint32_t mask,
                                                            const int V)
{
    CONVERGE_ALL();
    int n = in->aux8 & 7, trans = in->aux8 >> 3 & 1;
    uint8_t *p[WARP_SIZE];
    if (rows_of(w, in, n, p, ACC_WRITE, V)) return STEP_FAULT;
    for (int i = 0; i < n; i++) {
        Mat m;
        const uint64_t *s = ROW(w, in->s[i]);
        for (int l = 0; l < WARP_SIZE; l++) put_word(m, l, trans, (uint32_t)s[l]);
        for (int r = 0; r < 8; r++) memcpy(p[8 * i + r], m[r], 16);
    }
    return STEP_NEXT;
}
OBS_VARIANTS(h_stmatrix)

static int h_movmatrix(Warp *w, const Inst *in, uint32_t mask)
{
    CONVERGE_ALL();
    Mat m;
    const uint64_t *a = ROW(w, in->s[0]);
    for (int l = 0; l < WARP_SIZE; l++) put_word(m, l, 0, (uint32_t)a[l]);
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = word_of(m, l, 1);
    return STEP_NEXT;
}

/* .sync.aligned.m8n8.x{1,2,4}{.trans}{.shared{::cta}}.b16 */
static const char *bind_common(Inst *in, const InstDesc *d, int nregs, int is_ld)
{
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "needs .sync.aligned";
    if (!desc_has(d, MOD_M8N8)) return "only the .m8n8 shape exists on sm_90 (.m16n16/.m8n16 need sm_100a)";
    if (d->ntypes != 1 || d->types[0] != TY_B16) return "only .b16 elements exist on sm_90 (.b8 needs sm_100a)";
    int n = desc_has(d, MOD_X1) ? 1 : desc_has(d, MOD_X2) ? 2 : desc_has(d, MOD_X4) ? 4 : 0;
    if (!n) return "needs .x1, .x2 or .x4";
    if (nregs != n) return "the register vector must hold one register per matrix";
    if (!d->has_addr) return "needs an address operand [a]";
    int sp = d->space;
    if (sp != SP_NONE && sp != SP_SHARED) return "the matrices live in shared memory (.shared)";
    in->space = sp == SP_NONE ? SP_GENERIC : SP_SHARED;
    in->aux8 = (uint8_t)(n | desc_has(d, MOD_TRANS) << 3);
    (void)is_ld;
    return NULL;
}

const char *bind_ldmatrix(Inst *in, const InstDesc *d)
{
    const char *e = bind_common(in, d, d->nd, 1);
    if (e) return e;
    in->fn = OBS_PICK(d->obs, OBS_MEM, h_ldmatrix);
    return NULL;
}

const char *bind_stmatrix(Inst *in, const InstDesc *d)
{
    const char *e = bind_common(in, d, d->ns, 0);
    if (e) return e;
    in->fn = OBS_PICK(d->obs, OBS_MEM, h_stmatrix);
    return NULL;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a */
const char *bind_movmatrix(Inst *in, const InstDesc *d)
{
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED) || !desc_has(d, MOD_M8N8) || !desc_has(d, MOD_TRANS))
        return "movmatrix exists only as movmatrix.sync.aligned.m8n8.trans.b16";
    if (d->ntypes != 1 || d->types[0] != TY_B16) return "movmatrix moves .b16 elements";
    if (d->nd != 1 || d->ns != 1) return "movmatrix d, a";
    in->fn = h_movmatrix;
    return NULL;
}
