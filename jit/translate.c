/* translate.c - lowers a parsed kernel to the decoded Program the engine runs.
 *
 * Passes: (1) find the .funcs the kernel reaches and give each a code range, register
 * range and frame layout; (2) lower every instruction: operands become rows (immediates and
 * special registers get constant rows, tagged until the row map is final), addresses become
 * base row + offset; (3) renumber rows so constants come first (a warp start copies only
 * them), patch branch targets, and let each opcode's binder choose the handler.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>
#include "translate.h"
#include "contract.h"
#include "emu/exec.h"
#include "emu/call.h"
#include "emu/demangle.h"

/* Row ids carry a tag until pass 3 knows how many constants there are. */
#define TAG_CONST 0x20000000u
#define TAG_SREG  0x10000000u
#define TAG_VAR   0x40000000u
#define TAG_MASK  0xf0000000u

typedef struct Name { const char *key; int val; } Name;
typedef struct NameMap { Name *v; uint32_t cap, n; } NameMap;

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s) h = (h ^ (uint8_t)*s++) * 16777619u;
    return h;
}

static int map_get(const NameMap *m, const char *k, int *out)
{
    if (!m->cap) return 0;
    for (uint32_t i = hash_str(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->v[i].key) return 0;
        if (strcmp(m->v[i].key, k) == 0) { *out = m->v[i].val; return 1; }
    }
}

static int map_put(NameMap *m, const char *k, int val)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        Name *nv = calloc(nc, sizeof *nv);
        if (!nv) return -1;
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->v[i].key) {
                uint32_t j = hash_str(m->v[i].key) & (nc - 1);
                while (nv[j].key) j = (j + 1) & (nc - 1);
                nv[j] = m->v[i];
            }
        free(m->v);
        m->v = nv;
        m->cap = nc;
    }
    uint32_t j = hash_str(k) & (m->cap - 1);
    while (m->v[j].key && strcmp(m->v[j].key, k)) j = (j + 1) & (m->cap - 1);
    if (!m->v[j].key) m->n++;
    m->v[j].key = k;
    m->v[j].val = val;
    return 0;
}

/* What a name means inside one function. */
enum { NK_ROW, NK_PRED, NK_FRAME, NK_SHARED_LOCAL, NK_KPARAM };
#define NK_SHIFT 28

typedef struct Fn {
    const PtxFunc *f;
    uint32_t pc_base;          /* first pc of its code                                */
    uint32_t *pc_of;           /* pc of the first decoded inst of each PtxInst (+1)   */
    NameMap names;             /* regs, frame vars, function-scope shared vars         */
    NameMap labels;
    uint32_t frame;            /* frame size                                           */
    uint32_t var_lo, var_hi;   /* var row ids [lo,hi) (untagged numbering)            */
    uint32_t pred_lo, pred_hi;
    int recursive;
    int visiting, done;        /* call-graph walk                                      */
    /* registers of a known value (known_value), worked out at the first question */
    int known_done;
    NameMap known;             /* register -> the PtxInst index of its one write, a mov of
                                  an immediate; -1 when written otherwise or more than once */
    int *block_start;          /* per PtxInst: the index of the last label at or before it */
    int prefix_end;            /* PtxInsts [0, prefix_end): the straight-line start      */
} Fn;

typedef struct Tr {
    const PtxModule *m;
    TrLookupFn lookup; void *ctx;
    Fn *fns; int nfns, capfns;
    NameMap fn_index;          /* function name -> index in fns (bodies only)         */
    Inst *code; uint32_t ncode, capcode;
    InstDesc *descs; uint32_t capdescs; /* one per Inst, for the binders in pass 3   */
    char **owned; uint32_t nowned, capowned; /* strings made during translation    */
    uint64_t *consts; uint32_t nconsts, capconsts;
    int32_t sreg_id[SR_COUNT_STATIC];  /* tagged sreg index or -1                      */
    uint32_t nsregs;
    uint32_t nvars, npreds;
    uint8_t *var_ty; uint32_t capvarty;   /* declared type of each register row       */
    NameMap shared_off;        /* module- and function-scope shared var -> offset      */
    SharedName *snames; uint32_t nsnames, capsnames;   /* the same, for the debugger  */
    uint32_t shared_size, dyn_align;
    int has_dyn_shared;
    NameMap kparams;           /* kernel param name -> offset                          */
    uint32_t *kp_off, *kp_size, nkp, kp_bytes;
    SrcLoc *locs; uint32_t nlocs, caplocs;
    KparamRow *kprows; uint32_t nkprows, capkprows; /* rows filled from kernel params  */
    CallDesc **calls; uint32_t ncalls, capcalls;
    FnDesc *fdesc;
    int uses_local;
    int has_indirect;          /* some reachable function calls through a pointer     */
    uint32_t obs;              /* the groups of events tools watch: binders pick variants */
    char *err; size_t errlen;
    int failed;
} Tr;

static int fail(Tr *t, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(Tr *t, int line, int col, const char *fmt, ...)
{
    if (t->failed) return -1;
    t->failed = 1;
    int n = snprintf(t->err, t->errlen, "%s:%d:%d: ", t->m->source_name ? t->m->source_name : "ptx",
                     line, col);
    if (n < 0 || (size_t)n >= t->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->err + n, t->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) return p;
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    void *np = realloc(p, (size_t)nc * elem);
    if (!np) return NULL;
    memset((char *)np + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *cap = nc;
    return np;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

static uint32_t var_align(const PtxVar *v)
{
    uint32_t a = v->align ? (uint32_t)v->align
                          : (uint32_t)ptx_type_size(v->type) * (uint32_t)(v->vec > 1 ? v->vec : 1);
    return a ? a : 1;
}

uint32_t translate_param_layout(const PtxFunc *e, uint32_t *offset, uint32_t *size)
{
    uint32_t off = 0;
    for (int i = 0; i < e->nparams; i++) {
        off = align_up(off, var_align(&e->params[i]));
        if (offset) offset[i] = off;
        if (size) size[i] = ptx_var_bytes(&e->params[i]);
        off += ptx_var_bytes(&e->params[i]);
    }
    return off;
}

/* ---- special registers ---------------------------------------------------------- */

static const struct { const char *name; int id; } sreg_names[] = {
    {"%tid.x", SR_TID_X}, {"%tid.y", SR_TID_Y}, {"%tid.z", SR_TID_Z},
    {"%ntid.x", SR_NTID_X}, {"%ntid.y", SR_NTID_Y}, {"%ntid.z", SR_NTID_Z},
    {"%ctaid.x", SR_CTAID_X}, {"%ctaid.y", SR_CTAID_Y}, {"%ctaid.z", SR_CTAID_Z},
    {"%nctaid.x", SR_NCTAID_X}, {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z},
    {"%laneid", SR_LANEID}, {"%warpid", SR_WARPID}, {"%nwarpid", SR_NWARPID},
    {"%smid", SR_SMID}, {"%nsmid", SR_NSMID}, {"%gridid", SR_GRIDID},
    {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_lt", SR_LANEMASK_LT},
    {"%lanemask_le", SR_LANEMASK_LE}, {"%lanemask_gt", SR_LANEMASK_GT},
    {"%lanemask_ge", SR_LANEMASK_GE}, {"%dynamic_smem_size", SR_DYN_SMEM},
    {"%total_smem_size", SR_TOTAL_SMEM},
    {"%clusterid.x", SR_CLUSTERID_X}, {"%clusterid.y", SR_CLUSTERID_Y},
    {"%clusterid.z", SR_CLUSTERID_Z}, {"%nclusterid.x", SR_NCLUSTERID_X},
    {"%nclusterid.y", SR_NCLUSTERID_Y}, {"%nclusterid.z", SR_NCLUSTERID_Z},
    {"%cluster_ctaid.x", SR_CLUSTER_CTAID_X}, {"%cluster_ctaid.y", SR_CLUSTER_CTAID_Y},
    {"%cluster_ctaid.z", SR_CLUSTER_CTAID_Z}, {"%cluster_nctaid.x", SR_CLUSTER_NCTAID_X},
    {"%cluster_nctaid.y", SR_CLUSTER_NCTAID_Y}, {"%cluster_nctaid.z", SR_CLUSTER_NCTAID_Z},
    {"%cluster_ctarank", SR_CLUSTER_CTARANK}, {"%cluster_nctarank", SR_CLUSTER_NCTARANK},
    {"%is_explicit_cluster", SR_IS_EXPLICIT_CLUSTER},
    {"%clock", SR_CLOCK}, {"%clock_hi", SR_CLOCK_HI}, {"%clock64", SR_CLOCK64},
    {"%globaltimer", SR_GLOBALTIMER}, {"%globaltimer_lo", SR_GLOBALTIMER_LO},
    {"%globaltimer_hi", SR_GLOBALTIMER_HI},
    {"%aggr_smem_size", SR_AGGR_SMEM}, {"%reserved_smem_offset_begin", SR_RESERVED_SMEM_BEGIN},
    {"%reserved_smem_offset_end", SR_RESERVED_SMEM_END},
    {"%reserved_smem_offset_cap", SR_RESERVED_SMEM_CAP},
    {"%current_graph_exec", SR_CURRENT_GRAPH_EXEC},
};

/* A numbered family: PREFIX then a decimal 0..n-1 then SUFFIX (%envreg0..31, %pm0..7,
 * %pm0_64..%pm7_64); the number, or -1. */
static int sreg_numbered(const char *name, const char *prefix, const char *suffix, int n)
{
    size_t lp = strlen(prefix);
    if (strncmp(name, prefix, lp) != 0 || !isdigit((unsigned char)name[lp])) return -1;
    char *end;
    long v = strtol(name + lp, &end, 10);
    if (strcmp(end, suffix) != 0 || v >= n || (name[lp] == '0' && end - (name + lp) > 1)) return -1;
    return (int)v;
}

static int sreg_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof sreg_names / sizeof sreg_names[0]; i++)
        if (strcmp(sreg_names[i].name, name) == 0) return sreg_names[i].id;
    int v;
    if ((v = sreg_numbered(name, "%envreg", "", 32)) >= 0) return SR_ENVREG0 + v;
    if ((v = sreg_numbered(name, "%pm", "", 8)) >= 0) return SR_PM0 + v;
    if ((v = sreg_numbered(name, "%pm", "_64", 8)) >= 0) return SR_PM0_64 + v;
    return -1;
}

static uint32_t sreg_row(Tr *t, int id)
{
    if (t->sreg_id[id] < 0) t->sreg_id[id] = (int32_t)t->nsregs++;
    return TAG_SREG | (uint32_t)t->sreg_id[id];
}

/* A row of its own (never shared with an equal constant) whose value is set per launch. */
static uint32_t fresh_const_row(Tr *t)
{
    uint64_t *nc = grow(t->consts, &t->capconsts, t->nconsts + 1, sizeof *nc);
    if (!nc) { t->failed = 1; return ROW_ZERO; }
    t->consts = nc;
    t->consts[t->nconsts] = 0;
    return TAG_CONST | t->nconsts++;
}

static uint32_t const_row(Tr *t, uint64_t v)
{
    for (uint32_t i = 0; i < t->nconsts; i++) {  /* few distinct constants per kernel */
        int launch_row = 0;
        for (uint32_t k = 0; k < t->nkprows; k++) launch_row |= t->kprows[k].row == i;
        if (t->consts[i] == v && !launch_row) return TAG_CONST | i;
    }
    uint64_t *nc = grow(t->consts, &t->capconsts, t->nconsts + 1, sizeof *nc);
    if (!nc) { t->failed = 1; return ROW_ZERO; }
    t->consts = nc;
    t->consts[t->nconsts] = v;
    return TAG_CONST | t->nconsts++;
}

static char *own(Tr *t, const char *s)
{
    char **no = grow(t->owned, &t->capowned, t->nowned + 1, sizeof *no);
    char *c = strdup(s);
    if (!no || !c) { free(c); t->failed = 1; return NULL; }
    t->owned = no;
    return t->owned[t->nowned++] = c;
}

/* ---- pass 1: functions, registers, frames ------------------------------------- */

static int fn_find(Tr *t, const char *name)
{
    int i;
    return map_get(&t->fn_index, name, &i) ? i : -1;
}

static const PtxFunc *module_func(const PtxModule *m, const char *name, int want_body)
{
    const PtxFunc *proto = NULL;
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0) {
            if (m->funcs[i].has_body) return &m->funcs[i];
            proto = &m->funcs[i];
        }
    return want_body ? NULL : proto;
}

/* The module index of a function (its pointer value is FUNC_PTR_BASE + index * STEP). */
static int module_func_index(const PtxModule *m, const char *name)
{
    int proto = -1;
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0) {
            if (m->funcs[i].has_body) return i;
            proto = i;
        }
    return proto;
}

