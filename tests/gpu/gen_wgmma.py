# gen_wgmma.py - generates tests/cuda/wgmma.cu (run from the top of the tree): one kernel per
# wgmma configuration, each with its own inline-PTX operand list
N=64
def asm_call(kind, n, acc16, areg, tp="f16", scale_d="1", sa="1", sb="1", ta="0", tb="0"):
    nd = n//4 if acc16 else n//2
    dt = "f16" if acc16 else "f32"
    dregs = ",".join("%%%d" % i for i in range(nd))
    idx = nd
    if areg:
        aops = "{%%%d,%%%d,%%%d,%%%d}" % (idx, idx+1, idx+2, idx+3); idx += 4
    else:
        aops = "%%%d" % idx; idx += 1
    bop = "%%%d" % idx; idx += 1
    pop = "%%%d" % idx; idx += 1
    if areg:
        imms = "%s, %s, %s" % (sa, sb, tb)
    else:
        imms = "%s, %s, %s, %s" % (sa, sb, ta, tb)
    s = '"{\\n.reg .pred p;\\nsetp.ne.b32 p, %s, 0;\\n' % pop
    s += 'wgmma.mma_async.sync.aligned.m64n%dk16.%s.%s.%s {%s}, %s, %s, p, %s;\\n}\\n"' % (n, dt, tp, tp, dregs, aops, bop, imms)
    outs = ", ".join(('"+r"(d[%d])' % i) for i in range(nd))
    ins = ('"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), ' if areg else '"l"(da), ') + '"l"(db), "r"(scale_d)'
    return 'asm volatile(%s\n        : %s\n        : %s);' % (s, outs, ins)

