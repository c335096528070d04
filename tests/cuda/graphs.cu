// graphs.cu - CUDA graphs: stream capture (fork and join through events, capture info,
// dependencies updated by hand, the interaction modes and the calls they forbid), explicit
// nodes of every common kind, node and edge queries, clone, instantiate and launch,
// executable updates (per node and whole graph), disabled nodes, conditional if and while
// nodes driven by cudaGraphSetConditional, memory nodes, user objects, and the errors of
// each. Prints only deterministic values; expected output recorded on an H100
// (tests/gpu/record_cuda.sh).
#include <cstdio>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#define SHOW(label, call) printf("%s: %s\n", label, cudaGetErrorName(call))
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

static const int N = 1024;

__global__ void set(int *p, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) p[i] = v;
}

__global__ void axpy(int *y, const int *x, int a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) y[i] += a * x[i];
}

__global__ void add(int *p, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) p[i] += v;
}

// Sets the condition to whether *flag is nonzero.
__global__ void set_cond(cudaGraphConditionalHandle h, const int *flag)
{
    cudaGraphSetConditional(h, *flag != 0);
}

// Loop body: counts *left down and keeps the loop going while it stays positive.
__global__ void loop_body(cudaGraphConditionalHandle h, int *left, int *iters)
{
    *iters += 1;
    *left -= 1;
    cudaGraphSetConditional(h, *left > 0);
}

static int *d_a, *d_b, *d_c;
static int host_calls;
static void CUDART_CB host_fn(void *p) { host_calls += *(int *)p; }

// The first element of a device array, and whether all N equal it.
static void show(const char *what, const int *d)
{
    static int h[N];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int same = 1;
    for (int i = 1; i < N; i++) same &= h[i] == h[0];
    printf("%s: %d%s\n", what, h[0], same ? "" : " (not uniform)");
}

static const char *type_name(cudaGraphNodeType t)
{
    switch (t) {
    case cudaGraphNodeTypeKernel: return "kernel";
    case cudaGraphNodeTypeMemcpy: return "memcpy";
    case cudaGraphNodeTypeMemset: return "memset";
    case cudaGraphNodeTypeHost: return "host";
    case cudaGraphNodeTypeGraph: return "graph";
    case cudaGraphNodeTypeEmpty: return "empty";
    case cudaGraphNodeTypeWaitEvent: return "wait-event";
    case cudaGraphNodeTypeEventRecord: return "event-record";
    case cudaGraphNodeTypeMemAlloc: return "mem-alloc";
    case cudaGraphNodeTypeMemFree: return "mem-free";
    case cudaGraphNodeTypeConditional: return "conditional";
    default: return "other";
    }
}

// Node count, types in the order cudaGraphGetNodes gives them, roots and edges.
static void describe(const char *what, cudaGraph_t g)
{
    size_t n = 0, roots = 0, edges = 0;
    cudaGraphGetNodes(g, nullptr, &n);
    cudaGraphNode_t nodes[32];
    size_t got = 32;
    cudaGraphGetNodes(g, nodes, &got);
    cudaGraphGetRootNodes(g, nullptr, &roots);
    cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
    printf("%s: %zu nodes, %zu roots, %zu edges:", what, n, roots, edges);
    for (size_t i = 0; i < got && i < n; i++) {
        cudaGraphNodeType t;
        cudaGraphNodeGetType(nodes[i], &t);
        size_t deps = 0;
        cudaGraphNodeGetDependencies(nodes[i], nullptr, nullptr, &deps);
        printf(" %s/%zu", type_name(t), deps);
    }
    printf("\n");
}

static int run(const char *what, cudaGraph_t g, cudaStream_t s, int times)
{
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    for (int i = 0; i < times; i++) CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(x));
    (void)what;
    return 0;
}

