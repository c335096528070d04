/* registry.c - what nvcc's generated constructors register: fatbinaries, kernels, variables.
 *
 * A fatbinary's PTX is parsed lazily, at the first launch or symbol access that needs it
 * (as CUDA's lazy module loading does), so a broken module costs nothing until used. A load
 * failure is remembered: every launch of that module's kernels returns it, and its
 * diagnostic is printed once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/cudart_internal.h"
#include "frontend/fatbin.h"

typedef struct RtFatbin {
    const void *wrapper;        /* what nvcc passed to __cudaRegisterFatBinary           */
    FatbinPtx ptx;              /* kept while the module lives                           */
    int have_ptx;
    EmuModule *mod;
    cudaError_t load_err;       /* remembered failure of the last load                   */
} RtFatbin;

#define RT_FUNC_MAGIC 0x46756e63u   /* "Func": tells our handles from stray pointers     */

struct RtFunc {
    uint32_t magic;
    RtFatbin *fb;
    const void *stub;           /* host stub address: the program's name for the kernel  */
    char *name;                 /* mangled .entry name                                   */
    EmuKernel *k;
    size_t max_dyn;             /* cudaFuncAttributeMaxDynamicSharedMemorySize           */
    int max_dyn_set;
    int carveout;               /* cudaFuncAttributePreferredSharedMemoryCarveout        */
    int nonportable;            /* cudaFuncAttributeNonPortableClusterSizeAllowed        */
    int reported;
};

int rt_func_nonportable(const RtFunc *f) { return f->nonportable; }
void rt_func_set_nonportable(RtFunc *f, int on) { f->nonportable = on; }

typedef struct RtVar {
    RtFatbin *fb;
    const void *shadow;         /* host shadow address (for managed: the pointer's home) */
    char *name;
    size_t size;
    void **managed_ptr;         /* managed variables: host pointer to point at the data  */
    uint64_t addr;              /* device address once resolved, else 0                  */
} RtVar;

static RtFunc **rt_funcs;
static size_t rt_nfuncs, rt_cap_funcs;
static RtVar **rt_vars;
static size_t rt_nvars, rt_cap_vars;
static RtFatbin **rt_fatbins;
static size_t rt_nfatbins, rt_cap_fatbins;

/* Append p to a growable pointer array; 0 on success. */
static int rt_push(void ***arr, size_t *n, size_t *cap, void *p)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        void **na = realloc(*arr, nc * sizeof *na);
        if (!na) return -1;
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = p;
    return 0;
}

static cudaError_t rt_fatbin_error(int rc)
{
    switch (rc) {
    case FATBIN_ERR_NO_PTX: return cudaErrorNoKernelImageForDevice;
    case FATBIN_ERR_NOMEM: return cudaErrorMemoryAllocation;
    default: return cudaErrorInvalidKernelImage;
    }
}

/* Point the host pointers of the module's managed variables at their device storage. */
static void rt_fatbin_bind_managed(RtFatbin *fb)
{
    for (size_t i = 0; i < rt_nvars; i++) {
        RtVar *v = rt_vars[i];
        uint64_t addr;
        size_t size;
        if (v->fb != fb || !v->managed_ptr) continue;
        if (emu_module_symbol(fb->mod, v->name, &addr, &size) == 0) {
            *v->managed_ptr = (void *)(uintptr_t)addr;
            v->addr = addr;
            v->size = size;
        }
    }
}

/* The name diagnostics give the PTX: "<cuda file>.ptx" when nvcc recorded the source
 * file (-lineinfo, -G), else "<program>.ptx". With PTXEMU_DUMP_PTX=DIR the text is also
 * written to DIR/<that name>, so "PTX line N" in a message can be looked up. */
static void rt_ptx_name(const RtFatbin *fb, char *out, size_t n)
{
    const char *base = fb->ptx.name;
    char exe[256] = "program";
    if (!strcmp(base, "fatbin")) {
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k > 0) exe[k] = 0;
        const char *slash = strrchr(exe, '/');
        base = slash ? slash + 1 : exe;
    } else {
        const char *slash = strrchr(base, '/');
        if (slash) base = slash + 1;
    }
    snprintf(out, n, "%s.ptx", base);
    const char *dir = getenv("PTXEMU_DUMP_PTX");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, out);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(fb->ptx.text, 1, fb->ptx.len, f) != fb->ptx.len)
        rt_diag("cannot write the PTX to %s", path);
    if (f) fclose(f);
}

/* Parse the fatbinary's PTX into a module; caller holds the lock. */
static cudaError_t rt_fatbin_load(RtFatbin *fb)
{
    if (fb->mod) return cudaSuccess;
    if (fb->load_err != cudaSuccess) return fb->load_err;
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return e;
    char err[4096] = "";
    int rc = fatbin_pick_ptx(fb->wrapper, &fb->ptx, err, sizeof err);
    if (rc != FATBIN_OK) {
        fb->load_err = rt_fatbin_error(rc);
        rt_diag("%s", err[0] ? err : "cannot read the program's fatbinary");
        return fb->load_err;
    }
    fb->have_ptx = 1;
    int cerr = cudaErrorInvalidPtx;
    err[0] = 0;
    char name[300];
    rt_ptx_name(fb, name, sizeof name);
    fb->mod = emu_module_load(fb->ptx.text, fb->ptx.len, name, err, sizeof err, &cerr);
    if (!fb->mod) {
        fb->load_err = cerr != cudaSuccess ? (cudaError_t)cerr : cudaErrorInvalidPtx;
        rt_diag("%s", err[0] ? err : "cannot load the program's PTX");
        fatbin_free(&fb->ptx);
        fb->have_ptx = 0;
        return fb->load_err;
    }
    rt_fatbin_bind_managed(fb);
    return cudaSuccess;
}

