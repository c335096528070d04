/* emu.c - the emulator's face to the runtime: modules, their variables, kernels, launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "emu.h"
#include "machine.h"
#include "memory.h"
#include "scheduler.h"
#include "racecheck.h"
#include "events.h"
#include "initcheck.h"
#include "profile.h"
#include "engine.h"
#include "tma.h"
#include "call.h"
#include "cdp.h"
#include "debug.h"
#include "../frontend/translate.h"

int emu_log_level = 1;
static int racecheck_mode;       /* PTXEMU_RACECHECK: 0 off, 1 report, 2 report and fail */
static int racecheck_found;

/* PTXEMU_RACECHECK=error: hazards make the process exit with status 1 */
static void racecheck_exit(void)
{
    if (racecheck_found && racecheck_mode == 2) {
        fflush(NULL);
        _exit(1);
    }
}

typedef struct ModVar { const char *name; int space, kind; uint64_t addr; size_t size; } ModVar;

struct EmuKernel {
    EmuModule *mod;
    const PtxFunc *f;
    pthread_mutex_t lock;
    Program *prog;              /* translated at first launch                  */
    int status;                 /* 0 not yet, 1 ok, -1 failed                  */
    int err_code;
    char err[1024];
    uint32_t *param_off, *param_size, param_bytes;
};

struct EmuModule {
    PtxModule *ast;
    ModVar *vars; int nvars;
    EmuKernel *kernels; int nkernels;
    const char **files; uint32_t nfiles;
    char *ptx_text;             /* the PTX, kept only for the step debugger and the trace */
};

static size_t heap_size = 8u << 20;     /* CUDA's default device malloc heap: 8 MB */
static size_t stack_size = 1024;        /* CUDA's default stack per thread          */

void emu_set_heap_size(size_t b) { heap_size = b; }
size_t emu_heap_size(void) { return heap_size; }
void emu_set_stack_size(size_t b) { stack_size = b; }
size_t emu_stack_size(void) { return stack_size; }

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Tensor copies check global elements against the live allocations (tma.h) the launch may
 * touch (its device's, its peers', every device's). */
static int live_range(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
    size_t size = 0;
    uint64_t base = mem_find_reachable(addr, &size);
    if (!base) return 0;
    *lo = base; *hi = base + size;
    return 1;
}
static int init_threads, init_status;

/* Kernel accesses for PTXEMU_INITCHECK and PTXEMU_PROFILE (memory.c's observer). */
static void observe_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                           uint8_t *const host[WARP_SIZE])
{
    if (initcheck_mode) init_access(w, in, mask, size, access, host);
    if (profile_mode) profile_access(w, in, mask, size, access, host);
}

/* PTXEMU_REPORT_LAUNCHES=1 (ptxemu --report-json): a PTXEMU_REPORT line for every launch. */
static void report_launch(const Launch *L, const char *name, uint64_t emulated_ns)
{
    const char *rl = getenv("PTXEMU_REPORT_LAUNCHES");
    if (!rl || !*rl || !strcmp(rl, "0")) return;
    FILE *f = report_open();
    if (!f) return;
    fprintf(f, "{\"kind\":\"launch\",\"launch\":%llu,\"kernel\":", (unsigned long long)L->seq);
    report_str(f, name);
    fprintf(f, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"cluster\":[%u,%u,%u],\"dynamic_shared\":%u,"
            "\"warp_instructions\":%llu,\"thread_instructions\":%llu,\"emulated_ns\":%llu,\"status\":%d}\n",
            L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2], L->cluster[0],
            L->cluster[1], L->cluster[2], L->dyn_shared, (unsigned long long)L->warp_insts,
            (unsigned long long)L->thread_insts, (unsigned long long)emulated_ns,
            L->aborted ? L->fault.code : 0);
    report_close(f);
}