static int capture_basic(cudaStream_t s)
{
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s, &st));
    printf("before capture: status %d\n", (int)st);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaStreamIsCapturing(s, &st));
    printf("capturing: status %d\n", (int)st);
    CHECK(cudaMemsetAsync(d_a, 0, N * sizeof(int), s));
    set<<<N / 256, 256, 0, s>>>(d_b, 3);
    unsigned long long id1 = 0, id2 = 0;
    cudaGraph_t cg = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    size_t ndeps = 0;
    CHECK(cudaStreamGetCaptureInfo(s, &st, &id1, &cg, &deps, nullptr, &ndeps));
    printf("capture info: status %d, id nonzero %d, graph %d, %zu dependencies\n", (int)st,
           id1 != 0, cg != nullptr, ndeps);
    axpy<<<N / 256, 256, 0, s>>>(d_a, d_b, 2);
    static int inc = 1;
    CHECK(cudaLaunchHostFunc(s, host_fn, &inc));
    CHECK(cudaMemcpyAsync(d_c, d_a, N * sizeof(int), cudaMemcpyDeviceToDevice, s));
    CHECK(cudaStreamGetCaptureInfo(s, &st, &id2));
    printf("same capture id: %d\n", id1 == id2);
    printf("host calls during capture: %d\n", host_calls);
    cudaGraph_t g = nullptr;
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaStreamIsCapturing(s, &st));
    printf("after capture: status %d, graph %d, same as info %d\n", (int)st, g != nullptr, g == cg);
    describe("captured", g);
    if (run("captured", g, s, 3)) return 1;
    show("captured result", d_c);
    printf("host calls after 3 launches: %d\n", host_calls);
    CHECK(cudaGraphDestroy(g));
    return 0;
}

static int capture_fork_join(cudaStream_t s, cudaStream_t s2)
{
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    set<<<N / 256, 256, 0, s>>>(d_a, 1);
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s2, &st));
    unsigned long long i1, i2;
    cudaStreamGetCaptureInfo(s, &st, &i1);
    cudaStreamGetCaptureInfo(s2, &st, &i2);
    printf("forked stream: status %d, same capture %d\n", (int)st, i1 == i2);
    add<<<N / 256, 256, 0, s>>>(d_a, 10);
    set<<<N / 256, 256, 0, s2>>>(d_b, 5);
    add<<<N / 256, 256, 0, s2>>>(d_b, 1);
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s, join, 0));
    axpy<<<N / 256, 256, 0, s>>>(d_a, d_b, 3);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaStreamIsCapturing(s2, &st));
    printf("joined stream after end: status %d\n", (int)st);
    describe("fork/join", g);
    if (run("fork/join", g, s, 1)) return 1;
    show("fork/join result", d_a);   // (1 + 10) + 3 * 6
    CHECK(cudaGraphDestroy(g));

    // not joined back
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    set<<<N / 256, 256, 0, s2>>>(d_b, 5);
    g = (cudaGraph_t)1;
    SHOW("end without join", cudaStreamEndCapture(s, &g));
    printf("  graph null: %d\n", g == nullptr);
    CHECK(cudaStreamIsCapturing(s, &st));
    printf("  origin status %d\n", (int)st);
    CHECK(cudaStreamIsCapturing(s2, &st));
    printf("  forked status %d\n", (int)st);
    SHOW("  last error", cudaGetLastError());
    if (st != cudaStreamCaptureStatusNone) SHOW("  end on forked", cudaStreamEndCapture(s2, &g));
    cudaGetLastError();

    // ended on the wrong stream
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(fork, s));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    SHOW("end on joined stream", cudaStreamEndCapture(s2, &g));
    CHECK(cudaStreamIsCapturing(s, &st));
    printf("  origin status %d\n", (int)st);
    SHOW("  end on origin", cudaStreamEndCapture(s, &g));
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
    CHECK(cudaStreamIsCapturing(s2, &st));
    printf("  forked status %d\n", (int)st);
    if (st != cudaStreamCaptureStatusNone) { cudaStreamEndCapture(s2, &g); cudaGetLastError(); }
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    return 0;
}

