/* emit_gccjit.c - backend (b): the same function built through libgccjit's API in process.
 *
 * The shape is the C backend's: a 32-lane loop per instruction over rows of R, a label per
 * branch target, the per-warp check before memory. What differs is that nothing of sem.h can
 * be reused: every operation is spelled again as API calls, and libgccjit 12 has neither a
 * conditional expression nor restrict, so selects are written with masks and R, P and the
 * shared memory may alias as far as the compiler knows.
 */
#include <libgccjit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jitcmp.h"

typedef gcc_jit_rvalue RV;
typedef gcc_jit_lvalue LV;
typedef gcc_jit_block BL;

typedef struct G {
    gcc_jit_context *cx;
    gcc_jit_function *fn;
    gcc_jit_type *i32, *u32, *i64, *u64, *f32, *boolt, *pu64, *pu32, *pcu32;
    RV *R, *P, *glo, *glim, *shared, *slim;
    LV *lane, *m, *bad, *aff, *base;
    BL **label;                 /* block starting at each branch target, else NULL */
    const Prog *pg;
    int nblk;
} G;

static RV *ci(G *g, gcc_jit_type *t, long v) { return gcc_jit_context_new_rvalue_from_long(g->cx, t, v); }
static RV *cast(G *g, RV *v, gcc_jit_type *t) { return gcc_jit_context_new_cast(g->cx, NULL, v, t); }
static RV *bin(G *g, enum gcc_jit_binary_op op, gcc_jit_type *t, RV *a, RV *b)
{
    return gcc_jit_context_new_binary_op(g->cx, NULL, op, t, a, b);
}
static RV *cmp(G *g, enum gcc_jit_comparison op, RV *a, RV *b)
{
    return gcc_jit_context_new_comparison(g->cx, NULL, op, a, b);
}
static BL *blk(G *g)
{
    char name[32];
    snprintf(name, sizeof name, "b%d", g->nblk++);
    return gcc_jit_function_new_block(g->fn, name);
}

/* R[row * 32 + lane] as an lvalue. */
static LV *row_at(G *g, int row, RV *lane)
{
    RV *idx = bin(g, GCC_JIT_BINARY_OP_PLUS, g->i32, ci(g, g->i32, row * W), lane);
    return gcc_jit_context_new_array_access(g->cx, NULL, g->R, idx);
}
/* Operand value at the lane (u64): a literal for constant rows. */
static RV *opnd(G *g, int row)
{
    if (row < g->pg->nconst) return ci(g, g->u64, (long)g->pg->cval[row]);
    return gcc_jit_lvalue_as_rvalue(row_at(g, row, gcc_jit_lvalue_as_rvalue(g->lane)));
}
static RV *lo32(G *g, RV *v) { return cast(g, v, g->u32); }
static RV *s32(G *g, RV *v) { return cast(g, lo32(g, v), g->i32); }
static RV *fbits(G *g, RV *v) { return gcc_jit_context_new_bitcast(g->cx, NULL, lo32(g, v), g->f32); }
/* All ones when c holds, else 0 (u32): the select libgccjit 12 lacks as an expression. */
static RV *maskof(G *g, RV *c)
{
    return gcc_jit_context_new_unary_op(g->cx, NULL, GCC_JIT_UNARY_OP_MINUS, g->u32, cast(g, c, g->u32));
}
static RV *sel32(G *g, RV *c, RV *a, RV *b)   /* c ? a : b on u32 */
{
    RV *m = maskof(g, c);
    RV *nm = gcc_jit_context_new_unary_op(g->cx, NULL, GCC_JIT_UNARY_OP_BITWISE_NEGATE, g->u32, m);
    return bin(g, GCC_JIT_BINARY_OP_BITWISE_OR, g->u32, bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u32, a, m),
               bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u32, b, nm));
}
/* An f32 result as a row value, NaN made canonical. */
static RV *fres(G *g, BL *b, RV *f)
{
    LV *r = gcc_jit_function_new_local(g->fn, NULL, g->f32, "fr");
    gcc_jit_block_add_assignment(b, NULL, r, f);
    RV *rv = gcc_jit_lvalue_as_rvalue(r);
    RV *u = gcc_jit_context_new_bitcast(g->cx, NULL, rv, g->u32);
    return cast(g, sel32(g, cmp(g, GCC_JIT_COMPARISON_NE, rv, rv), ci(g, g->u32, 0x7fffffff), u), g->u64);
}

