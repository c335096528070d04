/* ops.c - the opcode table generated from ops.def, and lookup by name. */
#include <string.h>
#include "exec.h"
#include "frontend/ptx_ast.h"

const OpInfo op_info[OP_COUNT] = {
#define OP(name, str, fmt, binder) { str, fmt, binder },
#include "ops.def"
#undef OP
};

int op_lookup(const char *name)
{
    /* Called once per instruction at translation time only; a linear scan over ~90
     * entries is cheaper than building a hash for it. */
    for (int i = 0; i < OP_COUNT; i++)
        if (op_info[i].name[0] != '<' && strcmp(op_info[i].name, name) == 0)
            return i;
    return -1;
}

/* Issue slots a warp instruction takes on one of the SM's four schedulers. An SM issues 128
 * f32 FMAs a cycle but 64 f64 ones and 64 integer multiplies (IMAD), and its special
 * function units 16 results a cycle: a warp's f64 or IMAD instruction takes 2 slots, an
 * f64 division or square root step more, a MUFU function 8, less the FMA pipe's overlap
 * (tests/perf/lessons.cu on an H200: the f64 FMA chain took 1.6x the f32 one, the IMAD
 * chain 1.5x, __sinf (a MUFU and two FMULs a step) about 6.5x an FMA). */
uint8_t op_issue_cost(const Inst *in)
{
    int t = in->t, f64 = t == TY_F64;
    switch (in->op) {
    case OP_sin: case OP_cos: case OP_lg2: case OP_ex2: case OP_tanh:
        return t == TY_F32 ? 6 : 3;          /* f16x2: MUFU.F16 twice as fast per value */
    case OP_rcp: case OP_sqrt: case OP_rsqrt:
        return f64 ? 8 : (in->flags & IF_APPROX) ? 6 : 8;
    case OP_div:
        return f64 ? 16 : t == TY_F32 ? 8 : 4;   /* a reciprocal and refinement, or integer code */
    case OP_add: case OP_sub: case OP_mul: case OP_fma: case OP_mad: case OP_min: case OP_max:
    case OP_abs: case OP_neg: case OP_setp: case OP_mulc: case OP_fmac:
        if (f64) return 2;
        if ((in->op == OP_mul || in->op == OP_mad) && (t == TY_U32 || t == TY_S32 || t == TY_B32))
            return 2;                        /* IMAD */
        if ((in->op == OP_mul || in->op == OP_mad) && (t == TY_U64 || t == TY_S64 || t == TY_B64))
            return 4;
        return 1;
    default:
        return 1;
    }
}
