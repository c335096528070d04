// runtime_extras.cu - runtime calls over less common driver paths, and their errors: stream and
// kernel-node launch attributes (access policy window, synchronization policy, memory sync
// domains, priority, cooperation, cluster shape), managed-memory range attributes after
// cudaMemAdvise/cudaMemPrefetchAsync, the location-based pool calls, cudaStreamAttachMemAsync,
// cudaGetFuncBySymbol and cudaFuncGetParamInfo, the deprecated 1D array copies, cudaMalloc3D and
// cudaMemset3D, and libraries loaded from PTX (cudaLibrary*). Prints error names, values and
// checksums only. Managed ranges are advised in whole 2 MiB halves, so that the GPU's page
// granularity cannot show.
// Not probed because they crash NVIDIA's runtime on the H100 (measured): a null value pointer to
// cudaStreamGetAttribute, and cudaStreamAttachMemAsync with flags 0.
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <cuda_runtime.h>

// the 1D array copies are deprecated, and tested here all the same
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define SHOW(label, call) printf("%s: %s\n", label, cudaGetErrorName(call))
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

__global__ void scale(int *p, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = p[i] * k + i;
}

__global__ void params(int *p, int a, double d, char c)
{
    if (p) p[0] = a + (int)d + c;
}

static void host_only(void) {}

static void print_window(const char *label, const cudaAccessPolicyWindow &w, const void *base)
{
    printf("%s: base %s, bytes %zu, hitRatio %.2f, hitProp %d, missProp %d\n", label,
           w.base_ptr == base ? "as set" : (w.base_ptr ? "other" : "null"), w.num_bytes,
           w.hitRatio, (int)w.hitProp, (int)w.missProp);
}

static void print_stream(const char *label, cudaStream_t s, const void *base)
{
    cudaLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    cudaError_t e = cudaStreamGetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &v);
    if (e != cudaSuccess) { printf("%s window: %s\n", label, cudaGetErrorName(e)); return; }
    print_window(label, v.accessPolicyWindow, base);
    memset(&v, 0, sizeof v);
    SHOW("  sync policy", cudaStreamGetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
    printf("  sync policy = %d\n", (int)v.syncPolicy);
    memset(&v, 0x7f, sizeof v);
    SHOW("  priority", cudaStreamGetAttribute(s, cudaLaunchAttributePriority, &v));
    printf("  priority = %d\n", v.priority);
    memset(&v, 0, sizeof v);
    SHOW("  domain map", cudaStreamGetAttribute(s, cudaLaunchAttributeMemSyncDomainMap, &v));
    printf("  domain map = %d %d\n", v.memSyncDomainMap.default_, v.memSyncDomainMap.remote);
    memset(&v, 0x7f, sizeof v);
    SHOW("  domain", cudaStreamGetAttribute(s, cudaLaunchAttributeMemSyncDomain, &v));
    printf("  domain = %d\n", (int)v.memSyncDomain);
}

