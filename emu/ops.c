/* ops.c - the opcode table generated from ops.def, and lookup by name. */
#include <string.h>
#include "exec.h"

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
