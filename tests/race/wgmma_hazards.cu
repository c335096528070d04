// wgmma_hazards.cu - wgmma reading shared memory, for the race detector
// (tests/run_race_tests.sh; sm_90a). argv[1] picks the kernel:
//   0 wg_raw      64 threads store B's elements (two per thread), then wgmma reads all of them without
//                 __syncthreads in between: warps read what other warps wrote (a race)
//   1 wg_raw_fixed (fence.proxy.async and __syncthreads before wgmma)
//   2 wg_proxy    __syncthreads but no fence.proxy.async: wgmma reads through the async
//                 proxy what generic stores wrote
//   3 wg_proxy_fixed (the fence, then the barrier)
//   4 wg_early    reads the accumulators between commit_group and wait_group (undefined): ptxemu
//                 completes the operation at the first wait of the warpgroup, so the early read
//                 sees the old values or, after another warp's wait, the new ones, and warns
//                 about the access
#include <cstdio>
#include <cstdlib>
#include <cstdint>

__global__ void k(int mode, float *out)
{
    __shared__ __align__(128) uint32_t sB[8 * 16 / 2];
    int t = threadIdx.x;
    if (t < 64) sB[t] = 0x3c003c00u;   // two 1.0s in f16
    if (mode != 2) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    if (mode != 0) __syncthreads();
    uint32_t a = (uint32_t)__cvta_generic_to_shared(sB);
    // no swizzle, K-major: core matrices 8 rows x 16 bytes, LBO 128 bytes (along K), SBO 256
    uint64_t db = (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
    uint32_t one = 0x3c003c00u;   // A = all ones (f16 pairs)
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0, early = -1;
    if (mode == 4) {
        asm volatile("wgmma.fence.sync.aligned;\n"
                     "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%5,%5,%5,%5}, %6, p, 1, 1, 0;\n}\n"
                     "wgmma.commit_group.sync.aligned;\n"
                     "mov.f32 %4, %0;\n"
                     "wgmma.wait_group.sync.aligned 0;\n"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3), "=f"(early) : "r"(one), "l"(db) : "memory");
        out[t] = d0 + d1 + d2 + d3;
        if (t == 0) out[128] = early;
        return;
    }
    asm volatile("wgmma.fence.sync.aligned;\n"
                 "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%4,%4,%4,%4}, %5, p, 1, 1, 0;\n}\n"
                 "wgmma.commit_group.sync.aligned;\n"
                 "wgmma.wait_group.sync.aligned 0;\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(one), "l"(db) : "memory");
    out[t] = d0 + d1 + d2 + d3;
}

int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    float *out, h[129];
    cudaMalloc(&out, sizeof h);
    k<<<1, 128>>>(mode, out);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("kernel %d: %s, out[0] = %g\n", mode, e == cudaSuccess ? "no error" : cudaGetErrorName(e), h[0]);
    if (mode == 4) printf("early read of d0: %g\n", h[128]);
    return 0;
}