static int stream_attributes(void *base)
{
    printf("== stream attributes\n");
    int maxw = 0;
    CHECK(cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxAccessPolicyWindowSize, 0));
    cudaStream_t s, t;
    CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, -2));
    CHECK(cudaStreamCreate(&t));
    print_stream("new stream", s, base);

    cudaLaunchAttributeValue v;
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = base;
    v.accessPolicyWindow.num_bytes = 1 << 20;
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    SHOW("set window", cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &v));
    cudaLaunchAttributeValue bad = v;
    bad.accessPolicyWindow.hitRatio = 1.5f;
    SHOW("set window hitRatio 1.5", cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &bad));
    bad = v;
    bad.accessPolicyWindow.hitRatio = -0.25f;
    SHOW("set window hitRatio -0.25", cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &bad));
    bad = v;
    bad.accessPolicyWindow.num_bytes = (size_t)maxw + 1;
    SHOW("set window past the largest", cudaStreamSetAttribute(s, cudaLaunchAttributeAccessPolicyWindow, &bad));
    bad = v;
    bad.accessPolicyWindow.num_bytes = (size_t)maxw;
    bad.accessPolicyWindow.hitRatio = 1.0f;
    SHOW("set window of the largest size", cudaStreamSetAttribute(t, cudaLaunchAttributeAccessPolicyWindow, &bad));
    memset(&bad, 0, sizeof bad);
    SHOW("clear window", cudaStreamSetAttribute(t, cudaLaunchAttributeAccessPolicyWindow, &bad));

    memset(&v, 0, sizeof v);
    v.syncPolicy = cudaSyncPolicySpin;
    SHOW("set sync policy spin", cudaStreamSetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
    v.syncPolicy = (cudaSynchronizationPolicy)9;
    SHOW("set sync policy 9", cudaStreamSetAttribute(s, cudaLaunchAttributeSynchronizationPolicy, &v));
    memset(&v, 0, sizeof v);
    v.memSyncDomainMap.default_ = 1;
    v.memSyncDomainMap.remote = 0;
    SHOW("set domain map 1 0", cudaStreamSetAttribute(s, cudaLaunchAttributeMemSyncDomainMap, &v));
    memset(&v, 0, sizeof v);
    v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    SHOW("set domain remote", cudaStreamSetAttribute(s, cudaLaunchAttributeMemSyncDomain, &v));
    print_stream("after sets", s, base);

    SHOW("get cooperative of a stream", cudaStreamGetAttribute(s, cudaLaunchAttributeCooperative, &v));
    // no null value pointer: NVIDIA's runtime writes through it (seen with its static runtime)

    SHOW("copy attributes", cudaStreamCopyAttributes(t, s));
    print_stream("copy", t, base);

    // the legacy and per-thread streams keep theirs too
    memset(&v, 0, sizeof v);
    v.syncPolicy = cudaSyncPolicyYield;
    SHOW("set legacy sync policy", cudaStreamSetAttribute(0, cudaLaunchAttributeSynchronizationPolicy, &v));
    memset(&v, 0, sizeof v);
    SHOW("get legacy sync policy", cudaStreamGetAttribute(0, cudaLaunchAttributeSynchronizationPolicy, &v));
    printf("legacy sync policy = %d\n", (int)v.syncPolicy);
    memset(&v, 0, sizeof v);
    SHOW("get per-thread sync policy", cudaStreamGetAttribute(cudaStreamPerThread, cudaLaunchAttributeSynchronizationPolicy, &v));
    printf("per-thread sync policy = %d\n", (int)v.syncPolicy);
    memset(&v, 0x7f, sizeof v);
    SHOW("get legacy priority", cudaStreamGetAttribute(cudaStreamLegacy, cudaLaunchAttributePriority, &v));
    printf("legacy priority = %d\n", v.priority);
    SHOW("copy from per-thread to t", cudaStreamCopyAttributes(t, cudaStreamPerThread));
    print_stream("t after copy", t, base);

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    return 0;
}