static int capture_dependencies(cudaStream_t s)
{
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    set<<<N / 256, 256, 0, s>>>(d_a, 2);
    cudaStreamCaptureStatus st;
    const cudaGraphNode_t *deps;
    size_t n;
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    cudaGraphNode_t first = n ? deps[0] : nullptr;
    // the next node starts a new root
    CHECK(cudaStreamUpdateCaptureDependencies(s, nullptr, nullptr, 0, cudaStreamSetCaptureDependencies));
    set<<<N / 256, 256, 0, s>>>(d_b, 4);
    // and the one after depends on both
    CHECK(cudaStreamUpdateCaptureDependencies(s, &first, nullptr, 1, cudaStreamAddCaptureDependencies));
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, nullptr, &deps, nullptr, &n));
    printf("dependencies after add: %zu\n", n);
    SHOW("update with bad flags", cudaStreamUpdateCaptureDependencies(s, &first, nullptr, 1, 7));
    axpy<<<N / 256, 256, 0, s>>>(d_a, d_b, 1);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    describe("updated dependencies", g);
    if (run("deps", g, s, 1)) return 1;
    show("updated dependencies result", d_a);
    CHECK(cudaGraphDestroy(g));
    return 0;
}

struct Other { cudaStream_t s; cudaStreamCaptureMode mode; cudaError_t r; };
static void *malloc_elsewhere(void *p)
{
    Other *o = (Other *)p;
    cudaThreadExchangeStreamCaptureMode(&o->mode);
    void *q = nullptr;
    o->r = cudaMalloc(&q, 16);
    if (q) cudaFree(q);
    return nullptr;
}

