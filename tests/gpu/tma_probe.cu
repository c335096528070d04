// tma_probe.cu - records what an H100's tensor-copy engine (TMA) really does, for tests/tma-data/.
//
// Each case encodes a tensor map (through cudaGetDriverEntryPointByVersion, so the same program
// can also run on ptxemu) over a global buffer with a known pattern, performs one
// cp.async.bulk.tensor load (into a 0xAB-filled shared buffer), store (from a patterned shared
// buffer into a 0xCD-filled global buffer) or reduce, and writes one record:
//   case ID op=L|S|R mode=T|I dt= rank= dims= strides= box= es= il= sw= oob= lo= up= cpp= ppc=
//        coords= offs= [red=] smoff= gsize= enc= tx= st= mbar= n=
// followed by n bytes in hex, 64 per line: the shared region (loads) or the whole global
// buffer (stores/reductions). Each case runs in a child process (--case ID VARIANT), since a
// fault (the H100 raises illegal-instruction for a dim-0 start that is not 16-byte aligned)
// poisons the context.
// Section L's load records also carry hwtx= (the bytes the engine really signals through
// complete_tx, measured with a second run) and mdiff= (bytes that differ between the runs).
// Section N (interleaved im2col loads) uses section L's records.
// Section M's records may carry gfill= (another global pattern) and repl= rv= (tensormap.replace
// applied in the kernel before the copy); see tests/tma-data/README.
// Build: nvcc -gencode arch=compute_90a,code=sm_90a -o tma_probe tma_probe.cu (tensormap.replace
// needs the sm_90a PTX target, which CUDA 13's -arch=sm_90a did not give) ;
// run: ./tma_probe cases.txt [FIRST_ID] (section M was recorded with FIRST_ID 494, section N
// with FIRST_ID 594)
// One case with another expected byte count: TMA_PROBE_TX=N ./tma_probe --case ID 0
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <initializer_list>
#include <cuda.h>
#include <cuda_runtime.h>

struct Case {
    char op = 'L', mode = 'T';
    int dt = 2, rank = 2;
    uint64_t dims[5] = {0}, strides[4] = {0};
    uint32_t box[5] = {0}, es[5] = {1, 1, 1, 1, 1};
    int il = 0, sw = 0, oob = 0;
    int lo[3] = {0}, up[3] = {0};
    uint32_t cpp = 0, ppc = 0;
    int coords[5] = {0};
    uint16_t offs[3] = {0};
    uint32_t smoff = 0;
    int red = 0;          // reductions: 0..7 = add min max inc dec and or xor
    bool risky = false;
    bool big = false;     // section L: large dump and global guard, plus a measured tx count
    int gfill = 0;        // section M: 1 = global bytes from smem_pat(k) ^ 0x5a (tf32 needs high bits)
    int repl = 0, rv = 0; // section M: tensormap.replace in the kernel before the copy (see kprobe)
};

static int elsize(int dt)
{
    static const int sz[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    return dt >= 0 && dt < 13 ? sz[dt] : 1;
}

// Global load pattern: the element at byte offset i*el holds i (1-byte types: a hash of i).
static void fill_global(std::vector<uint8_t> &g, int el)
{
    size_t n = g.size() / el;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = el == 1 ? ((i + (i >> 8) * 0x35) & 0xff) : i;
        memcpy(&g[i * el], &v, el);
    }
}

// Shared store pattern, byte k (also used by the replay in test_tma.c).
__host__ __device__ static inline uint8_t smem_pat(uint32_t k)
{
    uint32_t w = (k >> 2) * 2654435761u + 0x12345678u;
    return (uint8_t)(w >> ((k & 3) * 8));
}

struct KArgs {
    int op, mode, rank, red;
    int c[5];
    unsigned short o[3];
    uint32_t smoff, tx, dumplen;
    int variant;   // 0: map in param space; 1: map in global memory; 2: 1 without fence.mbarrier_init
    int measure;   // loads: expect MEASURE_TX bytes, then count down with complete_tx (see kprobe)
    int repl, rv;  // section M: 1 rank := rv+1, 2 interleave_layout := 1, 3 fill_mode := 1,
                   // 4 elemtype := 11 (tf32), done on the global map (variant 1) first
};

#define MEASURE_TX (1u << 17)

#define SMEM_DYN (100 * 1024)

__device__ static inline uint64_t gtime()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ static void issue_load(const KArgs &a, uint64_t tm, uint32_t s, uint32_t mb)
{
    const int *c = a.c;
    if (a.mode == 0) {
        switch (a.rank) {
        case 1: asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]) : "memory"); break;
        case 2: asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]) : "memory"); break;
        case 3: asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]) : "memory"); break;
        case 4: asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]) : "memory"); break;
        case 5: asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]) : "memory"); break;
        }
    } else {
        switch (a.rank) {
        case 3: asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2], {%6};"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "h"(a.o[0]) : "memory"); break;
        case 4: asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "h"(a.o[0]), "h"(a.o[1]) : "memory"); break;
        case 5: asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2], {%8, %9, %10};"
                             :: "r"(s), "l"(tm), "r"(mb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]), "h"(a.o[0]), "h"(a.o[1]), "h"(a.o[2]) : "memory"); break;
        }
    }
}

__device__ static void issue_store(const KArgs &a, uint64_t tm, uint32_t s)
{
    const int *c = a.c;
    if (a.op == 2 && a.rank == 3) {   // reduce, rank 3 (section M: interleaved maps)
#define RED3(OP) asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta." OP ".tile.bulk_group [%0, {%2, %3, %4}], [%1];" \
                              :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]) : "memory")
        switch (a.red) {
        case 0: RED3("add"); break;
        case 1: RED3("min"); break;
        case 2: RED3("max"); break;
        case 3: RED3("inc"); break;
        case 4: RED3("dec"); break;
        case 5: RED3("and"); break;
        case 6: RED3("or"); break;
        case 7: RED3("xor"); break;
        }
#undef RED3
        return;
    }
    if (a.op == 2) {   // reduce, rank 2 (the element type comes from the map)
#define RED2(OP) asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta." OP ".tile.bulk_group [%0, {%2, %3}], [%1];" \
                              :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]) : "memory")
        switch (a.red) {
        case 0: RED2("add"); break;
        case 1: RED2("min"); break;
        case 2: RED2("max"); break;
        case 3: RED2("inc"); break;
        case 4: RED2("dec"); break;
        case 5: RED2("and"); break;
        case 6: RED2("or"); break;
        case 7: RED2("xor"); break;
        }
#undef RED2
        return;
    }
    if (a.mode == 1) {
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%0, {%2, %3, %4}], [%1];"
                     :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]) : "memory");
        return;
    }
    switch (a.rank) {
    case 1: asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];"
                         :: "l"(tm), "r"(s), "r"(c[0]) : "memory"); break;
    case 2: asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];"
                         :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]) : "memory"); break;
    case 3: asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
                         :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]) : "memory"); break;
    case 4: asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                         :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]) : "memory"); break;
    case 5: asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];"
                         :: "l"(tm), "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]) : "memory"); break;
    }
}

