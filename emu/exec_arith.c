/* exec_arith.c - binders of opcodes that exist for both integers and floats: pick the
 * integer (exec_int.c) or floating-point (exec_float.c) family by the instruction's type. */
#include "exec.h"

#define DISPATCH(op)                                                          \
    const char *bind_##op(Inst *in, const InstDesc *d)                        \
    {                                                                         \
        return ty_is_float(d->types[0]) ? bind_flt_##op(in, d)                \
                                        : bind_int_##op(in, d);               \
    }
DISPATCH(add)
DISPATCH(sub)
DISPATCH(mul)
DISPATCH(mad)
DISPATCH(div)
DISPATCH(abs)
DISPATCH(neg)
DISPATCH(min)
DISPATCH(max)

const char *bind_rem(Inst *in, const InstDesc *d)
{
    return bind_int_rem(in, d);
}