static int node_attributes(int *buf, int n)
{
    printf("== kernel node attributes\n");
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    int k2 = 2, k3 = 3;
    void *args2[] = { &buf, &n, &k2 }, *args3[] = { &buf, &n, &k3 };
    cudaKernelNodeParams p;
    memset(&p, 0, sizeof p);
    p.func = (void *)scale;
    p.gridDim = dim3(4);
    p.blockDim = dim3(64);
    p.kernelParams = args2;
    cudaGraphNode_t a, b, c, empty;
    CHECK(cudaGraphAddKernelNode(&a, g, nullptr, 0, &p));
    p.kernelParams = args3;
    CHECK(cudaGraphAddKernelNode(&b, g, &a, 1, &p));
    CHECK(cudaGraphAddKernelNode(&c, g, &b, 1, &p));
    CHECK(cudaGraphAddEmptyNode(&empty, g, &c, 1));

    cudaLaunchAttributeValue v;
    memset(&v, 0x7f, sizeof v);
    SHOW("get cooperative", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeCooperative, &v));
    printf("cooperative = %d\n", v.cooperative);
    memset(&v, 0x7f, sizeof v);
    SHOW("get priority", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributePriority, &v));
    printf("priority = %d\n", v.priority);
    memset(&v, 0, sizeof v);
    SHOW("get window", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeAccessPolicyWindow, &v));
    print_window("node window", v.accessPolicyWindow, buf);

    memset(&v, 0, sizeof v);
    v.cooperative = 1;
    SHOW("set cooperative", cudaGraphKernelNodeSetAttribute(a, cudaLaunchAttributeCooperative, &v));
    memset(&v, 0, sizeof v);
    v.clusterDim.x = 2; v.clusterDim.y = 1; v.clusterDim.z = 1;
    SHOW("set cluster 2x1x1", cudaGraphKernelNodeSetAttribute(b, cudaLaunchAttributeClusterDimension, &v));
    memset(&v, 0, sizeof v);
    v.priority = -3;
    SHOW("set priority", cudaGraphKernelNodeSetAttribute(b, cudaLaunchAttributePriority, &v));
    memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = buf;
    v.accessPolicyWindow.num_bytes = 4096;
    v.accessPolicyWindow.hitRatio = 0.25f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    SHOW("set window", cudaGraphKernelNodeSetAttribute(b, cudaLaunchAttributeAccessPolicyWindow, &v));
    v.accessPolicyWindow.hitRatio = 2.0f;
    SHOW("set window hitRatio 2", cudaGraphKernelNodeSetAttribute(b, cudaLaunchAttributeAccessPolicyWindow, &v));
    memset(&v, 0, sizeof v);
    v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    SHOW("set domain", cudaGraphKernelNodeSetAttribute(b, cudaLaunchAttributeMemSyncDomain, &v));

    memset(&v, 0x7f, sizeof v);
    SHOW("get cooperative", cudaGraphKernelNodeGetAttribute(a, cudaLaunchAttributeCooperative, &v));
    printf("cooperative = %d\n", v.cooperative);
    memset(&v, 0, sizeof v);
    SHOW("get cluster", cudaGraphKernelNodeGetAttribute(b, cudaLaunchAttributeClusterDimension, &v));
    printf("cluster = %u %u %u\n", v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);

    SHOW("copy attributes b -> c", cudaGraphKernelNodeCopyAttributes(c, b));
    memset(&v, 0, sizeof v);
    SHOW("get c cluster", cudaGraphKernelNodeGetAttribute(c, cudaLaunchAttributeClusterDimension, &v));
    printf("c cluster = %u %u %u\n", v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);
    memset(&v, 0x7f, sizeof v);
    SHOW("get c priority", cudaGraphKernelNodeGetAttribute(c, cudaLaunchAttributePriority, &v));
    printf("c priority = %d\n", v.priority);
    memset(&v, 0, sizeof v);
    SHOW("get c window", cudaGraphKernelNodeGetAttribute(c, cudaLaunchAttributeAccessPolicyWindow, &v));
    print_window("c window", v.accessPolicyWindow, buf);
    memset(&v, 0x7f, sizeof v);
    SHOW("get c domain", cudaGraphKernelNodeGetAttribute(c, cudaLaunchAttributeMemSyncDomain, &v));
    printf("c domain = %d\n", (int)v.memSyncDomain);

    SHOW("get from an empty node", cudaGraphKernelNodeGetAttribute(empty, cudaLaunchAttributePriority, &v));
    SHOW("set on an empty node", cudaGraphKernelNodeSetAttribute(empty, cudaLaunchAttributePriority, &v));
    SHOW("copy to an empty node", cudaGraphKernelNodeCopyAttributes(empty, b));

    // the attributes go with the graph: a cooperative node, two clustered ones
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaMemset(buf, 0, n * sizeof(int)));
    CHECK(cudaGraphLaunch(x, 0));
    CHECK(cudaStreamSynchronize(0));
    int h[256];
    CHECK(cudaMemcpy(h, buf, n * sizeof(int), cudaMemcpyDeviceToHost));
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += (long long)h[i] * (i % 7 + 1);
    printf("graph result: h[5] %d, h[255] %d, checksum %lld\n", h[5], h[255], sum);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

