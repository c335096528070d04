// fma_contract_async.cu - does ptxas fuse a mul.f64 (and mul.f32) computed before a loop with
// the add.f64 that reads it inside the loop, when the loop body also holds an asynchronous
// or barrier instruction? One kernel per instruction (docs/fma-contraction.md). Each lane
// has c = -round(a*b), so a fused add leaves the product's rounding error and a plain one 0;
// the program prints, per kernel, the sum over the loop's passes of lane 0..3's adds.
#include <cstdio>
#include <cstdint>
#include <cstring>

#define BODY_END                                                                        \
    }                                                                                   \
    out[t] = s;

/* NAME_f64/_f32: a trip count known at run time, the loop kept as one pass (a single add
 * reads the product); NAME_u64/_u32: nvcc's unrolling left in (four adds and a remainder loop
 * read it); NAME_c64/_c32: the trip count 3 known at compile time, kept as a loop; NAME_k64/
 * _k32: the same, unrolled as nvcc likes (the loop may disappear) */
#define KERNEL1(NAME, STMT, TY, M, A, C, PRAG, TRIP)                                    \
__global__ void NAME(const TY *in, TY *out, double *g, unsigned *u, int n)             \
{                                                                                       \
    typedef TY T;                                                                       \
    BODY_BEGIN_T(M, A, C, PRAG, TRIP) STMT; BODY_END                                    \
}
#define KERNEL(NAME, STMT)                                                              \
    KERNEL1(NAME##_f64, STMT, double, "mul.f64", "add.f64", "d", ONE, n)                \
    KERNEL1(NAME##_f32, STMT, float, "mul.f32", "add.f32", "f", ONE, n)                 \
    KERNEL1(NAME##_u64, STMT, double, "mul.f64", "add.f64", "d", ANY, n)                \
    KERNEL1(NAME##_u32, STMT, float, "mul.f32", "add.f32", "f", ANY, n)                 \
    KERNEL1(NAME##_c64, STMT, double, "mul.f64", "add.f64", "d", ONE, 3)                \
    KERNEL1(NAME##_c32, STMT, float, "mul.f32", "add.f32", "f", ONE, 3)                 \
    KERNEL1(NAME##_k64, STMT, double, "mul.f64", "add.f64", "d", ANY, 3)                \
    KERNEL1(NAME##_k32, STMT, float, "mul.f32", "add.f32", "f", ANY, 3)

#define WAITLOOP(parity)                                                                \
    asm volatile("{ .reg .pred P; W%=: mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1; @!P bra W%=; }" \
                 :: "r"(mb), "r"(parity) : "memory")

#define S_NONE
#define S_BAR asm volatile("bar.sync 0;" ::: "memory")
#define S_BULK_GROUP asm volatile("cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;" ::: "memory")
#define S_REDUCE_BULK                                                                   \
    if (t == 0) {                                                                       \
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");                   \
        asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%0], [%1], 64;" \
                     :: "l"(g), "r"(sb) : "memory");                                   \
        asm volatile("cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0;" ::: "memory"); \
    }
#define S_REDUCE_BULK_BAR S_REDUCE_BULK; S_BAR
#define S_CP_ASYNC                                                                      \
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8; cp.async.commit_group; cp.async.wait_group 0;" \
                 :: "r"(sb + 8 * t), "l"(g + t) : "memory")
#define S_CP_ASYNC_ALL asm volatile("cp.async.ca.shared.global [%0], [%1], 8; cp.async.wait_all;" :: "r"(sb + 8 * t), "l"(g + t) : "memory")
#define S_FENCE_PROXY asm volatile("fence.proxy.async;" ::: "memory")
#define S_MBARRIER                                                                      \
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mb) : "memory");    \
    WAITLOOP(i & 1)
#define S_BULK_COPY                                                                     \
    if (t == 0)                                                                         \
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 64;" :: "r"(mb) : "memory"); \
    else                                                                                \
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mb) : "memory"); \
    if (t == 0)                                                                         \
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 64, [%2];" \
                     :: "r"(sb + 256), "l"(g), "r"(mb) : "memory");                    \
    WAITLOOP(i & 1)
#define S_CLUSTER asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory")
#define S_MEMBAR asm volatile("membar.gl;" ::: "memory")
#define S_FENCE asm volatile("fence.acq_rel.gpu;" ::: "memory")
#define S_RED asm volatile("red.global.add.u32 [%0], 1;" :: "l"(u + t) : "memory")
#define S_ATOM { unsigned o; asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(o) : "l"(u + t) : "memory"); s += (T)(o & 0); }
#define S_WARPSYNC asm volatile("bar.warp.sync -1;" ::: "memory")
#define S_NANOSLEEP asm volatile("nanosleep.u32 20;" ::: "memory")
#define S_PREFETCH asm volatile("cp.async.bulk.prefetch.L2.global [%0], 64;" :: "l"(g) : "memory")
#define S_BAR_ARRIVE_SYNC asm volatile("bar.arrive 1, 32; bar.sync 1, 32;" ::: "memory")

#define ONE _Pragma("unroll 1")
#define ANY

#define BODY_BEGIN_T(M, A, C, PRAG, TRIP)                                                           \
    __shared__ alignas(128) double sbuf[64];                                            \
    __shared__ alignas(8) unsigned long long mbar;                                      \
    unsigned t = threadIdx.x;                                                           \
    unsigned sb = (unsigned)__cvta_generic_to_shared(sbuf);                             \
    unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar);                            \
    sbuf[t] = 1.0; sbuf[32 + t] = 2.0;                                                  \
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(mb));     \
    __syncthreads();                                                                    \
    (void)sb; (void)mb;                                                                 \
    T a = in[t], b = in[32 + t], p, s = 0;                                              \
    asm volatile(M " %0, %1, %2;" : "=" C(p) : C(a), C(b));                             \
    PRAG for (int i = 0; i < TRIP; i++) {                                \
        T c = in[64 + t + 32 * (i & 1)], q;                                             \
        asm volatile(A " %0, %1, %2;" : "=" C(q) : C(p), C(c));                         \
        s = s + q;

KERNEL(none, S_NONE)
KERNEL(bar_sync, S_BAR)
KERNEL(bulk_commit_wait, S_BULK_GROUP)
KERNEL(reduce_bulk, S_REDUCE_BULK)
KERNEL(reduce_bulk_bar, S_REDUCE_BULK_BAR)
KERNEL(cp_async_group, S_CP_ASYNC)
KERNEL(cp_async_wait_all, S_CP_ASYNC_ALL)
KERNEL(fence_proxy_async, S_FENCE_PROXY)
KERNEL(mbarrier_arrive_wait, S_MBARRIER)
KERNEL(bulk_copy_mbarrier, S_BULK_COPY)
KERNEL(barrier_cluster, S_CLUSTER)
KERNEL(membar_gl, S_MEMBAR)
KERNEL(fence_acq_rel, S_FENCE)
KERNEL(red_global, S_RED)
KERNEL(atom_global, S_ATOM)
KERNEL(bar_warp_sync, S_WARPSYNC)
KERNEL(nanosleep, S_NANOSLEEP)
KERNEL(bulk_prefetch, S_PREFETCH)
KERNEL(bar_arrive_sync, S_BAR_ARRIVE_SYNC)

typedef void (*KD)(const double *, double *, double *, unsigned *, int);
typedef void (*KF)(const float *, float *, double *, unsigned *, int);
#define ENTRY(NAME) { #NAME, NAME##_f64, NAME##_f32 }, { #NAME "_unrolled", NAME##_u64, NAME##_u32 }, \
    { #NAME "_const", NAME##_c64, NAME##_c32 }, { #NAME "_const_unrolled", NAME##_k64, NAME##_k32 }
static const struct { const char *name; KD d; KF f; } kernels[] = {
    ENTRY(none), ENTRY(bar_sync), ENTRY(bulk_commit_wait), ENTRY(reduce_bulk), ENTRY(reduce_bulk_bar),
    ENTRY(cp_async_group), ENTRY(cp_async_wait_all), ENTRY(fence_proxy_async), ENTRY(mbarrier_arrive_wait),
    ENTRY(bulk_copy_mbarrier), ENTRY(barrier_cluster), ENTRY(membar_gl), ENTRY(fence_acq_rel), ENTRY(red_global),
    ENTRY(atom_global), ENTRY(bar_warp_sync), ENTRY(nanosleep), ENTRY(bulk_prefetch), ENTRY(bar_arrive_sync),
};

int main()
{
    double hd[128]; float hf[128];
    for (int t = 0; t < 32; t++) {
        double a = 1.0 + (t + 1) * 0x1p-27, b = 1.0 + (t + 3) * 0x1p-28;
        hd[t] = a; hd[32 + t] = b; hd[64 + t] = -(a * b); hd[96 + t] = -(a * b);
        float af = 1.0f + (t + 1) * 0x1p-12f, bf = 1.0f + (t + 3) * 0x1p-13f;
        hf[t] = af; hf[32 + t] = bf; hf[64 + t] = -(af * bf); hf[96 + t] = -(af * bf);
    }
    double *din, *dout, *g; float *fin, *fout; unsigned *u;
    cudaMalloc(&din, sizeof hd); cudaMalloc(&dout, 32 * 8); cudaMalloc(&fin, sizeof hf); cudaMalloc(&fout, 32 * 4);
    cudaMalloc(&g, 64 * 8); cudaMalloc(&u, 64 * 4);
    cudaMemcpy(din, hd, sizeof hd, cudaMemcpyHostToDevice);
    cudaMemcpy(fin, hf, sizeof hf, cudaMemcpyHostToDevice);
    cudaMemset(g, 0, 64 * 8); cudaMemset(u, 0, 64 * 4);
    for (auto &k : kernels) {
        double od[32]; float of[32];
        k.d<<<1, 32>>>(din, dout, g, u, 3);
        cudaError_t e1 = cudaMemcpy(od, dout, sizeof od, cudaMemcpyDeviceToHost);
        k.f<<<1, 32>>>(fin, fout, g, u, 3);
        cudaError_t e2 = cudaMemcpy(of, fout, sizeof of, cudaMemcpyDeviceToHost);
        int fd = 0, ff = 0;
        for (int t = 0; t < 32; t++) { fd += od[t] != 0; ff += of[t] != 0; }
        printf("%-37s f64 %s (%2d lanes nonzero) %016llx %016llx  f32 %s (%2d lanes) %08x %08x  %s %s\n", k.name,
               fd ? "fused" : "plain", fd, *(unsigned long long *)&od[0], *(unsigned long long *)&od[3],
               ff ? "fused" : "plain", ff, *(unsigned *)&of[0], *(unsigned *)&of[3],
               cudaGetErrorName(e1), cudaGetErrorName(e2));
    }
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
