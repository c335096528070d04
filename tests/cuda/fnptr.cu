// fnptr.cu - calls through device function pointers and virtual functions: a table of
// __device__ function pointers (some lanes of a warp calling different targets), a pointer
// kept in a __device__ variable, recursion through a pointer, and a class hierarchy with
// virtual functions built and called in a kernel. Expected output recorded on an H100.
#include <cstdio>
#include <new>

typedef int (*op_t)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ int sub(int a, int b) { return a - b; }
__device__ op_t table[3] = { add, mul, sub };
__device__ op_t chosen = mul;

__device__ int fact(int n);
__device__ int (*fact_ptr)(int) = fact;
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact_ptr(n - 1); }

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float x) : s(x) {}
    __device__ float area() const override { return s * s; }
    __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
    float b, h;
    __device__ Tri(float x, float y) : b(x), h(y) {}
    __device__ float area() const override { return 0.5f * b * h; }
    __device__ int sides() const override { return 3; }
};

__global__ void k_table(int *out)
{
    int t = threadIdx.x;
    op_t f = table[t % 3];           // lanes of one warp call different functions
    out[t] = f(t, 3) + chosen(t, 2);
}

__global__ void k_fact(int *out)
{
    out[threadIdx.x] = fact_ptr(threadIdx.x % 8 + 1);
}

__global__ void k_virtual(float *area, int *sides)
{
    __shared__ alignas(16) unsigned char buf[64 * sizeof(Tri)];
    int t = threadIdx.x;
    Shape *s = (t % 2) ? (Shape *)new (buf + t * sizeof(Tri)) Square(t)
                       : (Shape *)new (buf + t * sizeof(Tri)) Tri(t, 2);
    area[t] = s->area();
    sides[t] = s->sides();
    s->~Shape();
}

int main()
{
    int *out, *sides, h[64];
    float *area, fa[64];
    cudaMalloc(&out, 256); cudaMalloc(&sides, 256); cudaMalloc(&area, 256);
    k_table<<<1, 64>>>(out);
    printf("table: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(h, out, 256, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; i += 7) printf(" %d", h[i]);
    printf("\n");
    cudaDeviceSetLimit(cudaLimitStackSize, 8192);
    k_fact<<<1, 32>>>(out);
    printf("fact: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(h, out, 128, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 8; i++) printf(" %d", h[i]);
    printf("\n");
    k_virtual<<<1, 64>>>(area, sides);
    printf("virtual: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(fa, area, 256, cudaMemcpyDeviceToHost);
    cudaMemcpy(h, sides, 256, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; i += 9) printf(" %g/%d", fa[i], h[i]);
    printf("\n");
    return 0;
}
