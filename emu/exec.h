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

/* For .sync warp operations (shfl.sync, vote.sync, bar.warp.sync, ...): returns 0 when
 * every live lane of `members` is in `mask`, so the operation can run now. Otherwise parks
 * the lanes of mask at this instruction until the other members arrive and returns
 * STEP_BLOCK; the handler must return that value unchanged. Member lanes that have exited,
 * or exit while the others wait (warp_lanes_exited), are not waited for: the operations wait
 * for "all non-exited threads" of membermask (PTX ISA; the CUDA Programming Guide for
 * __syncwarp: "all non-exited threads named in mask must execute" it). Numba's reductions
 * rely on it: lanes 0 and 1 call __syncwarp() with the full mask while the rest go on to
 * exit. */
int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members);
/* Lanes of w exited: lanes parked at a warp-synchronous instruction try it again, as they may
 * have waited only for those. */
void warp_lanes_exited(Warp *w);

/* A hash of what a warp's progress changes (pc, lanes, registers, predicates), folded into
 * h: the spin checks of deterministic mode and of parking (sched.c) compare it. */
uint64_t warp_state_hash(const Warp *w, uint64_t h);

/* Device-side printf (devprintf.c): format like the GPU's printf. fmt and the argument
 * buffer are host pointers; %s arguments are device addresses resolved through `w`.
 * Appends the text to the launch's output buffer. Returns the number of arguments
 * consumed, or -1 when the format is malformed (printf then returns -1 on the device). */
int devprintf(Warp *w, int lane, const char *fmt, const uint8_t *args, size_t args_len);

#endif
