// wgmma_b1.cu - wgmma.mma_async m64n16k256 .s32.b1.b1.and.popc as the H100 executes it
// (sm_90a): A from registers and from a shared-memory descriptor, B from a descriptor, both
// without swizzle (the 8-bit layouts of tests/cuda/wgmma_types.cu, 256 bits a row). Random
// bits of three densities and random accumulators; prints every thread's accumulators.
#include <cstdio>
#include <cstdint>
#include <cstring>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}

// kind 0: A from registers, 1: A from shared memory (gAr's 512 words)
__global__ void k(int kind, const uint32_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr)
{
    __shared__ __align__(1024) uint32_t sB[4096];
    __shared__ __align__(1024) uint32_t sA[512];
    int tid = threadIdx.x;
    for (int i = tid; i < 4096; i += 128) sB[i] = gB[i];
    for (int i = tid; i < 512; i += 128) sA[i] = gAr[i];
    uint32_t d[8], a[4];
    for (int i = 0; i < 8; i++) d[i] = gC[tid * 8 + i];
    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];
    uint64_t db = desc(sB, 128, 256, 0), da = desc(sA, 128, 256, 0);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (kind == 0)
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, 1;\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, 1;\n"
                     : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
                     : "l"(da), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0xa54ff53a5f1d36f1ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 13); }
static uint32_t bits(int density)   // density 0: 1/4 of the bits set, 1: 1/2, 2: 3/4
{
    uint32_t a = rnd() | rnd() << 19, b = rnd() | rnd() << 19;
    return density == 0 ? a & b : density == 1 ? a : a | b;
}

int main()
{
    static uint32_t B[4096], C[128 * 8], D[128 * 8], Ar[512];
    uint32_t *dB, *dC, *dD, *dAr;
    cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D); cudaMalloc(&dAr, sizeof Ar);
    for (int kind = 0; kind < 2; kind++)
        for (int dens = 0; dens < 3; dens++)
            for (int rep = 0; rep < 2; rep++) {
                for (int i = 0; i < 4096; i++) B[i] = bits(dens);
                for (int i = 0; i < 512; i++) Ar[i] = bits(dens);
                for (int i = 0; i < 128 * 8; i++) C[i] = rep ? rnd() % 2001 - 1000 : 0;
                cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
                cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
                cudaMemcpy(dAr, Ar, sizeof Ar, cudaMemcpyHostToDevice);
                cudaMemset(dD, 0, sizeof D);
                k<<<1, 128>>>(kind, dB, dC, dD, dAr);
                cudaError_t e = cudaDeviceSynchronize();
                cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
                printf("== %s density %d rep %d: %s\n", kind ? "smemA" : "regA", dens, rep, cudaGetErrorName(e));
                for (int t = 0; t < 128; t++) {
                    printf("t%d:", t);
                    for (int i = 0; i < 8; i++) printf(" %d", (int)D[t * 8 + i]);
                    printf("\n");
                }
            }
    return 0;
}