static void do_init(void)
{
    ev_init();
    const char *ic = getenv("PTXEMU_INITCHECK");
    if (ic && *ic && strcmp(ic, "0")) {
        initcheck_mode = 1;
        mem_on_alloc = init_alloc;
        mem_on_free = init_free;
        tma_store_hook = init_write;   /* tensor stores write global memory element by element */
    }
    const char *pf = getenv("PTXEMU_PROFILE"), *ck = getenv("PTXEMU_CLOCK");
    profile_print = pf && *pf && strcmp(pf, "0");
    clock_model = ck && !strcmp(ck, "model");
    if (ck && *ck && !clock_model && strcmp(ck, "host"))
        fprintf(stderr, "ptxemu: PTXEMU_CLOCK=%s: expected model or host; using host time\n", ck);
    profile_mode = profile_print || clock_model;
    if (initcheck_mode || profile_mode) mem_on_access = observe_access;
    const char *lv = getenv("PTXEMU_LOG");
    if (lv && *lv >= '0' && *lv <= '3' && !lv[1]) emu_log_level = *lv - '0';
    init_status = mem_init();
    tma_global_range = live_range;
    const char *seed = getenv("PTXEMU_SEED"), *out = getenv("PTXEMU_SCHEDULE_OUT");
    const char *in = getenv("PTXEMU_SCHEDULE_IN"), *rc = getenv("PTXEMU_RACECHECK");
    if (debug_init() && (!seed || !*seed)) seed = "1";   /* one thread runs every warp */
    if (rc && *rc && strcmp(rc, "0")) {
        racecheck_mode = !strcmp(rc, "error") ? 2 : 1;
        atexit(racecheck_exit);
        if (!seed || !*seed) seed = "1";   /* the detector runs in deterministic mode */
    }
    if (!init_status && ((seed && *seed) || (in && *in) || (out && *out))) {
        char *end = NULL, err[600];
        unsigned long long s = seed && *seed ? strtoull(seed, &end, 0) : 0;
        if (seed && *seed && (!end || *end)) {
            fprintf(stderr, "ptxemu: PTXEMU_SEED=%s is not a number\n", seed);
            init_status = -1;
        } else if (sched_set_deterministic(s, out, in, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            init_status = -1;
        }
    }
    if (!init_status) sched_init(init_threads);
}

int emu_init(int nthreads)
{
    init_threads = nthreads;
    pthread_once(&init_once, do_init);
    return init_status;
}

int emu_threads(void)
{
    return sched_threads();
}

/* ---- modules ------------------------------------------------------------------------ */

static int find_var(const EmuModule *m, const char *name)
{
    for (int i = 0; i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name)) return i;
    return -1;
}

static int func_index(const EmuModule *m, const char *name)
{
    for (int i = 0; i < m->ast->nfuncs; i++)
        if (m->ast->funcs[i].has_body && !strcmp(m->ast->funcs[i].name, name)) return i;
    return -1;
}

/* Write a variable's initializer into device memory; symbol addresses resolve to the
 * device addresses of other module variables (generic() is the same for global memory). */
static int apply_init(EmuModule *m, const PtxVar *v, uint8_t *dst, char *err, size_t errlen)
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

static int place_vars(EmuModule *m, char *err, size_t errlen)
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

void emu_launch_order(uint32_t stream, uint64_t clock, const uint64_t *after, uint32_t n)
{
    pthread_once(&init_once, do_init);
    if (racecheck_mode) race_order(stream, clock, after, n);
}

int emu_racecheck_on(void)
{
    pthread_once(&init_once, do_init);
    return racecheck_mode != 0;
}

void emu_host_copy_begin(const char *api)
{
    if (racecheck_mode) race_copy_begin(api);
}

void emu_host_copy(uint64_t addr, size_t n, int write)
{
    if (racecheck_mode) race_copy_bytes(addr, n, write);
}