static int add_fn(Tr *t, const PtxFunc *f)
{
    int idx = fn_find(t, f->name);
    if (idx >= 0) return idx;
    Fn *nf = grow(t->fns, (uint32_t *)&t->capfns, (uint32_t)t->nfns + 1, sizeof *nf);
    if (!nf) return -1;
    t->fns = nf;
    idx = t->nfns++;
    memset(&t->fns[idx], 0, sizeof t->fns[idx]);
    t->fns[idx].f = f;
    map_put(&t->fn_index, f->name, idx);
    return idx;
}

/* The parser gives every call the operands [LIST rets, callee, LIST args (, prototype)]. */
static const char *call_target(const PtxInst *in)
{
    return in->nopds >= 3 && in->opds[1].kind == OPD_SYM ? in->opds[1].name : NULL;
}

/* Depth-first walk of the call graph from fns[i]: adds every reachable body and marks
 * functions that lie on a cycle (they need their registers saved on call). */
static int walk_calls(Tr *t, int i)
{
    t->fns[i].visiting = 1;
    const PtxFunc *f = t->fns[i].f;
    for (int k = 0; k < f->ninsts; k++) {
        if (strcmp(f->insts[k].opcode, "call") != 0) continue;
        const char *name = call_target(&f->insts[k]);
        if (!name) { t->has_indirect = 1; continue; }   /* every function may be its target */
        const PtxFunc *g = module_func(t->m, name, 1);
        if (!g) continue;   /* extern: bound to the host later */
        int j = add_fn(t, g);
        if (j < 0) return -1;
        if (t->fns[j].visiting) { t->fns[j].recursive = 1; continue; }
        if (!t->fns[j].done && walk_calls(t, j) < 0) return -1;
    }
    t->fns[i].visiting = 0;
    t->fns[i].done = 1;
    return 0;
}

static int decl_reg(Tr *t, Fn *fn, const PtxVar *v)
{
    int is_pred = v->type == TY_PRED;
    int count = v->nrange > 0 ? v->nrange : 1;
    char buf[256];
    for (int k = 0; k < count; k++) {
        const char *name = v->name;
        if (v->nrange > 0) {
            snprintf(buf, sizeof buf, "%s%d", v->name, k);
            name = own(t, buf);
            if (!name) return -1;
        }
        if (!is_pred) {
            uint8_t *nt = grow(t->var_ty, &t->capvarty, t->nvars + 1, 1);
            if (!nt) return -1;
            t->var_ty = nt;
            t->var_ty[t->nvars] = (uint8_t)v->type;
        }
        int val = is_pred ? (NK_PRED << NK_SHIFT) | (int)t->npreds++
                          : (NK_ROW << NK_SHIFT) | (int)t->nvars++;
        if (v->vec > 1)
            return fail(t, v->line, v->col, "vector registers (.reg .v%d) are not supported",
                        v->vec);
        map_put(&fn->names, name, val);
    }
    return 0;
}

static int frame_var(Tr *t, Fn *fn, const PtxVar *v)
{
    (void)t;
    fn->frame = align_up(fn->frame, var_align(v));
    map_put(&fn->names, v->name, (NK_FRAME << NK_SHIFT) | (int)fn->frame);
    fn->frame += ptx_var_bytes(v);
    return 0;
}

static int shared_var(Tr *t, const PtxVar *v, const char *key)
{
    int off;
    if (map_get(&t->shared_off, key, &off)) return off;
    if (v->is_extern || (v->is_array && v->array_len < 0)) {
        /* dynamic shared memory: every extern array aliases the start of it */
        t->has_dyn_shared = 1;
        if (var_align(v) > t->dyn_align) t->dyn_align = var_align(v);
        map_put(&t->shared_off, key, -1);
        return -1;
    }
    t->shared_size = align_up(t->shared_size, var_align(v));
    off = (int)t->shared_size;
    t->shared_size += ptx_var_bytes(v);
    map_put(&t->shared_off, key, off);
    if (t->nsnames == t->capsnames) {   /* for the step debugger: best effort */
        uint32_t nc = t->capsnames ? t->capsnames * 2 : 8;
        SharedName *g = realloc(t->snames, nc * sizeof *g);
        if (g) { t->snames = g; t->capsnames = nc; }
    }
    if (t->nsnames < t->capsnames) {
        SharedName *sn = &t->snames[t->nsnames];
        sn->name = strdup(v->name);
        sn->offset = (uint32_t)off;
        sn->size = (uint32_t)ptx_var_bytes(v);
        if (sn->name) t->nsnames++;
    }
    return off;
}

/* A .param variable of a nested block (a call's arguments and return value): its bytes are
 * needed only while the block is open. */
static int block_param(const PtxVar *v)
{
    return v->space == SP_PARAM && v->depth > 1;
}

/* Lays out the block .params after the function's other frame variables, as a stack: a
 * block's variables reuse the bytes of blocks already closed, so a function with thousands
 * of call sites has a frame as large as its deepest nest of calls, not the sum of them (as
 * ptxas's frames are). Blocks close in declaration order: a variable of another block at the
 * same or a shallower depth means the blocks deeper than it have closed. */
static void layout_block_params(Tr *t, Fn *fn)
{
    enum { MAXD = 64 };
    struct { int depth, block; uint32_t mark; } open[MAXD];
    int n = 0;
    uint32_t high = fn->frame;
    const PtxFunc *f = fn->f;
    for (int k = 0; k < f->nvars; k++) {
        const PtxVar *v = &f->vars[k];
        if (!block_param(v)) continue;
        while (n > 0 && (open[n - 1].depth > v->depth ||
                         (open[n - 1].depth == v->depth && open[n - 1].block != v->block)))
            fn->frame = open[--n].mark;
        if (n == 0 || open[n - 1].block != v->block) {
            if (n == MAXD) { fn->frame = high; n = 0; }   /* nested deeper: no reuse */
            open[n].depth = v->depth;
            open[n].block = v->block;
            open[n++].mark = fn->frame;
        }
        frame_var(t, fn, v);
        if (fn->frame > high) high = fn->frame;
    }
    fn->frame = high;
}

static int layout_fn(Tr *t, int i)
{
    Fn *fn = &t->fns[i];
    const PtxFunc *f = fn->f;
    fn->var_lo = t->nvars;
    fn->pred_lo = t->npreds;
    fn->frame = f->is_entry ? 0 : FRAME_HEADER;
    if (!f->is_entry) {
        /* parameters declared .reg are registers of the callee; .param ones frame slots */
        for (int k = 0; k < f->nparams; k++)
            if (f->params[k].space == SP_REG ? decl_reg(t, fn, &f->params[k]) < 0
                                             : frame_var(t, fn, &f->params[k]) < 0) return -1;
        for (int k = 0; k < f->nrets; k++)
            if (f->rets[k].space == SP_REG ? decl_reg(t, fn, &f->rets[k]) < 0
                                           : frame_var(t, fn, &f->rets[k]) < 0) return -1;
    }
    for (int k = 0; k < f->nvars; k++) {
        const PtxVar *v = &f->vars[k];
        switch (v->space) {
        case SP_REG: if (decl_reg(t, fn, v) < 0) return -1; break;
        case SP_LOCAL: case SP_PARAM:
            if (!block_param(v)) frame_var(t, fn, v);
            t->uses_local = 1;
            break;
        case SP_NONE:   /* .branchtargets / .calltargets / .callprototype declarations */
            break;
        case SP_SHARED: {
            /* function-scope shared variables are per CTA like module-scope ones */
            map_put(&fn->names, v->name, (NK_SHARED_LOCAL << NK_SHIFT) | k);
            break;
        }
        default:
            return fail(t, v->line, v->col, "variable '%s' in an unsupported state space "
                        "inside a function", v->name);
        }
    }
    if (!f->is_entry) t->uses_local = 1;
    layout_block_params(t, fn);
    fn->var_hi = t->nvars;
    fn->pred_hi = t->npreds;
    fn->frame = align_up(fn->frame, 16);
    if (fn->recursive) fn->frame += (fn->var_hi - fn->var_lo) * 8 + (fn->pred_hi - fn->pred_lo);
    fn->frame = align_up(fn->frame, 16);
    for (int k = 0; k < f->nlabels; k++)
        map_put(&fn->labels, f->labels[k].name, f->labels[k].inst_index);
    return 0;
}

/* ---- pass 2: lowering ------------------------------------------------------------ */

static Inst *emit(Tr *t)
{
    uint32_t capd = t->capdescs;
    Inst *nc = grow(t->code, &t->capcode, t->ncode + 1, sizeof *nc);
    if (nc) t->code = nc;
    InstDesc *nd = grow(t->descs, &capd, t->ncode + 1, sizeof *nd);
    if (nd) { t->descs = nd; t->capdescs = capd; }
    if (!nc || !nd) { t->failed = 1; return NULL; }
    Inst *in = &t->code[t->ncode];
    memset(in, 0, sizeof *in);
    memset(&t->descs[t->ncode], 0, sizeof t->descs[0]);
    t->descs[t->ncode].vec = 1;
    t->ncode++;
    in->vec = 1;
    return in;
}

static uint32_t loc_index(Tr *t, const PtxInst *pi)
{
    if (!pi->loc_file || !pi->loc_line) return 0;
    if (t->nlocs && t->locs[t->nlocs - 1].file == (uint32_t)pi->loc_file &&
        t->locs[t->nlocs - 1].line == (uint32_t)pi->loc_line &&
        t->locs[t->nlocs - 1].ofile == (uint32_t)pi->outer_file &&
        t->locs[t->nlocs - 1].oline == (uint32_t)pi->outer_line)
        return t->nlocs - 1;
    SrcLoc *nl = grow(t->locs, &t->caplocs, t->nlocs + 2, sizeof *nl);
    if (!nl) return 0;
    t->locs = nl;
    if (!t->nlocs) t->nlocs = 1;   /* entry 0 is "no location" (grow zero-fills it) */
    t->locs[t->nlocs].file = (uint32_t)pi->loc_file;
    t->locs[t->nlocs].line = (uint32_t)pi->loc_line;
    t->locs[t->nlocs].ofile = (uint32_t)(pi->outer_line ? pi->outer_file : pi->loc_file);
    t->locs[t->nlocs].oline = (uint32_t)(pi->outer_line ? pi->outer_line : pi->loc_line);
    return t->nlocs++;
}

