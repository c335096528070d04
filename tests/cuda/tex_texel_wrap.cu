// tex_texel_wrap.cu - wrap and mirror address modes with texel (unnormalized) coordinates,
// where the CUDA programming guide says they are not supported: what the GPU fetches
// outside the texture then (and, for comparison, the same with normalized coordinates).
#include <cstdio>

__global__ void fetch(cudaTextureObject_t t, const float *xs, int n, float *out)
{
    int i = threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, xs[i], 2.5f);
}

int main()
{
    const int w = 8, h = 4;
    float img[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) img[y][x] = (float)(x * 10 + y);
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    cudaMallocArray(&arr, &fd, w, h);
    cudaMemcpy2DToArray(arr, 0, 0, img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
    const float texel[] = { -9.5f, -3.5f, -1.0f, -0.5f, 0.25f, 3.5f, 7.5f, 8.0f, 9.75f, 12.5f, 17.5f };
    const int n = sizeof texel / sizeof texel[0];
    float *xs, *out, h_out[n];
    cudaMalloc(&xs, sizeof texel);
    cudaMalloc(&out, sizeof h_out);
    const char *modes[] = { "wrap", "clamp", "mirror", "border" };
    for (int norm = 0; norm < 2; norm++)
        for (int filt = 0; filt < 2; filt++)
            for (int m = 0; m < 4; m++) {
                cudaResourceDesc rd = {};
                rd.resType = cudaResourceTypeArray;
                rd.res.array.array = arr;
                cudaTextureDesc td = {};
                td.addressMode[0] = td.addressMode[1] = (cudaTextureAddressMode)m;
                td.filterMode = filt ? cudaFilterModeLinear : cudaFilterModePoint;
                td.readMode = cudaReadModeElementType;
                td.normalizedCoords = norm;
                cudaTextureObject_t t = 0;
                cudaError_t e = cudaCreateTextureObject(&t, &rd, &td, 0);
                float x[n];
                for (int i = 0; i < n; i++) x[i] = norm ? texel[i] / w : texel[i];
                cudaMemcpy(xs, x, sizeof x, cudaMemcpyHostToDevice);
                cudaMemset(out, 0, sizeof h_out);
                fetch<<<1, 32>>>(t, xs, n, out);
                cudaError_t s = cudaDeviceSynchronize();
                cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
                printf("%s %s %-6s: %s %s", norm ? "normalized" : "texel", filt ? "linear" : "point ",
                       modes[m], cudaGetErrorName(e), cudaGetErrorName(s));
                for (int i = 0; i < n; i++) printf(" %g", h_out[i]);
                printf("\n");
                cudaDestroyTextureObject(t);
            }
    return 0;
}
