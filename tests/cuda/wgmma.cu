// wgmma.cu - records wgmma.mma_async (sm_90a) as the H100 executes it: for each
// configuration (operand A from registers or a shared-memory descriptor, B from a descriptor;
// no swizzle, 32/64/128-byte swizzles; transposed operands; f16, bf16; f32 and f16
// accumulators; scale-d and imm-scale-a) every thread's accumulator registers after one
// wgmma, printed as bits. Shared memory holds codes (the element's own index as an f16
// integer) or random values; A in registers is one-hot (A[m][k] = 1 where k = m % 16) or
// random. The descriptors use the PTX ISA's canonical layouts as this program assumes them;
// what the GPU reads is whatever the recording shows.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}

__global__ void k0(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k1(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k2(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k3(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k4(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 1;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k5(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k6(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k7(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k8(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k9(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, {%32,%33,%34,%35}, %36, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k10(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[32], a[4];
    for (int i = 0; i < 32; i++) d[i] = gC[tid * 32 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, -1, 1, 0, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]), "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31])
            : "l"(da), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 32; i++) gD[tid * 32 + i] = d[i];
}

__global__ void k11(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[16], a[4];
    for (int i = 0; i < 16; i++) d[i] = gC[tid * 16 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\nwgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 16; i++) gD[tid * 16 + i] = d[i];
}

__global__ void k12(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)
{
    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];
    int tid = threadIdx.x;
    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    uint32_t d[4], a[4];
    for (int i = 0; i < 4; i++) d[i] = gC[tid * 4 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);
    (void)da; (void)a[0];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %9, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, p, 1, 1, 0;\n}\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 4; i++) gD[tid * 4 + i] = d[i];
}

struct Cfg { const char *name; int n, acc16, areg, bf, lboA, sboA, swA, lboB, sboB, swB, scale_d, fill; };
// fill: 0 codes (element index % 2048) in A and B smem, one-hot A registers; 1 codes in A smem,
// identity B; 2 random; 3 and 4: as 0 and 1 with the codes index / 2048
static const Cfg cfgs[] = {
    { "regA_onehot_B_none", 64, 0, 1, 0, 128, 256, 0, 128, 256, 0, 1, 0 },
    { "regA_onehot_B_sw128", 64, 0, 1, 0, 128, 256, 0, 16, 1024, 1, 1, 0 },
    { "regA_onehot_B_sw64", 64, 0, 1, 0, 128, 256, 0, 16, 512, 2, 1, 0 },
    { "regA_onehot_B_sw32", 64, 0, 1, 0, 128, 256, 0, 16, 256, 3, 1, 0 },
    { "regA_onehot_B_trans_none", 64, 0, 1, 0, 128, 256, 0, 256, 128, 0, 1, 0 },
    { "descA_none_B_ident", 64, 0, 0, 0, 128, 256, 0, 128, 256, 0, 1, 1 },
    { "descA_sw128_B_ident", 64, 0, 0, 0, 16, 1024, 1, 128, 256, 0, 1, 1 },
    { "descA_trans_none_B_ident", 64, 0, 0, 0, 256, 128, 0, 128, 256, 0, 1, 1 },
    { "random_f16", 64, 0, 1, 0, 128, 256, 0, 128, 256, 0, 1, 2 },
    { "random_bf16", 64, 0, 1, 1, 128, 256, 0, 128, 256, 0, 1, 2 },
    { "random_f16_negA", 64, 0, 0, 0, 128, 256, 0, 128, 256, 0, 1, 2 },
    { "random_f16_acc16", 64, 1, 1, 0, 128, 256, 0, 128, 256, 0, 1, 2 },
    { "n8_onehot_B_none", 8, 0, 1, 0, 128, 256, 0, 128, 256, 0, 0, 0 },
};

static uint64_t s = 0x853c49e6748fea9bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 11); }
static uint16_t h(float f, int bf)
{
    if (bf) { __nv_bfloat16 b = __float2bfloat16(f); uint16_t u; memcpy(&u, &b, 2); return u; }
    __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u;
}
static float frand() { return ((float)(rnd() % 2000001) / 1000000.0f - 1.0f) * (float)(1 << (rnd() % 8)); }

typedef void (*Kern)(const uint16_t *, const uint16_t *, const uint32_t *, uint32_t *, const uint32_t *, int, int, int, int, int, int, int);
static const Kern kerns[] = { k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12 };

int main()
{
    static uint16_t A[8192], B[8192];
    static uint32_t C[128 * 128], D[128 * 128], Ar[128 * 4];
    uint16_t *dA, *dB; uint32_t *dC, *dD, *dAr;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D); cudaMalloc(&dAr, sizeof Ar);
    for (unsigned ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
        const Cfg &c = cfgs[ci];
        int nd = c.acc16 ? c.n / 4 : c.n / 2;
        for (int i = 0; i < 8192; i++) {
            float code = (float)(c.fill >= 3 ? i / 2048 : i % 2048);
            A[i] = c.fill == 2 ? h(frand(), c.bf) : h(code, 0);
            B[i] = c.fill == 2 ? h(frand(), c.bf) : h(code, 0);
        }
        if (c.fill == 1 || c.fill == 4) {   // B = identity on its first 16 columns under the assumed layout (no swizzle, K-major)
            memset(B, 0, sizeof B);
            for (int nn = 0; nn < c.n; nn++)
                for (int k = 0; k < 16; k++)
                    if (nn % 16 == k) B[((nn / 8) * c.sboB + (k / 8) * c.lboB) / 2 + (nn % 8) * 8 + k % 8] = h(1.0f, 0);
        }
        for (int t = 0; t < 128; t++) {   // A in registers: warp w holds rows 16w.., lane (g, t4) as mma.m16n8k16
            int w = t / 32, l = t % 32, g = l / 4, t4 = l % 4;
            for (int j = 0; j < 4; j++) {
                uint32_t v = 0;
                for (int e = 0; e < 2; e++) {
                    int row = 16 * w + g + 8 * (j & 1), col = 2 * t4 + 8 * (j >> 1) + e;
                    uint16_t x = c.fill == 2 ? h(frand(), c.bf) : h(col == row % 16 ? 1.0f : 0.0f, 0);
                    v |= (uint32_t)x << (16 * e);
                }
                Ar[t * 4 + j] = v;
            }
            for (int i = 0; i < nd; i++) {
                if (c.fill != 2) { C[t * nd + i] = 0; continue; }
                if (c.acc16) C[t * nd + i] = h(frand(), 0) | (uint32_t)h(frand(), 0) << 16;
                else { float f = frand(); memcpy(&C[t * nd + i], &f, 4); }
            }
        }
        cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
        cudaMemcpy(dAr, Ar, sizeof Ar, cudaMemcpyHostToDevice);
        cudaMemset(dD, 0, sizeof D);
        kerns[ci]<<<1, 128>>>(dA, dB, dC, dD, dAr, c.lboA, c.sboA, c.swA, c.lboB, c.sboB, c.swB, c.scale_d);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
        printf("== %s: %s\n", c.name, cudaGetErrorName(e));
        for (int t = 0; t < 128; t++) {
            printf("t%d:", t);
            for (int i = 0; i < nd; i++) printf(" %08x", D[t * nd + i]);
            printf("\n");
        }
    }
    return 0;
}
