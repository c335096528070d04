/* exec_mma.c - mma.sync: the warp-wide matrix multiply-accumulate of the tensor cores.
 *
 * Implemented: the integer forms, which are exact: s8/u8 (mixed too) with m8n8k16, m16n8k16
 * and m16n8k32; s4/u4 with m8n8k32, m16n8k32 and m16n8k64; b1 .and/.xor.popc with m8n8k128,
 * m16n8k128 and m16n8k256; s32 accumulators with or without .satfinite. Not yet: the
 * floating-point forms, which need the H100's rounding inside the tensor core measured
 * first; they fail translation with a message.
 *
 * Fragments (PTX ISA, "Matrix fragments for mma.m16n8k*"): with g = lane/4, t = lane%4 and E
 * elements per 32-bit register (4 of 8 bits, 8 of 4 bits, 32 of 1 bit), K splits into chunks
 * of 4E. A holds, chunk by chunk, row g then (for M = 16) row g+8, columns
 * chunk*4E + t*E .. +E-1. B holds, chunk by chunk, rows chunk*4E + t*E .. +E-1 of column g.
 * C and D hold row g (then g+8), columns 2t and 2t+1. Element e of a register is at bit e*bits.
 * The operands are a RowList (inst.h): D, A, B, C.
 */
#include <string.h>
#include "exec.h"

typedef struct MmaShape { int m, k, bits; int a_signed, b_signed, sat, op; } MmaShape;

/* The shape travels in Inst.imm, packed. */
static int64_t pack(const MmaShape *s)
{
    return (int64_t)s->m | (int64_t)s->k << 8 | (int64_t)s->bits << 20 | (int64_t)s->a_signed << 28 |
           (int64_t)s->b_signed << 29 | (int64_t)s->sat << 30 | (int64_t)s->op << 32;
}

static MmaShape unpack(int64_t v)
{
    MmaShape s = { (int)(v & 255), (int)(v >> 8 & 4095), (int)(v >> 20 & 255), (int)(v >> 28 & 1),
                   (int)(v >> 29 & 1), (int)(v >> 30 & 1), (int)(v >> 32 & 3) };
    return s;
}
enum { OPB_MUL = 0, OPB_AND, OPB_XOR };

static inline int64_t elem(uint32_t w, int e, int bits, int sgn)
{
    uint32_t v = bits == 32 ? w : (w >> (e * bits)) & ((1u << bits) - 1);
    if (sgn && bits < 32 && (v >> (bits - 1) & 1)) return (int64_t)v - (1ll << bits);
    return v;
}

static int h_mma_int(Warp *w, const Inst *in, uint32_t mask)
{
    int r = warp_converge(w, in, mask, 0xffffffffu);
    if (r) return r;
    const RowList *rl = in->aux;
    MmaShape shape = unpack(in->imm);
    const MmaShape *sh = &shape;
    int M = sh->m, K = sh->k, bits = sh->bits, E = 32 / bits, nchunk = K / (4 * E), H = M / 8;
    const uint32_t *D = rl->rows, *A = D + rl->count[0], *B = A + rl->count[1], *C = B + rl->count[2];
    static __thread int16_t a[16][256], b[256][8];   /* u8 and s8 alike */
    int64_t acc[16][8];
    for (int l = 0; l < WARP_SIZE; l++) {
        int g = l / 4, t = l % 4;
        for (int c = 0; c < nchunk; c++) {
            for (int h = 0; h < H; h++) {
                uint32_t wa = (uint32_t)ROW(w, A[c * H + h])[l];
                for (int e = 0; e < E; e++)
                    a[g + 8 * h][c * 4 * E + t * E + e] = (int16_t)elem(wa, e, bits, sh->a_signed);
            }
            uint32_t wb = (uint32_t)ROW(w, B[c])[l];
            for (int e = 0; e < E; e++)
                b[c * 4 * E + t * E + e][g] = (int16_t)elem(wb, e, bits, sh->b_signed);
        }
        for (int h = 0; h < H; h++)
            for (int j = 0; j < 2; j++)
                acc[g + 8 * h][2 * t + j] = (int32_t)ROW(w, C[2 * h + j])[l];
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < 8; j++) {
            int64_t s = 0;
            if (sh->op == OPB_MUL) {
                for (int k = 0; k < K; k++) s += (int64_t)a[i][k] * b[k][j];
            } else {
                for (int k = 0; k < K; k++)
                    s += sh->op == OPB_AND ? (a[i][k] & b[k][j]) : (a[i][k] ^ b[k][j]);
            }
            acc[i][j] += s;
        }
    FOR_LANES(mask, l) {
        int g = l / 4, t = l % 4;
        for (int h = 0; h < H; h++)
            for (int j = 0; j < 2; j++) {
                int64_t v = acc[g + 8 * h][2 * t + j];
                if (sh->sat) v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
                ROW(w, D[2 * h + j])[l] = (uint32_t)(int32_t)(uint32_t)v;
            }
    }
    return STEP_NEXT;
}

