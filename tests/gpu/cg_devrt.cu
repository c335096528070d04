// cg_devrt.cu - the device runtime's cooperative-groups entry points (libcudadevrt), as Numba
// calls them for grid.sync(): cudaCGGetIntrinsicHandle and cudaCGSynchronize, in a
// cooperative launch and in a plain one. Records the handle (against %envreg1:%envreg2, the
// grid workspace), whether the grid waited, the return codes, and the workspace words.
// Build: nvcc -arch=sm_90 -rdc=true -o cg_devrt cg_devrt.cu -lcudadevrt
// Usage: cg_devrt coop | plain
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void k(unsigned long long *h, int *seen, int *rc, int *flag, unsigned *ws_after)
{
    unsigned long long handle = cudaCGGetIntrinsicHandle(cudaCGScopeGrid);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned hi, lo;
        asm volatile("mov.u32 %0, %%envreg1;" : "=r"(hi));
        asm volatile("mov.u32 %0, %%envreg2;" : "=r"(lo));
        h[0] = handle;
        h[1] = (unsigned long long)hi << 32 | lo;
    }
    // the last block sets the flag late; after the grid barrier every block must see it
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
        for (volatile int i = 0; i < 200000; i++) {}
        *(volatile int *)flag = 42;
    }
    cudaError_t e = cudaCGSynchronize(handle, 0);
    if (threadIdx.x == 0) {
        seen[blockIdx.x] = *(volatile int *)flag;
        rc[blockIdx.x] = (int)e;
    }
    cudaError_t e2 = cudaCGSynchronize(handle, 0);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        rc[gridDim.x] = (int)e2;
        unsigned nt = 0, ng = 0, tr = 0, gr = 0;
        rc[gridDim.x + 1] = (int)cudaCGGetSize(&nt, &ng, handle);
        rc[gridDim.x + 2] = (int)cudaCGGetRank(&tr, &gr, handle);
        h[2] = nt; h[3] = ng; h[4] = tr; h[5] = gr;
        for (int i = 0; i < 4 && handle; i++) ws_after[i] = ((volatile unsigned *)handle)[i];
    }
}

int main(int argc, char **argv)
{
    const int blocks = 8, threads = 64;
    bool coop = argc > 1 && !strcmp(argv[1], "coop");
    unsigned long long *h;
    int *seen, *rc, *flag;
    unsigned *ws;
    cudaMallocManaged(&h, 8 * sizeof *h);
    cudaMallocManaged(&seen, blocks * sizeof *seen);
    cudaMallocManaged(&rc, (blocks + 3) * sizeof *rc);
    cudaMallocManaged(&flag, sizeof *flag);
    cudaMallocManaged(&ws, 4 * sizeof *ws);
    memset(h, 0, 8 * sizeof *h);
    memset(ws, 0xff, 4 * sizeof *ws);
    *flag = 0;
    void *args[] = { &h, &seen, &rc, &flag, &ws };
    cudaError_t le = coop ? cudaLaunchCooperativeKernel((void *)k, blocks, threads, args)
                          : cudaLaunchKernel((void *)k, blocks, threads, args);
    cudaError_t se = cudaDeviceSynchronize();
    printf("%s launch=%d sync=%d\n", coop ? "coop" : "plain", (int)le, (int)se);
    printf("handle_is_envreg=%d handle_nonzero=%d\n", h[0] == h[1], h[0] != 0);
    for (int b = 0; b < blocks; b++) printf("block %d seen=%d rc=%d\n", b, seen[b], rc[b]);
    printf("second sync rc=%d getsize rc=%d threads=%llu grids=%llu getrank rc=%d rank=%llu grid=%llu\n",
           rc[blocks], rc[blocks + 1], h[2], h[3], rc[blocks + 2], h[4], h[5]);
    printf("workspace words %u %u %u %u\n", ws[0], ws[1], ws[2], ws[3]);
    return 0;
}