static void rt_fatbin_unload(RtFatbin *fb)
{
    if (fb->mod) emu_module_free(fb->mod);
    fb->mod = NULL;
    if (fb->have_ptx) fatbin_free(&fb->ptx);
    fb->have_ptx = 0;
    fb->load_err = cudaSuccess;
}

/* ---- the entry points nvcc's host code calls ---- */

void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);
void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                      char *deviceFun, const char *deviceName, int thread_limit,
                                      uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                                      int *wSize);
void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                 const char *deviceName, int ext, size_t size, int constant,
                                 int global);
void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                        char *deviceAddress, const char *deviceName, int ext,
                                        size_t size, int constant, int global);
char CUDARTAPI __cudaInitModule(void **fatCubinHandle);

/* The handle the program keeps is our RtFatbin. */
void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin)
{
    RtFatbin *fb = calloc(1, sizeof *fb);
    if (!fb) {
        rt_diag("out of memory registering a fatbinary");
        return NULL;
    }
    fb->wrapper = fatCubin;
    rt_lock();
    int bad = rt_push((void ***)&rt_fatbins, &rt_nfatbins, &rt_cap_fatbins, fb);
    rt_unlock();
    if (bad) {
        rt_diag("out of memory registering a fatbinary");
        free(fb);
        return NULL;
    }
    return (void **)fb;
}

void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;   /* loading is lazy: nothing to finish here */
}

/* Drop the fatbinary's kernels and variables from the tables, keeping order irrelevant. */
static void rt_forget_fatbin(RtFatbin *fb)
{
    for (size_t i = 0; i < rt_nfuncs;) {
        RtFunc *f = rt_funcs[i];
        if (f->fb != fb) { i++; continue; }
        f->magic = 0;
        free(f->name);
        free(f);
        rt_funcs[i] = rt_funcs[--rt_nfuncs];
    }
    for (size_t i = 0; i < rt_nvars;) {
        RtVar *v = rt_vars[i];
        if (v->fb != fb) { i++; continue; }
        free(v->name);
        free(v);
        rt_vars[i] = rt_vars[--rt_nvars];
    }
}

void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    RtFatbin *fb = (RtFatbin *)fatCubinHandle;
    if (!fb) return;
    rt_lock();
    rt_forget_fatbin(fb);
    for (size_t i = 0; i < rt_nfatbins; i++)
        if (rt_fatbins[i] == fb) {
            rt_fatbins[i] = rt_fatbins[--rt_nfatbins];
            break;
        }
    rt_fatbin_unload(fb);
    free(fb);
    rt_unlock();
}

void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                      char *deviceFun, const char *deviceName, int thread_limit,
                                      uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                                      int *wSize)
{
    (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    const char *name = deviceName ? deviceName : deviceFun;
    RtFunc *f = calloc(1, sizeof *f);
    if (!fatCubinHandle || !name || !f || !(f->name = strdup(name))) {
        rt_diag("cannot register kernel %s", name ? name : "(unnamed)");
        free(f);
        return;
    }
    f->magic = RT_FUNC_MAGIC;
    f->fb = (RtFatbin *)fatCubinHandle;
    f->stub = hostFun;
    f->carveout = -1;
    rt_lock();
    if (rt_push((void ***)&rt_funcs, &rt_nfuncs, &rt_cap_funcs, f)) {
        rt_diag("cannot register kernel %s", name);
        free(f->name);
        free(f);
    }
    rt_unlock();
}

static void rt_add_var(void **handle, const void *shadow, void **managed_ptr, const char *name,
                       size_t size)
{
    RtVar *v = calloc(1, sizeof *v);
    if (!handle || !name || !v || !(v->name = strdup(name))) {
        rt_diag("cannot register device variable %s", name ? name : "(unnamed)");
        free(v);
        return;
    }
    v->fb = (RtFatbin *)handle;
    v->shadow = shadow;
    v->managed_ptr = managed_ptr;
    v->size = size;
    rt_lock();
    if (rt_push((void ***)&rt_vars, &rt_nvars, &rt_cap_vars, v)) {
        rt_diag("cannot register device variable %s", name);
        free(v->name);
        free(v);
    }
    rt_unlock();
}

void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                 const char *deviceName, int ext, size_t size, int constant,
                                 int global)
{
    (void)ext; (void)constant; (void)global;
    rt_add_var(fatCubinHandle, hostVar, NULL, deviceName ? deviceName : deviceAddress, size);
}

