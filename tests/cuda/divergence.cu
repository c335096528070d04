// divergence.cu - control-flow-heavy kernels: per-lane loops with break/continue, early
// return before __syncthreads, recursion, a large switch, __syncwarp with partial masks, warp reductions, __match_any_sync and
// __ballot_sync in divergent code, and cooperative_groups tiled_partition<16> reductions.
// Results are copied back and printed by the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// Nested loops whose trip counts and exits differ per lane.
__global__ void d_loops(unsigned *out, int seed)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (int i = 0; i < (t % 7) + 3; i++) {
        if (i == (t % 5)) continue;
        for (int j = 0; j < 10; j++) {
            if ((i * j + t) % 11 == 10) break;
            if (j % 3 == 1) continue;
            acc += i * 3 + j + seed;
        }
        if (acc > 400u + t) break;
    }
    int k = t;
    while (k != 1) {  // Collatz steps
        k = (k & 1) ? 3 * k + 1 : k / 2;
        acc++;
        if (k == 0) break;
    }
    int n = 0;
    do {
        acc ^= acc >> 3;
        if ((acc & 7) == ((unsigned)t & 7)) break;
        acc = acc * 5 + 1;
    } while (++n < 20);
    out[t] = acc + 1000000u * n;
}

// Half of the block returns early; the rest use __syncthreads and shared memory.
__device__ bool stays(int t)
{
    return (t / 32) % 2 == 0 && ((t % 32) < 16 || t < 128);  // whole and half warps leave
}

__global__ void d_early_return(int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    out[t] = -1;
    if (!stays(t)) return;
    s[t] = t * t;
    __syncthreads();
    int other = (t + 64) % 256;
    int v = stays(other) ? s[other] : -7;
    __syncthreads();
    s[t] = v + 1;
    __syncthreads();
    out[t] = s[t] * 2 + (stays(other) ? s[other] : 0);
}

__device__ __noinline__ long long factorial(int n)
{
    return n <= 1 ? 1 : n * factorial(n - 1);
}