/* The bit pattern of an immediate used as a value of type ty. */
static uint64_t imm_bits(const PtxOperand *o, int ty)
{
    int is_f32 = ty == TY_F32, is_f64 = ty == TY_F64;
    switch (o->kind) {
    case OPD_IMM_INT:
        if (is_f32) { float f = (float)o->ival; uint32_t b; memcpy(&b, &f, 4); return b; }
        if (is_f64) { double f = (double)o->ival; uint64_t b; memcpy(&b, &f, 8); return b; }
        return (uint64_t)o->ival;
    case OPD_IMM_F32:
        if (is_f64) {
            uint32_t b = (uint32_t)o->ival; float f; memcpy(&f, &b, 4);
            double dd = f; uint64_t r; memcpy(&r, &dd, 8); return r;
        }
        return (uint32_t)o->ival;
    case OPD_IMM_F64:
        if (is_f32) {
            uint64_t b = (uint64_t)o->ival; double dd; memcpy(&dd, &b, 8);
            float f = (float)dd; uint32_t r; memcpy(&r, &f, 4); return r;
        }
        return (uint64_t)o->ival;
    case OPD_IMM_DEC:
        if (is_f32) { float f = (float)o->fval; uint32_t b; memcpy(&b, &f, 4); return b; }
        if (is_f64) { uint64_t b; memcpy(&b, &o->fval, 8); return b; }
        return (uint64_t)(int64_t)o->fval;
    default:
        return 0;
    }
}

typedef struct Lower {
    Tr *t; Fn *fn; const PtxInst *pi; Inst *in; InstDesc *d;
    int src_ty;         /* type used to encode immediate sources */
    uint32_t negtmp[8]; int nneg, negused; /* predicates holding !p operands, in order */
    uint32_t addrtmp[4]; int naddrtmp;    /* rows holding the 2nd, 3rd... [..] operands */
    int exact_size;     /* register operands must have the instruction type's size   */
    int pred_sreg;      /* a predicate special register was read: compare it with 0    */
} Lower;

static int is_imm(const PtxOperand *o)
{
    return o->kind == OPD_IMM_INT || o->kind == OPD_IMM_F32 || o->kind == OPD_IMM_F64 ||
           o->kind == OPD_IMM_DEC;
}

/* Resolve a non-register symbol used as a value or address: sets row, imm and frame so that
 * address = row + imm (+ frame pointer when IF_FRAME). Returns the space, or -1. */
static int resolve_sym(Lower *L, const char *name, uint32_t *row, int64_t *imm, int *frame)
{
    Tr *t = L->t;
    int v;
    *row = ROW_ZERO; *imm = 0; *frame = 0;
    if (map_get(&L->fn->names, name, &v)) {
        int kind = v >> NK_SHIFT, val = v & ((1 << NK_SHIFT) - 1);
        if (kind == NK_FRAME) { *imm = val; *frame = 1; return SP_LOCAL; }
        if (kind == NK_SHARED_LOCAL) {
            const PtxVar *sv = &L->fn->f->vars[val];
            char key[300];
            snprintf(key, sizeof key, "%s/%s", L->fn->f->name, name);
            char *k = own(t, key);
            if (!k) return -1;
            int off = shared_var(t, sv, k);
            *imm = off;   /* -1 (DYN_SHARED_MARK) for an extern array */
            return SP_SHARED;
        }
    }
    if (L->fn->f->is_entry && map_get(&t->kparams, name, &v)) {
        *row = sreg_row(t, SR_PARAMBASE);
        *imm = v;
        return SP_PARAM;
    }
    int space; uint64_t addr;
    if (t->lookup(t->ctx, name, &space, &addr) == 0) {
        if (space == SP_SHARED) {
            for (int i = 0; i < t->m->nglobals; i++)
                if (strcmp(t->m->globals[i].name, name) == 0) {
                    int off = shared_var(t, &t->m->globals[i], t->m->globals[i].name);
                    *imm = off < 0 ? -1 : off;
                    return SP_SHARED;
                }
            return -1;
        }
        *imm = (int64_t)addr;
        return space;
    }
    return -1;
}

/* Dynamic shared arrays resolve to offset -1 above; the real offset (after all static
 * shared variables) is only known at the end, so those uses are patched in pass 3. */
#define DYN_SHARED_MARK (-1)
#define DYN_ROW_MARK 0xE0000000u

static int lower_value(Lower *L, const PtxOperand *o, uint32_t *slot, int want_pred)
{
    Tr *t = L->t;
    int v;
    switch (o->kind) {
    case OPD_SINK:
        *slot = want_pred ? PRED_SINK : ROW_SINK;
        return 0;
    case OPD_REG:
    case OPD_SYM:
        if (map_get(&L->fn->names, o->name, &v)) {
            int kind = v >> NK_SHIFT, val = v & ((1 << NK_SHIFT) - 1);
            if (kind == NK_ROW) {
                int rs = ptx_type_size(t->var_ty[val]);
                if (L->exact_size && rs != L->exact_size)
                    return fail(t, o->line, o->col, "operand %s is a %d-bit register, but %s "
                                "needs %d-bit operands", o->name, rs * 8, L->pi->opcode,
                                L->exact_size * 8);
                *slot = TAG_VAR | (uint32_t)val;
                return 0;
            }
            if (kind == NK_PRED) {
                if (o->neg) {
                    /* !p was materialised into a fresh predicate before this inst */
                    if (L->negused >= L->nneg) return fail(t, o->line, o->col, "internal: !p");
                    *slot = TAG_VAR | 0x08000000u | L->negtmp[L->negused++];
                    return 0;
                }
                *slot = TAG_VAR | 0x08000000u | (uint32_t)val;
                return 0;
            }
        }
        if (strcmp(o->name, "WARP_SZ") == 0) {   /* PTX's one predefined constant */
            *slot = const_row(t, WARP_SIZE);
            return 0;
        }
        {
            int id = sreg_lookup(o->name);
            if (id >= 0) {
                if (id >= SR_COUNT_STATIC) {
                    if (L->in->op != OP_mov)
                        return fail(t, o->line, o->col, "%s can only be read with mov", o->name);
                    L->in->op = OP_sreg;
                    L->in->imm = id;
                    *slot = ROW_ZERO;
                    return 0;
                }
                *slot = sreg_row(t, id);
                if (id == SR_IS_EXPLICIT_CLUSTER && L->in->op == OP_mov && L->d->types[0] == TY_PRED) {
                    /* a predicate special register: mov.pred p, %is_explicit_cluster
                     * becomes setp.ne.u32 p, <its row>, 0 */
                    L->in->op = OP_setp;
                    L->d->op = OP_setp;
                    L->d->types[0] = TY_U32;
                    L->in->t = TY_U32;
                    L->d->mods[MOD_NE >> 6] |= 1ull << (MOD_NE & 63);
                    L->pred_sreg = 1;
                }
                return 0;
            }
        }
        {
            uint32_t row; int64_t imm; int frame;
            int sp = resolve_sym(L, o->name, &row, &imm, &frame);
            if (sp < 0) {
                int fi = module_func_index(t->m, o->name);
                if (fi >= 0 && t->m->funcs[fi].has_body) {   /* a device function pointer */
                    *slot = const_row(t, FUNC_PTR_BASE + (uint64_t)fi * FUNC_PTR_STEP);
                    return 0;
                }
                return fail(t, o->line, o->col, "unknown name '%s'", o->name);
            }
            if (sp == SP_SHARED && imm == DYN_SHARED_MARK) {
                *slot = DYN_ROW_MARK;   /* the dynamic shared offset's row, patched later */
                return 0;
            }
            if (frame || row != ROW_ZERO) {
                /* address of a frame slot or kernel parameter: computed per lane */
                if (L->in->op != OP_mov)
                    return fail(t, o->line, o->col, "the address of '%s' can only be taken "
                                "with mov", o->name);
                L->in->op = OP_lea_frame;
                L->in->base = row;
                L->in->imm = imm;
                if (frame) L->in->flags |= IF_FRAME;
                *slot = ROW_ZERO;
                return 0;
            }
            *slot = const_row(t, (uint64_t)imm);
            return 0;
        }
    case OPD_IMM_INT: case OPD_IMM_F32: case OPD_IMM_F64: case OPD_IMM_DEC:
        if (want_pred) {   /* a constant predicate: 0 is false, anything else true */
            *slot = o->ival ? PRED_TRUE : PRED_FALSE;
            return 0;
        }
        *slot = const_row(t, imm_bits(o, L->src_ty));
        return 0;
    default:
        return fail(t, o->line, o->col, "unexpected operand");
    }
}

static int lower_addr(Lower *L, const PtxOperand *o)
{
    Tr *t = L->t;
    Inst *in = L->in;
    in->imm = o->ival;
    in->base = ROW_ZERO;
    L->d->has_addr = 1;
    if (!o->name) return 0;
    int v;
    if (map_get(&L->fn->names, o->name, &v) && (v >> NK_SHIFT) == NK_ROW) {
        in->base = TAG_VAR | (uint32_t)(v & ((1 << NK_SHIFT) - 1));
        return 0;
    }
    if (sreg_lookup(o->name) >= 0)
        return fail(t, o->line, o->col, "special register %s used as an address", o->name);
    uint32_t row; int64_t imm; int frame;
    int sp = resolve_sym(L, o->name, &row, &imm, &frame);
    if (sp < 0) return fail(t, o->line, o->col, "unknown name '%s'", o->name);
    if (sp == SP_SHARED && imm == DYN_SHARED_MARK) {
        in->base = DYN_ROW_MARK;   /* the dynamic shared base row, patched in pass 3 */
        return 0;
    }
    in->base = row;
    in->imm += imm;
    if (frame) {
        in->flags |= IF_FRAME;
        /* .param/.local variables of a frame are read and written in local memory */
        if (L->d->space == SP_PARAM || L->d->space == SP_LOCAL || L->d->space == SP_NONE)
            in->space = SP_LOCAL;
    }
    return 0;
}

/* A [..] operand inside a vector or list is not legal PTX; values are. */
static int lower_opd(Lower *L, const PtxOperand *o, int is_dest, int want_pred)
{
    Inst *in = L->in;
    InstDesc *d = L->d;
    if (o->kind == OPD_ADDR) {
        /* the first [..] becomes base + offset; later ones were computed into rows by
         * materialise_addresses and are sources; [map, {c0, c1}] adds its elements */
        if (d->naddr == 0) {
            if (lower_addr(L, o) < 0) return -1;
        } else {
            if (d->ns >= INST_MAXS || d->naddr > 4) goto many;
            d->addr_src[d->naddr - 1] = d->ns;
            in->s[d->ns++] = L->addrtmp[d->naddr - 1];
        }
        d->naddr++;
        for (int k = 0; k < o->nelems; k++) {
            uint32_t slot;
            if (o->elems[k].kind == OPD_VEC) {
                for (int j = 0; j < o->elems[k].nelems; j++) {
                    if (lower_value(L, &o->elems[k].elems[j], &slot, 0) < 0) return -1;
                    if (d->ns >= INST_MAXS) goto many;
                    L->in->s[d->ns++] = slot;
                }
                continue;
            }
            if (lower_value(L, &o->elems[k], &slot, 0) < 0) return -1;
            if (d->ns >= INST_MAXS) goto many;
            L->in->s[d->ns++] = slot;
        }
        return 0;
    }
    if (o->kind == OPD_VEC || o->kind == OPD_PAIR) {
        for (int k = 0; k < o->nelems; k++) {
            int p = want_pred || (o->kind == OPD_PAIR && k == 1);
            uint32_t slot;
            if (lower_value(L, &o->elems[k], &slot, p) < 0) return -1;
            in = L->in;
            if (is_dest) { if (d->nd >= INST_MAXD) goto many; in->d[d->nd++] = slot; }
            else { if (d->ns >= INST_MAXS) goto many; in->s[d->ns++] = slot; }
        }
        return 0;
    }
    uint32_t slot;
    if (lower_value(L, o, &slot, want_pred) < 0) return -1;
    in = L->in;
    if (is_imm(o) && !is_dest && d->ns < INST_MAXS) {
        d->src_imm_mask |= 1 << d->ns;
        d->imm_val[d->ns] = imm_bits(o, L->src_ty);
    }
    if (!is_dest && want_pred) d->src_pred_mask |= 1u << d->ns;
    if (is_dest) { if (d->nd >= INST_MAXD) goto many; in->d[d->nd++] = slot; }
    else { if (d->ns >= INST_MAXS) goto many; in->s[d->ns++] = slot; }
    return 0;
many:
    return fail(L->t, o->line, o->col, "too many operands");
}

