// lessons.cu - pairs of kernels from performance lessons, whose H100/H200 times the model
// must rank as the GPU does (tests/run_profile_tests.sh, docs/profile.md): atomics on one
// address, on few and on many, in global and shared memory, red against atom; the rates of
// the f64, f16x2, integer-multiply and special-function units against f32 FMA; and the
// classic memory and divergence lessons. Each kernel is launched REPS times (argv[2],
// default 21; with 1 there is no warm-up launch) and its median time printed as `NAME
// MICROSECONDS`; argv[1] is the element count N (a multiple of 2^16, default 2^20). With
// argv[3] = ci the kernels that are slow to emulate run smaller grids (the unit-rate chains
// N/64 threads, the shared-memory lessons N/8, a 256x256 matmul): the size the test runs;
// with argv[3] = units only the unit-rate chains run, at the full size.
// The pairs are listed in PAIRS below and printed at the end as `pair A B`.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>

/* ---- atomics ---- */
__global__ void atomic_same(const float *x, float *sum)           /* every thread, one address */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(sum, x[i]);
}
__global__ void atomic_warp_reduced(const float *x, float *sum)   /* shuffles, one atomic a warp */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}
__global__ void atomic_distinct(const float *x, float *out)       /* every thread its own address */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[i], x[i]);
}
__global__ void hist16_global(const unsigned *x, unsigned *bins)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&bins[x[i] % 16], 1u);
}
__global__ void hist1024_global(const unsigned *x, unsigned *bins)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&bins[x[i] % 1024], 1u);
}
__global__ void hist16_shared(const unsigned *x, unsigned *bins)   /* privatized per block */
{
    __shared__ unsigned s[16];
    if (threadIdx.x < 16) s[threadIdx.x] = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&s[x[i] % 16], 1u);
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], s[threadIdx.x]);
}
__global__ void shared_atomic_same(const float *x, float *out)     /* a block's threads on one word */
{
    __shared__ float s;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&s, x[i]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
__global__ void shared_atomic_distinct(const float *x, float *out) /* each thread its own word */
{
    __shared__ float s[256];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&s[threadIdx.x], x[i]);
    __syncthreads();
    out[i] = s[threadIdx.x];
}
__global__ void red_distinct(const unsigned *x, unsigned *out)     /* result unused: RED */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[(i * 33) % (gridDim.x * blockDim.x)], x[i]);
}
__global__ void atom_distinct(const unsigned *x, unsigned *out, unsigned *old)   /* result used: ATOM */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicAdd(&out[(i * 33) % (gridDim.x * blockDim.x)], x[i]);
}
__global__ void red_same(const unsigned *x, unsigned *out)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(out, x[i]);
}
__global__ void atom_same(const unsigned *x, unsigned *out, unsigned *old)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    old[i] = atomicAdd(out, x[i]);
}

/* ---- unit rates: 256 dependent steps a thread, four independent chains ---- */
#define CHAIN(NAME, T, INIT, STEP)                                             \
__global__ void NAME(T *out, T k)                                              \
{                                                                              \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                        \
    T a = INIT(i), b = INIT(i + 1), c = INIT(i + 2), d = INIT(i + 3);          \
    for (int j = 0; j < 64; j++) { STEP(a); STEP(b); STEP(c); STEP(d); }       \
    out[i] = a + b + c + d;                                                    \
}
#define I_F(i) ((float)(i) * 1e-7f)
#define I_D(i) ((double)(i) * 1e-7)
#define I_U(i) ((unsigned)(i) | 1u)
#define S_F(v) v = fmaf(v, k, 0.5f)
#define S_D(v) v = fma(v, k, 0.5)
#define S_U(v) v = v * k + 7u
#define S_SIN(v) v = __sinf(v) * k
#define S_LIBSIN(v) v = sinf(v) * k
CHAIN(fma_f32, float, I_F, S_F)
CHAIN(fma_f64, double, I_D, S_D)
CHAIN(imad_u32, unsigned, I_U, S_U)
CHAIN(sin_intrinsic, float, I_F, S_SIN)
__global__ void sin_libm(float *out, float k)   /* sinf: the software path, fewer steps */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = I_F(i), b = I_F(i + 1), c = I_F(i + 2), d = I_F(i + 3);
    for (int j = 0; j < 16; j++) { S_LIBSIN(a); S_LIBSIN(b); S_LIBSIN(c); S_LIBSIN(d); }
    out[i] = a + b + c + d;
}
__global__ void hfma2_half_steps(__half2 *out, __half2 k)   /* half2: two values a step, 128 steps */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 a = __float2half2_rn(I_F(i)), b = __float2half2_rn(I_F(i + 1)), c = __float2half2_rn(I_F(i + 2)), d = __float2half2_rn(I_F(i + 3));
    __half2 h = __float2half2_rn(0.5f);
    for (int j = 0; j < 32; j++) { a = __hfma2(a, k, h); b = __hfma2(b, k, h); c = __hfma2(c, k, h); d = __hfma2(d, k, h); }
    out[i] = __hadd2(__hadd2(a, b), __hadd2(c, d));
}

