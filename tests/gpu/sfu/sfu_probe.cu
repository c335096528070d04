// sfu_probe.cu - dumps the H100's approximate functions (MUFU) over whole mantissa ranges, as
// int8 deltas from the correctly rounded value (computed on the host in long double), and over
// 2^18 pseudo-random inputs as raw bits. Exploration data for modelling them bit for bit.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cstdint>
#include <vector>

#define OP(name, ptx) \
__global__ void k_##name(const unsigned *in, unsigned *out, unsigned n) { \
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; \
    float x = __uint_as_float(in[i]), y; asm(ptx " %0, %1;" : "=f"(y) : "f"(x)); out[i] = __float_as_uint(y); }
OP(rcp, "rcp.approx.ftz.f32")
OP(rsqrt, "rsqrt.approx.ftz.f32")
OP(sqrt, "sqrt.approx.ftz.f32")
OP(lg2, "lg2.approx.ftz.f32")
OP(ex2, "ex2.approx.ftz.f32")
OP(sin, "sin.approx.ftz.f32")
OP(cos, "cos.approx.ftz.f32")
OP(tanh, "tanh.approx.f32")
OP(rcpnf, "rcp.approx.f32")
OP(ex2nf, "ex2.approx.f32")
OP(lg2nf, "lg2.approx.f32")
OP(rsqrtnf, "rsqrt.approx.f32")

typedef void (*K)(const unsigned *, unsigned *, unsigned);
static long double ref(const char *f, long double x)
{
    if (!strcmp(f, "rcp")) return 1.0L / x;
    if (!strcmp(f, "rsqrt")) return 1.0L / sqrtl(x);
    if (!strcmp(f, "sqrt")) return sqrtl(x);
    if (!strcmp(f, "lg2")) return log2l(x);
    if (!strcmp(f, "ex2")) return exp2l(x);
    return 0;
}

static unsigned *din, *dout;
static void run(K k, const std::vector<unsigned> &in, std::vector<unsigned> &out)
{
    unsigned n = in.size();
    cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice);
    k<<<(n + 255) / 256, 256>>>(din, dout, n);
    out.resize(n);
    cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost);
}

static void table(const char *f, K k, unsigned lo, unsigned hi, const char *tag)
{
    std::vector<unsigned> in, out;
    for (unsigned b = lo; b != hi; b++) in.push_back(b);
    run(k, in, out);
    std::vector<signed char> d(in.size());
    long hist[5] = {0};
    for (size_t i = 0; i < in.size(); i++) {
        float x; memcpy(&x, &in[i], 4);
        float r = (float)ref(f, x);
        unsigned rb; memcpy(&rb, &r, 4);
        long dd = (long)(int)out[i] - (long)(int)rb;
        if (dd > 127 || dd < -127) dd = -128;
        d[i] = (signed char)dd;
        hist[dd < -1 ? 0 : dd > 1 ? 4 : dd + 2]++;
    }
    char name[64]; snprintf(name, sizeof name, "%s_%s.i8", f, tag);
    FILE *fp = fopen(name, "wb"); fwrite(d.data(), 1, d.size(), fp); fclose(fp);
    printf("%s %s [%08x,%08x): <-1 %ld, -1 %ld, 0 %ld, +1 %ld, >1 %ld\n", f, tag, lo, hi, hist[0], hist[1], hist[2], hist[3], hist[4]);
}

static void random_set(const char *f, K k)
{
    std::vector<unsigned> in(1u << 18), out;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (auto &v : in) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; v = (unsigned)(s >> 11); }
    run(k, in, out);
    char name[64]; snprintf(name, sizeof name, "%s_random.u32", f);
    FILE *fp = fopen(name, "wb"); fwrite(out.data(), 4, out.size(), fp); fclose(fp);
}

int main()
{
    cudaMalloc(&din, (1u << 24) * 4);
    cudaMalloc(&dout, (1u << 24) * 4);
    table("rcp", k_rcp, 0x3f800000, 0x40000000, "1_2");
    table("rsqrt", k_rsqrt, 0x3f800000, 0x40800000, "1_4");
    table("sqrt", k_sqrt, 0x3f800000, 0x40800000, "1_4");
    table("lg2", k_lg2, 0x3f800000, 0x40000000, "1_2");
    table("lg2", k_lg2, 0x3f000000, 0x3f800000, "h_1");
    table("ex2", k_ex2, 0x3f000000, 0x3f800000, "h_1");
    table("ex2", k_ex2, 0x3f800000, 0x40000000, "1_2");
    table("ex2", k_ex2, 0xbf000000, 0xbf800000, "m1_mh");
    table("ex2", k_ex2, 0x34000000, 0x35000000, "tiny");
    K ks[] = {k_rcp, k_rsqrt, k_sqrt, k_lg2, k_ex2, k_sin, k_cos, k_tanh, k_rcpnf, k_ex2nf, k_lg2nf, k_rsqrtnf};
    const char *ns[] = {"rcp", "rsqrt", "sqrt", "lg2", "ex2", "sin", "cos", "tanh", "rcpnf", "ex2nf", "lg2nf", "rsqrtnf"};
    for (int i = 0; i < 12; i++) random_set(ns[i], ks[i]);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
