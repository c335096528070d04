/* driver_facts.c - records what a real CUDA driver answers, for ptxemu's libcuda.so.1 to answer
 * the same: calls before cuInit, every device attribute, every error code's name and string,
 * primary-context and context defaults, and which exported function cuGetProcAddress hands
 * out for each (symbol, version, flags) read from stdin as "name version" lines.
 * Build: cc -I$CUDA/include driver_facts.c -L$CUDA/lib64/stubs -lcuda -ldl
 * Usage: driver_facts SECTION < names   (SECTION: init, attrs, errors, ctx, procs, noctx)
 * noctx: what works with no context current on the thread, on objects a context still
 * holds (Numba frees its memory after popping its context); its output is exact, and
 * tests/run_driver_facts.sh runs it on ptxemu against the recording.
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void init_section(void)
{
    int v = -1;
    CUdevice d = -1;
    const char *s = NULL;
    printf("before-init cuDriverGetVersion rc=%d v=%d\n", cuDriverGetVersion(&v), v);
    printf("before-init cuDeviceGet rc=%d\n", cuDeviceGet(&d, 0));
    int n = -1;
    printf("before-init cuDeviceGetCount rc=%d n=%d\n", cuDeviceGetCount(&n), n);
    printf("before-init cuGetErrorName rc=%d\n", cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    CUcontext c = (CUcontext)1;
    printf("before-init cuCtxGetCurrent rc=%d\n", cuCtxGetCurrent(&c));
    void *p = NULL;
    CUdriverProcAddressQueryResult st = -1;
    printf("before-init cuGetProcAddress(cuInit) rc=%d found=%d st=%d\n",
           cuGetProcAddress("cuInit", &p, 13000, 0, &st), p != NULL, (int)st);
    CUdeviceptr dp;
    printf("before-init cuMemAlloc rc=%d\n", cuMemAlloc(&dp, 16));
    printf("cuInit(1) rc=%d\n", cuInit(1));
    printf("cuInit(0) rc=%d\n", cuInit(0));
    printf("cuInit(0) again rc=%d\n", cuInit(0));
    printf("cuDeviceGetCount rc=%d n=%d\n", cuDeviceGetCount(&n), n);
    printf("cuDeviceGet(1) rc=%d\n", cuDeviceGet(&d, 1));
    printf("cuDeviceGet(-1) rc=%d\n", cuDeviceGet(&d, -1));
    printf("cuDeviceGet(NULL) rc=%d\n", cuDeviceGet(NULL, 0));
    c = (CUcontext)1;
    printf("no-ctx cuCtxGetCurrent rc=%d null=%d\n", cuCtxGetCurrent(&c), c == NULL);
    printf("no-ctx cuMemAlloc rc=%d\n", cuMemAlloc(&dp, 16));
    CUdevice cd = -1;
    printf("no-ctx cuCtxGetDevice rc=%d\n", cuCtxGetDevice(&cd));
    printf("no-ctx cuCtxSynchronize rc=%d\n", cuCtxSynchronize());
    printf("no-ctx cuCtxPopCurrent rc=%d\n", cuCtxPopCurrent(&c));
    CUmodule m;
    printf("no-ctx cuModuleLoadData rc=%d\n", cuModuleLoadData(&m, ".version 8.0\n.target sm_90\n.address_size 64\n"));
}

static void attrs_section(void)
{
    CUdevice d;
    cuInit(0);
    cuDeviceGet(&d, 0);
    char name[256] = "";
    size_t mem = 0;
    CUuuid u;
    printf("name rc=%d %s\n", cuDeviceGetName(name, sizeof name, d), name);
    printf("totalmem rc=%d %zu\n", cuDeviceTotalMem(&mem, d), mem);
    printf("uuid rc=%d", cuDeviceGetUuid(&u, d));
    for (int i = 0; i < 16; i++) printf(" %02x", (unsigned char)u.bytes[i]);
    printf("\n");
    char bus[64] = "";
    printf("pcibusid rc=%d %s\n", cuDeviceGetPCIBusId(bus, sizeof bus, d), bus);
    int major = 0, minor = 0;
    printf("capability rc=%d %d.%d\n", cuDeviceComputeCapability(&major, &minor, d), major, minor);
    for (int a = 0; a < 400; a++) {
        int v = -12345;
        CUresult rc = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, d);
        printf("attr %d rc=%d v=%d\n", a, rc, v);
    }
    size_t w = 0;
    printf("tex1dlinear float1 rc=%d %zu\n",
           cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 1, d), w);
}

static void errors_section(void)
{
    for (int code = 0; code < 1100; code++) {
        const char *n = NULL, *s = NULL;
        CUresult a = cuGetErrorName((CUresult)code, &n);
        CUresult b = cuGetErrorString((CUresult)code, &s);
        if (a == CUDA_SUCCESS || b == CUDA_SUCCESS)
            printf("%d\t%d\t%s\t%d\t%s\n", code, a, n ? n : "(null)", b, s ? s : "(null)");
    }
    const char *n = (const char *)1;
    printf("unknown rc=%d null=%d\n", cuGetErrorName((CUresult)77777, &n), n == NULL);
}

static void ctx_section(void)
{
    CUdevice d;
    cuInit(0);
    cuDeviceGet(&d, 0);
    unsigned flags = 99;
    int active = 99;
    printf("primary state rc=%d flags=%u active=%d\n", cuDevicePrimaryCtxGetState(d, &flags, &active), flags, active);
    CUcontext pc, cur;
    printf("retain rc=%d\n", cuDevicePrimaryCtxRetain(&pc, d));
    printf("primary state rc=%d flags=%u active=%d\n", cuDevicePrimaryCtxGetState(d, &flags, &active), flags, active);
    cur = (CUcontext)1;
    printf("current after retain rc=%d null=%d\n", cuCtxGetCurrent(&cur), cur == NULL);
    printf("setcurrent rc=%d\n", cuCtxSetCurrent(pc));
    unsigned api = 0;
    printf("apiversion rc=%d %u\n", cuCtxGetApiVersion(pc, &api), api);
    printf("ctxflags rc=%d\n", cuCtxGetFlags(&flags));
    printf("ctxflags=%u\n", flags);
    for (int l = 0; l < 8; l++) {
        size_t v = 0;
        CUresult rc = cuCtxGetLimit(&v, (CUlimit)l);
        printf("limit %d rc=%d %zu\n", l, rc, v);
    }
    int lo = 0, hi = 0;
    printf("priorities rc=%d %d %d\n", cuCtxGetStreamPriorityRange(&lo, &hi), lo, hi);
    CUfunc_cache cc;
    printf("cacheconfig rc=%d %d\n", cuCtxGetCacheConfig(&cc), (int)cc);
    CUcontext c2;
    CUctxCreateParams params;
    memset(&params, 0, sizeof params);
    printf("ctxcreate rc=%d\n", cuCtxCreate(&c2, &params, 0, d));
    cur = NULL;
    cuCtxGetCurrent(&cur);
    printf("current is new=%d\n", cur == c2);
    printf("pop rc=%d\n", cuCtxPopCurrent(&cur));
    printf("popped new=%d\n", cur == c2);
    cuCtxGetCurrent(&cur);
    printf("current is primary=%d\n", cur == pc);
    printf("pop rc=%d\n", cuCtxPopCurrent(&cur));
    cur = (CUcontext)1;
    printf("current after pops rc=%d null=%d\n", cuCtxGetCurrent(&cur), cur == NULL);
    printf("pop empty rc=%d\n", cuCtxPopCurrent(&cur));
    printf("push new rc=%d\n", cuCtxPushCurrent(c2));
    printf("destroy new rc=%d\n", cuCtxDestroy(c2));
    cur = (CUcontext)1;
    printf("current after destroy rc=%d null=%d\n", cuCtxGetCurrent(&cur), cur == NULL);
    printf("release primary rc=%d\n", cuDevicePrimaryCtxRelease(d));
    printf("primary state rc=%d flags=%u active=%d\n", cuDevicePrimaryCtxGetState(d, &flags, &active), flags, active);
    printf("setflags rc=%d\n", cuDevicePrimaryCtxSetFlags(d, CU_CTX_SCHED_BLOCKING_SYNC));
    printf("primary state rc=%d flags=%u active=%d\n", cuDevicePrimaryCtxGetState(d, &flags, &active), flags, active);
    printf("release unretained rc=%d\n", cuDevicePrimaryCtxRelease(d));
}

/* A kernel for the calls made without a current context. */
static const char noctx_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n"
    " ld.param.u64 %rd1, [p];\n mov.u32 %r1, 7;\n st.global.u32 [%rd1], %r1;\n ret;\n}\n";

