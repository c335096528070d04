// tma_encode.cu - tensor-map encoding conformance: cudaGetDriverEntryPoint* lookups and
// cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col / cuTensorMapReplaceAddress with valid and
// invalid arguments (rank, alignment, strides, box, element strides, interleave, swizzle,
// L2 promotion, OOB fill, im2col corners). Prints the CUresult of each call; the expected
// output was recorded on an H100 (tests/expected/cuda/tma_encode.0.out). NVIDIA's libcudart
// crashes on a null symbol or funcPtr, so those are not tried.
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime.h>

// cudaGetDriverEntryPoint is deprecated in CUDA 13 but still exported; it is under test here.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

typedef CUresult (*EncTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                             const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                             CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                             CUtensorMapFloatOOBfill);
typedef CUresult (*EncIm2col)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const int *, const int *, cuuint32_t, cuuint32_t,
                              const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*Replace)(CUtensorMap *, void *);

static EncTiled enc_tiled;
static EncIm2col enc_im2col;
static Replace replace_addr;
static char *gbase;                       // 256-aligned device buffer
alignas(64) static unsigned char tmbuf[256];

// ---- entry-point lookups ----
static void lookup(const char *what, const char *sym, int byver, unsigned ver,
                   unsigned long long flags, int want_status, void **fnp)
{
    void *fn = (void *)1;
    cudaDriverEntryPointQueryResult q = (cudaDriverEntryPointQueryResult)77;
    cudaError_t e;
    if (byver)
        e = cudaGetDriverEntryPointByVersion(sym, &fn, ver, flags, want_status ? &q : nullptr);
    else
        e = cudaGetDriverEntryPoint(sym, &fn, flags, want_status ? &q : nullptr);
    printf("%s: %s status=%d fn=%s\n", what, cudaGetErrorName(e), (int)q,
           fn == nullptr ? "null" : fn == (void *)1 ? "untouched" : "set");
    cudaError_t last = cudaGetLastError();
    printf("  last error after: %s\n", cudaGetErrorName(last));
    if (fnp) *fnp = fn;
    fflush(stdout);
}

// ---- tiled encodes: a base configuration, changed one field at a time ----
struct T {
    int dt = 1;
    unsigned rank = 2;
    size_t addr_off = 0;
    cuuint64_t dims[6] = {64, 32, 4, 4, 4, 4};
    cuuint64_t strides[5] = {128, 4096, 16384, 65536, 262144};
    cuuint32_t box[6] = {64, 8, 2, 2, 2, 2};
    cuuint32_t es[6] = {1, 1, 1, 1, 1, 1};
    int il = 0, sw = 0, l2 = 0, oob = 0;
    size_t map_off = 0;
};

static void tiled(const char *what, const T &t)
{
    CUtensorMap *m = (CUtensorMap *)(tmbuf + t.map_off);
    CUresult r = enc_tiled(m, (CUtensorMapDataType)t.dt, t.rank, gbase + t.addr_off, t.dims,
                           t.strides, t.box, t.es, (CUtensorMapInterleave)t.il,
                           (CUtensorMapSwizzle)t.sw, (CUtensorMapL2promotion)t.l2,
                           (CUtensorMapFloatOOBfill)t.oob);
    printf("tiled %s: %d\n", what, (int)r);
    fflush(stdout);
}

struct I {
    int dt = 1;
    unsigned rank = 4;
    size_t addr_off = 0;
    cuuint64_t dims[6] = {64, 8, 8, 2, 2, 2};
    cuuint64_t strides[5] = {128, 1024, 8192, 16384, 32768};
    int lo[3] = {-1, -1, -1}, up[3] = {-1, -1, -1};
    cuuint32_t cpp = 64, ppc = 32;
    cuuint32_t es[6] = {1, 1, 1, 1, 1, 1};
    int il = 0, sw = 0, l2 = 0, oob = 0;
};

static void i2c(const char *what, const I &t)
{
    CUresult r = enc_im2col((CUtensorMap *)tmbuf, (CUtensorMapDataType)t.dt, t.rank,
                            gbase + t.addr_off, t.dims, t.strides, t.lo, t.up, t.cpp, t.ppc,
                            t.es, (CUtensorMapInterleave)t.il, (CUtensorMapSwizzle)t.sw,
                            (CUtensorMapL2promotion)t.l2, (CUtensorMapFloatOOBfill)t.oob);
    printf("im2col %s: %d\n", what, (int)r);
    fflush(stdout);
}

