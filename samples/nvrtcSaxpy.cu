// nvrtcSaxpy.cu - CUDA C++ compiled at run time with NVRTC and run through the driver API:
// a templated kernel named by nvrtcAddNameExpression / nvrtcGetLoweredName, compiled once to
// PTX (compute_90, loaded with cuModuleLoadData) and once to a cubin (sm_90, as NVIDIA's
// samples do), and a compile error reported with its log.
// Build: nvcc -o nvrtcSaxpy nvrtcSaxpy.cu -lnvrtc -lcuda
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CU(call)                                                                  \
    do {                                                                          \
        CUresult r_ = (call);                                                     \
        if (r_ != CUDA_SUCCESS) {                                                 \
            const char *n_ = "?";                                                 \
            cuGetErrorName(r_, &n_);                                              \
            printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, n_);      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

#define NVRTC(call)                                                               \
    do {                                                                          \
        nvrtcResult r_ = (call);                                                  \
        if (r_ != NVRTC_SUCCESS) {                                                \
            printf("%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                   nvrtcGetErrorString(r_));                                      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

static const char *source = R"(
template <typename T>
__global__ void saxpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

static const char *name_expr = "saxpy<float>";

/* Compile for `arch`; returns the PTX or the cubin and the kernel's lowered name. */
static std::vector<char> compile(const char *arch, bool cubin, std::string *lowered)
{
    nvrtcProgram prog;
    NVRTC(nvrtcCreateProgram(&prog, source, "saxpy.cu", 0, NULL, NULL));
    NVRTC(nvrtcAddNameExpression(prog, name_expr));
    char opt[64];
    snprintf(opt, sizeof opt, "--gpu-architecture=%s", arch);
    const char *opts[] = { opt };
    NVRTC(nvrtcCompileProgram(prog, 1, opts));
    const char *name;
    NVRTC(nvrtcGetLoweredName(prog, name_expr, &name));
    *lowered = name;
    size_t size;
    std::vector<char> code;
    if (cubin) {
        NVRTC(nvrtcGetCUBINSize(prog, &size));
        code.resize(size);
        NVRTC(nvrtcGetCUBIN(prog, code.data()));
    } else {
        NVRTC(nvrtcGetPTXSize(prog, &size));
        code.resize(size);
        NVRTC(nvrtcGetPTX(prog, code.data()));
    }
    NVRTC(nvrtcDestroyProgram(&prog));
    return code;
}

/* Load the code, run saxpy with a = 2 over n elements, and count wrong results. */
static int run(const std::vector<char> &code, const std::string &name, const char *what)
{
    CUmodule mod;
    CU(cuModuleLoadData(&mod, code.data()));
    CUfunction f;
    CU(cuModuleGetFunction(&f, mod, name.c_str()));
    const int n = 4096;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 97);
        y[i] = (float)(i % 13);
    }
    CUdeviceptr dx, dy;
    CU(cuMemAlloc(&dx, n * sizeof(float)));
    CU(cuMemAlloc(&dy, n * sizeof(float)));
    CU(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    CU(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
    float a = 2.0f;
    int nn = n;
    void *args[] = { &a, &dx, &dy, &nn };
    CU(cuLaunchKernel(f, n / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CU(cuCtxSynchronize());
    CU(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
    int bad = 0;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        bad += y[i] != 2.0f * (float)(i % 97) + (float)(i % 13);
        sum += y[i];
    }
    printf("%s: y[4095] = %g, sum = %.1f, %d wrong\n", what, y[n - 1], sum, bad);
    CU(cuMemFree(dx));
    CU(cuMemFree(dy));
    CU(cuModuleUnload(mod));
    return bad;
}

int main()
{
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));

    std::string name;
    int failures = 0;
    std::vector<char> ptx = compile("compute_90", false, &name);
    printf("lowered name of %s: %s\n", name_expr, name.c_str());
    failures += run(ptx, name, "PTX for compute_90") != 0;
    std::vector<char> cubin = compile("sm_90", true, &name);
    failures += run(cubin, name, "cubin for sm_90") != 0;

    // a compile error comes back with a log
    nvrtcProgram prog;
    NVRTC(nvrtcCreateProgram(&prog, "__global__ void k() { undefined_function(); }", "bad.cu",
                             0, NULL, NULL));
    nvrtcResult r = nvrtcCompileProgram(prog, 0, NULL);
    size_t log_size = 0;
    NVRTC(nvrtcGetProgramLogSize(prog, &log_size));
    printf("compile error: %s (a log of %s)\n", nvrtcGetErrorString(r),
           log_size > 1 ? "some lines" : "nothing");
    NVRTC(nvrtcDestroyProgram(&prog));

    CU(cuDevicePrimaryCtxRelease(dev));
    printf("%s\n", failures ? "FAILED" : "PASSED");
    return failures != 0;
}
