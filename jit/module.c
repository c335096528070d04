/* module.c - PTX modules and their kernels (jit.h): parsing and linking, module variables in
 * device memory, and each kernel's Program, translated at its first launch with a mask of
 * observed events and kept for the next. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jit.h"
#include "translate.h"
#include "compile.h"
#include "emu/memory.h"
#include "emu/observe.h"
#include "emu/call.h"
#include "frontend/ptx_ast.h"

typedef struct ModVar { const char *name; int space, kind; uint64_t addr; size_t size; } ModVar;

/* Translations of a kernel: one per mask of observed events it was launched with (a process
 * usually has one mask; the debugger's or a tool's attached later would add another). */
#define JIT_MASKS 4

struct EmuKernel {
    JitModule *mod;
    const PtxFunc *f;
    pthread_mutex_t lock;
    struct { uint32_t obs; Program *prog; } tr[JIT_MASKS];
    int ntr;
    int status;                 /* 0 not yet, 1 ok, -1 failed                  */
    char err[1024];
    uint32_t *param_off, *param_size, param_bytes;
};

struct JitModule {
    int siblings_started;       /* compiled tier: its kernels' builds were started together */
    PtxModule *ast;
    ModVar *vars; int nvars;
    EmuKernel *kernels; int nkernels;
    const char **files; uint32_t nfiles;
    char *ptx_text;             /* the PTX, kept only for tools that need it (the debugger) */
};

static const Program *source_program(EmuKernel *k, uint32_t obs, char *err, size_t errlen, int *code);
static EmuKernel *from_pointer(EmuKernel *parent, uint64_t fnptr);
static void hot(EmuKernel *k, const Program *p, uint64_t total)
{
    (void)k;
    jit_native_hot((Program *)p, total);
}
static const EmuKernelSource jit_source = { source_program, from_pointer, hot };

static int find_var(const JitModule *m, const char *name)
{
    for (int i = 0; i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name)) return i;
    return -1;
}

static int func_index(const JitModule *m, const char *name)
{
    for (int i = 0; i < m->ast->nfuncs; i++)
        if (m->ast->funcs[i].has_body && !strcmp(m->ast->funcs[i].name, name)) return i;
    return -1;
}

/* Write a variable's initializer into device memory; symbol addresses resolve to the
 * device addresses of other module variables (generic() is the same for global memory). */
static int apply_init(JitModule *m, const PtxVar *v, uint8_t *dst, char *err, size_t errlen)
{
    int es = ptx_type_size(v->type);
    uint32_t total = ptx_var_bytes(v);
    for (int i = 0; i < v->ninit; i++) {
        const struct PtxInit *in = &v->init[i];
        if ((uint32_t)(i + 1) * (uint32_t)es > total) {
            snprintf(err, errlen, "%s:%d:%d: too many initializers for '%s'",
                     m->ast->source_name, v->line, v->col, v->name);
            return -1;
        }
        uint64_t bits = (uint64_t)in->ival;
        if (in->kind == 1 && in->is_float_literal) {
            if (v->type == TY_F32) { float f = (float)in->fval; uint32_t b; memcpy(&b, &f, 4); bits = b; }
            else { memcpy(&bits, &in->fval, 8); }
        } else if (in->kind >= 2 && find_var(m, in->sym) < 0 && func_index(m, in->sym) >= 0) {
            /* a device function pointer (its value means something to indirect calls only) */
            bits = FUNC_PTR_BASE + (uint64_t)func_index(m, in->sym) * FUNC_PTR_STEP + (uint64_t)in->ival;
        } else if (in->kind >= 2) {
            int k = find_var(m, in->sym);
            if (k < 0) {
                snprintf(err, errlen, "%s:%d:%d: initializer of '%s' refers to '%s', which is not "
                         "a global variable", m->ast->source_name, v->line, v->col, v->name, in->sym);
                return -1;
            }
            bits = m->vars[k].addr + (uint64_t)in->ival;
        }
        memcpy(dst + (size_t)i * (size_t)es, &bits, (size_t)es);
    }
    return 0;
}

