// fma_contract.cu - mul/add pairs without rounding modifiers in programs built by nvcc: the
// binary's SASS comes from the offline ptxas (tests/ptx/fma_contract_*.ptx probe the driver's
// JIT). nvcc emits such a pair when it hoists a loop-invariant product out of a loop and adds
// it inside; inline asm makes the other pairs explicit. Built with -fmad=false too, nvcc
// writes .rn forms that must never fuse (fma_contract_nofmad, the same source).
#include <cstdio>
#include <cstring>

template <typename T>
__global__ void hoisted(const T *a, const T *b, const T *c, T *out, int n)
{
    T ab = a[0] * b[0];   // loop-invariant: nvcc computes it once, before the loop
    for (int i = 0; i < n; i++) out[i] = ab + c[i];
}

__global__ void asm_pairs(const float *in, float *out)
{
    float a = in[0], b = in[1], c = in[2], d, e;
    asm("mul.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    asm("add.f32 %0, %1, %2;" : "=f"(e) : "f"(d), "f"(c));
    out[0] = e;
    asm("mul.f32 %0, %1, %2;\n\tadd.f32 %0, %0, %3;" : "=f"(e) : "f"(a), "f"(b), "f"(c));
    out[1] = e;
    asm("mul.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    asm("add.f32 %0, %1, %2;" : "=f"(e) : "f"(d), "f"(c));
    out[2] = e;
    out[3] = a * b + c;   // C: nvcc contracts it itself (fma.rn) unless -fmad=false
}

template <typename T, typename U>
static void show(const char *what, const T *v, int n)
{
    printf("%s:", what);
    for (int i = 0; i < n; i++) {
        U u;
        memcpy(&u, &v[i], sizeof u);
        printf(" %0*llx", (int)(2 * sizeof u), (unsigned long long)u);
    }
    printf("\n");
}

template <typename T, typename U>
static void run(const char *what, T a, T c0)
{
    T h[5] = { a, a, c0, 1, 0 }, *d;
    cudaMalloc(&d, sizeof h + 4 * sizeof(T));
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    hoisted<T><<<1, 1>>>(d, d + 1, d + 2, d + 5, 3);
    T out[3];
    cudaMemcpy(out, d + 5, sizeof out, cudaMemcpyDeviceToHost);
    show<T, U>(what, out, 3);
    cudaFree(d);
}

int main()
{
    float a = 1.0f + 0x1p-12f, r = a * a;                    // r = round(a*a)
    double ad = 1.0 + 0x1p-27, rd = ad * ad;
    run<float, unsigned>("hoisted f32", a, -r);
    run<double, unsigned long long>("hoisted f64", ad, -rd);
    float h[3] = { a, a, -r }, *d, out[4];
    cudaMalloc(&d, 8 * sizeof(float));
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    asm_pairs<<<1, 1>>>(d, d + 4);
    cudaMemcpy(out, d + 4, sizeof out, cudaMemcpyDeviceToHost);
    show<float, unsigned>("asm pairs f32", out, 4);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
