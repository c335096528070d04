/* module.c - modules and libraries, their functions (kernels) and globals, and JIT linking.
 *
 * A module (cuModuleLoad*) belongs to the context it was loaded in; a library (cuLibrary*)
 * to none: both are one DrvModule over one emulator module. A library's handle is also its
 * module handle (cuLibraryGetModule), and a kernel handle is also its function handle
 * (cuKernelGetFunction), since there is one device. A module keeps its PTX so that a
 * library can be loaded again after its context was reset (its variables start afresh;
 * one whose managed variables the program points at is kept instead).
 *
 * PTX is parsed when the module loads (malformed PTX fails the load with its file:line) and
 * each kernel is translated at its first use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/driver/drv.h"
#include "runtime/driver/image.h"
#include "runtime/driver/jitlog.h"

struct DrvModule {
    char *ptxas;                /* ptxas's report on the texts, once asked for; "" if none */
    JitModule *em;
    CUcontext ctx;              /* NULL for a library                                     */
    int library;
    int keep;                   /* managed variables are in use: never reload             */
    Image img;                  /* the PTX, to load again after a reset                   */
    CUfunction *funcs;          /* handed out so far                                      */
    int nfuncs, capfuncs;
    DrvModule *next;
};

static DrvModule *modules;      /* every live module and library */

/* ---- JIT options: the log buffers and the wall time are outputs the program reads ---- */

typedef struct Jit {
    char *info, *error;
    size_t info_size, error_size;
    size_t *info_size_out, *error_size_out;
    float *wall;
    int verbose;                /* CU_JIT_LOG_VERBOSE: the info log reports each kernel */
    unsigned max_regs;          /* CU_JIT_MAX_REGISTERS: ptxas's --maxrregcount, 0 none */
} Jit;

static void jit_read(Jit *j, unsigned n, const CUjit_option *opts, void **vals)
{
    memset(j, 0, sizeof *j);
    for (unsigned i = 0; opts && vals && i < n; i++) {
        switch (opts[i]) {
        case CU_JIT_INFO_LOG_BUFFER: j->info = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER: j->error = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            j->info_size = (size_t)(uintptr_t)vals[i];
            j->info_size_out = (size_t *)&vals[i];
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            j->error_size = (size_t)(uintptr_t)vals[i];
            j->error_size_out = (size_t *)&vals[i];
            break;
        case CU_JIT_WALL_TIME: j->wall = (float *)&vals[i]; break;
        case CU_JIT_LOG_VERBOSE: j->verbose = vals[i] != NULL; break;
        case CU_JIT_MAX_REGISTERS: j->max_regs = (unsigned)(uintptr_t)vals[i]; break;
        default: break;   /* targets, optimisation levels, caches: nothing to tune here */
        }
    }
}

/* Write msg into a log buffer of `size` bytes; the size option then holds what was written. */
static void jit_log(char *buf, size_t size, size_t *size_out, const char *msg)
{
    if (!buf || !size) return;
    snprintf(buf, size, "%s", msg);
    if (size_out) *size_out = strlen(buf) + 1;
}