static void range_attrs(const char *label, char *p, size_t n)
{
    int rm = -9, pref = -9, last = -9, acc[3] = { -9, -9, -9 };
    int ptype = -9, pid = -9, ltype = -9, lid = -9;
    cudaError_t e = cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, p, n);
    if (e != cudaSuccess) { printf("%s: %s\n", label, cudaGetErrorName(e)); return; }
    cudaMemRangeGetAttribute(&pref, 4, cudaMemRangeAttributePreferredLocation, p, n);
    cudaMemRangeGetAttribute(acc, sizeof acc, cudaMemRangeAttributeAccessedBy, p, n);
    cudaMemRangeGetAttribute(&last, 4, cudaMemRangeAttributeLastPrefetchLocation, p, n);
    cudaMemRangeGetAttribute(&ptype, 4, cudaMemRangeAttributePreferredLocationType, p, n);
    cudaMemRangeGetAttribute(&pid, 4, cudaMemRangeAttributePreferredLocationId, p, n);
    cudaMemRangeGetAttribute(&ltype, 4, cudaMemRangeAttributeLastPrefetchLocationType, p, n);
    cudaMemRangeGetAttribute(&lid, 4, cudaMemRangeAttributeLastPrefetchLocationId, p, n);
    // ids mean something only for devices (and host NUMA nodes)
    printf("%s: read-mostly %d, preferred %d (type %d id %d), accessed-by %d %d %d, last prefetch %d (type %d id %d)\n",
           label, rm, pref, ptype, ptype == cudaMemLocationTypeDevice ? pid : 0, acc[0], acc[1],
           acc[2], last, ltype, ltype == cudaMemLocationTypeDevice ? lid : 0);
}

static int managed_memory(int *dev_buf)
{
    printf("== managed memory\n");
    const size_t half = 2u << 20;
    char *m;
    CHECK(cudaMallocManaged(&m, 2 * half));
    memset(m, 1, 2 * half);
    range_attrs("fresh", m, 2 * half);

    cudaMemLocation dev0 = { cudaMemLocationTypeDevice, 0 }, host = { cudaMemLocationTypeHost, 0 };
    SHOW("advise read-mostly", cudaMemAdvise(m, 2 * half, cudaMemAdviseSetReadMostly, dev0));
    SHOW("advise preferred device 0 (second half)", cudaMemAdvise(m + half, half, cudaMemAdviseSetPreferredLocation, dev0));
    SHOW("advise preferred host (first half)", cudaMemAdvise(m, half, cudaMemAdviseSetPreferredLocation, host));
    SHOW("advise accessed by device 0", cudaMemAdvise(m, 2 * half, cudaMemAdviseSetAccessedBy, dev0));
    range_attrs("whole", m, 2 * half);
    range_attrs("first half", m, half);
    range_attrs("second half", m + half, half);

    SHOW("prefetch to device 0", cudaMemPrefetchAsync(m, 2 * half, dev0, 0, 0));
    CHECK(cudaDeviceSynchronize());
    range_attrs("after prefetch to device", m, 2 * half);
    SHOW("prefetch first half to host", cudaMemPrefetchAsync(m, half, host, 0, 0));
    CHECK(cudaDeviceSynchronize());
    range_attrs("whole", m, 2 * half);
    range_attrs("first half", m, half);
    SHOW("unset read-mostly (first half)", cudaMemAdvise(m, half, cudaMemAdviseUnsetReadMostly, dev0));
    SHOW("unset preferred (second half)", cudaMemAdvise(m + half, half, cudaMemAdviseUnsetPreferredLocation, dev0));
    SHOW("unset accessed by (second half)", cudaMemAdvise(m + half, half, cudaMemAdviseUnsetAccessedBy, dev0));
    range_attrs("whole", m, 2 * half);
    range_attrs("second half", m + half, half);

    int rm = -9, last = -9;
    void *data[2] = { &rm, &last };
    size_t sizes[2] = { 4, 4 };
    cudaMemRangeAttribute which[2] = { cudaMemRangeAttributeReadMostly, cudaMemRangeAttributeLastPrefetchLocation };
    SHOW("get attributes", cudaMemRangeGetAttributes(data, sizes, which, 2, m + half, half));
    printf("attributes: read-mostly %d, last prefetch %d\n", rm, last);
    sizes[1] = 8;
    SHOW("get attributes, one size 8", cudaMemRangeGetAttributes(data, sizes, which, 2, m + half, half));

    long long bigv = 0;
    SHOW("read-mostly of size 8", cudaMemRangeGetAttribute(&bigv, 8, cudaMemRangeAttributeReadMostly, m, half));
    SHOW("accessed-by of size 6", cudaMemRangeGetAttribute(&bigv, 6, cudaMemRangeAttributeAccessedBy, m, half));
    SHOW("null data", cudaMemRangeGetAttribute(nullptr, 4, cudaMemRangeAttributeReadMostly, m, half));
    SHOW("device memory", cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, dev_buf, 256));
    SHOW("past the allocation", cudaMemRangeGetAttribute(&rm, 4, cudaMemRangeAttributeReadMostly, m + half, half + 4096));
    SHOW("attribute 99", cudaMemRangeGetAttribute(&rm, 4, (cudaMemRangeAttribute)99, m, half));
    SHOW("advise device memory", cudaMemAdvise(dev_buf, 256, cudaMemAdviseSetReadMostly, dev0));

    printf("== stream attach\n");
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    SHOW("attach global, length 0", cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachGlobal));
    SHOW("attach single, whole", cudaStreamAttachMemAsync(s, m, 2 * half, cudaMemAttachSingle));
    CHECK(cudaStreamSynchronize(s));
    SHOW("attach host", cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachHost));
    CHECK(cudaStreamSynchronize(s));
    SHOW("attach flags 3", cudaStreamAttachMemAsync(s, m, 0, 3));
    SHOW("attach part", cudaStreamAttachMemAsync(s, m, 4096, cudaMemAttachGlobal));
    SHOW("attach device memory", cudaStreamAttachMemAsync(s, dev_buf, 0, cudaMemAttachGlobal));
    SHOW("attach single to the null stream", cudaStreamAttachMemAsync(0, m, 0, cudaMemAttachSingle));
    SHOW("attach global on the null stream", cudaStreamAttachMemAsync(0, m, 0, cudaMemAttachGlobal));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceSynchronize());
    long long sum = 0;
    for (size_t i = 0; i < 2 * half; i += 4093) sum += m[i];
    printf("managed data still %lld\n", sum);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(m));
    return 0;
}

