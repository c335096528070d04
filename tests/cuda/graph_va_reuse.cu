// graph_va_reuse.cu - which graph allocation nodes get the address of an allocation freed
// earlier in the same graph: after the free node (built by hand and by stream capture), beside
// it (no dependency), bigger than the freed one, and freed outside the graph. The graph runs
// too, and each allocation is written and read.
#include <cstdio>

__global__ void fill(int *p, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v + i;
}

__global__ void sum(const int *p, int n, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, p[i]);
}

static const int N = 1024;

static cudaMemAllocNodeParams params(size_t bytes)
{
    cudaMemAllocNodeParams a = {};
    a.poolProps.allocType = cudaMemAllocationTypePinned;
    a.poolProps.location.type = cudaMemLocationTypeDevice;
    a.poolProps.location.id = 0;
    a.bytesize = bytes;
    return a;
}

static cudaGraphNode_t kernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, void *fn, void **args)
{
    cudaKernelNodeParams k = {};
    k.func = fn;
    k.gridDim = dim3(N / 256);
    k.blockDim = dim3(256);
    k.kernelParams = args;
    cudaGraphNode_t node;
    cudaGraphAddKernelNode(&node, g, deps, n, &k);
    return node;
}

// alloc A; fill A; free A; then alloc B of `bytes` after the free (or beside it).
static void by_hand(const char *what, size_t bytes, bool after_free)
{
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaMemAllocNodeParams a = params(N * sizeof(int)), b = params(bytes);
    cudaGraphNode_t na, nb, nfill, nfree;
    cudaGraphAddMemAllocNode(&na, g, NULL, 0, &a);
    int *pa = (int *)a.dptr, n = N, v = 7;
    void *fargs[] = { &pa, &n, &v };
    nfill = kernel(g, &na, 1, (void *)fill, fargs);
    cudaGraphAddMemFreeNode(&nfree, g, &nfill, 1, a.dptr);
    cudaGraphAddMemAllocNode(&nb, g, after_free ? &nfree : &na, 1, &b);
    int *pb = (int *)b.dptr, w = 100, m = bytes / sizeof(int) < (size_t)N ? (int)(bytes / sizeof(int)) : N;
    void *gargs[] = { &pb, &m, &w };
    cudaGraphNode_t ng = kernel(g, &nb, 1, (void *)fill, gargs);
    int *out;
    cudaMalloc(&out, sizeof(int));
    cudaMemset(out, 0, sizeof(int));
    void *sargs[] = { &pb, &m, &out };
    cudaGraphNode_t ns = kernel(g, &ng, 1, (void *)sum, sargs);
    cudaGraphNode_t nfb;
    cudaGraphAddMemFreeNode(&nfb, g, &ns, 1, b.dptr);
    cudaGraphExec_t x;
    cudaError_t e = cudaGraphInstantiate(&x, g, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaGraphLaunch(x, 0);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    int h = 0;
    cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s: same address %s, run %s, sum %d\n", what, a.dptr == b.dptr ? "yes" : "no",
           cudaGetErrorName(e), h);
    if (e == cudaSuccess) cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaFree(out);
}

static void captured(const char *what, bool free_first)
{
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaGraph_t g;
    int *pa, *pb;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaMallocAsync(&pa, N * sizeof(int), s);
    fill<<<N / 256, 256, 0, s>>>(pa, N, 3);
    if (free_first) cudaFreeAsync(pa, s);
    cudaMallocAsync(&pb, N * sizeof(int), s);
    fill<<<N / 256, 256, 0, s>>>(pb, N, 5);
    if (!free_first) cudaFreeAsync(pa, s);
    cudaFreeAsync(pb, s);
    cudaError_t e = cudaStreamEndCapture(s, &g);
    cudaGraphExec_t x;
    if (e == cudaSuccess) e = cudaGraphInstantiate(&x, g, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaGraphLaunch(x, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    printf("%s: same address %s, run %s\n", what, pa == pb ? "yes" : "no", cudaGetErrorName(e));
    cudaGraphExecDestroy(x);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
}

int main()
{
    cudaFree(0);
    by_hand("after the free, same size", N * sizeof(int), true);
    by_hand("after the free, half the size", N * sizeof(int) / 2, true);
    by_hand("after the free, twice the size", 2 * N * sizeof(int), true);
    by_hand("beside the free", N * sizeof(int), false);
    captured("captured: freed before the next allocation", true);
    captured("captured: freed after the next allocation", false);
    return 0;
}
