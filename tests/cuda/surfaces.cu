// surfaces.cu - surface objects as an H100 reads and writes them: suld/sust of 1D, 2D, 3D and
// layered arrays (b8..b64, vectors), the boundary modes clamp and zero for reads and writes
// out of range, formatted stores (sust.p), sured, suq, the API's answers, and (run 1) an
// out-of-range access with .trap, which faults.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>

// Every thread writes element (x, y) = x + 100 y + 1 into a 2D surface of ints, then, after a
// barrier, reads it back from neighbours with clamp and zero, in and out of range.
__global__ void rw2d(cudaSurfaceObject_t s, int w, int h, int *out)
{
    int x = threadIdx.x, y = threadIdx.y;
    surf2Dwrite(x + 100 * y + 1, s, x * 4, y);
    __syncthreads();
    int i = (y * w + x) * 4;
    out[i + 0] = surf2Dread<int>(s, (x - 2) * 4, y + 1, cudaBoundaryModeClamp);
    out[i + 1] = surf2Dread<int>(s, (x + 3) * 4, y - 1, cudaBoundaryModeZero);
    out[i + 2] = surf2Dread<int>(s, x * 4 + 8, y, cudaBoundaryModeClamp);
    out[i + 3] = surf2Dread<int>(s, x * 4, y);
}

// Out-of-range stores: clamp writes to the nearest element, zero drops the store.
__global__ void store_oob(cudaSurfaceObject_t s)
{
    surf2Dwrite(7000, s, -4, 1, cudaBoundaryModeClamp);
    surf2Dwrite(8000, s, 400, 2, cudaBoundaryModeZero);
    surf2Dwrite(9000, s, 2 * 4, 100, cudaBoundaryModeClamp);
}

__global__ void trap_read(cudaSurfaceObject_t s, int *out)
{
    out[0] = surf2Dread<int>(s, 4000, 0, cudaBoundaryModeTrap);
}

// uchar4 1D surface: 8-bit vector stores and loads, b8 load of a single channel, formatted
// store of floats (sust.p), b16 and b64 accesses of a short4 3D surface, sured and suq.
__global__ void kinds(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t sl,
                      cudaSurfaceObject_t su, unsigned *out)
{
    int x = threadIdx.x;
    surf1Dwrite(make_uchar4(x, x * 2, 255 - x, 7), s1, x * 4);
    __syncthreads();
    uchar4 v = surf1Dread<uchar4>(s1, ((x + 1) % 8) * 4);
    out[x * 8 + 0] = v.x | v.y << 8 | v.z << 16 | v.w << 24;
    unsigned short b;
    asm volatile("suld.b.1d.b8.clamp {%0}, [%1, {%2}];" : "=h"(b) : "l"(s1), "r"(x * 4 + 2));
    out[x * 8 + 1] = b;
    short4 q = make_short4(x, -x, 1000 * x, -7);
    surf3Dwrite(q, s3, x * 8, x % 2, x / 4);
    __syncthreads();
    short4 r = surf3Dread<short4>(s3, ((x + 3) % 8) * 8, (x + 1) % 2, ((x + 3) % 8) / 4);
    out[x * 8 + 2] = (unsigned short)r.x | (unsigned)(unsigned short)r.y << 16;
    out[x * 8 + 3] = (unsigned short)r.z | (unsigned)(unsigned short)r.w << 16;
    unsigned long long l;
    asm volatile("suld.b.3d.b64.zero {%0}, [%1, {%2, %3, %4, %4}];" : "=l"(l) : "l"(s3), "r"(x * 8 - 8), "r"(0), "r"(0));
    out[x * 8 + 4] = (unsigned)(l >> 32) ^ (unsigned)l;
    surf2DLayeredwrite((float)x * 1.5f, sl, (x % 4) * 4, x / 4, x % 2);
    __syncthreads();
    out[x * 8 + 5] = __float_as_uint(surf2DLayeredread<float>(sl, ((x + 2) % 4) * 4, (x + 2) % 8 / 4, (x + 2) % 2));
    __syncthreads();
    if (x < 4) {   // formatted store: floats into an RGBA8 surface
        float f = x * 0.3f - 0.1f;
        asm volatile("sust.p.1d.v4.b32.clamp [%0, {%1}], {%2, %3, %4, %5};"
                     :: "l"(s1), "r"(x * 4), "f"(f), "f"(f * 0.5f), "f"(1.0f - f), "f"(2.0f) : "memory");
    }
    __syncthreads();
    v = surf1Dread<uchar4>(s1, x * 4);
    out[x * 8 + 6] = v.x | v.y << 8 | v.z << 16 | v.w << 24;
    asm volatile("sured.b.add.2d.u32.trap [%0, {%1, %2}], %3;" :: "l"(su), "r"((x % 3) * 4), "r"(0), "r"(x + 1) : "memory");
    __syncthreads();
    unsigned t;
    asm volatile("suld.b.2d.b32.trap {%0}, [%1, {%2, %3}];" : "=r"(t) : "l"(su), "r"((x % 4) * 4), "r"(0));
    int qw, qh, qd;
    asm("suq.width.b32 %0, [%1];" : "=r"(qw) : "l"(s3));
    asm("suq.height.b32 %0, [%1];" : "=r"(qh) : "l"(s3));
    asm("suq.depth.b32 %0, [%1];" : "=r"(qd) : "l"(s3));
    out[x * 8 + 7] = t | qw << 8 | qh << 16 | qd << 24;
}