// One forbidden (or allowed) call inside a capture of the given mode, then the end.
static int unsafe(const char *what, cudaStream_t s, cudaStreamCaptureMode mode, int call)
{
    CHECK(cudaStreamBeginCapture(s, mode));
    set<<<N / 256, 256, 0, s>>>(d_a, 1);
    cudaError_t r = cudaSuccess;
    void *p = nullptr;
    static int h[4];
    switch (call) {
    case 0: r = cudaMalloc(&p, 16); break;
    case 1: r = cudaStreamSynchronize(s); break;
    case 2: r = cudaDeviceSynchronize(); break;
    case 3: r = cudaMemcpy(h, d_a, sizeof h, cudaMemcpyDeviceToHost); break;
    case 4: r = cudaStreamQuery(s); break;
    case 5: set<<<1, 32>>>(d_b, 1); r = cudaGetLastError(); break;
    case 6: r = cudaMallocHost(&p, 16); break;
    case 7: {   // another thread, in global mode then in thread-local mode
        Other o = { s, cudaStreamCaptureModeGlobal, cudaSuccess };
        pthread_t t;
        pthread_create(&t, nullptr, malloc_elsewhere, &o);
        pthread_join(t, nullptr);
        printf("  other thread (global mode): %s\n", cudaGetErrorName(o.r));
        o.mode = cudaStreamCaptureModeThreadLocal;
        pthread_create(&t, nullptr, malloc_elsewhere, &o);
        pthread_join(t, nullptr);
        printf("  other thread (thread-local mode): %s\n", cudaGetErrorName(o.r));
        break;
    }
    case 8: {   // this thread relaxed
        cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
        CHECK(cudaThreadExchangeStreamCaptureMode(&m));
        printf("  previous thread mode %d\n", (int)m);
        r = cudaMalloc(&p, 16);
        CHECK(cudaThreadExchangeStreamCaptureMode(&m));
        break;
    }
    }
    if (p && call == 6) cudaFreeHost(p);
    else if (p) cudaFree(p);
    cudaStreamCaptureStatus st;
    cudaStreamIsCapturing(s, &st);
    printf("%s: %s, status %d", what, cudaGetErrorName(r), (int)st);
    cudaGraph_t g = (cudaGraph_t)1;
    r = cudaStreamEndCapture(s, &g);
    printf(", end %s, graph %s\n", cudaGetErrorName(r), g == nullptr ? "null" : "made");
    if (r == cudaSuccess && g) cudaGraphDestroy(g);
    printf("  last error %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}

static int capture_modes(cudaStream_t s, cudaStream_t blocking)
{
    if (unsafe("cudaMalloc in global capture", s, cudaStreamCaptureModeGlobal, 0) ||
        unsafe("cudaMalloc in thread-local capture", s, cudaStreamCaptureModeThreadLocal, 0) ||
        unsafe("cudaMalloc in relaxed capture", s, cudaStreamCaptureModeRelaxed, 0) ||
        unsafe("cudaMallocHost in global capture", s, cudaStreamCaptureModeGlobal, 6) ||
        unsafe("sync of the capturing stream", s, cudaStreamCaptureModeRelaxed, 1) ||
        unsafe("device sync in global capture", s, cudaStreamCaptureModeGlobal, 2) ||
        unsafe("cudaMemcpy in global capture", s, cudaStreamCaptureModeGlobal, 3) ||
        unsafe("query of the capturing stream", s, cudaStreamCaptureModeGlobal, 4) ||
        unsafe("legacy stream launch, blocking stream captures", blocking,
               cudaStreamCaptureModeGlobal, 5) ||
        unsafe("legacy stream launch, non-blocking stream captures", s,
               cudaStreamCaptureModeGlobal, 5) ||
        unsafe("other threads during global capture", s, cudaStreamCaptureModeGlobal, 7) ||
        unsafe("other threads during thread-local capture", s, cudaStreamCaptureModeThreadLocal, 7) ||
        unsafe("relaxed thread in global capture", s, cudaStreamCaptureModeGlobal, 8))
        return 1;
    SHOW("capture the legacy stream", cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal));
    cudaGetLastError();
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SHOW("begin twice", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaGraph_t g = nullptr;
    SHOW("  end", cudaStreamEndCapture(s, &g));
    if (g) cudaGraphDestroy(g);
    SHOW("end without begin", cudaStreamEndCapture(s, &g));
    SHOW("begin with bad mode", cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7));
    cudaStreamCaptureMode m = (cudaStreamCaptureMode)9;
    SHOW("exchange bad mode", cudaThreadExchangeStreamCaptureMode(&m));
    cudaGetLastError();

    // an event recorded in a capture cannot be waited for by the host
    cudaEvent_t e;
    CHECK(cudaEventCreate(&e));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    CHECK(cudaEventRecord(e, s));
    SHOW("query of a captured event", cudaEventQuery(e));
    SHOW("sync of a captured event", cudaEventSynchronize(e));
    g = nullptr;
    SHOW("  end", cudaStreamEndCapture(s, &g));
    if (g) { describe("captured event record", g); cudaGraphDestroy(g); }
    cudaGetLastError();
    // recorded in a capture, then again outside: the host may wait for it again
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(e, s));
    CHECK(cudaStreamEndCapture(s, &g));
    SHOW("query after the capture ended", cudaEventQuery(e));
    CHECK(cudaGraphDestroy(g));
    cudaGetLastError();
    // an event recorded outside the capture
    CHECK(cudaEventRecord(e, 0));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    SHOW("wait for an outside event", cudaStreamWaitEvent(s, e, 0));
    SHOW("  end", cudaStreamEndCapture(s, &g));
    if (g) { describe("  outside event", g); cudaGraphDestroy(g); }
    cudaGetLastError();
    CHECK(cudaEventDestroy(e));
    return 0;
}

