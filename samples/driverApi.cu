// driverApi.cu - the CUDA driver API on its own (no runtime calls): PTX text compiled by the
// driver at run time (cuModuleLoadDataEx with its JIT log options), a module variable read back
// with cuModuleGetGlobal, launches with kernelParams and with a packed parameter buffer
// (CU_LAUNCH_PARAM_BUFFER_POINTER), two PTX modules linked with cuLink* (an .extern function
// defined in the other module), a stream and events, and the errors of a malformed module and
// of a missing kernel. Build: nvcc -o driverApi driverApi.cu -lcuda
#include <cuda.h>
#include <cstdio>
#include <cstring>

static int failures = 0;

#define CHECK(call)                                                              \
    do {                                                                         \
        CUresult r_ = (call);                                                    \
        if (r_ != CUDA_SUCCESS) {                                                \
            const char *n_ = "?";                                                \
            cuGetErrorName(r_, &n_);                                             \
            printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, n_);     \
            return 1;                                                            \
        }                                                                        \
    } while (0)

static const char *scale_ptx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .global .align 4 .u32 calls;

.visible .entry scale(.param .u64 out, .param .u64 in, .param .f32 k, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<7>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [in];
    ld.param.f32 %f1, [k];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p, %r5, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd3, %rd2;
    mul.wide.u32 %rd4, %r5, 4;
    add.s64 %rd5, %rd3, %rd4;
    ld.global.f32 %f2, [%rd5];
    mul.rn.f32 %f2, %f2, %f1;
    cvta.to.global.u64 %rd6, %rd1;
    add.s64 %rd7, %rd6, %rd4;
    st.global.f32 [%rd7], %f2;
    atom.global.add.u32 %r6, [calls], 1;
DONE:
    ret;
}
)";

// Two modules to link: the kernel calls a function the other module defines.
static const char *apply_ptx = R"(
.version 8.0
.target sm_75
.address_size 64

.extern .func (.param .b32 r) poly(.param .b32 x);

.visible .entry apply(.param .u64 out, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    setp.ge.u32 %p, %r2, %r1;
    @%p bra DONE;
    {
        .param .b32 a;
        .param .b32 r;
        st.param.b32 [a], %r2;
        call.uni (r), poly, (a);
        ld.param.b32 %r3, [r];
    }
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r3;
DONE:
    ret;
}
)";

static const char *poly_ptx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .func (.param .b32 r) poly(.param .b32 x)
{
    .reg .b32 %r<4>;
    ld.param.b32 %r1, [x];
    mul.lo.s32 %r2, %r1, %r1;
    add.s32 %r3, %r2, 7;
    st.param.b32 [r], %r3;
    ret;
}
)";

static const char *bad_ptx = ".version 8.0\n.target sm_75\n.address_size 64\n"
                             ".visible .entry broken() { this is not an instruction; }\n";

static void show(const char *what, CUresult r)
{
    const char *n = "?";
    cuGetErrorName(r, &n);
    printf("%s: %s\n", what, n);
}