static void tiled_cases()
{
    T b;
    tiled("base", b);
    for (unsigned r = 0; r <= 6; r++) {
        T t; t.rank = r;
        char n[32]; snprintf(n, sizeof n, "rank %u", r);
        tiled(n, t);
    }
    for (int dt = -1; dt <= 16; dt++) {
        T t; t.dt = dt;
        t.box[0] = 16; t.dims[0] = 256;     // 16 elements: 16..128 bytes, a multiple of 16
        char n[32]; snprintf(n, sizeof n, "dtype %d", dt);
        tiled(n, t);
    }
    { T t; t.dt = 13; t.dims[0] = 256; t.box[0] = 32; tiled("dtype 16U4_ALIGN8B box 32", t); }
    { T t; t.dt = 14; t.dims[0] = 256; t.box[0] = 128; tiled("dtype 16U4_ALIGN16B box 128", t); }
    { T t; t.dt = 15; t.dims[0] = 256; t.box[0] = 128; t.strides[0] = 256; tiled("dtype 16U6_ALIGN16B box 128", t); }
    const size_t offs[] = {1, 4, 8, 16, 32, 48, 64, 128};
    for (size_t o : offs) {
        T t; t.addr_off = o;
        char n[32]; snprintf(n, sizeof n, "address +%zu", o);
        tiled(n, t);
    }
    { T t; t.dims[0] = 0; tiled("dim0 0", t); }
    { T t; t.dims[1] = 0; tiled("dim1 0", t); }
    { T t; t.dims[1] = 1ull << 32; tiled("dim1 2^32", t); }
    { T t; t.dims[1] = (1ull << 32) + 1; tiled("dim1 2^32+1", t); }
    { T t; t.dims[0] = 1ull << 32; tiled("dim0 2^32", t); }
    { T t; t.dims[0] = 1; tiled("dim0 1 (box larger)", t); }
    { T t; t.dims[0] = 1000; tiled("dim0 1000 (stride smaller than row)", t); }
    { T t; t.strides[0] = 0; tiled("stride 0", t); }
    { T t; t.strides[0] = 8; tiled("stride 8", t); }
    { T t; t.strides[0] = 120; tiled("stride 120", t); }
    { T t; t.strides[0] = 136; tiled("stride 136", t); }
    { T t; t.strides[0] = 144; tiled("stride 144", t); }
    { T t; t.strides[0] = (1ull << 40) - 16; tiled("stride 2^40-16", t); }
    { T t; t.strides[0] = 1ull << 40; tiled("stride 2^40", t); }
    { T t; t.rank = 3; t.strides[1] = 64; tiled("stride1 smaller than stride0", t); }
    { T t; t.rank = 3; t.strides[1] = 128; tiled("stride1 equal stride0", t); }
    { T t; t.rank = 3; t.strides[1] = (1ull << 40) + 16; tiled("stride1 2^40+16", t); }
    { T t; t.rank = 1; t.strides[0] = 8; tiled("rank 1 stride ignored", t); }
    { T t; t.box[0] = 0; tiled("box0 0", t); }
    { T t; t.box[1] = 0; tiled("box1 0", t); }
    { T t; t.box[1] = 256; tiled("box1 256", t); }
    { T t; t.box[1] = 257; tiled("box1 257", t); }
    { T t; t.dt = 0; t.dims[0] = 512; t.strides[0] = 512; t.box[0] = 256; tiled("u8 box0 256", t); }
    { T t; t.dt = 0; t.dims[0] = 512; t.strides[0] = 512; t.box[0] = 272; tiled("u8 box0 272", t); }
    { T t; t.box[0] = 4; tiled("box0 8 bytes", t); }
    { T t; t.box[0] = 12; tiled("box0 24 bytes", t); }
    { T t; t.box[0] = 128; tiled("box0 larger than dim0", t); }
    { T t; t.dt = 2; t.box[0] = 256; t.box[1] = 256; t.dims[1] = 512; tiled("box 256KB", t); }
    { T t; t.es[0] = 0; tiled("es0 0", t); }
    { T t; t.es[1] = 0; tiled("es1 0", t); }
    { T t; t.es[0] = 9; tiled("es0 9", t); }
    { T t; t.es[1] = 8; tiled("es1 8", t); }
    { T t; t.es[1] = 9; tiled("es1 9", t); }
    { T t; t.es[1] = 16; tiled("es1 16", t); }
    { T t; t.es[0] = 2; tiled("es0 2", t); }
    // interleave
    T il3; il3.rank = 3; il3.dims[0] = 8; il3.strides[0] = 16; il3.strides[1] = 512; il3.box[0] = 8;
    { T t = il3; t.il = 1; tiled("il16 rank 3", t); }
    { T t = il3; t.il = 1; t.rank = 2; tiled("il16 rank 2", t); }
    { T t = il3; t.il = 1; t.rank = 5; tiled("il16 rank 5", t); }
    { T t = il3; t.il = 1; t.box[0] = 4; tiled("il16 box0 8 bytes", t); }
    { T t = il3; t.il = 1; t.box[0] = 16; t.dims[0] = 16; t.strides[0] = 32; tiled("il16 box0 32 bytes", t); }
    { T t = il3; t.il = 1; t.box[0] = 2; tiled("il16 box0 4 bytes", t); }
    { T t = il3; t.il = 1; t.es[0] = 2; tiled("il16 es0 2", t); }
    { T t = il3; t.il = 1; t.es[0] = 0; tiled("il16 es0 0", t); }
    for (int sw = 0; sw <= 7; sw++) {
        T t = il3; t.il = 1; t.sw = sw;
        char n[32]; snprintf(n, sizeof n, "il16 swizzle %d", sw);
        tiled(n, t);
    }
    T il32 = il3; il32.dims[0] = 16; il32.box[0] = 16; il32.strides[0] = 32; il32.il = 2; il32.sw = 1;
    tiled("il32 sw32", il32);
    for (int sw = 0; sw <= 6; sw++) {
        if (sw == 1) continue;
        T t = il32; t.sw = sw;
        char n[32]; snprintf(n, sizeof n, "il32 swizzle %d", sw);
        tiled(n, t);
    }
    { T t = il32; t.addr_off = 16; tiled("il32 address +16", t); }
    { T t = il32; t.strides[0] = 48; t.strides[1] = 480; tiled("il32 stride 48", t); }
    { T t = il32; t.strides[1] = 528; tiled("il32 stride1 528", t); }
    { T t = il32; t.box[0] = 8; tiled("il32 box0 16 bytes", t); }
    { T t = il32; t.box[0] = 32; t.dims[0] = 32; t.strides[0] = 64; t.strides[1] = 1024; tiled("il32 box0 64 bytes", t); }
    { T t = il3; t.il = 3; tiled("interleave 3", t); }
    { T t = il3; t.il = -1; tiled("interleave -1", t); }
    // swizzle vs inner box bytes (u16)
    const int sws[] = {1, 2, 3, 4, 5, 6};
    const unsigned inner[] = {16, 32, 48, 64, 96, 128, 256};
    for (int sw : sws)
        for (unsigned ib : inner) {
            T t; t.sw = sw; t.dims[0] = 256; t.strides[0] = 512; t.box[0] = ib / 2;
            char n[48]; snprintf(n, sizeof n, "swizzle %d inner %u bytes", sw, ib);
            tiled(n, t);
        }
    { T t; t.sw = 7; tiled("swizzle 7", t); }
    { T t; t.sw = -1; tiled("swizzle -1", t); }
    for (int l2 = 0; l2 <= 5; l2++) {
        T t; t.l2 = l2;
        char n[32]; snprintf(n, sizeof n, "l2 %d", l2);
        tiled(n, t);
    }
    for (int dt = 0; dt <= 15; dt++) {
        T t; t.dt = dt; t.oob = 1; t.box[0] = 16; t.dims[0] = 256;
        if (dt >= 13) { t.box[0] = 128; t.strides[0] = 256; }
        char n[32]; snprintf(n, sizeof n, "oob nan dtype %d", dt);
        tiled(n, t);
    }
    { T t; t.oob = 2; tiled("oob 2", t); }
    { T t; t.map_off = 16; tiled("map misaligned 16", t); }
    { T t; t.map_off = 32; tiled("map misaligned 32", t); }
    { T t; t.map_off = 64; tiled("map aligned 64", t); }
}