// info[0]: 1 if the mbarrier phase completed, 0 on timeout; info[1]: raw mbarrier word.
__global__ void kprobe(const __grid_constant__ CUtensorMap tmap, KArgs a, uint8_t *out,
                       unsigned long long *info, const CUtensorMap *gmap)
{
    extern __shared__ uint8_t dsm[];
    __shared__ __align__(8) unsigned long long mbar;
    if (threadIdx.x != 0) return;
    uint32_t base0 = (uint32_t)__cvta_generic_to_shared(dsm);
    uint32_t abase = (base0 + 1023) & ~1023u;
    uint8_t *p = dsm + (abase - base0) + a.smoff;
    uint32_t s = abase + a.smoff;
    uint64_t tm = a.variant ? (uint64_t)gmap : (uint64_t)&tmap;
    if (a.repl) {   // section M: edit the global copy of the map, then use it
        switch (a.repl) {
        case 1: asm volatile("tensormap.replace.tile.rank.global.b1024.b32 [%0], %1;" :: "l"(tm), "r"(a.rv) : "memory"); break;
        case 2: asm volatile("tensormap.replace.tile.interleave_layout.global.b1024.b32 [%0], 1;" :: "l"(tm) : "memory"); break;
        case 3: asm volatile("tensormap.replace.tile.fill_mode.global.b1024.b32 [%0], 1;" :: "l"(tm) : "memory"); break;
        case 4: asm volatile("tensormap.replace.tile.elemtype.global.b1024.b32 [%0], 11;" :: "l"(tm) : "memory"); break;
        }
        asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(tm) : "memory");
    }
    for (uint32_t k = 0; k < a.dumplen; k++) p[k] = a.op == 0 ? 0xAB : smem_pat(k);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (a.op != 0) {
        issue_store(a, tm, s);
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        info[0] = 1;
        return;
    }
    uint32_t mb = (uint32_t)__cvta_generic_to_shared(&mbar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mb) : "memory");
    if (a.variant < 2) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    else asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }"
                 :: "r"(mb), "r"(a.measure ? MEASURE_TX : a.tx) : "memory");
    issue_load(a, tm, s, mb);
    uint64_t t0 = gtime();
    if (a.measure) {
        // The engine's complete_tx leaves MEASURE_TX - N pending; after the copy has landed,
        // count down one byte at a time until the phase completes: N = MEASURE_TX - steps.
        while (gtime() - t0 < 2000000ull) { }
        uint32_t k = 0, d = 0;
        for (; k <= MEASURE_TX; k++) {
            asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(d) : "r"(mb) : "memory");
            if (d) break;
            asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], %1;" :: "r"(mb), "r"(1u) : "memory");
        }
        info[0] = d;
        info[1] = d ? MEASURE_TX - k : ~0ull;
        for (uint32_t j = 0; j < a.dumplen; j++) out[j] = p[j];
        return;
    }
    uint32_t done = 0;
    while (!done && gtime() - t0 < 50000000ull) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(mb) : "memory");
    }
    t0 = gtime();
    while (gtime() - t0 < 200000ull) { }   // let any bytes beyond the expected count land
    info[0] = done;
    info[1] = mbar;
    for (uint32_t k = 0; k < a.dumplen; k++) out[k] = p[k];
}

typedef CUresult (*EncTiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                             const cuuint64_t *, const cuuint32_t *, const cuuint32_t *,
                             CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                             CUtensorMapFloatOOBfill);
typedef CUresult (*EncIm2col)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const int *, const int *, cuuint32_t, cuuint32_t,
                              const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static EncTiled enc_tiled;
static EncIm2col enc_im2col;
static int variant;

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static uint32_t predict_tx(const Case &c)
{
    uint32_t el = elsize(c.dt);
    if (c.mode == 'I') return c.cpp * c.ppc * el;
    uint64_t n = c.il ? ceil_div(c.box[0], c.es[0]) : c.box[0];
    for (int i = 1; i < c.rank; i++) n *= ceil_div(c.box[i], c.es[i]);
    return (uint32_t)(n * el);
}

static uint64_t extent(const Case &c)
{
    if (c.rank == 1) return (c.dims[0] * elsize(c.dt) + 15) & ~15ull;
    return c.strides[c.rank - 2] * c.dims[c.rank - 1];
}

static void put_list(FILE *f, const char *key, const long long *v, int n)
{
    fprintf(f, " %s=", key);
    for (int i = 0; i < n; i++) fprintf(f, i ? ",%lld" : "%lld", v[i]);
}