int main()
{
    CHECK(cuInit(0));
    int version = 0, count = 0;
    CHECK(cuDriverGetVersion(&version));
    CHECK(cuDeviceGetCount(&count));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    int major = 0, minor = 0;
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    printf("driver %d, %d device(s), compute capability %d.%d\n", version, count, major, minor);

    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    // JIT from PTX text, with the log options a program would pass
    char info[1024], error[1024];
    CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *vals[] = { info, (void *)(size_t)sizeof info, error, (void *)(size_t)sizeof error };
    CUmodule mod;
    CHECK(cuModuleLoadDataEx(&mod, scale_ptx, 4, opts, vals));
    CUfunction scale;
    CHECK(cuModuleGetFunction(&scale, mod, "scale"));

    const unsigned n = 1000;
    float host_in[1000], host_out[1000];
    for (unsigned i = 0; i < n; i++) host_in[i] = (float)i;
    CUdeviceptr in, out;
    CHECK(cuMemAlloc(&in, n * sizeof(float)));
    CHECK(cuMemAlloc(&out, n * sizeof(float)));
    CHECK(cuMemcpyHtoD(in, host_in, sizeof host_in));
    CHECK(cuMemsetD32(out, 0, n));

    // a launch with kernelParams, in a stream between two events
    CUstream s;
    CUevent start, stop;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    float k = 3.0f;
    void *params[] = { &out, &in, &k, (void *)&n };
    CHECK(cuEventRecord(start, s));
    CHECK(cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, s, params, NULL));
    CHECK(cuEventRecord(stop, s));
    CHECK(cuStreamSynchronize(s));
    float ms = -1;
    CHECK(cuEventElapsedTime(&ms, start, stop));
    CHECK(cuMemcpyDtoH(host_out, out, sizeof host_out));
    int bad = 0;
    for (unsigned i = 0; i < n; i++) bad += host_out[i] != 3.0f * (float)i;
    printf("scale by 3 with kernelParams: out[1] = %g, out[999] = %g, %d wrong\n",
           host_out[1], host_out[999], bad);
    failures += bad != 0 || ms < 0;

    // the same kernel with a packed parameter buffer, as the "extra" argument gives it
    struct { CUdeviceptr out, in; float k; unsigned n; } buf = { out, in, 0.5f, n };
    size_t size = sizeof buf;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END };
    CHECK(cuLaunchKernel(scale, (n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, NULL, extra));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(host_out, out, sizeof host_out));
    bad = 0;
    for (unsigned i = 0; i < n; i++) bad += host_out[i] != 0.5f * (float)i;
    printf("scale by 0.5 with a packed buffer: out[999] = %g, %d wrong\n", host_out[999], bad);
    failures += bad != 0;

    // the module variable the kernel counted its threads in
    CUdeviceptr calls_ptr;
    size_t calls_size = 0;
    CHECK(cuModuleGetGlobal(&calls_ptr, &calls_size, mod, "calls"));
    unsigned calls = 0;
    CHECK(cuMemcpyDtoH(&calls, calls_ptr, sizeof calls));
    printf("calls = %u (a %zu-byte variable)\n", calls, calls_size);
    failures += calls != 2 * n;

    // two PTX modules linked into one image
    CUlinkState link;
    CHECK(cuLinkCreate(0, NULL, NULL, &link));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)apply_ptx, strlen(apply_ptx) + 1,
                        "apply.ptx", 0, NULL, NULL));
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)poly_ptx, strlen(poly_ptx) + 1,
                        "poly.ptx", 0, NULL, NULL));
    void *image;
    size_t image_size;
    CHECK(cuLinkComplete(link, &image, &image_size));
    CUmodule linked;
    CHECK(cuModuleLoadData(&linked, image));
    CHECK(cuLinkDestroy(link));
    CUfunction apply;
    CHECK(cuModuleGetFunction(&apply, linked, "apply"));
    unsigned m = 32;
    void *aparams[] = { &out, &m };
    CHECK(cuLaunchKernel(apply, 1, 1, 1, 32, 1, 1, 0, NULL, aparams, NULL));
    int ints[32];
    CHECK(cuMemcpyDtoH(ints, out, sizeof ints));
    bad = 0;
    for (int i = 0; i < 32; i++) bad += ints[i] != i * i + 7;
    printf("linked: poly(5) = %d, poly(31) = %d, %d wrong\n", ints[5], ints[31], bad);
    failures += bad != 0;

    // what goes wrong is reported
    CUmodule broken;
    show("malformed PTX", cuModuleLoadData(&broken, bad_ptx));
    CUfunction none;
    show("missing kernel", cuModuleGetFunction(&none, mod, "no_such_kernel"));
    show("block of 2048 threads", cuLaunchKernel(scale, 1, 1, 1, 2048, 1, 1, 0, NULL, params, NULL));

    CHECK(cuModuleUnload(linked));
    CHECK(cuModuleUnload(mod));
    CHECK(cuMemFree(in));
    CHECK(cuMemFree(out));
    CHECK(cuEventDestroy(start));
    CHECK(cuEventDestroy(stop));
    CHECK(cuStreamDestroy(s));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures != 0;
}
