/* ptx_ast.h - the parsed form of one PTX module, as the parser hands it to translation.
 *
 * Contract: the parser turns PTX text into this tree and checks only syntax; names are
 * kept as strings (interned in the module's arena) and resolved later by translate.c.
 * Everything lives in one arena owned by the PtxModule, freed by ptx_module_free().
 */
#ifndef PTXEMU_PTX_AST_H
#define PTXEMU_PTX_AST_H

#include <stddef.h>
#include <stdint.h>

/* State spaces, shared by the AST, the decoded program and the memory system. */
enum {
    SP_NONE = 0, SP_REG, SP_SREG, SP_CONST, SP_GLOBAL, SP_LOCAL, SP_PARAM,
    SP_SHARED,          /* .shared and .shared::cta */
    SP_SHARED_CLUSTER,  /* .shared::cluster */
    SP_GENERIC,         /* no space given on a memory instruction */
    SP_TEX
};

/* Scalar types of PTX (.b8 ... .f64, .pred, packed halves, packed 16-bit integers). */
enum {
    TY_NONE = 0,
    TY_B8, TY_B16, TY_B32, TY_B64, TY_B128,
    TY_U8, TY_U16, TY_U32, TY_U64,
    TY_S8, TY_S16, TY_S32, TY_S64,
    TY_F16, TY_F16X2, TY_BF16, TY_BF16X2, TY_F32, TY_F64,
    TY_E4M3X2, TY_E5M2X2, TY_TF32,
    TY_U16X2, TY_S16X2,   /* two 16-bit integers in a .b32 (add/min/max, sm_90) */
    TY_S4, TY_U4, TY_B1,  /* sub-byte elements of mma operands (no registers of these) */
    TY_E4M3, TY_E5M2,     /* fp8 elements of mma operands (no registers of these either) */
    TY_PRED,
    TY_COUNT
};

typedef enum {
    OPD_REG,      /* %r1, or a register named in a vector/pair                          */
    OPD_IMM_INT,  /* 42, -1, 0x10, 077, 0b101 (value in ival, two's complement)          */
    OPD_IMM_F32,  /* 0f3F800000 (bits in ival)                                          */
    OPD_IMM_F64,  /* 0d3FF0000000000000 (bits in ival)                                  */
    OPD_IMM_DEC,  /* 1.5, 1e-3: a decimal float literal, value in fval                  */
    OPD_SYM,      /* a name: label, variable, function, or special register (%tid.x)    */
    OPD_ADDR,     /* [base+off]: base is a register or a symbol name (or none), off ival */
    OPD_VEC,      /* {a, b, c, d}: elems                                                */
    OPD_PAIR,     /* %r1|%p1 : elems[0] and elems[1]                                     */
    OPD_SINK,     /* _                                                                   */
    OPD_LIST      /* (a, b, c) in call: elems                                            */
} PtxOpdKind;

typedef struct PtxOperand PtxOperand;
struct PtxOperand {
    PtxOpdKind kind;
    const char *name;     /* OPD_REG / OPD_SYM: the name (e.g. "%r1", "%tid.x", "$L__BB0_2");
                             OPD_ADDR: base name, NULL when the address is a bare number     */
    int64_t ival;         /* immediate bits; OPD_ADDR: the constant offset                    */
    double fval;          /* OPD_IMM_DEC                                                      */
    int neg;              /* !%p as an operand (e.g. in setp's c operand or selp)            */
    int nelems;
    PtxOperand *elems;    /* OPD_VEC, OPD_PAIR, OPD_LIST                                     */
    int line, col;
};

typedef struct PtxInst {
    const char *opcode;   /* base opcode, e.g. "ld"                                          */
    const char **mods;    /* modifiers without the dot, in order: {"global","nc","v4","f32"} */
    int nmods;
    const char *guard;    /* "%p1" or NULL                                                    */
    int guard_neg;        /* @!%p1                                                             */
    PtxOperand *opds;
    int nopds;
    int line, col;        /* position in the PTX text                                          */
    int loc_file, loc_line; /* last .loc seen before it (0 when none)                         */
    int outer_file, outer_line; /* the innermost place of the .loc's inlined_at chain in the
                             file at the chain's end (the kernel's own source): code inlined
                             from a header gets the caller's line (= loc_* when not inlined) */
    const char *label;    /* a label defined right before this instruction, or NULL; several
                             labels in a row become several entries in PtxFunc.labels       */
} PtxInst;