static void jit_done(Jit *j, const char *error, double ms, const char *info)
{
    jit_log(j->error, j->error_size, j->error_size_out, error ? error : "");
    jit_log(j->info, j->info_size, j->info_size_out, info ? info : "");
    if (j->wall) *j->wall = (float)ms;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CU_JIT_MAX_REGISTERS: ptxas is told the limit for every text, with the options the text
 * carries already (image_add_option), so that the registers reported are what the GPU's JIT
 * gives the kernels. */
static int jit_max_regs(Image *im, unsigned n)
{
    char opt[48];
    snprintf(opt, sizeof opt, "--maxrregcount %u", n);
    return image_add_option(im, opt);
}

/* ---- loading ---- */

/* Parse (and link) the image's texts into an emulator module. */
static CUresult load_em(const Image *im, JitModule **out, char *err, size_t errlen)
{
    int cerr = EMU_ERR_INVALID_PTX;
    err[0] = 0;
    *out = jit_module_link((const char *const *)im->text, im->len, (const char *const *)im->name,
                           im->n, err, errlen, &cerr);
    if (*out) return CUDA_SUCCESS;
    return drv_from_emu(cerr != EMU_OK ? cerr : EMU_ERR_INVALID_PTX);
}

static CUresult module_new(const void *image, CUcontext ctx, int library, Jit *jit,
                           DrvModule **out)
{
    char err[4096];
    double t0 = now_ms();
    Image im;
    CUresult e = image_read(image, &im, err, sizeof err);
    if (e == CUDA_SUCCESS && jit && jit->max_regs && jit_max_regs(&im, jit->max_regs))
        e = CUDA_ERROR_OUT_OF_MEMORY;
    JitModule *em = NULL;
    if (e == CUDA_SUCCESS) e = load_em(&im, &em, err, sizeof err);
    if (e != CUDA_SUCCESS) {
        image_free(&im);
        if (!err[0]) snprintf(err, sizeof err, "cannot load the module");
        drv_diag("%s", err);
        if (jit) jit_done(jit, err, now_ms() - t0, NULL);
        return e;
    }
    DrvModule *m = calloc(1, sizeof *m);
    if (!m || drv_handle_add(m, H_MODULE)) {
        free(m);
        jit_module_free(em);
        image_free(&im);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->em = em;
    m->ctx = ctx;
    m->library = library;
    m->img = im;
    m->next = modules;
    modules = m;
    if (jit) jit_done(jit, NULL, now_ms() - t0, NULL);
    *out = m;
    return CUDA_SUCCESS;
}

/* The registers ptxas gives f's kernel, or -1 without ptxas: ptxas runs once a module, the
 * first time a program asks for occupancy or attributes. Caller holds the lock. */
int drv_func_ptxas_regs(CUfunction f)
{
    DrvModule *m = f->mod;
    if (!m->ptxas) {
        char *rep = jitlog_ptxas_report((const char *const *)m->img.text, m->img.n);
        m->ptxas = rep ? rep : strdup("");
        if (!m->ptxas) return -1;
    }
    return jitlog_regs(m->ptxas, f->name);
}

/* A library reset with its context is loaded again when next used. */
static CUresult module_em(DrvModule *m)
{
    if (m->em) return CUDA_SUCCESS;
    char err[4096];
    CUresult e = load_em(&m->img, &m->em, err, sizeof err);
    if (e != CUDA_SUCCESS) drv_diag("%s", err);
    return e;
}

static void module_free(DrvModule *m)
{
    for (DrvModule **pp = &modules; *pp; pp = &(*pp)->next)
        if (*pp == m) { *pp = m->next; break; }
    for (int i = 0; i < m->nfuncs; i++) {
        drv_handle_del(m->funcs[i]);
        free(m->funcs[i]->name);
        free(m->funcs[i]);
    }
    free(m->funcs);
    drv_handle_del(m);
    if (m->em) jit_module_free(m->em);
    image_free(&m->img);
    free(m->ptxas);
    free(m);
}

void drv_modules_release_ctx(CUcontext c)
{
    for (DrvModule *m = modules, *n; m; m = n) {
        n = m->next;
        if (!m->library && m->ctx == c) module_free(m);
    }
}

/* The primary context was reset: libraries start afresh (kernels translated again, variables
 * initialised again), except those whose managed variables the program holds. */
void drv_libraries_reset(void)
{
    for (DrvModule *m = modules; m; m = m->next) {
        if (!m->library || m->keep || !m->em) continue;
        for (int i = 0; i < m->nfuncs; i++) {
            m->funcs[i]->k = NULL;
            m->funcs[i]->max_dyn = -1;
            m->funcs[i]->carveout = -1;
            m->funcs[i]->reported = 0;
        }
        jit_module_free(m->em);
        m->em = NULL;
    }
}

static DrvModule *module_live(const void *h)
{
    return h && drv_handle_kind(h) == H_MODULE ? (DrvModule *)h : NULL;
}

/* A live module's context (NULL for a library, or when not live), for drv_ctx_enter_owner. */
static CUcontext module_owner(const void *h)
{
    drv_lock();
    DrvModule *m = module_live(h);
    CUcontext c = m ? m->ctx : NULL;
    drv_unlock();
    return c;
}

/* Module calls: current context (modules) or just cuInit (libraries), then the lock. */
static CUresult enter(int need_ctx, CUcontext *c)
{
    *c = NULL;
    if (need_ctx) return drv_ctx_enter(c);
    return drv_is_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

static CUresult load(CUmodule *out, const void *image, int library, Jit *jit)
{
    if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult e = enter(!library, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    DrvModule *m = NULL;
    e = module_new(image, library ? NULL : c, library, jit, &m);
    drv_unlock();
    if (e == CUDA_SUCCESS) *out = (CUmodule)(void *)m;
    return e;
}

static void *read_whole(const char *path, CUresult *e, size_t *size)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        *e = CUDA_ERROR_FILE_NOT_FOUND;
        return NULL;
    }
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap + 1);
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb) { free(b); b = NULL; break; }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!b) { *e = CUDA_ERROR_OUT_OF_MEMORY; return NULL; }
    b[n] = 0;   /* PTX files are text */
    *e = CUDA_SUCCESS;
    if (size) *size = n;
    return b;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    return load(module, image, 0, NULL);
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues)
{
    Jit j;
    jit_read(&j, numOptions, options, optionValues);
    return load(module, image, 0, &j);
}

CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return load(module, fatCubin, 0, NULL);
}

CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!module || !fname) return CUDA_ERROR_INVALID_VALUE;
    void *b = read_whole(fname, &e, NULL);
    if (!b) return e;
    e = load(module, b, 0, NULL);
    free(b);
    return e;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    CUcontext c;
    CUresult e = drv_ctx_enter_owner(module_owner(hmod), 0, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    DrvModule *m = module_live(hmod);
    int ours = m && !m->library;   /* a library's module goes with the library */
    if (ours) drv_queue_drop_module(m);
    if (ours) module_free(m);
    drv_unlock();
    return ours ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Modules are parsed when loaded; kernels are translated at their first use. */
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    *mode = CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- functions ---- */

static CUfunction func_get(DrvModule *m, const char *name, CUresult *e)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name)) return m->funcs[i];
    if ((*e = module_em(m)) != CUDA_SUCCESS) return NULL;
    if (!jit_module_kernel(m->em, name)) {
        *e = CUDA_ERROR_NOT_FOUND;
        return NULL;
    }
    if (m->nfuncs == m->capfuncs) {
        int nc = m->capfuncs ? m->capfuncs * 2 : 8;
        CUfunction *nf = realloc(m->funcs, (size_t)nc * sizeof *nf);
        if (!nf) { *e = CUDA_ERROR_OUT_OF_MEMORY; return NULL; }
        m->funcs = nf;
        m->capfuncs = nc;
    }
    CUfunction f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name)) || drv_handle_add(f, H_FUNC)) {
        if (f) free(f->name);
        free(f);
        *e = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    f->mod = m;
    f->max_dyn = -1;
    f->carveout = -1;
    m->funcs[m->nfuncs++] = f;
    *e = CUDA_SUCCESS;
    return f;
}

static CUresult get_function(CUfunction *out, const void *h, const char *name, int need_ctx)
{
    if (!out || !name) return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult e = need_ctx ? drv_ctx_enter_owner(module_owner(h), 1, &c) : enter(0, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    DrvModule *m = module_live(h);
    CUfunction f = m ? func_get(m, name, &e) : NULL;
    drv_unlock();
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (f) *out = f;
    return e;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    return get_function(hfunc, hmod, name, 1);
}

CUresult CUDAAPI cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    DrvModule *m = module_live(mod);
    CUresult e = m ? module_em(m) : CUDA_ERROR_INVALID_HANDLE;
    if (e == CUDA_SUCCESS) *count = (unsigned)jit_module_kernel_count(m->em);
    drv_unlock();
    return e;
}