/* b: lane = 0; loop: body; lane++; if (lane < 32) loop. Returns the block after it. */
typedef void (*Body)(G *g, BL *b, const JInst *in);
static BL *lane_loop(G *g, BL *b, Body body, const JInst *in)
{
    BL *loop = blk(g), *after = blk(g);
    gcc_jit_block_add_assignment(b, NULL, g->lane, ci(g, g->i32, 0));
    gcc_jit_block_end_with_jump(b, NULL, loop);
    body(g, loop, in);
    gcc_jit_block_add_assignment_op(loop, NULL, g->lane, GCC_JIT_BINARY_OP_PLUS, ci(g, g->i32, 1));
    gcc_jit_block_end_with_conditional(loop, NULL,
        cmp(g, GCC_JIT_COMPARISON_LT, gcc_jit_lvalue_as_rvalue(g->lane), ci(g, g->i32, W)), loop, after);
    return after;
}

static void body_alu(G *g, BL *b, const JInst *in)
{
    RV *a = opnd(g, in->a), *bb = in->op == J_MOV ? NULL : opnd(g, in->b), *r;
    enum gcc_jit_binary_op op;
    switch (in->op) {
    case J_MOV: r = a; break;
    case J_ADD_S64: r = bin(g, GCC_JIT_BINARY_OP_PLUS, g->u64, a, bb); break;
    case J_ADD_S32: op = GCC_JIT_BINARY_OP_PLUS; goto u32op;
    case J_MUL_LO_S32: op = GCC_JIT_BINARY_OP_MULT; goto u32op;
    case J_XOR_B32: op = GCC_JIT_BINARY_OP_BITWISE_XOR; goto u32op;
    case J_AND_B32: op = GCC_JIT_BINARY_OP_BITWISE_AND; goto u32op;
    u32op: r = cast(g, bin(g, op, g->u32, lo32(g, a), lo32(g, bb)), g->u64); break;
    case J_MAD_LO_S32:
        r = cast(g, bin(g, GCC_JIT_BINARY_OP_PLUS, g->u32,
                        bin(g, GCC_JIT_BINARY_OP_MULT, g->u32, lo32(g, a), lo32(g, bb)),
                        lo32(g, opnd(g, in->c))), g->u64);
        break;
    case J_MUL_WIDE_S32:
        r = cast(g, bin(g, GCC_JIT_BINARY_OP_MULT, g->i64, cast(g, s32(g, a), g->i64),
                        cast(g, s32(g, bb), g->i64)), g->u64);
        break;
    case J_SHL_B32: {   /* shift counts above 31 give 0 */
        RV *s = lo32(g, bb);
        RV *v = bin(g, GCC_JIT_BINARY_OP_LSHIFT, g->u32, lo32(g, a),
                    bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u32, s, ci(g, g->u32, 31)));
        r = cast(g, bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u32, v,
                        maskof(g, cmp(g, GCC_JIT_COMPARISON_LE, s, ci(g, g->u32, 31)))), g->u64);
        break;
    }
    case J_MIN_S32:
        r = cast(g, sel32(g, cmp(g, GCC_JIT_COMPARISON_LT, s32(g, a), s32(g, bb)), lo32(g, a), lo32(g, bb)), g->u64);
        break;
    case J_ADD_F32: r = fres(g, b, bin(g, GCC_JIT_BINARY_OP_PLUS, g->f32, fbits(g, a), fbits(g, bb))); break;
    case J_MUL_F32: r = fres(g, b, bin(g, GCC_JIT_BINARY_OP_MULT, g->f32, fbits(g, a), fbits(g, bb))); break;
    case J_FMA_F32: {
        gcc_jit_function *fma = gcc_jit_context_get_builtin_function(g->cx, "__builtin_fmaf");
        RV *args[3] = { fbits(g, a), fbits(g, bb), fbits(g, opnd(g, in->c)) };
        r = fres(g, b, gcc_jit_context_new_call(g->cx, NULL, fma, 3, args));
        break;
    }
    case J_SELP_B32: {
        RV *p = gcc_jit_lvalue_as_rvalue(g->m);
        RV *bit = bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u32,
                      bin(g, GCC_JIT_BINARY_OP_RSHIFT, g->u32, p, cast(g, gcc_jit_lvalue_as_rvalue(g->lane), g->u32)),
                      ci(g, g->u32, 1));
        r = cast(g, sel32(g, cmp(g, GCC_JIT_COMPARISON_NE, bit, ci(g, g->u32, 0)), lo32(g, a), lo32(g, bb)), g->u64);
        break;
    }
    default: abort();
    }
    gcc_jit_block_add_assignment(b, NULL, row_at(g, in->d, gcc_jit_lvalue_as_rvalue(g->lane)), r);
}

