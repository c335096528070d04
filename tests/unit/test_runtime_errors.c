/* test_runtime_errors.c - checks the shim's error names and messages against CUDA 13.0 and
 * the per-thread last-error rules (sticky faults are the driver's: tests/cuda/faults.cu).
 * Links runtime/cudart/errors.c alone.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#include "check.h"

/* Values returned by NVIDIA's libcudart 13.0.88. */
static const struct { int code; const char *name, *msg; } expect[] = {
    { 0, "cudaSuccess", "no error" },
    { 1, "cudaErrorInvalidValue", "invalid argument" },
    { 2, "cudaErrorMemoryAllocation", "out of memory" },
    { 9, "cudaErrorInvalidConfiguration", "invalid configuration argument" },
    { 12, "cudaErrorInvalidPitchValue", "invalid pitch argument" },
    { 13, "cudaErrorInvalidSymbol", "invalid device symbol" },
    { 21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy" },
    { 52, "cudaErrorMissingConfiguration", "__global__ function call is not configured" },
    { 98, "cudaErrorInvalidDeviceFunction", "invalid device function" },
    { 101, "cudaErrorInvalidDevice", "invalid device ordinal" },
    { 200, "cudaErrorInvalidKernelImage", "device kernel image is invalid" },
    { 209, "cudaErrorNoKernelImageForDevice",
      "no kernel image is available for execution on the device" },
    { 215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture" },
    { 218, "cudaErrorInvalidPtx", "a PTX JIT compilation failed" },
    { 222, "cudaErrorUnsupportedPtxVersion",
      "the provided PTX was compiled with an unsupported toolchain." },
    { 400, "cudaErrorInvalidResourceHandle", "invalid resource handle" },
    { 500, "cudaErrorSymbolNotFound", "named symbol not found" },
    { 600, "cudaErrorNotReady", "device not ready" },
    { 700, "cudaErrorIllegalAddress", "an illegal memory access was encountered" },
    { 701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch" },
    { 710, "cudaErrorAssert", "device-side assert triggered" },
    { 713, "cudaErrorHostMemoryNotRegistered",
      "pointer does not correspond to a registered memory region" },
    { 714, "cudaErrorHardwareStackError", "hardware stack error" },
    { 715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered" },
    { 716, "cudaErrorMisalignedAddress", "misaligned address" },
    { 717, "cudaErrorInvalidAddressSpace", "operation not supported on global/shared address space" },
    { 718, "cudaErrorInvalidPc", "invalid program counter" },
    { 719, "cudaErrorLaunchFailure", "unspecified launch failure" },
    { 720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch" },
    { 801, "cudaErrorNotSupported", "operation not supported" },
    { 999, "cudaErrorUnknown", "unknown error" },
    { 10000, "cudaErrorApiFailureBase", "api failure base" },
    /* codes CUDA does not know */
    { 10, "unrecognized error code", "unrecognized error code" },
    { 1000, "unrecognized error code", "unrecognized error code" },
    { -1, "unrecognized error code", "unrecognized error code" },
};

static void test_names(void)
{
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        const char *n = cudaGetErrorName((cudaError_t)expect[i].code);
        const char *s = cudaGetErrorString((cudaError_t)expect[i].code);
        CHECK(n && !strcmp(n, expect[i].name), "name of %d: got '%s', want '%s'",
              expect[i].code, n ? n : "(null)", expect[i].name);
        CHECK(s && !strcmp(s, expect[i].msg), "string of %d: got '%s', want '%s'",
              expect[i].code, s ? s : "(null)", expect[i].msg);
    }
}

static void test_last_error(void)
{
    CHECK(cudaGetLastError() == cudaSuccess, "fresh thread has no last error");
    rt_ret(cudaErrorInvalidValue);
    rt_ret(cudaSuccess);   /* a success does not overwrite the last error */
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue, "peek sees the last error");
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue, "peek does not clear it");
    rt_ret(cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration, "latest error wins");
    CHECK(cudaGetLastError() == cudaSuccess, "get clears a non-sticky error");
}

static void *other_thread(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)cudaGetLastError();
}

static void test_per_thread(void)
{
    rt_ret(cudaErrorInvalidValue);
    pthread_t t;
    void *res = NULL;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, &res);
    CHECK((intptr_t)res == cudaSuccess, "another thread does not see this thread's error");
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "this thread still has it");
}

static void test_not_implemented(void)
{
    static int told;
    int e = rt_not_implemented("cudaTestOnly", &told);
    CHECK(e == cudaErrorNotSupported && told, "unimplemented returns cudaErrorNotSupported");
    e = rt_not_implemented("cudaTestOnly", &told);
    CHECK(e == cudaErrorNotSupported, "second call too (no second message)");
    CHECK(cudaGetLastError() == cudaErrorNotSupported, "and records it as last error");
}

int main(void)
{
    test_names();
    test_last_error();
    test_per_thread();
    test_not_implemented();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