// Runs one case and writes its record to f. Returns 0, or -1 if the context is broken.
static int run_case(int id, const Case &c, FILE *f)
{
    int el = elsize(c.dt);
    uint64_t gsize = extent(c) + (c.big ? (c.op == 'L' ? 16384 : 4096) : 256);
    std::vector<uint8_t> g(gsize);
    if (c.op == 'L' || c.op == 'R') fill_global(g, el); else memset(g.data(), 0xCD, gsize);
    if (c.gfill && c.op != 'S') for (uint64_t k = 0; k < gsize; k++) g[k] = smem_pat((uint32_t)k) ^ 0x5a;
    uint8_t *dg = nullptr, *dout = nullptr;
    unsigned long long *dinfo = nullptr, info[2] = {0, 0};
    cudaMalloc(&dg, gsize);
    cudaMalloc(&dout, SMEM_DYN);
    cudaMalloc(&dinfo, 16);
    cudaMemcpy(dg, g.data(), gsize, cudaMemcpyHostToDevice);
    cudaMemset(dinfo, 0, 16);
    alignas(64) CUtensorMap tm;
    memset(&tm, 0, sizeof tm);
    CUresult enc;
    if (c.mode == 'T')
        enc = enc_tiled(&tm, (CUtensorMapDataType)c.dt, c.rank, dg, c.dims, c.strides, c.box, c.es,
                        (CUtensorMapInterleave)c.il, (CUtensorMapSwizzle)c.sw,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)c.oob);
    else
        enc = enc_im2col(&tm, (CUtensorMapDataType)c.dt, c.rank, dg, c.dims, c.strides, c.lo, c.up,
                         c.cpp, c.ppc, c.es, (CUtensorMapInterleave)c.il, (CUtensorMapSwizzle)c.sw,
                         CU_TENSOR_MAP_L2_PROMOTION_NONE, (CUtensorMapFloatOOBfill)c.oob);
    Case cr = c;   // the map as the copy sees it (a replaced rank)
    if (c.repl == 1) cr.rank = c.rv + 1;
    uint32_t tx = predict_tx(cr);
    KArgs a;
    a.op = c.op == 'L' ? 0 : c.op == 'S' ? 1 : 2;
    a.mode = c.mode == 'I';
    a.rank = cr.rank;
    a.red = c.red;
    a.repl = c.repl;
    a.rv = c.rv;
    for (int i = 0; i < 5; i++) a.c[i] = c.coords[i];
    for (int i = 0; i < 3; i++) a.o[i] = c.offs[i];
    a.smoff = c.smoff;
    a.tx = tx;
    if (getenv("TMA_PROBE_TX")) a.tx = (uint32_t)atoi(getenv("TMA_PROBE_TX"));   // --case only
    a.dumplen = ((tx + 15) & ~15u) + 256;
    if (c.big && c.op == 'L') a.dumplen = 16384;
    a.variant = c.repl ? 1 : variant;
    a.measure = 0;
    CUtensorMap *dmap = nullptr;
    cudaMalloc(&dmap, sizeof tm);
    cudaMemcpy(dmap, &tm, sizeof tm, cudaMemcpyHostToDevice);
    const char *st = "ok";
    std::vector<uint8_t> dump;
    long long hwtx = -2;   // -2: not measured; -1: never completed
    uint32_t mdiff = 0;
    if (enc == CUDA_SUCCESS) {
        kprobe<<<1, 32, SMEM_DYN>>>(tm, a, dout, dinfo, dmap);
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess && c.big && c.op == 'L') {
            // Second run: how many bytes the engine really signals, and the same bytes again.
            uint8_t *dout2 = nullptr;
            unsigned long long *dinfo2 = nullptr, info2[2] = {0, 0};
            cudaMalloc(&dout2, SMEM_DYN);
            cudaMalloc(&dinfo2, 16);
            cudaMemset(dinfo2, 0, 16);
            KArgs b = a;
            b.measure = 1;
            kprobe<<<1, 32, SMEM_DYN>>>(tm, b, dout2, dinfo2, dmap);
            e = cudaDeviceSynchronize();
            if (e == cudaSuccess) {
                cudaMemcpy(info2, dinfo2, 16, cudaMemcpyDeviceToHost);
                std::vector<uint8_t> d1(a.dumplen), d2(a.dumplen);
                cudaMemcpy(d1.data(), dout, a.dumplen, cudaMemcpyDeviceToHost);
                cudaMemcpy(d2.data(), dout2, a.dumplen, cudaMemcpyDeviceToHost);
                hwtx = info2[0] ? (long long)info2[1] : -1;
                for (uint32_t k = 0; k < a.dumplen; k++) mdiff += d1[k] != d2[k];
            }
            cudaFree(dout2);
            cudaFree(dinfo2);
        }
        if (e != cudaSuccess) {
            st = cudaGetErrorName(e);
        } else {
            cudaMemcpy(info, dinfo, 16, cudaMemcpyDeviceToHost);
            if (c.op == 'L') {
                dump.resize(a.dumplen);
                cudaMemcpy(dump.data(), dout, a.dumplen, cudaMemcpyDeviceToHost);
                if (!info[0]) st = "timeout";
            } else {
                dump.resize(gsize);
                cudaMemcpy(dump.data(), dg, gsize, cudaMemcpyDeviceToHost);
            }
        }
    } else {
        st = "noenc";
    }
    fprintf(f, "case %d op=%c mode=%c dt=%d rank=%d", id, c.op, c.mode, c.dt, c.rank);
    long long v[5];
    for (int i = 0; i < c.rank; i++) v[i] = (long long)c.dims[i];
    put_list(f, "dims", v, c.rank);
    for (int i = 0; i + 1 < c.rank; i++) v[i] = (long long)c.strides[i];
    put_list(f, "strides", v, c.rank - 1);
    for (int i = 0; i < c.rank; i++) v[i] = c.box[i];
    put_list(f, "box", v, c.mode == 'T' ? c.rank : 0);
    for (int i = 0; i < c.rank; i++) v[i] = c.es[i];
    put_list(f, "es", v, c.rank);
    fprintf(f, " il=%d sw=%d oob=%d", c.il, c.sw, c.oob);
    int ns = c.mode == 'I' ? c.rank - 2 : 0;
    for (int i = 0; i < ns; i++) v[i] = c.lo[i];
    put_list(f, "lo", v, ns);
    for (int i = 0; i < ns; i++) v[i] = c.up[i];
    put_list(f, "up", v, ns);
    fprintf(f, " cpp=%u ppc=%u", c.cpp, c.ppc);
    for (int i = 0; i < c.rank; i++) v[i] = c.coords[i];
    put_list(f, "coords", v, c.rank);
    for (int i = 0; i < ns; i++) v[i] = c.offs[i];
    put_list(f, "offs", v, (c.op == 'L') ? ns : 0);
    if (c.op == 'R') fprintf(f, " red=%d", c.red);
    if (c.gfill) fprintf(f, " gfill=%d", c.gfill);
    if (c.repl) fprintf(f, " repl=%d rv=%d", c.repl, c.rv);
    if (c.big && c.op == 'L') fprintf(f, " hwtx=%lld mdiff=%u", hwtx, mdiff);
    fprintf(f, " smoff=%u gsize=%llu enc=%d tx=%u st=%s mbar=%016llx n=%zu\n", c.smoff,
            (unsigned long long)gsize, (int)enc, tx, st, info[1], dump.size());
    for (size_t k = 0; k < dump.size(); k++)
        fprintf(f, (k % 64 == 63 || k + 1 == dump.size()) ? "%02x\n" : "%02x", dump[k]);
    fflush(f);
    cudaFree(dg);
    cudaFree(dout);
    cudaFree(dinfo);
    cudaFree(dmap);
    return strcmp(st, "ok") && strcmp(st, "timeout") && strcmp(st, "noenc") ? -1 : 0;
}

// ---- the cases ----
static std::vector<Case> cases;

typedef std::initializer_list<long long> L;
static void setv(uint64_t *d, L l) { int i = 0; for (long long x : l) d[i++] = (uint64_t)x; }
static void setv(uint32_t *d, L l) { int i = 0; for (long long x : l) d[i++] = (uint32_t)x; }
static void setv(int *d, L l) { int i = 0; for (long long x : l) d[i++] = (int)x; }
static void setv(uint16_t *d, L l) { int i = 0; for (long long x : l) d[i++] = (uint16_t)x; }

// Dense strides: rows padded to 16 bytes (plus pad bytes).
static void dense(Case &c, uint32_t pad = 0)
{
    uint64_t s = ((c.dims[0] * elsize(c.dt) + 15) & ~15ull) + pad;
    for (int i = 0; i + 1 < c.rank; i++) { c.strides[i] = s; s *= c.dims[i + 1]; }
}

static Case &tile(char op, int dt, int rank, L dims, L box, L coords)
{
    Case c;
    c.op = op; c.dt = dt; c.rank = rank;
    setv(c.dims, dims); setv(c.box, box); setv(c.coords, coords);
    dense(c);
    cases.push_back(c);
    return cases.back();
}

