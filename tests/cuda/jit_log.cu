// jit_log.cu - the info log of a verbose JIT link (cuLinkCreate with CU_JIT_LOG_VERBOSE, as
// the ptxjit sample asks for it): ptxas's report for each kernel (registers, barriers, stack
// frame, spills, global memory) and the linker's summary (stack, shared, constant bank 0 and
// local memory a kernel). Lines with compile times are left out. Expected output recorded on
// an H100 (tests/gpu/record_cuda.sh); under ptxemu the report needs ptxas (docs/driver.md).
#include <cstdio>
#include <cstring>
#include <cuda.h>

static const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64

.global .align 4 .u32 counter[16];

.visible .entry busy(.param .u64 out, .param .u32 n, .param .f32 scale)
{
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 tile[1024];
    .local .align 4 .b8 scratch[64];
    mov.u32 %r0, %tid.x;
    ld.param.u32 %r1, [n];
    ld.param.f32 %f0, [scale];
    and.b32 %r2, %r0, 15;
    shl.b32 %r3, %r2, 2;
    mov.u64 %rd0, scratch;
    cvt.u64.u32 %rd1, %r3;
    add.u64 %rd2, %rd0, %rd1;
    st.local.u32 [%rd2], %r0;
    shl.b32 %r4, %r0, 2;
    mov.u32 %r5, tile;
    add.u32 %r5, %r5, %r4;
    st.shared.u32 [%r5], %r1;
    bar.sync 0;
    xor.b32 %r6, %r3, 4;
    cvt.u64.u32 %rd3, %r6;
    add.u64 %rd4, %rd0, %rd3;
    ld.local.u32 %r7, [%rd4];
    ld.shared.u32 %r6, [%r5];
    add.u32 %r7, %r7, %r6;
    cvt.rn.f32.u32 %f1, %r7;
    mul.f32 %f2, %f1, %f0;
    ld.param.u64 %rd5, [out];
    cvta.to.global.u64 %rd5, %rd5;
    mul.wide.u32 %rd6, %r0, 4;
    add.u64 %rd7, %rd5, %rd6;
    st.global.f32 [%rd7], %f2;
    setp.eq.u32 %p, %r0, 0;
    @%p red.global.add.u32 [counter], 1;
    ret;
}

.visible .entry tiny(.param .u64 p)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [p];
    cvta.to.global.u64 %rd1, %rd0;
    st.global.u32 [%rd1], 7;
    ret;
}
)";

int main()
{
    cuInit(0);
    CUdevice dev;
    CUcontext ctx;
    cuDeviceGet(&dev, 0);
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    static char info[16384], error[16384];
    CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE };
    void *vals[] = { info, (void *)(size_t)sizeof info, error, (void *)(size_t)sizeof error,
                     (void *)1 };
    CUlinkState link;
    CUresult e = cuLinkCreate(5, opts, vals, &link);
    printf("cuLinkCreate: %d\n", (int)e);
    e = cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "jit_log.ptx", 0, NULL, NULL);
    printf("cuLinkAddData: %d\n", (int)e);
    void *cubin;
    size_t size;
    e = cuLinkComplete(link, &cubin, &size);
    printf("cuLinkComplete: %d\n", (int)e);
    printf("info log:\n");
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n"))
        if (!strstr(line, "Compile time")) printf("%s\n", line);
    printf("error log: %s\n", error[0] ? error : "(empty)");
    CUmodule mod;
    e = cuModuleLoadData(&mod, cubin);
    printf("cuModuleLoadData: %d\n", (int)e);
    CUfunction f;
    e = cuModuleGetFunction(&f, mod, "tiny");
    CUdeviceptr d;
    cuMemAlloc(&d, 4);
    void *args[] = { &d };
    e = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL);
    unsigned v = 0;
    cuMemcpyDtoH(&v, d, 4);
    printf("tiny wrote %u\n", v);
    cuLinkDestroy(link);
    return 0;
}