// Formatted stores (sust.p; x counts elements): thread t stores vector t of four 32-bit words
// into element t of surfaces of four formats; the host prints the bytes.
__global__ void formatted(cudaSurfaceObject_t s8, cudaSurfaceObject_t s16, cudaSurfaceObject_t f32,
                          cudaSurfaceObject_t f16)
{
    const unsigned v[5][4] = { { 0, 1, 127, 128 }, { 255, 256, 0xffffffffu, 1000 },
                               { 0x3f000000, 0x3f800000, 0xbf000000, 0x80000000 },
                               { 0x80000000, 0x7fffffff, 0x40490fdb, 3 },
                               { 0x7fc00000, 0x477fff00, 0xc7000000, 0x3e4ccccd } };
    int t = threadIdx.x;
    cudaSurfaceObject_t s[4] = { s8, s16, f32, f16 };
    for (int k = 0; k < 4; k++)
        asm volatile("sust.p.1d.v4.b32.trap [%0, {%1}], {%2, %3, %4, %5};"
                     :: "l"(s[k]), "r"(t), "r"(v[t][0]), "r"(v[t][1]), "r"(v[t][2]), "r"(v[t][3]) : "memory");
}

static void print_bytes(const char *title, cudaArray_t a, int bytes)
{
    unsigned char h[256];
    cudaMemcpy2DFromArray(h, bytes, a, 0, 0, bytes, 1, cudaMemcpyDeviceToHost);
    printf("%s:", title);
    for (int i = 0; i < bytes; i++) printf("%s%02x", i % 8 ? "" : " ", h[i]);
    printf("\n");
}

