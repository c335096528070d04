// warp.cu - race-detector suite: warp-synchronous code, shuffles and __syncwarp
// (tests/run_race_suite.sh). Lanes of one warp are not ordered by anything but __syncwarp()
// (bar.warp.sync) or a block barrier: shuffles and votes wait for the lanes but give no
// memory ordering. argv[1] picks the case. Labels:
//@ 0 race any lanes exchange through shared memory without __syncwarp
//@ 1 free - lanes exchange through shared memory with __syncwarp
//@ 2 free - lanes exchange with __shfl_xor_sync only
//@ 3 race any lane 0 broadcasts through shared memory without __syncwarp
//@ 4 free - lane 0 broadcasts through shared memory with __syncwarp
//@ 5 free - lane 0 broadcasts with __shfl_sync
//@ 6 race any lanes 0-15 sync among themselves with __syncwarp(0xffff) and lanes 16-31 read their values
//@ 7 free - full-mask __syncwarp before lanes 16-31 read lanes 0-15's values
//@ 8 race any shared exchange separated only by __shfl_sync (no memory ordering)
//@ 9 free - shared exchange separated by __ballot_sync and __syncwarp
//@ 10 race any warp-aggregated atomic: leader's result broadcast through shared without __syncwarp
//@ 11 free - warp-aggregated atomic: leader's result broadcast with __shfl_sync
//@ 12 free - __match_any_sync groups: one atomicAdd per group leader
//@ 13 race any two warps run warp-synchronous code on the same shared slots
//@ 14 free - each warp runs warp-synchronous code on its own slots
//@ 15 race any tiled_partition<16>: exchange across the two tiles ordered only by tile.sync()
//@ 16 free - tiled_partition<16>: exchange within the tile after tile.sync()
//@ 17 race any warp sums in shared, warp 0 combines them without __syncthreads
//@ 18 free - warp sums in shared, __syncthreads, warp 0 combines them
//@ 19 race write-after-write two lanes store to the same word in one instruction
//@ 20 free - lanes store to distinct words of shared memory
//@ 21 race any divergent halves: one writes, the other reads, no __syncwarp
//@ 22 free - divergent write, __syncwarp after reconvergence, then read
//@ 23 free - coalesced_threads group exchanges through shared memory with g.sync()
//@ 24 free - __reduce_add_sync then lane 0 writes the warp's result
//@ 25 race any in-place pair swap s[l] = s[l^1] without __syncwarp
//@ 26 free - pair swap through a register and __syncwarp
//@ 27 race any loop with __syncwarp after the write but none before the next write
//@ 28 free - loop with __syncwarp before and after the reads
//@ 29 free - each half-warp exchanges among itself after __syncwarp with its own half mask
//@ 30 free - lanes 16-23 read lanes 0-7 through two overlapping partial syncs (0-15, then 8-23)
//@ 31 race any lanes 16-23 read lanes 0-7 after partial syncs that never chain (0-15, then 16-23)
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void xchg(int fix, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t * 3;
    if (fix) __syncwarp();
    out[t] = s[t ^ 1];
}

__global__ void shfl_xchg(int *out)
{
    int t = threadIdx.x;
    out[t] = __shfl_xor_sync(0xffffffffu, t * 3, 1);
}

__global__ void bcast(int mode, int *out)
{
    __shared__ int s[2];
    int t = threadIdx.x, l = t % 32, w = t / 32, v;
    int mine = t * 7 + 1;
    if (mode == 2) v = __shfl_sync(0xffffffffu, mine, 0);
    else {
        if (l == 0) s[w] = mine;
        if (mode == 1) __syncwarp();
        v = s[w];
    }
    out[t] = v + l;
}

__global__ void partial(int fix, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    if (l < 16) {
        s[l] = l * 7;
        if (!fix) __syncwarp(0x0000ffffu);
    }
    if (fix) __syncwarp();
    out[l] = l >= 16 ? s[l - 16] : 0;
}

__global__ void shfl_barrier(int fix, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = l * 11;
    int v;
    if (fix) {
        v = __ballot_sync(0xffffffffu, l & 1);
        __syncwarp();
    } else
        v = __shfl_sync(0xffffffffu, l, 0);
    out[l] = s[(l + 1) % 32] + v;
}

__global__ void aggregate(int fix, int *ctr, int *out)
{
    __shared__ int base[4];
    int l = threadIdx.x % 32, w = threadIdx.x / 32, b = 0;
    unsigned m = __activemask();
    int leader = __ffs(m) - 1;
    if (fix) {
        if (l == leader) b = atomicAdd(ctr, 32);
        b = __shfl_sync(m, b, leader);
    } else {
        if (l == leader) base[w] = atomicAdd(ctr, 32);
        b = base[w];
    }
    out[w * 32 + l] = b + l;
}

__global__ void groups(int *hist)
{
    int l = threadIdx.x % 32;
    int key = (threadIdx.x * 5) % 4;
    unsigned grp = __match_any_sync(0xffffffffu, key);
    if (l == __ffs(grp) - 1) atomicAdd(&hist[key], __popc(grp));
}