static void body_setp(G *g, BL *b, const JInst *in)
{
    RV *c = cmp(g, in->op == J_SETP_LT_S32 ? GCC_JIT_COMPARISON_LT : GCC_JIT_COMPARISON_GE,
                s32(g, opnd(g, in->a)), s32(g, opnd(g, in->b)));
    RV *bit = bin(g, GCC_JIT_BINARY_OP_LSHIFT, g->u32, cast(g, c, g->u32),
                  cast(g, gcc_jit_lvalue_as_rvalue(g->lane), g->u32));
    gcc_jit_block_add_assignment_op(b, NULL, g->m, GCC_JIT_BINARY_OP_BITWISE_OR, bit);
}

/* The lane's address (u64 global, u32 shared offset as u64). */
static RV *addr(G *g, const JInst *in, int shared)
{
    RV *x = bin(g, GCC_JIT_BINARY_OP_PLUS, g->u64, opnd(g, in->a), ci(g, g->u64, in->imm));
    return shared ? cast(g, lo32(g, x), g->u64) : x;
}

static void body_check(G *g, BL *b, const JInst *in)
{
    int sh = in->op == J_LD_SHARED_F32;
    RV *x = addr(g, in, sh);
    RV *oob = sh ? cmp(g, GCC_JIT_COMPARISON_GT, x, g->slim)
                 : cmp(g, GCC_JIT_COMPARISON_GT, bin(g, GCC_JIT_BINARY_OP_MINUS, g->u64, x, g->glo), g->glim);
    RV *bad = bin(g, GCC_JIT_BINARY_OP_BITWISE_OR, g->u64, cast(g, oob, g->u64),
                  bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->u64, x, ci(g, g->u64, 3)));
    gcc_jit_block_add_assignment_op(b, NULL, g->bad, GCC_JIT_BINARY_OP_BITWISE_OR, bad);
    RV *expect = bin(g, GCC_JIT_BINARY_OP_PLUS, g->u64, gcc_jit_lvalue_as_rvalue(g->base),
                     bin(g, GCC_JIT_BINARY_OP_MULT, g->u64, ci(g, g->u64, 4),
                         cast(g, gcc_jit_lvalue_as_rvalue(g->lane), g->u64)));
    gcc_jit_block_add_assignment_op(b, NULL, g->aff, GCC_JIT_BINARY_OP_BITWISE_OR,
                                    bin(g, GCC_JIT_BINARY_OP_BITWISE_XOR, g->u64, x, expect));
}

/* The lane's element as an lvalue: contiguous from base, or at its own address. */
static LV *elem(G *g, const JInst *in, int contiguous)
{
    int sh = in->op == J_LD_SHARED_F32;
    RV *lane = gcc_jit_lvalue_as_rvalue(g->lane);
    if (sh) {
        RV *off = contiguous ? bin(g, GCC_JIT_BINARY_OP_PLUS, g->u64, gcc_jit_lvalue_as_rvalue(g->base),
                                   bin(g, GCC_JIT_BINARY_OP_MULT, g->u64, ci(g, g->u64, 4), cast(g, lane, g->u64)))
                             : addr(g, in, 1);
        return gcc_jit_context_new_array_access(g->cx, NULL, g->shared,
                   bin(g, GCC_JIT_BINARY_OP_RSHIFT, g->u64, off, ci(g, g->u64, 2)));
    }
    if (contiguous) {
        RV *q = gcc_jit_context_new_bitcast(g->cx, NULL, gcc_jit_lvalue_as_rvalue(g->base), g->pu32);
        return gcc_jit_context_new_array_access(g->cx, NULL, q, lane);
    }
    return gcc_jit_rvalue_dereference(gcc_jit_context_new_bitcast(g->cx, NULL, addr(g, in, 0), g->pu32), NULL);
}
static void body_ld_contig(G *g, BL *b, const JInst *in)
{
    gcc_jit_block_add_assignment(b, NULL, row_at(g, in->d, gcc_jit_lvalue_as_rvalue(g->lane)),
                                 cast(g, gcc_jit_lvalue_as_rvalue(elem(g, in, 1)), g->u64));
}
static void body_ld_gather(G *g, BL *b, const JInst *in)
{
    gcc_jit_block_add_assignment(b, NULL, row_at(g, in->d, gcc_jit_lvalue_as_rvalue(g->lane)),
                                 cast(g, gcc_jit_lvalue_as_rvalue(elem(g, in, 0)), g->u64));
}
static void body_st(G *g, BL *b, const JInst *in, int contiguous)
{
    gcc_jit_block_add_assignment(b, NULL, elem(g, in, contiguous), lo32(g, opnd(g, in->d)));
}
static void body_st_contig(G *g, BL *b, const JInst *in) { body_st(g, b, in, 1); }
static void body_st_scatter(G *g, BL *b, const JInst *in) { body_st(g, b, in, 0); }

