/* fuzz_module.c - libFuzzer harness: the driver's module loaders (cuModuleLoadData,
 * cuModuleLoadDataEx, cuLibraryLoadData), which take PTX text, a fatbinary or an ELF image
 * and tell them apart themselves. The image states no length: it ends here where readable
 * memory ends (a guard page follows), so any read past what it claims is a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static int ready;
    if (!ready) {
        CUdevice d;
        CUcontext c;
        ready = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&d, 0) == CUDA_SUCCESS &&
                cuDevicePrimaryCtxRetain(&c, d) == CUDA_SUCCESS && cuCtxSetCurrent(c) == CUDA_SUCCESS ? 1 : -1;
    }
    if (ready < 0) abort();
    size_t page = (size_t)sysconf(_SC_PAGESIZE), room = (n + 1 + page - 1) / page * page;
    uint8_t *map = mmap(NULL, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return 0;
    mprotect(map + room, page, PROT_NONE);
    uint8_t *image = map + room - (n + 1);   /* PTX text must end in a NUL */
    memcpy(image, data, n);
    image[n] = 0;
    CUmodule m;
    if (cuModuleLoadData(&m, image) == CUDA_SUCCESS) {
        unsigned count = 0;
        cuModuleGetFunctionCount(&count, m);
        cuModuleUnload(m);
    }
    char log[256];
    CUjit_option opt[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void *val[2] = { log, (void *)(uintptr_t)sizeof log };
    if (cuModuleLoadDataEx(&m, image, 2, opt, val) == CUDA_SUCCESS) cuModuleUnload(m);
    CUlibrary lib;
    if (cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0) == CUDA_SUCCESS) cuLibraryUnload(lib);
    munmap(map, room + page);
    return 0;
}