static int pools(void)
{
    printf("== location-based pools\n");
    cudaMemLocation dev0 = { cudaMemLocationTypeDevice, 0 };
    cudaMemPool_t dflt, viadev, cur, mine;
    CHECK(cudaDeviceGetDefaultMemPool(&viadev, 0));
    SHOW("default pool", cudaMemGetDefaultMemPool(&dflt, &dev0, cudaMemAllocationTypePinned));
    printf("same as the device's default: %d\n", dflt == viadev);
    SHOW("current pool", cudaMemGetMemPool(&cur, &dev0, cudaMemAllocationTypePinned));
    printf("current is the default: %d\n", cur == dflt);
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location = dev0;
    CHECK(cudaMemPoolCreate(&mine, &props));
    SHOW("set current pool", cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, mine));
    CHECK(cudaMemGetMemPool(&cur, &dev0, cudaMemAllocationTypePinned));
    printf("current is mine: %d\n", cur == mine);
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    printf("the device's current is mine: %d\n", cur == mine);
    void *p;
    CHECK(cudaMallocAsync(&p, 1000, 0));
    CHECK(cudaFreeAsync(p, 0));
    CHECK(cudaStreamSynchronize(0));
    unsigned long long used = 1;
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemHigh, &used));
    printf("my pool's high mark %llu\n", used);
    SHOW("set the default back", cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, dflt));
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    printf("the device's current is the default: %d\n", cur == dflt);

    cudaMemLocation dev99 = { cudaMemLocationTypeDevice, 99 }, bogus = { (cudaMemLocationType)77, 0 };
    SHOW("default pool, null location", cudaMemGetDefaultMemPool(&cur, nullptr, cudaMemAllocationTypePinned));
    SHOW("default pool, null out", cudaMemGetDefaultMemPool(nullptr, &dev0, cudaMemAllocationTypePinned));
    SHOW("default pool, device 99", cudaMemGetDefaultMemPool(&cur, &dev99, cudaMemAllocationTypePinned));
    SHOW("default pool, location type 77", cudaMemGetDefaultMemPool(&cur, &bogus, cudaMemAllocationTypePinned));
    SHOW("default pool, allocation type invalid", cudaMemGetDefaultMemPool(&cur, &dev0, cudaMemAllocationTypeInvalid));
    SHOW("current pool, device 99", cudaMemGetMemPool(&cur, &dev99, cudaMemAllocationTypePinned));
    SHOW("current pool, null out", cudaMemGetMemPool(nullptr, &dev0, cudaMemAllocationTypePinned));
    SHOW("set pool, null pool", cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, nullptr));
    SHOW("set pool, device 99", cudaMemSetMemPool(&dev99, cudaMemAllocationTypePinned, mine));
    CHECK(cudaMemPoolDestroy(mine));
    return 0;
}