static Case &im2col(char op, int dt, int rank, L dims, L lo, L up, uint32_t cpp, uint32_t ppc,
                    L coords, L offs)
{
    Case c;
    c.op = op; c.mode = 'I'; c.dt = dt; c.rank = rank;
    setv(c.dims, dims); setv(c.lo, lo); setv(c.up, up); setv(c.coords, coords); setv(c.offs, offs);
    c.cpp = cpp; c.ppc = ppc;
    dense(c);
    cases.push_back(c);
    return cases.back();
}

static void es(Case &c, L l) { setv(c.es, l); }

// L. (appended later) interleave, systematic: one thing varied at a time from the base case
//    (16-byte interleave, u16, dims 8,10,6 = one 16-byte channel group per row, box 8,4,3).
//    Each load record also carries hwtx= (the bytes the engine signals through complete_tx,
//    measured by expecting MEASURE_TX and counting down; -1: never completed) and mdiff=
//    (bytes that differ between the two runs); the dump is 16 KiB and the global buffer has a
//    16 KiB tail of the load pattern, so over-reads and over-writes show.
static Case &ilc(char op, int il, int dt, int rank, L dims, L box, L coords, int sw = 0)
{
    Case &c = tile(op, dt, rank, dims, box, coords);
    c.il = il; c.sw = sw; c.big = true;
    return c;
}

static void build_section_l()
{
    // box shape, dims 8,10,6 u16 (16-byte rows), dense strides 16,160
    for (auto b : {L{8, 1, 1}, L{8, 2, 1}, L{8, 4, 1}, L{8, 1, 3}, L{8, 4, 3}, L{16, 1, 1},
                   L{16, 4, 3}, L{24, 1, 1}, L{32, 2, 2}, L{1, 1, 1}})
        ilc('L', 1, 1, 3, {8, 10, 6}, b, {0, 3, 2});
    // dim 0 wider than the interleave: 32-byte rows
    ilc('L', 1, 1, 3, {16, 10, 6}, {8, 1, 1}, {0, 3, 2});
    ilc('L', 1, 1, 3, {16, 10, 6}, {8, 4, 3}, {0, 3, 2});
    ilc('L', 1, 1, 3, {16, 10, 6}, {8, 4, 3}, {8, 3, 2});
    ilc('L', 1, 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2});
    // dim 0 narrower than the interleave (8 bytes)
    ilc('L', 1, 1, 3, {4, 10, 6}, {8, 2, 2}, {0, 3, 2});
    // padded strides (48-byte rows, 16 bytes of data)
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {0, 3, 2}); c.strides[0] = 48; c.strides[1] = 480; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); c.strides[0] = 48; c.strides[1] = 480; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {16, 2, 1}, {0, 3, 2}); c.strides[0] = 48; c.strides[1] = 480; }
    // element types, 16-byte rows
    ilc('L', 1, 0, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2});
    ilc('L', 1, 2, 3, {4, 10, 6}, {4, 4, 3}, {0, 3, 2});
    ilc('L', 1, 4, 3, {2, 10, 6}, {2, 4, 3}, {0, 3, 2});
    // element strides
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); es(c, {2, 1, 1}); }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); es(c, {1, 2, 1}); }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); es(c, {1, 1, 2}); }
    // coordinates out of bounds
    for (auto co : {L{0, -2, 2}, L{0, 8, 2}, L{0, 3, -1}, L{0, 3, 5}, L{8, 3, 2}, L{-8, 3, 2}, L{0, 12, 2}})
        ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, co);
    ilc('L', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {0, 9, 2});
    ilc('L', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {0, -1, 2});
    // swizzles
    for (int sw = 1; sw <= 3; sw++) ilc('L', 1, 1, 3, {8, 10, 6}, {8, 8, 2}, {0, 1, 2}, sw);
    // 32-byte interleave
    ilc('L', 2, 1, 3, {16, 10, 6}, {16, 1, 1}, {0, 3, 2}, 1);
    ilc('L', 2, 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2}, 1);
    ilc('L', 2, 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2}, 0);
    ilc('L', 2, 1, 3, {16, 10, 6}, {8, 1, 1}, {0, 3, 2}, 1);
    ilc('L', 2, 1, 3, {16, 10, 6}, {32, 2, 2}, {0, 3, 2}, 1);
    ilc('L', 2, 0, 3, {32, 10, 6}, {32, 4, 3}, {0, 3, 2}, 1);
    ilc('L', 2, 2, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}, 1);
    ilc('L', 2, 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 8, 5}, 1);
    // ranks 4 and 5
    ilc('L', 1, 1, 4, {8, 7, 5, 3}, {8, 4, 2, 2}, {0, 1, 1, 1});
    ilc('L', 1, 1, 5, {8, 4, 3, 3, 2}, {8, 2, 2, 2, 2}, {0, 1, 1, 1, 0});
    // stores
    ilc('S', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2});
    ilc('S', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {0, 3, 2});
    ilc('S', 2, 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2}, 1);
    // (second round) dim-0 starts that are not 16-byte multiples; the unwalked dimension of
    // rank 4 out of bounds and with a larger box; 32-byte interleave with an element stride
    // and dim 0 partly out of bounds; swizzles at shared offsets; stores partly out of bounds
    ilc('L', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {1, 3, 2});
    ilc('L', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {3, 3, 2});
    ilc('L', 1, 0, 3, {16, 10, 6}, {16, 1, 1}, {5, 3, 2});
    ilc('L', 1, 1, 4, {8, 7, 5, 3}, {8, 4, 2, 2}, {0, 1, 5, 1});
    ilc('L', 1, 1, 4, {8, 7, 5, 3}, {8, 4, 2, 2}, {0, 1, -1, 1});
    ilc('L', 1, 1, 4, {8, 7, 5, 3}, {8, 2, 4, 1}, {0, 1, 1, 0});
    { Case &c = ilc('L', 2, 1, 3, {16, 10, 6}, {16, 1, 1}, {0, 3, 2}, 1); es(c, {2, 1, 1}); }
    ilc('L', 2, 1, 3, {16, 10, 6}, {16, 1, 2}, {8, 3, 2}, 1);
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 8, 4}, {0, 1, 1}, 3); c.smoff = 128; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 8, 4}, {0, 1, 1}, 2); c.smoff = 256; }
    ilc('S', 1, 1, 3, {8, 10, 6}, {16, 1, 1}, {0, 3, 2});
    ilc('S', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 4});
    ilc('S', 1, 1, 3, {4, 10, 6}, {8, 1, 1}, {0, 3, 2});
    ilc('S', 1, 1, 3, {8, 10, 6}, {8, 1, 1}, {3, 3, 2});
}

