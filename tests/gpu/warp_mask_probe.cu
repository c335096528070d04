// warp_mask_probe.cu - what a real GPU does where the PTX ISA calls a warp-synchronous
// instruction undefined or a value unspecified: a lane executing one with a membermask that
// does not name it, a shuffle reading a lane that has exited, and lanes that are alive but
// never reach the instruction. Run by tests/gpu/record_warp_edges.sh (one case per run, so
// that a case that hangs loses only itself); the output is documentation
// (tests/gpu/warp_edges_h200.txt), not a conformance expectation: ptxemu reports the
// undefined cases instead of imitating them.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

// 1. all 32 lanes run __shfl_sync(0x0000ffff, v, 0): lanes 16-31 are outside the mask
__global__ void shfl_outside(unsigned *out)
{
    int lane = threadIdx.x;
    out[lane] = __shfl_sync(0x0000ffff, lane + 100, 0);
}

// 2. all 32 lanes vote with mask 0x0000ffff
__global__ void ballot_outside(unsigned *out)
{
    int lane = threadIdx.x;
    out[lane] = __ballot_sync(0x0000ffff, 1);
}

// 3. all 32 lanes reduce with mask 0x0000ffff
__global__ void redux_outside(unsigned *out)
{
    int lane = threadIdx.x;
    out[lane] = __reduce_add_sync(0x0000ffff, 1u);
}

// 4. all 32 lanes __syncwarp(0x0000ffff), then a ballot with the full mask
__global__ void syncwarp_outside(unsigned *out)
{
    int lane = threadIdx.x;
    __syncwarp(0x0000ffff);
    out[lane] = __ballot_sync(0xffffffff, 1);
}

// 5. even lanes read odd lanes that have exited (the odd lanes set v before returning)
__global__ void read_exited(unsigned *out)
{
    int lane = threadIdx.x;
    unsigned v = lane + 100;
    out[lane] = 0xdeadbeef;
    if (lane & 1) return;
    out[lane] = __shfl_xor_sync(0xffffffff, v, 1);
}

// 6. lanes 0-15 shuffle with the full mask; lanes 16-31 are alive and go on without it
__global__ void others_skip(unsigned *out)
{
    int lane = threadIdx.x;
    unsigned v = lane + 100;
    if (lane < 16) v = __shfl_sync(0xffffffff, v, 3);
    out[lane] = v;
}

// 7. lanes 0-15 and lanes 16-31 shuffle with the full mask at two different places
__global__ void two_sites(unsigned *out)
{
    int lane = threadIdx.x;
    unsigned v = lane + 100;
    if (lane < 16) v = __shfl_sync(0xffffffff, v, 3) + 1000;
    else v = __shfl_sync(0xffffffff, v, 20) + 2000;
    out[lane] = v;
}

int main(int argc, char **argv)
{
    int which = argc > 1 ? atoi(argv[1]) : 1;
    unsigned *d, h[32];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0xee, sizeof h);
    const char *name = "?";
    switch (which) {
    case 1: name = "shfl_outside"; shfl_outside<<<1, 32>>>(d); break;
    case 2: name = "ballot_outside"; ballot_outside<<<1, 32>>>(d); break;
    case 3: name = "redux_outside"; redux_outside<<<1, 32>>>(d); break;
    case 4: name = "syncwarp_outside"; syncwarp_outside<<<1, 32>>>(d); break;
    case 5: name = "read_exited"; read_exited<<<1, 32>>>(d); break;
    case 6: name = "others_skip"; others_skip<<<1, 32>>>(d); break;
    case 7: name = "two_sites"; two_sites<<<1, 32>>>(d); break;
    }
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s: %s:", name, cudaGetErrorName(e));
    for (int l = 0; l < 32; l++) printf(" %x", h[l]);
    printf("\n");
    return 0;
}
