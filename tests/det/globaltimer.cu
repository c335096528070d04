// globaltimer.cu - %globaltimer in deterministic mode counts scheduling steps; a replayed
// schedule must count the same steps, also where an asynchronous copy completed right after
// a step (tests/run_determinism_tests.sh: the recording's and the replay's output are equal).
#include <cstdio>
#include <cuda_pipeline.h>
__global__ void k(const int *in, unsigned long long *t, int *out)
{
    __shared__ int s[256];
    for (int r = 0; r < 4; r++) {
        __pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x + r], 4);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        out[threadIdx.x] += s[(threadIdx.x + 1) % 256];
        __syncthreads();
    }
    unsigned long long g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    t[blockIdx.x * blockDim.x + threadIdx.x] = g;
}
int main()
{
    int *in, *out; unsigned long long *t;
    cudaMalloc(&in, 4096); cudaMalloc(&out, 4096*4); cudaMalloc(&t, 8*256*8);
    cudaMemset(in, 1, 4096); cudaMemset(out, 0, 4096*4);
    k<<<8, 256>>>(in, t, out);
    unsigned long long h[2048]; cudaMemcpy(h, t, sizeof h, cudaMemcpyDeviceToHost);
    unsigned long long sum = 0; for (int i = 0; i < 2048; i++) sum += h[i];
    printf("%llu %llu\n", h[0], sum);
}
