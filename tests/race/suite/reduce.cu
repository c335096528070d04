// reduce.cu - race-detector suite: reductions and scans: tree steps, warp-level tails,
// last-block-done tickets, block and multi-block scans, merging partial results
// (tests/run_race_suite.sh). argv[1] picks the case. Labels:
//@ 0 race any tree reduction without __syncthreads between the steps
//@ 1 free - tree reduction with __syncthreads after every step
//@ 2 race any warp-level tail on plain shared memory without __syncwarp
//@ 3 free - warp-level tail: read, __syncwarp, write, __syncwarp
//@ 4 free - warp-level tail on volatile shared memory (strong accesses: no data race)
//@ 5 free - warp-level tail with __shfl_down_sync
//@ 6 race read-after-write last-block-done ticket without __threadfence
//@ 7 free - last-block-done ticket with __threadfence before the ticket and after winning it
//@ 8 race read-after-write last-block-done ticket whose writer fence is __threadfence_block
//@ 9 free - last-block-done ticket as an acq_rel fetch_add at device scope
//@ 10 race any last block found by a plain read of the counter others atomically increment
//@ 11 race any Hillis-Steele scan in place with one barrier per step
//@ 12 free - Hillis-Steele scan: read, __syncthreads, write, __syncthreads
//@ 13 free - Blelloch scan with a barrier before every step
//@ 14 race any Blelloch scan without barriers in the down-sweep
//@ 15 race any multi-block scan: block reads the sums of lower blocks written in the same launch
//@ 16 free - multi-block scan by chained look-back with release/acquire flags
//@ 17 race any per-block shared histograms merged into global memory with plain +=
//@ 18 free - per-block shared histograms merged with atomicAdd
//@ 19 race any every block adds its partial into out[0] with plain +=
//@ 20 free - every block adds its partial into out[0] with atomicAdd
//@ 21 race any block 0 sums the partials of all blocks in the same launch
//@ 22 free - partials summed by a second launch
//@ 23 free - cooperative_groups::reduce on 32-thread tiles, one atomicAdd per tile
//@ 24 race any warp-level tail starts without the __syncthreads after the last tree step
//@ 25 free - __syncthreads between the last tree step and the warp-level tail
//@ 26 free - last-block-done ticket as the CUDA samples draw it: every thread fences, thread 0 takes an atomicInc ticket, __syncthreads, the last block reads
#include <cstdio>
#include <cstdlib>
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ void block_reduce(int *s, int t, int n)
{
    for (int st = n / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
}

template <bool FIX>
__global__ void tree(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[t] + t;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        if (FIX) __syncthreads();
    }
    if (!FIX) __syncthreads();
    if (t == 0) out[0] = s[0];
}

template <int MODE>
__global__ void tail(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[t] + t;
    __syncthreads();
    for (int st = 128; st > 32; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t < 32) {
        if (MODE == 0) {
            s[t] += s[t + 32]; s[t] += s[t + 16]; s[t] += s[t + 8];
            s[t] += s[t + 4]; s[t] += s[t + 2]; s[t] += s[t + 1];
        } else if (MODE == 1) {
            for (int off = 32; off > 0; off >>= 1) {
                int v = s[t] + s[t + off];
                __syncwarp();
                s[t] = v;
                __syncwarp();
            }
        } else if (MODE == 2) {
            volatile int *v = s;
            v[t] += v[t + 32]; v[t] += v[t + 16]; v[t] += v[t + 8];
            v[t] += v[t + 4]; v[t] += v[t + 2]; v[t] += v[t + 1];
        } else {
            int v = s[t] + s[t + 32];
            for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
            if (t == 0) s[0] = v;
        }
        if (t == 0) out[0] = MODE == 2 ? ((volatile int *)s)[0] : s[0];
    }
}

/* 4 blocks of 64 */
template <int MODE>
__global__ void ticket(const int *in, int *part, unsigned *count, int *out)
{
    __shared__ int s[64];
    __shared__ bool last;
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    block_reduce(s, t, 64);
    if (t == 0) {
        part[blockIdx.x] = s[0];
        if (MODE == 7 || MODE == 10) __threadfence();
        if (MODE == 8) __threadfence_block();
        unsigned tk;
        if (MODE == 9) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*count);
            tk = c.fetch_add(1, cuda::memory_order_acq_rel);
        } else
            tk = atomicAdd(count, 1);
        if (MODE == 10) last = *count == gridDim.x;
        else last = tk == gridDim.x - 1;
        if (MODE != 6 && MODE != 9 && last) __threadfence();
    }
    __syncthreads();
    if (last && t == 0) {
        int sum = 0;
        for (unsigned i = 0; i < gridDim.x; i++) sum += part[i];
        out[0] = sum;
    }
}

/* 4 blocks of 64: the threadFenceReduction sample's shape (no fence after the ticket) */
__global__ void sample_ticket(const int *in, int *part, unsigned *count, int *out)
{
    __shared__ int s[64];
    __shared__ bool last;
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    block_reduce(s, t, 64);
    if (t == 0) part[blockIdx.x] = s[0];
    __threadfence();
    if (t == 0) last = atomicInc(count, gridDim.x) == gridDim.x - 1;
    __syncthreads();
    if (last) {
        int sum = 0;
        for (unsigned i = t; i < gridDim.x; i += 64) sum += part[i];
        atomicAdd(out, sum);
    }
}

template <bool FIX>
__global__ void hillis_steele(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[t] + 1;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        if (FIX) {
            int v = t >= off ? s[t - off] : 0;
            __syncthreads();
            s[t] += v;
        } else if (t >= off)
            s[t] += s[t - off];
        __syncthreads();
    }
    out[t] = s[t];
}

