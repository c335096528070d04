/* registry.c - what nvcc's generated constructors register: fatbinaries, kernels, variables.
 *
 * Each fatbinary becomes a driver library (cuLibraryLoadData of nvcc's wrapper, as NVIDIA's
 * runtime does) at the first launch or symbol access that needs it, so a broken module costs
 * nothing until used. A load failure is remembered: every launch of that module's kernels
 * returns it, and the driver prints its diagnostic once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

typedef struct RtFatbin {
    const void *wrapper;        /* what nvcc passed to __cudaRegisterFatBinary           */
    CUlibrary lib;              /* loaded on first use                                   */
    cudaError_t load_err;       /* remembered failure of the load                        */
} RtFatbin;

#define RT_FUNC_MAGIC 0x46756e63u   /* "Func": tells our handles from stray pointers     */

struct RtFunc {
    uint32_t magic;
    RtFatbin *fb;
    const void *stub;           /* host stub address: the program's name for the kernel  */
    char *name;                 /* mangled .entry name                                   */
    CUfunction fn;              /* the driver's kernel, once found                       */
    int reported;
};

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

/* Point the host pointers of the library's managed variables at their device storage. */
static void rt_fatbin_bind_managed(RtFatbin *fb)
{
    for (size_t i = 0; i < rt_nvars; i++) {
        RtVar *v = rt_vars[i];
        CUdeviceptr addr;
        size_t size;
        if (v->fb != fb || !v->managed_ptr) continue;
        if (cuLibraryGetManaged(&addr, &size, fb->lib, v->name) == CUDA_SUCCESS) {
            *v->managed_ptr = (void *)(uintptr_t)addr;
            v->addr = addr;
            v->size = size;
        }
    }
}

/* The fatbinary's library; caller holds the lock. */
static cudaError_t rt_fatbin_load(RtFatbin *fb)
{
    if (fb->lib) return cudaSuccess;
    if (fb->load_err != cudaSuccess) return fb->load_err;
    cudaError_t e = rt_enter();
    if (e != cudaSuccess) return e;
    CUresult r = cuLibraryLoadData(&fb->lib, fb->wrapper, NULL, NULL, 0, NULL, NULL, 0);
    if (r != CUDA_SUCCESS) {
        fb->lib = NULL;
        fb->load_err = rt_err(r);
        return fb->load_err;
    }
    rt_fatbin_bind_managed(fb);
    return cudaSuccess;
}

static void rt_fatbin_unload(RtFatbin *fb)
{
    if (fb->lib) cuLibraryUnload(fb->lib);
    fb->lib = NULL;
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

/* Called by host code before it first touches a __managed__ variable: the library must be
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

static int rt_func_report_once(RtFunc *f)
{
    if (f->reported) return 0;
    f->reported = 1;
    return 1;
}

cudaError_t rt_func_driver(RtFunc *f, CUfunction *out)
{
    if (!f->fn) {
        cudaError_t e = rt_fatbin_load(f->fb);
        if (e != cudaSuccess) return e;
        CUkernel k;
        CUresult r = cuLibraryGetKernel(&k, f->fb->lib, f->name);
        if (r == CUDA_ERROR_NOT_FOUND) {
            if (rt_func_report_once(f)) rt_diag("kernel %s is not in the program's PTX", f->name);
            return cudaErrorInvalidDeviceFunction;
        }
        if (r != CUDA_SUCCESS) return rt_err(r);
        f->fn = (CUfunction)(void *)k;
    }
    *out = f->fn;
    return cudaSuccess;
}

const void *rt_stub_of(CUfunction fn)
{
    const void *stub = NULL;
    rt_lock();
    for (size_t i = 0; i < rt_nfuncs && !stub; i++)
        if (rt_funcs[i]->fn == fn) stub = rt_funcs[i]->stub;
    rt_unlock();
    return stub;
}

cudaError_t rt_stub_function(const void *stub, CUfunction *out)
{
    rt_lock();
    RtFunc *f = stub ? rt_func_by_stub(stub) : NULL;
    cudaError_t e = f ? rt_func_driver(f, out) : cudaErrorInvalidDeviceFunction;
    rt_unlock();
    return e;
}

cudaError_t rt_func_named(const void *func, CUfunction *out, cudaError_t none)
{
    RtFunc *f = func ? rt_func_by_stub(func) : NULL;
    if (!f && func) f = rt_func_by_handle(func);
    if (f) return rt_func_driver(f, out);
    CUfunction fn;
    if (func && cuKernelGetFunction(&fn, (CUkernel)(uintptr_t)func) == CUDA_SUCCESS) {
        *out = fn;
        return cudaSuccess;
    }
    return none;
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
        CUdeviceptr a;
        size_t sz;
        CUresult r = cuLibraryGetGlobal(&a, &sz, v->fb->lib, v->name);
        if (r == CUDA_ERROR_NOT_FOUND || (r == CUDA_SUCCESS && !a)) return cudaErrorInvalidSymbol;
        if (r != CUDA_SUCCESS) return rt_err(r);
        v->addr = a;
        v->size = sz;
    }
    *addr = v->addr;
    *size = v->size;
    return cudaSuccess;
}

/* cudaDeviceReset reset the primary context: the driver starts the libraries afresh (those
 * with managed variables excepted), so addresses are looked up again. */
void rt_registry_reset(void)
{
    for (size_t i = 0; i < rt_nfuncs; i++) rt_funcs[i]->reported = 0;
    for (size_t i = 0; i < rt_nvars; i++)
        if (!rt_vars[i]->managed_ptr) rt_vars[i]->addr = 0;
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