static int operand_is_pred(const Lower *L, const PtxOperand *o)
{
    int v;
    return (o->kind == OPD_REG || o->kind == OPD_SYM) && map_get(&L->fn->names, o->name, &v) &&
           (v >> NK_SHIFT) == NK_PRED;
}

/* ---- modifiers ------------------------------------------------------------------ */

static const char *const mod_names[MOD_COUNT] = {
#define X(n) #n,
    PTX_MODS(X)
#undef X
};

static int mod_lookup(const char *s)
{
    char buf[64];
    size_t j = 0;
    for (size_t i = 0; s[i] && j + 1 < sizeof buf; i++) {
        if (s[i] == ':' && s[i + 1] == ':') { buf[j++] = '_'; i++; continue; }
        buf[j++] = s[i];
    }
    buf[j] = 0;
    for (int i = 0; i < MOD_COUNT; i++)
        if (strcasecmp(mod_names[i], buf) == 0) return i;
    return -1;
}

static int parse_mods(Lower *L)
{
    const PtxInst *pi = L->pi;
    InstDesc *d = L->d;
    for (int i = 0; i < pi->nmods; i++) {
        const char *m = pi->mods[i];
        int ty = ptx_type_from_name(m);
        if (ty != TY_NONE) {
            if (d->ntypes >= 4) return fail(L->t, pi->line, pi->col, "too many types");
            d->types[d->ntypes++] = (uint8_t)ty;
            continue;
        }
        if (!strcmp(m, "v2") || !strcmp(m, "v4") || !strcmp(m, "v8")) { d->vec = m[1] - '0'; continue; }
        if (m[0] >= '1' && m[0] <= '5' && m[1] == 'd' && !m[2]) { d->tensor_dims = m[0] - '0'; continue; }
        {   /* wgmma's shapes m64nNkK (N = 8 .. 256) */
            int mm, nn, kk, len = 0;
            if (sscanf(m, "m%dn%dk%d%n", &mm, &nn, &kk, &len) == 3 && !m[len] && mm == 64) {
                d->wg_m = mm; d->wg_n = nn; d->wg_k = kk;
                continue;
            }
        }
        int sp = ptx_space_from_name(m);
        if (sp == SP_NONE) {
            if (!strcmp(m, "shared::cta")) sp = SP_SHARED;
            else if (!strcmp(m, "shared::cluster")) sp = SP_SHARED_CLUSTER;
        }
        if (sp != SP_NONE && sp != SP_REG && sp != SP_SREG) {
            if (d->nspaces < 3) d->spaces[d->nspaces++] = sp;   /* cp.*: destination, source */
            if (!d->space) d->space = sp;
            continue;
        }
        int id = mod_lookup(m);
        if (id < 0)
            return fail(L->t, pi->line, pi->col, "unsupported modifier .%s on %s", m, pi->opcode);
        if ((id == MOD_ROW || id == MOD_COL) && !d->first_layout) d->first_layout = id;
        d->mods[id >> 6] |= 1ull << (id & 63);
    }
    return 0;
}

static void desc_text(const PtxInst *pi, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s", pi->opcode);
    for (int i = 0; i < pi->nmods && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, ".%s", pi->mods[i]);
}

/* ---- calls ---------------------------------------------------------------------- */

static int frame_off_of(Lower *L, const PtxOperand *o, uint32_t *off)
{
    int v;
    if (o->kind == OPD_SYM || o->kind == OPD_REG) {
        if (map_get(&L->fn->names, o->name, &v) && (v >> NK_SHIFT) == NK_FRAME) {
            *off = (uint32_t)(v & ((1 << NK_SHIFT) - 1));
            return CA_FRAME;
        }
        if (map_get(&L->fn->names, o->name, &v) && (v >> NK_SHIFT) == NK_ROW) {
            *off = TAG_VAR | (uint32_t)(v & ((1 << NK_SHIFT) - 1));
            return CA_ROW;
        }
    }
    return -1;
}

static uint32_t param_var_size(const Fn *fn, const char *name)
{
    const PtxFunc *f = fn->f;
    for (int k = 0; k < f->nvars; k++)
        if (!strcmp(f->vars[k].name, name)) return ptx_var_bytes(&f->vars[k]);
    return 8;
}

/* Where a callee keeps a parameter: a frame offset or a (tagged) register row. */
static int callee_slot(const Fn *cf, const char *name, uint8_t *kind, uint32_t *slot)
{
    int v;
    if (!map_get(&cf->names, name, &v)) return -1;
    int k = v >> NK_SHIFT, val = v & ((1 << NK_SHIFT) - 1);
    if (k == NK_FRAME) { *kind = CA_FRAME; *slot = (uint32_t)val; return 0; }
    if (k == NK_ROW) { *kind = CA_ROW; *slot = TAG_VAR | (uint32_t)val; return 0; }
    return -1;
}

/* call (rets), %rd, (args), prototype: the caller's side is known now (its .param
 * variables or registers, and their sizes); the callee's comes from Program.fdesc when the
 * call runs. */
static int lower_indirect_call(Lower *L)
{
    Tr *t = L->t;
    const PtxInst *pi = L->pi;
    if (pi->nopds < 3 || pi->opds[1].kind != OPD_REG)
        return fail(t, pi->line, pi->col, "call through something that is not a register");
    const PtxOperand *rets = &pi->opds[0], *args = &pi->opds[2];
    int v;
    if (!map_get(&L->fn->names, pi->opds[1].name, &v) || (v >> NK_SHIFT) != NK_ROW)
        return fail(t, pi->opds[1].line, pi->opds[1].col, "'%s' is not a register", pi->opds[1].name);
    CallDesc *cd = calloc(1, sizeof *cd);
    CallDesc **nc = grow(t->calls, &t->capcalls, t->ncalls + 1, sizeof *nc);
    if (!cd || !nc) { free(cd); return fail(t, pi->line, pi->col, "out of memory"); }
    t->calls = nc;
    t->calls[t->ncalls++] = cd;
    cd->name = "(function pointer)";
    cd->indirect = 1;
    cd->callee_row = TAG_VAR | (uint32_t)(v & ((1 << NK_SHIFT) - 1));
    cd->caller_frame = L->fn->frame;
    L->in->aux = cd;
    int nargs = args->nelems, nrets = rets->nelems;
    if (nargs > 16 || nrets > 16) return fail(t, pi->line, pi->col, "too many call operands");
    cd->args = calloc((size_t)nargs + 1, sizeof *cd->args);
    cd->rets = calloc((size_t)nrets + 1, sizeof *cd->rets);
    if (!cd->args || !cd->rets) return fail(t, pi->line, pi->col, "out of memory");
    cd->nargs = (uint32_t)nargs;
    cd->nrets = (uint32_t)nrets;
    for (int k = 0; k < nargs + nrets; k++) {
        const PtxOperand *o = k < nargs ? &args->elems[k] : &rets->elems[k - nargs];
        CallArg *a = k < nargs ? &cd->args[k] : &cd->rets[k - nargs];
        uint32_t slot;
        int kind = frame_off_of(L, o, &slot);
        if (kind < 0) return fail(t, o->line, o->col, "unsupported call operand");
        if (k < nargs) { a->kind = (uint8_t)kind; a->src = slot; }
        else { a->dkind = (uint8_t)kind; a->dst = slot; }
        a->size = kind == CA_FRAME ? param_var_size(L->fn, o->name) : 8;
        if (a->size > 4096) return fail(t, o->line, o->col, "call operand larger than 4096 bytes");
    }
    return 0;
}

static int lower_call(Lower *L)
{
    Tr *t = L->t;
    const PtxInst *pi = L->pi;
    if (!call_target(pi)) return lower_indirect_call(L);
    const PtxOperand *rets = &pi->opds[0], *target = &pi->opds[1], *args = &pi->opds[2];
    CallDesc *cd = calloc(1, sizeof *cd);
    CallDesc **nc = grow(t->calls, &t->capcalls, t->ncalls + 1, sizeof *nc);
    if (!cd || !nc) { free(cd); return fail(t, pi->line, pi->col, "out of memory"); }
    t->calls = nc;
    t->calls[t->ncalls++] = cd;
    cd->name = target->name;
    cd->caller_frame = L->fn->frame;
    L->in->aux = cd;
    int nargs = args ? args->nelems : 0, nrets = rets ? rets->nelems : 0;
    const PtxFunc *callee = module_func(t->m, target->name, 1);
    const PtxFunc *proto = callee ? callee : module_func(t->m, target->name, 0);
    if (!proto) return fail(t, target->line, target->col, "call of unknown function '%s'", target->name);
    if (nargs != proto->nparams || nrets != proto->nrets)
        return fail(t, pi->line, pi->col, "call of '%s' with %d arguments and %d results, "
                    "but it takes %d and returns %d", target->name, nargs, nrets,
                    proto->nparams, proto->nrets);
    cd->args = calloc((size_t)nargs + 1, sizeof *cd->args);
    cd->rets = calloc((size_t)nrets + 1, sizeof *cd->rets);
    if (!cd->args || !cd->rets) return fail(t, pi->line, pi->col, "out of memory");
    cd->nargs = (uint32_t)nargs;
    cd->nrets = (uint32_t)nrets;
    Fn *cf = NULL;
    if (callee) cf = &t->fns[fn_find(t, callee->name)];
    for (int k = 0; k < nargs; k++) {
        const PtxOperand *o = &args->elems[k];
        CallArg *a = &cd->args[k];
        int kind = frame_off_of(L, o, &a->src);
        if (kind < 0) {
            if (is_imm(o)) {
                L->src_ty = proto->params[k].type;
                kind = CA_ROW;
                a->src = const_row(t, imm_bits(o, L->src_ty));
            } else
                return fail(t, o->line, o->col, "unsupported call argument '%s'", o->name ? o->name : "?");
        }
        a->kind = (uint8_t)kind;
        a->size = ptx_var_bytes(&proto->params[k]);
        if (a->size > 4096)
            return fail(t, o->line, o->col, "parameter %d of '%s' is larger than 4096 bytes", k,
                        target->name);
        if (kind == CA_FRAME && param_var_size(L->fn, o->name) < a->size)
            return fail(t, o->line, o->col, "argument '%s' is smaller than parameter %d of '%s'",
                        o->name, k, target->name);
        if (cf && callee_slot(cf, proto->params[k].name, &a->dkind, &a->dst) < 0)
            return fail(t, o->line, o->col, "internal: parameter layout");
    }
    uint32_t ret_bytes = 0;
    for (int k = 0; k < nrets; k++) {
        const PtxOperand *o = &rets->elems[k];
        CallArg *r = &cd->rets[k];
        int kind = frame_off_of(L, o, &r->dst);
        if (kind < 0 && o->kind == OPD_SINK) { kind = CA_ROW; r->dst = ROW_SINK; }
        if (kind < 0) return fail(t, o->line, o->col, "unsupported call result operand");
        r->dkind = (uint8_t)kind;
        r->size = ptx_var_bytes(&proto->rets[k]);
        ret_bytes += r->size;
        if (ret_bytes > 4096)
            return fail(t, o->line, o->col, "results of '%s' are larger than 4096 bytes", target->name);
        if (cf && callee_slot(cf, proto->rets[k].name, &r->kind, &r->src) < 0)
            return fail(t, o->line, o->col, "internal: return layout");
    }
    if (cf) {
        cd->callee_frame = cf->frame;
        cd->recursive = cf->recursive;
        L->in->imm = fn_find(t, callee->name);   /* patched to the entry pc in pass 3 */
        return 0;
    }
    cd->is_extern = 1;
    const char *msg = call_bind_extern(cd, proto);
    if (msg) return fail(t, pi->line, pi->col, "%s", msg);
    return 0;
}

