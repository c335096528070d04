// coop_grid.cu - cooperative launch: grid-wide synchronisation with cooperative groups in
// grids as large as the device holds, the launch-size limit, cudaLaunchKernelEx with the
// cooperative attribute, occupancy of kernels that use grid.sync(), warpSize (PTX WARP_SZ),
// and the predefined identifiers the driver sets (%envreg*, shared-memory sizes).
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each round every thread adds its neighbour's value from the previous round: wrong unless
// grid.sync() really orders all blocks.
__global__ void rounds(unsigned *a, unsigned *b, int nrounds)
{
    cg::grid_group g = cg::this_grid();
    unsigned n = (unsigned)g.size(), i = (unsigned)g.thread_rank();
    for (int r = 0; r < nrounds; r++) {
        b[i] = a[i] + a[(i + 1) % n] + (unsigned)r;
        g.sync();
        a[i] = b[i] * 3u + (unsigned)warpSize;
        g.sync();
    }
}

__global__ void info(unsigned *out)
{
    cg::grid_group g = cg::this_grid();
    if (g.thread_rank() != 0) return;
    out[0] = g.is_valid();
    out[1] = (unsigned)g.num_blocks();
    out[2] = (unsigned)g.num_threads();
    out[3] = warpSize;
    unsigned r;
    asm volatile("mov.u32 %0, %%envreg0;" : "=r"(r)); out[4] = r;
    asm volatile("mov.u32 %0, %%envreg6;" : "=r"(r)); out[5] = r;
    asm volatile("mov.u32 %0, %%envreg10;" : "=r"(r)); out[6] = r;
    asm volatile("mov.u32 %0, %%envreg31;" : "=r"(r)); out[7] = r;
    asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(r)); out[8] = r;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(r)); out[9] = r;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(r)); out[10] = r;
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r)); out[11] = r;
    asm volatile("mov.u32 %0, %%pm3;" : "=r"(r)); out[12] = r;
    unsigned long long ws = 0;
    asm volatile("{ .reg .b32 lo, hi; mov.u32 hi, %%envreg1; mov.u32 lo, %%envreg2; mov.b64 %0, {lo, hi}; }" : "=l"(ws));
    out[13] = ws ? ((unsigned *)ws)[0] : 0;   // the workspace's size field
}

static unsigned checksum(const unsigned *h, int n)
{
    unsigned s = 2166136261u;
    for (int i = 0; i < n; i++) s = (s ^ h[i]) * 16777619u;   // FNV-1a over words
    return s;
}

static void run_rounds(int blocks, int threads)
{
    int n = blocks * threads, nrounds = 5;
    unsigned *a, *b;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
    unsigned *h = new unsigned[n];
    for (int i = 0; i < n; i++) h[i] = (unsigned)i * 2654435761u;
    cudaMemcpy(a, h, n * 4, cudaMemcpyHostToDevice);
    void *args[] = { &a, &b, &nrounds };
    cudaError_t e = cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, 0);
    cudaError_t s = cudaDeviceSynchronize();
    cudaMemcpy(h, a, n * 4, cudaMemcpyDeviceToHost);
    printf("rounds %d x %d: %s %s checksum %08x\n", blocks, threads, cudaGetErrorName(e),
           cudaGetErrorName(s), checksum(h, n));
    delete[] h;
    cudaFree(a); cudaFree(b);
}

static void show_info(const char *what, cudaError_t e, unsigned *d)
{
    unsigned h[16];
    cudaError_t s = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s: %s %s valid=%u blocks=%u threads=%u warpSize=%u envreg0=%u envreg6=%u "
           "envreg10=%u envreg31=%u aggr=%u reserved_end=%u reserved_cap=%u total=%u pm3=%u "
           "wsSize=%u\n", what, cudaGetErrorName(e), cudaGetErrorName(s), h[0], h[1], h[2],
           h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13]);
    cudaMemset(d, 0, sizeof h);
}

int main()
{
    int per_sm = -1, sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int coop = -1;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
    printf("cooperative launch supported: %d\n", coop);
    for (int t = 32; t <= 1024; t *= 2) {
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, t, 0);
        printf("rounds: %4d threads -> %s %d blocks per SM\n", t, cudaGetErrorName(e), per_sm);
    }
    int min_grid = -1, best = -1;
    cudaError_t e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &best, rounds, 0, 0);
    printf("max potential block size: %s grid %d block %d\n", cudaGetErrorName(e), min_grid, best);

    run_rounds(4, 64);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, 256, 0);
    run_rounds(sms * per_sm, 256);   // the whole device

    unsigned *a = 0;
    cudaMalloc(&a, 64);
    int nr = 1;
    void *args[] = { &a, &a, &nr };
    e = cudaLaunchCooperativeKernel((void *)rounds, sms * per_sm + 1, 256, args, 0, 0);
    printf("one block too many: %s\n", cudaGetErrorName(e));
    cudaGetLastError();

    unsigned *d;
    cudaMalloc(&d, 64);
    cudaMemset(d, 0, 64);
    void *iargs[] = { &d };
    show_info("cooperative", cudaLaunchCooperativeKernel((void *)info, dim3(3, 2), dim3(64), iargs, 100, 0), d);

    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cfg.gridDim = dim3(5); cfg.blockDim = dim3(32); cfg.dynamicSmemBytes = 0;
    cfg.attrs = &attr; cfg.numAttrs = 1;
    show_info("launchEx cooperative", cudaLaunchKernelEx(&cfg, info, d), d);
    return 0;
}
