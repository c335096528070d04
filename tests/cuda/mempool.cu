// mempool.cu - the stream-ordered allocator and memory pools: cudaMallocAsync/cudaFreeAsync on
// the default pool and on created pools, pool attributes (release threshold, reuse flags, used
// memory current/high), the device's current pool, access descriptors, trimming, pointer
// attributes, and the errors of each call. Prints only deterministic values (reserved memory
// too: it grows in 32 MiB chunks, the same in every run). Expected output recorded on an H100
// (tests/gpu/record_cuda.sh).
#include <cstdio>
#include <cstring>
#include <cuda.h>

#define SHOW(label, call) printf("%s: %s\n", label, cudaGetErrorName(call))
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

__global__ void fill(int *p, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v + i;
}

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

// cuPointerGetAttribute through the runtime, so the program needs no -lcuda.
static CUresult pool_of(void *p, CUmemoryPool *owner)
{
    typedef CUresult (*Fn)(void *, CUpointer_attribute, CUdeviceptr);
    static Fn fn;
    cudaDriverEntryPointQueryResult q;
    if (!fn && cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", (void **)&fn, 12000,
                                                cudaEnableDefault, &q) != cudaSuccess)
        return CUDA_ERROR_NOT_FOUND;
    *owner = nullptr;
    return fn(owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, (CUdeviceptr)p);
}

static unsigned long long attr64(cudaMemPool_t pool, cudaMemPoolAttr a)
{
    unsigned long long v = ~0ull;
    cudaError_t e = cudaMemPoolGetAttribute(pool, a, &v);
    if (e != cudaSuccess) printf("get attribute %d: %s\n", (int)a, cudaGetErrorName(e));
    return v;
}

static int attr32(cudaMemPool_t pool, cudaMemPoolAttr a)
{
    int v = -1;
    cudaError_t e = cudaMemPoolGetAttribute(pool, a, &v);
    if (e != cudaSuccess) printf("get attribute %d: %s\n", (int)a, cudaGetErrorName(e));
    return v;
}

static void usage(const char *when, cudaMemPool_t pool)
{
    unsigned long long used = attr64(pool, cudaMemPoolAttrUsedMemCurrent);
    unsigned long long used_hi = attr64(pool, cudaMemPoolAttrUsedMemHigh);
    unsigned long long res = attr64(pool, cudaMemPoolAttrReservedMemCurrent);
    unsigned long long res_hi = attr64(pool, cudaMemPoolAttrReservedMemHigh);
    printf("%s: used %llu, used high %llu, reserved %llu, reserved high %llu\n", when, used,
           used_hi, res, res_hi);
}

static int check_values(const char *what, const int *d, int n, int base)
{
    int *h = new int[n];
    cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += h[i] != base + i;
    printf("%s: %s\n", what, bad ? "wrong" : "ok");
    delete[] h;
    return bad;
}

static cudaMemPoolProps device_props(void)
{
    cudaMemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = cudaMemAllocationTypePinned;
    p.location.type = cudaMemLocationTypeDevice;
    p.location.id = 0;
    return p;
}