static cudaSurfaceObject_t make_surf(cudaArray_t a)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    cudaError_t e = cudaCreateSurfaceObject(&s, &rd);
    if (e != cudaSuccess) printf("cudaCreateSurfaceObject: %s\n", cudaGetErrorName(e));
    return s;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   // lines written before a crash are kept
    int trap = argc > 1 && atoi(argv[1]) == 1;
    const int W = 6, H = 4;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t a;
    printf("array: %s\n", cudaGetErrorName(cudaMallocArray(&a, &cd, W, H, cudaArraySurfaceLoadStore)));
    cudaSurfaceObject_t s = make_surf(a);
    int *d;
    cudaMalloc(&d, W * H * 4 * sizeof(int));
    if (trap) {
        trap_read<<<1, 1>>>(s, d);
        printf("trap: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
        int one;
        printf("after: %s\n", cudaGetErrorName(cudaMemcpy(&one, d, 4, cudaMemcpyDeviceToHost)));
        return 0;
    }
    rw2d<<<1, dim3(W, H)>>>(s, W, H, d);
    printf("rw2d: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int h[W * H * 4];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            printf(" %d/%d/%d/%d", h[(y * W + x) * 4], h[(y * W + x) * 4 + 1], h[(y * W + x) * 4 + 2], h[(y * W + x) * 4 + 3]);
        printf("\n");
    }
    store_oob<<<1, 1>>>(s);
    printf("store_oob: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    int back[W * H];
    cudaMemcpy2DFromArray(back, W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost);
    for (int i = 0; i < W * H; i++) printf(" %d", back[i]);
    printf("\n");

    cudaResourceDesc rd;
    printf("get resource desc: %s", cudaGetErrorName(cudaGetSurfaceObjectResourceDesc(&rd, s)));
    printf(" type %d same %d\n", (int)rd.resType, rd.res.array.array == a);
    printf("destroy: %s\n", cudaGetErrorName(cudaDestroySurfaceObject(s)));

    // A surface over an array made without cudaArraySurfaceLoadStore.
    cudaArray_t plain;
    cudaMallocArray(&plain, &cd, 4, 4);
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = plain;
    cudaSurfaceObject_t bad;
    printf("surface without the flag: %s\n", cudaGetErrorName(cudaCreateSurfaceObject(&bad, &rd)));
    cudaGetLastError();
    rd.resType = cudaResourceTypeLinear;
    printf("surface over linear memory: %s\n", cudaGetErrorName(cudaCreateSurfaceObject(&bad, &rd)));
    cudaGetLastError();
    cudaFreeArray(plain);

    cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
    cudaChannelFormatDesc s4 = cudaCreateChannelDesc<short4>();
    cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
    cudaChannelFormatDesc u1 = cudaCreateChannelDesc<unsigned>();
    cudaArray_t a1, a3, al, au;
    cudaMallocArray(&a1, &c4, 8, 0, cudaArraySurfaceLoadStore);
    cudaMalloc3DArray(&a3, &s4, make_cudaExtent(8, 2, 2), cudaArraySurfaceLoadStore);
    cudaMalloc3DArray(&al, &f1, make_cudaExtent(4, 2, 2), cudaArrayLayered | cudaArraySurfaceLoadStore);
    cudaMallocArray(&au, &u1, 4, 1, cudaArraySurfaceLoadStore);
    unsigned zero[4] = { 10, 20, 30, 40 };
    cudaMemcpy2DToArray(au, 0, 0, zero, 16, 16, 1, cudaMemcpyHostToDevice);
    unsigned *dk, hk[64];
    cudaMalloc(&dk, sizeof hk);
    kinds<<<1, 8>>>(make_surf(a1), make_surf(a3), make_surf(al), make_surf(au), dk);
    printf("kinds: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemcpy(hk, dk, sizeof hk, cudaMemcpyDeviceToHost);
    for (int x = 0; x < 8; x++) {
        for (int k = 0; k < 8; k++) printf(" %08x", hk[x * 8 + k]);
        printf("\n");
    }
    cudaChannelFormatDesc fd[4] = { cudaCreateChannelDesc<uchar4>(), cudaCreateChannelDesc<short4>(),
                                    cudaCreateChannelDesc<float4>(), cudaCreateChannelDescHalf4() };
    cudaArray_t fa[4];
    for (int k = 0; k < 4; k++) {
        cudaMallocArray(&fa[k], &fd[k], 5, 0, cudaArraySurfaceLoadStore);
        unsigned char ff[80];
        memset(ff, 0x11, sizeof ff);
        int eb = (fd[k].x + fd[k].y + fd[k].z + fd[k].w) / 8;
        cudaMemcpy2DToArray(fa[k], 0, 0, ff, 5 * eb, 5 * eb, 1, cudaMemcpyHostToDevice);
    }
    formatted<<<1, 5>>>(make_surf(fa[0]), make_surf(fa[1]), make_surf(fa[2]), make_surf(fa[3]));
    printf("formatted: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    print_bytes("sust.p u8x4", fa[0], 20);
    print_bytes("sust.p s16x4", fa[1], 40);
    print_bytes("sust.p f32x4", fa[2], 80);
    print_bytes("sust.p f16x4", fa[3], 40);
    printf("last error: %s\n", cudaGetErrorName(cudaGetLastError()));
    return 0;
}
