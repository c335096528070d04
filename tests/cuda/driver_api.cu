// driver_api.cu - what the CUDA driver API answers, call by call: before cuInit, devices,
// primary and created contexts and the context stack, modules from PTX (good, malformed,
// newer target, not an image), libraries, JIT linking (and an undefined .extern), memory and
// copies (in and past allocations), pointer attributes, streams, events, launches (good and
// bad shapes, clusters, cooperative), function attributes, occupancy, cuGetProcAddress and
// cuGetExportTable, and a kernel fault with the context's recovery by reset.
// Built the default way with -lcuda (driver_api.flags); expected output recorded on an H100.
#include <cuda.h>
#include <dlfcn.h>
#include <cstdio>
#include <cstring>

static const char *name_of(CUresult r)
{
    const char *n = NULL;
    return cuGetErrorName(r, &n) == CUDA_SUCCESS && n ? n : "(unknown code)";
}

#define SHOW(call) printf("%-60s %s\n", #call, name_of(call))

static const char *kernels_ptx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .global .align 4 .u32 counter = 5;
.visible .global .align 8 .f64 table[4] = { 1.5, 2.5, 3.5, 4.5 };

.visible .entry add_one(.param .u64 p, .param .u32 n)
{
    .reg .pred %q;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %q, %r5, %r1;
    @%q bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r2, [%rd2];
    add.s32 %r2, %r2, 1;
    st.global.u32 [%rd2], %r2;
    atom.global.add.u32 %r3, [counter], 1;
DONE:
    ret;
}

.visible .entry fault(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
)";

static const char *uses_extern_ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) helper(.param .b32 x);
.visible .entry caller(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    {
        .param .b32 a;
        .param .b32 r;
        st.param.b32 [a], %r1;
        call.uni (r), helper, (a);
        ld.param.b32 %r2, [r];
    }
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], %r2;
    ret;
}
)";

static const char *defines_extern_ptx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .func (.param .b32 r) helper(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    add.s32 %r2, %r1, 40;
    st.param.b32 [r], %r2;
    ret;
}
)";

static const char *newer_target_ptx =
    ".version 9.0\n.target sm_100\n.address_size 64\n.visible .entry k() { ret; }\n";
static const char *malformed_ptx =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k() { frobnicate; }\n";

static void before_init(void)
{
    printf("== before cuInit\n");
    int v = -1, n = -1;
    CUdevice d;
    CUcontext c;
    CUdeviceptr p;
    CUresult r = cuDriverGetVersion(&v);
    printf("cuDriverGetVersion: %s %d\n", name_of(r), v);
    SHOW(cuDeviceGet(&d, 0));
    SHOW(cuDeviceGetCount(&n));
    SHOW(cuCtxGetCurrent(&c));
    SHOW(cuMemAlloc(&p, 16));
    SHOW(cuInit(1));
    SHOW(cuInit(0));
    SHOW(cuInit(0));
}

static void devices(void)
{
    printf("== devices\n");
    int n = -1;
    CUresult r = cuDeviceGetCount(&n);
    printf("cuDeviceGetCount: %s %d\n", name_of(r), n);
    CUdevice d;
    SHOW(cuDeviceGet(&d, 1));
    SHOW(cuDeviceGet(&d, -1));
    SHOW(cuDeviceGet(NULL, 0));
    SHOW(cuDeviceGet(&d, 0));
    char name[256];
    r = cuDeviceGetName(name, sizeof name, 0);
    printf("cuDeviceGetName: %s %s\n", name_of(r), name);
    size_t mem = 0;
    r = cuDeviceTotalMem(&mem, 0);
    printf("cuDeviceTotalMem: %s %zu\n", name_of(r), mem);
    char bus[32];
    r = cuDeviceGetPCIBusId(bus, sizeof bus, 0);
    printf("cuDeviceGetPCIBusId: %s %s\n", name_of(r), bus);
    CUdevice again = -1;
    r = cuDeviceGetByPCIBusId(&again, bus);
    printf("cuDeviceGetByPCIBusId: %s %d\n", name_of(r), again);
    int v;
    SHOW(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0));
    SHOW(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1));
    // every attribute but those ptxemu reports absent on purpose (features it does not
    // emulate: host registration, VMM, IPC, RDMA, stream memory operations...: docs/driver.md)
    static const int skip[] = { 91, 99, 102, 103, 107, 110, 112, 113, 114, 116, 117, 118, 119,
                                121, 122, 123, 124, 125, 128, 141, 142, 144, 145 };
    for (int a = 1; a < 150; a++) {
        int skipped = 0;
        for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) skipped |= skip[i] == a;
        if (skipped) continue;
        v = -12345;
        r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, 0);
        printf("attribute %d: %s %d\n", a, name_of(r), r == CUDA_SUCCESS ? v : 0);
    }
}