// M. (appended later) interleaved copies section L left out: reductions (every op the
//    H100 takes for u32/s32/u64/f16/bf16/f32, in bounds and partly out of bounds, plus ops and
//    types it refuses), the NaN fill, tf32 (global bytes with high bits: gfill=1), im2col, and
//    maps edited by tensormap.replace (rank lowered below 3, interleave set on a rank-2 map,
//    fill mode / tf32 set on an interleaved map), with non-interleaved controls.
static void build_section_m()
{
    // reductions, 16-byte interleave, one 16-byte row per dim-0 coordinate
    struct { int dt, ops; } rt[] = {{2, 0xff}, {3, 0xe7}, {4, 0xe7}, {6, 0x07}, {9, 0x07}, {7, 0x01}};
    for (auto t : rt) {
        int el = elsize(t.dt), w = 16 / el;
        for (int op = 0; op < 8; op++) {
            if (!(t.ops >> op & 1)) continue;
            ilc('R', 1, t.dt, 3, {w, 10, 6}, {w, 2, 2}, {0, 3, 2}).red = op;
            ilc('R', 1, t.dt, 3, {w, 10, 6}, {w, 2, 2}, {w / 2, 9, 2}).red = op;
        }
    }
    ilc('R', 1, 2, 3, {4, 10, 6}, {4, 2, 2}, {0, 3, 7});          // unwalked dim out of bounds
    ilc('R', 1, 2, 3, {4, 10, 6}, {4, 2, 2}, {3, 3, 2});          // dim-0 start not 16 bytes
    ilc('R', 1, 2, 3, {4, 10, 6}, {4, 2, 2}, {0, -1, 2});         // negative coordinate
    ilc('R', 2, 2, 3, {8, 10, 6}, {8, 2, 2}, {4, 3, 2}, 1);       // 32-byte interleave
    ilc('R', 1, 2, 3, {8, 10, 6}, {4, 2, 2}, {2, 3, 2});          // 32-byte lines, 16-byte rows
    ilc('R', 1, 5, 3, {2, 10, 6}, {2, 2, 2}, {0, 3, 2}).red = 1;  // s64 min
    ilc('R', 1, 8, 3, {2, 10, 6}, {2, 2, 2}, {0, 3, 2});          // f64 add
    ilc('R', 1, 11, 3, {4, 10, 6}, {4, 2, 2}, {0, 3, 2});         // tf32 add
    ilc('R', 1, 7, 3, {4, 10, 6}, {4, 2, 2}, {0, 3, 2}).red = 1;  // f32 min (refused when not interleaved)
    ilc('R', 1, 0, 3, {16, 10, 6}, {16, 2, 2}, {0, 3, 2});        // u8 add (idem)
    // NaN fill, partly out of bounds in dims 0 and 1, and the unwalked dimension out of bounds
    for (int dt : {6, 7, 9, 8}) {
        int w = 16 / elsize(dt);
        ilc('L', 1, dt, 3, {w, 10, 6}, {w, 4, 3}, {w / 2, 8, 2}).oob = 1;
        ilc('L', 1, dt, 3, {w, 10, 6}, {w, 2, 2}, {0, 3, 7}).oob = 1;
    }
    ilc('L', 2, 6, 3, {16, 10, 6}, {16, 2, 2}, {8, 9, 2}, 1).oob = 1;
    tile('L', 6, 3, {8, 10, 6}, {8, 4, 3}, {0, 8, 2}).oob = 1;    // control, not interleaved
    // tf32 and tf32_ftz
    for (int dt : {11, 12}) {
        ilc('L', 1, dt, 3, {4, 10, 6}, {4, 4, 3}, {0, 3, 2}).gfill = 1;
        ilc('L', 1, dt, 3, {4, 10, 6}, {4, 4, 3}, {2, 8, 2}).gfill = 1;
        ilc('L', 2, dt, 3, {8, 10, 6}, {8, 2, 2}, {0, 3, 2}, 1).gfill = 1;
        ilc('S', 1, dt, 3, {4, 10, 6}, {4, 2, 2}, {0, 3, 2});
        tile('L', dt, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}).gfill = 1;   // control
    }
    ilc('L', 1, 7, 3, {4, 10, 6}, {4, 4, 3}, {0, 3, 2}).gfill = 1;      // f32, same bytes
    // im2col with interleave (the driver may refuse the encode)
    for (int il : {1, 2}) {
        Case &c = im2col('L', 1, 3, {8 * il, 12, 2}, {-2}, {-1}, 8 * il, 8, {0, 0, 0}, {1});
        c.il = il; c.big = true;
        Case &d = im2col('L', 1, 4, {8 * il, 5, 4, 2}, {-1, -1}, {-1, -1}, 8 * il, 10, {0, -1, 0, 0}, {1, 1});
        d.il = il; d.big = true;
    }
    { Case &c = im2col('L', 1, 3, {8, 12, 2}, {-2}, {-1}, 8, 8, {0, 0, 0}, {1}); c.il = 1; c.oob = 0; c.sw = 1; c.big = true; }
    { Case &c = im2col('S', 1, 3, {8, 12, 2}, {-2}, {-1}, 8, 8, {0, 3, 1}, {0}); c.il = 1; c.big = true; }
    // tensormap.replace: rank lowered below 3 (and a control), interleave set on a rank-2 map,
    // fill mode and tf32 set on interleaved maps
    { Case &c = tile('L', 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3}); c.repl = 1; c.rv = 1; c.big = true; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3}); c.repl = 1; c.rv = 1; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 1}); c.repl = 1; c.rv = 1; }
    { Case &c = ilc('L', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0}); c.repl = 1; c.rv = 0; }
    { Case &c = ilc('L', 1, 1, 4, {8, 7, 5, 3}, {8, 4, 2, 2}, {0, 1, 1}); c.repl = 1; c.rv = 2; }
    { Case &c = ilc('S', 1, 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3}); c.repl = 1; c.rv = 1; }
    { Case &c = tile('L', 1, 2, {8, 10}, {8, 4}, {0, 3}); c.repl = 2; c.big = true; }
    { Case &c = ilc('L', 1, 6, 3, {8, 10, 6}, {8, 4, 3}, {4, 8, 2}); c.repl = 3; }
    { Case &c = ilc('L', 1, 7, 3, {4, 10, 6}, {4, 4, 3}, {0, 3, 2}); c.repl = 4; c.gfill = 1; }
}

// N. (appended later) interleaved im2col loads, one thing varied at a time from the base case
//    (16-byte interleave, u16, rank 4, dims 8,5,4,3 with strides 256,1280,5120 so that dim 0's
//    16-byte rows, dim 1's stride and the dense layout all differ; lo -1,-1, up -1,-1, cpp 8,
//    ppc 16, coordinates and offsets 0). Records as in section L (hwtx=, 16 KiB dump and tail).
static Case &ilim(int il, int dt, int rank, L dims, L strides, L lo, L up, uint32_t cpp,
                  uint32_t ppc, L coords, L offs)
{
    Case &c = im2col('L', dt, rank, dims, lo, up, cpp, ppc, coords, offs);
    setv(c.strides, strides);
    c.il = il; c.big = true;
    return c;
}