void emu_host_copy_end(void)
{
    if (racecheck_mode && race_copy_end()) racecheck_found = 1;
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
static EmuModule *module_from_ast(PtxModule *a, const char *source_name, char *err, size_t errlen,
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
    EmuModule *m = calloc(1, sizeof *m);
    if (!m) { ptx_module_free(a); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
    m->ast = a;
    if (place_vars(m, err, errlen) < 0) {
        *cuda_err = EMU_ERR_INVALID_PTX;
        emu_module_free(m);
        return NULL;
    }
    int maxfile = 0;
    for (int i = 0; i < a->nfiles; i++) if (a->files[i].index > maxfile) maxfile = a->files[i].index;
    m->files = calloc((size_t)maxfile + 1, sizeof *m->files);
    m->nfiles = m->files ? (uint32_t)maxfile + 1 : 0;
    for (int i = 0; m->files && i < a->nfiles; i++) m->files[a->files[i].index] = a->files[i].path;
    m->kernels = calloc((size_t)a->nfuncs + 1, sizeof *m->kernels);
    if (!m->kernels) { emu_module_free(m); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
    for (int i = 0; i < a->nfuncs; i++) {
        if (!a->funcs[i].is_entry || !a->funcs[i].has_body) continue;
        EmuKernel *k = &m->kernels[m->nkernels++];
        k->mod = m;
        k->f = &a->funcs[i];
        pthread_mutex_init(&k->lock, NULL);
        k->param_off = calloc((size_t)k->f->nparams + 1, sizeof *k->param_off);
        k->param_size = calloc((size_t)k->f->nparams + 1, sizeof *k->param_size);
        if (!k->param_off || !k->param_size) { emu_module_free(m); *cuda_err = EMU_ERR_MEMORY_ALLOCATION; return NULL; }
        k->param_bytes = translate_param_layout(k->f, k->param_off, k->param_size);
    }
    *cuda_err = EMU_OK;
    return m;
}

/* The step debugger lists the PTX and traces its lines: keep the text (of a module made of
 * one PTX; a linked module's line numbers belong to its several parts). */
static EmuModule *keep_text(EmuModule *m, const char *ptx, size_t len)
{
    if (m && debug_wants_ptx() && (m->ptx_text = malloc(len + 1))) {
        memcpy(m->ptx_text, ptx, len);
        m->ptx_text[len] = 0;
    }
    return m;
}

static int arena_ready(char *err, size_t errlen, int *cuda_err)
{
    if (!emu_init(0)) return 1;
    snprintf(err, errlen, "ptxemu: cannot reserve the device memory arena");
    *cuda_err = EMU_ERR_MEMORY_ALLOCATION;
    return 0;
}

EmuModule *emu_module_load(const char *ptx, size_t len, const char *source_name, char *err,
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

/* Whether the parts call one of the device runtime's PTX functions (devrt_cg.c) that none
 * of them defines. */
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

EmuModule *emu_module_link(const char *const *ptx, const size_t *len, const char *const *names,
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
    PtxModule *a = ok ? ptx_link(parts, nparts, err, errlen) : NULL;
    if (!a) {
        for (int i = 0; i < nparts; i++) ptx_module_free(parts[i]);
        free(parts);
        *cuda_err = verr ? EMU_ERR_UNSUPPORTED_PTX_VERSION : EMU_ERR_INVALID_PTX;
        if (ok && !err[0]) snprintf(err, errlen, "link error");
        return NULL;
    }
    free(parts);
    EmuModule *m = module_from_ast(a, names[0], err, errlen, cuda_err);
    return n == 1 ? keep_text(m, ptx[0], len[0]) : m;
}

void emu_module_free(EmuModule *m)
{
    race_forget_all();   /* earlier launches may name this module's programs */
    if (!m) return;
    for (int i = 0; i < m->nvars; i++) if (m->vars[i].addr) mem_free(m->vars[i].addr, m->vars[i].kind);
    for (int i = 0; i < m->nkernels; i++) {
        program_free(m->kernels[i].prog);
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

const char *emu_module_target(const EmuModule *m)
{
    return m->ast->target;
}

int emu_module_symbol(EmuModule *m, const char *name, uint64_t *addr, size_t *size)
{
    int i = find_var(m, name);
    if (i < 0 || !m->vars[i].addr) return -1;
    if (addr) *addr = m->vars[i].addr;
    if (size) *size = m->vars[i].size;
    return 0;
}

EmuKernel *emu_module_kernel(EmuModule *m, const char *name)
{
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].f->name, name)) return &m->kernels[i];
    return NULL;
}

int emu_module_kernel_count(const EmuModule *m)
{
    return m->nkernels;
}

EmuKernel *emu_module_kernel_at(EmuModule *m, int i)
{
    return i >= 0 && i < m->nkernels ? &m->kernels[i] : NULL;
}

const char *emu_kernel_error(const EmuKernel *k)
{
    return k->status < 0 ? k->err : NULL;
}

const char *emu_kernel_name(const EmuKernel *k)
{
    return k->f->name;
}

static int tr_lookup(void *ctx, const char *name, int *space, uint64_t *addr)
{
    EmuModule *m = ctx;
    int i = find_var(m, name);
    if (i < 0) return -1;
    *space = m->vars[i].space;
    *addr = m->vars[i].addr;
    return 0;
}

/* Translate at first use; later launches reuse the Program (also after a failure, which is
 * reported again each time). */
static int kernel_program(EmuKernel *k, char *err, size_t errlen)
{
    pthread_mutex_lock(&k->lock);
    if (!k->status) {
        k->prog = translate_kernel(k->mod->ast, k->f, tr_lookup, k->mod, k->err, sizeof k->err);
        k->status = k->prog ? 1 : -1;
        if (k->prog) {
            k->prog->files = k->mod->files;
            k->prog->nfiles = k->mod->nfiles;
            k->prog->ptx_text = k->mod->ptx_text;
        }
    }
    pthread_mutex_unlock(&k->lock);
    if (k->status < 0) {
        snprintf(err, errlen, "ptxemu: cannot translate kernel %s: %s", k->f->name, k->err);
        return EMU_ERR_INVALID_PTX;
    }
    return EMU_OK;
}

int emu_kernel_info(EmuKernel *k, EmuKernelInfo *o)
{
    memset(o, 0, sizeof *o);
    o->nparams = k->f->nparams;
    o->param_offset = k->param_off;
    o->param_size = k->param_size;
    o->param_bytes = k->param_bytes;
    char err[256];
    if (kernel_program(k, err, sizeof err) == EMU_OK) {
        o->shared_static = k->prog->shared_static;
        o->local_bytes = k->prog->frame_size;
        o->num_regs = k->prog->nrows - k->prog->first_var_row;
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

/* ---- launches ----------------------------------------------------------------------- */

static int check_config(const EmuKernel *k, const Program *p, const unsigned g[3],
                        const unsigned b[3], size_t dyn, char *err, size_t errlen)
{
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2] || threads > 1024 || b[0] > 1024 ||
        b[1] > 1024 || b[2] > 64 || g[0] > 0x7fffffffu || g[1] > 65535 || g[2] > 65535) {
        snprintf(err, errlen, "ptxemu: kernel %s: invalid launch configuration grid (%u,%u,%u) "
                 "block (%u,%u,%u)", k->f->name, g[0], g[1], g[2], b[0], b[1], b[2]);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    if (k->f->reqntid[0] && (b[0] != (unsigned)k->f->reqntid[0] ||
                             b[1] != (unsigned)(k->f->reqntid[1] ? k->f->reqntid[1] : 1) ||
                             b[2] != (unsigned)(k->f->reqntid[2] ? k->f->reqntid[2] : 1))) {
        snprintf(err, errlen, "ptxemu: kernel %s requires a block of (%d,%d,%d) threads (.reqntid)",
                 k->f->name, k->f->reqntid[0], k->f->reqntid[1] ? k->f->reqntid[1] : 1,
                 k->f->reqntid[2] ? k->f->reqntid[2] : 1);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    if (k->f->maxntid[0]) {
        uint64_t mx = (uint64_t)k->f->maxntid[0] * (k->f->maxntid[1] ? k->f->maxntid[1] : 1) *
                      (k->f->maxntid[2] ? k->f->maxntid[2] : 1);
        if (threads > mx) {
            snprintf(err, errlen, "ptxemu: kernel %s allows at most %llu threads a block (.maxntid)",
                     k->f->name, (unsigned long long)mx);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
    }
    if (p->shared_static + dyn > 227u * 1024) {
        snprintf(err, errlen, "ptxemu: kernel %s needs %zu bytes of shared memory a block; the "
                 "limit is 232448", k->f->name, (size_t)p->shared_static + dyn);
        return EMU_ERR_INVALID_VALUE;
    }
    return EMU_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int emu_launch(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn_shared,
               void **args, char *err, size_t errlen)
{
    return emu_launch_ex(k, grid, block, NULL, dyn_shared, args, err, errlen);
}

/* Cluster shape: the launch's, else the kernel's .reqnctapercluster, else single CTAs. */
static int cluster_shape(const EmuKernel *k, const unsigned g[3], const unsigned *cluster,
                         Launch *L, char *err, size_t errlen)
{
    const int *req = k->f->reqnctapercluster;
    for (int i = 0; i < 3; i++) {
        unsigned want = req[0] ? (unsigned)(req[i] ? req[i] : 1) : 0;
        unsigned c = cluster ? cluster[i] : want ? want : 1;
        if (cluster && want && c != want) {
            snprintf(err, errlen, "ptxemu: kernel %s requires clusters of (%d,%d,%d) CTAs "
                     "(.reqnctapercluster)", k->f->name, req[0], req[1] ? req[1] : 1,
                     req[2] ? req[2] : 1);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
        if (!c || g[i] % c) {
            snprintf(err, errlen, "ptxemu: kernel %s: grid (%u,%u,%u) is not a whole number of "
                     "clusters of (%u,%u,%u)", k->f->name, g[0], g[1], g[2],
                     cluster ? cluster[0] : 1, cluster ? cluster[1] : 1, cluster ? cluster[2] : 1);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
        L->cluster[i] = c;
    }
    L->cluster_size = L->cluster[0] * L->cluster[1] * L->cluster[2];
    if (L->cluster_size > MAX_CLUSTER) {
        snprintf(err, errlen, "ptxemu: kernel %s: a cluster of %u CTAs is larger than %d",
                 k->f->name, L->cluster_size, MAX_CLUSTER);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    L->explicit_cluster = cluster != NULL || req[0] || k->f->explicitcluster;
    return EMU_OK;
}

int emu_launch_ex(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                  const unsigned cluster[3], size_t dyn_shared, void **args, char *err,
                  size_t errlen)
{
    return emu_launch_flags(k, grid, block, cluster, dyn_shared, args, 0, err, errlen);
}

/* The grid workspace of a cooperative launch, as the H100's driver lays it out (cooperative
 * groups' grid_workspace): its size (16, as recorded) and the grid barrier counter. */
static uint64_t grid_workspace(void)
{
    uint64_t ws = mem_alloc(16, MEM_PARAM);
    if (ws) {
        uint32_t *h = mem_host(ws, 16);
        memset(h, 0, 16);
        h[0] = 16;
    }
    return ws;
}

static int launch_run(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                      const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                      uint32_t depth, char *err, size_t errlen);

int emu_launch_flags(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     char *err, size_t errlen)
{
    return launch_run(k, grid, block, cluster, dyn_shared, args, flags, 0, err, errlen);
}

/* ---- dynamic parallelism (cdp.c) ---- */

EmuKernel *emu_kernel_from_pointer(EmuKernel *parent, uint64_t fnptr)
{
    if (!parent || fnptr < FUNC_PTR_BASE || (fnptr - FUNC_PTR_BASE) % FUNC_PTR_STEP) return NULL;
    uint64_t idx = (fnptr - FUNC_PTR_BASE) / FUNC_PTR_STEP;
    EmuModule *m = parent->mod;
    if (idx >= (uint64_t)m->ast->nfuncs) return NULL;
    const PtxFunc *f = &m->ast->funcs[idx];
    for (int i = 0; i < m->nkernels; i++)
        if (m->kernels[i].f == f) return &m->kernels[i];
    return NULL;   /* a .func, not a kernel */
}

int emu_check_child(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn,
                    char *err, size_t errlen)
{
    int rc = kernel_program(k, err, errlen);
    return rc ? rc : check_config(k, k->prog, grid, block, dyn, err, errlen);
}

int emu_launch_child(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn,
                     void **args, uint32_t depth, char *err, size_t errlen)
{
    return launch_run(k, grid, block, NULL, dyn, args, 0, depth, err, errlen);
}

/* A launch set up but not yet run: its parameters copied, its memory allocated. */
struct EmuPending {
    Launch L;
    uint64_t ev_t0;
    double t0;
    int started;   /* sched_run has begun it (it parked) */
};

static void launch_free(Launch *L)
{
    cdp_discard(L);
    if (L->param_addr) mem_free(L->param_addr, MEM_PARAM);
    if (L->grid_ws) mem_free(L->grid_ws, MEM_PARAM);
    free(L->const_rows);
    free(L->out);
    race_log_free(L->race);
    pthread_mutex_destroy(&L->lock);
}

/* Check the configuration and set up *P's launch (parameters copied). */
static int launch_prepare(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                          const unsigned cluster[3], size_t dyn_shared, void **args,
                          unsigned flags, uint32_t depth, EmuPending *P, char *err, size_t errlen)
{
    if (err && errlen) err[0] = 0;
    if (emu_init(0)) { snprintf(err, errlen, "ptxemu: no device memory arena"); return EMU_ERR_MEMORY_ALLOCATION; }
    int rc = kernel_program(k, err, errlen);
    if (rc) return rc;
    const Program *p = k->prog;
    rc = check_config(k, p, grid, block, dyn_shared, err, errlen);
    if (rc) return rc;

    Launch *L = &P->L;
    memset(L, 0, sizeof *L);
    pthread_mutex_init(&L->lock, NULL);
    L->prog = p;
    L->kernel = k;
    L->cdp_depth = depth;
    rc = cluster_shape(k, grid, cluster, L, err, errlen);
    if (rc) { pthread_mutex_destroy(&L->lock); return rc; }
    static uint64_t launches;
    L->seq = __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++) { L->grid[i] = grid[i]; L->block[i] = block[i]; }
    if (racecheck_mode) {
        L->racecheck = 1;
        if (!(L->race = race_log_new(L))) { pthread_mutex_destroy(&L->lock); return EMU_ERR_MEMORY_ALLOCATION; }
    }
    L->dyn_shared = (uint32_t)dyn_shared;
    L->shared_total = p->shared_static + (uint32_t)dyn_shared;
    L->ncta = (uint64_t)grid[0] * grid[1] * grid[2];
    if (p->uses_local) {
        size_t need = (p->frame_size + 15) & ~(size_t)15;
        /* frames here keep whole register rows of recursive functions where the GPU saves
         * only live registers: give the stack 8 times the configured size */
        L->local_stride = need + stack_size * 8;
    }
    rc = EMU_ERR_MEMORY_ALLOCATION;
    L->param_addr = mem_alloc(p->param_size ? p->param_size : 1, MEM_PARAM);
    L->const_rows = malloc((size_t)p->first_var_row * WARP_SIZE * sizeof(uint64_t));
    L->cooperative = (flags & EMU_LAUNCH_COOPERATIVE) != 0;
    if (L->cooperative) L->grid_ws = grid_workspace();
    if (!L->param_addr || !L->const_rows || (L->cooperative && !L->grid_ws)) {
        snprintf(err, errlen, "ptxemu: out of memory launching %s", k->f->name);
        launch_free(L);
        return rc;
    }
    L->params = mem_host(L->param_addr, p->param_size ? p->param_size : 1);
    for (uint32_t i = 0; i < p->nparams; i++)
        if (p->param_size_of[i]) {
            if (!args || !args[i]) {
                snprintf(err, errlen, "ptxemu: kernel %s: argument %u is missing", k->f->name, i);
                launch_free(L);
                return EMU_ERR_INVALID_VALUE;
            }
            memcpy(L->params + p->param_offset[i], args[i], p->param_size_of[i]);
        }
    for (uint32_t r = 0; r < p->first_var_row; r++)
        for (int l = 0; l < WARP_SIZE; l++) L->const_rows[r * WARP_SIZE + l] = p->row_init[r];
    for (uint32_t i = 0; i < p->nkparams; i++) {
        const KparamRow *kp = &p->kparams[i];
        uint64_t v = 0;
        memcpy(&v, L->params + kp->offset, kp->size);
        if (kp->is_signed && kp->size < 8 && (v >> (kp->size * 8 - 1) & 1)) v |= ~0ull << (kp->size * 8);
        for (int l = 0; l < WARP_SIZE; l++) L->const_rows[(size_t)kp->row * WARP_SIZE + l] = v;
    }

    if (emu_log_level >= 3)
        fprintf(stderr, "ptxemu: trace: launch %s: grid (%u,%u,%u) block (%u,%u,%u) cluster "
                "(%u,%u,%u), %u bytes of dynamic shared memory%s%s\n", k->f->name, grid[0], grid[1],
                grid[2], block[0], block[1], block[2], L->cluster[0], L->cluster[1], L->cluster[2],
                L->dyn_shared, L->cooperative ? ", cooperative" : "", depth ? ", from the device" : "");
    P->ev_t0 = ev_on ? ev_device_clock() : 0;
    P->t0 = now_s();
    profile_model_launch(L);
    return EMU_OK;
}

/* After the grid ran: its reports, its printf output, its children; then free it. */
static int launch_finish(EmuPending *P, char *err, size_t errlen)
{
    Launch *L = &P->L;
    EmuKernel *k = L->kernel;
    uint64_t ev_t0 = P->ev_t0;
    double t0 = P->t0, t1 = now_s();
    int rc;
    if (ev_on) {
        ev_launch_end();
        Event e = { .kind = EV_LAUNCH, .t0 = ev_t0, .t1 = ev_device_clock(), .launch = L->seq,
                    .name = k->f->name };
        ev_emit(&e);
        report_launch(L, k->f->name, ev_device_clock() - ev_t0);
        if (profile_print) profile_report(L, k->f->name);
    }
    profile_set_last_launch(profile_estimate_ns(L));   /* the driver's timeline model */
    if (emu_log_level >= 3)
        fprintf(stderr, "ptxemu: trace: %s finished%s: %llu warp instructions, %llu thread "
                "instructions\n", k->f->name, L->aborted ? " with a fault" : "",
                (unsigned long long)L->warp_insts, (unsigned long long)L->thread_insts);

    /* device printf output appears when the kernel completes, after earlier host output */
    if (L->out_len) {
        fflush(stdout);
        fwrite(L->out, 1, L->out_len, stdout);
        fflush(stdout);
    }
    if (L->race && race_report(L)) racecheck_found = 1;
    const char *stats = getenv("PTXEMU_STATS");
    if (stats && *stats && *stats != '0')
        fprintf(stderr, "ptxemu-stats: kernel=%s thread_insts=%llu warp_insts=%llu seconds=%.6f\n",
                k->f->name, (unsigned long long)L->thread_insts, (unsigned long long)L->warp_insts,
                t1 - t0);
    if (L->aborted) {
        snprintf(err, errlen, "%s", L->fault.msg);
        rc = L->fault.code;
    } else   /* the grid has finished: the work it launched runs now (cdp.h) */
        rc = cdp_run_children(L, err, errlen);
    launch_free(L);
    return rc;
}

static int launch_run(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                      const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                      uint32_t depth, char *err, size_t errlen)
{
    EmuPending P;
    int rc = launch_prepare(k, grid, block, cluster, dyn_shared, args, flags, depth, &P, err, errlen);
    if (rc) return rc;
    sched_run(&P.L);
    return launch_finish(&P, err, errlen);
}

int emu_launch_defer(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                     const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                     EmuPending **out, char *err, size_t errlen)
{
    EmuPending *P = malloc(sizeof *P);
    if (!P) { snprintf(err, errlen, "ptxemu: out of memory"); return EMU_ERR_MEMORY_ALLOCATION; }
    int rc = launch_prepare(k, grid, block, cluster, dyn_shared, args, flags, 0, P, err, errlen);
    if (rc) { free(P); return rc; }
    P->started = 0;
    *out = P;
    return EMU_OK;
}

int emu_launch_park(EmuKernel *k, const unsigned grid[3], const unsigned block[3],
                    const unsigned cluster[3], size_t dyn_shared, void **args, unsigned flags,
                    EmuPending **parked, char *err, size_t errlen)
{
    *parked = NULL;
    EmuPending *P;
    int rc = emu_launch_defer(k, grid, block, cluster, dyn_shared, args, flags, &P, err, errlen);
    if (rc) return rc;
    int again;
    rc = emu_launch_resume(P, 1, &again, err, errlen);
    if (again) *parked = P;
    return rc;
}

int emu_launch_resume(EmuPending *P, int may_park, int *parked, char *err, size_t errlen)
{
    if (!P->started) {
        P->started = 1;
        P->L.may_park = may_park;
        sched_run(&P->L);
    } else {
        sched_resume(&P->L, may_park);
    }
    *parked = P->L.park_buf != NULL;
    if (*parked) return EMU_OK;
    int rc = launch_finish(P, err, errlen);
    free(P);
    return rc;
}

void emu_launch_discard(EmuPending *P)
{
    sched_discard(&P->L);
    launch_free(&P->L);
    free(P);
}

void emu_launch_together(EmuPending **p, int n, int *rc, char (*err)[EMU_ERR_LEN])
{
    Launch *Ls[EMU_MAX_TOGETHER];
    if (n > EMU_MAX_TOGETHER) n = EMU_MAX_TOGETHER;
    for (int i = 0; i < n; i++) Ls[i] = &p[i]->L;
    sched_run_together(Ls, n);
    for (int i = 0; i < n; i++) {
        rc[i] = launch_finish(p[i], err[i], EMU_ERR_LEN);
        free(p[i]);
    }
}