static CUresult enumerate(CUfunction *fns, unsigned n, const void *h)
{
    if (!fns) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    DrvModule *m = module_live(h);
    CUresult e = m ? module_em(m) : CUDA_ERROR_INVALID_HANDLE;
    for (unsigned i = 0; e == CUDA_SUCCESS && i < n; i++) {
        EmuKernel *k = jit_module_kernel_at(m->em, (int)i);
        if (!k) break;
        CUfunction f = func_get(m, jit_kernel_name(k), &e);
        if (f) fns[i] = f;
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions,
                                            CUmodule mod)
{
    return enumerate(functions, numFunctions, mod);
}

/* Caller holds the lock. Says once, per function, why it cannot run. */
CUresult drv_func_kernel(CUfunction f, EmuKernel **k, JitKernelInfo *info)
{
    CUresult e = module_em(f->mod);
    if (e != CUDA_SUCCESS) return e;
    if (!f->k) f->k = jit_module_kernel(f->mod->em, f->name);
    if (!f->k) return CUDA_ERROR_NOT_FOUND;
    if (jit_kernel_info(f->k, info) != EMU_OK) {
        if (!f->reported)
            drv_diag("cannot translate kernel %s: %s", f->name, jit_kernel_error(f->k));
        f->reported = 1;
        return CUDA_ERROR_INVALID_PTX;
    }
    *k = f->k;
    return CUDA_SUCCESS;
}

/* By default a kernel may use 48 KB of shared memory in all, static included. */
size_t drv_func_max_dyn(CUfunction f, const JitKernelInfo *info)
{
    if (f->max_dyn >= 0) return (size_t)f->max_dyn;
    return info->shared_static >= DRV_SMEM_PER_BLOCK ? 0 : DRV_SMEM_PER_BLOCK - info->shared_static;
}

static CUfunction func_live(const void *h)
{
    return h && drv_handle_kind(h) == H_FUNC ? (CUfunction)h : NULL;
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(hfunc);
    if (f) *name = f->name;
    drv_unlock();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel hfunc)
{
    return cuFuncGetName(name, (CUfunction)(void *)hfunc);
}

CUresult CUDAAPI cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    if (!hmod) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(hfunc);
    if (f) *hmod = (CUmodule)(void *)f->mod;
    drv_unlock();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
    if (!pLib) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(kernel);
    if (f) *pLib = (CUlibrary)(void *)f->mod;
    drv_unlock();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult param_info(CUfunction hfunc, size_t index, size_t *off, size_t *size)
{
    if (!off && !size) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(hfunc);
    EmuKernel *k;
    JitKernelInfo info;
    CUresult e = f ? drv_func_kernel(f, &k, &info) : CUDA_ERROR_INVALID_HANDLE;
    if (e == CUDA_SUCCESS && index >= (size_t)info.nparams) e = CUDA_ERROR_INVALID_VALUE;
    if (e == CUDA_SUCCESS) {
        if (off) *off = info.param_offset[index];
        if (size) *size = info.param_size[index];
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                                    size_t *paramSize)
{
    return param_info(func, paramIndex, paramOffset, paramSize);
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                                      size_t *paramSize)
{
    return param_info((CUfunction)(void *)kernel, paramIndex, paramOffset, paramSize);
}

CUresult CUDAAPI cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    if (!state) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(function);
    if (f) *state = f->mod->em ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
    drv_unlock();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuFuncLoad(CUfunction function)
{
    drv_lock();
    CUfunction f = func_live(function);
    CUresult e = f ? module_em(f->mod) : CUDA_ERROR_INVALID_HANDLE;
    drv_unlock();
    return e;
}

/* ---- globals ---- */

static CUresult get_global(CUdeviceptr *dptr, size_t *bytes, const void *h, const char *name,
                           int need_ctx, int managed)
{
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    CUresult e = enter(need_ctx, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    DrvModule *m = module_live(h);
    e = m ? module_em(m) : CUDA_ERROR_INVALID_HANDLE;
    uint64_t addr = 0;
    size_t size = 0;
    if (e == CUDA_SUCCESS && jit_module_symbol(m->em, name, &addr, &size) != 0) e = CUDA_ERROR_NOT_FOUND;
    if (e == CUDA_SUCCESS) {
        if (dptr) *dptr = (CUdeviceptr)addr;
        if (bytes) *bytes = size;
        if (managed) m->keep = 1;   /* the program now holds pointers into it */
    }
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    return get_global(dptr, bytes, hmod, name, 1, 0);
}

/* ---- libraries ---- */

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                   void **jitOptionsValues, unsigned int numJitOptions,
                                   CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                   unsigned int numLibraryOptions)
{
    (void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
    Jit j;
    jit_read(&j, numJitOptions, jitOptions, jitOptionsValues);
    return load((CUmodule *)(void *)library, code, 1, &j);
}

CUresult CUDAAPI cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                       CUjit_option *jitOptions, void **jitOptionsValues,
                                       unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                                       void **libraryOptionValues, unsigned int numLibraryOptions)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!library || !fileName) return CUDA_ERROR_INVALID_VALUE;
    CUresult e;
    void *b = read_whole(fileName, &e, NULL);
    if (!b) return e;
    e = cuLibraryLoadData(library, b, jitOptions, jitOptionsValues, numJitOptions,
                          libraryOptions, libraryOptionValues, numLibraryOptions);
    free(b);
    return e;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
    if (!drv_is_initialized()) return CUDA_ERROR_NOT_INITIALIZED;
    drv_lock();
    DrvModule *m = module_live(library);
    int ok = m && m->library;
    if (ok) drv_queue_drop_module(m);
    if (ok) module_free(m);
    drv_unlock();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    return get_function((CUfunction *)(void *)pKernel, library, name, 0);
}