static int place_vars(JitModule *m, char *err, size_t errlen)
{
    const PtxModule *a = m->ast;
    m->vars = calloc((size_t)a->nglobals + 1, sizeof *m->vars);
    if (!m->vars) return -1;
    for (int i = 0; i < a->nglobals; i++) {
        const PtxVar *v = &a->globals[i];
        ModVar *mv = &m->vars[m->nvars++];
        mv->name = v->name;
        mv->space = v->space;
        mv->size = ptx_var_bytes(v);
        if (v->space == SP_SHARED) continue;   /* laid out per kernel by translation */
        if (v->space != SP_GLOBAL && v->space != SP_CONST) {
            snprintf(err, errlen, "%s:%d:%d: module-scope variable '%s' in an unsupported state "
                     "space", a->source_name, v->line, v->col, v->name);
            return -1;
        }
        if (v->is_extern) {
            snprintf(err, errlen, "%s:%d:%d: extern variable '%s' is not defined in this module "
                     "(separate compilation needs -rdc linking into one PTX)", a->source_name,
                     v->line, v->col, v->name);
            return -1;
        }
        mv->kind = v->space == SP_CONST ? MEM_CONST : MEM_MODULE;
        mv->addr = mem_alloc(mv->size ? mv->size : 1, mv->kind);
        if (!mv->addr) { snprintf(err, errlen, "out of device memory for '%s'", v->name); return -1; }
    }
    for (int i = 0; i < a->nglobals; i++) {
        const PtxVar *v = &a->globals[i];
        if (!m->vars[i].addr || !v->ninit) continue;
        if (apply_init(m, v, mem_host(m->vars[i].addr, m->vars[i].size ? m->vars[i].size : 1),
                       err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* The first instruction that is no PTX instruction at all, as "name:line:col: ..."; 0 if none. */
static int unknown_instruction(const PtxModule *a, char *err, size_t errlen)
{
    for (int i = 0; i < a->nfuncs; i++)
        for (int k = 0; k < a->funcs[i].ninsts; k++) {
            const PtxInst *in = &a->funcs[i].insts[k];
            if (ptx_is_instruction(in->opcode)) continue;
            snprintf(err, errlen, "%s:%d:%d: unknown instruction '%s' (not in the PTX ISA)",
                     a->source_name, in->line, in->col, in->opcode);
            return 1;
        }
    return 0;
}

/* The part of loading that follows parsing: target check, variables, kernels. Takes `a`. */
static JitModule *module_from_ast(PtxModule *a, const char *source_name, char *err, size_t errlen,
                                  int *cuda_err)
{
    if (unknown_instruction(a, err, errlen)) {
        ptx_module_free(a);
        *cuda_err = EMU_ERR_INVALID_PTX;
        return NULL;
    }
    /* an H100's JIT refuses PTX for a newer architecture ("SM version specified by .target
     * is higher than default SM version assumed") as invalid PTX */
    int sm = 0;
    if (sscanf(a->target, "sm_%d", &sm) == 1 && sm > 90) {
        snprintf(err, errlen, "%s: .target %s is newer than the emulated device (sm_90); rebuild "
                 "for sm_90 or sm_90a", source_name ? source_name : "PTX", a->target);
        ptx_module_free(a);
        *cuda_err = EMU_ERR_INVALID_PTX;
        return NULL;
    }
    JitModule *m = calloc(1, sizeof *m);
    if (!m) { ptx_module_free(a); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
    m->ast = a;
    if (place_vars(m, err, errlen) < 0) {
        *cuda_err = EMU_ERR_INVALID_PTX;
        jit_module_free(m);
        return NULL;
    }
    int maxfile = 0;
    for (int i = 0; i < a->nfiles; i++) if (a->files[i].index > maxfile) maxfile = a->files[i].index;
    m->files = calloc((size_t)maxfile + 1, sizeof *m->files);
    m->nfiles = m->files ? (uint32_t)maxfile + 1 : 0;
    for (int i = 0; m->files && i < a->nfiles; i++) m->files[a->files[i].index] = a->files[i].path;
    m->kernels = calloc((size_t)a->nfuncs + 1, sizeof *m->kernels);
    if (!m->kernels) { jit_module_free(m); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
    for (int i = 0; i < a->nfuncs; i++) {
        if (!a->funcs[i].is_entry || !a->funcs[i].has_body) continue;
        EmuKernel *k = &m->kernels[m->nkernels++];
        k->mod = m;
        k->f = &a->funcs[i];
        pthread_mutex_init(&k->lock, NULL);
        k->param_off = calloc((size_t)k->f->nparams + 1, sizeof *k->param_off);
        k->param_size = calloc((size_t)k->f->nparams + 1, sizeof *k->param_size);
        if (!k->param_off || !k->param_size) { jit_module_free(m); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
        k->param_bytes = translate_param_layout(k->f, k->param_off, k->param_size);
    }
    *cuda_err = EMU_OK;
    return m;
}

/* A tool that lists the PTX and traces its lines (the step debugger) needs the text: keep it
 * (of a module made of one PTX; a linked module's line numbers belong to its several parts). */
static JitModule *keep_text(JitModule *m, const char *ptx, size_t len)
{
    if (m && (obs_needs() & OBS_NEEDS_PTX_TEXT) && (m->ptx_text = malloc(len + 1))) {
        memcpy(m->ptx_text, ptx, len);
        m->ptx_text[len] = 0;
    }
    return m;
}

static int arena_ready(char *err, size_t errlen, int *cuda_err)
{
    emu_set_kernel_source(&jit_source);
    if (!emu_init(0)) return 1;
    snprintf(err, errlen, "ptxemu: cannot reserve the device memory arena");
    *cuda_err = EMU_ERR_MEMORY_ALLOCATION;
    return 0;
}

JitModule *jit_module_load(const char *ptx, size_t len, const char *source_name, char *err,
                           size_t errlen, int *cuda_err)
{
    if (!arena_ready(err, errlen, cuda_err)) return NULL;
    int verr = 0;
    PtxModule *a = ptx_parse(ptx, len, source_name, err, errlen, &verr);
    if (!a) {
        *cuda_err = verr ? EMU_ERR_UNSUPPORTED_PTX_VERSION : EMU_ERR_INVALID_PTX;
        return NULL;
    }
    return keep_text(module_from_ast(a, source_name, err, errlen, cuda_err), ptx, len);
}

/* Whether the parts call one of the device runtime's PTX functions (emu/devrt_cg.c) that
 * none of them defines. */
static int needs_devrt_cg(PtxModule *const *parts, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < parts[i]->nfuncs; j++) {
            const PtxFunc *f = &parts[i]->funcs[j];
            if (f->has_body || !devrt_cg_provides(f->name)) continue;
            int defined = 0;
            for (int a = 0; a < n && !defined; a++)
                for (int b = 0; b < parts[a]->nfuncs && !defined; b++)
                    defined = parts[a]->funcs[b].has_body && !strcmp(parts[a]->funcs[b].name, f->name);
            if (!defined) return 1;
        }
    return 0;
}

JitModule *jit_module_link(const char *const *ptx, const size_t *len, const char *const *names,
                           int n, char *err, size_t errlen, int *cuda_err)
{
    if (!arena_ready(err, errlen, cuda_err)) return NULL;
    PtxModule **parts = calloc((size_t)(n > 0 ? n + 1 : 1), sizeof *parts);
    if (!parts) { *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
    int ok = n > 0, verr = 0, nparts = n;
    for (int i = 0; ok && i < n; i++) {
        parts[i] = ptx_parse(ptx[i], len[i], names[i], err, errlen, &verr);
        ok = parts[i] != NULL;
    }
    if (ok && needs_devrt_cg(parts, n)) {   /* libcudadevrt's part, in ptxemu's PTX */
        size_t dl;
        const char *dt = devrt_cg_ptx(&dl);
        parts[nparts] = ptx_parse(dt, dl, "ptxemu-devrt.ptx", err, errlen, &verr);
        ok = parts[nparts++] != NULL;
    }
    PtxModule *a = ok ? ptx_link(parts, nparts, call_host_provided, err, errlen) : NULL;
    if (!a) {
        for (int i = 0; i < nparts; i++) ptx_module_free(parts[i]);
        free(parts);
        *cuda_err = verr ? EMU_ERR_UNSUPPORTED_PTX_VERSION : EMU_ERR_INVALID_PTX;
        if (ok && !err[0]) snprintf(err, errlen, "link error");
        return NULL;
    }
    free(parts);
    JitModule *m = module_from_ast(a, names[0], err, errlen, cuda_err);
    return n == 1 ? keep_text(m, ptx[0], len[0]) : m;
}

void jit_module_free(JitModule *m)
{
    emu_programs_gone();   /* tools' records of earlier launches may name this module's programs */
    if (!m) return;
    for (int i = 0; i < m->nvars; i++) if (m->vars[i].addr) mem_free(m->vars[i].addr, m->vars[i].kind);
    for (int i = 0; i < m->nkernels; i++) {
        for (int t = 0; t < m->kernels[i].ntr; t++) {
            jit_native_forget(m->kernels[i].tr[t].prog);
            program_free(m->kernels[i].tr[t].prog);
        }
        free(m->kernels[i].param_off);
        free(m->kernels[i].param_size);
        pthread_mutex_destroy(&m->kernels[i].lock);
    }
    free(m->kernels);
    free(m->vars);
    free(m->files);
    free(m->ptx_text);
    ptx_module_free(m->ast);
    free(m);
}

const char *jit_module_target(const JitModule *m)
{
    return m->ast->target;
}

int jit_module_symbol(JitModule *m, const char *name, uint64_t *addr, size_t *size)
{
    int i = find_var(m, name);
    if (i < 0 || !m->vars[i].addr) return -1;
    if (addr) *addr = m->vars[i].addr;
    if (size) *size = m->vars[i].size;
    return 0;
}

EmuKernel *jit_module_kernel(JitModule *m, const char *name)
{
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].f->name, name)) return &m->kernels[i];
    return NULL;
}

int jit_module_kernel_count(const JitModule *m)
{
    return m->nkernels;
}

EmuKernel *jit_module_kernel_at(JitModule *m, int i)
{
    return i >= 0 && i < m->nkernels ? &m->kernels[i] : NULL;
}

const char *jit_kernel_error(const EmuKernel *k)
{
    return k->status < 0 ? k->err : NULL;
}

const char *jit_kernel_name(const EmuKernel *k)
{
    return k->f->name;
}

static int tr_lookup(void *ctx, const char *name, int *space, uint64_t *addr)
{
    JitModule *m = ctx;
    int i = find_var(m, name);
    if (i < 0) return -1;
    *space = m->vars[i].space;
    *addr = m->vars[i].addr;
    return 0;
}

static const char build_failed[] =
    "PTXEMU_TIER=compiled: the compiled tier could not build it (the message above says why)";

/* Under the compiled tier, the first kernel of a module to be translated (k, under its lock)
 * translates the module's other plain kernels too, so that all are built at once: their
 * Programs go into their kernels (translated for mask obs, as a launch would) and into out,
 * at most m->nkernels - 1. A kernel another thread holds, or that does not translate, is left
 * to its own first launch (which says why it does not). */
static int translate_siblings(EmuKernel *k, uint32_t obs, Program **out)
{
    JitModule *m = k->mod;
    int n = 0;
    if (obs || jit_tier() != TIER_COMPILED || m->nkernels < 2 ||
        __atomic_exchange_n(&m->siblings_started, 1, __ATOMIC_ACQ_REL))
        return 0;
    for (int i = 0; i < m->nkernels; i++) {
        EmuKernel *s = &m->kernels[i];
        if (s == k || pthread_mutex_trylock(&s->lock)) continue;   /* trylock: k's lock is held */
        char err[sizeof s->err];
        Program *np = s->ntr || s->status ? NULL
            : translate_kernel(m->ast, s->f, tr_lookup, m, obs, err, sizeof err);
        if (np) {
            np->files = m->files;
            np->nfiles = m->nfiles;
            np->ptx_text = m->ptx_text;
            s->tr[0].obs = obs;
            s->tr[0].prog = np;
            s->ntr = 1;
            s->status = 1;
            out[n++] = np;
        }
        pthread_mutex_unlock(&s->lock);
    }
    return n;
}

/* The kernel's Program for a mask of observed events: translated at first use, reused by
 * later launches (a failure is kept too, and reported again each time: it does not depend on
 * the mask). NULL with the message in err. */
static const Program *kernel_program(EmuKernel *k, uint32_t obs, char *err, size_t errlen)
{
    const Program *p = NULL;
    pthread_mutex_lock(&k->lock);
    int at = -1;
    for (int i = 0; i < k->ntr && at < 0; i++)
        if (k->tr[i].obs == obs) at = i;
    if (at >= 0 && jit_native_wait(k->tr[at].prog)) {   /* built as a sibling, and that failed */
        Program *bad = k->tr[at].prog;
        k->tr[at] = k->tr[--k->ntr];
        jit_native_forget(bad);
        program_free(bad);
        snprintf(k->err, sizeof k->err, "%s", build_failed);
        k->status = -1;
    } else if (at >= 0) {
        p = k->tr[at].prog;
    }
    if (!p && k->status >= 0) {
        Program *np = k->ntr < JIT_MASKS
            ? translate_kernel(k->mod->ast, k->f, tr_lookup, k->mod, obs, k->err, sizeof k->err) : NULL;
        if (!np && k->ntr == JIT_MASKS)
            snprintf(k->err, sizeof k->err, "more than %d sets of observing tools", JIT_MASKS);
        if (np) {
            np->files = k->mod->files;
            np->nfiles = k->mod->nfiles;
            np->ptx_text = k->mod->ptx_text;
            Program **sib = malloc((size_t)k->mod->nkernels * sizeof *sib);
            int nsib = sib ? translate_siblings(k, obs, sib) : 0;
            if (jit_native_new(np, sib, nsib)) {   /* PTXEMU_TIER=compiled: built before its first launch */
                snprintf(k->err, sizeof k->err, "%s", build_failed);
                program_free(np);
                np = NULL;
            }
            free(sib);
        }
        k->status = np ? 1 : -1;
        if (np) {
            k->tr[k->ntr].obs = obs;
            k->tr[k->ntr++].prog = np;
            p = np;
        }
    }
    pthread_mutex_unlock(&k->lock);
    if (!p) snprintf(err, errlen, "ptxemu: cannot translate kernel %s: %s", k->f->name, k->err);
    return p;
}

static const Program *source_program(EmuKernel *k, uint32_t obs, char *err, size_t errlen, int *code)
{
    const Program *p = kernel_program(k, obs, err, errlen);
    *code = p ? EMU_OK : EMU_ERR_INVALID_PTX;
    return p;
}

int jit_kernel_info(EmuKernel *k, JitKernelInfo *o)
{
    memset(o, 0, sizeof *o);
    o->nparams = k->f->nparams;
    o->param_offset = k->param_off;
    o->param_size = k->param_size;
    o->param_bytes = k->param_bytes;
    char err[256];
    const Program *p = kernel_program(k, obs_mask, err, sizeof err);
    if (p) {
        o->shared_static = p->shared_static;
        o->local_bytes = p->frame_size;
        o->num_regs = p->nrows - p->first_var_row;
        if (o->num_regs > 255) o->num_regs = 255;
    }
    o->max_threads = 1024;
    int req = k->f->reqntid[0] ? k->f->reqntid[0] * (k->f->reqntid[1] ? k->f->reqntid[1] : 1) *
                                 (k->f->reqntid[2] ? k->f->reqntid[2] : 1) : 0;
    int mx = k->f->maxntid[0] ? k->f->maxntid[0] * (k->f->maxntid[1] ? k->f->maxntid[1] : 1) *
                                (k->f->maxntid[2] ? k->f->maxntid[2] : 1) : 0;
    if (req) o->max_threads = (uint32_t)req;
    else if (mx) o->max_threads = (uint32_t)mx;
    for (int i = 0; i < 3; i++) o->reqntid[i] = k->f->reqntid[i];
    for (int i = 0; i < 3; i++) o->reqncta[i] = k->f->reqnctapercluster[i];
    int sm = 0;
    if (sscanf(k->mod->ast->target, "sm_%d", &sm) == 1) o->ptx_arch = sm;
    return k->status < 0 ? EMU_ERR_INVALID_PTX : EMU_OK;
}

/* The kernel a device function pointer names, in the module of the kernel that used it
 * (dynamic parallelism); NULL for a .func or a bad pointer. */
static EmuKernel *from_pointer(EmuKernel *parent, uint64_t fnptr)
{
    if (!parent || fnptr < FUNC_PTR_BASE || (fnptr - FUNC_PTR_BASE) % FUNC_PTR_STEP) return NULL;
    uint64_t idx = (fnptr - FUNC_PTR_BASE) / FUNC_PTR_STEP;
    JitModule *m = parent->mod;
    if (idx >= (uint64_t)m->ast->nfuncs) return NULL;
    const PtxFunc *f = &m->ast->funcs[idx];
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i].f == f) return &m->kernels[i];
    return NULL;   /* a .func, not a kernel */
}