static int functions(void)
{
    printf("== functions\n");
    cudaFunction_t f1 = nullptr, f2 = nullptr;
    SHOW("func by symbol", cudaGetFuncBySymbol(&f1, (const void *)scale));
    SHOW("func by symbol again", cudaGetFuncBySymbol(&f2, (const void *)scale));
    printf("handle: %s, same both times: %d\n", f1 ? "non-null" : "null", f1 == f2);
    SHOW("func by symbol, other kernel", cudaGetFuncBySymbol(&f2, (const void *)params));
    printf("differs from the first: %d\n", f1 != f2);
    SHOW("func by symbol, host function", cudaGetFuncBySymbol(&f2, (const void *)host_only));
    SHOW("func by symbol, null out", cudaGetFuncBySymbol(nullptr, (const void *)scale));
    for (size_t i = 0; i < 5; i++) {
        size_t off = 999, size = 999;
        cudaError_t e = cudaFuncGetParamInfo((const void *)params, i, &off, &size);
        printf("param %zu: %s", i, cudaGetErrorName(e));
        if (e == cudaSuccess) printf(" offset %zu size %zu", off, size);
        printf("\n");
    }
    size_t off, size;
    SHOW("param info, host function", cudaFuncGetParamInfo((const void *)host_only, 0, &off, &size));
    return 0;
}

static void print_array(const char *label, cudaArray_t a, int w, int h)
{
    float v[64];
    cudaError_t e = cudaMemcpy2DFromArray(v, w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                                          cudaMemcpyDeviceToHost);
    printf("%s:", label);
    if (e != cudaSuccess) { printf(" %s\n", cudaGetErrorName(e)); return; }
    for (int i = 0; i < w * h; i++) printf("%s%g", i % w ? " " : " | ", v[i]);
    printf("\n");
}

static int arrays(void)
{
    printf("== 1D array copies\n");
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a, b, line;
    CHECK(cudaMallocArray(&a, &fd, 8, 4));
    CHECK(cudaMallocArray(&b, &fd, 6, 4));
    CHECK(cudaMallocArray(&line, &fd, 16, 0));
    float zero[64] = { 0 }, src[64], out[64];
    for (int i = 0; i < 64; i++) src[i] = (float)(i + 1);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, zero, 32, 32, 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DToArray(b, 0, 0, zero, 24, 24, 4, cudaMemcpyHostToDevice));

    // 12 floats from float 2 of row 1: 6 in row 1, then 6 at the start of row 2
    SHOW("to array", cudaMemcpyToArray(a, 8, 1, src, 48, cudaMemcpyHostToDevice));
    print_array("a", a, 8, 4);
    SHOW("to array async, row 3", cudaMemcpyToArrayAsync(a, 0, 3, src + 20, 32, cudaMemcpyHostToDevice, 0));
    CHECK(cudaStreamSynchronize(0));
    print_array("a", a, 8, 4);
    memset(out, 0, sizeof out);
    SHOW("from array", cudaMemcpyFromArray(out, a, 28, 1, 40, cudaMemcpyDeviceToHost));
    printf("from array:");
    for (int i = 0; i < 10; i++) printf(" %g", out[i]);
    printf("\n");
    memset(out, 0, sizeof out);
    SHOW("from array async", cudaMemcpyFromArrayAsync(out, a, 0, 2, 64, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaStreamSynchronize(0));
    printf("from array async:");
    for (int i = 0; i < 16; i++) printf(" %g", out[i]);
    printf("\n");
    // rows of 8 floats into rows of 6
    SHOW("array to array", cudaMemcpyArrayToArray(b, 4, 0, a, 0, 1, 64, cudaMemcpyDeviceToDevice));
    print_array("b", b, 6, 4);

    SHOW("to a 1D array", cudaMemcpyToArray(line, 8, 0, src, 40, cudaMemcpyHostToDevice));
    memset(out, 0, sizeof out);
    SHOW("from a 1D array", cudaMemcpyFromArray(out, line, 0, 0, 64, cudaMemcpyDeviceToHost));
    printf("1D array:");
    for (int i = 0; i < 16; i++) printf(" %g", out[i]);
    printf("\n");

    SHOW("to array, past the end", cudaMemcpyToArray(a, 0, 3, src, 36, cudaMemcpyHostToDevice));
    SHOW("to array, offset past the row", cudaMemcpyToArray(a, 32, 0, src, 4, cudaMemcpyHostToDevice));
    SHOW("to array, row past the end", cudaMemcpyToArray(a, 0, 4, src, 4, cudaMemcpyHostToDevice));
    SHOW("to a 1D array, past the end", cudaMemcpyToArray(line, 60, 0, src, 8, cudaMemcpyHostToDevice));
    // no bad kind: NVIDIA's runtime answers cudaSuccess for kind 7 here (seen with its static runtime)
    SHOW("to array, bad kind", cudaMemcpy2DToArray(a, 0, 0, src, 4, 4, 1, (cudaMemcpyKind)7));
    SHOW("array to array, past the end", cudaMemcpyArrayToArray(b, 0, 3, a, 0, 0, 28, cudaMemcpyDeviceToDevice));
    SHOW("to array, nothing", cudaMemcpyToArray(a, 0, 0, src, 0, cudaMemcpyHostToDevice));
    // a failed copy did the rows before the one past the end; an offset past a row goes on
    print_array("a after", a, 8, 4);
    CHECK(cudaFreeArray(a));
    CHECK(cudaFreeArray(b));
    CHECK(cudaFreeArray(line));
    return 0;
}

