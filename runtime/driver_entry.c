/* driver_entry.c - cudaGetDriverEntryPoint*: hands out ptxemu's driver functions (the tensor
 * map encoders) by name, answering the way NVIDIA's libcudart 13.0 answered on an H100
 * (tests/cuda/tma_encode.cu): unknown names succeed with a null pointer and status
 * SymbolNotFound, a version older than the symbol gives VersionNotSufficent, flags beyond
 * the three documented bits or a version newer than the driver give cudaErrorInvalidValue
 * and leave the outputs untouched.
 */
#include <string.h>
#include <cuda.h>
#include "cudart_internal.h"
#include "emu/tma.h"

/* cudaGetDriverEntryPoint is deprecated, but it is what is being defined here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* The driver API functions ptxemu implements (CUresult-returning, driver ABI). */
static CUresult drv_encode_tiled(CUtensorMap *tensorMap, CUtensorMapDataType dtype,
                                 cuuint32_t rank, void *addr, const cuuint64_t *dims,
                                 const cuuint64_t *strides, const cuuint32_t *box,
                                 const cuuint32_t *es, CUtensorMapInterleave il,
                                 CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                 CUtensorMapFloatOOBfill oob)
{
    return (CUresult)tma_encode_tiled(tensorMap, (int)dtype, rank, addr, dims, strides, box, es,
                                      (int)il, (int)sw, (int)l2, (int)oob);
}

static CUresult drv_encode_im2col(CUtensorMap *tensorMap, CUtensorMapDataType dtype,
                                  cuuint32_t rank, void *addr, const cuuint64_t *dims,
                                  const cuuint64_t *strides, const int *lower, const int *upper,
                                  cuuint32_t cpp, cuuint32_t ppc, const cuuint32_t *es,
                                  CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                  CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
    return (CUresult)tma_encode_im2col(tensorMap, (int)dtype, rank, addr, dims, strides, lower,
                                       upper, cpp, ppc, es, (int)il, (int)sw, (int)l2,
                                       (int)oob);
}

static CUresult drv_replace_address(CUtensorMap *tensorMap, void *addr)
{
    return (CUresult)tma_replace_address(tensorMap, addr);
}

typedef struct {
    const char *name;
    unsigned since;      /* CUDA version that introduced the symbol */
    void *fn;
} DriverSym;

static const DriverSym driver_syms[] = {
    {"cuTensorMapEncodeTiled", 12000, (void *)drv_encode_tiled},
    {"cuTensorMapEncodeIm2col", 12000, (void *)drv_encode_im2col},
    {"cuTensorMapReplaceAddress", 12000, (void *)drv_replace_address},
};

#define FLAGS_KNOWN (cudaEnableLegacyStream | cudaEnablePerThreadDefaultStream)

static cudaError_t lookup(const char *symbol, void **funcPtr, unsigned version,
                          unsigned long long flags,
                          enum cudaDriverEntryPointQueryResult *driverStatus)
{
    /* NVIDIA's library crashes on null pointers; ptxemu reports them instead. */
    if (!symbol || !funcPtr || (flags & ~(unsigned long long)FLAGS_KNOWN) ||
        version > CUDART_VERSION)
        return rt_ret(cudaErrorInvalidValue);
    enum cudaDriverEntryPointQueryResult st = cudaDriverEntryPointSymbolNotFound;
    *funcPtr = NULL;
    for (size_t i = 0; i < sizeof driver_syms / sizeof driver_syms[0]; i++)
        if (!strcmp(symbol, driver_syms[i].name)) {
            if (version < driver_syms[i].since) {
                st = cudaDriverEntryPointVersionNotSufficent;
            } else {
                *funcPtr = driver_syms[i].fn;
                st = cudaDriverEntryPointSuccess;
            }
            break;
        }
    if (driverStatus) *driverStatus = st;
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