static void im2col_cases()
{
    I b;
    i2c("base", b);
    for (unsigned r = 1; r <= 6; r++) {
        I t; t.rank = r;
        char n[32]; snprintf(n, sizeof n, "rank %u", r);
        i2c(n, t);
    }
    { I t; t.rank = 3; t.lo[0] = -32768; i2c("rank 3 lo -32768", t); }
    { I t; t.rank = 3; t.lo[0] = -32769; i2c("rank 3 lo -32769", t); }
    { I t; t.rank = 3; t.up[0] = 32767; i2c("rank 3 up 32767", t); }
    { I t; t.rank = 3; t.up[0] = 32768; i2c("rank 3 up 32768", t); }
    { I t; t.lo[0] = -128; i2c("rank 4 lo0 -128", t); }
    { I t; t.lo[1] = -129; i2c("rank 4 lo1 -129", t); }
    { I t; t.up[0] = 127; i2c("rank 4 up0 127", t); }
    { I t; t.up[1] = 128; i2c("rank 4 up1 128", t); }
    { I t; t.rank = 5; t.lo[2] = -16; i2c("rank 5 lo2 -16", t); }
    { I t; t.rank = 5; t.lo[2] = -17; i2c("rank 5 lo2 -17", t); }
    { I t; t.rank = 5; t.up[0] = 15; i2c("rank 5 up0 15", t); }
    { I t; t.rank = 5; t.up[0] = 16; i2c("rank 5 up0 16", t); }
    { I t; t.lo[0] = 0; t.up[0] = -8; i2c("empty W range", t); }
    { I t; t.lo[0] = 0; t.up[0] = -7; i2c("one-pixel W range", t); }
    { I t; t.lo[0] = 3; t.up[0] = -6; i2c("inverted W range", t); }
    { I t; t.lo[1] = 5; t.up[1] = -6; i2c("inverted H range", t); }
    { I t; t.cpp = 0; i2c("cpp 0", t); }
    { I t; t.cpp = 4; i2c("cpp 8 bytes", t); }
    { I t; t.cpp = 8; i2c("cpp 16 bytes", t); }
    { I t; t.cpp = 256; t.dims[0] = 256; t.strides[0] = 512; t.strides[1] = 4096; t.strides[2] = 32768; t.strides[3] = 65536; i2c("cpp 256", t); }
    { I t; t.cpp = 257; t.dims[0] = 512; t.strides[0] = 1024; t.strides[1] = 8192; t.strides[2] = 65536; t.strides[3] = 131072; i2c("cpp 257", t); }
    { I t; t.cpp = 128; i2c("cpp larger than C", t); }
    { I t; t.ppc = 0; i2c("ppc 0", t); }
    { I t; t.ppc = 256; i2c("ppc 256", t); }
    { I t; t.ppc = 1024; t.cpp = 8; i2c("ppc 1024", t); }
    { I t; t.ppc = 1025; t.cpp = 8; i2c("ppc 1025", t); }
    { I t; t.es[1] = 9; i2c("es1 9", t); }
    { I t; t.es[1] = 0; i2c("es1 0", t); }
    { I t; t.es[0] = 0; i2c("es0 0", t); }
    { I t; t.sw = 2; i2c("swizzle 64 with 128-byte pixels", t); }
    { I t; t.sw = 3; i2c("swizzle 128", t); }
    { I t; t.oob = 1; i2c("oob nan u16", t); }
    { I t; t.oob = 1; t.dt = 6; i2c("oob nan f16", t); }
    { I t; t.addr_off = 8; i2c("address +8", t); }
    { I t; t.strides[0] = 120; i2c("stride 120", t); }
    { I t; t.dims[0] = 8; t.strides[0] = 16; t.cpp = 8; t.il = 1; i2c("il16", t); }
    { I t; t.dims[0] = 16; t.strides[0] = 32; t.cpp = 16; t.il = 2; t.sw = 1; i2c("il32 sw32", t); }
    { I t; t.dims[1] = (1ull << 32) + 1; i2c("dim1 2^32+1", t); }
}