static int pitched3d(void)
{
    printf("== cudaMalloc3D and cudaMemset3D\n");
    cudaPitchedPtr pp;
    cudaExtent ext = make_cudaExtent(100, 3, 2);
    SHOW("malloc3d", cudaMalloc3D(&pp, ext));
    printf("pitch %zu, xsize %zu, ysize %zu, aligned %d\n", pp.pitch, pp.xsize, pp.ysize,
           (int)((size_t)pp.ptr % 256 == 0));
    SHOW("memset3d whole", cudaMemset3D(pp, 7, ext));
    SHOW("memset3d part", cudaMemset3D(pp, 9, make_cudaExtent(50, 2, 2)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    SHOW("memset3d async", cudaMemset3DAsync(pp, 5, make_cudaExtent(10, 1, 1), s));
    CHECK(cudaStreamSynchronize(s));
    unsigned char h[2][3][100];
    cudaMemcpy3DParms c;
    memset(&c, 0, sizeof c);
    c.srcPtr = pp;
    c.dstPtr = make_cudaPitchedPtr(h, 100, 100, 3);
    c.extent = ext;
    c.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&c));
    long long sum = 0;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 100; x++) sum += h[z][y][x] * (x + 3 * y + 7 * z + 1);
    printf("bytes: %d %d %d %d %d, checksum %lld\n", h[0][0][0], h[0][0][20], h[0][2][0], h[1][1][49],
           h[1][1][50], sum);
    cudaPitchedPtr narrow = pp;
    narrow.pitch = 64;
    SHOW("memset3d pitch below width", cudaMemset3D(narrow, 1, ext));
    SHOW("memset3d nothing", cudaMemset3D(pp, 1, make_cudaExtent(0, 3, 2)));
    SHOW("malloc3d null", cudaMalloc3D(nullptr, ext));
    cudaPitchedPtr empty;
    SHOW("malloc3d empty", cudaMalloc3D(&empty, make_cudaExtent(0, 0, 0)));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(pp.ptr));
    return 0;
}

static const char ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .global .align 4 .u32 gval = 7;\n"
    ".visible .global .attribute(.managed) .align 4 .u32 mval = 5;\n"
    ".visible .entry add_k(.param .u64 p, .param .u32 n, .param .u32 k)\n"
    "{\n"
    "  .reg .pred %pr;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  ld.param.u32 %r2, [k];\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ntid.x;\n"
    "  mov.u32 %r5, %tid.x;\n"
    "  mad.lo.s32 %r6, %r3, %r4, %r5;\n"
    "  setp.ge.s32 %pr, %r6, %r1;\n"
    "  @%pr bra DONE;\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mul.wide.s32 %rd2, %r6, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r7, [%rd3];\n"
    "  add.s32 %r7, %r7, %r2;\n"
    "  st.global.u32 [%rd3], %r7;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry noop_k()\n"
    "{\n"
    "  ret;\n"
    "}\n";

