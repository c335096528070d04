// hazards.cu - kernels with one shared-memory hazard each, and the corrected twin of each,
// for the race detector (tests/run_race_tests.sh). argv[1] picks the kernel:
//   0 raw      a read of a neighbour's value without __syncthreads      1 raw_fixed
//   2 war      a write over a value others still read                    3 war_fixed
//   4 waw      two warps write one word, no barrier                       5 waw_fixed (atomics)
//   6 async    reads a cp.async destination before cp.async.wait_all      7 async_fixed
//   8 warp     lanes of one warp exchange through shared memory without __syncwarp
//   9 warp_fixed
//  10 global   blocks read what other blocks write in the same launch (global memory)
//  11 global_fixed (each block reads its own data; the exchange happens across launches)
//  12 bulk_src  overwrites a bulk store's shared source before cp.async.bulk.wait_group.read
//  13 bulk_src_fixed
//  14 proxy     hands freshly written shared memory to a bulk store without fence.proxy.async
//  15 proxy_fixed
//  16 plain     warps read what another warp writes, no barrier (a race)
//  17 marked    the same with volatile accesses: an intended race, not reported
//  18 mbinit    a CTA arrives on another CTA's mbarrier that was initialised without
//               fence.mbarrier_init (cluster of 2)
//  19 mbinit_fixed
//  20 ticket    blocks publish partial results and take a ticket with atomicAdd; the last
//               block reads them all, but no __threadfence() orders the writes (global)
//  21 ticket_fixed (__threadfence() before the ticket)
//  22 ticket_cta    the fence is __threadfence_block(): its scope does not reach the last block
//  23 ticket_acq_rel (no fence: the ticket is an acq_rel fetch_add at device scope)
//  24 parity    an mbarrier reused for a second bulk copy, waited on with the same parity
//  25 parity_fixed (the parity flips each round)
//  26 tx_beyond expect_tx announces 128 bytes, two 128-byte copies signal the barrier
//  27 tx_fixed  (expect_tx announces 256)
//  28 mbar_skip warp 0 writes and arrives, warp 1 waits, warp 2 reads without waiting
//  29 mbar_skip_fixed (warp 2 waits too)
//  30 streams   one kernel writes a buffer in a non-blocking stream, another reads it in a
//               second non-blocking stream, nothing orders the launches (global, two launches)
//  31 streams_event (cudaEventRecord in the first stream, cudaStreamWaitEvent in the second)
//  32 streams_blocking  the same with two blocking streams: they do not wait for each other
//  33 streams_legacy    the reader runs in the legacy default stream, which waits for blocking
//                       streams
//  34 dsmem     in a cluster of 2, each CTA writes into the other's shared memory and reads
//               its own without barrier.cluster in between (distributed shared memory)
//  35 dsmem_fixed (barrier.cluster.arrive.release / wait.acquire in between)
//  36 graph     a captured graph whose writer and reader kernel nodes have no path between
//               them (the reader was captured in a forked stream): they may overlap
//  37 graph_edge (the reader node depends on the writer node)
//  38 parity_fresh  the rounds of 24 waited on parity 1, 0: the first wait passes at once on
//               the fresh barrier (a wait on parity 1 means "the phase before the current one")
//  39 parity_fresh_fixed (parity 0, 1)
//  40 atomic_max  a plain read of a maximum that other threads raise with atomicMax (global):
//               the read is not strong, so it races with the atomic
//  41 cas_loop    a float add built from a plain read and an atomicCAS loop: not reported
//  42 rows      block b adds row b+1 into row b in place, while block b+1 rewrites row b+1
//  43 rows_fixed (the sums go to a second array)
//  44 same_byte two threads of a warp write one char (global and shared)
//  45 own_bytes each thread writes its own char of a char array (bytes of one word)
#include <cstdio>
#include <cstdlib>
#include <cuda_pipeline.h>
#include <cuda/atomic>

__global__ void g(int which, int *buf)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    buf[t] = t;
    __syncthreads();
    int v = which == 10 ? buf[(t + blockDim.x) % n] : buf[t];   /* another block's word */
    buf[n + t] = v;
}

