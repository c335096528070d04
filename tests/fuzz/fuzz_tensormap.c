/* fuzz_tensormap.c - libFuzzer harness: cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col
 * (the TMA encoder's argument checks) with every argument taken from the input. */
#include <stdint.h>
#include <string.h>
#include <cuda.h>

typedef struct { const uint8_t *p; size_t n; } In;

static uint64_t take(In *in, size_t bytes)
{
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) v |= (uint64_t)(in->n ? (in->n--, *in->p++) : 0) << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    In in = { data, n };
    static _Alignas(256) uint8_t target[256];
    CUtensorMap map;
    unsigned dtype = (unsigned)take(&in, 1), rank = (unsigned)take(&in, 1) % 8, kind = (unsigned)take(&in, 1);
    cuuint64_t dims[8], strides[8];
    cuuint32_t box[8], es[8];
    int lower[8], upper[8];
    for (int i = 0; i < 8; i++) {
        dims[i] = take(&in, kind & 1 ? 8 : 2);
        strides[i] = take(&in, kind & 2 ? 8 : 3);
        box[i] = (cuuint32_t)take(&in, 2);
        es[i] = (cuuint32_t)take(&in, 1);
        lower[i] = (int)(int8_t)take(&in, 1);
        upper[i] = (int)(int8_t)take(&in, 1);
    }
    unsigned il = (unsigned)take(&in, 1), sw = (unsigned)take(&in, 1), l2 = (unsigned)take(&in, 1),
             oob = (unsigned)take(&in, 1), cpp = (unsigned)take(&in, 2), ppc = (unsigned)take(&in, 2);
    void *addr = kind & 4 ? (void *)(uintptr_t)take(&in, 8) : target + (take(&in, 1) & 255);
    if (kind & 8)
        cuTensorMapEncodeIm2col(&map, (CUtensorMapDataType)dtype, rank, addr, dims, strides, lower, upper,
                                cpp, ppc, es, (CUtensorMapInterleave)il, (CUtensorMapSwizzle)sw,
                                (CUtensorMapL2promotion)l2, (CUtensorMapFloatOOBfill)oob);
    else
        cuTensorMapEncodeTiled(&map, (CUtensorMapDataType)dtype, rank, addr, dims, strides, box, es,
                               (CUtensorMapInterleave)il, (CUtensorMapSwizzle)sw,
                               (CUtensorMapL2promotion)l2, (CUtensorMapFloatOOBfill)oob);
    if (kind & 16) cuTensorMapReplaceAddress(&map, addr);
    return 0;
}
