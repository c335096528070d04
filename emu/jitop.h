/* jitop.h - handlers the compiled tier may inline.
 *
 * A handler template (exec_int_tmpl.h, ...) registers, beside each handler it generates, the
 * same tokens it compiled the handler from: its kind, operand and result C types and lane
 * expression, as text. The entries sit in the linker section "ptxemu_jitop"; the compiled
 * tier (jit/compile.c) finds an instruction's entry by its handler and writes the template's
 * loop into the kernel's C source, so compiled and interpreted code compute the same
 * expression with the same compiler flags. An expression that calls something the compiled
 * code's headers do not declare is left to the handler (jit/compile.c checks).
 */
#ifndef PTXEMU_JITOP_H
#define PTXEMU_JITOP_H

#include "inst.h"

typedef struct JitOp {
    Handler fn;
    const char *kind;           /* the template: "UN", "BIN", "TER", "QUAD" (t: operand types),
                                 * "CMP" (t: type, getter), "SELP", "F32" (t: tiny, ftz, sat),
                                 * "F64", "CVTA" (rt: result type), "LD", "LDS", "ST", "STS"
                                 * (t: element type, vector width), "BRA", "PACK", "UNPACK"
                                 * (expr: the function of one element, mov_pack_elem)      */
    const char *t[4];           /* the template's arguments, as its kind says                 */
    const char *rt;             /* result C type                                              */
    const char *expr;           /* lane expression (over a, b, c, e)                           */
} JitOp;

/* A contracted instruction (emu/exec_contract.c: its JitOp kinds "MULC", "MOVC", "FMAC",
 * "FMACJ"): the handlers it runs its computation with - main: the mul, the mov/neg or the fma;
 * alt: the original add/sub of a join's other lanes (else NULL) - and its type's sign bit
 * (the negations of the captured factor and of c). 0 when in is not one. */
typedef struct ContractJit { Handler main, alt; uint64_t sign; } ContractJit;
int contract_jit(const Inst *in, ContractJit *c);

#define JIT_OP(handler, kind, ta, tb, tc, te, rt, expr)                                      \
    static const JitOp jitop_##handler                                                       \
        __attribute__((section("ptxemu_jitop"), used, aligned(sizeof(void *)))) =            \
        { handler, kind, { ta, tb, tc, te }, rt, expr };

#endif
