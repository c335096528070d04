/* library_api.c - libraries the program loads itself (cudaLibrary*), over the driver's
 * cuLibrary* calls: cudaLibrary_t is CUlibrary, and a kernel's cudaKernel_t is the driver's
 * CUkernel, which cudaLaunchKernel* and the cudaFunc* calls also take (registry.c).
 * cudaLibraryGetUnifiedFunction stays unimplemented, as cuLibraryGetUnifiedFunction is.
 */
#include "runtime/cudart/cudart_internal.h"

#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

/* The runtime's JIT and library options are the driver's, number for number. */
cudaError_t CUDARTAPI cudaLibraryLoadData(cudaLibrary_t *library, const void *code,
                                          enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                          unsigned int numJitOptions,
                                          enum cudaLibraryOption *libraryOptions,
                                          void **libraryOptionValues, unsigned int numLibraryOptions)
{
    RT_DRIVER(cuLibraryLoadData((CUlibrary *)library, code, (CUjit_option *)jitOptions,
                                jitOptionsValues, numJitOptions, (CUlibraryOption *)libraryOptions,
                                libraryOptionValues, numLibraryOptions));
}

cudaError_t CUDARTAPI cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                              enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                              unsigned int numJitOptions,
                                              enum cudaLibraryOption *libraryOptions,
                                              void **libraryOptionValues, unsigned int numLibraryOptions)
{
    RT_DRIVER(cuLibraryLoadFromFile((CUlibrary *)library, fileName, (CUjit_option *)jitOptions,
                                    jitOptionsValues, numJitOptions, (CUlibraryOption *)libraryOptions,
                                    libraryOptionValues, numLibraryOptions));
}

cudaError_t CUDARTAPI cudaLibraryUnload(cudaLibrary_t library)
{
    RT_DRIVER(cuLibraryUnload((CUlibrary)library));
}

/* A name the library lacks is cudaErrorSymbolNotFound (cuda_runtime_api.h). */
cudaError_t CUDARTAPI cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    RT_DRIVER(cuLibraryGetKernel((CUkernel *)pKernel, (CUlibrary)library, name));
}

static cudaError_t get_global(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name,
                              int managed)
{
    RT_ENTER();
    CUdeviceptr d = 0;
    CUresult e = managed ? cuLibraryGetManaged(&d, bytes, (CUlibrary)library, name)
                         : cuLibraryGetGlobal(&d, bytes, (CUlibrary)library, name);
    if (e == CUDA_SUCCESS && dptr) *dptr = (void *)(uintptr_t)d;
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library,
                                           const char *name)
{
    return get_global(dptr, bytes, library, name, 0);
}

cudaError_t CUDARTAPI cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library,
                                            const char *name)
{
    return get_global(dptr, bytes, library, name, 1);
}

cudaError_t CUDARTAPI cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib)
{
    RT_DRIVER(cuLibraryGetKernelCount(count, (CUlibrary)lib));
}

cudaError_t CUDARTAPI cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels,
                                                  cudaLibrary_t lib)
{
    RT_DRIVER(cuLibraryEnumerateKernels((CUkernel *)kernels, numKernels, (CUlibrary)lib));
}