static void contexts(void)
{
    printf("== contexts\n");
    CUcontext c = (CUcontext)1, p, made;
    CUresult r = cuCtxGetCurrent(&c);
    printf("cuCtxGetCurrent with none: %s null=%d\n", name_of(r), c == NULL);
    CUdeviceptr dp;
    SHOW(cuMemAlloc(&dp, 16));
    SHOW(cuCtxSynchronize());
    CUcontext popped;
    SHOW(cuCtxPopCurrent(&popped));
    unsigned flags = 99;
    int active = 99;
    r = cuDevicePrimaryCtxGetState(0, &flags, &active);
    printf("primary state: %s flags=%u active=%d\n", name_of(r), flags, active);
    SHOW(cuDevicePrimaryCtxRetain(&p, 0));
    r = cuDevicePrimaryCtxGetState(0, &flags, &active);
    printf("primary state: %s flags=%u active=%d\n", name_of(r), flags, active);
    r = cuCtxGetCurrent(&c);
    printf("current after retain: %s null=%d\n", name_of(r), c == NULL);
    SHOW(cuCtxSetCurrent(p));
    CUdevice d = -1;
    r = cuCtxGetDevice(&d);
    printf("cuCtxGetDevice: %s %d\n", name_of(r), d);
    r = cuCtxGetFlags(&flags);
    printf("cuCtxGetFlags: %s %u\n", name_of(r), flags);
    unsigned api = 0;
    r = cuCtxGetApiVersion(p, &api);
    printf("cuCtxGetApiVersion: %s %u\n", name_of(r), api);
    for (int l = 0; l <= 7; l++) {
        size_t v = 0;
        r = cuCtxGetLimit(&v, (CUlimit)l);
        printf("limit %d: %s %zu\n", l, name_of(r), v);
    }
    int lo = 99, hi = 99;
    r = cuCtxGetStreamPriorityRange(&lo, &hi);
    printf("stream priorities: %s %d %d\n", name_of(r), lo, hi);
    SHOW(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 16 << 20));
    size_t heap = 0;
    r = cuCtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE);
    printf("heap after set: %s %zu\n", name_of(r), heap);
    SHOW(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 2));
    CUctxCreateParams params;
    memset(&params, 0, sizeof params);
    SHOW(cuCtxCreate(&made, &params, 0, 0));
    cuCtxGetCurrent(&c);
    printf("current is the new context: %d\n", c == made);
    r = cuCtxPopCurrent(&popped);
    printf("pop: %s new=%d\n", name_of(r), popped == made);
    cuCtxGetCurrent(&c);
    printf("current is primary: %d\n", c == p);
    r = cuCtxPopCurrent(&popped);
    printf("pop: %s primary=%d\n", name_of(r), popped == p);
    r = cuCtxGetCurrent(&c);
    printf("current after pops: %s null=%d\n", name_of(r), c == NULL);
    SHOW(cuCtxPopCurrent(&popped));
    SHOW(cuCtxPushCurrent(made));
    SHOW(cuCtxDestroy(made));
    r = cuCtxGetCurrent(&c);
    printf("current after destroy: %s null=%d\n", name_of(r), c == NULL);
    SHOW(cuCtxSetCurrent(p));
    SHOW(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC));
    r = cuDevicePrimaryCtxGetState(0, &flags, &active);
    printf("primary state: %s flags=%u active=%d\n", name_of(r), flags, active);
    SHOW(cuDevicePrimaryCtxSetFlags(0, 0));
}