static int explicit_graph(cudaStream_t s)
{
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t ms, k1, k2, cp, hn, em;
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = d_a;
    mp.value = 7;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&ms, g, nullptr, 0, &mp));

    int value = 5;
    void *args[] = { &d_b, &value };
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)set;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    CHECK(cudaGraphAddKernelNode(&k1, g, nullptr, 0, &kp));
    value = 99;   // the node copied the arguments when it was made

    int a = 2;
    void *args2[] = { &d_a, &d_b, &a };
    kp.func = (void *)axpy;
    kp.kernelParams = args2;
    cudaGraphNode_t d2[] = { ms, k1 };
    CHECK(cudaGraphAddKernelNode(&k2, g, d2, 2, &kp));

    cudaMemcpy3DParms cpp;
    memset(&cpp, 0, sizeof cpp);
    cpp.srcPtr = make_cudaPitchedPtr(d_a, N * sizeof(int), N, 1);
    cpp.dstPtr = make_cudaPitchedPtr(d_c, N * sizeof(int), N, 1);
    cpp.extent = make_cudaExtent(N * sizeof(int), 1, 1);
    cpp.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaGraphAddMemcpyNode(&cp, g, &k2, 1, &cpp));
    static int two = 2;
    cudaHostNodeParams hp = { host_fn, &two };
    CHECK(cudaGraphAddHostNode(&hn, g, &cp, 1, &hp));
    CHECK(cudaGraphAddEmptyNode(&em, g, &hn, 1));
    describe("explicit", g);

    cudaKernelNodeParams got;
    CHECK(cudaGraphKernelNodeGetParams(k1, &got));
    printf("kernel node: func matches %d, grid %u, block %u, arg %d\n", got.func == (void *)set,
           got.gridDim.x, got.blockDim.x, *(int *)got.kernelParams[1]);
    cudaMemsetParams mgot;
    CHECK(cudaGraphMemsetNodeGetParams(ms, &mgot));
    printf("memset node: value %u, element size %u, width %zu\n", mgot.value, mgot.elementSize, mgot.width);
    size_t nd = 0;
    CHECK(cudaGraphNodeGetDependentNodes(k2, nullptr, nullptr, &nd));
    printf("dependents of axpy: %zu\n", nd);

    host_calls = 0;
    if (run("explicit", g, s, 1)) return 1;
    show("explicit result", d_c);   // 7 + 2 * 5
    printf("host calls: %d\n", host_calls);

    // a child graph, and clone
    cudaGraph_t parent, clone;
    CHECK(cudaGraphCreate(&parent, 0));
    cudaGraphNode_t child, tail;
    CHECK(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g));
    int v3 = 3;
    void *args3[] = { &d_c, &v3 };
    kp.func = (void *)add;
    kp.kernelParams = args3;
    CHECK(cudaGraphAddKernelNode(&tail, parent, &child, 1, &kp));
    describe("parent", parent);
    cudaGraph_t inner;
    CHECK(cudaGraphChildGraphNodeGetGraph(child, &inner));
    describe("child's graph", inner);
    CHECK(cudaGraphClone(&clone, parent));
    cudaGraphNode_t found;
    CHECK(cudaGraphNodeFindInClone(&found, tail, clone));
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(found, &t));
    printf("found in clone: %s, differs %d\n", type_name(t), found != tail);
    SHOW("find a node of another graph", cudaGraphNodeFindInClone(&found, k1, clone));
    cudaGetLastError();
    if (run("clone", clone, s, 1)) return 1;
    show("clone result", d_c);   // 17 + 3

    // dependencies by hand
    cudaGraph_t h;
    CHECK(cudaGraphCreate(&h, 0));
    cudaGraphNode_t e1, e2, e3;
    CHECK(cudaGraphAddEmptyNode(&e1, h, nullptr, 0));
    CHECK(cudaGraphAddEmptyNode(&e2, h, nullptr, 0));
    CHECK(cudaGraphAddEmptyNode(&e3, h, nullptr, 0));
    cudaGraphNode_t from[] = { e1, e2 }, to[] = { e3, e3 };
    CHECK(cudaGraphAddDependencies(h, from, to, nullptr, 2));
    describe("two edges added", h);
    SHOW("add an edge twice", cudaGraphAddDependencies(h, from, to, nullptr, 1));
    SHOW("edge to a node of another graph", cudaGraphAddDependencies(h, from, &k1, nullptr, 1));
    SHOW("edge to itself", cudaGraphAddDependencies(h, from, from, nullptr, 1));
    CHECK(cudaGraphRemoveDependencies(h, from, to, nullptr, 1));
    describe("one removed", h);
    SHOW("remove a missing edge", cudaGraphRemoveDependencies(h, from, to, nullptr, 1));
    CHECK(cudaGraphDestroyNode(e2));
    describe("node destroyed", h);
    SHOW("dependency on a node of another graph", cudaGraphAddEmptyNode(&e2, h, &k1, 1));
    SHOW("null dependency list", cudaGraphAddEmptyNode(&e2, h, nullptr, 1));
    kp.func = nullptr;
    SHOW("kernel node without function", cudaGraphAddKernelNode(&e2, h, nullptr, 0, &kp));
    kp.func = (void *)host_fn;
    SHOW("kernel node with a host function", cudaGraphAddKernelNode(&e2, h, nullptr, 0, &kp));
    mp.elementSize = 3;
    SHOW("memset node of element size 3", cudaGraphAddMemsetNode(&e2, h, nullptr, 0, &mp));
    cudaGetLastError();
    CHECK(cudaGraphDestroy(h));
    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphDestroy(parent));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

