/* forked.c - a child forked after cuInit cannot use the driver: every call answers
 * CUDA_ERROR_NOT_INITIALIZED (Numba's fork detection, test_fork, expects it of a GPU's
 * driver); a child forked before any cuInit initializes its own driver as usual.
 * Prints one line per call; exit 0. */
#include <cuda.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_calls(const char *who)
{
    int n = -1;
    CUdevice d;
    CUresult a = cuInit(0), b = cuDeviceGetCount(&n), c = cuDeviceGet(&d, 0);
    printf("%s: cuInit %d, cuDeviceGetCount %d, cuDeviceGet %d\n", who, (int)a, (int)b, (int)c);
}

int main(void)
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) { child_calls("forked before cuInit"); fflush(stdout); _exit(0); }
    waitpid(p, NULL, 0);
    printf("parent: cuInit %d\n", (int)cuInit(0));
    fflush(stdout);
    p = fork();
    if (p == 0) { child_calls("forked after cuInit"); fflush(stdout); _exit(0); }
    waitpid(p, NULL, 0);
    int n = -1;
    printf("parent after the fork: cuDeviceGetCount %d\n", (int)cuDeviceGetCount(&n));
    return 0;
}
