// global.cu - race-detector suite: global memory across blocks, atomics, fences and flags,
// and char/short/vector accesses that share words (tests/run_race_suite.sh). Consumers only
// ever wait for lower-numbered blocks. argv[1] picks the case. Labels:
//@ 0 race any block reads the next block's output in the same launch
//@ 1 free - block reads only its own output
//@ 2 race any blocks increment one counter with plain ++
//@ 3 free - blocks increment one counter with atomicAdd
//@ 4 race read-after-write message passing: data then volatile flag, no fences
//@ 5 free - message passing: __threadfence before the volatile flag store and after the flag load
//@ 6 race read-after-write message passing: producer fence is __threadfence_block (CTA scope only)
//@ 7 free - message passing: atomic_ref store release / load acquire at device scope
//@ 8 race read-after-write message passing: atomic_ref relaxed flag store and load, no fences
//@ 9 free - message passing: __threadfence+atomicExch, atomic poll+__threadfence
//@ 10 race read-after-write message passing: producer releases, consumer polls with atomics but has no acquire fence
//@ 11 free - many blocks mix atomicAdd/atomicMax/atomicMin/atomicExch/atomicCAS on one word
//@ 12 race any atomicAdd_block (CTA scope) from several blocks on one global word
//@ 13 free - atomicAdd_block on per-block slots, then device-scope atomicAdd
//@ 14 race any block 0 resets a counter with a plain store while other blocks atomicAdd it
//@ 15 free - counter reset by cudaMemset before the launch, atomics only
//@ 16 race any volatile stores read plainly by another block
//@ 17 free - volatile stores read with volatile loads by another block
//@ 18 race any grid-stride loop with a block-sized stride overlaps blocks
//@ 19 free - correct grid-stride loop
//@ 20 race write-after-write two blocks store the same value to one word
//@ 21 free - only block 0 stores the value
//@ 22 race any chained blocks: flag stored plainly, polled with volatile loads
//@ 23 free - chained blocks: flag stored with release, polled with acquire
//@ 24 race any message passing: flag stored before the data (fence in the wrong place)
//@ 25 free - each block repeatedly updates its own segment with __syncthreads
//@ 26 free - each block writes one byte of every word of a char array
//@ 27 race write-after-write two blocks write the same char
//@ 28 free - shorts of one word written by two blocks (block size 33)
//@ 29 race write-after-write two threads of different warps write the same short
//@ 30 free - chars written by four warps, read as whole words after __syncthreads
//@ 31 race any chars written by four warps, read as whole words without __syncthreads
//@ 32 free - bitset built with atomicOr
//@ 33 race any bitset built with plain |=
//@ 34 free - each thread stores its own int4
//@ 35 race write-after-write int2 stores plus a stray int store into the next thread's int2
//@ 36 free - cooperative launch: grid.sync() between writing and reading other blocks' data
//@ 37 race any cooperative launch without grid.sync() between writing and reading
//@ 38 race read-after-write message passing between blocks through a block-scope release store / acquire load
//@ 39 free - blocks update shared data under a spin lock (atomicCAS+__threadfence, __threadfence+atomicExch)
//@ 40 race any blocks update shared data under a spin lock without fences (relaxed lock)
//@ 41 race any __threadfence in the writer and the reader but no flag between them
//@ 42 free - message passing: release fetch_add whose result is unused (red.release), acquire load
//@ 43 free - message passing: atomic_thread_fence release + relaxed store, relaxed load + atomic_thread_fence acquire
//@ 44 free - transitive chain: block 0 releases to block 1, which releases to block 2, which reads block 0's data
//@ 45 race any 64-bit atomicAdd and 32-bit atomicAdd on overlapping bytes (atomics of different sizes are not morally strong)
//@ 46 race read-after-write message passing: consumer fences with __threadfence_block (CTA scope) before polling with atomics
//@ 47 free - message passing: consumer fences with __threadfence before polling with atomics (the last-block idiom's shape)
#include <cstdio>
#include <cstdlib>
#include <cuda/atomic>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

typedef cuda::atomic_ref<int, cuda::thread_scope_device> dref;

__global__ void neighbour(int fix, int *buf)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    buf[t] = t + 1;
    __syncthreads();
    buf[n + t] = fix ? buf[t] : buf[(t + blockDim.x) % n];
}

__global__ void counter(int fix, int *c)
{
    if (fix) atomicAdd(c, 1);
    else (*c)++;
}