CUresult CUDAAPI cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    return cuModuleGetFunctionCount(count, (CUmodule)(void *)lib);
}

CUresult CUDAAPI cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib)
{
    return enumerate((CUfunction *)(void *)kernels, numKernels, lib);
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pMod) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    DrvModule *m = module_live(library);
    if (m) *pMod = (CUmodule)(void *)m;
    drv_unlock();
    return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
    drv_lock();
    CUfunction f = func_live(kernel);
    if (f) *pFunc = f;
    drv_unlock();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                    const char *name)
{
    return get_global(dptr, bytes, library, name, 1, 0);
}

CUresult CUDAAPI cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                     const char *name)
{
    return get_global(dptr, bytes, library, name, 0, 1);
}

/* ---- JIT linking: the texts are kept and linked when the result is loaded ---- */

struct CUlinkState_st {
    Image img;
    void *out;                  /* cuLinkComplete's image, owned until cuLinkDestroy */
    Jit jit;
};

static struct CUlinkState_st *link_live(CUlinkState s)
{
    return s && drv_handle_kind(s) == H_LINK ? s : NULL;
}

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                 CUlinkState *stateOut)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    if (!stateOut) return CUDA_ERROR_INVALID_VALUE;
    struct CUlinkState_st *s = calloc(1, sizeof *s);
    if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
    jit_read(&s->jit, numOptions, options, optionValues);
    drv_lock();
    int bad = drv_handle_add(s, H_LINK);
    drv_unlock();
    if (bad) { free(s); return CUDA_ERROR_OUT_OF_MEMORY; }
    *stateOut = s;
    return CUDA_SUCCESS;
}