static void build_section_n()
{
    // base, then dim 0 extent vs dim 1 extent
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {6, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {12, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 7, 4, 3}, {256, 1792, 7168}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    // corners, one at a time
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-3, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -3}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, 1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {0, 0}, {0, 0}, 8, 16, {0, 0, 0, 0}, {0, 0});
    // pixelsPerColumn, channelsPerPixel
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 4, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 64, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 16, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 32, 8, {0, 0, 0, 0}, {0, 0});
    // coordinates, one at a time, inside and outside
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {2, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 2, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 1, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 1}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 4, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {-1, -1, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, -1, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 3}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {3, 1, 2, 1}, {1, 1});
    // offsets
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {2, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 2});
    // element strides, one dimension at a time
    for (int d = 0; d < 4; d++) {
        Case &c = ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
        c.es[d] = 2;
    }
    // 32-byte interleave: 32-byte pixels, 16-byte pixels, 64-byte pixels
    ilim(2, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 16, 16, {0, 0, 0, 0}, {0, 0});
    ilim(2, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0});
    ilim(2, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 32, 8, {0, 0, 0, 0}, {0, 0});
    // rank 3 and rank 5
    ilim(1, 1, 3, {8, 4, 3}, {256, 1024}, {-1}, {-1}, 8, 16, {0, 0, 0}, {0});
    ilim(1, 1, 3, {8, 4, 3}, {256, 1024}, {-1}, {-1}, 8, 16, {2, 1, 1}, {1});
    ilim(1, 1, 5, {8, 5, 4, 3, 2}, {256, 1280, 5120, 15360}, {-1, -1, -1}, {-1, -1, -1}, 8, 24, {0, 0, 0, 0, 0}, {0, 0, 0});
    ilim(1, 1, 5, {8, 5, 4, 3, 2}, {256, 1280, 5120, 15360}, {-1, -1, -1}, {-1, -1, -1}, 8, 24, {1, 1, 1, 1, 1}, {1, 1, 1});
    // element type, swizzle, NaN fill
    ilim(1, 7, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 4, 16, {0, 0, 0, 0}, {0, 0});
    ilim(1, 1, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {0, 0, 0, 0}, {0, 0}).sw = 1;
    ilim(1, 6, 4, {8, 5, 4, 3}, {256, 1280, 5120}, {-1, -1}, {-1, -1}, 8, 16, {-1, -1, 0, 0}, {0, 0}).oob = 1;
}