static void replace_cases()
{
    T t;
    tiled("for replace", t);
    CUresult r = replace_addr((CUtensorMap *)tmbuf, gbase + 256);
    printf("replace aligned: %d\n", (int)r);
    r = replace_addr((CUtensorMap *)tmbuf, gbase + 8);
    printf("replace +8: %d\n", (int)r);
    r = replace_addr((CUtensorMap *)tmbuf, gbase + 16);
    printf("replace +16: %d\n", (int)r);
    T il32; il32.rank = 3; il32.dims[0] = 16; il32.box[0] = 16; il32.strides[0] = 32;
    il32.strides[1] = 512; il32.il = 2; il32.sw = 1;
    tiled("il32 for replace", il32);
    r = replace_addr((CUtensorMap *)tmbuf, gbase + 16);
    printf("replace il32 +16: %d\n", (int)r);
    r = replace_addr((CUtensorMap *)(tmbuf + 16), gbase);
    printf("replace misaligned map: %d\n", (int)r);
    fflush(stdout);
}

int main()
{
    cudaMalloc(&gbase, 1 << 20);
    void *fn;
    lookup("tiled", "cuTensorMapEncodeTiled", 0, 0, cudaEnableDefault, 1, &fn);
    enc_tiled = (EncTiled)fn;
    lookup("im2col", "cuTensorMapEncodeIm2col", 0, 0, cudaEnableDefault, 1, &fn);
    enc_im2col = (EncIm2col)fn;
    lookup("replace", "cuTensorMapReplaceAddress", 1, 12000, cudaEnableDefault, 1, &fn);
    replace_addr = (Replace)fn;
    lookup("tiled legacy", "cuTensorMapEncodeTiled", 0, 0, cudaEnableLegacyStream, 1, nullptr);
    lookup("tiled ptds", "cuTensorMapEncodeTiled", 0, 0, cudaEnablePerThreadDefaultStream, 1, nullptr);
    lookup("tiled no status", "cuTensorMapEncodeTiled", 0, 0, cudaEnableDefault, 0, nullptr);
    lookup("tiled flags 3", "cuTensorMapEncodeTiled", 0, 0, 3, 1, nullptr);
    lookup("tiled flags 4", "cuTensorMapEncodeTiled", 0, 0, 4, 1, nullptr);
    lookup("tiled v12000", "cuTensorMapEncodeTiled", 1, 12000, cudaEnableDefault, 1, nullptr);
    lookup("tiled v13000", "cuTensorMapEncodeTiled", 1, 13000, cudaEnableDefault, 1, nullptr);
    lookup("tiled v11080", "cuTensorMapEncodeTiled", 1, 11080, cudaEnableDefault, 1, nullptr);
    lookup("tiled v0", "cuTensorMapEncodeTiled", 1, 0, cudaEnableDefault, 1, nullptr);
    lookup("tiled v99000", "cuTensorMapEncodeTiled", 1, 99000, cudaEnableDefault, 1, nullptr);
    lookup("im2col v12000", "cuTensorMapEncodeIm2col", 1, 12000, cudaEnableDefault, 1, nullptr);
    lookup("unknown", "cuNoSuchFunction", 0, 0, cudaEnableDefault, 1, nullptr);
    lookup("unknown no status", "cuNoSuchFunction", 0, 0, cudaEnableDefault, 0, nullptr);
    lookup("unknown v12000", "cuNoSuchFunction", 1, 12000, cudaEnableDefault, 1, nullptr);
    lookup("runtime name", "cudaMalloc", 0, 0, cudaEnableDefault, 1, nullptr);
    lookup("empty name", "", 0, 0, cudaEnableDefault, 1, nullptr);
    lookup("versioned name", "cuTensorMapEncodeTiled_v12000", 0, 0, cudaEnableDefault, 1, nullptr);
    if (!enc_tiled || !enc_im2col || !replace_addr) { printf("encoders missing\n"); return 1; }
    tiled_cases();
    im2col_cases();
    replace_cases();
    cudaFree(gbase);
    return 0;
}
