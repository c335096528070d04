// parity.cu - a producer/consumer pipeline over four stages of full/empty mbarriers whose
// consumer waits on the wrong parity: the two warps soon wait for phases that never come, a
// deadlock the scheduler must report within moments of the last progress under every seed
// (tests/run_determinism_tests.sh). With argument 0 the parity is right and the run ends.
#include <cstdio>
#include <cstdlib>
__device__ __forceinline__ void arrive(unsigned long long *b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(b)) : "memory");
}
__device__ __forceinline__ void wait(unsigned long long *b, unsigned parity) {
    asm volatile("{ .reg .pred P; W%=: mbarrier.try_wait.parity.shared::cta.b64 P, [%0], %1; @!P bra W%=; }"
                 :: "r"((unsigned)__cvta_generic_to_shared(b)), "r"(parity) : "memory");
}
__global__ void pipe(const float *in, float *out, int n, int wrong)
{
    __shared__ float buf[4][32];
    __shared__ unsigned long long full[4], empty[4];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x < 4) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"((unsigned)__cvta_generic_to_shared(&full[threadIdx.x])));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"((unsigned)__cvta_generic_to_shared(&empty[threadIdx.x])));
    }
    __syncthreads();
    float acc = 0;
    for (int i = 0; i < n; i++) {
        int s = i % 4; unsigned ph = (i / 4) & 1;
        if (warp == 0) {            // producer
            if (i >= 4) wait(&empty[s], ph ^ 1);
            buf[s][lane] = in[i * 32 + lane];
            arrive(&full[s]);
        } else {                    // consumer
            wait(&full[s], wrong ? ph ^ 1 : ph);
            acc += buf[s][lane];
            arrive(&empty[s]);
        }
    }
    if (warp == 1) out[lane] = acc;
}
int main(int argc, char **argv)
{
    float *in, *out;
    int n = 64;
    cudaMalloc(&in, n * 32 * 4); cudaMalloc(&out, 32 * 4);
    cudaMemset(in, 0, n * 32 * 4);
    pipe<<<1, 64>>>(in, out, n, argc > 1 ? atoi(argv[1]) : 1);
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
