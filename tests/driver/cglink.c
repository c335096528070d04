/* cglink.c - the JIT linker with the inputs Numba gives it for grid.sync(): a host object
 * of nvcc -rdc=true -c (CU_JIT_INPUT_OBJECT) and libcudadevrt.a (CU_JIT_INPUT_LIBRARY);
 * the linked kernel runs as a cooperative launch and checks the grid barrier itself.
 * Usage: cglink OBJECT LIBCUDADEVRT   (prints one line per step; exit 0 when all went well) */
#include <cuda.h>
#include <stdio.h>

#define TRY(what, call)                                                              \
    do {                                                                             \
        CUresult rc_ = (call);                                                       \
        printf("%s rc=%d\n", what, (int)rc_);                                        \
        if (rc_ != CUDA_SUCCESS) return 1;                                           \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) return 2;
    CUdevice d;
    CUcontext c;
    CUlinkState ls;
    void *img;
    size_t sz;
    CUmodule m;
    CUfunction f;
    CUdeviceptr flag, seen;
    enum { BLOCKS = 6 };
    int host[BLOCKS], zero[BLOCKS] = { 0 };
    TRY("init", cuInit(0));
    TRY("device", cuDeviceGet(&d, 0));
    TRY("retain", cuDevicePrimaryCtxRetain(&c, d));
    TRY("push", cuCtxPushCurrent(c));
    TRY("linkcreate", cuLinkCreate(0, NULL, NULL, &ls));
    TRY("add object", cuLinkAddFile(ls, CU_JIT_INPUT_OBJECT, argv[1], 0, NULL, NULL));
    TRY("add library", cuLinkAddFile(ls, CU_JIT_INPUT_LIBRARY, argv[2], 0, NULL, NULL));
    TRY("complete", cuLinkComplete(ls, &img, &sz));
    TRY("load", cuModuleLoadData(&m, img));
    TRY("destroy link", cuLinkDestroy(ls));
    TRY("function", cuModuleGetFunction(&f, m, "gridsync"));
    TRY("alloc", cuMemAlloc(&flag, sizeof(int)));
    TRY("alloc", cuMemAlloc(&seen, sizeof host));
    TRY("zero", cuMemcpyHtoD(flag, zero, sizeof(int)));
    void *args[] = { &flag, &seen };
    TRY("cooperative launch", cuLaunchCooperativeKernel(f, BLOCKS, 1, 1, 64, 1, 1, 0, NULL, args));
    TRY("copy back", cuMemcpyDtoH(host, seen, sizeof host));
    int all = 1;
    for (int b = 0; b < BLOCKS; b++) all &= host[b] == 42;
    printf("grid sync: %s\n", all ? "every block saw the flag" : "a block passed the barrier early");
    TRY("plain launch", cuLaunchKernel(f, BLOCKS, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    TRY("copy back", cuMemcpyDtoH(host, seen, sizeof host));
    printf("plain launch: cudaCGSynchronize returned %d\n", -host[0]);
    return all ? 0 : 1;
}