static int int_bits(int t, int *sgn)
{
    switch (t) {
    case TY_S8: *sgn = 1; return 8;
    case TY_U8: *sgn = 0; return 8;
    case TY_S4: *sgn = 1; return 4;
    case TY_U4: *sgn = 0; return 4;
    case TY_B1: *sgn = 0; return 1;
    default: return 0;
    }
}

const char *bind_mma(Inst *in, const InstDesc *d)
{
    const RowList *rl = in->aux;
    if (!desc_has(d, MOD_SYNC) || !desc_has(d, MOD_ALIGNED)) return "mma needs .sync.aligned";
    if (d->ntypes != 4) return "mma needs four types (d, a, b, c): mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype";
    int dt = d->types[0], at = d->types[1], bt = d->types[2], ct = d->types[3];
    if (dt != TY_S32 || ct != TY_S32)
        return "floating-point mma is not implemented yet (the tensor cores' rounding is not yet measured); integer forms are";
    MmaShape sh = {0};
    int bits = int_bits(at, &sh.a_signed), bbits = int_bits(bt, &sh.b_signed);
    if (!bits || bits != bbits) return "unsupported mma type combination";
    static const struct { int mod, m, k, bits; } shapes[] = {
        {MOD_M8N8K16, 8, 16, 8}, {MOD_M16N8K16, 16, 16, 8}, {MOD_M16N8K32, 16, 32, 8},
        {MOD_M8N8K32, 8, 32, 4}, {MOD_M16N8K32, 16, 32, 4}, {MOD_M16N8K64, 16, 64, 4},
        {MOD_M8N8K128, 8, 128, 1}, {MOD_M16N8K128, 16, 128, 1}, {MOD_M16N8K256, 16, 256, 1},
    };
    int found = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (desc_has(d, shapes[i].mod) && shapes[i].bits == bits) {
            sh.m = shapes[i].m;
            sh.k = shapes[i].k;
            found = 1;
        }
    if (!found) return "unsupported mma shape for these types";
    sh.bits = bits;
    if (!desc_has(d, MOD_ROW) || !desc_has(d, MOD_COL)) return "integer mma needs .row.col";
    sh.sat = desc_has(d, MOD_SATFINITE);
    if (bits == 1) {
        if (!desc_has(d, MOD_POPC)) return "b1 mma needs .and.popc or .xor.popc";
        sh.op = desc_has(d, MOD_AND) ? OPB_AND : desc_has(d, MOD_XOR) ? OPB_XOR : -1;
        if (sh.op < 0) return "b1 mma needs .and.popc or .xor.popc";
        if (sh.sat) return ".satfinite does not apply to b1 mma";
    }
    int E = 32 / bits, H = sh.m / 8, nchunk = sh.k / (4 * E);
    if (!rl || rl->count[0] != 2 * H || rl->count[1] != nchunk * H || rl->count[2] != nchunk ||
        rl->count[3] != 2 * H)
        return "wrong number of registers in an mma operand for this shape";
    in->imm = pack(&sh);
    in->fn = h_mma_int;
    return NULL;
}
