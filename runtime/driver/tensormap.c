/* tensormap.c - cuTensorMapEncode*: the driver entry points over the TMA engine's encoder
 * (emu/tma.c), which validates arguments as the driver does and writes ptxemu's own layout
 * into the 128 opaque bytes. They need no context, as on a GPU. */
#include "runtime/driver/drv.h"
#include "emu/tma.h"

CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType dtype,
                                        cuuint32_t rank, void *addr, const cuuint64_t *dims,
                                        const cuuint64_t *strides, const cuuint32_t *box,
                                        const cuuint32_t *es, CUtensorMapInterleave il,
                                        CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                        CUtensorMapFloatOOBfill oob)
{
    return (CUresult)tma_encode_tiled(tensorMap, (int)dtype, rank, addr, dims, strides, box, es,
                                      (int)il, (int)sw, (int)l2, (int)oob);
}

CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap *tensorMap, CUtensorMapDataType dtype,
                                         cuuint32_t rank, void *addr, const cuuint64_t *dims,
                                         const cuuint64_t *strides, const int *lower,
                                         const int *upper, cuuint32_t cpp, cuuint32_t ppc,
                                         const cuuint32_t *es, CUtensorMapInterleave il,
                                         CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                         CUtensorMapFloatOOBfill oob)
{
    return (CUresult)tma_encode_im2col(tensorMap, (int)dtype, rank, addr, dims, strides, lower,
                                       upper, cpp, ppc, es, (int)il, (int)sw, (int)l2, (int)oob);
}

CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *addr)
{
    return (CUresult)tma_replace_address(tensorMap, addr);
}