static int updates(cudaStream_t s)
{
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    int v = 1;
    void *args[] = { &d_a, &v };
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)set;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t k, k2, hn;
    CHECK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    int w = 10;
    void *args2[] = { &d_a, &w };
    kp.func = (void *)add;
    kp.kernelParams = args2;
    CHECK(cudaGraphAddKernelNode(&k2, g, &k, 1, &kp));
    static int one = 1;
    cudaHostNodeParams hp = { host_fn, &one };
    CHECK(cudaGraphAddHostNode(&hn, g, &k2, 1, &hp));
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    unsigned long long fl = 99;
    CHECK(cudaGraphExecGetFlags(x, &fl));
    printf("exec flags: %llu\n", fl);
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("before updates", d_a);

    w = 20;
    CHECK(cudaGraphExecKernelNodeSetParams(x, k2, &kp));
    static int hundred = 100;
    hp.userData = &hundred;
    host_calls = 0;
    CHECK(cudaGraphExecHostNodeSetParams(x, hn, &hp));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("exec kernel params set", d_a);
    printf("host calls: %d\n", host_calls);
    cudaKernelNodeParams got;
    CHECK(cudaGraphKernelNodeGetParams(k2, &got));
    printf("graph's own node keeps: %d\n", *(int *)got.kernelParams[1]);

    CHECK(cudaGraphNodeSetEnabled(x, k2, 0));
    unsigned en = 7;
    CHECK(cudaGraphNodeGetEnabled(x, k2, &en));
    printf("enabled after disabling: %u\n", en);
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("with the add node disabled", d_a);
    CHECK(cudaGraphNodeSetEnabled(x, k2, 1));

    // the graph's node changes, then a whole-graph update carries it over
    w = 30;
    CHECK(cudaGraphKernelNodeSetParams(k2, &kp));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(x, g, &info));
    printf("update: result %d\n", (int)info.result);
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("after whole-graph update", d_a);

    // a different topology cannot be applied
    cudaGraph_t g2;
    CHECK(cudaGraphCreate(&g2, 0));
    cudaGraphNode_t only;
    CHECK(cudaGraphAddKernelNode(&only, g2, nullptr, 0, &kp));
    memset(&info, 0, sizeof info);
    SHOW("update with another topology", cudaGraphExecUpdate(x, g2, &info));
    printf("  result %d, error node is null %d\n", (int)info.result, info.errorNode == nullptr);
    cudaGetLastError();
    // nor a different kernel function... which is allowed
    kp.func = (void *)set;
    CHECK(cudaGraphKernelNodeSetParams(k2, &kp));
    memset(&info, 0, sizeof info);
    SHOW("update with another function", cudaGraphExecUpdate(x, g, &info));
    printf("  result %d\n", (int)info.result);
    cudaGetLastError();
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("after function update", d_a);
    SHOW("exec set params of a foreign node", cudaGraphExecKernelNodeSetParams(x, only, &kp));
    SHOW("exec set kernel params on a host node", cudaGraphExecKernelNodeSetParams(x, hn, &kp));
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

