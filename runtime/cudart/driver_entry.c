/* driver_entry.c - cudaGetDriverEntryPoint*: the driver's functions by name, from ptxemu's
 * libcuda.so.1 (cuGetProcAddress), answering the way NVIDIA's libcudart 13.0 answered on an
 * H100 (tests/cuda/tma_encode.cu): unknown names succeed with a null pointer and status
 * SymbolNotFound, a version older than the symbol gives VersionNotSufficent, flags beyond
 * the three documented bits or a version newer than the runtime give cudaErrorInvalidValue
 * and leave the outputs untouched.
 */
#include "runtime/cudart/cudart_internal.h"

/* cudaGetDriverEntryPoint is deprecated, but it is what is being defined here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define FLAGS_KNOWN (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)

static cudaError_t lookup(const char *symbol, void **funcPtr, unsigned version,
                          unsigned long long flags,
                          enum cudaDriverEntryPointQueryResult *driverStatus)
{
    /* NVIDIA's library crashes on null pointers; ptxemu reports them instead. */
    if (!symbol || !funcPtr || (flags & ~(unsigned long long)FLAGS_KNOWN) ||
        version > CUDART_VERSION)
        return rt_ret(cudaErrorInvalidValue);
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    *funcPtr = NULL;
    CUresult e = cuGetProcAddress(symbol, funcPtr, (int)version, flags, &st);
    if (e != CUDA_SUCCESS && e != CUDA_ERROR_NOT_FOUND) return rt_ret(rt_err(e));
    if (e == CUDA_ERROR_NOT_FOUND) {
        *funcPtr = NULL;
        st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    }
    if (driverStatus)   /* the two enumerations share their numbers */
        *driverStatus = (enum cudaDriverEntryPointQueryResult)st;
    return rt_ret(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                              unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return lookup(symbol, funcPtr, CUDART_VERSION, flags, driverStatus);
}

cudaError_t CUDARTAPI cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                       unsigned int cudaVersion,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *driverStatus)
{
    return lookup(symbol, funcPtr, cudaVersion, flags, driverStatus);
}

RT_TWIN(cudaError_t, cudaGetDriverEntryPoint_ptsz, cudaGetDriverEntryPoint,
        (const char *symbol, void **funcPtr, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus),
        (symbol, funcPtr, flags, driverStatus))
RT_TWIN(cudaError_t, cudaGetDriverEntryPointByVersion_ptsz, cudaGetDriverEntryPointByVersion,
        (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
         enum cudaDriverEntryPointQueryResult *driverStatus),
        (symbol, funcPtr, cudaVersion, flags, driverStatus))
