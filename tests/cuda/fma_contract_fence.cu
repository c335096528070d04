// fma_contract_fence.cu - does ptxas fuse a mul and the add after it when one instruction
// stands between them (no loop)? One kernel per instruction: fences, membar, an mbarrier
// try_wait, bulk reductions and waits, barriers (docs/fma-contraction.md). Each lane has
// c = -round(a*b), so a fused add leaves the product's rounding error and a plain one 0.
// Written after tests/cuda/fma_contract_async.cu to check the rules fitted on it.
#include <cstdio>

#define K(NAME, STMT)                                                                   \
__global__ void NAME(const double *in, double *out, double *g)                         \
{                                                                                       \
    __shared__ alignas(128) double sbuf[64];                                            \
    __shared__ alignas(8) unsigned long long mbar;                                      \
    unsigned t = threadIdx.x;                                                           \
    unsigned sb = (unsigned)__cvta_generic_to_shared(sbuf);                             \
    unsigned mb = (unsigned)__cvta_generic_to_shared(&mbar);                            \
    sbuf[t] = 1.0; sbuf[32 + t] = 2.0;                                                  \
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(mb));     \
    __syncthreads();                                                                    \
    (void)sb; (void)mb; (void)g;                                                        \
    double a = in[t], b = in[32 + t], c = in[64 + t], p, q;                             \
    asm volatile("mul.f64 %0, %1, %2;" : "=d"(p) : "d"(a), "d"(b));                     \
    STMT;                                                                               \
    asm volatile("add.f64 %0, %1, %2;" : "=d"(q) : "d"(p), "d"(c));                     \
    out[t] = q;                                                                         \
}
K(k_none, )
K(k_membar_gl, asm volatile("membar.gl;" ::: "memory"))
K(k_membar_cta, asm volatile("membar.cta;" ::: "memory"))
K(k_fence_sc_gpu, asm volatile("fence.sc.gpu;" ::: "memory"))
K(k_fence_acq_rel_cta, asm volatile("fence.acq_rel.cta;" ::: "memory"))
K(k_fence_proxy_async, asm volatile("fence.proxy.async;" ::: "memory"))
K(k_bar_sync, asm volatile("bar.sync 0;" ::: "memory"))
K(k_mbarrier_test_wait, { unsigned ok; asm volatile("{ .reg .pred P; mbarrier.test_wait.parity.shared::cta.b64 P, [%1], 1; selp.u32 %0, 1, 0, P; }" : "=r"(ok) : "r"(mb) : "memory"); q = ok; })
K(k_mbarrier_try_wait, { unsigned ok; asm volatile("{ .reg .pred P; mbarrier.try_wait.parity.shared::cta.b64 P, [%1], 1; selp.u32 %0, 1, 0, P; }" : "=r"(ok) : "r"(mb) : "memory"); q = ok; })
K(k_reduce_bulk_only, if (t == 0) { asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%0], [%1], 64;" :: "l"(g), "r"(sb) : "memory"); })
K(k_reduce_bulk_wait, if (t == 0) { asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%0], [%1], 64; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;" :: "l"(g), "r"(sb) : "memory"); })
K(k_wait_group_read, asm volatile("cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0;" ::: "memory"))
K(k_store_bulk_wait_read, if (t == 0) { asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 64; cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0;" :: "l"(g + 16), "r"(sb) : "memory"); })

typedef void (*KF)(const double *, double *, double *);
#define E(NAME) { #NAME, NAME }
static const struct { const char *name; KF k; } ks[] = {
    E(k_none), E(k_membar_gl), E(k_membar_cta), E(k_fence_sc_gpu), E(k_fence_acq_rel_cta), E(k_fence_proxy_async),
    E(k_bar_sync), E(k_mbarrier_test_wait), E(k_mbarrier_try_wait), E(k_reduce_bulk_only), E(k_reduce_bulk_wait),
    E(k_wait_group_read), E(k_store_bulk_wait_read),
};

int main()
{
    double h[96];
    for (int t = 0; t < 32; t++) {
        double a = 1.0 + (t + 1) * 0x1p-27, b = 1.0 + (t + 3) * 0x1p-28;
        h[t] = a; h[32 + t] = b; h[64 + t] = -(a * b);
    }
    double *in, *out, *g;
    cudaMalloc(&in, sizeof h); cudaMalloc(&out, 32 * 8); cudaMalloc(&g, 64 * 8);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(g, 0, 64 * 8);
    for (auto &k : ks) {
        double o[32];
        k.k<<<1, 32>>>(in, out, g);
        cudaError_t e = cudaMemcpy(o, out, sizeof o, cudaMemcpyDeviceToHost);
        int nz = 0;
        for (int t = 0; t < 32; t++) nz += o[t] != 0 && o[t] != 1;
        printf("%-24s %s (%2d lanes) %016llx %s\n", k.name, nz ? "fused" : "plain", nz,
               *(unsigned long long *)&o[0], cudaGetErrorName(e));
    }
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