__device__ __noinline__ int fib(int n)
{
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann_small(int m, int n)
{
    if (m == 0) return n + 1;
    if (n == 0) return ackermann_small(m - 1, 1);
    return ackermann_small(m - 1, ackermann_small(m, n - 1));
}

__global__ void d_recursion(long long *fact, int *fibs, int *ack)
{
    int t = threadIdx.x;
    fact[t] = factorial(t % 21);
    fibs[t] = fib(t % 20);
    ack[t] = ackermann_small(t % 3, t % 4);
}

// A dense switch. nvcc 13 at -O2 lowers it to a tree of compare-and-branch rather than a
// jump table (no brx.idx in the PTX), which is what a CUDA program gets in practice.
__device__ __noinline__ int big_switch(int x, int y)
{
    switch (x) {
    case 0: return y + 1;
    case 1: return y * 3;
    case 2: return y - 17;
    case 3: return y ^ 0x55;
    case 4: return y << 2;
    case 5: return y >> 1;
    case 6: return y * y;
    case 7: return ~y;
    case 8: return y % 7;
    case 9: return y / 3;
    case 10: return y | 0x100;
    case 11: return y & 0xf0;
    case 12: return -y;
    case 13: return y + 1000;
    case 14: return y * 11 + 5;
    case 15: return y - 1000;
    case 16: return (y << 3) ^ y;
    case 17: return y * y * y;
    case 18: return y + 18;
    case 19: return 19 - y;
    default: return 424242 + x;
    }
}

__global__ void d_switch(int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int r = 0;
    for (int i = 0; i < 3; i++) r += big_switch((t + i * 7) % 23, t + i);
    out[t] = r;
}

// __syncwarp with partial masks: the even lanes exchange values through shared memory,
// then the low half does, then the whole warp.
__global__ void d_syncwarp(int *out)
{
    __shared__ int s[32];
    int l = threadIdx.x;
    s[l] = l * 10;
    __syncwarp();
    int r = 0;
    if (l % 2 == 0) {
        s[l] += 1;
        __syncwarp(0x55555555);
        r = s[(l + 2) % 32];
        __syncwarp(0x55555555);
    }
    if (l < 16) {
        s[l] += 100;
        __syncwarp(0x0000ffff);
        r += s[15 - l];
        __syncwarp(0x0000ffff);
    }
    __syncwarp();
    out[l] = r + s[31 - l];
}

// Warp-level collectives in divergent code.
__global__ void d_warp_ops(int *out)
{
    int l = threadIdx.x % 32, w = threadIdx.x / 32;
    int *o = out + threadIdx.x * 6;
    o[0] = __reduce_add_sync(0xffffffff, l * (w + 1));
    unsigned key = (l * 7 + w) % 5;
    o[1] = (int)__match_any_sync(0xffffffff, key);
    if (l % 3 == 0) {
        unsigned m = 0x49249249u;  // lanes 0, 3, 6, ... 30
        o[2] = (int)__ballot_sync(m, l > 10);
        o[3] = __reduce_add_sync(m, l);
        o[4] = (int)__match_any_sync(m, l % 2);
    } else if (l % 3 == 1) {
        unsigned m = 0x92492492u;  // lanes 1, 4, ... 31
        o[2] = (int)__ballot_sync(m, l & 4);
        o[3] = (int)__reduce_max_sync(m, (unsigned)(l * 13 % 17));
        o[4] = (int)__reduce_or_sync(m, 1u << (l % 8));
    } else {
        unsigned m = 0x24924924u;  // lanes 2, 5, ... 29
        o[2] = (int)__ballot_sync(m, 1);
        o[3] = __reduce_min_sync(m, 100 - l);
        o[4] = (int)__reduce_xor_sync(m, (unsigned)l * 0x1234u);
    }
    unsigned b = __ballot_sync(0xffffffff, (l + w) % 4 == 0);
    o[5] = (int)(b ^ (unsigned)__any_sync(0xffffffff, l == 31 - w) ^
                 ((unsigned)__all_sync(0xffffffff, l < 32) << 1));
}

// cooperative_groups: tiled_partition<16> reductions with shuffles and cg::reduce.
__global__ void d_tiles(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int v = (int)block.thread_rank() * 3 + 1;
    int s = v;
    for (int off = tile.size() / 2; off > 0; off /= 2) s += tile.shfl_down(s, off);
    int total = cg::reduce(tile, v, cg::plus<int>());
    int mx = cg::reduce(tile, v % 23, cg::greater<int>());
    int *o = out + block.thread_rank() * 5;
    o[0] = tile.thread_rank() == 0 ? s : -1;
    o[1] = total;
    o[2] = mx;
    o[3] = (int)tile.meta_group_rank();
    o[4] = (int)tile.ballot(v % 3 == 1 && tile.thread_rank() % 5 == 0);
    if (tile.thread_rank() < 8) {  // divergent: the low half of each tile
        cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(tile);
        int x = t4.shfl_xor(v, 1) + t4.shfl_xor(v, 2) * 10;
        o[4] += x * 1000 + (int)t4.meta_group_rank() * 100;
    }
}

static void check(const char *what)
{
    cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
    printf("-- %s: %s %s\n", what, cudaGetErrorName(e1), cudaGetErrorName(e2));
    fflush(stdout);
}

static void print_ints(const char *name, const int *v, int n, int per_line)
{
    for (int i = 0; i < n; i++)
        printf("%s%d%s", i % per_line == 0 ? name : " ", v[i], i % per_line == per_line - 1 || i == n - 1 ? "\n" : "");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);  // keep what was printed if a kernel hangs
    int *d, h[2048];
    long long *dl, hl[64];
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&dl, sizeof hl);
    // Recursion depth reaches 21: give every thread 16 KB of stack on both machines.
    cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, 16384);
    printf("cudaDeviceSetLimit(cudaLimitStackSize, 16384): %s\n", cudaGetErrorName(e));

    d_loops<<<2, 64>>>((unsigned *)d, 5);
    check("loops");
    cudaMemcpy(h, d, 128 * sizeof(int), cudaMemcpyDeviceToHost);
    print_ints("loops:", h, 128, 8);

    d_early_return<<<1, 256>>>(d);
    check("early return");
    cudaMemcpy(h, d, 256 * sizeof(int), cudaMemcpyDeviceToHost);
    print_ints("early:", h, 256, 16);

    d_recursion<<<1, 64>>>(dl, d, d + 64);
    check("recursion");
    cudaMemcpy(hl, dl, 64 * sizeof(long long), cudaMemcpyDeviceToHost);
    cudaMemcpy(h, d, 128 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < 21; i++) printf("fact(%d)=%lld\n", i, hl[i]);
    print_ints("fib:", h, 64, 16);
    print_ints("ack:", h + 64, 64, 16);

    d_switch<<<2, 32>>>(d);
    check("switch");
    cudaMemcpy(h, d, 64 * sizeof(int), cudaMemcpyDeviceToHost);
    print_ints("switch:", h, 64, 8);

    d_syncwarp<<<1, 32>>>(d);
    check("syncwarp");
    cudaMemcpy(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost);
    print_ints("syncwarp:", h, 32, 16);

    d_warp_ops<<<1, 64>>>(d);
    check("warp ops");
    cudaMemcpy(h, d, 64 * 6 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++)
        printf("warp t%d: %d %08x %08x %d %08x %08x\n", t, h[t * 6], h[t * 6 + 1], h[t * 6 + 2],
               h[t * 6 + 3], h[t * 6 + 4], h[t * 6 + 5]);

    d_tiles<<<1, 64>>>(d);
    check("tiles");
    cudaMemcpy(h, d, 64 * 5 * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++)
        printf("tile t%d: %d %d %d %d %d\n", t, h[t * 5], h[t * 5 + 1], h[t * 5 + 2],
               h[t * 5 + 3], h[t * 5 + 4]);
    cudaFree(d);
    cudaFree(dl);
    return 0;
}