/* The type immediates of this instruction's sources are encoded in. */
static int source_type(const InstDesc *d, int op)
{
    if (op == OP_cp) return TY_U32;   /* sizes, counts and masks, whatever the data type */
    if (op == OP_cvt || op == OP_set) return d->ntypes > 1 ? d->types[1] : d->types[0];
    return d->types[0];
}

/* Emit `not.pred tmp, p` for every !p operand, so handlers never negate sources. */
static int materialise_negations(Lower *L, const PtxOperand *opds, int n)
{
    for (int i = 0; i < n; i++) {
        const PtxOperand *o = &opds[i];
        if (o->kind == OPD_VEC || o->kind == OPD_PAIR || o->kind == OPD_LIST) {
            if (materialise_negations(L, o->elems, o->nelems) < 0) return -1;
            continue;
        }
        int v;
        if (!o->neg || !(o->kind == OPD_REG || o->kind == OPD_SYM) ||
            !map_get(&L->fn->names, o->name, &v) || (v >> NK_SHIFT) != NK_PRED)
            continue;
        if (L->nneg >= 8) return fail(L->t, o->line, o->col, "too many negated operands");
        Tr *t = L->t;
        uint32_t tmp = t->npreds++;
        L->negtmp[L->nneg++] = tmp;
        Inst *nt = emit(t);
        if (!nt) return -1;
        nt->op = OP_not; nt->t = TY_PRED; nt->nd = 1; nt->ns = 1;
        nt->d[0] = TAG_VAR | 0x08000000u | tmp;
        nt->s[0] = TAG_VAR | 0x08000000u | (uint32_t)(v & ((1 << NK_SHIFT) - 1));
        nt->line = (uint32_t)L->pi->line;
        nt->loc = loc_index(t, L->pi);
        InstDesc *d = &t->descs[t->ncode - 1];
        d->op = OP_not; d->types[0] = TY_PRED; d->ntypes = 1; d->nd = 1; d->ns = 1;
        d->text = "not.pred";
    }
    return 0;
}

/* `ld.param d, [kernel_param+off]` reads a value that is the same for every thread of a
 * launch: it becomes a mov from a row the launch fills once (Program.kparams), instead of
 * a load every thread checks against the parameter buffer. */
static int param_load_to_row(Tr *t, Inst *in, InstDesc *d)
{
    if (in->op != OP_ld || d->space != SP_PARAM || d->vec != 1 || d->nd != 1 ||
        t->sreg_id[SR_PARAMBASE] < 0 || in->base != (TAG_SREG | (uint32_t)t->sreg_id[SR_PARAMBASE]))
        return 0;
    int ty = d->types[0], size = ptx_type_size(ty);
    if (size < 1 || size > 8 || in->imm < 0 || (uint64_t)in->imm + (uint64_t)size > t->kp_bytes)
        return 0;
    KparamRow *nk = grow(t->kprows, &t->capkprows, t->nkprows + 1, sizeof *nk);
    if (!nk) return -1;
    t->kprows = nk;
    uint32_t row = fresh_const_row(t);
    KparamRow *k = &t->kprows[t->nkprows++];
    k->row = row & ~TAG_MASK;
    k->offset = (uint32_t)in->imm;
    k->size = (uint8_t)size;
    k->is_signed = ty == TY_S8 || ty == TY_S16 || ty == TY_S32 || ty == TY_S64;
    in->op = OP_mov;
    in->s[0] = row;
    in->ns = 1; d->ns = 1;
    in->base = ROW_ZERO; in->imm = 0;
    in->space = SP_NONE; d->space = SP_NONE;
    in->t = TY_B64; d->types[0] = TY_B64; d->ntypes = 1;
    return 0;
}

/* PTX requires register operands of the instruction type's size, except where an
 * instruction defines other widths (ld/st/cvt may use wider registers, .wide/.hi forms,
 * shifts and bit-field positions, compares). The check covers the plain arithmetic forms
 * where a mismatch can only be a mistake. */
static int exact_size_of(const InstDesc *d, int op)
{
    switch (op) {
    case OP_add: case OP_sub: case OP_min: case OP_max: case OP_abs: case OP_neg:
    case OP_and: case OP_or: case OP_xor: case OP_not: case OP_fma: case OP_rcp:
    case OP_sqrt: case OP_rsqrt: case OP_sin: case OP_cos: case OP_ex2: case OP_lg2:
    case OP_tanh: case OP_div: case OP_rem: case OP_copysign:
        break;
    case OP_mul: case OP_mad:
        if (desc_has(d, MOD_WIDE) || desc_has(d, MOD_HI)) return 0;
        break;
    default:
        return 0;
    }
    if (d->ntypes != 1 || d->types[0] == TY_PRED || desc_has(d, MOD_CC)) return 0;
    return ptx_type_size(d->types[0]);
}

/* Whether an immediate in the next source position is a predicate (mov.pred p, 1; the
 * c operand of selp/setp; the a operand of vote; and/or/xor/not on .pred). */
static int imm_is_pred(const InstDesc *d, int op, int is_dest)
{
    if (is_dest) return 0;
    if (d->types[0] == TY_PRED &&
        (op == OP_mov || op == OP_and || op == OP_or || op == OP_xor || op == OP_not ||
         op == OP_cnot))
        return 1;
    if ((op == OP_selp || op == OP_setp || op == OP_set) && d->ns == 2) return 1;
    if (op == OP_vote && d->ns == 0) return 1;
    return 0;
}

/* Instructions with several [..] operands (cp.async [dst], [src]; tensor copies; the
 * mbarrier of a bulk copy) keep the first as base + offset; each later one is computed
 * first, by a <lea> into a fresh row, and passed as a source. */
static int materialise_addresses(Lower *L)
{
    int seen = 0;
    for (int i = 0; i < L->pi->nopds; i++) {
        const PtxOperand *o = &L->pi->opds[i];
        if (o->kind != OPD_ADDR || seen++ == 0) continue;
        if (L->naddrtmp >= 4) return fail(L->t, o->line, o->col, "too many address operands");
        Tr *t = L->t;
        uint8_t *nt = grow(t->var_ty, &t->capvarty, t->nvars + 1, 1);
        if (!nt || !emit(t)) return fail(t, o->line, o->col, "out of memory");
        t->var_ty = nt;
        t->var_ty[t->nvars] = TY_B64;
        uint32_t row = TAG_VAR | t->nvars++;
        L->addrtmp[L->naddrtmp++] = row;
        Lower A = *L;
        A.in = &t->code[t->ncode - 1];
        A.d = &t->descs[t->ncode - 1];
        A.in->op = OP_lea_frame;
        A.d->op = OP_lea_frame;
        A.in->line = (uint32_t)L->pi->line;
        A.in->loc = loc_index(t, L->pi);
        if (lower_addr(&A, o) < 0) return -1;
        A.in->d[0] = row;
        A.in->nd = 1;
        A.d->nd = 1;
    }
    return 0;
}

/* PTX ISA 1.x (.target sm_1x) allowed mad.f32 without a rounding modifier; an H100's JIT
 * runs it as one fused multiply-add rounded to nearest (tests/ptx/legacy_mad_f32). */
static void legacy_mad_rounding(const Tr *t, InstDesc *d)
{
    int sm = 0;
    if (d->op != OP_mad || d->ntypes != 1 || d->types[0] != TY_F32) return;
    if (sscanf(t->m->target, "sm_%d", &sm) != 1 || sm >= 20) return;
    for (int m = MOD_RN; m <= MOD_RP; m++)
        if (desc_has(d, m)) return;
    d->mods[MOD_RN >> 6] |= 1ull << (MOD_RN & 63);
}

/* Instructions whose operands are a RowList in Inst.aux (owned by the Program). */
static int has_row_list(int op) { return op == OP_mma || op == OP_wmma || op == OP_wgmma; }

/* mma's and wmma's operands (D, A, B, C: up to 24 registers) go to a RowList in Inst.aux;
 * an address operand becomes base + offset as usual (count 0 in the list). */
static int lower_row_list(Lower *L)
{
    const PtxInst *pi = L->pi;
    uint32_t n = 0, cap = 0;
    for (int i = 0; i < pi->nopds; i++)
        cap += pi->opds[i].kind == OPD_VEC ? (uint32_t)pi->opds[i].nelems : 1;
    if (pi->nopds > ROWLIST_MAX) return fail(L->t, pi->line, pi->col, "too many operands");
    RowList *rl = calloc(1, sizeof *rl + cap * sizeof(uint32_t));
    if (!rl) return fail(L->t, pi->line, pi->col, "out of memory");
    L->in->aux = rl;
    for (int i = 0; i < pi->nopds; i++) {
        const PtxOperand *o = &pi->opds[i];
        int ne = o->kind == OPD_VEC ? o->nelems : 1;
        if (o->kind == OPD_ADDR) {   /* wmma.load/store: the address is base + offset */
            if (lower_opd(L, o, 0, 0) < 0) return -1;
            rl->count[i] = 0;
            continue;
        }
        if (ne > 255) return fail(L->t, o->line, o->col, "too many registers in an operand");
        if (o->kind == OPD_IMM_INT) {   /* mma.sp's and wgmma's immediates: values for the binder */
            L->d->list_imm[i] = o->ival;
            L->d->list_imm_mask |= 1u << i;
        }
        for (int k = 0; k < ne; k++) {
            const PtxOperand *e = o->kind == OPD_VEC ? &o->elems[k] : o;
            uint32_t slot;
            if (lower_value(L, e, &slot, 0) < 0) return -1;
            rl->rows[n++] = slot;
        }
        rl->count[i] = (uint8_t)ne;
    }
    rl->n = n;
    L->d->nd = 0;
    L->d->ns = 0;
    return 0;
}

/* ---- registers of a known value at a use --------------------------------------------
 * nvcc writes a shuffle's offset, clamp and membermask into registers right before it
 * (mov.u32 %r17, 16; shfl.sync.down.b32 %r19|%p2, %r54, %r17, %r16, %r18), where the
 * binders' fast forms want immediates. A register's value at a use is known when the
 * function writes it exactly once, with an unguarded 32-bit mov of an integer immediate,
 * and every thread that reaches the use has run that mov since it last entered the
 * function: the use follows the mov with no label in between (nothing jumps in between),
 * or the mov lies in the function's straight-line start (before any label and any control
 * transfer), which every thread runs, in full, before anything else. A thread that did not
 * run the mov (a lane of another path, one of a partial warp) never reaches such a use.
 * A write is anything named in an instruction's first operand (its destination in PTX;
 * for a store's address or a call's callee the count only errs towards unknown). */

/* Adds the register names written by operand o of PtxInst k (mov_ok: it is a known mov);
 * -1 when out of memory. */
static int known_writes(Fn *fn, const PtxOperand *o, int k, int mov_ok)
{
    if ((o->kind == OPD_REG || o->kind == OPD_SYM || o->kind == OPD_ADDR) && o->name) {
        int v;
        if (map_put(&fn->known, o->name, map_get(&fn->known, o->name, &v) || !mov_ok ? -1 : k) < 0) return -1;
    }
    for (int e = 0; e < o->nelems; e++)
        if (known_writes(fn, &o->elems[e], k, 0) < 0) return -1;
    return 0;
}

/* A 32-bit integer type of mov: its register holds the immediate's low 32 bits. */
static int known_mov_type(const PtxInst *pi)
{
    if (pi->nmods != 1) return 0;
    const char *m = pi->mods[0];
    return !strcmp(m, "u32") || !strcmp(m, "s32") || !strcmp(m, "b32");
}

