// oob_tolerance.cu - accesses past the end of an allocation that an H100 lets through,
// because device memory is mapped in 2 MiB pages, and one it does not. ptxemu completes
// the first kind with a warning (PTXEMU_STRICT_BOUNDS=1 makes them faults) and faults on
// the second. One case per run (an illegal address ends the context):
//   offbyone  a 1024-byte allocation written by 257 threads (a classic off-by-one), the
//             extra word read back by another kernel, and a read 1 MiB past the end
//   big       a 3 MiB allocation: the last word of its second 2 MiB page
//   bigfault  a 3 MiB allocation: the first word after its second 2 MiB page
#include <cstdio>
#include <cstring>

__global__ void fill(unsigned *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) a[i] = 1000u + (unsigned)i;   // i == n is one past the end
}

__global__ void peek(const unsigned *a, long long index, unsigned *out)
{
    out[0] = a[index];
}

__global__ void poke(unsigned *a, long long index, unsigned v)
{
    a[index] = v;
}

static void report(const char *what, unsigned *out)
{
    cudaError_t e = cudaDeviceSynchronize();
    unsigned h = 0;
    cudaError_t c = cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost);
    printf("%s: %s (copy %s) value %u\n", what, cudaGetErrorName(e), cudaGetErrorName(c), h);
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "offbyone";
    unsigned *out;
    cudaMalloc(&out, 4);
    cudaMemset(out, 0, 4);
    if (!strcmp(which, "offbyone")) {
        unsigned *a;
        int n = 256;
        cudaMalloc(&a, n * sizeof(unsigned));
        fill<<<1, n + 1>>>(a, n);
        printf("fill: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
        peek<<<1, 1>>>(a, n - 1, out);
        report("last element", out);
        peek<<<1, 1>>>(a, n, out);
        report("one past the end", out);
        peek<<<1, 1>>>(a, n + (1 << 18), out);   // what lies there is not ours to print
        printf("1 MiB past the end: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else {
        unsigned *a;
        cudaMalloc(&a, 3u << 20);
        long long index = (4ll << 20) / 4 - (strcmp(which, "big") ? 0 : 1);
        poke<<<1, 1>>>(a, index, 77u);
        printf("write at byte %lld: %s\n", index * 4, cudaGetErrorName(cudaDeviceSynchronize()));
        peek<<<1, 1>>>(a, index, out);
        report("read back", out);
    }
    printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
