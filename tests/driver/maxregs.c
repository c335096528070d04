/* maxregs.c - CU_JIT_MAX_REGISTERS (Numba's max_registers): the register count the driver
 * reports for a kernel JIT-compiled under a limit must respect it, given to cuLinkCreate or to
 * cuModuleLoadDataEx; without one the kernel takes more.
 * Usage: maxregs KERNEL.ptx   (prints "free N", "link LIMIT N", "load LIMIT N") */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int regs_of(CUmodule m)
{
    CUfunction f;
    int n = -1;
    if (cuModuleGetFunction(&f, m, "heavy") || cuFuncGetAttribute(&n, CU_FUNC_ATTRIBUTE_NUM_REGS, f))
        return -1;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) return 2;
    static char ptx[1 << 20];
    size_t len = fread(ptx, 1, sizeof ptx - 1, fp);
    fclose(fp);
    ptx[len] = 0;
    CUdevice d;
    CUcontext c;
    CUmodule m;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d) || cuCtxSetCurrent(c)) return 1;
    if (cuModuleLoadData(&m, ptx)) return 1;
    printf("free %d\n", regs_of(m));
    CUjit_option opt = CU_JIT_MAX_REGISTERS;
    void *val = (void *)(uintptr_t)32;
    CUlinkState ls;
    void *img;
    size_t sz;
    if (cuLinkCreate(1, &opt, &val, &ls) || cuLinkAddData(ls, CU_JIT_INPUT_PTX, ptx, len + 1, "heavy.ptx", 0, NULL, NULL) ||
        cuLinkComplete(ls, &img, &sz) || cuModuleLoadData(&m, img))
        return 1;
    printf("link 32 %d\n", regs_of(m));
    cuLinkDestroy(ls);
    val = (void *)(uintptr_t)40;
    if (cuModuleLoadDataEx(&m, ptx, 1, &opt, &val)) return 1;
    printf("load 40 %d\n", regs_of(m));
    return 0;
}