import sys
SET = sys.argv[1] if len(sys.argv) > 1 else 'main'
cfgs = []  # (name, n, acc16, areg, tp, sa, sb, ta, tb)
if SET == "main":
  cfgs.append(("regA_onehot_B_none", 64, 0, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("regA_onehot_B_sw128", 64, 0, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("regA_onehot_B_sw64", 64, 0, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("regA_onehot_B_sw32", 64, 0, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("regA_onehot_B_trans_none", 64, 0, 1, "f16", "1", "1", "0", "1"))
  cfgs.append(("descA_none_B_ident", 64, 0, 0, "f16", "1", "1", "0", "0"))
  cfgs.append(("descA_sw128_B_ident", 64, 0, 0, "f16", "1", "1", "0", "0"))
  cfgs.append(("descA_trans_none_B_ident", 64, 0, 0, "f16", "1", "1", "1", "0"))
  cfgs.append(("random_f16", 64, 0, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("random_bf16", 64, 0, 1, "bf16", "1", "1", "0", "0"))
  cfgs.append(("random_f16_negA", 64, 0, 0, "f16", "-1", "1", "0", "0"))
  cfgs.append(("random_f16_acc16", 64, 1, 1, "f16", "1", "1", "0", "0"))
  cfgs.append(("n8_onehot_B_none", 8, 0, 1, "f16", "1", "1", "0", "0"))
if SET == "mn":
  for sw, nm in ((1, "sw128"), (2, "sw64"), (3, "sw32")):
    for hi in (0, 1):
      cfgs.append(("regA_onehot_B_trans_%s_%s" % (nm, "hi" if hi else "lo"), 64, 0, 1, "f16", "1", "1", "0", "1"))
  for hi in (0, 1):
    cfgs.append(("regA_onehot_B_trans_sw128_n128_%s" % ("hi" if hi else "lo"), 128, 0, 1, "f16", "1", "1", "0", "1"))
    cfgs.append(("descA_trans_sw128_B_ident_%s" % ("hi" if hi else "lo"), 64, 0, 0, "f16", "1", "1", "1", "0"))

out = []
out.append(r'''// wgmma.cu - records wgmma.mma_async (sm_90a) as the H100 executes it: for each
// configuration (operand A from registers or a shared-memory descriptor, B from a descriptor;
// no swizzle, 32/64/128-byte swizzles; transposed operands; f16, bf16; f32 and f16
// accumulators; scale-d and imm-scale-a) every thread's accumulator registers after one
// wgmma, printed as bits. Shared memory holds codes (the element's own index as an f16
// integer) or random values; A in registers is one-hot (A[m][k] = 1 where k = m % 16) or
// random. The descriptors use the PTX ISA's canonical layouts as this program assumes them;
// what the GPU reads is whatever the recording shows.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ uint64_t desc(const void *smem, int lbo, int sbo, int swz)
{
    uint32_t a = (uint32_t)__cvta_generic_to_shared(smem);
    return (uint64_t)((a >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
           (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)swz << 62;
}
''')
for ci, (name, n, acc16, areg, tp, sa, sb, ta, tb) in enumerate(cfgs):
    nd = n//4 if acc16 else n//2
    out.append('__global__ void k%d(const uint16_t *gA, const uint16_t *gB, const uint32_t *gC, uint32_t *gD, const uint32_t *gAr, int lboA, int sboA, int swA, int lboB, int sboB, int swB, int scale_d)' % ci)
    out.append('{')
    out.append('    __shared__ __align__(1024) uint16_t sA[8192], sB[8192];')
    out.append('    int tid = threadIdx.x;')
    out.append('    for (int i = tid; i < 8192; i += 128) { sA[i] = gA[i]; sB[i] = gB[i]; }')
    out.append('    uint32_t d[%d], a[4];' % nd)
    out.append('    for (int i = 0; i < %d; i++) d[i] = gC[tid * %d + i];' % (nd, nd))
    out.append('    for (int i = 0; i < 4; i++) a[i] = gAr[tid * 4 + i];')
    out.append('    uint64_t da = desc(sA, lboA, sboA, swA), db = desc(sB, lboB, sboB, swB);')
    out.append('    (void)da; (void)a[0];')
    out.append('    asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory");')
    out.append('    __syncthreads();')
    out.append('    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");')
    out.append('    ' + asm_call(None, n, acc16, areg, tp, "1", sa, sb, ta, tb).replace("\n", "\n    "))
    out.append('    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");')
    out.append('    asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");')
    out.append('    for (int i = 0; i < %d; i++) gD[tid * %d + i] = d[i];' % (nd, nd))
    out.append('}')
    out.append('')
out.append('struct Cfg { const char *name; int n, acc16, areg, bf, lboA, sboA, swA, lboB, sboB, swB, scale_d, fill; };')
out.append('// fill: 0 codes (element index % 2048) in A and B smem, one-hot A registers; 1 codes in A smem,\n// identity B; 2 random; 3 and 4: as 0 and 1 with the codes index / 2048')
rows=[]
specs = {
 "regA_onehot_B_none": (128,256,0, 128,256,0, 1, 0),
 "regA_onehot_B_sw128": (128,256,0, 16,1024,1, 1, 0),
 "regA_onehot_B_sw64": (128,256,0, 16,512,2, 1, 0),
 "regA_onehot_B_sw32": (128,256,0, 16,256,3, 1, 0),
 "regA_onehot_B_trans_none": (128,256,0, 256,128,0, 1, 0),
 "descA_none_B_ident": (128,256,0, 128,256,0, 1, 1),
 "descA_sw128_B_ident": (16,1024,1, 128,256,0, 1, 1),
 "descA_trans_none_B_ident": (256,128,0, 128,256,0, 1, 1),
 "random_f16": (128,256,0, 128,256,0, 1, 2),
 "random_bf16": (128,256,0, 128,256,0, 1, 2),
 "random_f16_negA": (128,256,0, 128,256,0, 1, 2),
 "random_f16_acc16": (128,256,0, 128,256,0, 1, 2),
 "n8_onehot_B_none": (128,256,0, 128,256,0, 0, 0),
}
for sw, nm, lbo, sbo in ((1, "sw128", 4096, 1024), (2, "sw64", 2048, 512), (3, "sw32", 1024, 256)):
    for hi in ("lo", "hi"):
        specs["regA_onehot_B_trans_%s_%s" % (nm, hi)] = (128, 256, 0, lbo, sbo, sw, 1, 0 if hi == "lo" else 3)
for hi in ("lo", "hi"):
    specs["regA_onehot_B_trans_sw128_n128_" + hi] = (128, 256, 0, 4096, 2048, 1, 1, 0 if hi == "lo" else 3)
    specs["descA_trans_sw128_B_ident_" + hi] = (4096, 1024, 1, 128, 256, 0, 1, 1 if hi == "lo" else 4)
for ci, (name, n, acc16, areg, tp, sa, sb, ta, tb) in enumerate(cfgs):
    l = specs[name]
    rows.append('    { "%s", %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d },' % (name, n, acc16, areg, 1 if tp=="bf16" else 0, l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]))
out.append('static const Cfg cfgs[] = {\n' + '\n'.join(rows) + '\n};')
out.append(r'''
static uint64_t s = 0x853c49e6748fea9bull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 11); }
static uint16_t h(float f, int bf)
{
    if (bf) { __nv_bfloat16 b = __float2bfloat16(f); uint16_t u; memcpy(&u, &b, 2); return u; }
    __half x = __float2half(f); uint16_t u; memcpy(&u, &x, 2); return u;
}
static float frand() { return ((float)(rnd() % 2000001) / 1000000.0f - 1.0f) * (float)(1 << (rnd() % 8)); }

typedef void (*Kern)(const uint16_t *, const uint16_t *, const uint32_t *, uint32_t *, const uint32_t *, int, int, int, int, int, int, int);
static const Kern kerns[] = { KERNS };

int main()
{
    static uint16_t A[8192], B[8192];
    static uint32_t C[128 * 128], D[128 * 128], Ar[128 * 4];
    uint16_t *dA, *dB; uint32_t *dC, *dD, *dAr;
    cudaMalloc(&dA, sizeof A); cudaMalloc(&dB, sizeof B); cudaMalloc(&dC, sizeof C); cudaMalloc(&dD, sizeof D); cudaMalloc(&dAr, sizeof Ar);
    for (unsigned ci = 0; ci < sizeof cfgs / sizeof cfgs[0]; ci++) {
        const Cfg &c = cfgs[ci];
        int nd = c.acc16 ? c.n / 4 : c.n / 2;
        for (int i = 0; i < 8192; i++) {
            float code = (float)(c.fill >= 3 ? i / 2048 : i % 2048);
            A[i] = c.fill == 2 ? h(frand(), c.bf) : h(code, 0);
            B[i] = c.fill == 2 ? h(frand(), c.bf) : h(code, 0);
        }
        if (c.fill == 1 || c.fill == 4) {   // B = identity on its first 16 columns under the assumed layout (no swizzle, K-major)
            memset(B, 0, sizeof B);
            for (int nn = 0; nn < c.n; nn++)
                for (int k = 0; k < 16; k++)
                    if (nn % 16 == k) B[((nn / 8) * c.sboB + (k / 8) * c.lboB) / 2 + (nn % 8) * 8 + k % 8] = h(1.0f, 0);
        }
        for (int t = 0; t < 128; t++) {   // A in registers: warp w holds rows 16w.., lane (g, t4) as mma.m16n8k16
            int w = t / 32, l = t % 32, g = l / 4, t4 = l % 4;
            for (int j = 0; j < 4; j++) {
                uint32_t v = 0;
                for (int e = 0; e < 2; e++) {
                    int row = 16 * w + g + 8 * (j & 1), col = 2 * t4 + 8 * (j >> 1) + e;
                    uint16_t x = c.fill == 2 ? h(frand(), c.bf) : h(col == row % 16 ? 1.0f : 0.0f, 0);
                    v |= (uint32_t)x << (16 * e);
                }
                Ar[t * 4 + j] = v;
            }
            for (int i = 0; i < nd; i++) {
                if (c.fill != 2) { C[t * nd + i] = 0; continue; }
                if (c.acc16) C[t * nd + i] = h(frand(), 0) | (uint32_t)h(frand(), 0) << 16;
                else { float f = frand(); memcpy(&C[t * nd + i], &f, 4); }
            }
        }
        cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
        cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
        cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
        cudaMemcpy(dAr, Ar, sizeof Ar, cudaMemcpyHostToDevice);
        cudaMemset(dD, 0, sizeof D);
        kerns[ci]<<<1, 128>>>(dA, dB, dC, dD, dAr, c.lboA, c.sboA, c.swA, c.lboB, c.sboB, c.swB, c.scale_d);
        cudaError_t e = cudaDeviceSynchronize();
        cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost);
        printf("== %s: %s\n", c.name, cudaGetErrorName(e));
        for (int t = 0; t < 128; t++) {
            printf("t%d:", t);
            for (int i = 0; i < nd; i++) printf(" %08x", D[t * nd + i]);
            printf("\n");
        }
    }
    return 0;
}
''')
src = "\n".join(out).replace("KERNS", ", ".join("k%d" % i for i in range(len(cfgs))))
open('tests/cuda/wgmma.cu' if SET == 'main' else 'tests/cuda/wgmma_mn.cu', 'w').write(src)