/* one producer thread in block 0, one consumer thread in block 1 */
__global__ void mp(int mode, int *data, int *flag, int *out)
{
    if (threadIdx.x != 0) return;
    volatile int *vf = flag;
    if (blockIdx.x == 0) {
        data[0] = 42;
        data[1] = 43;
        switch (mode) {
        case 4: *vf = 1; break;
        case 5: __threadfence(); *vf = 1; break;
        case 6: __threadfence_block(); *vf = 1; break;
        case 7: dref(*flag).store(1, cuda::memory_order_release); break;
        case 8: dref(*flag).store(1, cuda::memory_order_relaxed); break;
        case 9: case 10: case 46: case 47: __threadfence(); atomicExch(flag, 1); break;
        }
    } else {
        switch (mode) {
        case 4: while (*vf == 0) { } break;
        case 5: case 6: while (*vf == 0) { } __threadfence(); break;
        case 7: while (dref(*flag).load(cuda::memory_order_acquire) == 0) { } break;
        case 8: while (dref(*flag).load(cuda::memory_order_relaxed) == 0) { } break;
        case 9: while (atomicAdd(flag, 0) == 0) { } __threadfence(); break;
        case 10: while (atomicAdd(flag, 0) == 0) { } break;
        case 46: __threadfence_block(); while (atomicAdd(flag, 0) == 0) { } break;
        case 47: __threadfence(); while (atomicAdd(flag, 0) == 0) { } break;
        }
        out[0] = data[0] + data[1];
    }
}

/* 24: the flag goes out first */
__global__ void flag_first(int *data, int *flag, int *out)
{
    if (threadIdx.x != 0) return;
    volatile int *vf = flag;
    if (blockIdx.x == 0) {
        *vf = 1;
        __threadfence();
        data[0] = 42;
    } else {
        while (*vf == 0) { }
        __threadfence();
        out[0] = data[0];
    }
}

__global__ void mixed_atomics(int *w)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    switch (t % 5) {
    case 0: atomicAdd(w, 3); break;
    case 1: atomicMax(w, t); break;
    case 2: atomicMin(w, 1 << 20); break;
    case 3: atomicExch(w, t); break;
    case 4: { int old = atomicAdd(w, 0); atomicCAS(w, old, old + 1); } break;
    }
}

__global__ void cta_atomic(int fix, int *c)
{
    if (fix) {
        atomicAdd_block(&c[1 + blockIdx.x], 1);
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(&c[0], c[1 + blockIdx.x]);
    } else
        atomicAdd_block(&c[0], 1);
}

__global__ void reset(int fix, int *c)
{
    if (!fix && blockIdx.x == 0 && threadIdx.x == 0) *c = 0;
    atomicAdd(c, 1);
}

/* 16, 17: separate kernels, or nvcc merges the two loads into one volatile load */
__global__ void vol_plain(int *d, int *out)
{
    volatile int *v = d;
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    v[i] = i;
    out[i] = d[(i + blockDim.x) % n];
}

__global__ void vol_vol(int *d, int *out)
{
    volatile int *v = d;
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    v[i] = i;
    out[i] = v[(i + blockDim.x) % n];
}

__global__ void stride(int fix, int *a, int n)
{
    int step = fix ? gridDim.x * blockDim.x : blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) a[i] = a[i] * 2 + 1;
}

__global__ void same_value(int fix, int *a)
{
    if (threadIdx.x == 0 && (!fix || blockIdx.x == 0)) a[0] = 7;
}

__global__ void chain(int fix, int *val, int *flag)
{
    if (threadIdx.x) return;
    int b = blockIdx.x, prev = 0;
    if (b > 0) {
        if (fix) while (dref(flag[b - 1]).load(cuda::memory_order_acquire) == 0) { }
        else while (((volatile int *)flag)[b - 1] == 0) { }
        prev = val[b - 1];
    }
    val[b] = prev + b + 1;
    if (fix) dref(flag[b]).store(1, cuda::memory_order_release);
    else flag[b] = 1;
}

__global__ void own_segment(int *a)
{
    int *seg = a + blockIdx.x * 64;
    for (int r = 0; r < 3; r++) {
        int v = seg[(threadIdx.x + 1) % 64];
        __syncthreads();
        seg[threadIdx.x] += v;
        __syncthreads();
    }
}

/* 26, 27: 4 blocks of 64; block b writes byte b of each word (26) */
__global__ void chars(int fix, char *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (fix) c[4 * (i % 64) + i / 64] = (char)i;
    else c[i % 128] = (char)i;
}

__global__ void shorts(int fix, short *s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[fix ? i : i % 128] = (short)i;
}

__global__ void bytes_shared(int fix, int *out)
{
    __shared__ int w[64];
    char *c = (char *)w;
    int t = threadIdx.x;
    c[4 * (t % 64) + t / 64] = (char)(t + 1);
    if (fix) __syncthreads();
    if (t < 64) out[t] = w[t];
}

__global__ void bitset(int fix, unsigned *bits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned b = (unsigned)(i * 37) % 256;
    if (fix) atomicOr(&bits[b / 32], 1u << (b % 32));
    else bits[b / 32] |= 1u << (b % 32);
}

__global__ void vectors(int fix, int *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (fix) ((int4 *)a)[i] = make_int4(i, i + 1, i + 2, i + 3);
    else {
        ((int2 *)a)[i] = make_int2(i, -i);
        a[2 * i + 2] = 0;   /* the first word of the next thread's int2 */
    }
}

__global__ void gsync(int fix, int *a, int *b)
{
    cg::grid_group g = cg::this_grid();
    int i = (int)g.thread_rank(), n = (int)g.size();
    a[i] = i * 3;
    if (fix) g.sync();
    b[i] = a[(i + 64) % n];
}