static int known_scan(Fn *fn)
{
    const PtxFunc *f = fn->f;
    fn->known_done = 1;
    fn->block_start = calloc((size_t)f->ninsts + 1, sizeof *fn->block_start);
    if (!fn->block_start) return -1;
    for (int k = 0; k < f->nlabels; k++) {
        int at = f->labels[k].inst_index;
        if (at >= 0 && at <= f->ninsts && at > fn->block_start[at]) fn->block_start[at] = at;
    }
    fn->prefix_end = f->ninsts;
    for (int k = 0; k < f->ninsts; k++) {
        if (k && fn->block_start[k - 1] > fn->block_start[k]) fn->block_start[k] = fn->block_start[k - 1];
        if (fn->block_start[k] && fn->block_start[k] == k && k < fn->prefix_end) fn->prefix_end = k;
        const PtxInst *pi = &f->insts[k];
        int op = op_lookup(pi->opcode);
        if ((op < 0 || op == OP_bra || op == OP_brx || op == OP_call || op == OP_ret || op == OP_exit ||
             op == OP_trap || op == OP_brkpt) && k < fn->prefix_end)
            fn->prefix_end = k;
        if (pi->nopds < 1) continue;
        int mov_ok = op == OP_mov && !pi->guard && known_mov_type(pi) && pi->nopds == 2 &&
                     pi->opds[0].kind == OPD_REG && pi->opds[1].kind == OPD_IMM_INT;
        if (known_writes(fn, &pi->opds[0], k, mov_ok) < 0) {   /* nothing is known */
            free(fn->block_start);
            fn->block_start = NULL;
            return -1;
        }
    }
    for (int k = 0; k < f->nlabels; k++)   /* a label at 0: the start is a loop's head */
        if (f->labels[k].inst_index == 0) fn->prefix_end = 0;
    return 0;
}

/* The value of register operand o at PtxInst k when known (see above): 1 and *val. */
static int known_value(Fn *fn, int k, const PtxOperand *o, uint32_t *val)
{
    if (o->kind != OPD_REG || !o->name) return 0;
    if (!fn->known_done && known_scan(fn) < 0) return 0;
    int i;
    if (!fn->block_start || !map_get(&fn->known, o->name, &i) || i < 0 || i >= k) return 0;
    if (i >= fn->prefix_end && fn->block_start[k] > i) return 0;
    *val = (uint32_t)fn->f->insts[i].opds[1].ival;
    return 1;
}

/* shfl.sync's offset, clamp and membermask (operands 2-4) of a known value become the
 * immediates they were written from, so that the binder picks the immediate form
 * (exec_warp.c's SHFL_IMM) in both tiers. */
static const PtxOperand *known_operand(Lower *L, int op, int i, PtxOperand *tmp)
{
    const PtxOperand *o = &L->pi->opds[i];
    uint32_t v;
    int nk;
    if (op != OP_shfl || i < 2 || i > 4 || o->kind != OPD_REG || !o->name ||
        !map_get(&L->fn->names, o->name, &nk) || (nk >> NK_SHIFT) != NK_ROW ||
        !known_value(L->fn, (int)(L->pi - L->fn->f->insts), o, &v))
        return o;   /* (a name that is no register keeps its own error) */
    *tmp = *o;
    tmp->kind = OPD_IMM_INT;
    tmp->name = NULL;
    tmp->ival = v;
    return tmp;
}

static int lower_inst(Tr *t, Fn *fn, const PtxInst *pi)
{
    int op = op_lookup(pi->opcode);
    if (op == OP_cvt)
        for (int i = 0; i < pi->nmods; i++) if (!strcmp(pi->mods[i], "pack")) op = OP_cvt_pack;
    if (op < 0) return fail(t, pi->line, pi->col, "unsupported instruction '%s'", pi->opcode);
    if (op == OP_st || op == OP_red)
        for (int i = 0; i < pi->nmods; i++)
            if (!strcmp(pi->mods[i], "async")) op = op == OP_st ? OP_st_async : OP_red_async;
    Lower L;
    memset(&L, 0, sizeof L);
    L.t = t; L.fn = fn; L.pi = pi;
    if (materialise_negations(&L, pi->opds, pi->nopds) < 0) return -1;
    if (materialise_addresses(&L) < 0) return -1;
    if (!emit(t)) return fail(t, pi->line, pi->col, "out of memory");
    uint32_t at = t->ncode - 1;
    Inst *in = L.in = &t->code[at];
    InstDesc *d = L.d = &t->descs[at];
    d->op = op;
    in->op = (uint16_t)op;
    in->line = (uint32_t)pi->line;
    in->loc = loc_index(t, pi);
    if (parse_mods(&L) < 0) return -1;
    legacy_mad_rounding(t, d);
    L.src_ty = source_type(d, op);
    in->t = d->types[0];
    in->t2 = d->types[1];
    in->space = (uint8_t)d->space;
    in->vec = (uint8_t)d->vec;
    if (pi->guard) {
        int v;
        if (!map_get(&fn->names, pi->guard, &v) || (v >> NK_SHIFT) != NK_PRED)
            return fail(t, pi->line, pi->col, "guard '%s' is not a predicate", pi->guard);
        in->pg = (uint16_t)((v & 0xffff) + 1);   /* 0 = no guard; made an index in pass 3 */
        in->pneg = pi->guard_neg ? 0xffffffffu : 0;
        in->pneg_bit = (uint8_t)(pi->guard_neg != 0);
    }
    L.exact_size = exact_size_of(d, op);
    int fmt = op_info[op].fmt;
    if ((op == OP_bar || op == OP_barrier) && desc_has(d, MOD_RED)) fmt = FMT_DS;
    if (has_row_list(op)) {
        if (lower_row_list(&L) < 0) return -1;
    } else if (fmt == FMT_CALL) {
        if (lower_call(&L) < 0) return -1;
    } else if (fmt == FMT_BRANCH) {
        if (pi->nopds != 1 || pi->opds[0].kind != OPD_SYM)
            return fail(t, pi->line, pi->col, "bra needs one label");
        int idx;
        if (!map_get(&fn->labels, pi->opds[0].name, &idx))
            return fail(t, pi->opds[0].line, pi->opds[0].col, "unknown label '%s'", pi->opds[0].name);
        in->imm = idx;   /* PtxInst index; becomes a pc in pass 3 */
    } else {
        for (int i = 0; i < pi->nopds; i++) {
            PtxOperand tmp;
            const PtxOperand *o = known_operand(&L, op, i, &tmp);
            int is_dest = fmt == FMT_DS && i == 0;
            int want = operand_is_pred(&L, o) || (is_imm(o) && imm_is_pred(d, op, is_dest));
            if (lower_opd(&L, o, is_dest, want) < 0) return -1;
        }
    }
    if (L.pred_sreg && d->ns < INST_MAXS) in->s[d->ns++] = const_row(t, 0);
    in->nd = (uint8_t)d->nd;
    in->ns = (uint8_t)d->ns;
    if (in->space == SP_NONE) in->space = (uint8_t)d->space;
    if (param_load_to_row(t, in, d) < 0) return -1;
    d->op = in->op;   /* mov may have become <sreg> or <lea.frame> */
    d->vec = in->vec;
    return 0;
}

/* ---- reconvergence: where the paths of a divergent branch meet again ---------------
 * The immediate post-dominator of the branch's block: every path from the branch to the
 * function's exit passes through it. Computed with the iterative algorithm of Cooper,
 * Harvey and Kennedy on the reversed control-flow graph; stored in the branch's
 * Inst.base (RPC_EXIT when the paths only meet by leaving the function). */

typedef struct Cfg {
    uint32_t lo, n, nb;       /* first pc, instructions, blocks (block nb is EXIT)      */
    uint32_t *block_of, *start, *succ;   /* succ: 2 per block, UINT32_MAX none          */
    uint32_t *order, *po;     /* reverse-graph postorder, and each block's number in it */
    uint32_t *ipdom;
} Cfg;

static uint32_t pdom_meet(const Cfg *g, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (g->po[a] < g->po[b]) a = g->ipdom[a];
        while (g->po[b] < g->po[a]) b = g->ipdom[b];
    }
    return a;
}

static int ends_thread(int op) { return op == OP_ret || op == OP_exit || op == OP_trap || op == OP_brkpt; }

static int reconvergence_points(Inst *code, uint32_t lo, uint32_t hi)
{
    Cfg g = { lo, hi - lo, 0, NULL, NULL, NULL, NULL, NULL, NULL };
    uint32_t n = g.n, *pred = NULL, *npred = NULL, *stack = NULL;
    uint8_t *lead = calloc(n + 1, 1);
    g.block_of = calloc(n + 1, sizeof *g.block_of);
    g.start = calloc(n + 2, sizeof *g.start);
    int rc = -1;
    if (!lead || !g.block_of || !g.start) goto out;
    lead[0] = 1;
    for (uint32_t i = 0; i < n; i++) {
        const Inst *in = &code[lo + i];
        if (in->op == OP_bra && (uint64_t)in->imm - lo < n) lead[in->imm - lo] = 1;
        if (in->op == OP_bra || ends_thread(in->op)) lead[i + 1] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (lead[i]) g.start[g.nb++] = lo + i;
        g.block_of[i] = g.nb - 1;
    }
    uint32_t nb = g.nb, exit_b = nb;
    g.succ = malloc(sizeof *g.succ * 2 * (nb + 1));
    g.order = malloc(sizeof *g.order * (nb + 1));
    g.po = malloc(sizeof *g.po * (nb + 1));
    g.ipdom = malloc(sizeof *g.ipdom * (nb + 1));
    npred = calloc(nb + 2, sizeof *npred);
    stack = malloc(sizeof *stack * 2 * (nb + 1));
    if (!g.succ || !g.order || !g.po || !g.ipdom || !npred || !stack) goto out;
    for (uint32_t b = 0; b < nb; b++) {
        uint32_t last = (b + 1 < nb ? g.start[b + 1] : hi) - 1;
        const Inst *in = &code[last];
        uint32_t next = last + 1 < hi ? g.block_of[last + 1 - lo] : exit_b;
        uint32_t *s = &g.succ[2 * b];
        s[0] = next; s[1] = UINT32_MAX;
        if (in->op == OP_bra) {
            uint32_t tb = (uint64_t)in->imm - lo < n ? g.block_of[in->imm - lo] : exit_b;
            if (in->pg) s[1] = tb; else s[0] = tb;
        } else if (ends_thread(in->op)) {
            if (in->pg) s[1] = exit_b; else s[0] = exit_b;
        }
    }
    g.succ[2 * exit_b] = g.succ[2 * exit_b + 1] = UINT32_MAX;
    /* predecessors (the reversed graph's successors), as offsets into one array */
    for (uint32_t b = 0; b < nb; b++)
        for (int k = 0; k < 2; k++) if (g.succ[2 * b + k] != UINT32_MAX) npred[g.succ[2 * b + k] + 1]++;
    for (uint32_t b = 0; b <= nb; b++) npred[b + 1] += npred[b];
    pred = malloc(sizeof *pred * (npred[nb + 1] + 1));
    uint32_t *fill = calloc(nb + 1, sizeof *fill);
    if (!pred || !fill) { free(fill); goto out; }
    for (uint32_t b = 0; b < nb; b++)
        for (int k = 0; k < 2; k++) {
            uint32_t s = g.succ[2 * b + k];
            if (s != UINT32_MAX) pred[npred[s] + fill[s]++] = b;
        }
    free(fill);
    /* postorder of the reversed graph from EXIT, iteratively */
    for (uint32_t b = 0; b <= nb; b++) { g.po[b] = UINT32_MAX; g.ipdom[b] = UINT32_MAX; }
    uint32_t npo = 0, sp = 0;
    uint8_t *seen = calloc(nb + 1, 1);
    if (!seen) goto out;
    stack[sp++] = exit_b; stack[sp++] = 0; seen[exit_b] = 1;
    while (sp) {
        uint32_t b = stack[sp - 2], k = stack[sp - 1];
        if (npred[b] + k < npred[b + 1]) {
            stack[sp - 1]++;
            uint32_t p = pred[npred[b] + k];
            if (!seen[p]) { seen[p] = 1; stack[sp++] = p; stack[sp++] = 0; }
        } else {
            g.po[b] = npo; g.order[npo++] = b; sp -= 2;
        }
    }
    free(seen);
    g.ipdom[exit_b] = exit_b;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = npo - 1; i-- > 0;) {     /* reverse postorder, EXIT excluded */
            uint32_t b = g.order[i], nd = UINT32_MAX;
            for (int k = 0; k < 2; k++) {
                uint32_t s = g.succ[2 * b + k];
                if (s == UINT32_MAX || g.ipdom[s] == UINT32_MAX) continue;
                nd = nd == UINT32_MAX ? s : pdom_meet(&g, s, nd);
            }
            if (nd != g.ipdom[b]) { g.ipdom[b] = nd; changed = 1; }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        Inst *in = &code[lo + i];
        if (in->op != OP_bra) continue;
        uint32_t b = g.block_of[i], d = g.ipdom[b];
        in->base = d == UINT32_MAX || d == exit_b ? RPC_EXIT : g.start[d];
    }
    rc = 0;