static void build_cases()
{
    // A. every data type, rank 2, inside / partly before / partly past the tensor.
    const int dts[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (int dt : dts) {
        int el = elsize(dt);
        tile('L', dt, 2, {37, 9}, {32 / el, 4}, {3, 2});
        tile('L', dt, 2, {37, 9}, {32 / el, 4}, {-5, -2});
        tile('L', dt, 2, {37, 9}, {32 / el, 4}, {30, 7});
        if (dt >= 6) tile('L', dt, 2, {37, 9}, {32 / el, 4}, {-5, 7}).oob = 1;
    }
    // B. ranks 1..5 (u32), inside and partly out of bounds; aligned and unaligned starts.
    tile('L', 0, 2, {37, 9}, {32, 4}, {0, 2});
    tile('L', 0, 2, {37, 9}, {32, 4}, {16, 2});
    tile('L', 2, 2, {40, 20}, {8, 4}, {1, 3});
    tile('L', 2, 2, {40, 20}, {8, 4}, {-1, 3});
    tile('L', 2, 1, {19}, {8}, {4});
    tile('L', 2, 1, {19}, {8}, {-4});
    tile('L', 2, 1, {19}, {8}, {15});
    tile('L', 2, 1, {19}, {16}, {-20});
    tile('L', 2, 2, {19, 5}, {8, 2}, {4, 1});
    tile('L', 2, 2, {19, 5}, {8, 2}, {-4, 4});
    tile('L', 2, 3, {19, 5, 4}, {8, 2, 3}, {2, 1, 1});
    tile('L', 2, 3, {19, 5, 4}, {8, 2, 3}, {15, -1, 2});
    tile('L', 2, 4, {19, 5, 4, 3}, {8, 2, 3, 2}, {2, 1, 1, 1});
    tile('L', 2, 4, {19, 5, 4, 3}, {8, 2, 3, 2}, {-4, 4, -2, 2});
    tile('L', 2, 5, {19, 5, 4, 3, 2}, {8, 2, 3, 2, 2}, {2, 1, 1, 1, 0});
    tile('L', 2, 5, {19, 5, 4, 3, 2}, {8, 2, 3, 2, 2}, {15, -1, 2, -1, 1});
    tile('L', 2, 5, {19, 5, 4, 3, 2}, {8, 2, 3, 2, 2}, {-4, 4, -2, 2, -1});
    tile('L', 1, 3, {40, 6, 5}, {16, 3, 2}, {5, 1, 1}).strides[0] = 112;   // padded rows
    cases.back().strides[1] = 112 * 6 + 32;
    tile('L', 2, 2, {19, 5}, {8, 2}, {2147483647, 1});
    tile('L', 2, 2, {19, 5}, {8, 2}, {-2147483647 - 1, 1});
    tile('L', 2, 2, {19, 5}, {8, 2}, {-3, -2147483647 - 1});
    // C. swizzles: inner box bytes 16..span, u16 and u32, inside and partly out of bounds.
    for (int sw = 1; sw <= 3; sw++) {
        int span = 16 << sw;
        for (int ib = 16; ib <= span; ib *= 2)
            for (int el = 2; el <= 4; el *= 2) {
                int dt = el == 2 ? 1 : 2;
                tile('L', dt, 2, {200, 40}, {ib / el, 16}, {5, 3}).sw = sw;
                tile('L', dt, 2, {200, 40}, {ib / el, 16}, {-3, 30}).sw = sw;
            }
    }
    for (uint32_t off : {128u, 384u, 512u}) {
        Case &c = tile('L', 1, 2, {200, 40}, {64, 16}, {5, 3});
        c.sw = 3; c.smoff = off;
    }
    { Case &c = tile('L', 1, 2, {200, 40}, {32, 12}, {5, 3}); c.sw = 2; c.smoff = 128; }
    { Case &c = tile('L', 1, 2, {200, 40}, {16, 12}, {5, 3}); c.sw = 1; c.smoff = 128; }
    { Case &c = tile('L', 1, 3, {200, 10, 6}, {64, 3, 3}, {5, 2, 1}); c.sw = 3; }
    { Case &c = tile('L', 0, 3, {200, 10, 6}, {128, 5, 2}, {-7, 2, 1}); c.sw = 3; }
    { Case &c = tile('L', 4, 2, {100, 30}, {16, 9}, {2, -3}); c.sw = 3; }
    { Case &c = tile('L', 7, 2, {100, 30}, {32, 6}, {90, 27}); c.sw = 3; c.oob = 1; }
    // D. interleave 16B / 32B.
    for (int sw = 0; sw <= 3; sw++) {
        Case &c = tile('L', 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); c.il = 1; c.sw = sw;
        Case &d = tile('L', 1, 3, {8, 10, 6}, {8, 4, 3}, {0, -2, 4}); d.il = 1; d.sw = sw;
    }
    { Case &c = tile('L', 1, 3, {8, 10, 6}, {4, 4, 3}, {2, 3, 2}); c.il = 1; }
    { Case &c = tile('L', 1, 3, {8, 10, 6}, {8, 4, 3}, {0, 3, 2}); c.il = 1; es(c, {2, 1, 1}); }
    { Case &c = tile('L', 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2}); c.il = 1; }
    { Case &c = tile('L', 2, 4, {4, 7, 5, 3}, {4, 4, 2, 2}, {0, 5, 3, 1}); c.il = 1; c.sw = 3; }
    { Case &c = tile('L', 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 3, 2}); c.il = 2; c.sw = 1; }
    { Case &c = tile('L', 1, 3, {16, 10, 6}, {16, 4, 3}, {0, 8, -1}); c.il = 2; c.sw = 1; }
    { Case &c = tile('L', 0, 4, {32, 9, 4, 2}, {32, 5, 2, 2}, {0, 6, 3, 1}); c.il = 2; c.sw = 1; }
    { Case &c = tile('L', 1, 3, {16, 10, 6}, {8, 4, 3}, {4, 3, 2}); c.il = 2; c.sw = 1; }
    // E. element strides.
    { Case &c = tile('L', 2, 3, {40, 20, 6}, {8, 6, 3}, {4, 3, 1}); es(c, {1, 2, 1}); }
    { Case &c = tile('L', 2, 3, {40, 20, 6}, {8, 6, 3}, {4, 3, 1}); es(c, {1, 3, 2}); }
    { Case &c = tile('L', 2, 3, {40, 20, 6}, {8, 7, 3}, {4, 3, 1}); es(c, {2, 3, 3}); }
    { Case &c = tile('L', 2, 3, {40, 20, 6}, {8, 6, 3}, {4, -5, -2}); es(c, {1, 2, 3}); }
    { Case &c = tile('L', 2, 3, {40, 20, 6}, {8, 6, 3}, {36, 17, 4}); es(c, {1, 3, 2}); }
    { Case &c = tile('L', 2, 2, {40, 20}, {8, 6}, {4, 3}); es(c, {8, 8}); }
    { Case &c = tile('L', 1, 2, {200, 40}, {64, 8}, {5, 3}); es(c, {1, 2}); c.sw = 3; }
    { Case &c = tile('L', 7, 2, {40, 20}, {8, 6}, {-2, 17}); es(c, {1, 3}); c.oob = 1; }
    // F. all out of bounds, NaN fill.
    { Case &c = tile('L', 6, 3, {40, 6, 5}, {8, 2, 2}, {50, 1, 1}); c.oob = 1; }
    // G. im2col loads.
    im2col('L', 1, 3, {16, 12, 2}, {-2}, {-1}, 16, 20, {0, -2, 0}, {1});
    im2col('L', 1, 3, {16, 12, 2}, {-2}, {-1}, 16, 20, {0, 5, 0}, {0});
    im2col('L', 1, 3, {16, 12, 2}, {-2}, {-1}, 8, 16, {8, 0, 1}, {3});
    im2col('L', 1, 3, {16, 12, 2}, {0}, {0}, 16, 30, {0, 3, 0}, {0});
    { Case &c = im2col('L', 1, 3, {16, 12, 2}, {-2}, {-1}, 16, 12, {0, -2, 0}, {2}); es(c, {1, 2, 1}); }
    im2col('L', 2, 4, {8, 5, 4, 2}, {-1, 0}, {0, -1}, 8, 24, {0, -1, 0, 0}, {1, 2});
    im2col('L', 2, 4, {8, 5, 4, 2}, {-1, -1}, {-1, -1}, 8, 30, {0, -1, -1, 0}, {0, 0});
    im2col('L', 2, 4, {8, 5, 4, 2}, {-1, -1}, {-1, -1}, 8, 10, {0, 2, 1, 1}, {2, 1});
    { Case &c = im2col('L', 2, 4, {8, 5, 4, 2}, {-1, -1}, {0, 0}, 8, 16, {0, -1, -1, 0}, {1, 1}); es(c, {1, 2, 2, 1}); }
    im2col('L', 7, 5, {4, 3, 3, 3, 2}, {-1, -1, 0}, {0, 0, -1}, 4, 30, {0, -1, -1, 0, 0}, {0, 1, 1});
    { Case &c = im2col('L', 7, 4, {8, 5, 4, 2}, {-1, -1}, {-1, -1}, 8, 12, {0, -1, -1, 0}, {0, 0}); c.oob = 1; }
    { Case &c = im2col('L', 1, 4, {64, 6, 5, 2}, {-1, -1}, {-1, -1}, 64, 16, {0, -1, -1, 0}, {1, 1}); c.sw = 3; }
    { Case &c = im2col('L', 1, 4, {64, 6, 5, 2}, {-1, -1}, {-1, -1}, 32, 8, {16, 0, 0, 0}, {0, 0}); c.sw = 2; }
    // H. stores and a reduction.
    tile('S', 2, 1, {19}, {8}, {-4});
    tile('S', 2, 1, {19}, {8}, {15});
    tile('S', 1, 2, {20, 6}, {16, 4}, {-3, 4});
    tile('S', 1, 2, {20, 6}, {16, 4}, {2, 1});
    { Case &c = tile('S', 1, 2, {70, 12}, {64, 8}, {3, 2}); c.sw = 3; }
    { Case &c = tile('S', 1, 2, {70, 12}, {32, 8}, {3, 2}); c.sw = 2; }
    { Case &c = tile('S', 2, 3, {20, 8, 4}, {8, 4, 2}, {2, 1, 1}); es(c, {1, 2, 1}); }
    { Case &c = tile('S', 1, 3, {8, 10, 6}, {8, 4, 3}, {0, -2, 4}); c.il = 1; }
    tile('S', 2, 5, {19, 5, 4, 3, 2}, {8, 2, 3, 2, 2}, {15, -1, 2, -1, 1});
    im2col('S', 1, 3, {16, 12, 2}, {-2}, {-1}, 16, 8, {0, 3, 1}, {0});
    tile('R', 2, 2, {20, 6}, {8, 4}, {-3, 4});
    tile('R', 2, 2, {20, 6}, {8, 4}, {5, 1});
    // I. cases that may fault: run in a child process each.
    { Case &c = tile('L', 2, 2, {40, 20}, {8, 4}, {4, 3}); c.smoff = 16; c.risky = true; }
    { Case &c = tile('L', 2, 2, {40, 20}, {8, 4}, {4, 3}); c.smoff = 8; c.risky = true; }
    { Case &c = tile('L', 1, 2, {200, 40}, {64, 8}, {5, 3}); c.sw = 3; c.smoff = 16; c.risky = true; }
    { Case &c = tile('L', 1, 2, {200, 40}, {16, 8}, {5, 3}); c.sw = 1; c.smoff = 64; c.risky = true; }
    { Case &c = tile('S', 2, 2, {40, 20}, {8, 4}, {4, 3}); c.smoff = 16; c.risky = true; }
    for (uint32_t off : {32u, 64u, 128u}) { Case &c = tile('L', 2, 2, {40, 20}, {8, 4}, {4, 3}); c.smoff = off; }
    { Case &c = tile('S', 2, 2, {40, 20}, {8, 4}, {4, 3}); c.smoff = 128; }
    // J. The H100 faults when dim 0 does not start on 16 bytes (illegal instruction), so
    //    every tile case above that does so gets a twin with the start rounded down to 16
    //    bytes (appended, so the ids recorded so far stay the same).
    size_t n0 = cases.size();
    for (size_t i = 0; i < n0; i++) {
        Case c = cases[i];
        int per = 16 / elsize(c.dt);
        if (c.mode != 'T' || c.risky || c.coords[0] % per == 0) continue;
        c.coords[0] = c.coords[0] / per * per - (c.coords[0] < 0 ? per : 0);
        cases.push_back(c);
    }
    // K. (appended later) 16-byte-aligned stores and reductions: every reduction on every type
    //    (the H100 refuses what PTX does not define), in bounds and partly past the end;
    //    stores with swizzles and shared offsets 128-aligned but not 1024-aligned; swizzled
    //    loads at such offsets (does the pattern follow the shared address bits?).
    const int rdts[] = {2, 3, 4, 5, 7, 6, 9, 0, 1, 8, 10, 11, 12};
    for (int dt : rdts) {
        int el = elsize(dt), w = 96 / el + 1;
        for (int op = 0; op < 8; op++) {
            if (dt == 0 || dt == 1 || dt >= 8 && dt != 9) { if (op) continue; }
            tile('R', dt, 2, {w, 6}, {32 / el, 4}, {16 / el, 1}).red = op;
            tile('R', dt, 2, {w, 6}, {32 / el, 4}, {80 / el, 4}).red = op;
        }
    }
    tile('R', 2, 2, {20, 6}, {8, 4}, {0, -1});
    tile('R', 2, 2, {20, 6}, {8, 4}, {-4, 1});
    tile('S', 2, 2, {40, 20}, {8, 4}, {4, 3});
    tile('S', 2, 2, {20, 6}, {8, 4}, {16, 4});
    tile('S', 2, 2, {20, 6}, {8, 4}, {0, -1});
    tile('S', 6, 2, {37, 9}, {16, 4}, {32, 7});
    tile('S', 4, 3, {5, 4, 3}, {2, 2, 2}, {4, 3, 2});
    tile('S', 2, 1, {19}, {8}, {16});
    { Case &c = tile('S', 2, 3, {20, 8, 4}, {8, 4, 2}, {12, 5, 3}); es(c, {1, 2, 1}); }
    for (uint32_t off : {0u, 128u, 384u}) { Case &c = tile('S', 1, 2, {70, 12}, {64, 8}, {8, 2}); c.sw = 3; c.smoff = off; }
    { Case &c = tile('S', 1, 2, {70, 12}, {32, 8}, {40, 6}); c.sw = 2; c.smoff = 128; }
    { Case &c = tile('S', 1, 2, {70, 12}, {16, 8}, {64, 6}); c.sw = 1; c.smoff = 256; }
    for (uint32_t off : {128u, 256u, 640u, 896u}) { Case &c = tile('L', 1, 2, {200, 40}, {64, 8}, {8, 3}); c.sw = 3; c.smoff = off; }
    for (uint32_t off : {128u, 256u, 384u}) { Case &c = tile('L', 1, 2, {200, 40}, {32, 8}, {8, 3}); c.sw = 2; c.smoff = off; }
    { Case &c = tile('L', 1, 2, {200, 40}, {16, 8}, {8, 3}); c.sw = 1; c.smoff = 128; }
    { Case &c = tile('L', 2, 2, {100, 40}, {32, 8}, {4, 3}); c.sw = 3; c.smoff = 512; }
    { Case &c = tile('R', 2, 2, {70, 12}, {32, 8}, {4, 2}); c.sw = 3; c.smoff = 384; }
    build_section_l();
    build_section_m();
    build_section_n();
}

