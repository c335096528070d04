/* native.c - the computations as a C programmer writes them: the baseline the generated code
 * is measured against (built -O2 -march=native, see Makefile). fmaf, as the kernels' fma.rn
 * asks, so that the results are the same bytes. */
#include <math.h>
#include "jitcmp.h"

void native_saxpy(int n, float alpha, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = fmaf(x[i], alpha, y[i]);
}

/* One 16x16 block's results: out[ty][tx] = sum over k of as[ty][k] * bs[k][tx], the fma
 * chain in k order, with tx innermost so that it runs as vectors. */
void native_matmul_tile(int kt, int k, const float *as, const float *bs, float *out)
{
    float acc[16][16] = { { 0 } };
    for (int ty = 0; ty < 16; ty++)
        for (int j = 0; j < k; j++) {
            float a = as[ty * kt + j];
            for (int tx = 0; tx < 16; tx++)
                acc[ty][tx] = fmaf(a, bs[j * 16 + tx], acc[ty][tx]);
        }
    for (int ty = 0; ty < 16; ty++)
        for (int tx = 0; tx < 16; tx++)
            out[ty * 16 + tx] = acc[ty][tx];
}
