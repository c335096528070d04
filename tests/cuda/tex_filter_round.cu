// tex_filter_round.cu - how linear filtering of f32 textures rounds the weighted sum: pairs of
// texels one to eight ulps apart (both signs, three binades) sampled at weights 1/2, 1/4,
// 3/4 and 1/8, so that many exact sums fall halfway between two floats; four-texel 2D
// footprints; and addends far below the sum's last bit, just above and just below a
// halfway point. Each sample prints the texels and the result as bit patterns.
#include <cstdio>
#include <cstring>

static const int W = 2, H = 2;

__global__ void sample(cudaTextureObject_t t, float x, float y, float *out)
{
    *out = tex2D<float>(t, x, y);
}

static unsigned bits(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits(unsigned u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static cudaArray_t arr;
static cudaTextureObject_t tex;
static float *d_out;

static float fetch(const float img[H][W], float x, float y)
{
    cudaMemcpy2DToArray(arr, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice);
    sample<<<1, 1>>>(tex, x, y, d_out);
    float r = 0;
    cudaMemcpy(&r, d_out, sizeof r, cudaMemcpyDeviceToHost);
    return r;
}

int main()
{
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaMallocArray(&arr, &fd, W, H);
    cudaMalloc(&d_out, sizeof(float));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaCreateTextureObject(&tex, &rd, &td, 0);

    // x in texel units: 1.0 is halfway between the centres 0.5 and 1.5 (weight 128/256 on
    // texel 1); y = 0.5 is row 0's centre (weight 0 on row 1)
    const float xs[] = { 1.0f, 0.75f, 1.25f, 0.625f };
    const unsigned bases[] = { 0x3f800000u, 0x40490fdbu, 0x3a83126fu };
    for (unsigned bi = 0; bi < 3; bi++)
        for (int sign = 0; sign < 2; sign++)
            for (unsigned k = 1; k <= 8; k++)
                for (int xi = 0; xi < 4; xi++) {
                    float a = from_bits(bases[bi] | (sign ? 0x80000000u : 0));
                    float b = from_bits(bits(a) + k);
                    float img[H][W] = { { a, b }, { 0, 0 } };
                    float r = fetch(img, xs[xi], 0.5f);
                    printf("1d x=%g a=%08x b=%08x -> %08x\n", xs[xi], bits(a), bits(b), bits(r));
                }
    // 2D: four texels at weights 1/4 each (x = y = 1.0) and 3/16, 1/16, 9/16, 3/16
    for (int sign = 0; sign < 2; sign++)
        for (unsigned k = 1; k <= 6; k++)
            for (int c = 0; c < 2; c++) {
                float a = from_bits(0x3f800000u | (sign ? 0x80000000u : 0));
                float img[H][W] = { { a, from_bits(bits(a) + k) }, { from_bits(bits(a) + 2 * k), from_bits(bits(a) + 3 * k) } };
                float x = c ? 1.25f : 1.0f, y = c ? 0.75f : 1.0f;
                float r = fetch(img, x, y);
                printf("2d x=%g y=%g a=%08x k=%u -> %08x\n", x, y, bits(a), k, bits(r));
            }
    // a tiny addend just above or just below a halfway point of the large one's half
    const unsigned tiny[] = { 0x33800000u, 0x33800100u, 0xb3800000u, 0xb3800100u, 0x2f800000u, 0xaf800000u };
    for (int sign = 0; sign < 2; sign++)
        for (unsigned ti = 0; ti < 6; ti++)
            for (unsigned k = 0; k < 2; k++) {
                float a = from_bits((0x3f800000u + k) | (sign ? 0x80000000u : 0));
                float b = from_bits(tiny[ti]);
                float img[H][W] = { { a, b }, { 0, 0 } };
                float r = fetch(img, 1.0f, 0.5f);
                printf("tiny a=%08x b=%08x -> %08x\n", bits(a), bits(b), bits(r));
            }
    printf("%s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
