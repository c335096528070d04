// stepme.cu - the program the step-debugger tests drive (tests/run_debug_tests.sh).
// Kernel `blocksum`: each block sums 64 values in shared memory (a tree with a divergent
// branch). Kernel `staged`: one block copies 256 floats into shared memory with
// cuda::memcpy_async on an mbarrier (cuda::barrier), then doubles them.
#include <cstdio>
#include <cuda/barrier>

__global__ void blocksum(const int *in, int *out)
{
    __shared__ int buf[64];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    for (int s = 32; s > 0; s /= 2) {
        if (t < s)
            buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = buf[0];
}

__global__ void staged(const float *in, float *out)
{
    __shared__ alignas(16) float tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0)
        cuda::memcpy_async(tile, in, sizeof tile, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = 2.0f * tile[threadIdx.x];
}

int main()
{
    int h[128], r[2];
    for (int i = 0; i < 128; i++) h[i] = i + 1;
    int *din, *dout;
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, sizeof r);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    blocksum<<<2, 64>>>(din, dout);
    cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost);
    printf("blocksum: %d %d\n", r[0], r[1]);

    float hf[256], of[256];
    for (int i = 0; i < 256; i++) hf[i] = 0.5f * i;
    float *fin, *fout;
    cudaMalloc(&fin, sizeof hf);
    cudaMalloc(&fout, sizeof of);
    cudaMemcpy(fin, hf, sizeof hf, cudaMemcpyHostToDevice);
    staged<<<1, 256>>>(fin, fout);
    cudaMemcpy(of, fout, sizeof of, cudaMemcpyDeviceToHost);
    printf("staged: %g %g\n", of[1], of[255]);
    cudaFree(din); cudaFree(dout); cudaFree(fin); cudaFree(fout);
    return 0;
}
