// cluster.cu - race-detector suite: thread-block clusters and distributed shared memory
// (tests/run_race_suite.sh). Every kernel starts with cluster.sync() (the peer has started)
// and ends with one (the peer's shared memory stays alive while it is used). argv[1] picks the
// case. Labels:
//@ 0 race any write into the peer's shared memory, read own shared memory without cluster.sync
//@ 1 free - write into the peer's shared memory, cluster.sync, read own shared memory
//@ 2 race any distributed histogram zeroed with plain stores while the peer already adds into it
//@ 3 free - distributed histogram zeroed, cluster.sync, then remote atomicAdd
//@ 4 race write-after-write both blocks store plainly to one word of rank 0's shared memory
//@ 5 free - both blocks atomicAdd one word of rank 0's shared memory
//@ 6 race any remote writes ordered only by barrier.cluster.arrive.relaxed + wait
//@ 7 free - remote writes ordered by barrier.cluster.arrive.release + wait.acquire
//@ 8 race any block reads the peer's shared memory while the peer writes it
//@ 9 free - peer writes, cluster.sync, then the remote read
//@ 10 race mbarrier-used-before-fence-mbarrier-init remote arrive on an mbarrier initialised without fence.mbarrier_init (relaxed cluster arrive)
//@ 11 free - fence.mbarrier_init.release.cluster, relaxed cluster arrive/wait, then the remote arrive
//@ 12 race any ring exchange in a loop: one DSMEM buffer, one cluster.sync per iteration
//@ 13 free - ring exchange in a loop: two DSMEM buffers, one cluster.sync per iteration
//@ 14 race any rank 1 writes rank 0's shared memory and arrives on its mbarrier; a warp of rank 0 reads without waiting
//@ 15 free - rank 1 writes rank 0's shared memory and arrives (release.cluster); rank 0 waits (acquire.cluster)
//@ 16 race any blocks of different clusters exchange through global memory around cluster.sync
//@ 17 free - blocks of one cluster exchange through global memory around cluster.sync
//@ 18 race any cluster of 4: ring write into the next block's shared memory ordered only by __syncthreads
//@ 19 free - cluster of 4: ring write ordered by cluster.sync
//@ 20 race any st.async into the peer's shared memory: a warp of the receiver reads without waiting on the mbarrier
//@ 21 free - st.async into the peer's shared memory: the receiver waits on its mbarrier
#include <cstdio>
#include <cstdlib>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned sa(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned mapa(unsigned a, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}
__device__ __forceinline__ void wait_cluster(unsigned bar, unsigned parity)
{
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1; @!p bra W; }"
                 :: "r"(bar), "r"(parity) : "memory");
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) remote_write(int *out)
{
    __shared__ int s[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    cl.sync();
    int *peer = cl.map_shared_rank(s, r ^ 1);
    peer[t] = r * 100 + t;
    if (FIX) cl.sync();
    out[r * 64 + t] = s[t];
    cl.sync();
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) dist_hist(const int *in, int *out)
{
    __shared__ int h[16];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    cl.sync();
    if (t < 16) h[t] = 0;
    if (FIX) cl.sync();
    else __syncthreads();
    int v = in[r * 64 + t];
    int *dst = cl.map_shared_rank(h, (unsigned)(v & 1));
    atomicAdd(&dst[(v >> 1) & 15], 1);
    cl.sync();
    if (t < 16) out[r * 16 + t] = h[t];
    cl.sync();
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) same_remote(int *out)
{
    __shared__ int x;
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    if (r == 0 && t == 0) x = 0;
    cl.sync();
    int *p = cl.map_shared_rank(&x, 0);
    if (t == 0) {
        if (FIX) atomicAdd(p, (int)r + 1);
        else *p = (int)r + 1;
    }
    cl.sync();
    if (r == 0 && t == 0) out[0] = x;
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) relaxed_barrier(int *out)
{
    __shared__ int s[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    cl.sync();
    unsigned peer = mapa(sa(&s[t]), r ^ 1);
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(peer), "r"((int)r * 7 + t) : "memory");
    if (FIX)
        asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    else
        asm volatile("barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    out[r * 64 + t] = s[t];
    cl.sync();
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) remote_read(int *out)
{
    __shared__ int s[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    cl.sync();
    s[t] = (int)r * 10 + t;
    if (FIX) cl.sync();
    int v = cl.map_shared_rank(s, r ^ 1)[(t + 3) % 64];
    cl.sync();
    out[r * 64 + t] = v;
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) mbinit(int *out)
{
    __shared__ alignas(8) unsigned long long bar;
    unsigned r, b = sa(&bar);
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    if (r == 0 && threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(b) : "memory");
        if (FIX) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    if (threadIdx.x == 0)
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(mapa(b, 0)) : "memory");
    if (r == 0 && threadIdx.x == 0) wait_cluster(b, 0);
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    if (threadIdx.x == 0) out[r] = 1;
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) ring_loop(int *out)
{
    __shared__ int s[2][64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x, acc = 0;
    cl.sync();
    for (int i = 0; i < 4; i++) {
        int b = FIX ? i & 1 : 0;
        cl.map_shared_rank(s[b], r ^ 1)[t] = i * 100 + (int)r + t;
        cl.sync();
        acc += s[b][(t + 1) % 64];
    }
    cl.sync();
    out[r * 64 + t] = acc;
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) dsmem_mbar(int *out)
{
    __shared__ int s[64];
    __shared__ alignas(8) unsigned long long bar;
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank(), b = sa(&bar);
    int t = threadIdx.x;
    if (r == 0 && t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" :: "r"(b) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    cl.sync();
    if (r == 1) {
        cl.map_shared_rank(s, 0)[t] = t * 3;
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(mapa(b, 0)) : "memory");
    } else {
        if (FIX || t < 32) wait_cluster(b, 0);
        out[t] = s[(t + 32) % 64];
        if (!FIX && t >= 32) wait_cluster(b, 0);
    }
    cl.sync();
}

/* 4 blocks, clusters of 2 */
template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) cross_cluster(int *buf, int *out)
{
    cg::cluster_group cl = cg::this_cluster();
    int b = blockIdx.x, t = threadIdx.x;
    buf[b * 64 + t] = b * 1000 + t;
    cl.sync();
    int other = FIX ? b ^ 1 : (b + 2) % 4;
    out[b * 64 + t] = buf[other * 64 + (t + 1) % 64];
}

template <bool FIX>
__global__ void __cluster_dims__(4, 1, 1) ring4(int *out)
{
    __shared__ int s[64];
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank();
    int t = threadIdx.x;
    cl.sync();
    cl.map_shared_rank(s, (r + 1) % 4)[t] = (int)r * 64 + t;
    if (FIX) cl.sync();
    else __syncthreads();
    out[r * 64 + t] = s[t];
    cl.sync();
}

template <bool FIX>
__global__ void __cluster_dims__(2, 1, 1) st_async(int *out)
{
    __shared__ alignas(16) int s[64];
    __shared__ alignas(8) unsigned long long bar;
    cg::cluster_group cl = cg::this_cluster();
    unsigned r = cl.block_rank(), b = sa(&bar);
    int t = threadIdx.x;
    if (r == 0 && t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;" :: "r"(b) : "memory");
    }
    cl.sync();
    if (r == 1) {
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                     :: "r"(mapa(sa(&s[t]), 0)), "r"(t * 5), "r"(mapa(b, 0)) : "memory");
    } else {
        if (FIX || t < 32) wait_cluster(b, 0);
        out[t] = s[(t + 32) % 64];
        if (!FIX && t >= 32) wait_cluster(b, 0);
    }
    cl.sync();
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    int *in, *out, *buf, h[256];
    for (int i = 0; i < 256; i++) h[i] = (i * 29) % 64;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, 4096);
    cudaMalloc(&buf, 4096);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(out, 0, 4096);
    cudaMemset(buf, 0, 4096);
    switch (c) {
    case 0: remote_write<false><<<2, 64>>>(out); break;
    case 1: remote_write<true><<<2, 64>>>(out); break;
    case 2: dist_hist<false><<<2, 64>>>(in, out); break;
    case 3: dist_hist<true><<<2, 64>>>(in, out); break;
    case 4: same_remote<false><<<2, 64>>>(out); break;
    case 5: same_remote<true><<<2, 64>>>(out); break;
    case 6: relaxed_barrier<false><<<2, 64>>>(out); break;
    case 7: relaxed_barrier<true><<<2, 64>>>(out); break;
    case 8: remote_read<false><<<2, 64>>>(out); break;
    case 9: remote_read<true><<<2, 64>>>(out); break;
    case 10: mbinit<false><<<2, 32>>>(out); break;
    case 11: mbinit<true><<<2, 32>>>(out); break;
    case 12: ring_loop<false><<<2, 64>>>(out); break;
    case 13: ring_loop<true><<<2, 64>>>(out); break;
    case 14: dsmem_mbar<false><<<2, 64>>>(out); break;
    case 15: dsmem_mbar<true><<<2, 64>>>(out); break;
    case 16: cross_cluster<false><<<4, 64>>>(buf, out); break;
    case 17: cross_cluster<true><<<4, 64>>>(buf, out); break;
    case 18: ring4<false><<<4, 64>>>(out); break;
    case 19: ring4<true><<<4, 64>>>(out); break;
    case 20: st_async<false><<<2, 64>>>(out); break;
    case 21: st_async<true><<<2, 64>>>(out); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
