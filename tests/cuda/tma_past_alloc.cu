// tma_past_alloc.cu - a tensor map that describes more memory than the program allocated:
// a 4 KiB buffer mapped as a 1024 x 65536 tensor of u32 (256 MiB). A tile load inside the
// buffer works; a load 240 MiB past it is an illegal address, and the context is lost.
#include <cstdio>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

typedef CUresult (*EncTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                             const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                             CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                             CUtensorMapFloatOOBfill);

__global__ void load(const __grid_constant__ CUtensorMap map, int row, unsigned *out)
{
    __shared__ alignas(128) unsigned tile[8 * 32];
    __shared__ alignas(8) unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), s = (unsigned)__cvta_generic_to_shared(tile);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(b) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(s), "l"(&map), "r"(0), "r"(row), "r"(b) : "memory");
    }
    __syncthreads();
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }"
                 :: "r"(b) : "memory");
    for (int i = threadIdx.x; i < 256; i += blockDim.x) out[i] = tile[i];
}

int main()
{
    EncTiled enc = nullptr;
    cudaDriverEntryPointQueryResult q;
    cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&enc, 12000, cudaEnableDefault, &q);
    unsigned *buf, *out, host[256];
    cudaMalloc(&buf, 4096);
    cudaMalloc(&out, 1024);
    for (int i = 0; i < 1024; i++) host[i % 256] = i;
    unsigned init[1024];
    for (int i = 0; i < 1024; i++) init[i] = i * 3;
    cudaMemcpy(buf, init, 4096, cudaMemcpyHostToDevice);
    alignas(64) CUtensorMap map;
    cuuint64_t dims[2] = {32, 65536 * 32}, strides[1] = {128};
    cuuint32_t box[2] = {32, 8}, es[2] = {1, 1};
    CUresult r = enc(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, buf, dims, strides, box, es,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("encode: %d\n", (int)r);
    load<<<1, 64>>>(map, 8, out);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(host, out, 1024, cudaMemcpyDeviceToHost);
    printf("rows 8..15 inside the buffer: %s, first %u last %u\n", cudaGetErrorName(e), host[0], host[255]);
    load<<<1, 64>>>(map, 65536 * 30, out);   /* 240 MiB past the start */
    e = cudaDeviceSynchronize();
    printf("rows 240 MiB past the buffer: %s\n", cudaGetErrorName(e));
    printf("then: %s\n", cudaGetErrorName(cudaMemcpy(host, out, 4, cudaMemcpyDeviceToHost)));
    return 0;
}
