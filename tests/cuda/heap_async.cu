// heap_async.cu - device malloc/free, the CUDA C++ forms of asynchronous copies
// (cuda::memcpy_async with cuda::barrier and cuda::pipeline), a TMA load through a tensor map
// kept in global memory (with prefetch.tensormap), and cluster occupancy queries. Prints
// only deterministic values; expected output recorded on an H100 (tests/gpu/record_cuda.sh).
#include <cstdio>
#include <cstdint>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cudaTypedefs.h>
namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

// Each thread allocates n ints, fills them, sums them and frees them; thread 0 of each block
// also reports whether an allocation larger than the heap fails with NULL.
__global__ void heap(int *out, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = (int *)malloc(n * sizeof(int));
    if (!p) { out[t] = -1; return; }
    for (int i = 0; i < n; i++) p[i] = t + i;
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    free(p);
    free(nullptr);
    out[t] = s;
    if (threadIdx.x == 0) {
        void *big = malloc((size_t)1 << 40);
        out[gridDim.x * blockDim.x + blockIdx.x] = big == nullptr;
    }
}

__global__ void with_barrier(const int *in, int *out)
{
    __shared__ int s[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, s, in, sizeof(int) * 256, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = s[255 - threadIdx.x] * 2;
}

__global__ void with_aligned_barrier(const int *in, int *out)
{
    __shared__ alignas(16) int s[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, s, in, cuda::aligned_size_t<16>(sizeof(int) * 256), bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = s[(threadIdx.x + 7) % 256] + 1;
}

__global__ void with_pipeline(const int *in, int *out)
{
    __shared__ int s[2][256];
    auto block = cg::this_thread_block();
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> st;
    auto pipe = cuda::make_pipeline(block, &st);
    for (int stage = 0; stage < 2; stage++) {
        pipe.producer_acquire();
        cuda::memcpy_async(block, s[stage], in + stage * 256, sizeof(int) * 256, pipe);
        pipe.producer_commit();
    }
    int acc = 0;
    for (int stage = 0; stage < 2; stage++) {
        pipe.consumer_wait();
        acc += s[stage][threadIdx.x];
        pipe.consumer_release();
    }
    out[threadIdx.x] = acc;
}

// A 16x16 box of a 64x64 uint32 tensor; the map is read from global memory.
__global__ void tma_global_map(const CUtensorMap *map, int *out)
{
    __shared__ __align__(128) uint32_t tile[16 * 16];
    __shared__ __align__(8) uint64_t bar;
    uint32_t st = (uint32_t)__cvta_generic_to_shared(tile), sb = (uint32_t)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("prefetch.tensormap [%0];" :: "l"(map) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sb) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(sb) : "memory");
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(st), "l"(map), "r"(16), "r"(48), "r"(sb) : "memory");
    }
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(sb) : "memory");
    out[threadIdx.x] = (int)tile[threadIdx.x];
}

/* one thread a block writes: the kernels stay free of races (the race detector checks tests) */
__global__ void __cluster_dims__(2, 1, 1) clustered(int *out) { if (!threadIdx.x) out[blockIdx.x] = blockIdx.x; }
__global__ void plain(int *out) { if (!threadIdx.x) out[blockIdx.x] = blockIdx.x; }

int main()
{
    int *out, *in;
    CHECK(cudaMalloc(&out, 1 << 16));
    CHECK(cudaMalloc(&in, 4 * 4096));
    int h[4096];
    for (int i = 0; i < 4096; i++) h[i] = i;
    CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));

    size_t heap_size = 0;
    CHECK(cudaDeviceGetLimit(&heap_size, cudaLimitMallocHeapSize));
    printf("default heap limit: %zu\n", heap_size);
    heap<<<4, 64>>>(out, 100);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, out, 4 * (256 + 4), cudaMemcpyDeviceToHost));
    printf("heap: %d %d %d %d; huge malloc NULL: %d %d %d %d\n", h[0], h[1], h[127], h[255],
           h[256], h[257], h[258], h[259]);

    int o[256];
    with_barrier<<<1, 256>>>(in, out);
    CHECK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    printf("barrier: %d %d %d\n", o[0], o[100], o[255]);
    with_aligned_barrier<<<1, 256>>>(in, out);
    CHECK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    printf("aligned barrier: %d %d %d\n", o[0], o[100], o[255]);
    with_pipeline<<<1, 256>>>(in, out);
    CHECK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    printf("pipeline: %d %d %d\n", o[0], o[100], o[255]);

    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                           cudaEnableDefault, &q));
    CUtensorMap map;
    cuuint64_t dims[2] = {64, 64}, strides[1] = {64 * 4};
    cuuint32_t box[2] = {16, 16}, estr[2] = {1, 1};
    CUresult cr = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, in, dims, strides, box, estr,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("encode: %d\n", (int)cr);
    CUtensorMap *dmap;
    CHECK(cudaMalloc(&dmap, sizeof map));
    CHECK(cudaMemcpy(dmap, &map, sizeof map, cudaMemcpyHostToDevice));
    tma_global_map<<<1, 256>>>(dmap, out);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost));
    printf("tma (map in global memory): %d %d %d %d\n", o[0], o[1], o[16], o[255]);

    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    int sizes[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        cfg.gridDim = dim3(sizes[i] * 4, 1, 1);
        cfg.blockDim = dim3(128, 1, 1);
        attr.val.clusterDim.x = sizes[i]; attr.val.clusterDim.y = 1; attr.val.clusterDim.z = 1;
        cfg.attrs = &attr; cfg.numAttrs = 1;
        int n = -1;
        cudaError_t e = cudaOccupancyMaxActiveClusters(&n, (void *)plain, &cfg);
        printf("max active clusters of %d x 128 threads: %s %s\n", sizes[i], cudaGetErrorName(e),
               n > 0 ? "positive" : "not positive");
        fprintf(stderr, "max active clusters of %d: %d\n", sizes[i], n);   /* not compared */
    }
    cfg.gridDim = dim3(8, 1, 1);
    cfg.numAttrs = 1;
    attr.val.clusterDim.x = 16;
    cudaError_t e = cudaLaunchKernelEx(&cfg, plain, out);
    printf("cluster of 16 without opt-in: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    e = cudaFuncSetAttribute((void *)plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    printf("non-portable opt-in: %s\n", cudaGetErrorName(e));
    cfg.gridDim = dim3(16, 1, 1);
    e = cudaLaunchKernelEx(&cfg, plain, out);
    printf("cluster of 16 with opt-in: %s\n", cudaGetErrorName(e));
    CHECK(cudaDeviceSynchronize());
    clustered<<<4, 32>>>(out);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(o, out, 16, cudaMemcpyDeviceToHost));
    printf("__cluster_dims__ launch: %d %d %d %d\n", o[0], o[1], o[2], o[3]);
    return 0;
}