/* A variable declaration: module scope or function scope (.reg/.local/.shared/.param). */
typedef struct PtxVar {
    int space;            /* SP_* */
    int type;             /* TY_* */
    int align;            /* bytes, 0 = natural */
    int vec;              /* .v2/.v4 variable, else 1 */
    const char *name;
    int is_array;         /* name[N] or name[] */
    int64_t array_len;    /* -1 for [] (e.g. .extern .shared dynamic array) */
    int nrange;           /* %r<N>: N registers %r0..%r(N-1); 0 = a single name */
    int is_extern, is_visible, is_weak;
    int is_ptr;           /* .ptr attribute on a kernel param */
    int ptr_space;        /* .ptr.global etc. */
    int ptr_align;
    /* initializer, flattened into elements of `type` */
    int ninit;
    struct PtxInit {
        int kind;          /* 0: integer, 1: float bits (of type), 2: address of symbol + ival, 3: generic(symbol)+ival */
        int64_t ival;
        double fval;
        int is_float_literal;
        const char *sym;
    } *init;
    /* the `{ }` block declaring a variable of a function body: its nesting depth (the body
     * is 1) and a number unique in the module; both 0 elsewhere. A call block's .param
     * variables live only while their block is open, so blocks can share frame bytes. */
    int depth, block;
    int line, col;
} PtxVar;

typedef struct PtxLabel { const char *name; int inst_index; int line; } PtxLabel;

/* One .entry or .func. */
typedef struct PtxFunc {
    const char *name;
    int is_entry, is_extern, is_visible, is_weak, noreturn;
    PtxVar *params; int nparams;      /* for .entry: kernel params; for .func: inputs  */
    PtxVar *rets;   int nrets;        /* .func return params                            */
    PtxVar *vars;   int nvars;        /* .reg, .local, .shared, .param declared in the body, in
                                         order (including those in { } call blocks)     */
    PtxInst *insts; int ninsts;
    PtxLabel *labels; int nlabels;
    /* performance directives; 0 = not given */
    int maxntid[3], reqntid[3], minnctapersm, maxnreg;
    int reqnctapercluster[3], explicitcluster, maxclusterrank;
    int has_body;                     /* 0 for a prototype / .extern */
    int line, col;
} PtxFunc;

typedef struct PtxFile { int index; const char *path; } PtxFile;

typedef struct PtxModule {
    int version_major, version_minor;
    char target[32];                  /* "sm_90", "sm_90a" */
    int address_size;
    PtxVar *globals; int nglobals;    /* module-scope .global/.const/.shared/.local variables */
    PtxFunc *funcs; int nfuncs;       /* in source order, prototypes included */
    PtxFile *files; int nfiles;       /* .file directives */
    const char *source_name;          /* for diagnostics, e.g. "program.ptx" or "fatbin:kernel.cu" */
    void *arena;                      /* owned memory (NULL for a linked module)           */
    struct PtxModule **parts;         /* a linked module: the modules it was made from,    */
    int nparts;                       /* whose arenas hold its names and instructions      */
    char **owned;                     /* a linked module: names it renamed                 */
    int nowned;
    int no_contract;                  /* built with -fmad=false: mul and add are never fused */
} PtxModule;

/* A last line "// ptxas options: ..." carries the ptxas options a fatbinary recorded with the
 * PTX (runtime/driver/image.c appends it); the parser sets no_contract from it. */
#define PTX_OPTIONS_MARK "// ptxas options: "

/* Parse PTX text. On error returns NULL and writes "name:line:col: message\n  offending text"
 * into err (errlen bytes). *is_version_error is set when the failure is an unsupported
 * .version / .target (maps to cudaErrorUnsupportedPtxVersion). */
PtxModule *ptx_parse(const char *text, size_t len, const char *source_name,
                     char *err, size_t errlen, int *is_version_error);
void ptx_module_free(PtxModule *m);

/* Link parsed modules into one (frontend/link.c): .extern declarations bound to definitions
 * in other parts, weak definitions merged, colliding internal names renamed. On success the
 * parts belong to the result (ptx_module_free frees them); on failure they stay the caller's
 * and err says why ("link error: ..."). An extern function left undefined is an error unless
 * host_provided(name) says the emulator implements it. */
PtxModule *ptx_link(PtxModule **parts, int nparts, int (*host_provided)(const char *name),
                    char *err, size_t errlen);

/* Name tables (frontend/ptx_names.c): "u32" -> TY_U32; size in bytes of a type. */
int ptx_type_from_name(const char *s);      /* TY_NONE when not a type */
int ptx_type_size(int ty);
/* Bytes a variable occupies: type size x vector width x array length (saturating). */
uint32_t ptx_var_bytes(const PtxVar *v);
const char *ptx_type_name(int ty);
int ptx_space_from_name(const char *s);     /* SP_NONE when not a state space */
int ptx_is_instruction(const char *name);   /* an instruction of the PTX ISA (any ptxemu runs or not) */

#endif
