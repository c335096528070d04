// store_conflict.cu - several lanes of one warp store to one address in one instruction:
// which lane's value stays. The PTX spec leaves the order open; what is compared here is
// what the H200 does (tests/expected/cuda/store_conflict.0.out, recorded by
// tests/gpu/record_cuda.sh). HeCBench's simpleSpmv reduces a row with __shfl_down_sync and
// then lets every lane of the row store its own partial sum to y[row]: only lane 0's is the
// full sum, and the GPU keeps it.
#include <cstdio>
#include <cstdint>

__device__ float gf[64];
__device__ uint8_t gb[64];
__device__ unsigned long long gq[64];
__device__ float4 gv[8];
__device__ int gi[64];
__device__ unsigned short gh[64];
__device__ float2 gf2[8];
__device__ double2 gd2[8];
__device__ uchar2 gc2[8];

// every active lane stores to gf[0], gb[0], gq[0], gv[0] its own value
__global__ void global_all(unsigned mask) {
    unsigned lane = threadIdx.x;
    if (!((mask >> lane) & 1)) return;
    gf[0] = lane + 1.0f;
    gb[0] = (uint8_t)(lane + 1);
    gq[0] = 0x100000000ull * (lane + 1) + lane;
    gv[0] = make_float4(lane, lane + 100, lane + 200, lane + 300);
    gh[0] = (unsigned short)(lane + 1);
    gf2[0] = make_float2(lane, lane + 100);
    gd2[0] = make_double2(lane, lane + 100);
    gc2[0] = make_uchar2(lane, lane + 100);
}

// lane l stores to gi[l % groups]
__global__ void global_groups(int groups) {
    unsigned lane = threadIdx.x;
    gi[lane % groups] = lane;
}

__global__ void shared_all(unsigned mask, int *out) {
    __shared__ int s[33];
    __shared__ float4 sv[2];
    unsigned lane = threadIdx.x;
    s[lane] = -1;
    __syncwarp();
    if ((mask >> lane) & 1) {
        s[32] = lane;
        sv[0] = make_float4(lane, lane, lane, lane);
    }
    __syncwarp();
    if (lane == 0) { out[0] = s[32]; out[1] = (int)sv[0].x; }
}

// a generic pointer the compiler cannot place: shared or global at run time
__global__ void generic_all(int which, int *out) {
    __shared__ int s[1];
    unsigned lane = threadIdx.x;
    int *p = which ? s : out + 2;
    *p = lane;
    __syncwarp();
    if (lane == 0 && which) out[3] = s[0];
}

// simpleSpmv's vector kernel: rows of BS lanes, each lane stores its partial sum
template <int BS> __global__ void rows(const float *in, float *y, int n) {
    size_t m = blockIdx.x * blockDim.y + threadIdx.y;
    if (m < n) {
        float t = in[m * BS + threadIdx.x];
        for (int i = BS >> 1; i > 0; i >>= 1) t += __shfl_down_sync(0xFFFFFFFF, t, i, BS);
        y[m] = t;
    }
}

int main() {
    const unsigned masks[] = {0xffffffffu, 0xaaaaaaaau, 0x00ff0f00u, 0x80000001u, 0x10u};
    for (unsigned mask : masks) {
        global_all<<<1, 32>>>(mask);
        float f; uint8_t b; unsigned long long q; float4 v;
        cudaMemcpyFromSymbol(&f, gf, 4);
        cudaMemcpyFromSymbol(&b, gb, 1);
        cudaMemcpyFromSymbol(&q, gq, 8);
        cudaMemcpyFromSymbol(&v, gv, 16);
        printf("global mask %08x: f32 %g u8 %d u64 %llx v4 %g %g %g %g\n", mask, f, b, q,
               v.x, v.y, v.z, v.w);
        unsigned short h; float2 f2; double2 d2; uchar2 c2;
        cudaMemcpyFromSymbol(&h, gh, 2);
        cudaMemcpyFromSymbol(&f2, gf2, 8);
        cudaMemcpyFromSymbol(&d2, gd2, 16);
        cudaMemcpyFromSymbol(&c2, gc2, 2);
        printf("global mask %08x: u16 %d v2.f32 %g %g v2.f64 %g %g v2.u8 %d %d\n", mask, h,
               f2.x, f2.y, d2.x, d2.y, c2.x, c2.y);
    }
    for (int groups : {1, 2, 4, 8, 16, 3}) {
        global_groups<<<1, 32>>>(groups);
        int g[16];
        cudaMemcpyFromSymbol(g, gi, sizeof g);
        printf("global groups %d:", groups);
        for (int i = 0; i < groups; i++) printf(" %d", g[i]);
        printf("\n");
    }
    int *out;
    cudaMallocManaged(&out, 16 * sizeof(int));
    for (unsigned mask : masks) {
        shared_all<<<1, 32>>>(mask, out);
        cudaDeviceSynchronize();
        printf("shared mask %08x: s32 %d v4 %d\n", mask, out[0], out[1]);
    }
    generic_all<<<1, 32>>>(0, out);
    generic_all<<<1, 32>>>(1, out);
    cudaDeviceSynchronize();
    printf("generic: global %d shared %d\n", out[2], out[3]);

    const int n = 64;
    float *in, *y;
    cudaMallocManaged(&in, n * 32 * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n * 32; i++) in[i] = (float)(i % 7);
    rows<32><<<n / 4, dim3(32, 4)>>>(in, y, n);
    cudaDeviceSynchronize();
    printf("rows of 32:");
    for (int i = 0; i < 8; i++) printf(" %g", y[i]);
    printf("\n");
    rows<8><<<n / 16, dim3(8, 16)>>>(in, y, n);
    cudaDeviceSynchronize();
    printf("rows of 8:");
    for (int i = 0; i < 8; i++) printf(" %g", y[i]);
    printf("\n");
    cudaError_t e = cudaGetLastError();
    printf("%s\n", cudaGetErrorString(e));
    return 0;
}