static CUmodule modules(void)
{
    printf("== modules\n");
    CUmodule m, bad;
    SHOW(cuModuleLoadData(&m, kernels_ptx));
    SHOW(cuModuleLoadData(&bad, malformed_ptx));
    SHOW(cuModuleLoadData(&bad, newer_target_ptx));
    static const unsigned char garbage[64] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
    SHOW(cuModuleLoadData(&bad, garbage));
    SHOW(cuModuleLoadData(&bad, ""));
    SHOW(cuModuleLoadData(NULL, kernels_ptx));
    SHOW(cuModuleLoad(&bad, "/nonexistent/module.ptx"));
    CUfunction f;
    SHOW(cuModuleGetFunction(&f, m, "add_one"));
    SHOW(cuModuleGetFunction(&f, m, "no_such_kernel"));
    CUdeviceptr g;
    size_t size = 0;
    CUresult r = cuModuleGetGlobal(&g, &size, m, "table");
    printf("cuModuleGetGlobal(table): %s %zu bytes\n", name_of(r), size);
    SHOW(cuModuleGetGlobal(&g, &size, m, "no_such_variable"));
    unsigned count = 0;
    r = cuModuleGetFunctionCount(&count, m);
    printf("cuModuleGetFunctionCount: %s %u\n", name_of(r), count);
    CUmoduleLoadingMode mode;
    SHOW(cuModuleGetLoadingMode(&mode));

    CUlibrary lib;
    SHOW(cuLibraryLoadData(&lib, kernels_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel k;
    SHOW(cuLibraryGetKernel(&k, lib, "add_one"));
    SHOW(cuLibraryGetKernel(&k, lib, "missing"));
    CUfunction kf;
    SHOW(cuKernelGetFunction(&kf, k));
    r = cuLibraryGetGlobal(&g, &size, lib, "counter");
    unsigned counter = 0;
    cuMemcpyDtoH(&counter, g, sizeof counter);
    printf("cuLibraryGetGlobal(counter): %s %zu bytes, value %u\n", name_of(r), size, counter);
    SHOW(cuLibraryUnload(lib));

    printf("-- linking\n");
    CUlinkState link;
    SHOW(cuLinkCreate(0, NULL, NULL, &link));
    SHOW(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)uses_extern_ptx,
                       strlen(uses_extern_ptx) + 1, "uses.ptx", 0, NULL, NULL));
    void *img;
    size_t img_size;
    SHOW(cuLinkComplete(link, &img, &img_size));
    SHOW(cuLinkDestroy(link));
    SHOW(cuLinkCreate(0, NULL, NULL, &link));
    SHOW(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)uses_extern_ptx,
                       strlen(uses_extern_ptx) + 1, "uses.ptx", 0, NULL, NULL));
    SHOW(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)defines_extern_ptx,
                       strlen(defines_extern_ptx) + 1, "defines.ptx", 0, NULL, NULL));
    SHOW(cuLinkComplete(link, &img, &img_size));
    CUmodule linked;
    SHOW(cuModuleLoadData(&linked, img));
    SHOW(cuLinkDestroy(link));
    CUfunction caller;
    SHOW(cuModuleGetFunction(&caller, linked, "caller"));
    CUdeviceptr out;
    cuMemAlloc(&out, 4);
    void *args[] = { &out };
    SHOW(cuLaunchKernel(caller, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    unsigned v = 0;
    cuMemcpyDtoH(&v, out, 4);
    printf("linked caller wrote %u\n", v);
    cuMemFree(out);
    SHOW(cuModuleUnload(linked));
    return m;
}

static void memory(void)
{
    printf("== memory\n");
    CUdeviceptr d, d2;
    SHOW(cuMemAlloc(&d, 0));
    SHOW(cuMemAlloc(&d, 1000));
    SHOW(cuMemAlloc(&d2, 1000));
    CUdeviceptr base;
    size_t size = 0;
    CUresult r = cuMemGetAddressRange(&base, &size, d + 10);
    printf("cuMemGetAddressRange: %s base=%s size=%zu\n", name_of(r), base == d ? "start" : "other", size);
    unsigned char host[1000], back[1000];
    for (int i = 0; i < 1000; i++) host[i] = (unsigned char)(i * 7);
    SHOW(cuMemcpyHtoD(d, host, 1000));
    SHOW(cuMemcpyDtoD(d2, d, 1000));
    SHOW(cuMemcpyDtoH(back, d2, 1000));
    printf("round trip equal: %d\n", !memcmp(host, back, 1000));
    SHOW(cuMemcpy(d2, (CUdeviceptr)(uintptr_t)host, 100));
    SHOW(cuMemcpyHtoD(d, host, 0));
    SHOW(cuMemsetD8(d, 0xab, 1000));
    SHOW(cuMemsetD16(d, 0x1234, 500));
    SHOW(cuMemsetD32(d, 0xdeadbeef, 250));
    cuMemcpyDtoH(back, d, 8);
    printf("after memset D32: %02x %02x %02x %02x\n", back[0], back[1], back[2], back[3]);
    SHOW(cuMemsetD32(d + 2, 0, 4));
    size_t pitch = 0;
    CUdeviceptr pd;
    r = cuMemAllocPitch(&pd, &pitch, 100, 10, 4);
    printf("cuMemAllocPitch(100 x 10): %s pitch %zu\n", name_of(r), pitch);
    SHOW(cuMemsetD2D8(pd, pitch, 7, 100, 10));
    CUDA_MEMCPY2D c2;
    memset(&c2, 0, sizeof c2);
    c2.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c2.srcDevice = pd;
    c2.srcPitch = pitch;
    c2.dstMemoryType = CU_MEMORYTYPE_HOST;
    c2.dstHost = back;
    c2.dstPitch = 100;
    c2.WidthInBytes = 100;
    c2.Height = 10;
    SHOW(cuMemcpy2D(&c2));
    printf("2D copy: back[999] = %u\n", back[999]);
    SHOW(cuMemFree(pd));
    void *ph;
    SHOW(cuMemHostAlloc(&ph, 256, CU_MEMHOSTALLOC_DEVICEMAP));
    CUdeviceptr mapped;
    r = cuMemHostGetDevicePointer(&mapped, ph, 0);
    printf("cuMemHostGetDevicePointer: %s same=%d\n", name_of(r), mapped == (CUdeviceptr)(uintptr_t)ph);
    unsigned hflags = 0;
    r = cuMemHostGetFlags(&hflags, ph);
    printf("cuMemHostGetFlags: %s %u\n", name_of(r), hflags);
    unsigned type = 0;
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ph);
    printf("memory type of pinned memory: %s %u\n", name_of(r), type);
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d);
    printf("memory type of device memory: %s %u\n", name_of(r), type);
    r = cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)host);
    printf("memory type of a stack array: %s\n", name_of(r));
    size_t range = 0;
    r = cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 5);
    printf("range size: %s %zu\n", name_of(r), range);
    int ordinal = -9;
    r = cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d);
    printf("device ordinal: %s %d\n", name_of(r), ordinal);
    CUdeviceptr managed;
    SHOW(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL));
    unsigned is_managed = 9;
    r = cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, managed);
    printf("is managed: %s %u\n", name_of(r), is_managed);
    SHOW(cuMemFree(managed));
    SHOW(cuMemFreeHost(ph));
    size_t free_mem = 0, total = 0;
    r = cuMemGetInfo(&free_mem, &total);
    printf("cuMemGetInfo: %s total %zu\n", name_of(r), total);
    SHOW(cuMemFree(d));
    SHOW(cuMemFree(d));
    SHOW(cuMemFree(d2));
}

