// bench_common.h - shared helpers of the bench/*.cu programs: error checks, a monotonic
// clock, the --warmup option and the one result line that bench/run.sh parses.
#ifndef PTXEMU_BENCH_COMMON_H
#define PTXEMU_BENCH_COMMON_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t err_ = (call);                                                    \
        if (err_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,             \
                    cudaGetErrorString(err_));                                        \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

static double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Number of untimed launches before the timed one: 1 by default (a GPU loads the module
// at the first launch); bench/run.sh passes --warmup 0 to the emulator to save time.
static int bench_warmups(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--warmup"))
            return atoi(argv[i + 1]);
    return 1;
}

// The line bench/run.sh reads: kernel wall time (launch to synchronize, host clock) and
// the bytes this program allocated on the device and on the host (malloc), so that the
// emulator's own memory can be told apart from the program's.
static void bench_report(const char *name, long long n, size_t device_bytes, size_t host_bytes,
                         double seconds, int ok)
{
    printf("bench: name=%s n=%lld device_bytes=%zu host_bytes=%zu kernel_seconds=%.6f "
           "check=%s\n", name, n, device_bytes, host_bytes, seconds, ok ? "ok" : "FAILED");
}

#endif