void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                        char *deviceAddress, const char *deviceName, int ext,
                                        size_t size, int constant, int global)
{
    (void)ext; (void)constant; (void)global;
    rt_add_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress,
               deviceName ? deviceName : deviceAddress, size);
}

/* Called by host code before it first touches a __managed__ variable: the module must be
 * loaded so that the variable's host pointer is set. Returns 1 when that is done. */
char CUDARTAPI __cudaInitModule(void **fatCubinHandle)
{
    RtFatbin *fb = (RtFatbin *)fatCubinHandle;
    if (!fb) return 0;
    rt_lock();
    cudaError_t e = rt_fatbin_load(fb);
    rt_unlock();
    return e == cudaSuccess;
}

/* ---- lookups for the rest of the runtime (caller holds the lock) ---- */

RtFunc *rt_func_by_stub(const void *stub)
{
    for (size_t i = 0; i < rt_nfuncs; i++)
        if (rt_funcs[i]->stub == stub) return rt_funcs[i];
    return NULL;
}

RtFunc *rt_func_by_handle(const void *handle)
{
    for (size_t i = 0; i < rt_nfuncs; i++)
        if (rt_funcs[i] == handle) return rt_funcs[i];
    return NULL;
}

const char *rt_func_name(const RtFunc *f)
{
    return f->name;
}

cudaError_t rt_func_kernel(RtFunc *f, EmuKernel **out)
{
    if (!f->k) {
        cudaError_t e = rt_fatbin_load(f->fb);
        if (e != cudaSuccess) return e;
        f->k = emu_module_kernel(f->fb->mod, f->name);
        if (!f->k) {
            if (rt_func_report_once(f))
                rt_diag("kernel %s is not in the program's PTX", f->name);
            return cudaErrorInvalidDeviceFunction;
        }
    }
    *out = f->k;
    return cudaSuccess;
}

/* By default a kernel may use 48 KB of shared memory in all, static included. */
size_t rt_func_max_dyn_smem(const RtFunc *f, const EmuKernelInfo *info)
{
    if (f->max_dyn_set) return f->max_dyn;
    return info->shared_static >= RT_SMEM_PER_BLOCK ? 0 : RT_SMEM_PER_BLOCK - info->shared_static;
}

void rt_func_set_max_dyn_smem(RtFunc *f, size_t bytes)
{
    f->max_dyn = bytes;
    f->max_dyn_set = 1;
}

int rt_func_carveout(const RtFunc *f)
{
    return f->carveout;
}

void rt_func_set_carveout(RtFunc *f, int pct)
{
    f->carveout = pct;
}

int rt_func_report_once(RtFunc *f)
{
    if (f->reported) return 0;
    f->reported = 1;
    return 1;
}

static RtVar *rt_var_find(const void *symbol)
{
    for (size_t i = 0; i < rt_nvars; i++)
        if (rt_vars[i]->shadow == symbol) return rt_vars[i];
    /* host code names a __managed__ variable by its data address, not by the shadow */
    for (size_t i = 0; i < rt_nvars; i++)
        if (rt_vars[i]->addr && rt_vars[i]->addr == (uint64_t)(uintptr_t)symbol)
            return rt_vars[i];
    return NULL;
}

cudaError_t rt_symbol(const void *symbol, uint64_t *addr, size_t *size)
{
    RtVar *v = symbol ? rt_var_find(symbol) : NULL;
    if (!v) return cudaErrorInvalidSymbol;
    if (!v->addr) {
        cudaError_t e = rt_fatbin_load(v->fb);
        if (e != cudaSuccess) return e;
        size_t sz;
        if (emu_module_symbol(v->fb->mod, v->name, &v->addr, &sz) != 0 || !v->addr) {
            v->addr = 0;
            return cudaErrorInvalidSymbol;
        }
        v->size = sz;
    }
    *addr = v->addr;
    *size = v->size;
    return cudaSuccess;
}

/* cudaDeviceReset destroys the context: modules go and are loaded again on demand, except
 * those with managed variables, whose host pointers must stay valid. */
void rt_registry_reset(void)
{
    for (size_t i = 0; i < rt_nfuncs; i++) {
        RtFunc *f = rt_funcs[i];
        f->k = NULL;
        f->max_dyn_set = 0;
        f->carveout = -1;
        f->reported = 0;
    }
    for (size_t i = 0; i < rt_nvars; i++) rt_vars[i]->addr = 0;
    for (size_t i = 0; i < rt_nfatbins; i++) rt_fatbin_unload(rt_fatbins[i]);
    for (size_t i = 0; i < rt_nvars; i++)
        if (rt_vars[i]->managed_ptr) (void)rt_fatbin_load(rt_vars[i]->fb);
}

/* cudaFuncGetName: the kernel's (mangled) device name. */
cudaError_t CUDARTAPI cudaFuncGetName(const char **name, const void *func)
{
    if (!name || !func) return rt_ret(cudaErrorInvalidValue);
    rt_lock();
    RtFunc *f = rt_func_by_stub(func);
    if (f) *name = f->name;
    rt_unlock();
    return f ? cudaSuccess : rt_ret(cudaErrorInvalidDeviceFunction);
}