static BL *emit_mem(G *g, BL *b, const JInst *in, int pc)
{
    int sh = in->op == J_LD_SHARED_F32;
    gcc_jit_block_add_assignment(b, NULL, g->bad, ci(g, g->u64, 0));
    gcc_jit_block_add_assignment(b, NULL, g->aff, ci(g, g->u64, 0));
    /* base: lane 0's address */
    RV *x0 = bin(g, GCC_JIT_BINARY_OP_PLUS, g->u64, in->a < g->pg->nconst ? ci(g, g->u64, (long)g->pg->cval[in->a])
                 : gcc_jit_lvalue_as_rvalue(row_at(g, in->a, ci(g, g->i32, 0))), ci(g, g->u64, in->imm));
    gcc_jit_block_add_assignment(b, NULL, g->base, sh ? cast(g, lo32(g, x0), g->u64) : x0);
    b = lane_loop(g, b, body_check, in);
    BL *fail = blk(g), *ok = blk(g), *contig = blk(g), *gather = blk(g);
    gcc_jit_block_end_with_conditional(b, NULL, cmp(g, GCC_JIT_COMPARISON_NE, gcc_jit_lvalue_as_rvalue(g->bad),
                                                    ci(g, g->u64, 0)), fail, ok);
    gcc_jit_block_end_with_return(fail, NULL, ci(g, g->i32, pc));
    gcc_jit_block_end_with_conditional(ok, NULL, cmp(g, GCC_JIT_COMPARISON_EQ, gcc_jit_lvalue_as_rvalue(g->aff),
                                                     ci(g, g->u64, 0)), contig, gather);
    int st = in->op == J_ST_GLOBAL_F32;
    BL *e1 = lane_loop(g, contig, st ? body_st_contig : body_ld_contig, in);
    BL *e2 = lane_loop(g, gather, st ? body_st_scatter : body_ld_gather, in);
    BL *join = blk(g);
    gcc_jit_block_end_with_jump(e1, NULL, join);
    gcc_jit_block_end_with_jump(e2, NULL, join);
    return join;
}

/* Appends instruction pc to b; returns the block where the next one goes. */
static BL *emit_inst(G *g, BL *b, const JInst *in, int pc)
{
    switch (in->op) {
    case J_SETP_LT_S32: case J_SETP_GE_S32:
        gcc_jit_block_add_assignment(b, NULL, g->m, ci(g, g->u32, 0));
        b = lane_loop(g, b, body_setp, in);
        gcc_jit_block_add_assignment(b, NULL,
            gcc_jit_context_new_array_access(g->cx, NULL, g->P, ci(g, g->i32, in->p)),
            gcc_jit_lvalue_as_rvalue(g->m));
        return b;
    case J_SELP_B32:
        gcc_jit_block_add_assignment(b, NULL, g->m, gcc_jit_lvalue_as_rvalue(
            gcc_jit_context_new_array_access(g->cx, NULL, g->P, ci(g, g->i32, in->p))));
        return lane_loop(g, b, body_alu, in);
    case J_LD_GLOBAL_F32: case J_ST_GLOBAL_F32: case J_LD_SHARED_F32:
        return emit_mem(g, b, in, pc);
    case J_BRA: {
        BL *notall = blk(g), *fail = blk(g), *next = blk(g);
        gcc_jit_block_add_assignment(b, NULL, g->m, gcc_jit_lvalue_as_rvalue(
            gcc_jit_context_new_array_access(g->cx, NULL, g->P, ci(g, g->i32, in->p))));
        RV *m = gcc_jit_lvalue_as_rvalue(g->m);
        gcc_jit_block_end_with_conditional(b, NULL, cmp(g, GCC_JIT_COMPARISON_EQ, m, ci(g, g->u32, -1)),
                                           g->label[in->imm], notall);
        gcc_jit_block_end_with_conditional(notall, NULL, cmp(g, GCC_JIT_COMPARISON_NE, m, ci(g, g->u32, 0)),
                                           fail, next);
        gcc_jit_block_end_with_return(fail, NULL, ci(g, g->i32, pc));
        return next;
    }
    case J_EXIT:
        gcc_jit_block_end_with_return(b, NULL, ci(g, g->i32, -1));
        return blk(g);      /* unreachable unless a label follows */
    default:
        return lane_loop(g, b, body_alu, in);
    }
}

