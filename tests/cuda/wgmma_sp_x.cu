// wgmma_sp_x.cu - the last sparse wgmma forms, as the H100 executes them (sm_90a): f16 with a
// transposed A (imm-trans-a) and with a transposed B (imm-trans-b), both from shared memory
// filled with random values; and A from registers on tf32 (m64n16k16), s8 and e4m3
// (m64n16k64), coded runs first (A's compressed values are their compressed column + 1, B
// selects one dense column of A into each column of D), then random values. Prints the
// metadata and D as bits.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 | (uint64_t)((sbo >> 4) & 0x3fff) << 32;
}

#define OUT8 "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7])
#define PRED "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
// V 0: f16, A transposed; 1: f16, B transposed; 2: tf32, A in registers; 3: s8, A in
// registers; 4: e4m3, A in registers
template <int V>
__global__ void k(const uint32_t *gA, const uint32_t *gB, const uint32_t *gE, uint32_t *gD)
{
    __shared__ __align__(128) uint32_t sA[1024], sB[1024];
    int tid = threadIdx.x;
    for (int i = tid; i < 1024; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    uint64_t da = desc(sA, 128, 256), db = desc(sB, 128, 512);
    uint32_t e = gE[tid], d[8] = {0, 0, 0, 0, 0, 0, 0, 0}, a[4];
    for (int i = 0; i < 4; i++) a[i] = gA[tid * 4 + i];
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (V == 0)
        asm volatile(PRED "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, 0, p, 1, 1, 1, 0;\n}\n"
                     : OUT8 : "l"(da), "l"(db), "r"(e));
    else if (V == 1)
        asm volatile(PRED "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, %10, 1, p, 1, 1, 0, 1;\n}\n"
                     : OUT8 : "l"(da), "l"(db), "r"(e));
    else if (V == 2)
        asm volatile(PRED "wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, %13, 0, p, 1, 1;\n}\n"
                     : OUT8 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(e));
    else if (V == 3)
        asm volatile(PRED "wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.s8 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, %13, 0, p;\n}\n"
                     : OUT8 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(e));
    else
        asm volatile(PRED "wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, %13, 0, p, 1, 1;\n}\n"
                     : OUT8 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(e));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; i++) gD[tid * 8 + i] = d[i];
}

static uint64_t s = 0x5be0cd19137e2179ull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 17); }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint16_t h16(float f) { __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u; }
static float rval() { return (float)((int)(rnd() % 2001) - 1000) / 64.0f; }

template <int V> static void run(const uint32_t *A, const uint32_t *B, const uint32_t *E, uint32_t *D) { k<V><<<1, 128>>>(A, B, E, D); }

int main()
{
    static const uint32_t nib[6] = { 0x4, 0x8, 0xc, 0x9, 0xd, 0xe }, nib_tf32[2] = { 0x4, 0xe };
    static uint32_t A[1024], B[1024], E[128], D[128 * 8];
    uint32_t *dA, *dB, *dE, *dD;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dE, sizeof E); cudaMalloc(&dD, sizeof D);
    void (*runs[5])(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *) = { run<0>, run<1>, run<2>, run<3>, run<4> };
    for (int v = 0; v < 5; v++) {
        int passes = v == 3 ? 4 : v == 2 ? 1 : 0;   // coded passes (A in registers, tf32 and s8)
        for (int hh = 0; hh < passes + 2; hh++) {
            int random = hh >= passes;
            unsigned char *b8 = (unsigned char *)B;
            if (v <= 1) {   // everything random
                for (int i = 0; i < 1024; i++) A[i] = h16(rval()) | (uint32_t)h16(rval()) << 16;
                for (int i = 0; i < 1024; i++) B[i] = h16(rval()) | (uint32_t)h16(rval()) << 16;
            } else {
                memset(B, 0, sizeof B);
                for (int t = 0; t < 128; t++)
                    for (int j = 0; j < 4; j++) {
                        int t4 = t % 4;
                        uint32_t w = 0;
                        if (v == 2) {   // tf32: row g + 8(j%2), compressed column 4(j/2) + t4
                            int c = 4 * (j / 2) + t4;
                            w = random ? fbits(rval()) | (rnd() & 0x1fff) : fbits((float)(c + 1));
                        } else {        // 8-bit: compressed columns 16(j/2) + 4 t4 + x
                            for (int x = 0; x < 4; x++) {
                                int c = 16 * (j / 2) + 4 * t4 + x;
                                uint32_t b = random ? (v == 4 ? (rnd() & 0x77) | (rnd() & 0x80) : rnd() & 0xff) : (uint32_t)(c + 1);
                                w |= b << (8 * x);
                            }
                        }
                        A[t * 4 + j] = w;
                    }
                for (int n = 0; n < 16; n++)
                    for (int kk = 0; kk < (v == 2 ? 16 : 64); kk++) {
                        if (v == 2) {
                            uint32_t x = random ? fbits(rval()) | (rnd() & 0x1fff) : fbits(kk == n ? 1.0f : 0.0f);
                            memcpy(b8 + (n / 8) * 512 + (kk / 4) * 128 + (n % 8) * 16 + (kk % 4) * 4, &x, 4);
                        } else {
                            uint32_t x = random ? (v == 4 ? (rnd() & 0x77) | (rnd() & 0x80) : rnd() & 0xff) : (uint32_t)(kk == n + 16 * hh);
                            b8[(n / 8) * 512 + (kk / 16) * 128 + (n % 8) * 16 + kk % 16] = (unsigned char)x;
                        }
                    }
            }
            for (int t = 0; t < 128; t++) {
                uint32_t e = 0;
                for (int q = 0; q < 8; q++) e |= (v == 2 ? nib_tf32[rnd() % 2] : nib[rnd() % 6]) << (4 * q);
                E[t] = e;
            }
            cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
            cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
            cudaMemcpy(dE, E, sizeof E, cudaMemcpyHostToDevice);
            cudaMemset(dD, 0, sizeof D);
            runs[v](dA, dB, dE, dD);
            cudaError_t err = cudaDeviceSynchronize();
            cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
            printf("== form %d %s%d: %s\n", v, random ? "random" : "h", hh, cudaGetErrorName(err));
            for (int t = 0; t < 128; t++) {
                printf("t%d: e %08x d", t, E[t]);
                for (int i = 0; i < 8; i++) printf(" %08x", D[t * 8 + i]);
                printf("\n");
            }
        }
    }
    return 0;
}