/* 128 threads scan 256 elements */
template <bool FIX>
__global__ void blelloch(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x, off = 1;
    s[2 * t] = in[2 * t];
    s[2 * t + 1] = in[2 * t + 1];
    for (int d = 128; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) s[off * (2 * t + 2) - 1] += s[off * (2 * t + 1) - 1];
        off *= 2;
    }
    if (t == 0) s[255] = 0;
    for (int d = 1; d < 256; d *= 2) {
        off >>= 1;
        if (FIX) __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            int x = s[ai];
            s[ai] = s[bi];
            s[bi] += x;
        }
    }
    __syncthreads();
    out[2 * t] = s[2 * t];
    out[2 * t + 1] = s[2 * t + 1];
}

/* 4 blocks of 64: exclusive prefix of the block sums */
template <bool FIX>
__global__ void block_scan(const int *in, int *bsum, int *flag, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x, b = blockIdx.x;
    s[t] = in[b * 64 + t];
    __syncthreads();
    block_reduce(s, t, 64);
    if (t != 0) return;
    int pre = 0;
    if (FIX) {
        if (b > 0) {
            cuda::atomic_ref<int, cuda::thread_scope_device> f(flag[b - 1]);
            while (f.load(cuda::memory_order_acquire) == 0) { }
            pre = bsum[b - 1];
        }
        bsum[b] = pre + s[0];
        cuda::atomic_ref<int, cuda::thread_scope_device>(flag[b]).store(1, cuda::memory_order_release);
    } else {
        bsum[b] = s[0];
        for (int k = 0; k < b; k++) pre += bsum[k];
    }
    out[b] = pre;
}

template <bool FIX>
__global__ void hist_merge(const int *in, int *hist)
{
    __shared__ int h[16];
    int t = threadIdx.x;
    if (t < 16) h[t] = 0;
    __syncthreads();
    atomicAdd(&h[in[blockIdx.x * 64 + t] & 15], 1);
    __syncthreads();
    if (t < 16) {
        if (FIX) atomicAdd(&hist[t], h[t]);
        else hist[t] += h[t];
    }
}

template <bool FIX>
__global__ void block_total(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    block_reduce(s, t, 64);
    if (t == 0) {
        if (FIX) atomicAdd(out, s[0]);
        else out[0] += s[0];
    }
}

__global__ void partials(int sum_here, const int *in, int *part, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    block_reduce(s, t, 64);
    if (t == 0) part[blockIdx.x] = s[0];
    if (sum_here && blockIdx.x == 0) {
        __syncthreads();
        if (t == 0) out[0] = part[0] + part[1] + part[2] + part[3];
    }
}

__global__ void sum_partials(const int *part, int *out)
{
    if (threadIdx.x == 0) out[0] = part[0] + part[1] + part[2] + part[3];
}

__global__ void cg_reduce(const int *in, int *out)
{
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    int v = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<int>());
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}

template <bool FIX>
__global__ void tail_barrier(const int *in, int *out)
{
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[t] + 2;
    for (int st = 128; st > 32; st >>= 1) {
        __syncthreads();
        if (t < st) s[t] += s[t + st];
    }
    if (FIX) __syncthreads();
    if (t < 32) {
        int v = s[t] + s[t + 32];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (t == 0) out[0] = v;
    }
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    int *in, *out, *part, *flag, h[256];
    unsigned *count;
    for (int i = 0; i < 256; i++) h[i] = (i * 13) % 7;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, 4096);
    cudaMalloc(&part, 256);
    cudaMalloc(&flag, 256);
    cudaMalloc(&count, 256);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(out, 0, 4096);
    cudaMemset(part, 0, 256);
    cudaMemset(flag, 0, 256);
    cudaMemset(count, 0, 256);
    switch (c) {
    case 0: tree<false><<<1, 256>>>(in, out); break;
    case 1: tree<true><<<1, 256>>>(in, out); break;
    case 2: tail<0><<<1, 256>>>(in, out); break;
    case 3: tail<1><<<1, 256>>>(in, out); break;
    case 4: tail<2><<<1, 256>>>(in, out); break;
    case 5: tail<3><<<1, 256>>>(in, out); break;
    case 6: ticket<6><<<4, 64>>>(in, part, count, out); break;
    case 7: ticket<7><<<4, 64>>>(in, part, count, out); break;
    case 8: ticket<8><<<4, 64>>>(in, part, count, out); break;
    case 9: ticket<9><<<4, 64>>>(in, part, count, out); break;
    case 10: ticket<10><<<4, 64>>>(in, part, count, out); break;
    case 11: hillis_steele<false><<<1, 256>>>(in, out); break;
    case 12: hillis_steele<true><<<1, 256>>>(in, out); break;
    case 13: blelloch<true><<<1, 128>>>(in, out); break;
    case 14: blelloch<false><<<1, 128>>>(in, out); break;
    case 15: block_scan<false><<<4, 64>>>(in, part, flag, out); break;
    case 16: block_scan<true><<<4, 64>>>(in, part, flag, out); break;
    case 17: hist_merge<false><<<4, 64>>>(in, out); break;
    case 18: hist_merge<true><<<4, 64>>>(in, out); break;
    case 19: block_total<false><<<4, 64>>>(in, out); break;
    case 20: block_total<true><<<4, 64>>>(in, out); break;
    case 21: partials<<<4, 64>>>(1, in, part, out); break;
    case 22: partials<<<4, 64>>>(0, in, part, out); sum_partials<<<1, 32>>>(part, out); break;
    case 23: cg_reduce<<<2, 128>>>(in, out); break;
    case 24: tail_barrier<false><<<1, 256>>>(in, out); break;
    case 25: tail_barrier<true><<<1, 256>>>(in, out); break;
    case 26: sample_ticket<<<4, 64>>>(in, part, count, out); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
