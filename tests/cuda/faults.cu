// faults.cu - kernel faults and what the runtime API returns afterwards (sticky errors).
// Usage: faults SCENARIO (one per process: a fault leaves the context unusable).
//   0 out-of-bounds global store (1 TiB past a buffer, one lane)
//   1 store to a freed allocation (64 MiB)
//   2 misaligned 4-byte store
//   3 __trap()
//   4 assert failure in one thread
//   5 assert failure in three threads of one warp
//   6 null pointer read
//   7 shared memory load with a huge index (16 MiB past the array)
//   8 shared memory store with a huge index (64 MiB past the array)
//   9 one faulting block among 64, launched on a created stream
// After the fault every scenario prints the same sequence of API results. Addresses and
// offsets come from kernel parameters so that the compiler cannot fold them.
// Built from its own directory (nvcc faults.cu), so that assert messages name "faults.cu".
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static void show(const char *what, cudaError_t e)
{
    printf("%s: %s\n", what, cudaGetErrorName(e));
    fflush(stdout);
}

__global__ void k_good(int *out)
{
    out[threadIdx.x] = threadIdx.x + 1;
}

__global__ void k_store_at(int *base, long long off_ints, int lane)
{
    int *p = base;
    if ((int)threadIdx.x == lane) p += off_ints;
    p[threadIdx.x] = 42;
}

__global__ void k_store_bytes(char *base, long long off_bytes)
{
    *(int *)(base + off_bytes + 4 * threadIdx.x) = 7;
}

__global__ void k_trap(int *out, int when)
{
    out[threadIdx.x] = 1;
    if ((int)threadIdx.x == when) __trap();
}

__global__ void k_assert(int *out, int bad_mask)
{
    int lane = threadIdx.x;
    int ok = !((bad_mask >> lane) & 1);
    assert(ok);
    out[lane] = lane;
}

__global__ void k_load(int *out, const int *src)
{
    out[threadIdx.x] = src[threadIdx.x];
}

__global__ void k_shared_load(int *out, long long idx)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + idx];
}

__global__ void k_shared_store(int *out, long long idx)
{
    __shared__ int s[64];
    s[threadIdx.x + (threadIdx.x == 0 ? idx : 0)] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

__global__ void k_block_fault(int *out, int bad_block)
{
    int *p = out + blockIdx.x * blockDim.x;
    if ((int)blockIdx.x == bad_block && threadIdx.x == 5) p += 1LL << 38;
    p[threadIdx.x] = blockIdx.x;
}

// Launches the faulting kernel of scenario n with cudaLaunchKernel and returns what that
// call returned (the fault itself arrives later, at the synchronization).
static cudaError_t launch_fault(int n, int *buf, cudaStream_t s)
{
    static long long off, idx;
    static int lane, mask, block, *ptr;
    static char *cbuf;
    static void *a[3];
    const void *fn = NULL;
    dim3 grid(1), threads(32);
    a[0] = &buf;
    switch (n) {
    case 0: off = 1LL << 38; lane = 7; a[1] = &off; a[2] = &lane; fn = (const void *)k_store_at; break;
    case 1: {
        int *freed = NULL;
        show("cudaMalloc(64 MiB)", cudaMalloc(&freed, 64 << 20));
        show("cudaFree(it)", cudaFree(freed));
        ptr = freed; off = 0; lane = 0;
        a[0] = &ptr; a[1] = &off; a[2] = &lane; fn = (const void *)k_store_at; break; }
    case 2: cbuf = (char *)buf; off = 2; a[0] = &cbuf; a[1] = &off; fn = (const void *)k_store_bytes; break;
    case 3: lane = 13; a[1] = &lane; fn = (const void *)k_trap; break;
    case 4: mask = 1 << 5; a[1] = &mask; fn = (const void *)k_assert; break;
    case 5: mask = (1 << 3) | (1 << 9) | (1 << 20); a[1] = &mask; fn = (const void *)k_assert; break;
    case 6: ptr = NULL; a[1] = &ptr; fn = (const void *)k_load; break;
    case 7: idx = 1LL << 22; a[1] = &idx; fn = (const void *)k_shared_load; threads = dim3(64); break;
    case 8: idx = 1LL << 24; a[1] = &idx; fn = (const void *)k_shared_store; threads = dim3(64); break;
    case 9: block = 37; a[1] = &block; fn = (const void *)k_block_fault;
        grid = dim3(64); threads = dim3(128); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaLaunchKernel(fn, grid, threads, a, 0, s);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    printf("scenario %d\n", n);
    fflush(stdout);
    int *buf = NULL;
    show("cudaMalloc", cudaMalloc(&buf, 64 * 128 * sizeof(int)));
    cudaStream_t s = 0;
    if (n == 9) show("cudaStreamCreate", cudaStreamCreate(&s));

    // One good launch first: the context works.
    k_good<<<1, 32>>>(buf);
    show("good launch", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());

    show("fault launch", launch_fault(n, buf, s));
    cudaError_t fault = n == 9 ? cudaStreamSynchronize(s) : cudaDeviceSynchronize();
    show(n == 9 ? "cudaStreamSynchronize" : "cudaDeviceSynchronize", fault);
    show("cudaGetLastError", cudaGetLastError());
    show("cudaGetLastError", cudaGetLastError());
    show("cudaPeekAtLastError", cudaPeekAtLastError());

    k_good<<<1, 32>>>(buf);
    show("launch after fault", cudaGetLastError());
    int h[32] = {0};
    show("cudaMemcpy after fault", cudaMemcpy(h, buf, sizeof h, cudaMemcpyDeviceToHost));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    int *p2 = NULL;
    show("cudaMalloc", cudaMalloc(&p2, 1024));
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    printf("cudaGetDeviceCount: %s, count >= 1: %d\n", cudaGetErrorName(e), count >= 1);
    struct cudaDeviceProp prop;
    show("cudaGetDeviceProperties", cudaGetDeviceProperties(&prop, 0));
    show("cudaSetDevice(0)", cudaSetDevice(0));
    show("cudaFree", cudaFree(buf));
    if (n == 9) show("cudaStreamDestroy", cudaStreamDestroy(s));
    printf("fault string: %s\n", cudaGetErrorString(fault));
    show("final cudaGetLastError", cudaGetLastError());
    return 0;
}