__global__ void bulk(int which, int *out)
{
    __shared__ alignas(16) int buf[64];
    unsigned sb = (unsigned)__cvta_generic_to_shared(buf);
    if (threadIdx.x != 0) return;
    for (int i = 0; i < 64; i++) buf[i] = i;
    if (which != 14) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" :: "l"(out), "r"(sb) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (which != 12) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    buf[5] = -1;   /* reuse the source */
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void flag_plain(int *out)
{
    __shared__ int s[128];
    int t = threadIdx.x;
    s[t] = t;
    out[t] = s[(t + 32) % 128];
}

__global__ void flag_volatile(int *out)
{
    __shared__ int s[128];
    volatile int *v = s;
    int t = threadIdx.x;
    v[t] = t;
    out[t] = v[(t + 32) % 128];
}

__global__ void __cluster_dims__(2, 1, 1) mbinit(int which, int *out)
{
    __shared__ alignas(8) unsigned long long bar;
    unsigned rank, b = (unsigned)__cvta_generic_to_shared(&bar), remote;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (rank == 0 && threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], 2;" :: "r"(b) : "memory");
        if (which == 19) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) {
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(b));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote) : "memory");
    }
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) out[rank] = 1;
}

__global__ void k(int which, const int *in, int *out)
{
    __shared__ int s[256];
    __shared__ int one;
    int t = threadIdx.x;
    switch (which) {
    case 0: case 1:
        s[t] = t;
        if (which == 1) __syncthreads();
        out[t] = s[(t + 64) % 256];
        break;
    case 2: case 3:
        s[t] = t;
        __syncthreads();
        out[t] = s[(t + 64) % 256];
        if (which == 3) __syncthreads();
        s[t] = -t;
        break;
    case 4:
        if (t % 32 == 0) one = t;
        break;
    case 5:
        if (t % 32 == 0) atomicExch(&one, t);
        break;
    case 6: case 7:
        __pipeline_memcpy_async(&s[t], &in[t], 4);
        __pipeline_commit();
        if (which == 7) __pipeline_wait_prior(0);
        out[t] = s[t];
        break;
    case 8: case 9:
        s[t] = t * 3;
        if (which == 9) __syncwarp();
        out[t] = s[t ^ 1];
        break;
    }
}

__global__ void ticket(int which, int *part, unsigned *count, int *out)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        part[blockIdx.x] = blockIdx.x + 1;
        if (which == 21) __threadfence();
        if (which == 22) __threadfence_block();
        unsigned t;
        if (which == 23) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*count);
            t = c.fetch_add(1, cuda::memory_order_acq_rel);
        } else
            t = atomicAdd(count, 1);
        last = t == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        int s = 0;
        for (unsigned i = 0; i < gridDim.x; i++) s += part[i];
        out[0] = s;
    }
}

__device__ void mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                 :: "r"(bar), "r"(parity) : "memory");
}

/* 24..27, 38, 39: bulk copies into shared memory signalled through one mbarrier */
__global__ void phases(int which, const int *in, int *out)
{
    __shared__ alignas(128) int buf[64];
    __shared__ alignas(8) unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar), sb = (unsigned)__cvta_generic_to_shared(buf);
    int t = threadIdx.x;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
    __syncthreads();
    int rounds = which >= 26 && which < 38 ? 1 : 2;
    for (int round = 0; round < rounds; round++) {
        if (t == 0) {
            unsigned tx = which == 26 ? 128 : 256;
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(tx) : "memory");
            for (int h = 0; h < 2; h++)
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];"
                             :: "r"(sb + 128 * h), "l"(in + round * 64 + 32 * h), "r"(b) : "memory");
        }
        mbar_wait(b, which == 24 ? 0 : which == 38 ? (round & 1) ^ 1 : round & 1);
        out[round * 64 + t] = buf[t];
        __syncthreads();
    }
}

/* 28, 29: warp 0 hands data to the other warps through an mbarrier */
__global__ void handoff(int which, int *out)
{
    __shared__ int s[32];
    __shared__ alignas(8) unsigned long long bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    int t = threadIdx.x, warp = t / 32;
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(b) : "memory");
    __syncthreads();
    if (warp == 0) {
        s[t] = t * 7;
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
    } else {
        if (warp == 1 || which == 29) mbar_wait(b, 0);
        out[t] = s[t % 32];
    }
}