static BlockFn gj_compile(const Backend *be, const Prog *pg, void **handle,
                          double *emit_ms, double *compile_ms, double *load_ms)
{
    double t0 = now_ms();
    G g = { .pg = pg };
    g.cx = gcc_jit_context_acquire();
    gcc_jit_context_set_int_option(g.cx, GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL, be->level);
    gcc_jit_context_set_bool_allow_unreachable_blocks(g.cx, 1);
    gcc_jit_context_add_command_line_option(g.cx, "-ffp-contract=off");
    char opts[200];
    snprintf(opts, sizeof opts, "%s", be->opt);
    for (char *s = strtok(opts, " "); s; s = strtok(NULL, " ")) {
        /* libgccjit has no -march=native (the gcc driver expands it): choose the x86-64
         * level from cpuid, as the emulator would */
        if (!strcmp(s, "runtime-level"))
            s = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")
                    ? "-march=x86-64-v4" : __builtin_cpu_supports("avx2") ? "-march=x86-64-v3" : "-O2";
        gcc_jit_context_add_command_line_option(g.cx, s);
    }
    if (getenv("JITCMP_GCCJIT_VERBOSE"))
        gcc_jit_context_add_command_line_option(g.cx, "-fopt-info-vec-optimized");
    g.i32 = gcc_jit_context_get_type(g.cx, GCC_JIT_TYPE_INT32_T);
    g.u32 = gcc_jit_context_get_type(g.cx, GCC_JIT_TYPE_UINT32_T);
    g.i64 = gcc_jit_context_get_type(g.cx, GCC_JIT_TYPE_INT64_T);
    g.u64 = gcc_jit_context_get_type(g.cx, GCC_JIT_TYPE_UINT64_T);
    g.f32 = gcc_jit_context_get_type(g.cx, GCC_JIT_TYPE_FLOAT);
    g.pu64 = gcc_jit_type_get_pointer(g.u64);
    g.pu32 = gcc_jit_type_get_pointer(g.u32);
    g.pcu32 = gcc_jit_type_get_pointer(gcc_jit_type_get_const(g.u32));
    /* struct Ctx { uint64_t glo, glim; const uint8_t *shared; uint64_t slim; } (shared
     * read as u32: every access is checked aligned) */
    gcc_jit_field *fl[4] = {
        gcc_jit_context_new_field(g.cx, NULL, g.u64, "glo"),
        gcc_jit_context_new_field(g.cx, NULL, g.u64, "glim"),
        gcc_jit_context_new_field(g.cx, NULL, g.pcu32, "shared"),
        gcc_jit_context_new_field(g.cx, NULL, g.u64, "slim"),
    };
    gcc_jit_struct *ctx_t = gcc_jit_context_new_struct_type(g.cx, NULL, "Ctx", 4, fl);
    gcc_jit_param *prm[3] = {
        gcc_jit_context_new_param(g.cx, NULL, g.pu64, "R"),
        gcc_jit_context_new_param(g.cx, NULL, g.pu32, "P"),
        gcc_jit_context_new_param(g.cx, NULL, gcc_jit_type_get_pointer(gcc_jit_struct_as_type(ctx_t)), "c"),
    };
    char fname[64];
    snprintf(fname, sizeof fname, "block_%s", pg->name);
    g.fn = gcc_jit_context_new_function(g.cx, NULL, GCC_JIT_FUNCTION_EXPORTED, g.i32, fname, 3, prm, 0);
    g.R = gcc_jit_param_as_rvalue(prm[0]);
    g.P = gcc_jit_param_as_rvalue(prm[1]);
    RV *c = gcc_jit_param_as_rvalue(prm[2]);
    g.lane = gcc_jit_function_new_local(g.fn, NULL, g.i32, "l");
    g.m = gcc_jit_function_new_local(g.fn, NULL, g.u32, "m");
    g.bad = gcc_jit_function_new_local(g.fn, NULL, g.u64, "bad");
    g.aff = gcc_jit_function_new_local(g.fn, NULL, g.u64, "aff");
    g.base = gcc_jit_function_new_local(g.fn, NULL, g.u64, "base");
    LV *lglo = gcc_jit_function_new_local(g.fn, NULL, g.u64, "glo");
    LV *lglim = gcc_jit_function_new_local(g.fn, NULL, g.u64, "glim");
    LV *lsh = gcc_jit_function_new_local(g.fn, NULL, g.pcu32, "shared");
    LV *lslim = gcc_jit_function_new_local(g.fn, NULL, g.u64, "slim");
    BL *b = blk(&g);
    gcc_jit_block_add_assignment(b, NULL, lglo, gcc_jit_lvalue_as_rvalue(gcc_jit_rvalue_dereference_field(c, NULL, fl[0])));
    gcc_jit_block_add_assignment(b, NULL, lglim, gcc_jit_lvalue_as_rvalue(gcc_jit_rvalue_dereference_field(c, NULL, fl[1])));
    gcc_jit_block_add_assignment(b, NULL, lsh, gcc_jit_lvalue_as_rvalue(gcc_jit_rvalue_dereference_field(c, NULL, fl[2])));
    gcc_jit_block_add_assignment(b, NULL, lslim, gcc_jit_lvalue_as_rvalue(gcc_jit_rvalue_dereference_field(c, NULL, fl[3])));
    g.glo = gcc_jit_lvalue_as_rvalue(lglo);
    g.glim = gcc_jit_lvalue_as_rvalue(lglim);
    g.shared = gcc_jit_lvalue_as_rvalue(lsh);
    g.slim = gcc_jit_lvalue_as_rvalue(lslim);
    g.label = calloc(pg->n + 1, sizeof *g.label);
    for (int i = 0; i < pg->n; i++)
        if (pg->code[i].op == J_BRA && !g.label[pg->code[i].imm]) g.label[pg->code[i].imm] = blk(&g);
    for (int i = 0; i < pg->n; i++) {
        if (g.label[i]) {
            gcc_jit_block_end_with_jump(b, NULL, g.label[i]);
            b = g.label[i];
        }
        b = emit_inst(&g, b, &pg->code[i], i);
    }
    gcc_jit_block_end_with_return(b, NULL, ci(&g, g.i32, -1));
    free(g.label);
    double t1 = now_ms();
    gcc_jit_result *res = gcc_jit_context_compile(g.cx);
    double t2 = now_ms();
    BlockFn fn = NULL;
    if (res) fn = (BlockFn)(uintptr_t)gcc_jit_result_get_code(res, fname);
    else fprintf(stderr, "jitcmp: gccjit: %s\n", gcc_jit_context_get_first_error(g.cx));
    if (getenv("JITCMP_GCCJIT_DUMP")) {
        char path[300];
        /* a second compile, to a file for objdump: only in the inspection run */
        snprintf(path, sizeof path, "%s/gccjit.so", getenv("JITCMP_GCCJIT_DUMP"));
        gcc_jit_context_compile_to_file(g.cx, GCC_JIT_OUTPUT_KIND_DYNAMIC_LIBRARY, path);
        snprintf(last_object, sizeof last_object, "%s", path);
    }
    gcc_jit_context_release(g.cx);
    *handle = res;
    *emit_ms = t1 - t0; *compile_ms = t2 - t1; *load_ms = 0;
    return fn;
}

static void gj_release(void *h) { if (h) gcc_jit_result_release(h); }

const Backend gccjit_backends[] = {
    { "gccjit -O2", "gccjit", gj_compile, gj_release, "", 2 },
    { "gccjit -O1 avx2", "gccjit", gj_compile, gj_release, "-mavx2 -mfma", 1 },
    { "gccjit -O2 avx2", "gccjit", gj_compile, gj_release, "-mavx2 -mfma", 2 },
    { "gccjit -O2 x86-64-v4", "gccjit", gj_compile, gj_release, "runtime-level", 2 },
    { "gccjit -O3 x86-64-v4", "gccjit", gj_compile, gj_release, "runtime-level", 3 },
};
const int n_gccjit_backends = sizeof gccjit_backends / sizeof gccjit_backends[0];
