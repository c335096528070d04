/* exec.h - binders of every opcode family and the few engine services handlers call.
 *
 * Each exec_*.c file implements the handlers of one family and exports their binders.
 * ops.def names the binder of each opcode; opcodes that exist for both integers and floats
 * (add, mul, min, ...) go through a small dispatcher in exec_arith.c that calls the
 * bind_int_* or bind_flt_* binder by type.
 */
#ifndef PTXEMU_EXEC_H
#define PTXEMU_EXEC_H

#include "machine.h"
#include "emu.h"

#define OP(name, str, fmt, binder) const char *binder(Inst *in, const InstDesc *d);
#include "ops.def"
#undef OP

/* exec_int.c: integer forms of the mixed opcodes (types b/u/s 8..64). */
const char *bind_int_add(Inst *in, const InstDesc *d);
const char *bind_int_sub(Inst *in, const InstDesc *d);
const char *bind_int_mul(Inst *in, const InstDesc *d);
const char *bind_int_mad(Inst *in, const InstDesc *d);
const char *bind_int_div(Inst *in, const InstDesc *d);
const char *bind_int_rem(Inst *in, const InstDesc *d);
const char *bind_int_abs(Inst *in, const InstDesc *d);
const char *bind_int_neg(Inst *in, const InstDesc *d);
const char *bind_int_min(Inst *in, const InstDesc *d);
const char *bind_int_max(Inst *in, const InstDesc *d);

/* The integer forms idle.c (blocks whose threads leave at once) evaluates itself. */
enum { IA_NONE = 0, IA_ADD, IA_SUB, IA_MUL, IA_MAD, IA_MUL_WIDE, IA_MAD_WIDE };
int int_affine_form(const Inst *in, int *bits, int *sgn);
int int_cmp_form(const Inst *in, int *bits, int *sgn);
int shl_bits(const Inst *in);

/* exec_float.c: floating-point forms (f32, f64, f16, f16x2, bf16, bf16x2). */
const char *bind_flt_add(Inst *in, const InstDesc *d);
const char *bind_flt_sub(Inst *in, const InstDesc *d);
const char *bind_flt_mul(Inst *in, const InstDesc *d);
const char *bind_flt_mad(Inst *in, const InstDesc *d);
const char *bind_flt_div(Inst *in, const InstDesc *d);
const char *bind_flt_abs(Inst *in, const InstDesc *d);
const char *bind_flt_neg(Inst *in, const InstDesc *d);
const char *bind_flt_min(Inst *in, const InstDesc *d);
const char *bind_flt_max(Inst *in, const InstDesc *d);
/* setp/set on f16, bf16, f16x2, bf16x2 (bind_setp/bind_set in exec_int.c delegate here). */
const char *bind_half_setp(Inst *in, const InstDesc *d);
const char *bind_half_set(Inst *in, const InstDesc *d);

static inline int ty_is_float(int t)
{
    return t == TY_F16 || t == TY_F16X2 || t == TY_BF16 || t == TY_BF16X2 || t == TY_F32 ||
           t == TY_F64;
}

/* Engine services (warp.c). */

/* For warp-synchronous operations: returns 0 when every lane of `members` is in `mask` or
 * waits at a warp-synchronous instruction, so the operation can run now. Otherwise parks
 * the lanes of mask at this instruction until the other members arrive and returns
 * STEP_BLOCK, or runs it itself for every lane it released and returns STEP_JUMP; the
 * handler must return that value unchanged. warp_converge is for .aligned operations (mma, wgmma,
 * ldmatrix): a member lane that has exited is a fault. warp_converge_sync is for the .sync
 * operations with a membermask (shfl, vote, match, redux, bar.warp.sync, elect): exited
 * lanes are not members, as the CUDA programming guide defines. */
int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members);
/* kinds: which operands are predicates (bit k: source k, bit 8+k: destination k), so that
 * lanes waiting at another instruction of the same kind can run with this one; JOIN_NONE
 * for instructions that exchange no data (bar.warp.sync, elect). */
#define JOIN_NONE 0xffffffffu
int warp_converge_sync(Warp *w, const Inst *in, uint32_t mask, uint32_t members, uint32_t kinds);
/* Lanes of lane-group `lanes` execute a .sync operation whose membermask (row `row`) does
 * not name them: undefined in PTX. Reported once per instruction and launch, with the
 * place; the GPU then runs the operation with every lane that executes it. */
void warp_sync_outside(Warp *w, const char *op, uint32_t lanes, uint32_t row);

/* A hash of what a warp's progress changes (pc, lanes, registers, predicates), folded into
 * h: the spin checks of deterministic mode and of parking (sched.c) compare it. */
uint64_t warp_state_hash(const Warp *w, uint64_t h);

/* Device-side printf (devprintf.c): format like the GPU's printf. fmt and the argument
 * buffer are host pointers; %s arguments are device addresses resolved through `w`.
 * Appends the text to the launch's output buffer. Returns the number of arguments
 * consumed, or -1 when the format is malformed (printf then returns -1 on the device). */
int devprintf(Warp *w, int lane, const char *fmt, const uint8_t *args, size_t args_len);

#endif