static int default_pool(cudaStream_t s)
{
    int supported = -1;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    printf("memory pools supported: %d\n", supported);
    cudaMemPool_t def = nullptr, cur = nullptr;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    printf("default pool is current: %d, non-null %d\n", def == cur, def != nullptr);
    printf("release threshold: %llu\n", attr64(def, cudaMemPoolAttrReleaseThreshold));
    printf("reuse: follow events %d, opportunistic %d, internal deps %d\n",
           attr32(def, cudaMemPoolReuseFollowEventDependencies),
           attr32(def, cudaMemPoolReuseAllowOpportunistic),
           attr32(def, cudaMemPoolReuseAllowInternalDependencies));
    usage("fresh", def);

    const int n = 1 << 18;   // 1 MiB of ints
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMallocAsync((void **)&a, n * sizeof(int), s));
    usage("after 1 MiB", def);
    fill<<<n / 256, 256, 0, s>>>(a, n, 7);
    CHECK(cudaMallocAsync((void **)&b, 100, s));
    usage("after 100 more bytes", def);
    CHECK(cudaMemcpyAsync(b, a, 100, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaStreamSynchronize(s));
    check_values("async allocation", a, n, 7);
    check_values("second allocation", b, 25, 7);

    CUmemoryPool owner = nullptr;
    CUresult r = pool_of(a, &owner);
    printf("pointer's pool: %d, is the default %d\n", (int)r, owner == (CUmemoryPool)def);
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, a));
    printf("pointer type: %d, device %d\n", (int)pa.type, pa.device);

    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaFreeAsync(b, s));
    CHECK(cudaStreamSynchronize(s));
    usage("after frees", def);
    unsigned long long zero = 0;
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
    usage("high marks reset", def);
    CHECK(cudaMemPoolTrimTo(def, 0));
    usage("trimmed", def);

    // freed on another stream than it was allocated on, after an event
    cudaStream_t s2;
    cudaEvent_t ev;
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&ev));
    CHECK(cudaMallocAsync((void **)&a, n * sizeof(int), s));
    fill<<<n / 256, 256, 0, s>>>(a, n, 3);
    CHECK(cudaEventRecord(ev, s));
    CHECK(cudaStreamWaitEvent(s2, ev, 0));
    add_one<<<n / 256, 256, 0, s2>>>(a, n);
    CHECK(cudaStreamSynchronize(s2));
    check_values("two streams", a, n, 4);
    CHECK(cudaFreeAsync(a, s2));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaEventDestroy(ev));
    CHECK(cudaStreamDestroy(s2));
    return 0;
}

static int errors(cudaStream_t s)
{
    void *p = (void *)1;
    SHOW("malloc async 0 bytes", cudaMallocAsync(&p, 0, s));
    printf("  pointer null: %d\n", p == nullptr);
    SHOW("malloc async null out", cudaMallocAsync(nullptr, 16, s));
    p = nullptr;
    SHOW("malloc async 1 PiB", cudaMallocAsync(&p, (size_t)1 << 50, s));
    SHOW("  then last error", cudaGetLastError());
    SHOW("free async null", cudaFreeAsync(nullptr, s));
    int *q;
    CHECK(cudaMallocAsync((void **)&q, 64, s));
    CHECK(cudaFreeAsync(q, s));
    CHECK(cudaStreamSynchronize(s));
    SHOW("free async twice", cudaFreeAsync(q, s));
    cudaGetLastError();
    int host;
    SHOW("free async host pointer", cudaFreeAsync(&host, s));
    cudaGetLastError();
    int *m;
    CHECK(cudaMalloc((void **)&m, 64));
    SHOW("free async of cudaMalloc memory", cudaFreeAsync(m, s));
    SHOW("  sync", cudaStreamSynchronize(s));
    cudaGetLastError();
    SHOW("malloc from null pool", cudaMallocFromPoolAsync(&p, 16, nullptr, s));
    cudaMemPool_t pool;
    SHOW("default pool of device 1", cudaDeviceGetDefaultMemPool(&pool, 1));
    SHOW("default pool null out", cudaDeviceGetDefaultMemPool(nullptr, 0));
    SHOW("get pool of device -1", cudaDeviceGetMemPool(&pool, -1));
    cudaGetLastError();

    cudaMemPoolProps props = device_props();
    props.location.id = 1;
    SHOW("create on device 1", cudaMemPoolCreate(&pool, &props));
    props = device_props();
    props.allocType = cudaMemAllocationTypeInvalid;
    SHOW("create with invalid type", cudaMemPoolCreate(&pool, &props));
    props = device_props();
    props.location.type = cudaMemLocationTypeInvalid;
    SHOW("create with invalid location", cudaMemPoolCreate(&pool, &props));
    SHOW("create null props", cudaMemPoolCreate(&pool, nullptr));
    cudaGetLastError();

    cudaMemPool_t def;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    SHOW("destroy default pool", cudaMemPoolDestroy(def));
    cudaGetLastError();
    unsigned long long big = 12345;
    SHOW("set used current", cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &big));
    SHOW("set used high nonzero", cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &big));
    SHOW("set reserved current", cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &big));
    int flag = 0;
    SHOW("get bad attribute", cudaMemPoolGetAttribute(def, (cudaMemPoolAttr)99, &flag));
    SHOW("get null value", cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, nullptr));
    cudaGetLastError();
    return 0;
}

