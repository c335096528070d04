// tex_pitch_mirror.cu - linear filtering of an f32 pitch-linear 2D texture with normalized
// coordinates and mirror addressing (HSOpticalFlow's textures), against the same data in a
// CUDA array: samples across and beyond both edges, fine and coarse steps.
#include <cstdio>
#include <cstring>

static const int W = 13, H = 7, NX = 61, NY = 9;

__global__ void sample(cudaTextureObject_t t, float *out)
{
    int i = threadIdx.x, j = blockIdx.x;
    float x = -1.25f + i * (3.5f / (NX - 1)), y = -0.6f + j * (2.2f / (NY - 1));
    out[j * NX + i] = tex2D<float>(t, x, y);
}

static cudaTextureObject_t make(const cudaResourceDesc &res)
{
    cudaTextureDesc td = {};
    td.normalizedCoords = true;
    td.filterMode = cudaFilterModeLinear;
    td.addressMode[0] = cudaAddressModeMirror;
    td.addressMode[1] = cudaAddressModeMirror;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    cudaError_t e = cudaCreateTextureObject(&t, &res, &td, NULL);
    printf("create: %s\n", cudaGetErrorName(e));
    return t;
}

static void show(const char *what, cudaTextureObject_t t, float *d)
{
    sample<<<NY, NX>>>(t, d);
    static float h[NX * NY];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%s: %s\n", what, cudaGetErrorName(cudaGetLastError()));
    for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
            unsigned u;
            memcpy(&u, &h[j * NX + i], 4);
            printf("%08x%c", u, i % 10 == 9 || i == NX - 1 ? '\n' : ' ');
        }
    }
}

int main()
{
    static float img[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = (float)((x * 37 + y * 101) % 53) * 0.173f - 2.0f;
    float *pitched, *out;
    size_t pitch;
    cudaMallocPitch(&pitched, &pitch, W * sizeof(float), H);
    cudaMemcpy2D(pitched, pitch, img, sizeof img[0], W * sizeof(float), H, cudaMemcpyHostToDevice);
    cudaMalloc(&out, NX * NY * sizeof(float));

    cudaResourceDesc rp = {};
    rp.resType = cudaResourceTypePitch2D;
    rp.res.pitch2D.devPtr = pitched;
    rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    rp.res.pitch2D.width = W;
    rp.res.pitch2D.height = H;
    rp.res.pitch2D.pitchInBytes = pitch;
    show("pitch2D", make(rp), out);

    cudaArray_t arr;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMallocArray(&arr, &cd, W, H);
    cudaMemcpy2DToArray(arr, 0, 0, img, sizeof img[0], W * sizeof(float), H, cudaMemcpyHostToDevice);
    cudaResourceDesc ra = {};
    ra.resType = cudaResourceTypeArray;
    ra.res.array.array = arr;
    show("array", make(ra), out);
    return 0;
}