/* Each input may itself hold several texts (a fatbinary of an -rdc program, a linked image). */
CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    (void)numOptions; (void)options; (void)optionValues;
    if (!data || !size) return CUDA_ERROR_INVALID_VALUE;
    if (type == CU_JIT_INPUT_NVVM) {
        drv_diag("cuLinkAddData: NVVM IR cannot be linked by ptxemu: it links PTX (compile it "
                 "with libNVVM first)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    drv_lock();
    struct CUlinkState_st *s = link_live(state);
    CUresult e = s ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    Image part;
    memset(&part, 0, sizeof part);
    char err[4096] = "";
    if (e == CUDA_SUCCESS) {
        if (type == CU_JIT_INPUT_PTX) {
            char nm[320];
            snprintf(nm, sizeof nm, "%s", name && *name ? name : "linked.ptx");
            /* PTX need not be NUL-terminated within size */
            size_t len = strnlen(data, size);
            e = image_add(&part, data, len, nm) ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
        } else if (type == CU_JIT_INPUT_LIBRARY) {
            e = image_read_archive(data, size, name && *name ? name : "library", &part, err, sizeof err);
        } else if (type == CU_JIT_INPUT_OBJECT) {
            e = image_read_object(data, size, name && *name ? name : "object", &part, err, sizeof err);
        } else {
            e = image_read(data, &part, err, sizeof err);
        }
    }
    for (int i = 0; e == CUDA_SUCCESS && i < part.n; i++)
        if (image_add(&s->img, part.text[i], part.len[i], part.name[i])) e = CUDA_ERROR_OUT_OF_MEMORY;
    image_free(&part);
    drv_unlock();
    if (err[0]) {
        drv_diag("cuLinkAddData(%s): %s", name ? name : "input", err);
        if (s) jit_done(&s->jit, err, 0, NULL);
    }
    return e;
}

CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                  unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    CUresult e;
    size_t n = 0;
    void *b = read_whole(path, &e, &n);
    if (!b) return e;
    const char *slash = path ? strrchr(path, '/') : NULL;
    /* archives and objects are binary: their whole size; texts end at their first NUL */
    int binary = type == CU_JIT_INPUT_LIBRARY || type == CU_JIT_INPUT_OBJECT;
    e = cuLinkAddData_v2(state, type, b, binary ? (n ? n : 1) : strlen(b) ? strlen(b) + 1 : 1,
                         slash ? slash + 1 : path, numOptions, options, optionValues);
    free(b);
    return e;
}

/* Links now, so that errors (an undefined .extern) come back from this call, then hands out
 * the texts as ptxemu's linked image for cuModuleLoadData. */
CUresult CUDAAPI cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    if (!cubinOut || !sizeOut) return CUDA_ERROR_INVALID_VALUE;
    double t0 = now_ms();
    drv_lock();
    struct CUlinkState_st *s = link_live(state);
    CUresult e = s ? (s->img.n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE) : CUDA_ERROR_INVALID_HANDLE;
    char err[4096] = "";
    JitModule *em = NULL;
    if (e == CUDA_SUCCESS) e = load_em(&s->img, &em, err, sizeof err);
    char *info = NULL;
    if (em && s->jit.verbose && s->jit.info)
        info = jitlog_verbose((const char *const *)s->img.text, s->img.n, em);
    if (em) jit_module_free(em);
    /* measured: an undefined .extern fails the link with CUDA_ERROR_UNKNOWN */
    if (e == CUDA_ERROR_INVALID_PTX && strstr(err, "link error")) e = CUDA_ERROR_UNKNOWN;
    if (e == CUDA_SUCCESS && s->jit.max_regs && jit_max_regs(&s->img, s->jit.max_regs))
        e = CUDA_ERROR_OUT_OF_MEMORY;
    if (e == CUDA_SUCCESS) {
        free(s->out);
        s->out = image_pack(&s->img, sizeOut);
        e = s->out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (s->out) *cubinOut = s->out;
    }
    if (s) jit_done(&s->jit, err[0] ? err : NULL, now_ms() - t0, info);
    free(info);
    drv_unlock();
    if (err[0]) drv_diag("%s", err);
    return e;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state)
{
    drv_lock();
    struct CUlinkState_st *s = link_live(state);
    if (s) drv_handle_del(s);
    drv_unlock();
    if (!s) return CUDA_ERROR_INVALID_HANDLE;
    image_free(&s->img);
    free(s->out);
    free(s);
    return CUDA_SUCCESS;
}
