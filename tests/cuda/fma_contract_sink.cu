// fma_contract_sink.cu - a mul computed before a loop whose product a single add (or sub)
// inside the loop reads: does ptxas fuse them when the mul's second factor is an immediate,
// and when the loop also holds an rcp.rn (a subroutine call in SASS)? HeCBench's dxtc2
// computes 9.0f * color_sum before its permutation loop and subtracts the loop's sum from it
// after an rcp.rn; the H200's SASS holds FFMA R, R, 9, -R there (docs/fma-contraction.md).
// Each lane's addend is -round(a*b) (or the sub's subtrahend round(a*b)), so a fused add
// leaves the product's rounding error (0x1p-24 for f32, 0x1p-54 for f64) and a plain one 0.
#include <cstdio>

#define F_IMM "0f3F800800"           /* 1 + 2^-12 */
#define D_IMM "0d3FF0000002000000"   /* 1 + 2^-27 */

/* p = a * IMM (or a * b) before the loop; the loop adds the loaded in[i] */
template <int IMM, int RCP>
__global__ void load_f32(const float *in, float *out, float *out2, int n)
{
    float a = in[8], b = in[9], p, r;
    if (IMM) asm("mul.f32 %0, %1, " F_IMM ";" : "=f"(p) : "f"(a));
    else asm("mul.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        asm volatile("add.f32 %0, %1, %2;" : "=f"(r) : "f"(p), "f"(in[i]));
        out[i] = r;
        if (RCP) {
            float q;
            asm volatile("rcp.rn.f32 %0, %1;" : "=f"(q) : "f"(in[16 + i]));
            out2[i] = q;
        }
    }
}

/* p = a * IMM before the loop; the loop accumulates acc and stores p - acc (dxtc2's shape) */
template <int IMM, int RCP>
__global__ void acc_f32(const float *in, float *out, float *out2, int n)
{
    float a = in[8], b = in[9], p, r, acc = 0.0f;
    if (IMM) asm("mul.f32 %0, %1, " F_IMM ";" : "=f"(p) : "f"(a));
    else asm("mul.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        acc += in[4 + i];
        asm volatile("sub.f32 %0, %1, %2;" : "=f"(r) : "f"(p), "f"(acc));
        out[i] = r;
        if (RCP) {
            float q;
            asm volatile("rcp.rn.f32 %0, %1;" : "=f"(q) : "f"(in[16 + i]));
            out2[i] = q;
        }
    }
}

/* two adds in the loop read the product */
__global__ void two_f32(const float *in, float *out, float *out2, int n)
{
    float a = in[8], p, r, s;
    asm("mul.f32 %0, %1, " F_IMM ";" : "=f"(p) : "f"(a));
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        asm volatile("add.f32 %0, %1, %2;" : "=f"(r) : "f"(p), "f"(in[i]));
        asm volatile("add.f32 %0, %1, %2;" : "=f"(s) : "f"(p), "f"(in[i + 1]));
        out[i] = r;
        out2[i] = s;
    }
}

/* no loop: an rcp.rn between the mul and its add */
template <int IMM>
__global__ void rcp_between_f32(const float *in, float *out, float *out2, int n)
{
    float a = in[8], b = in[9], p, r, q;
    if (IMM) asm("mul.f32 %0, %1, " F_IMM ";" : "=f"(p) : "f"(a));
    else asm("mul.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
    asm volatile("rcp.rn.f32 %0, %1;" : "=f"(q) : "f"(in[16]));
    asm volatile("add.f32 %0, %1, %2;" : "=f"(r) : "f"(p), "f"(in[0]));
    out[0] = r;
    out2[0] = q;
}

__global__ void load_f64(const double *in, double *out, int n)
{
    double a = in[8], p, r;
    asm("mul.f64 %0, %1, " D_IMM ";" : "=d"(p) : "d"(a));
#pragma unroll 1
    for (int i = 0; i < n; i++) {
        asm volatile("add.f64 %0, %1, %2;" : "=d"(r) : "d"(p), "d"(in[i]));
        out[i] = r;
    }
}

static float *din, *dout, *dout2;

static void show(const char *name)
{
    float o[3], o2[3];
    cudaDeviceSynchronize();
    cudaMemcpy(o, dout, sizeof o, cudaMemcpyDeviceToHost);
    cudaMemcpy(o2, dout2, sizeof o2, cudaMemcpyDeviceToHost);
    printf("%-22s %a %a %a   %a\n", name, o[0], o[1], o[2], o2[0]);
    cudaMemset(dout, 0, 64);
    cudaMemset(dout2, 0, 64);
}

int main()
{
    float a = 1.0f + 0x1p-12f, r = a * a;   /* round(a*a), as the GPU rounds it */
    float h[32] = { 0 };
    h[0] = h[1] = h[2] = h[3] = -r;          /* the adds' addends */
    h[4] = r;                                /* acc = r on every pass */
    h[8] = a; h[9] = a;
    h[16] = h[17] = h[18] = 3.0f;            /* what the rcp reads */
    cudaMalloc(&din, sizeof h);
    cudaMalloc(&dout, 64);
    cudaMalloc(&dout2, 64);
    cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, 64);
    cudaMemset(dout2, 0, 64);
    load_f32<1, 0><<<1, 1>>>(din, dout, dout2, 3); show("load imm");
    load_f32<0, 0><<<1, 1>>>(din, dout, dout2, 3); show("load reg");
    load_f32<1, 1><<<1, 1>>>(din, dout, dout2, 3); show("load imm rcp");
    load_f32<0, 1><<<1, 1>>>(din, dout, dout2, 3); show("load reg rcp");
    acc_f32<1, 0><<<1, 1>>>(din, dout, dout2, 3); show("acc imm");
    acc_f32<0, 0><<<1, 1>>>(din, dout, dout2, 3); show("acc reg");
    acc_f32<1, 1><<<1, 1>>>(din, dout, dout2, 3); show("acc imm rcp");
    acc_f32<0, 1><<<1, 1>>>(din, dout, dout2, 3); show("acc reg rcp");
    two_f32<<<1, 1>>>(din, dout, dout2, 3); show("two imm");
    rcp_between_f32<1><<<1, 1>>>(din, dout, dout2, 1); show("rcp between imm");
    rcp_between_f32<0><<<1, 1>>>(din, dout, dout2, 1); show("rcp between reg");

    double ad = 1.0 + 0x1p-27, rd = ad * ad, hd[16] = { -rd, -rd, -rd, 0, 0, 0, 0, 0, ad }, od[3];
    double *dd, *dod;
    cudaMalloc(&dd, sizeof hd);
    cudaMalloc(&dod, sizeof od);
    cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice);
    load_f64<<<1, 1>>>(dd, dod, 3);
    cudaMemcpy(od, dod, sizeof od, cudaMemcpyDeviceToHost);
    printf("%-22s %a %a %a\n", "load imm f64", od[0], od[1], od[2]);
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