out:
    free(lead); free(g.block_of); free(g.start); free(g.succ); free(g.order); free(g.po);
    free(g.ipdom); free(pred); free(npred); free(stack);
    return rc;
}

/* ---- pass 3: renumber, patch, bind ------------------------------------------------ */

static uint32_t fix_row(const Tr *t, uint32_t v, uint32_t dyn_row)
{
    if (v == DYN_ROW_MARK) return dyn_row;
    switch (v & TAG_MASK) {
    case TAG_CONST: return ROW_FIRST_FREE + (v & ~TAG_MASK);
    case TAG_SREG: return ROW_FIRST_FREE + t->nconsts + (v & ~TAG_MASK);
    case TAG_VAR:
        if (v & 0x08000000u) return PRED_FIRST_FREE + (v & 0x07ffffffu);
        return ROW_FIRST_FREE + t->nconsts + t->nsregs + (v & ~TAG_MASK);
    default: return v;
    }
}

/* ---- fma contraction (contract.c): rows and predicates it adds come after all others */

static uint32_t contract_row(void *ctx)
{
    Tr *t = ctx;
    return ROW_FIRST_FREE + t->nconsts + t->nsregs + t->nvars++;
}

static uint32_t contract_pred(void *ctx)
{
    Tr *t = ctx;
    return PRED_FIRST_FREE + t->npreds++;
}

/* Fuses as ptxas would, unless the module was built with -fmad=false or PTXEMU_FMA_CONTRACT=0. */
static int contract(Tr *t, const PtxModule *m)
{
    const char *env = getenv("PTXEMU_FMA_CONTRACT");
    if (m->no_contract || (env && !strcmp(env, "0"))) return 0;
    uint32_t *starts = malloc(((size_t)t->nfns + 1) * sizeof *starts);
    if (!starts) return -1;
    for (int i = 0; i < t->nfns; i++) starts[i] = t->fns[i].pc_base;
    starts[t->nfns] = t->ncode;
    ContractIn c = { t->code, t->descs, t->ncode, starts, t->nfns, contract_row, contract_pred, t };
    int rc = contract_fma(&c);
    free(starts);
    return rc;
}

/* ---- names for the step debugger -------------------------------------------------- */

/* %r2 before %r10, %p before %r before %rd: by the letters, then by the number. */
static int natural_cmp(const void *a, const void *b)
{
    const RegName *x = a, *y = b;
    if (x->pc_lo != y->pc_lo) return x->pc_lo < y->pc_lo ? -1 : 1;
    size_t lx = strcspn(x->name, "0123456789"), ly = strcspn(y->name, "0123456789");
    int c = strncmp(x->name, y->name, lx < ly ? lx : ly);
    if (c || lx != ly) return c ? c : lx < ly ? -1 : 1;
    long nx = strtol(x->name + lx, NULL, 10), ny = strtol(y->name + ly, NULL, 10);
    return nx < ny ? -1 : nx > ny ? 1 : strcmp(x->name, y->name);
}

/* Every register each function declares (and each special register the kernel reads),
 * with its final row or predicate index and the function's code range. One allocation
 * holds the table and the names. */
static int build_regnames(Tr *t, Program *p)
{
    size_t n = 0, bytes = 0;
    for (int i = 0; i < t->nfns; i++)
        for (uint32_t j = 0; j < t->fns[i].names.cap; j++) {
            const Name *e = &t->fns[i].names.v[j];
            int kind = e->key ? (int)((uint32_t)e->val >> NK_SHIFT) : -1;
            if (kind == NK_ROW || kind == NK_PRED) { n++; bytes += strlen(e->key) + 1; }
        }
    for (size_t k = 0; k < sizeof sreg_names / sizeof sreg_names[0]; k++)
        if (sreg_names[k].id < SR_COUNT_STATIC && p->sreg_row[sreg_names[k].id] >= 0) {
            n++;
            bytes += strlen(sreg_names[k].name) + 1;
        }
    RegName *r = malloc(n * sizeof *r + bytes + 1);
    if (!r) return -1;
    char *names = (char *)(r + n);
    uint32_t k = 0;
    for (int i = 0; i < t->nfns; i++) {
        const Fn *fn = &t->fns[i];
        uint32_t hi = i + 1 < t->nfns ? t->fns[i + 1].pc_base : t->ncode;
        for (uint32_t j = 0; j < fn->names.cap; j++) {
            const Name *e = &fn->names.v[j];
            int kind = e->key ? (int)((uint32_t)e->val >> NK_SHIFT) : -1;
            if (kind != NK_ROW && kind != NK_PRED) continue;
            uint32_t idx = (uint32_t)e->val & ((1u << NK_SHIFT) - 1);
            RegName *g = &r[k++];
            g->is_pred = kind == NK_PRED;
            g->slot = g->is_pred ? PRED_FIRST_FREE + idx : fix_row(t, TAG_VAR | idx, 0);
            g->type = g->is_pred ? TY_PRED : t->var_ty[idx];
            g->pc_lo = fn->pc_base;
            g->pc_hi = hi;
            g->name = strcpy(names, e->key);
            names += strlen(e->key) + 1;
        }
    }
    qsort(r, k, sizeof *r, natural_cmp);
    for (size_t s = 0; s < sizeof sreg_names / sizeof sreg_names[0]; s++) {
        int id = sreg_names[s].id;
        if (id >= SR_COUNT_STATIC || p->sreg_row[id] < 0) continue;
        RegName *g = &r[k++];
        *g = (RegName){ .slot = (uint32_t)p->sreg_row[id], .pc_lo = 0, .pc_hi = t->ncode,
                        .type = TY_U32 };
        g->name = strcpy(names, sreg_names[s].name);
        names += strlen(sreg_names[s].name) + 1;
    }
    p->regnames = r;
    p->nregnames = k;
    return 0;
}

void program_free(Program *p)
{
    if (!p) return;
    for (uint32_t i = 0; i < p->ncode; i++)
        if (p->code[i].op == OP_call && p->code[i].aux) {
            CallDesc *cd = p->code[i].aux;
            free(cd->args); free(cd->rets); free(cd);
        } else if (has_row_list(p->code[i].op)) {
            free(p->code[i].aux);
        }
    free(p->code); free(p->row_init); free(p->locs); free(p->param_offset); free(p->kparams);
    free(p->fdesc);
    free(p->param_size_of); free(p->name); free(p->dname); free(p->regnames);
    for (uint32_t i = 0; i < p->nshared_names; i++) free(p->shared_names[i].name);
    free(p->shared_names);
    free(p);
}

static void free_tr(Tr *t, int keep_calls)
{
    for (int i = 0; i < t->nfns; i++) {
        free(t->fns[i].pc_of);
        free(t->fns[i].names.v);
        free(t->fns[i].labels.v);
        free(t->fns[i].known.v);
        free(t->fns[i].block_start);
    }
    free(t->fns);
    free(t->fn_index.v);
    for (uint32_t k = 0; k < t->nowned; k++) free(t->owned[k]);
    free(t->owned);
    free(t->descs);
    free(t->shared_off.v);
    for (uint32_t i = 0; i < t->nsnames; i++) free(t->snames[i].name);
    free(t->snames);
    free(t->kparams.v);
    free(t->consts);
    free(t->var_ty);
    free(t->kprows);
    free(t->fdesc);
    if (!keep_calls) {
        for (uint32_t i = 0; i < t->ncalls; i++) {
            free(t->calls[i]->args); free(t->calls[i]->rets); free(t->calls[i]);
        }
        for (uint32_t pc = 0; pc < t->ncode; pc++)
            if (has_row_list(t->code[pc].op)) free(t->code[pc].aux);
        free(t->code);
        free(t->locs);
        free(t->kp_off); free(t->kp_size);
    }
    free(t->calls);
}

/* Memory order and scope as the PTX memory model reads them: atomics default to relaxed
 * at gpu scope, volatile is relaxed at system scope, membar and fence.sc are acq_rel
 * fences, an mbarrier arrive releases and a wait acquires unless .relaxed. */
static uint8_t sync_of(int op, const InstDesc *d)
{
    int scope = desc_has(d, MOD_CTA) ? SCOPE_CTA : desc_has(d, MOD_CLUSTER) ? SCOPE_CLUSTER
              : desc_has(d, MOD_GPU) || desc_has(d, MOD_GL) ? SCOPE_GPU
              : desc_has(d, MOD_SYS) ? SCOPE_SYS : SCOPE_NONE;
    int sem = desc_has(d, MOD_RELAXED) ? SEM_RELAXED : desc_has(d, MOD_ACQUIRE) ? SEM_ACQUIRE
            : desc_has(d, MOD_RELEASE) ? SEM_RELEASE
            : desc_has(d, MOD_ACQ_REL) || desc_has(d, MOD_SC) ? SEM_ACQ_REL : SEM_WEAK;
    switch (op) {
    case OP_atom: case OP_red:
        if (!sem) sem = SEM_RELAXED;
        if (!scope) scope = SCOPE_GPU;
        break;
    case OP_ld: case OP_ldu: case OP_st:
        if (desc_has(d, MOD_VOLATILE)) { sem = SEM_RELAXED; scope = SCOPE_SYS; }
        if (sem && !scope) scope = SCOPE_SYS;
        break;
    case OP_fence: case OP_membar:
        if (!sem) sem = SEM_ACQ_REL;
        if (!scope) scope = SCOPE_SYS;
        break;
    case OP_mbarrier:
        /* the barrier's own operations are atomic on it (release for arrivals, acquire for
         * waits, .cta unless named); init and inval are plain writes */
        if (desc_has(d, MOD_INIT) || desc_has(d, MOD_INVAL)) break;
        if (!sem) sem = SEM_ACQ_REL;
        if (!scope) scope = SCOPE_CTA;
        break;
    default:   /* the rest: only the order matters */
        break;
    }
    return SYNC(sem, scope);
}

static const char *bind_inst(Inst *in, InstDesc *d)
{
    d->nd = in->nd;
    d->ns = in->ns;
    in->sync = sync_of(in->op, d);
    return op_info[in->op].bind(in, d);
}