__global__ void shared_slots(int fix, int *out)
{
    __shared__ int s[2][32];
    int l = threadIdx.x % 32, w = threadIdx.x / 32;
    int *mine = s[fix ? w : 0];
    mine[l] = l + w;
    __syncwarp();
    int v = mine[31 - l];
    out[threadIdx.x] = v;
}

__global__ void tiles(int fix, int *out)
{
    __shared__ int s[32];
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int l = threadIdx.x;
    s[l] = l * 3;
    tile.sync();
    out[l] = s[fix ? (l ^ 8) : (l ^ 16)];
}

__global__ void warp_sums(int fix, int *out)
{
    __shared__ int sums[8];
    int t = threadIdx.x, l = t % 32, w = t / 32;
    int v = t;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (l == 0) sums[w] = v;
    if (fix) __syncthreads();
    if (w == 0) {
        int x = l < 8 ? sums[l] : 0;
        for (int o = 4; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
        if (l == 0) out[0] = x;
    }
}

__global__ void same_word(int fix, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[fix ? l : l / 2] = l;
    __syncwarp();
    out[l] = s[fix ? l : l / 2];
}

__global__ void halves(int fix, int *out)
{
    __shared__ int s[16];
    int l = threadIdx.x, v = 0;
    if (fix) {
        if (l < 16) s[l] = l * 2;
        __syncwarp();
        if (l >= 16) v = s[l - 16];
    } else {
        if (l < 16) s[l] = l * 2;
        else v = s[l - 16];
    }
    out[l] = v;
}

__global__ void coalesced(int *out)
{
    __shared__ int s[4][32];
    int l = threadIdx.x % 32, w = threadIdx.x / 32;
    if (l % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        s[w][g.thread_rank()] = l;
        g.sync();
        out[threadIdx.x] = s[w][(g.thread_rank() + 1) % g.size()];
    }
}

__global__ void reduce_sync(int *out)
{
    __shared__ int s[4];
    int l = threadIdx.x % 32, w = threadIdx.x / 32;
    int v = __reduce_add_sync(0xffffffffu, threadIdx.x);
    if (l == 0) s[w] = v;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[0] + s[1] + s[2] + s[3];
}

__global__ void swap(int fix, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = l * 5;
    __syncwarp();
    if (fix) {
        int v = s[l ^ 1];
        __syncwarp();
        s[l] = v;
    } else
        s[l] = s[l ^ 1];
    __syncwarp();
    out[l] = s[l];
}

__global__ void loop_sync(int fix, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x, v = l;
    for (int i = 0; i < 4; i++) {
        s[l] = v;
        __syncwarp();
        v += s[(l + 1) % 32];
        if (fix) __syncwarp();
    }
    out[l] = v;
}

__global__ void halfmask(int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = l * 3;
    __syncwarp(l < 16 ? 0x0000ffffu : 0xffff0000u);
    out[l] = s[l ^ 1];
}

__global__ void chain(int linked, int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = l * 5;
    if (l < 16) __syncwarp(0x0000ffffu);
    if (linked ? l >= 8 && l < 24 : l >= 16 && l < 24) __syncwarp(linked ? 0x00ffff00u : 0x00ff0000u);
    if (l >= 16 && l < 24) out[l] = s[l - 16];
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0, fix = c & 1;
    int *ctr, *out;
    cudaMalloc(&ctr, 256);
    cudaMalloc(&out, 4096);
    cudaMemset(ctr, 0, 256);
    cudaMemset(out, 0, 4096);
    switch (c) {
    case 0: case 1: xchg<<<1, 64>>>(fix, out); break;
    case 2: shfl_xchg<<<1, 64>>>(out); break;
    case 3: case 4: case 5: bcast<<<1, 64>>>(c - 3, out); break;
    case 6: case 7: partial<<<1, 32>>>(fix, out); break;
    case 8: case 9: shfl_barrier<<<1, 32>>>(fix, out); break;
    case 10: case 11: aggregate<<<1, 128>>>(fix, ctr, out); break;
    case 12: groups<<<1, 128>>>(ctr); break;
    case 13: case 14: shared_slots<<<1, 64>>>(!fix, out); break;
    case 15: case 16: tiles<<<1, 32>>>(!fix, out); break;
    case 17: case 18: warp_sums<<<1, 256>>>(!fix, out); break;
    case 19: case 20: same_word<<<1, 32>>>(!fix, out); break;
    case 21: case 22: halves<<<1, 32>>>(!fix, out); break;
    case 23: coalesced<<<1, 128>>>(out); break;
    case 24: reduce_sync<<<1, 128>>>(out); break;
    case 25: case 26: swap<<<1, 32>>>(!fix, out); break;
    case 27: case 28: loop_sync<<<1, 32>>>(!fix, out); break;
    case 29: halfmask<<<1, 32>>>(out); break;
    case 30: case 31: chain<<<1, 32>>>(!fix, out); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