static void streams_events(void)
{
    printf("== streams and events\n");
    CUstream s, hi;
    SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    SHOW(cuStreamCreate(&s, 77));
    SHOW(cuStreamCreateWithPriority(&hi, 0, -100));
    int prio = 99;
    CUresult r = cuStreamGetPriority(hi, &prio);
    printf("clamped priority: %s %d\n", name_of(r), prio);
    unsigned flags = 99;
    r = cuStreamGetFlags(s, &flags);
    printf("stream flags: %s %u\n", name_of(r), flags);
    r = cuStreamGetFlags(NULL, &flags);
    printf("null stream flags: %s %u\n", name_of(r), flags);
    SHOW(cuStreamQuery(s));
    SHOW(cuStreamSynchronize(s));
    SHOW(cuStreamSynchronize(CU_STREAM_LEGACY));
    SHOW(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    CUevent a, b, notime;
    SHOW(cuEventCreate(&a, 0));
    SHOW(cuEventCreate(&b, 0));
    SHOW(cuEventCreate(&notime, CU_EVENT_DISABLE_TIMING));
    SHOW(cuEventCreate(&notime, 0x80));
    float ms = 0;
    SHOW(cuEventElapsedTime(&ms, a, b));
    SHOW(cuEventRecord(a, s));
    SHOW(cuEventRecord(b, s));
    SHOW(cuEventSynchronize(b));
    SHOW(cuEventQuery(b));
    r = cuEventElapsedTime(&ms, a, b);
    printf("elapsed time: %s non-negative=%d\n", name_of(r), ms >= 0);
    SHOW(cuEventRecord(notime, s));
    SHOW(cuEventElapsedTime(&ms, a, notime));
    SHOW(cuStreamWaitEvent(NULL, b, 0));
    SHOW(cuEventDestroy(a));
    SHOW(cuEventDestroy(b));
    SHOW(cuEventDestroy(notime));
    SHOW(cuStreamDestroy(hi));
    SHOW(cuStreamDestroy(s));
}

static void launches(CUmodule m)
{
    printf("== launches\n");
    CUfunction f;
    cuModuleGetFunction(&f, m, "add_one");
    CUdeviceptr d;
    cuMemAlloc(&d, 4096 * 4);
    cuMemsetD32(d, 10, 4096);
    unsigned n = 4096;
    void *args[] = { &d, &n };
    SHOW(cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    SHOW(cuLaunchKernel(f, 0, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    SHOW(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL));
    SHOW(cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, NULL, args, NULL));
    SHOW(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100000, NULL, args, NULL));
    SHOW(cuLaunchKernel(f, 1, 65536, 1, 32, 1, 1, 0, NULL, args, NULL));
    SHOW(cuLaunchKernel(NULL, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    SHOW(cuCtxSynchronize());
    unsigned v[2];
    cuMemcpyDtoH(v, d, sizeof v);
    printf("after one good launch: %u %u\n", v[0], v[1]);

    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = 2;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 16; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    SHOW(cuLaunchKernelEx(&cfg, f, args, NULL));
    attr.value.clusterDim.x = 16;
    SHOW(cuLaunchKernelEx(&cfg, f, args, NULL));
    int clusters = -1;
    attr.value.clusterDim.x = 4;
    CUresult r = cuOccupancyMaxActiveClusters(&clusters, f, &cfg);
    printf("cuOccupancyMaxActiveClusters(4 of 256): %s %d\n", name_of(r), clusters);
    SHOW(cuLaunchCooperativeKernel(f, 16, 1, 1, 256, 1, 1, 0, NULL, args));
    SHOW(cuLaunchCooperativeKernel(f, 100000, 1, 1, 256, 1, 1, 0, NULL, args));
    SHOW(cuCtxSynchronize());
    cuMemcpyDtoH(v, d, sizeof v);
    printf("after the cluster and cooperative launches: %u %u\n", v[0], v[1]);

    int a = -1;
    static const CUfunction_attribute attrs[] = {
        CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
        CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, CU_FUNC_ATTRIBUTE_PTX_VERSION,
        CU_FUNC_ATTRIBUTE_BINARY_VERSION, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
        CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        r = cuFuncGetAttribute(&a, attrs[i], f);
        printf("function attribute %d: %s %d\n", (int)attrs[i], name_of(r), a);
    }
    SHOW(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000));
    r = cuFuncGetAttribute(&a, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f);
    printf("max dynamic shared after set: %s %d\n", name_of(r), a);
    SHOW(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 300000));
    SHOW(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100000, NULL, args, NULL));
    int blocks = -1;
    r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 128, 0);
    printf("occupancy(128 threads): %s %d\n", name_of(r), blocks);
    r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 1024, 0);
    printf("occupancy(1024 threads): %s %d\n", name_of(r), blocks);
    int grid = -1, block = -1;
    r = cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0);
    printf("cuOccupancyMaxPotentialBlockSize: %s grid %d block %d\n", name_of(r), grid, block);
    cuMemFree(d);
}