__global__ void block_scope_mp(int *data, int *flag, int *out)
{
    if (threadIdx.x != 0) return;
    cuda::atomic_ref<int, cuda::thread_scope_block> f(*flag);
    if (blockIdx.x == 0) {
        data[0] = 42;
        f.store(1, cuda::memory_order_release);
    } else {
        while (f.load(cuda::memory_order_acquire) == 0) { }
        out[0] = data[0];
    }
}

template <bool FIX>
__global__ void locked(int *lock, int *data)
{
    if (threadIdx.x != 0) return;
    while (atomicCAS(lock, 0, 1) != 0) { }
    if (FIX) __threadfence();
    data[0] += 1;
    data[1] = data[0] * 2;
    if (FIX) __threadfence();
    atomicExch(lock, 0);
}

__global__ void fences_only(int *data, int *out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        data[0] = 42;
        __threadfence();
    } else {
        __threadfence();
        out[0] = data[0];
    }
}

__global__ void mp2(int mode, int *data, int *flag, int *out)
{
    if (threadIdx.x != 0) return;
    dref f(*flag);
    if (blockIdx.x == 0) {
        data[0] = 5;
        data[1] = 6;
        if (mode == 42) f.fetch_add(1, cuda::memory_order_release);
        else {
            cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
            f.store(1, cuda::memory_order_relaxed);
        }
    } else {
        if (mode == 42) while (f.load(cuda::memory_order_acquire) == 0) { }
        else {
            while (f.load(cuda::memory_order_relaxed) == 0) { }
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        }
        out[0] = data[0] * data[1];
    }
}

__global__ void chain3(int *data, int *flag, int *out)
{
    if (threadIdx.x != 0) return;
    int b = blockIdx.x;
    if (b == 0) {
        data[0] = 11;
        dref(flag[0]).store(1, cuda::memory_order_release);
    } else if (b == 1) {
        while (dref(flag[0]).load(cuda::memory_order_acquire) == 0) { }
        data[1] = data[0] + 1;
        dref(flag[1]).store(1, cuda::memory_order_release);
    } else {
        while (dref(flag[1]).load(cuda::memory_order_acquire) == 0) { }
        out[0] = data[0] + data[1];
    }
}

__global__ void mixed_size(unsigned long long *p)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) atomicAdd(p, 1ull);
    else atomicAdd((unsigned *)p + 1, 1u);
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0, fix = c & 1;
    int *a, *b, *f;
    cudaMalloc(&a, 1 << 16);
    cudaMalloc(&b, 1 << 16);
    cudaMalloc(&f, 4096);
    cudaMemset(a, 0, 1 << 16);
    cudaMemset(b, 0, 1 << 16);
    cudaMemset(f, 0, 4096);
    switch (c) {
    case 0: case 1: neighbour<<<4, 64>>>(fix, a); break;
    case 2: case 3: counter<<<4, 64>>>(fix, a); break;
    case 4: case 5: case 6: case 7: case 8: case 9: case 10: mp<<<2, 32>>>(c, a, f, b); break;
    case 11: mixed_atomics<<<4, 64>>>(a); break;
    case 12: case 13: cta_atomic<<<4, 64>>>(fix, a); break;
    case 14: case 15: reset<<<4, 64>>>(fix, a); break;
    case 16: vol_plain<<<4, 64>>>(a, b); break;
    case 17: vol_vol<<<4, 64>>>(a, b); break;
    case 18: case 19: stride<<<4, 64>>>(fix, a, 512); break;
    case 20: case 21: same_value<<<4, 32>>>(fix, a); break;
    case 22: case 23: chain<<<8, 32>>>(fix, a, f); break;
    case 24: flag_first<<<2, 32>>>(a, f, b); break;
    case 25: own_segment<<<4, 64>>>(a); break;
    case 26: case 27: chars<<<4, 64>>>(!fix, (char *)a); break;
    case 28: shorts<<<4, 33>>>(1, (short *)a); break;
    case 29: shorts<<<2, 128>>>(0, (short *)a); break;
    case 30: case 31: bytes_shared<<<1, 256>>>(!fix, b); break;
    case 32: case 33: bitset<<<4, 64>>>(!fix, (unsigned *)a); break;
    case 34: case 35: vectors<<<2, 64>>>(!fix, a); break;
    case 36: case 37: {
        int flag = !fix;
        void *args[] = {&flag, &a, &b};
        cudaLaunchCooperativeKernel((void *)gsync, dim3(4), dim3(64), args, 0, 0);
        break;
    }
    case 38: block_scope_mp<<<2, 32>>>(a, f, b); break;
    case 39: locked<true><<<8, 32>>>(f, a); break;
    case 40: locked<false><<<8, 32>>>(f, a); break;
    case 41: fences_only<<<2, 32>>>(a, b); break;
    case 42: case 43: mp2<<<2, 32>>>(c, a, f, b); break;
    case 44: chain3<<<3, 32>>>(a, f, b); break;
    case 46: case 47: mp<<<2, 32>>>(c, a, f, b); break;
    case 45: mixed_size<<<2, 32>>>((unsigned long long *)a); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
