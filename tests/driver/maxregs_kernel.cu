// maxregs_kernel.cu - a kernel that ptxas gives many registers unless told a limit, for
// maxregs.c (compiled with nvcc -ptx). 48 independent accumulators stay live together.
extern "C" __global__ void heavy(const float *in, float *out, int n)
{
    float acc[48];
#pragma unroll
    for (int j = 0; j < 48; j++) acc[j] = in[j];
    for (int i = 0; i < n; i++)
#pragma unroll
        for (int j = 0; j < 48; j++) acc[j] = acc[j] * in[i + j] + acc[(j + 1) % 48];
    float s = 0;
#pragma unroll
    for (int j = 0; j < 48; j++) s += acc[j] * (j + 1);
    out[threadIdx.x] = s;
}