static void proc_addresses(void)
{
    printf("== cuGetProcAddress and cuGetExportTable\n");
    struct { const char *sym; int version; unsigned long long flags; } q[] = {
        { "cuMemAlloc", 3020, 0 }, { "cuMemAlloc", 2000, 0 }, { "cuLaunchKernel", 13000, 2 },
        { "cuLaunchKernel", 4000, 2 }, { "cuMemcpyHtoD", 13000, 2 }, { "cuCtxCreate", 13000, 0 },
        { "cuGetProcAddress", 12000, 0 }, { "cuNoSuchFunction", 13000, 0 },
        { "cuInit", 13000, 4 }, { "cuTensorMapEncodeTiled", 11000, 0 },
    };
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        void *p = NULL;
        CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
        CUresult r = cuGetProcAddress(q[i].sym, &p, q[i].version, q[i].flags, &st);
        Dl_info di;
        const char *name = !p ? "NULL" : dladdr(p, &di) && di.dli_sname && di.dli_saddr == p
                                             ? di.dli_sname : "?";
        printf("%s@%d flags %llu: %s status %d -> %s\n", q[i].sym, q[i].version, q[i].flags,
               name_of(r), (int)st, name);
    }
    const void *table = NULL;
    CUuuid unknown;
    memset(unknown.bytes, 0x5a, sizeof unknown.bytes);
    SHOW(cuGetExportTable(&table, &unknown));
    static const unsigned char hooks[16] = { 0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74,
                                             0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66 };
    CUuuid id;
    memcpy(id.bytes, hooks, 16);
    CUresult r = cuGetExportTable(&table, &id);
    printf("cuGetExportTable(tool hooks): %s first word %zu\n", name_of(r),
           r == CUDA_SUCCESS ? *(const size_t *)table : 0);
}

static void fault_and_reset(CUmodule m)
{
    printf("== a kernel fault\n");
    CUfunction f;
    cuModuleGetFunction(&f, m, "fault");
    CUdeviceptr bad = 16;
    void *args[] = { &bad };
    SHOW(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    SHOW(cuCtxSynchronize());
    CUdeviceptr d;
    SHOW(cuMemAlloc(&d, 16));
    SHOW(cuCtxSynchronize());
    CUcontext c;
    SHOW(cuCtxGetCurrent(&c));
    int v;
    SHOW(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
    SHOW(cuDevicePrimaryCtxReset(0));
    SHOW(cuCtxSynchronize());
    SHOW(cuMemAlloc(&d, 16));
    SHOW(cuMemFree(d));
}

int main()
{
    setvbuf(stdout, NULL, _IONBF, 0);
    before_init();
    devices();
    contexts();
    CUmodule m = modules();
    memory();
    streams_events();
    launches(m);
    proc_addresses();
    fault_and_reset(m);
    return 0;
}
