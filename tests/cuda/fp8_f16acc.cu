// fp8_f16acc.cu - fp8 matrix products with f16 accumulators as the H100 executes them
// (sm_90a): mma.sync m16n8k32 .f16 on e4m3, e5m2 and mixed, and wgmma.mma_async m64n16k32
// .f16 on e4m3 and e5m2 (A from registers, B from a shared-memory descriptor without
// swizzle). Random fp8 values of four kinds (near 1, every finite value, every finite value
// with larger C, raw bits with NaNs and infinities), random f16 C; prints D as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_fp16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}

// mma: A 4 registers, B 2, C/D 2 (f16x2) a lane; kind 0 e4m3, 1 e5m2, 2 e4m3 x e5m2
__global__ void kmma(int kind, const uint32_t *A, const uint32_t *B, const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[2], c[2], d[2];
    for (int i = 0; i < 4; i++) a[i] = A[l * 4 + i];
    b[0] = B[l * 2]; b[1] = B[l * 2 + 1]; c[0] = C[l * 2]; c[1] = C[l * 2 + 1];
#define MF16(T) asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." T ".f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
    : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]))
    if (kind == 0) MF16("e4m3.e4m3");
    else if (kind == 1) MF16("e5m2.e5m2");
    else MF16("e4m3.e5m2");
    D[l * 2] = d[0]; D[l * 2 + 1] = d[1];
}

// wgmma: kind 0 e4m3, 1 e5m2; 4 f16x2 accumulator registers a thread (N = 16)
__global__ void kwg(int kind, const uint32_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr)
{
    __shared__ __align__(1024) uint32_t sB[4096];
    int tid = threadIdx.x;
    for (int i = tid; i < 4096; i += 128) sB[i] = gB[i];
    uint32_t d[4], a[4];
    for (int i = 0; i < 4; i++) { d[i] = gC[tid * 4 + i]; a[i] = gAr[tid * 4 + i]; }
    uint64_t db = desc(sB, 128, 256, 0);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (kind == 0)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f16.e4m3.e4m3 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1;\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k32.f16.e5m2.e5m2 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1;\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 4; i++) gD[tid * 4 + i] = d[i];
}

static uint64_t s = 0x3c6ef372fe94f82bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 13); }
static uint32_t fp8(int e5, int kind)
{
    uint32_t r = rnd() & 255;
    if (kind == 3) return r;
    if (kind == 0) r = (r & 0x87) | (e5 ? (14 + rnd() % 4) << 2 : (6 + rnd() % 3) << 3);
    if (e5 && (r & 0x7c) == 0x7c) r &= ~0x40u;
    if (!e5 && (r & 0x7f) == 0x7f) r &= ~0x40u;
    return r;
}
static uint32_t h16(int kind)
{
    float x = ldexpf((float)(rnd() % 2048) / 1024.0f - 1.0f, kind == 2 ? (int)(rnd() % 10) : (int)(rnd() % 20) - 12);
    __half h = __float2half(x);
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
static uint32_t word(int e5, int kind) { uint32_t w = 0; for (int e = 0; e < 4; e++) w |= fp8(e5, kind) << (8 * e); return w; }

int main()
{
    static uint32_t A[512], B[4096], C[512], D[512];
    uint32_t *dA, *dB, *dC, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D);
    static const char *mn[3] = { "e4m3", "e5m2", "e4m3e5m2" };
    for (int kind = 0; kind < 3; kind++)
        for (int vk = 0; vk < 4; vk++)
            for (int rep = 0; rep < 4; rep++) {
                for (int i = 0; i < 128; i++) A[i] = word(kind == 1, vk);
                for (int i = 0; i < 64; i++) B[i] = word(kind >= 1, vk);
                for (int i = 0; i < 64; i++) C[i] = rep == 0 ? 0 : h16(vk) | h16(vk) << 16;
                cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
                cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
                cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
                cudaMemset(dD, 0, sizeof D);
                kmma<<<1, 32>>>(kind, dA, dB, dC, dD);
                cudaError_t e = cudaDeviceSynchronize();
                cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
                printf("== mma %s kind %d rep %d: %s\n", mn[kind], vk, rep, cudaGetErrorName(e));
                for (int l = 0; l < 32; l++) printf("l%d: %08x %08x\n", l, D[l * 2], D[l * 2 + 1]);
            }
    for (int kind = 0; kind < 2; kind++)
        for (int vk = 0; vk < 4; vk++)
            for (int rep = 0; rep < 3; rep++) {
                for (int i = 0; i < 4096; i++) B[i] = word(kind == 1, vk);
                for (int i = 0; i < 512; i++) A[i] = word(kind == 1, vk);
                for (int i = 0; i < 512; i++) C[i] = rep == 0 ? 0 : h16(vk) | h16(vk) << 16;
                cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
                cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
                cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
                cudaMemset(dD, 0, sizeof D);
                kwg<<<1, 128>>>(kind, dB, dC, dD, dA);
                cudaError_t e = cudaDeviceSynchronize();
                cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
                printf("== wgmma %s kind %d rep %d: %s\n", mn[kind], vk, rep, cudaGetErrorName(e));
                for (int t = 0; t < 128; t++) printf("t%d: %08x %08x %08x %08x\n", t, D[t * 4], D[t * 4 + 1], D[t * 4 + 2], D[t * 4 + 3]);
            }
    return 0;
}
