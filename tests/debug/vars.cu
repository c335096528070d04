// vars.cu - source variables for the step debugger (tests/run_debug_tests.sh, built with -G):
// locals of several types in registers, the kernel's parameters (a struct among them), a
// shared array, a device function nvcc -G does not inline, and lanes that differ.
#include <cstdio>

struct P { int a; float b; };

__device__ float scale(float x, int k)
{
    float r = x * k;
    return r + 1.0f;
}

__global__ void work(const float *in, float *out, int n, P p)
{
    __shared__ float tile[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool ok = i < n;
    unsigned u = 7u;
    double d = 2.5;
    float v = ok ? in[i] : 0.0f;
    tile[threadIdx.x % 32] = v;
    __syncthreads();
    float s = scale(v, p.a);
    if (ok) out[i] = s + tile[(threadIdx.x + 1) % 32] + (float)d + u + p.b;
}

int main()
{
    float *in, *out, h[64];
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    for (int i = 0; i < 64; i++) h[i] = i * 0.5f;
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    P p = { 3, 0.25f };
    work<<<2, 32>>>(in, out, 60, p);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("vars: %g %g\n", h[0], h[59]);
    return 0;
}