/* ---- memory and divergence ---- */
__global__ void copy_coalesced(const float *x, float *y)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i];
}
__global__ void copy_strided(const float *x, float *y)   /* stride 32: one sector a lane */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    unsigned j = (i * 32) % n + (i * 32) / n;
    y[j] = x[j];
}
struct P4 { float x, y, z, w; };
__global__ void soa_update(const float *x, float *y, int n)   /* structure of arrays: x only */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * 2.0f;
    (void)n;
}
__global__ void aos_update(const P4 *p, float *y)              /* array of structures: .x only */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = p[i].x * 2.0f;
}
__global__ void divergent_lanes(float *y, float k)   /* odd and even lanes take different paths */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)i;
    if (threadIdx.x % 2) { for (int j = 0; j < 64; j++) v = fmaf(v, k, 1.0f); }
    else { for (int j = 0; j < 64; j++) v = fmaf(v, k, 2.0f); }
    y[i] = v;
}
__global__ void divergent_warps(float *y, float k)   /* whole warps take one path */
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)i;
    if ((threadIdx.x / 32) % 2) { for (int j = 0; j < 64; j++) v = fmaf(v, k, 1.0f); }
    else { for (int j = 0; j < 64; j++) v = fmaf(v, k, 2.0f); }
    y[i] = v;
}
__global__ void smem_conflict(float *y)   /* column access of a 32x32 tile: 32-way conflicts */
{
    __shared__ float t[32][32];
    unsigned tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (int r = ty; r < 32; r += 8) t[r][tx] = (float)(r + tx);
    __syncthreads();
    float v = 0;
    for (int r = 0; r < 32; r++) v += t[tx][(r + ty) % 32];
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
__global__ void smem_padded(float *y)
{
    __shared__ float t[32][33];
    unsigned tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (int r = ty; r < 32; r += 8) t[r][tx] = (float)(r + tx);
    __syncthreads();
    float v = 0;
    for (int r = 0; r < 32; r++) v += t[tx][(r + ty) % 32];
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#define TM 16
__global__ void matmul_naive(const float *a, const float *b, float *c, int n)
{
    int r = blockIdx.y * TM + threadIdx.y, col = blockIdx.x * TM + threadIdx.x;
    float v = 0;
    for (int k = 0; k < n; k++) v += a[r * n + k] * b[k * n + col];
    c[r * n + col] = v;
}
__global__ void matmul_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float ta[TM][TM], tb[TM][TM];
    int r = blockIdx.y * TM + threadIdx.y, col = blockIdx.x * TM + threadIdx.x;
    float v = 0;
    for (int k0 = 0; k0 < n; k0 += TM) {
        ta[threadIdx.y][threadIdx.x] = a[r * n + k0 + threadIdx.x];
        tb[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < TM; k++) v += ta[threadIdx.y][k] * tb[k][threadIdx.x];
        __syncthreads();
    }
    c[r * n + col] = v;
}

template <class F> static void timed(const char *name, int reps, F launch)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ms;
    if (reps > 1) launch();   /* warm up */
    for (int r = 0; r < reps; r++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    printf("%s %.1f\n", name, ms[ms.size() / 2] * 1000.0);
}

static const char *PAIRS[][2] = {
    { "atomic_same", "atomic_warp_reduced" }, { "atomic_same", "atomic_distinct" },
    { "hist16_global", "hist16_shared" }, { "hist16_global", "hist1024_global" },
    { "shared_atomic_same", "shared_atomic_distinct" }, { "red_distinct", "atom_distinct" },
    { "red_same", "atom_same" }, { "atomic_same", "red_distinct" },
    { "fma_f64", "fma_f32" }, { "imad_u32", "fma_f32" }, { "sin_intrinsic", "fma_f32" },
    { "sin_libm", "sin_intrinsic" }, { "hfma2_half_steps", "fma_f32" },
    { "copy_strided", "copy_coalesced" }, { "aos_update", "soa_update" },
    { "divergent_lanes", "divergent_warps" }, { "smem_conflict", "smem_padded" },
    { "matmul_naive", "matmul_tiled" },
};

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1u << 20;
    int reps = argc > 2 ? atoi(argv[2]) : 21, ci = argc > 3 && !strcmp(argv[3], "ci");
    int units = argc > 3 && !strcmp(argv[3], "units");
    float *fx, *fy, *fs; unsigned *ux, *uy, *uo; P4 *p4;
    cudaMalloc(&fx, n * 4ull); cudaMalloc(&fy, n * 4ull); cudaMalloc(&fs, 4096 * 4);
    cudaMalloc(&ux, n * 4ull); cudaMalloc(&uy, n * 4ull); cudaMalloc(&uo, n * 4ull);
    cudaMalloc(&p4, n * 16ull);
    std::vector<unsigned> h(n);
    for (unsigned i = 0; i < n; i++) h[i] = i * 2654435761u >> 7;
    cudaMemcpy(ux, h.data(), n * 4ull, cudaMemcpyHostToDevice);
    cudaMemset(fx, 0, n * 4ull); cudaMemset(fs, 0, 4096 * 4); cudaMemset(p4, 0, n * 16ull);
    unsigned B = 256, G = n / B;
    unsigned CG = ci ? G / 64 : G / 4;   /* the unit-rate chains: 256 steps a thread */
    unsigned SG = ci ? G / 8 : G;        /* the shared-memory lessons */
    if (!units) timed("atomic_same", reps, [&] { atomic_same<<<G, B>>>(fx, fs); });
    if (!units) timed("atomic_warp_reduced", reps, [&] { atomic_warp_reduced<<<G, B>>>(fx, fs); });
    if (!units) timed("atomic_distinct", reps, [&] { atomic_distinct<<<G, B>>>(fx, fy); });
    if (!units) timed("hist16_global", reps, [&] { hist16_global<<<G, B>>>(ux, uy); });
    if (!units) timed("hist1024_global", reps, [&] { hist1024_global<<<G, B>>>(ux, uy); });
    if (!units) timed("hist16_shared", reps, [&] { hist16_shared<<<G, B>>>(ux, uy); });
    if (!units) timed("shared_atomic_same", reps, [&] { shared_atomic_same<<<G, B>>>(fx, fy); });
    if (!units) timed("shared_atomic_distinct", reps, [&] { shared_atomic_distinct<<<G, B>>>(fx, fy); });
    if (!units) timed("red_distinct", reps, [&] { red_distinct<<<G, B>>>(ux, uy); });
    if (!units) timed("atom_distinct", reps, [&] { atom_distinct<<<G, B>>>(ux, uy, uo); });
    if (!units) timed("red_same", reps, [&] { red_same<<<G, B>>>(ux, uy); });
    if (!units) timed("atom_same", reps, [&] { atom_same<<<G, B>>>(ux, uy, uo); });
    timed("fma_f32", reps, [&] { fma_f32<<<CG, B>>>(fy, 0.999f); });
    timed("fma_f64", reps, [&] { fma_f64<<<CG, B>>>((double *)uo, 0.999); });
    timed("imad_u32", reps, [&] { imad_u32<<<CG, B>>>(uy, 2654435761u); });
    timed("sin_intrinsic", reps, [&] { sin_intrinsic<<<CG, B>>>(fy, 0.999f); });
    timed("sin_libm", reps, [&] { sin_libm<<<CG, B>>>(fy, 0.999f); });
    timed("hfma2_half_steps", reps, [&] { hfma2_half_steps<<<CG, B>>>((__half2 *)uy, __float2half2_rn(0.999f)); });
    if (!units) timed("copy_coalesced", reps, [&] { copy_coalesced<<<G, B>>>(fx, fy); });
    if (!units) timed("copy_strided", reps, [&] { copy_strided<<<G, B>>>(fx, fy); });
    if (!units) timed("soa_update", reps, [&] { soa_update<<<G, B>>>(fx, fy, (int)n); });
    if (!units) timed("aos_update", reps, [&] { aos_update<<<G, B>>>(p4, fy); });
    if (!units) timed("divergent_lanes", reps, [&] { divergent_lanes<<<G, B>>>(fy, 0.999f); });
    if (!units) timed("divergent_warps", reps, [&] { divergent_warps<<<G, B>>>(fy, 0.999f); });
    if (!units) timed("smem_conflict", reps, [&] { smem_conflict<<<SG, B>>>(fy); });
    if (!units) timed("smem_padded", reps, [&] { smem_padded<<<SG, B>>>(fy); });
    int m = ci ? 256 : 512;
    dim3 mg(m / TM, m / TM), mb(TM, TM);
    if (!units) timed("matmul_naive", reps, [&] { matmul_naive<<<mg, mb>>>(fx, fy, (float *)uo, m); });
    if (!units) timed("matmul_tiled", reps, [&] { matmul_tiled<<<mg, mb>>>(fx, fy, (float *)uo, m); });
    for (auto &p : PAIRS) printf("pair %s %s\n", p[0], p[1]);
    printf("done: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
