// sfu4_probe.cu - the second MUFU recording (docs/sfu.md): the tables behind sin, cos and
// tanh.approx.f32, and a check of the models built on them against the GPU on every one of
// the 2^32 inputs. Run by tests/gpu/record_batch2.sh on the GPU machine:  sfu4_probe CUBIN OUTDIR
// CUBIN is mufu_kernels.cu built with -cubin (sm_90); as in sfu3_probe.cu it is also loaded
// with 1/(2 pi) patched to 1.0, so that its sin/cos kernels run MUFU.SIN/COS on their input.
// Models (sfu3_probe.cu's recording found them):
//   sin/cos.approx(x) = M(t), t = x * 0x3e22f983 rounded towards zero (FMUL.RZ); M depends
//     only on k = floor(|t| 2^25) mod 2^25 and t's sign: sin gives sign(t) S[k], cos C[k];
//   tanh.approx(x) = x for |x| < 2^-8 (subnormals too), sign(x) for |x| >= 8, else the table
//     T_e at x's top bits (the low q_e bits of binade e do not matter).
// Files (u32, little-endian, each stored as first differences): sin_lo.bin S[0 .. 2^24),
// sin_hi.bin S[2^24 + 2j] for j < 2^23 (odd k >= 2^24 cannot come from an f32 t), cos_lo,
// cos_hi the same for C; tanh.bin the tables T_e for e = -8 .. 2 in order.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <vector>
#include <string>
#include <thread>
#include <atomic>
#include <mutex>

#define CK(x) do { CUresult e_ = (x); if (e_ != CUDA_SUCCESS) { const char *s; cuGetErrorName(e_, &s); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1); } } while (0)
#define RK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)

static std::string outdir;
static FILE *sum;
static CUmodule mod_plain, mod_patch;
static CUfunction fn(CUmodule m, const char *name) { CUfunction f; CK(cuModuleGetFunction(&f, m, name)); return f; }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static void save_delta(const char *name, const std::vector<uint32_t> &v)
{
    std::vector<uint32_t> d(v.size());
    uint32_t prev = 0;
    for (size_t i = 0; i < v.size(); i++) { d[i] = v[i] - prev; prev = v[i]; }
    std::string path = outdir + "/" + name;
    FILE *f = fopen(path.c_str(), "wb");
    if (!f || fwrite(d.data(), 4, d.size(), f) != d.size()) { fprintf(stderr, "cannot write %s\n", path.c_str()); exit(1); }
    fclose(f);
}

static std::vector<uint32_t> S_lo, S_hi, C_lo, C_hi, T;
static const int TQ[11] = { 6, 6, 6, 5, 5, 4, 4, 4, 3, 2, 3 };   /* e = -8 .. 2 */
static size_t T_off[12];