static int created_pool(cudaStream_t s)
{
    cudaMemPoolProps props = device_props();
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &props));
    cudaMemPool_t def;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    printf("created pool differs from default: %d\n", pool != def);
    printf("created release threshold: %llu\n", attr64(pool, cudaMemPoolAttrReleaseThreshold));
    unsigned long long thr = ~0ull;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    printf("threshold set to max: %d\n", attr64(pool, cudaMemPoolAttrReleaseThreshold) == ~0ull);
    int off = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
    printf("opportunistic after clearing: %d\n", attr32(pool, cudaMemPoolReuseAllowOpportunistic));

    cudaMemLocation loc = { cudaMemLocationTypeDevice, 0 };
    cudaMemAccessFlags fl = cudaMemAccessFlagsProtNone;
    CHECK(cudaMemPoolGetAccess(&fl, pool, &loc));
    printf("access of device 0: %d\n", (int)fl);
    cudaMemAccessDesc desc = { { cudaMemLocationTypeDevice, 0 }, cudaMemAccessFlagsProtReadWrite };
    SHOW("set access read-write for device 0", cudaMemPoolSetAccess(pool, &desc, 1));
    desc.flags = cudaMemAccessFlagsProtNone;
    SHOW("set access none for device 0", cudaMemPoolSetAccess(pool, &desc, 1));
    cudaGetLastError();
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    SHOW("set access for device 1", cudaMemPoolSetAccess(pool, &desc, 1));
    cudaGetLastError();
    loc.id = 5;
    SHOW("get access of device 5", cudaMemPoolGetAccess(&fl, pool, &loc));
    cudaGetLastError();

    const int n = 4096;
    int *a;
    CHECK(cudaMallocFromPoolAsync((void **)&a, n * sizeof(int), pool, s));
    fill<<<n / 256, 256, 0, s>>>(a, n, 100);
    CHECK(cudaStreamSynchronize(s));
    check_values("allocation from created pool", a, n, 100);
    usage("created pool in use", pool);
    usage("default pool meanwhile", def);
    CUmemoryPool owner = nullptr;
    pool_of(a, &owner);
    printf("pointer's pool is the created one: %d\n", owner == (CUmemoryPool)pool);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaStreamSynchronize(s));
    usage("created pool after free", pool);
    CHECK(cudaMemPoolTrimTo(pool, 0));
    usage("created pool trimmed", pool);

    // the device's current pool is what cudaMallocAsync draws from
    CHECK(cudaDeviceSetMemPool(0, pool));
    cudaMemPool_t cur;
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    printf("current pool is the created one: %d\n", cur == pool);
    CHECK(cudaMallocAsync((void **)&a, 2048, s));
    usage("malloc async with created pool current", pool);
    CHECK(cudaFreeAsync(a, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceSetMemPool(0, def));
    SHOW("set pool of device 1", cudaDeviceSetMemPool(1, pool));
    cudaGetLastError();

    // destroying a pool that still has an allocation: allowed, freed when the allocation is
    CHECK(cudaMallocFromPoolAsync((void **)&a, 256, pool, s));
    CHECK(cudaStreamSynchronize(s));
    SHOW("destroy pool with live allocation", cudaMemPoolDestroy(pool));
    SHOW("free after destroy", cudaFreeAsync(a, s));
    SHOW("sync", cudaStreamSynchronize(s));
    cudaGetLastError();
    return 0;
}

int main()
{
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    if (default_pool(s) || errors(s) || created_pool(s)) return 1;
    // the legacy stream works too
    int *a;
    CHECK(cudaMallocAsync((void **)&a, 4096, 0));
    fill<<<4, 256>>>(a, 1024, 9);
    check_values("legacy stream", a, 1024, 9);
    CHECK(cudaFreeAsync(a, 0));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaStreamDestroy(s));
    printf("done\n");
    return 0;
}