Program *translate_kernel(const PtxModule *m, const PtxFunc *entry, TrLookupFn lookup,
                          void *ctx, uint32_t obs, char *err, size_t errlen)
{
    Tr t;
    memset(&t, 0, sizeof t);
    t.m = m; t.lookup = lookup; t.ctx = ctx; t.err = err; t.errlen = errlen; t.obs = obs;
    for (int i = 0; i < SR_COUNT_STATIC; i++) t.sreg_id[i] = -1;
    t.dyn_align = 16;
    Program *p = NULL;

    /* kernel parameters */
    t.nkp = (uint32_t)entry->nparams;
    t.kp_off = calloc(t.nkp + 1, sizeof *t.kp_off);
    t.kp_size = calloc(t.nkp + 1, sizeof *t.kp_size);
    if (!t.kp_off || !t.kp_size) goto oom;
    t.kp_bytes = translate_param_layout(entry, t.kp_off, t.kp_size);
    for (uint32_t i = 0; i < t.nkp; i++) map_put(&t.kparams, entry->params[i].name, (int)t.kp_off[i]);

    /* pass 1 */
    if (add_fn(&t, entry) < 0 || walk_calls(&t, 0) < 0) goto out;
    if (t.has_indirect)   /* any function with a body may be called through a pointer */
        for (int i = 0; i < m->nfuncs; i++) {
            const PtxFunc *g = &m->funcs[i];
            if (!g->has_body || g->is_entry || fn_find(&t, g->name) >= 0) continue;
            int j = add_fn(&t, g);
            if (j < 0 || walk_calls(&t, j) < 0) goto out;
        }
    if (t.has_indirect)   /* a call through a pointer may come back to any function */
        for (int i = 1; i < t.nfns; i++) t.fns[i].recursive = 1;
    for (int i = 0; i < t.nfns; i++) if (layout_fn(&t, i) < 0) goto out;

    /* pass 2: each function's code, then an implicit ret so falling off the end is
     * well defined */
    for (int i = 0; i < t.nfns; i++) {
        Fn *fn = &t.fns[i];
        const PtxFunc *f = fn->f;
        fn->pc_base = t.ncode;
        fn->pc_of = calloc((size_t)f->ninsts + 1, sizeof *fn->pc_of);
        if (!fn->pc_of) goto oom;
        for (int k = 0; k < f->ninsts; k++) {
            fn->pc_of[k] = t.ncode;
            if (lower_inst(&t, fn, &f->insts[k]) < 0) goto out;
        }
        fn->pc_of[f->ninsts] = t.ncode;
        Inst *r = emit(&t);
        if (!r) goto oom;
        r->op = OP_ret;
        r->line = f->ninsts ? (uint32_t)f->insts[f->ninsts - 1].line : (uint32_t)f->line;
        t.descs[t.ncode - 1].op = OP_ret;
    }
    if (t.failed) goto out;

    uint32_t dyn_row = 0;
    if (t.has_dyn_shared) {
        /* dynamic shared memory starts after the static variables */
        t.shared_size = align_up(t.shared_size, t.dyn_align);
        dyn_row = const_row(&t, t.shared_size);
    }
    uint32_t dyn_fixed = fix_row(&t, dyn_row, 0);

    /* pass 3 */
    for (uint32_t pc = 0; pc < t.ncode; pc++) {
        Inst *in = &t.code[pc];
        for (int k = 0; k < in->nd; k++) in->d[k] = fix_row(&t, in->d[k], dyn_fixed);
        for (int k = 0; k < in->ns; k++) in->s[k] = fix_row(&t, in->s[k], dyn_fixed);
        in->base = fix_row(&t, in->base, dyn_fixed);
        if (in->pg) in->pg = (uint16_t)(PRED_FIRST_FREE + in->pg - 1);
        if ((in->op == OP_mma || in->op == OP_wmma || in->op == OP_wgmma) && in->aux) {
            RowList *rl = in->aux;
            for (uint32_t k = 0; k < rl->n; k++) rl->rows[k] = fix_row(&t, rl->rows[k], dyn_fixed);
        }
        if (in->op == OP_call && in->aux) {
            CallDesc *cd = in->aux;
            CallArg *lists[2] = { cd->args, cd->rets };
            uint32_t counts[2] = { cd->nargs, cd->nrets };
            for (int li = 0; li < 2; li++)
                for (uint32_t k = 0; k < counts[li]; k++) {
                    CallArg *a = &lists[li][k];
                    if (a->kind == CA_ROW) a->src = fix_row(&t, a->src, dyn_fixed);
                    if (a->dkind == CA_ROW) a->dst = fix_row(&t, a->dst, dyn_fixed);
                }
            if (cd->indirect) cd->callee_row = fix_row(&t, cd->callee_row, dyn_fixed);
            if (!cd->is_extern && !cd->indirect) {
                Fn *cf = &t.fns[in->imm];
                in->imm = cf->pc_base;
                cd->callee_frame = cf->frame;
                cd->recursive = cf->recursive;
                cd->row_lo = fix_row(&t, TAG_VAR | cf->var_lo, 0);
                cd->row_hi = fix_row(&t, TAG_VAR | cf->var_hi, 0);
                cd->pred_lo = PRED_FIRST_FREE + cf->pred_lo;
                cd->pred_hi = PRED_FIRST_FREE + cf->pred_hi;
                cd->save_off = cf->frame - ((cf->var_hi - cf->var_lo) * 8 + (cf->pred_hi - cf->pred_lo));
                cd->save_off &= ~15u;
            }
        }
    }
    /* callee descriptions by module function index (indirect calls look them up), and
     * each function's rets know their function */
    t.fdesc = calloc((size_t)m->nfuncs + 1, sizeof *t.fdesc);
    if (!t.fdesc) goto oom;
    for (int i = 0; i < m->nfuncs; i++) t.fdesc[i].pc = UINT32_MAX;
    for (int i = 1; i < t.nfns; i++) {
        Fn *fn = &t.fns[i];
        int mi = module_func_index(m, fn->f->name);
        FnDesc *fd = &t.fdesc[mi];
        uint32_t end = i + 1 < t.nfns ? t.fns[i + 1].pc_base : t.ncode;
        for (uint32_t pc = fn->pc_base; pc < end; pc++)
            if (t.code[pc].op == OP_ret) t.code[pc].imm = mi;
        fd->pc = fn->pc_base;
        fd->frame = fn->frame;
        fd->nparams = (uint32_t)(fn->f->nparams < 16 ? fn->f->nparams : 16);
        fd->nrets = (uint32_t)(fn->f->nrets < 16 ? fn->f->nrets : 16);
        for (uint32_t k = 0; k < fd->nparams + fd->nrets; k++) {
            const PtxVar *pv = k < fd->nparams ? &fn->f->params[k] : &fn->f->rets[k - fd->nparams];
            uint8_t kind; uint32_t slot;
            if (callee_slot(fn, pv->name, &kind, &slot) < 0) goto oom;
            if (kind == CA_ROW) slot = fix_row(&t, slot, dyn_fixed);
            if (k < fd->nparams) { fd->pkind[k] = kind; fd->pslot[k] = slot; fd->psize[k] = ptx_var_bytes(pv); }
            else { uint32_t r = k - fd->nparams; fd->rkind[r] = kind; fd->rslot[r] = slot; fd->rsize[r] = ptx_var_bytes(pv); }
        }
        fd->recursive = fn->recursive || t.has_indirect;   /* a pointer call may recurse */
        fd->row_lo = fix_row(&t, TAG_VAR | fn->var_lo, 0);
        fd->row_hi = fix_row(&t, TAG_VAR | fn->var_hi, 0);
        fd->pred_lo = PRED_FIRST_FREE + fn->pred_lo;
        fd->pred_hi = PRED_FIRST_FREE + fn->pred_hi;
        fd->save_off = (fn->frame - ((fn->var_hi - fn->var_lo) * 8 + (fn->pred_hi - fn->pred_lo))) & ~15u;
    }

    /* branch targets: PtxInst index -> pc, per function */
    for (int i = 0; i < t.nfns; i++) {
        Fn *fn = &t.fns[i];
        uint32_t end = i + 1 < t.nfns ? t.fns[i + 1].pc_base : t.ncode;
        for (uint32_t pc = fn->pc_base; pc < end; pc++)
            if (t.code[pc].op == OP_bra) t.code[pc].imm = fn->pc_of[t.code[pc].imm];
        if (reconvergence_points(t.code, fn->pc_base, end) < 0) goto oom;
    }
    if (contract(&t, m) < 0) goto oom;
    for (uint32_t pc = 0; pc < t.ncode; pc++) {
        Inst *in = &t.code[pc];
        t.descs[pc].obs = t.obs;
        const char *msg = bind_inst(in, &t.descs[pc]);
        in->cost = op_issue_cost(in);
        if (msg) {
            const PtxInst *pi = NULL;
            for (int f = 0; f < t.nfns && !pi; f++)
                for (int k = 0; k < t.fns[f].f->ninsts; k++)
                    if (t.fns[f].pc_of[k] <= pc && pc < t.fns[f].pc_of[k + 1]) {
                        pi = &t.fns[f].f->insts[k];
                        break;
                    }
            char txt[160] = "?";
            if (pi) desc_text(pi, txt, sizeof txt);
            fail(&t, pi ? pi->line : (int)in->line, pi ? pi->col : 0, "%s: %s", txt, msg);
            goto out;
        }
    }

    /* switch points of deterministic mode: what other warps can observe */
    for (uint32_t pc = 0; pc < t.ncode; pc++) {
        switch (t.code[pc].op) {
        case OP_ld: case OP_ldu: case OP_st: case OP_atom: case OP_red: case OP_cp:
        case OP_mbarrier: case OP_bar: case OP_barrier: case OP_fence: case OP_membar:
        case OP_st_async: case OP_red_async: case OP_call: case OP_tensormap:
            t.code[pc].flags |= IF_PREEMPT;
            break;
        default:
            break;
        }
    }

    p = calloc(1, sizeof *p);
    if (!p) goto oom;
    p->name = strdup(entry->name);
    p->dname = emu_demangle(entry->name);
    p->code = t.code;
    p->ncode = t.ncode;
    p->first_var_row = ROW_FIRST_FREE + t.nconsts + t.nsregs;
    p->nrows = p->first_var_row + t.nvars;
    p->npreds = PRED_FIRST_FREE + t.npreds;
    p->row_init = calloc(p->first_var_row, sizeof *p->row_init);
    if (!p->name || !p->dname || !p->row_init) goto oom;
    for (uint32_t i = 0; i < t.nconsts; i++) p->row_init[ROW_FIRST_FREE + i] = t.consts[i];
    for (int i = 0; i < SR_COUNT_STATIC; i++)
        p->sreg_row[i] = t.sreg_id[i] < 0 ? -1 : (int32_t)(ROW_FIRST_FREE + t.nconsts + (uint32_t)t.sreg_id[i]);
    p->shared_static = t.has_dyn_shared ? t.shared_size : align_up(t.shared_size, 1);
    p->shared_names = t.snames;   /* the Program owns them now */
    p->nshared_names = t.nsnames;
    t.snames = NULL;
    t.nsnames = 0;
    p->dyn_shared_align = t.dyn_align;
    p->frame_size = t.fns[0].frame;
    p->uses_local = (uint32_t)t.uses_local;
    for (uint32_t i = 0; i < p->ncode; i++)
        if (p->code[i].op == OP_sreg && p->code[i].imm >= SR_CLOCK && p->code[i].imm <= SR_CLOCK64)
            p->reads_clock = 1;
    p->param_size = t.kp_bytes;
    p->nparams = t.nkp;
    p->param_offset = t.kp_off;
    p->param_size_of = t.kp_size;
    for (int k = 0; k < 3; k++) {
        p->reqntid[k] = entry->reqntid[k];
        p->maxntid[k] = entry->maxntid[k];
        p->reqncta[k] = entry->reqnctapercluster[k];
    }
    p->explicit_cluster = entry->explicitcluster;
    p->obs = t.obs;
    p->locs = t.locs;
    p->nlocs = t.nlocs;
    p->kparams = t.kprows;
    p->nkparams = t.nkprows;
    t.kprows = NULL;
    p->fdesc = t.fdesc;
    p->nfdesc = (uint32_t)m->nfuncs;
    t.fdesc = NULL;
    for (uint32_t i = 0; i < p->nkparams; i++) p->kparams[i].row += ROW_FIRST_FREE;
    p->ptx_name = m->source_name;
    if (build_regnames(&t, p) < 0) goto oom;
    free_tr(&t, 1);
    return p;
oom:
    fail(&t, entry->line, entry->col, "out of memory while translating '%s'", entry->name);
out:
    if (p) { free(p->name); free(p->dname); free(p->row_init); free(p->kparams); free(p->fdesc); free(p->regnames); free(p); }
    free_tr(&t, 0);
    return NULL;
}