#define NOCTX(what, call) printf("noctx %s rc=%d\n", what, (int)(call))

/* Objects of a context that is retained (or alive) but not current: which calls still work. */
static void noctx_section(void)
{
    CUdevice d;
    CUcontext pc, c2, cur;
    cuInit(0);
    cuDeviceGet(&d, 0);
    NOCTX("retain", cuDevicePrimaryCtxRetain(&pc, d));
    NOCTX("push primary", cuCtxPushCurrent(pc));
    CUdeviceptr d1 = 0, d2 = 0, d3 = 0;
    void *h1 = NULL, *h2 = NULL;
    static char reg[1 << 16] __attribute__((aligned(4096)));
    char buf[64] = { 0 };
    CUstream s1 = NULL, s2 = NULL;
    CUevent e1 = NULL, e2 = NULL, e3 = NULL;
    CUmodule m1 = NULL, m2 = NULL;
    CUfunction f = NULL;
    NOCTX("alloc", cuMemAlloc(&d1, 256));
    NOCTX("alloc", cuMemAlloc(&d2, 256));
    NOCTX("alloc", cuMemAlloc(&d3, 256));
    NOCTX("allochost", cuMemAllocHost(&h1, 256));
    NOCTX("hostalloc mapped", cuMemHostAlloc(&h2, 256, CU_MEMHOSTALLOC_DEVICEMAP));
    NOCTX("hostregister", cuMemHostRegister(reg, sizeof reg, 0));
    NOCTX("streamcreate", cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    NOCTX("streamcreate", cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    NOCTX("eventcreate", cuEventCreate(&e1, 0));
    NOCTX("eventcreate", cuEventCreate(&e2, 0));
    NOCTX("eventcreate", cuEventCreate(&e3, 0));
    NOCTX("moduleload", cuModuleLoadData(&m1, noctx_ptx));
    NOCTX("moduleload", cuModuleLoadData(&m2, noctx_ptx));
    NOCTX("getfunction", cuModuleGetFunction(&f, m1, "k"));
    NOCTX("record", cuEventRecord(e2, s2));
    NOCTX("pop", cuCtxPopCurrent(&cur));
    cur = (CUcontext)1;
    NOCTX("getcurrent", cuCtxGetCurrent(&cur));
    printf("noctx current is null=%d\n", cur == NULL);
    /* nothing is current now; the primary context is retained */
    NOCTX("memfree", cuMemFree(d1));
    NOCTX("memfree again", cuMemFree(d1));
    NOCTX("memfree null", cuMemFree(0));
    NOCTX("memfreehost", cuMemFreeHost(h1));
    NOCTX("hostunregister", cuMemHostUnregister(reg));
    NOCTX("streamdestroy", cuStreamDestroy(s1));
    NOCTX("eventdestroy", cuEventDestroy(e1));
    NOCTX("moduleunload", cuModuleUnload(m2));
    NOCTX("memalloc", cuMemAlloc(&d1, 256));
    NOCTX("memcpyhtod", cuMemcpyHtoD(d2, buf, sizeof buf));
    NOCTX("memcpydtoh", cuMemcpyDtoH(buf, d2, sizeof buf));
    NOCTX("memcpydtod", cuMemcpyDtoD(d3, d2, sizeof buf));
    NOCTX("memcpyhtodasync", cuMemcpyHtoDAsync(d2, buf, sizeof buf, s2));
    NOCTX("memsetd8", cuMemsetD8(d2, 1, 16));
    size_t free_b = 0, total_b = 0;
    NOCTX("memgetinfo", cuMemGetInfo(&free_b, &total_b));
    CUdeviceptr base = 0;
    size_t size = 0;
    NOCTX("getaddressrange", cuMemGetAddressRange(&base, &size, d2));
    CUcontext owner = NULL;
    NOCTX("pointerattr context", cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, d2));
    printf("noctx pointer owner is primary=%d\n", owner == pc);
    CUdeviceptr dh = 0;
    NOCTX("hostgetdevicepointer", cuMemHostGetDevicePointer(&dh, h2, 0));
    NOCTX("streamsync", cuStreamSynchronize(s2));
    NOCTX("streamquery", cuStreamQuery(s2));
    NOCTX("eventrecord", cuEventRecord(e3, s2));
    NOCTX("eventsync", cuEventSynchronize(e3));
    NOCTX("eventquery", cuEventQuery(e3));
    float ms = 0;
    NOCTX("elapsed", cuEventElapsedTime(&ms, e2, e3));
    int regs = 0;
    NOCTX("funcgetattribute", cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    void *args[] = { &d2 };
    NOCTX("launch", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s2, args, NULL));
    NOCTX("streamsync after launch", cuStreamSynchronize(s2));
    CUfunction f2 = NULL;
    NOCTX("getfunction", cuModuleGetFunction(&f2, m1, "k"));
    NOCTX("ctxsynchronize", cuCtxSynchronize());
    /* back in the context: did the copies and the kernel happen? */
    NOCTX("push primary", cuCtxPushCurrent(pc));
    unsigned v = 0;
    NOCTX("memcpydtoh in ctx", cuMemcpyDtoH(&v, d2, sizeof v));
    printf("noctx kernel wrote=%u\n", v);
    NOCTX("memfree in ctx", cuMemFree(d2));
    NOCTX("pop", cuCtxPopCurrent(&cur));
    /* a context of its own, popped: its memory freed from no context */
    CUctxCreateParams params;
    memset(&params, 0, sizeof params);
    CUdeviceptr d4 = 0;
    NOCTX("ctxcreate", cuCtxCreate(&c2, &params, 0, d));
    NOCTX("alloc in created", cuMemAlloc(&d4, 256));
    NOCTX("pop created", cuCtxPopCurrent(&cur));
    NOCTX("memfree of created", cuMemFree(d4));
    NOCTX("destroy created", cuCtxDestroy(c2));
    /* released to nothing: the primary context is destroyed with what it held */
    NOCTX("release", cuDevicePrimaryCtxRelease(d));
    NOCTX("memfree after release", cuMemFree(d3));
    /* not asked: the H200's driver (580.159.04) crashed in cuStreamDestroy of a stream of the
     * destroyed context (s2), where ptxemu answers CUDA_ERROR_INVALID_HANDLE */
    (void)s2; (void)e2; (void)m1; (void)h2;
}

/* Which exported symbol a pointer is (dladdr), or "?" */
static const char *symname(void *p, char *buf, size_t n)
{
    Dl_info di;
    if (!p) return "NULL";
    if (dladdr(p, &di) && di.dli_sname) {
        if (di.dli_saddr == p) return di.dli_sname;
        snprintf(buf, n, "%s+%#lx", di.dli_sname, (unsigned long)((char *)p - (char *)di.dli_saddr));
        return buf;
    }
    return "?";
}

static void procs_section(void)
{
    cuInit(0);
    char name[256];
    int ver;
    while (scanf("%255s %d", name, &ver) == 2) {
        for (unsigned long long fl = 0; fl < 5; fl++) {
            if (fl == 3) continue;
            void *p = NULL;
            CUdriverProcAddressQueryResult st = -1;
            CUresult rc = cuGetProcAddress(name, &p, ver, fl, &st);
            char buf[300];
            printf("%s %d %llu rc=%d st=%d %s\n", name, ver, fl, rc, (int)st, symname(p, buf, sizeof buf));
        }
    }
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *s = argc > 1 ? argv[1] : "";
    if (!strcmp(s, "init")) init_section();
    else if (!strcmp(s, "attrs")) attrs_section();
    else if (!strcmp(s, "errors")) errors_section();
    else if (!strcmp(s, "ctx")) ctx_section();
    else if (!strcmp(s, "procs")) procs_section();
    else if (!strcmp(s, "noctx")) noctx_section();
    else { fprintf(stderr, "usage: driver_facts init|attrs|errors|ctx|procs|noctx\n"); return 2; }
    return 0;
}
