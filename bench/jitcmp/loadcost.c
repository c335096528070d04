/* loadcost.c - what loading a JIT library costs a process that never uses it (the emulator
 * is loaded into every CUDA program it runs): dlopen with RTLD_NOW, in ms. run.sh runs it
 * in fresh processes. */
#define _POSIX_C_SOURCE 199309L
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("load: lib=%s ms=%.2f%s\n", argv[i],
               (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) * 1e-6, h ? "" : " FAILED");
    }
    return 0;
}