static int init_encoders()
{
    cudaDriverEntryPointQueryResult q1, q2;
    cudaError_t e1 = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&enc_tiled,
                                                      12000, cudaEnableDefault, &q1);
    cudaError_t e2 = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", (void **)&enc_im2col,
                                                      12000, cudaEnableDefault, &q2);
    if (e1 || e2 || q1 || q2 || !enc_tiled || !enc_im2col) {
        fprintf(stderr, "no encoders: %d %d %d %d\n", e1, e2, q1, q2);
        return -1;
    }
    cudaFuncSetAttribute(kprobe, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_DYN);
    return 0;
}

// Runs case id in a child process (variant v), appending its record to f; returns its status.
static int run_child(const char *self, size_t id, int v, FILE *f)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --case %zu %d", self, id, v);
    FILE *p = popen(cmd, "r");
    char buf[4096];
    size_t n;
    while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) fwrite(buf, 1, n, f);
    int rc = p ? pclose(p) : -1;
    fflush(f);
    return rc;
}

int main(int argc, char **argv)
{
    build_cases();
    if (init_encoders()) return 1;
    if (argc == 4 && !strcmp(argv[1], "--case")) {
        int id = atoi(argv[2]);
        variant = atoi(argv[3]);
        return run_case(id, cases[id], stdout) ? 2 : 0;
    }
    FILE *f = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!f) { perror(argv[1]); return 1; }
    // Self-test: the first aligned, in-bounds u32 load, with each mechanism in turn.
    size_t probe_id = 0;
    while (probe_id + 1 < cases.size() &&
           !(cases[probe_id].op == 'L' && cases[probe_id].dt == 2 && cases[probe_id].rank == 2 &&
             cases[probe_id].coords[0] == 4 && cases[probe_id].smoff == 0))
        probe_id++;
    int v;
    for (v = 0; v < 3; v++) {
        FILE *t = tmpfile();
        int rc = run_child(argv[0], probe_id, v, t);
        rewind(t);
        char line[512] = "";
        if (!fgets(line, sizeof line, t)) line[0] = 0;
        fclose(t);
        printf("self-test variant %d rc=%d: %.300s\n", v, rc, line);
        if (rc == 0 && strstr(line, " st=ok ")) break;
    }
    if (v == 3) v = 0;
    fprintf(f, "# tma_probe records (variant %d): see tests/gpu/tma_probe.cu for the format\n", v);
    size_t from = argc > 2 ? (size_t)atoi(argv[2]) : 0;   // record only cases from this id
    for (size_t i = from; i < cases.size(); i++) {
        int rc = run_child(argv[0], i, v, f);
        if (rc) printf("case %zu rc=%d\n", i, rc);
    }
    printf("%zu cases\n", cases.size());
    if (f != stdout) fclose(f);
    return 0;
}