static int libraries(int *buf, int n)
{
    printf("== libraries\n");
    cudaLibrary_t lib, lib2;
    SHOW("load data", cudaLibraryLoadData(&lib, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    unsigned count = 0;
    SHOW("kernel count", cudaLibraryGetKernelCount(&count, lib));
    printf("kernels: %u\n", count);
    cudaKernel_t ks[4] = { nullptr, nullptr, nullptr, nullptr };
    SHOW("enumerate", cudaLibraryEnumerateKernels(ks, 2, lib));
    cudaKernel_t k = nullptr, noop = nullptr;
    SHOW("get kernel add_k", cudaLibraryGetKernel(&k, lib, "add_k"));
    SHOW("get kernel noop_k", cudaLibraryGetKernel(&noop, lib, "noop_k"));
    printf("enumerated both: %d\n", (ks[0] == k && ks[1] == noop) || (ks[0] == noop && ks[1] == k));
    SHOW("get kernel nope", cudaLibraryGetKernel(&noop, lib, "nope"));

    CHECK(cudaMemset(buf, 0, n * sizeof(int)));
    int kk = 11;
    void *args[] = { &buf, &n, &kk };
    SHOW("launch library kernel", cudaLaunchKernel((const void *)k, dim3(4), dim3(64), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    int h[256];
    CHECK(cudaMemcpy(h, buf, n * sizeof(int), cudaMemcpyDeviceToHost));
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("library kernel sum %lld\n", sum);
    size_t off = 0, size = 0;
    SHOW("param info of a library kernel", cudaFuncGetParamInfo((const void *)k, 2, &off, &size));
    printf("param 2 offset %zu size %zu\n", off, size);

    void *g = nullptr;
    size_t gbytes = 0;
    SHOW("get global", cudaLibraryGetGlobal(&g, &gbytes, lib, "gval"));
    unsigned gv = 0;
    CHECK(cudaMemcpy(&gv, g, 4, cudaMemcpyDeviceToHost));
    printf("gval = %u, %zu bytes\n", gv, gbytes);
    SHOW("get global nope", cudaLibraryGetGlobal(&g, &gbytes, lib, "nope"));
    void *mptr = nullptr;
    size_t mbytes = 0;
    SHOW("get managed", cudaLibraryGetManaged(&mptr, &mbytes, lib, "mval"));
    if (mptr) printf("mval = %u, %zu bytes\n", *(unsigned *)mptr, mbytes);

    char path[64];
    snprintf(path, sizeof path, "/tmp/runtime_extras_%d.ptx", (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) { printf("cannot write %s\n", path); return 1; }
    fputs(ptx, f);
    fclose(f);
    SHOW("load from file", cudaLibraryLoadFromFile(&lib2, path, nullptr, nullptr, 0, nullptr, nullptr, 0));
    remove(path);
    count = 0;
    SHOW("kernel count of the file's", cudaLibraryGetKernelCount(&count, lib2));
    printf("kernels: %u\n", count);
    SHOW("unload file's", cudaLibraryUnload(lib2));
    SHOW("load missing file", cudaLibraryLoadFromFile(&lib2, "/nonexistent/x.ptx", nullptr, nullptr, 0,
                                                      nullptr, nullptr, 0));
    SHOW("load null", cudaLibraryLoadData(&lib2, nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0));
    SHOW("unload", cudaLibraryUnload(lib));
    return 0;
}

int main()
{
    setvbuf(stdout, NULL, _IOLBF, 0);   // every line reaches the file, also before a crash
    const int n = 256;
    int *buf;
    CHECK(cudaMalloc(&buf, n * sizeof(int)));
    if (stream_attributes(buf) || node_attributes(buf, n) || managed_memory(buf) || pools() ||
        functions() || arrays() || pitched3d() || libraries(buf, n))
        return 1;
    CHECK(cudaFree(buf));
    SHOW("last error", cudaGetLastError());
    return 0;
}
