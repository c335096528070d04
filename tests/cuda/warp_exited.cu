// warp_exited.cu - warp-synchronous intrinsics after some lanes of the warp have exited.
// The CUDA programming guide defines the membermask over non-exited threads: a full mask
// (0xffffffff) is correct in code that some lanes of the warp left with `return`, and the
// intrinsic waits only for the lanes still running. Every case below is defined behaviour;
// the expected output was recorded on a real GPU (tests/expected/cuda/warp_exited.0.out).
// Shuffles here only read lanes that are still running.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
            return 1;                                                                \
        }                                                                            \
    } while (0)

// Lanes 16-31 return; lanes 0-15 reduce with a full mask and vote.
__global__ void upper_half_returns(unsigned *out)
{
    int lane = threadIdx.x % 32;
    int v = lane + 1;
    if (lane >= 16) return;
    for (int o = 8; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    unsigned b = __ballot_sync(0xffffffff, lane & 1);
    int all = __all_sync(0xffffffff, lane < 16);
    int any = __any_sync(0xffffffff, lane == 15);
    unsigned act = __activemask();
    if (lane == 0) {
        out[0] = v;
        out[1] = b;
        out[2] = all;
        out[3] = any;
        out[4] = act;
    }
}

// Odd lanes return; even lanes use every kind of warp-synchronous intrinsic.
__global__ void odd_lanes_return(unsigned *out)
{
    __shared__ unsigned s[32];
    int lane = threadIdx.x % 32;
    if (lane & 1) return;
    unsigned b = __ballot_sync(0xffffffff, lane % 4 == 0);
    int uni = __all_sync(0xffffffff, 1) + 2 * __any_sync(0xffffffff, lane == 30);
    unsigned m = __match_any_sync(0xffffffff, lane / 8);
    int pred = 0;
    unsigned ma = __match_all_sync(0xffffffff, 7, &pred);
    unsigned sum = __reduce_add_sync(0xffffffff, (unsigned)lane);
    unsigned mn = __reduce_min_sync(0xffffffff, (unsigned)(40 - lane));
    int mx = __reduce_max_sync(0xffffffff, lane - 10);
    unsigned orv = __reduce_or_sync(0xffffffff, 1u << lane);
    unsigned x = __shfl_xor_sync(0xffffffff, lane * 3, 2);   // even partner, running
    unsigned idx = __shfl_sync(0xffffffff, lane * 5, 6);
    s[lane] = lane * 7;
    __syncwarp(0xffffffff);
    unsigned nb = s[(lane + 2) % 32];
    out[lane * 12 + 0] = b;
    out[lane * 12 + 1] = uni;
    out[lane * 12 + 2] = m;
    out[lane * 12 + 3] = ma;
    out[lane * 12 + 4] = pred;
    out[lane * 12 + 5] = sum;
    out[lane * 12 + 6] = mn;
    out[lane * 12 + 7] = mx;
    out[lane * 12 + 8] = orv;
    out[lane * 12 + 9] = x;
    out[lane * 12 + 10] = idx;
    out[lane * 12 + 11] = nb;
}

// Lane l returns in iteration l: each iteration's ballot sees the lanes still in the loop.
__global__ void leave_one_by_one(unsigned *out)
{
    int lane = threadIdx.x % 32;
    for (int i = 0; i < 32; i++) {
        if (i == lane) return;
        unsigned b = __ballot_sync(0xffffffff, 1);
        if (lane == 31) out[i] = b;
    }
}

// A block of 48 threads (the second warp has 16 lanes) where lanes 8-15 of that warp also
// return: full masks name lanes that do not exist or exited.
__global__ void partial_warp(unsigned *out)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (warp == 1 && lane >= 8) return;
    int v = __reduce_add_sync(0xffffffff, lane);
    unsigned b = lane < 16 ? __ballot_sync(0x0000ffff, 1) : 0;   // names exited lanes 8-15 of warp 1
    unsigned w = __shfl_down_sync(0xffffffff, lane, 4);
    if (lane == 0) {
        out[warp * 3 + 0] = v;
        out[warp * 3 + 1] = b;
        out[warp * 3 + 2] = w;
    }
}

// Cooperative groups: tiles of 16 and 8 after lanes 24-31 returned.
__global__ void tiles_after_return(unsigned *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    int lane = threadIdx.x % 32;
    if (lane >= 24) return;
    int v = lane;
    for (int o = 4; o > 0; o /= 2) v += t16.shfl_xor(v, o);    // reads stay within lanes < 24
    t16.sync();
    unsigned b16 = t16.ballot(lane % 3 == 0);
    int any8 = t8.any(lane == 20);
    cg::coalesced_group active = cg::coalesced_threads();
    out[lane * 5 + 0] = v;
    out[lane * 5 + 1] = b16;
    out[lane * 5 + 2] = any8;
    out[lane * 5 + 3] = active.size();
    out[lane * 5 + 4] = active.thread_rank();
}

int main()
{
    unsigned *d, h[32 * 12];
    CHECK(cudaMalloc(&d, sizeof h));

    CHECK(cudaMemset(d, 0xff, sizeof h));
    upper_half_returns<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, 5 * 4, cudaMemcpyDeviceToHost));
    printf("upper_half_returns: sum %u ballot %08x all %u any %u activemask %08x\n", h[0], h[1], h[2], h[3], h[4]);

    CHECK(cudaMemset(d, 0xff, sizeof h));
    odd_lanes_return<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l += 2) {
        const unsigned *r = h + l * 12;
        printf("odd_lanes_return lane %2d: ballot %08x votes %u match_any %08x match_all %08x/%u "
               "add %u min %u max %d or %08x xor %u idx %u syncwarp %u\n", l, r[0], r[1], r[2], r[3],
               r[4], r[5], r[6], (int)r[7], r[8], r[9], r[10], r[11]);
    }

    CHECK(cudaMemset(d, 0xff, sizeof h));
    leave_one_by_one<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, 32 * 4, cudaMemcpyDeviceToHost));
    printf("leave_one_by_one:");
    for (int i = 0; i < 31; i++) printf(" %08x", h[i]);
    printf("\n");

    CHECK(cudaMemset(d, 0xff, sizeof h));
    partial_warp<<<1, 48>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, 6 * 4, cudaMemcpyDeviceToHost));
    printf("partial_warp: warp 0: add %u ballot %08x shfl %u; warp 1: add %u ballot %08x shfl %u\n",
           h[0], h[1], h[2], h[3], h[4], h[5]);

    CHECK(cudaMemset(d, 0xff, sizeof h));
    tiles_after_return<<<1, 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, d, 24 * 5 * 4, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 24; l++)
        printf("tiles_after_return lane %2d: shfl_xor sum %u ballot16 %08x any8 %u coalesced %u rank %u\n",
               l, h[l * 5], h[l * 5 + 1], h[l * 5 + 2], h[l * 5 + 3], h[l * 5 + 4]);
    CHECK(cudaFree(d));
    return 0;
}
