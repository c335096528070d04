/* ptx_names.c - PTX type and state-space names <-> the TY_* / SP_* enums of ptx_ast.h. */
#include "ptx_ast.h"

#include <string.h>

/* Indexed by TY_*; size 0 for TY_NONE and for .pred, which has no memory representation. */
static const struct { const char *name; int size; } types[TY_COUNT] = {
    [TY_NONE] = {"", 0},
    [TY_B8] = {"b8", 1},       [TY_B16] = {"b16", 2},     [TY_B32] = {"b32", 4},
    [TY_B64] = {"b64", 8},     [TY_B128] = {"b128", 16},
    [TY_U8] = {"u8", 1},       [TY_U16] = {"u16", 2},     [TY_U32] = {"u32", 4},
    [TY_U64] = {"u64", 8},
    [TY_S8] = {"s8", 1},       [TY_S16] = {"s16", 2},     [TY_S32] = {"s32", 4},
    [TY_S64] = {"s64", 8},
    [TY_F16] = {"f16", 2},     [TY_F16X2] = {"f16x2", 4}, [TY_BF16] = {"bf16", 2},
    [TY_BF16X2] = {"bf16x2", 4}, [TY_F32] = {"f32", 4},   [TY_F64] = {"f64", 8},
    [TY_E4M3X2] = {"e4m3x2", 2}, [TY_E5M2X2] = {"e5m2x2", 2}, [TY_TF32] = {"tf32", 4},
    [TY_U16X2] = {"u16x2", 4}, [TY_S16X2] = {"s16x2", 4},
    [TY_S4] = {"s4", 0},       [TY_U4] = {"u4", 0},       [TY_B1] = {"b1", 0},
    [TY_E4M3] = {"e4m3", 0},   [TY_E5M2] = {"e5m2", 0},
    [TY_PRED] = {"pred", 0},
};

int ptx_type_from_name(const char *s)
{
    if (!s || !*s) return TY_NONE;
    if (*s == '.') s++;
    for (int t = 1; t < TY_COUNT; t++)
        if (strcmp(s, types[t].name) == 0) return t;
    return TY_NONE;
}

int ptx_type_size(int ty)
{
    return ty > 0 && ty < TY_COUNT ? types[ty].size : 0;
}

const char *ptx_type_name(int ty)
{
    return ty > 0 && ty < TY_COUNT ? types[ty].name : "?";
}

int ptx_space_from_name(const char *s)
{
    static const struct { const char *name; int sp; } spaces[] = {
        {"reg", SP_REG}, {"sreg", SP_SREG}, {"const", SP_CONST}, {"global", SP_GLOBAL},
        {"local", SP_LOCAL}, {"param", SP_PARAM}, {"param::entry", SP_PARAM},
        {"param::func", SP_PARAM}, {"shared", SP_SHARED}, {"shared::cta", SP_SHARED},
        {"shared::cluster", SP_SHARED_CLUSTER}, {"tex", SP_TEX},
    };
    if (!s) return SP_NONE;
    if (*s == '.') s++;
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (strcmp(s, spaces[i].name) == 0) return spaces[i].sp;
    return SP_NONE;
}

uint32_t ptx_var_bytes(const PtxVar *v)
{
    uint64_t n = (uint64_t)ptx_type_size(v->type) * (uint32_t)(v->vec > 1 ? v->vec : 1);
    if (v->is_array) n *= (uint64_t)(v->array_len > 0 ? v->array_len : 0);
    return n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;
}

/* Every instruction name of the PTX ISA (9.0), whether ptxemu executes it or not: a module
 * with another name in it is malformed and fails to load, as the driver's JIT fails it; one
 * ptxemu does not execute yet fails only when a kernel that uses it is first launched. */
static const char *const ptx_instructions[] = {
    "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar",
    "barrier", "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call",
    "clusterlaunchcontrol", "clz", "cnot", "copysign", "cos", "cp", "createpolicy", "cvt",
    "cvta", "discard", "div", "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma", "fns",
    "getctarank", "griddepcontrol", "isspacep", "istypep", "ld", "ldmatrix", "ldu", "lg2",
    "lop3", "mad", "mad24", "madc", "mapa", "match", "max", "mbarrier", "membar", "min", "mma",
    "mov", "movmatrix", "mul", "mul24", "multimem", "nanosleep", "neg", "not", "or",
    "pmevent", "popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "redux", "rem", "ret",
    "rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf", "shfl", "shl", "shr", "sin",
    "slct", "sqrt", "st", "stackrestore", "stacksave", "stmatrix", "sub", "subc", "suld",
    "suq", "sured", "sust", "szext", "tanh", "tcgen05", "tensormap", "testp", "tex", "tld4",
    "trap", "txq", "vabsdiff", "vabsdiff2", "vabsdiff4", "vadd", "vadd2", "vadd4", "vavrg2",
    "vavrg4", "vmad", "vmax", "vmax2", "vmax4", "vmin", "vmin2", "vmin4", "vote", "vset",
    "vset2", "vset4", "vshl", "vshr", "vsub", "vsub2", "vsub4", "wgmma", "wmma", "xor", NULL
};

int ptx_is_instruction(const char *name)
{
    for (int i = 0; ptx_instructions[i]; i++)
        if (!strcmp(ptx_instructions[i], name)) return 1;
    return 0;
}
