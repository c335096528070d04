// tex_coord_precision.cu - how precisely linear filtering resolves a normalized coordinate
// on large textures (HSOpticalFlow's 640 x 480 frames and odd sizes): textures whose texels
// hold their own column (or row) index, so that a sample between columns i and i+1 reads
// i + weight; sampled at random coordinates and at the sample's own (i + 0.5) / n and
// (i + 0.5) / n +- 0.25 / n, in mirror and clamp modes. Prints coordinate and result bits.
#include <cstdio>
#include <cstring>
#include <cstdint>

__global__ void sample(cudaTextureObject_t t, const float *c, float *out, int n, int vertical)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) out[i] = vertical ? tex2D<float>(t, 0.5f, c[i]) : tex2D<float>(t, c[i], 0.5f);
}

static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t s = 0x2545f4914f6cdd1dull;
static uint32_t rnd() { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return (uint32_t)(s >> 16); }

int main()
{
    const int sizes[][2] = { { 640, 480 }, { 1021, 7 }, { 7, 1021 }, { 4093, 3 } };
    const int NC = 768;
    static float coords[NC], out[NC];
    float *dc, *dout;
    cudaMalloc(&dc, sizeof coords);
    cudaMalloc(&dout, sizeof out);
    for (int si = 0; si < 4; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        static float img[640 * 480 + 4096 * 8];
        for (int vertical = 0; vertical < 2; vertical++) {
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) img[y * w + x] = (float)(vertical ? y : x);
            cudaArray_t arr;
            cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
            cudaMallocArray(&arr, &cd, w, h);
            cudaMemcpy2DToArray(arr, 0, 0, img, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
            int n = vertical ? h : w;
            int k = 0;
            for (; k < 256; k++) {   // random coordinates in [-0.25, 1.25)
                float u = (float)(rnd() & 0xffffff) / 16777216.0f;
                coords[k] = u * 1.5f - 0.25f;
            }
            for (; k < NC; k++) {   // the kernels' own forms
                int i = (int)(rnd() % (uint32_t)n);
                float x = ((float)i + 0.5f) / (float)n, dx = 1.0f / (float)n;
                int form = k % 4;
                coords[k] = form == 0 ? x : form == 1 ? x + dx * 0.25f : form == 2 ? x - dx * 0.25f : x + 2.0f * dx;
            }
            for (int mode = 0; mode < 2; mode++) {
                cudaResourceDesc ra = {};
                ra.resType = cudaResourceTypeArray;
                ra.res.array.array = arr;
                cudaTextureDesc td = {};
                td.normalizedCoords = true;
                td.filterMode = cudaFilterModeLinear;
                td.addressMode[0] = td.addressMode[1] = mode ? cudaAddressModeClamp : cudaAddressModeMirror;
                td.readMode = cudaReadModeElementType;
                cudaTextureObject_t t = 0;
                cudaCreateTextureObject(&t, &ra, &td, NULL);
                cudaMemcpy(dc, coords, sizeof coords, cudaMemcpyHostToDevice);
                sample<<<(NC + 127) / 128, 128>>>(t, dc, dout, NC, vertical);
                cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
                printf("== %dx%d %s %s: %s\n", w, h, vertical ? "y" : "x", mode ? "clamp" : "mirror",
                       cudaGetErrorName(cudaGetLastError()));
                for (int i = 0; i < NC; i++) printf("%08x %08x%c", bits(coords[i]), bits(out[i]), i % 4 == 3 ? '\n' : ' ');
                cudaDestroyTextureObject(t);
            }
            cudaFreeArray(arr);
        }
    }
    return 0;
}