static int conditionals(cudaStream_t s)
{
    int *flag, *left, *iters;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMalloc(&left, sizeof(int)));
    CHECK(cudaMalloc(&iters, sizeof(int)));

    // if: body runs when the setter kernel found *flag nonzero
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cudaGraphNode_t setter, cond;
    void *sargs[] = { &h, &flag };
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)set_cond;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = sargs;
    CHECK(cudaGraphAddKernelNode(&setter, g, nullptr, 0, &kp));
    cudaGraphNodeParams cp = {};
    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    CHECK(cudaGraphAddNode(&cond, g, &setter, nullptr, 1, &cp));
    cudaGraph_t body = cp.conditional.phGraph_out[0];
    int v = 1;
    void *bargs[] = { &d_a, &v };
    kp.func = (void *)add;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = bargs;
    cudaGraphNode_t bk;
    CHECK(cudaGraphAddKernelNode(&bk, body, nullptr, 0, &kp));
    describe("if graph", g);
    describe("if body", body);
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaMemset(d_a, 0, N * sizeof(int)));
    for (int i = 0; i < 4; i++) {
        int f = i & 1;
        CHECK(cudaMemcpy(flag, &f, sizeof f, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(x, s));
    }
    CHECK(cudaStreamSynchronize(s));
    show("if node ran twice of four", d_a);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));

    // while: default 1 each launch, the body counts down
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    CHECK(cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    body = cp.conditional.phGraph_out[0];
    void *largs[] = { &h, &left, &iters };
    kp.func = (void *)loop_body;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = largs;
    CHECK(cudaGraphAddKernelNode(&bk, body, nullptr, 0, &kp));
    CHECK(cudaGraphInstantiate(&x, g, 0));
    int five = 5, zero = 0, it = 0;
    CHECK(cudaMemcpy(left, &five, sizeof five, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(iters, &zero, sizeof zero, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(&it, iters, sizeof it, cudaMemcpyDeviceToHost));
    printf("while node iterations: %d\n", it);
    CHECK(cudaMemcpy(left, &five, sizeof five, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(&it, iters, sizeof it, cudaMemcpyDeviceToHost));
    printf("while node iterations after a second launch: %d\n", it);
    CHECK(cudaGraphExecDestroy(x));

    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 3;
    SHOW("if node of size 3", cudaGraphAddNode(&cond, g, nullptr, nullptr, 0, &cp));
    cudaGraph_t other;
    CHECK(cudaGraphCreate(&other, 0));
    cp.conditional.size = 1;
    SHOW("handle of another graph", cudaGraphAddNode(&cond, other, nullptr, nullptr, 0, &cp));
    cudaGetLastError();
    CHECK(cudaGraphDestroy(other));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(left));
    CHECK(cudaFree(iters));
    return 0;
}

static int memory_nodes(cudaStream_t s)
{
    // captured cudaMallocAsync / cudaFreeAsync become memory nodes
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *tmp = nullptr;
    CHECK(cudaMallocAsync((void **)&tmp, N * sizeof(int), s));
    set<<<N / 256, 256, 0, s>>>(tmp, 8);
    CHECK(cudaMemcpyAsync(d_c, tmp, N * sizeof(int), cudaMemcpyDeviceToDevice, s));
    CHECK(cudaFreeAsync(tmp, s));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    describe("captured memory nodes", g);
    CHECK(cudaMemset(d_c, 0, N * sizeof(int)));
    if (run("memory nodes", g, s, 2)) return 1;
    show("memory node result", d_c);
    cudaGraphNode_t nodes[8], alloc_node = nullptr, free_node = nullptr;
    size_t n = 8;
    CHECK(cudaGraphGetNodes(g, nodes, &n));
    for (size_t i = 0; i < n; i++) {
        cudaGraphNodeType t;
        cudaGraphNodeGetType(nodes[i], &t);
        if (t == cudaGraphNodeTypeMemAlloc) alloc_node = nodes[i];
        if (t == cudaGraphNodeTypeMemFree) free_node = nodes[i];
    }
    cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    SHOW("alloc node params", cudaGraphMemAllocNodeGetParams(alloc_node, &ap));
    printf("alloc node: %zu bytes, location type %d id %d, pointer matches %d\n", ap.bytesize,
           (int)ap.poolProps.location.type, ap.poolProps.location.id, ap.dptr == (void *)tmp);
    void *fp = nullptr;
    SHOW("free node params", cudaGraphMemFreeNodeGetParams(free_node, &fp));
    printf("free node pointer matches: %d\n", fp == (void *)tmp);
    CHECK(cudaGraphDestroy(g));

    // an allocation the graph does not free
    CHECK(cudaGraphCreate(&g, 0));
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(int);
    cudaGraphNode_t an;
    CHECK(cudaGraphAddMemAllocNode(&an, g, nullptr, 0, &ap));
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = ap.dptr;
    mp.value = 4;
    mp.elementSize = 4;
    mp.width = N;
    mp.height = 1;
    cudaGraphNode_t mn;
    CHECK(cudaGraphAddMemsetNode(&mn, g, &an, 1, &mp));
    cudaGraphExec_t x;
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("unfreed graph allocation", (int *)ap.dptr);
    SHOW("relaunch before the free", cudaGraphLaunch(x, s));
    cudaGetLastError();
    CHECK(cudaFreeAsync(ap.dptr, s));
    CHECK(cudaStreamSynchronize(s));
    SHOW("relaunch after the free", cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(ap.dptr));
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphInstantiate(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    SHOW("auto-free launch 1", cudaGraphLaunch(x, s));
    SHOW("auto-free launch 2", cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    show("auto-free result", (int *)ap.dptr);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaFree(ap.dptr));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaDeviceGraphMemTrim(0));
    unsigned long long used = 1;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    printf("graph memory in use at the end: %llu\n", used);
    return 0;
}

static int destroyed;
static void CUDART_CB obj_dtor(void *p) { destroyed += *(int *)p; }

static int user_objects(void)
{
    static int one = 1;
    cudaUserObject_t o;
    CHECK(cudaUserObjectCreate(&o, &one, obj_dtor, 1, cudaUserObjectNoDestructorSync));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove));
    cudaGraph_t c;
    CHECK(cudaGraphClone(&c, g));
    CHECK(cudaGraphDestroy(g));
    printf("destroyed after first graph: %d\n", destroyed);
    CHECK(cudaGraphDestroy(c));
    for (int i = 0; i < 100 && !destroyed; i++) usleep(10000);
    printf("destroyed after clone: %d\n", destroyed);
    SHOW("create with zero count", cudaUserObjectCreate(&o, &one, obj_dtor, 0, cudaUserObjectNoDestructorSync));
    SHOW("create without destructor sync flag", cudaUserObjectCreate(&o, &one, obj_dtor, 1, 0));
    cudaGetLastError();
    return 0;
}

static int debug_dot(cudaStream_t s)
{
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    set<<<N / 256, 256, 0, s>>>(d_a, 1);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    const char *path = "graphs_debug.dot";
    SHOW("dot print", cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
    FILE *f = fopen(path, "r");
    char line[256] = "";
    if (f && !fgets(line, sizeof line, f)) line[0] = 0;
    printf("dot file starts with digraph: %d\n", strncmp(line, "digraph", 7) == 0);
    if (f) fclose(f);
    unlink(path);
    CHECK(cudaGraphDestroy(g));
    return 0;
}

int main()
{
    CHECK(cudaMalloc(&d_a, N * sizeof(int)));
    CHECK(cudaMalloc(&d_b, N * sizeof(int)));
    CHECK(cudaMalloc(&d_c, N * sizeof(int)));
    cudaStream_t s, s2, blocking;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK(cudaStreamCreate(&blocking));
    if (capture_basic(s) || capture_fork_join(s, s2) || capture_dependencies(s) ||
        capture_modes(s, blocking) || explicit_graph(s) || updates(s) || conditionals(s) ||
        memory_nodes(s) || user_objects() || debug_dot(s))
        return 1;
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