__global__ void __cluster_dims__(2, 1, 1) dsmem(int which, int *out)
{
    __shared__ int s[64];
    unsigned rank, local = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]), remote;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank ^ 1));
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(remote), "r"(rank * 100 + threadIdx.x) : "memory");
    if (which == 35)
        asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    out[rank * 64 + threadIdx.x] = s[threadIdx.x];
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* 40..45: atomics against plain accesses, rows of neighbouring blocks, bytes of one word */
__global__ void mixed(int which, int *d, int n)
{
    int t = threadIdx.x, b = blockIdx.x;
    if (which == 40) {
        int x = b * blockDim.x + t + 1;
        if (d[0] < x) atomicMax(d, x);
    } else if (which == 41) {
        int *a = d, old = *a, assumed;
        do {
            assumed = old;
            old = atomicCAS(a, assumed, __float_as_int(__int_as_float(assumed) + 1.0f));
        } while (assumed != old);
    } else if (which == 42) {
        if (b + 1 < gridDim.x) d[b * n + t] += d[(b + 1) * n + t];
    } else if (which == 43) {
        if (b + 1 < gridDim.x) d[4096 + b * n + t] = d[b * n + t] + d[(b + 1) * n + t];
    } else {
        __shared__ char s[256];
        char *c = (char *)d;
        int i = which == 44 ? t / 2 : t;
        c[i] = (char)t;
        s[i] = (char)t;
        __syncthreads();
        c[512 + t] = s[255 - t];
    }
}

__global__ void produce(int *buf) { buf[threadIdx.x] = threadIdx.x * 5; }
__global__ void consume(const int *buf, int *out) { out[threadIdx.x] = buf[threadIdx.x] + 1; }

/* 30..33: two launches and the stream order between them */
static void streams(int which, int *buf, int *out)
{
    cudaStream_t s1, s2;
    unsigned flags = which == 32 || which == 33 ? cudaStreamDefault : cudaStreamNonBlocking;
    cudaStreamCreateWithFlags(&s1, flags);
    cudaStreamCreateWithFlags(&s2, flags);
    cudaEvent_t e;
    cudaEventCreate(&e);
    produce<<<1, 64, 0, s1>>>(buf);
    cudaEventRecord(e, s1);
    if (which == 31) cudaStreamWaitEvent(s2, e, 0);
    consume<<<1, 64, 0, which == 33 ? 0 : s2>>>(buf, out);
    cudaDeviceSynchronize();
    cudaEventDestroy(e);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
}

/* 36, 37: kernel nodes of one graph, ordered by an edge or not */
static void graph(int which, int *buf, int *out)
{
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
    cudaEventRecord(fork, s1);
    cudaStreamWaitEvent(s2, fork, 0);
    produce<<<1, 64, 0, s1>>>(buf);
    if (which == 37) consume<<<1, 64, 0, s1>>>(buf, out);
    else consume<<<1, 64, 0, s2>>>(buf, out);
    cudaEventRecord(join, s2);
    cudaStreamWaitEvent(s1, join, 0);
    cudaGraph_t g;
    cudaGraphExec_t x;
    cudaStreamEndCapture(s1, &g);
    cudaGraphInstantiate(&x, g, 0);
    cudaGraphLaunch(x, s1);
    cudaStreamSynchronize(s1);
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
}

int main(int argc, char **argv)
{
    int which = argc > 1 ? atoi(argv[1]) : 0;
    int *in, *out;
    cudaMalloc(&in, 1024); cudaMalloc(&out, 1 << 16);
    cudaMemset(in, which >= 20 && which < 24 ? 0 : 1, 1024);
    if (which >= 40) mixed<<<which == 42 || which == 43 ? 8 : which >= 44 ? 1 : 4,
                             which >= 44 ? 256 : 64>>>(which, out, 64);
    else if (which >= 38) phases<<<1, 64>>>(which, in, out);
    else if (which >= 36) graph(which, in, out);
    else if (which >= 34) dsmem<<<2, 64>>>(which, out);
    else if (which >= 30) streams(which, in, out);
    else if (which >= 28) handoff<<<1, 96>>>(which, out);
    else if (which >= 24) phases<<<1, 64>>>(which, in, out);
    else if (which >= 20) ticket<<<4, 32>>>(which, out, (unsigned *)in, out + 16);
    else if (which >= 18) mbinit<<<2, 32>>>(which, out);
    else if (which == 16) flag_plain<<<1, 128>>>(out);
    else if (which == 17) flag_volatile<<<1, 128>>>(out);
    else if (which >= 12) bulk<<<1, 32>>>(which, out);
    else if (which >= 10) g<<<2, 64>>>(which, out);
    else k<<<1, 256>>>(which, in, out);
    printf("kernel %d: %s\n", which, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
