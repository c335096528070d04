// tex_mirror_edge.cu - linear filtering where the 2D texel weights fall halfway between two
// 1/256 steps (tex_pitch_mirror.cu's sample at x = 2.25, y = 1.325, normalized, mirror, 13 x 7
// texels): the texture sampled on lines through that point and through the mirrored point.
#include <cstdio>
#include <cstring>

static const int W = 13, H = 7, N = 64;

__global__ void sample(cudaTextureObject_t t, const float *xy, float *out)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    out[i] = tex2D<float>(t, xy[2 * i], xy[2 * i + 1]);
}

int main()
{
    static float img[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = (float)((x * 37 + y * 101) % 53) * 0.173f - 2.0f;
    cudaArray_t arr;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMallocArray(&arr, &cd, W, H);
    cudaMemcpy2DToArray(arr, 0, 0, img, sizeof img[0], W * sizeof(float), H, cudaMemcpyHostToDevice);
    cudaResourceDesc ra = {};
    ra.resType = cudaResourceTypeArray;
    ra.res.array.array = arr;
    cudaTextureDesc td = {};
    td.normalizedCoords = true;
    td.filterMode = cudaFilterModeLinear;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeMirror;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    cudaCreateTextureObject(&t, &ra, &td, NULL);
    static float xy[4 * N * 2], out[4 * N];
    for (int i = 0; i < N; i++) {
        float d = (i - N / 2) / 512.0f;
        xy[2 * i] = 2.25f; xy[2 * i + 1] = 1.325f + d;               // along y
        xy[2 * (N + i)] = 2.25f + d; xy[2 * (N + i) + 1] = 1.325f;     // along x
        xy[2 * (2 * N + i)] = 0.25f; xy[2 * (2 * N + i) + 1] = 0.675f + d;   // mirrored point, along y
        xy[2 * (3 * N + i)] = 0.25f + d; xy[2 * (3 * N + i) + 1] = 0.675f;   // mirrored point, along x
    }
    float *dxy, *dout;
    cudaMalloc(&dxy, sizeof xy);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(dxy, xy, sizeof xy, cudaMemcpyHostToDevice);
    sample<<<4, N>>>(t, dxy, dout);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4 * N; i++) {
        unsigned u, ux, uy;
        memcpy(&u, &out[i], 4); memcpy(&ux, &xy[2 * i], 4); memcpy(&uy, &xy[2 * i + 1], 4);
        printf("%08x %08x -> %08x\n", ux, uy, u);
    }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