static void tab_sincos(int which, uint32_t base, uint32_t step, uint32_t n, std::vector<uint32_t> &out)
{
    uint32_t *dy;
    RK(cudaMalloc(&dy, 4ull * n));
    void *args[] = { &which, &base, &step, &dy, &n };
    CK(cuLaunchKernel(fn(mod_patch, "k_tab_sincos"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
    out.resize(n);
    RK(cudaMemcpy(out.data(), dy, 4ull * n, cudaMemcpyDeviceToHost));
    RK(cudaFree(dy));
}

static void record_tables()
{
    tab_sincos(0, 0, 1, 1u << 24, S_lo);
    tab_sincos(0, 1u << 24, 2, 1u << 23, S_hi);
    tab_sincos(1, 0, 1, 1u << 24, C_lo);
    tab_sincos(1, 1u << 24, 2, 1u << 23, C_hi);
    /* symmetries, for docs/sfu.md: what a smaller table could rely on */
    const uint32_t Q = 1u << 23, H = 1u << 24;
    uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
    for (uint32_t k = 1; k < Q; k++) a += S_lo[H - k] != S_lo[k];                        /* sin(pi - x) */
    for (uint32_t j = 0; j < Q; j++) b += S_hi[j] != (S_lo[2 * j] ^ 0x80000000u);          /* sin(pi + x) */
    for (uint32_t k = 0; k <= Q; k++) c += C_lo[k] != S_lo[Q - k];                         /* cos = sin(pi/2 - x) */
    for (uint32_t k = 0; k < Q; k++) d += C_lo[k] != S_lo[Q + k];                          /* cos = sin(x + pi/2) */
    for (uint32_t k = 1; k < Q; k++) e += C_lo[H - k] != (C_lo[k] ^ 0x80000000u);          /* cos(pi - x) */
    fprintf(sum, "symmetry mismatches: sin(1/2-t) %llu, sin(t+1/2) %llu, cos(t)=sin(1/4-t) %llu, cos(t)=sin(t+1/4) %llu, cos(1/2-t) %llu\n",
            (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)d, (unsigned long long)e);
    save_delta("sin_lo.bin", S_lo); save_delta("sin_hi.bin", S_hi);
    save_delta("cos_lo.bin", C_lo); save_delta("cos_hi.bin", C_hi);
    /* tanh */
    uint32_t *dy;
    RK(cudaMalloc(&dy, 4ull << 21));
    for (int i = 0; i < 11; i++) {
        uint32_t e = (uint32_t)(127 - 8 + i), n = 1u << (23 - TQ[i]);
        int q = TQ[i];
        void *args[] = { &e, &q, &dy, &n };
        CK(cuLaunchKernel(fn(mod_plain, "k_tab_tanh"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
        T_off[i] = T.size();
        T.resize(T.size() + n);
        RK(cudaMemcpy(T.data() + T_off[i], dy, 4ull * n, cudaMemcpyDeviceToHost));
    }
    T_off[11] = T.size();
    RK(cudaFree(dy));
    save_delta("tanh.bin", T);
    fprintf(sum, "tables: sin/cos 2^24 + 2^23 entries each, tanh %zu entries (q per binade -8..2:", T.size());
    for (int i = 0; i < 11; i++) fprintf(sum, " %d", TQ[i]);
    fprintf(sum, ")\n");
}

/* ---- the models ---- */
static float mulrz(float x, int ftz)
{
    if (ftz && !(fbits(x) & 0x7f800000u)) x = copysignf(0.0f, x);
    double p = (double)x * (double)bitsf(0x3e22f983u);   /* exact */
    float f = (float)p;
    if (fabs((double)f) > fabs(p)) f = nextafterf(f, 0.0f);
    return f;
}
static uint32_t sincos_model(uint32_t xb, int cosine, int ftz)
{
    float t = mulrz(bitsf(xb), ftz);
    if (std::isnan(t) || std::isinf(t)) return 0x7fffffffu;
    double a = fabs((double)t);
    uint32_t k = a >= 0x1p24 ? 0 : (uint32_t)(uint64_t)(a * 0x1p25) & ((1u << 25) - 1);
    const std::vector<uint32_t> &lo = cosine ? C_lo : S_lo, &hi = cosine ? C_hi : S_hi;
    uint32_t r = k < (1u << 24) ? lo[k] : hi[(k - (1u << 24)) / 2];
    if (!cosine && std::signbit(t)) r ^= 0x80000000u;
    return r;
}
static uint32_t tanh_model(uint32_t xb)
{
    uint32_t s = xb & 0x80000000u, a = xb & 0x7fffffffu;
    if (a > 0x7f800000u) return 0x7fffffffu;
    int e = (int)(a >> 23) - 127;
    if (e < -8) return xb;
    if (e >= 3) return s | 0x3f800000u;
    int i = e + 8;
    return s | T[T_off[i] + ((a & 0x7fffffu) >> TQ[i])];
}

static void exhaustive()
{
    const char *ks[5] = { "r_sin_ftz", "r_sin", "r_cos_ftz", "r_cos", "r_tanh" };
    const unsigned C = getenv("SFU4_TRIAL") ? 1u << 16 : 1u << 27;   /* trial: one small chunk */
    const uint64_t end = getenv("SFU4_TRIAL") ? C : 1ull << 32;
    uint32_t *dy, *hy;
    RK(cudaMalloc(&dy, 4ull * C));
    RK(cudaMallocHost(&hy, 4ull * C));
    unsigned nth = std::thread::hardware_concurrency(); if (nth > 32) nth = 32; if (!nth) nth = 4;
    for (int f = 0; f < 5; f++) {
        std::atomic<unsigned long long> bad(0);
        std::vector<uint32_t> ex;
        std::mutex mu;
        unsigned long long byexp[256] = { 0 };
        for (uint64_t base = 0; base < end; base += C) {
            uint32_t b32 = (uint32_t)base; unsigned n = C;
            void *args[] = { &b32, &dy, &n };
            CK(cuLaunchKernel(fn(mod_plain, ks[f]), C / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
            RK(cudaMemcpy(hy, dy, 4ull * C, cudaMemcpyDeviceToHost));
            std::vector<std::thread> th;
            for (unsigned t = 0; t < nth; t++) th.emplace_back([&, t]() {
                unsigned long long b = 0, loc[256] = { 0 };
                for (uint64_t i = (uint64_t)t * (C / nth); i < (t + 1 == nth ? (uint64_t)C : (uint64_t)(t + 1) * (C / nth)); i++) {
                    uint32_t in = (uint32_t)(base + i), g = hy[i];
                    uint32_t m = f < 4 ? sincos_model(in, f >= 2, !(f & 1)) : tanh_model(in);
                    if (m != g) {
                        b++; loc[(in >> 23) & 255]++;
                        if (ex.size() < 64) { std::lock_guard<std::mutex> l(mu); if (ex.size() < 64) { ex.push_back(in); ex.push_back(g); ex.push_back(m); } }
                    }
                }
                bad += b;
                std::lock_guard<std::mutex> l(mu);
                for (int j = 0; j < 256; j++) byexp[j] += loc[j];
            });
            for (auto &x : th) x.join();
        }
        fprintf(sum, "exhaustive %s: %llu of 2^32 inputs differ from the model", ks[f] + 2, bad.load());
        for (size_t i = 0; i + 2 < ex.size(); i += 3) fprintf(sum, " %08x:gpu=%08x,model=%08x", ex[i], ex[i + 1], ex[i + 2]);
        fprintf(sum, "\n");
        if (bad.load()) {
            fprintf(sum, "  by exponent field:");
            for (int j = 0; j < 256; j++) if (byexp[j]) fprintf(sum, " %d:%llu", j, byexp[j]);
            fprintf(sum, "\n");
        }
        fflush(sum);
    }
    RK(cudaFree(dy)); RK(cudaFreeHost(hy));
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: sfu4_probe CUBIN OUTDIR\n"); return 2; }
    outdir = argv[2];
    sum = fopen((outdir + "/summary.txt").c_str(), "w");
    if (!sum) return 1;
    setvbuf(sum, NULL, _IOLBF, 0);
    RK(cudaFree(0));
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    std::vector<unsigned char> img;
    { unsigned char b[65536]; size_t n; while ((n = fread(b, 1, sizeof b, f)) > 0) img.insert(img.end(), b, b + n); }
    fclose(f);
    CK(cuModuleLoadData(&mod_plain, img.data()));
    unsigned patched = 0;
    for (size_t i = 0; i + 4 <= img.size(); i++) {
        uint32_t v; memcpy(&v, &img[i], 4);
        if (v == 0x3e22f983u) { uint32_t one = 0x3f800000u; memcpy(&img[i], &one, 4); patched++; }
    }
    CK(cuModuleLoadData(&mod_patch, img.data()));
    cudaDeviceProp p; RK(cudaGetDeviceProperties(&p, 0));
    fprintf(sum, "device %s, patched %u copies of 1/(2 pi)\n", p.name, patched);
    record_tables();
    exhaustive();
    RK(cudaDeviceSynchronize());
    fprintf(sum, "done\n");
    fclose(sum);
    return 0;
}
