// wgmma_sp.cu - sparse wgmma (wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16, 2:4
// structured sparsity in A) as the H100 executes it (sm_90a), with sparsity selectors 0 and 1.
// A's compressed values (64 x 16 in shared memory, K-major, no swizzle) are codes
// (row * 16 + compressed column + 1); every thread's metadata register holds random valid
// 2:4 nibbles; B (32 x 16, K-major, no swizzle) selects one column of A into each column of D
// (B[k][n] = 1 where k = n + 16h, h = 0 or 1), so D shows where each compressed value landed.
// Then random values. Prints every thread's metadata and accumulator registers as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 | (uint64_t)((sbo >> 4) & 0x3fff) << 32;
}

template <int SEL>
__global__ void k(const uint16_t *gA, const uint16_t *gB, const uint32_t *gE, uint32_t *gD)
{
    __shared__ __align__(128) uint16_t sA[64 * 16], sB[16 * 32];
    int tid = threadIdx.x;
    for (int i = tid; i < 64 * 16; i += 128) sA[i] = gA[i];
    for (int i = tid; i < 16 * 32; i += 128) sB[i] = gB[i];
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    // A: 64 rows x 16 compressed columns: core matrices 8 rows x 8 columns, LBO 128 (K), SBO 256 (M)
    // B: 16 columns (N) x 32 (K): LBO 128 (K), SBO 512 (N)
    uint64_t da = desc(sA, 128, 256), db = desc(sB, 128, 512);
    uint32_t e = gE[tid];
    float d[8];
    for (int i = 0; i < 8; i++) d[i] = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                 "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, %11, p, 1, 1, 0, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db), "r"(e), "n"(SEL));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) { uint32_t u; memcpy(&u, &d[i], 4); gD[tid * 8 + i] = u; }
}

static uint64_t s = 0x452821e638d01377ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint16_t h(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe };
    static uint16_t A[64 * 16], B[16 * 32];
    static uint32_t E[128], D[128 * 8];
    uint16_t *dA, *dB; uint32_t *dE, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dE, sizeof E); cudaMalloc(&dD, sizeof D);
    for (int sel = 0; sel < 2; sel++)
        for (int hh = 0; hh < 3; hh++) {   // hh 2: random values
            int random = hh == 2;
            for (int m = 0; m < 64; m++)   // A[m][c] (compressed) at the no-swizzle K-major place
                for (int c = 0; c < 16; c++) {
                    float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (float)(m * 16 + c + 1);
                    A[((m / 8) * 256 + (c / 8) * 128) / 2 + (m % 8) * 8 + c % 8] = h(x);
                }
            for (int n = 0; n < 16; n++)
                for (int kk = 0; kk < 32; kk++) {
                    float x = random ? (float)((int)(rnd() % 2001) - 1000) / 64.0f : (kk == n + 16 * hh ? 1.0f : 0.0f);
                    B[((n / 8) * 512 + (kk / 8) * 128) / 2 + (n % 8) * 8 + kk % 8] = h(x);
                }
            for (int t = 0; t < 128; t++) {
                uint32_t e = 0;
                for (int q = 0; q < 8; q++) e |= nib[rnd() % 6] << (4 * q);
                E[t] = e;
            }
            cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, E, sizeof E, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof D);
            if (sel) k<1><<<1, 128>>>(dA, dB, dE, dD); else k<0><<<1, 128>>>(dA, dB, dE, dD);
            cudaError_t err = cudaDeviceSynchronize();
            cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
            printf("== selector %d %s: %s\n", sel, random ? "random" : hh ? "h1" : "h0", cudaGetErrorName(err));
            for (int t = 0; t < 128; t++) {
                printf("t%d: e %08x d", t, E[t]);
                for (int i = 0; i < 8; i++) printf(" %08x", D[t * 8 + i]);
                printf("\n");
            }
            if (random) {   // the inputs too, for checking the arithmetic
                printf("A:");
                for (int i = 0; i < 64 * 16; i++) printf(" %04x", A[i]);
                printf("\nB:");
                for (int i = 0; i < 16 * 32; i++) printf(" %04x", B[i]);
                printf("\n");
            }
        }
    return 0;
}
