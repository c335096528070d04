// stencil.cu - race-detector suite: stencils and in-place updates: neighbouring cells and rows,
// halos, Jacobi against Gauss-Seidel, red-black ordering, wavefronts (tests/run_race_suite.sh).
// 1D arrays have 256 points (4 blocks of 64 unless said). argv[1] picks the case. Labels:
//@ 0 race any 1D 3-point stencil updated in place across the grid
//@ 1 free - 1D 3-point stencil out of place (Jacobi)
//@ 2 race any 16x16 shared tile smoothed in place while neighbours read it
//@ 3 free - 16x16 shared tile: new values in registers, __syncthreads, then written back
//@ 4 race any halo cells loaded by another warp after the __syncthreads
//@ 5 free - halo cells loaded before the __syncthreads
//@ 6 race any 2D tiles written back in place while neighbouring blocks read them as halos
//@ 7 free - 2D tiles written to a second array
//@ 8 race any red-black Gauss-Seidel: both colours in one launch across blocks
//@ 9 free - red-black Gauss-Seidel: one launch per colour
//@ 10 free - red-black Gauss-Seidel in one block with __syncthreads between the colours
//@ 11 race any red-black Gauss-Seidel in one block without a barrier between the colours
//@ 12 race any several time steps in one launch with only __syncthreads between them (4 blocks)
//@ 13 free - several time steps in one block, ping-pong buffers and __syncthreads
//@ 14 race any several time steps in one block, ping-pong buffers without a barrier
//@ 15 free - one launch per time step, buffers swapped on the host
//@ 16 race any Gauss-Seidel wavefront over anti-diagonals without a barrier per diagonal
//@ 17 free - Gauss-Seidel wavefront with __syncthreads per diagonal
//@ 18 race any block writes the ghost cell into the next block's first cell, which that block updates
//@ 19 free - ghost values go to a separate array, consumed by a second launch
//@ 20 race any row-by-row convolution reusing the shared tile without a trailing barrier
//@ 21 free - row-by-row convolution with a trailing barrier
//@ 22 free - read-only input, each thread writes its own output (convolution from global memory)
//@ 23 free - overlapped tiling: two fused steps with redundant halos, no inter-block reads of new data
#include <cstdio>
#include <cstdlib>

#define NP 256

__global__ void st_inplace(float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < NP - 1) a[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0f;
}

__global__ void st_jacobi(const float *a, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    b[i] = i > 0 && i < NP - 1 ? (a[i - 1] + a[i] + a[i + 1]) / 3.0f : a[i];
}

template <bool FIX>
__global__ void tile_smooth(const float *in, float *out)
{
    __shared__ float s[16][16];
    int x = threadIdx.x, y = threadIdx.y;
    s[y][x] = in[y * 16 + x];
    __syncthreads();
    float v = s[y][x];
    if (x > 0 && x < 15 && y > 0 && y < 15)
        v = 0.25f * (s[y - 1][x] + s[y + 1][x] + s[y][x - 1] + s[y][x + 1]);
    if (FIX) __syncthreads();
    s[y][x] = v;
    __syncthreads();
    out[y * 16 + x] = s[y][x] + s[(y + 1) % 16][x];
}

template <bool FIX>
__global__ void halo(const float *in, float *out)
{
    __shared__ float s[66];
    int t = threadIdx.x, g = blockIdx.x * 64 + t;
    s[t + 1] = in[g];
    /* the left halo is loaded by warp 1, the right one by warp 0: each is read by the other warp */
    if (FIX) {
        if (t == 32) s[0] = in[(blockIdx.x * 64 + NP - 1) % NP];
        if (t == 0) s[65] = in[(blockIdx.x * 64 + 64) % NP];
    }
    __syncthreads();
    if (!FIX) {
        if (t == 32) s[0] = in[(blockIdx.x * 64 + NP - 1) % NP];
        if (t == 0) s[65] = in[(blockIdx.x * 64 + 64) % NP];
    }
    out[g] = s[t] + s[t + 1] + s[t + 2];
}

/* 32x32 grid, 2x2 blocks of 16x16; a block stages its tile and a 1-cell halo in shared memory */
__global__ void tiles2d(const float *in, float *out)
{
    __shared__ float s[18][18];
    int x = threadIdx.x, y = threadIdx.y;
    int gx = blockIdx.x * 16 + x, gy = blockIdx.y * 16 + y;
    s[y + 1][x + 1] = in[gy * 32 + gx];
    if (x == 0) s[y + 1][0] = gx > 0 ? in[gy * 32 + gx - 1] : 0.f;
    if (x == 15) s[y + 1][17] = gx < 31 ? in[gy * 32 + gx + 1] : 0.f;
    if (y == 0) s[0][x + 1] = gy > 0 ? in[(gy - 1) * 32 + gx] : 0.f;
    if (y == 15) s[17][x + 1] = gy < 31 ? in[(gy + 1) * 32 + gx] : 0.f;
    __syncthreads();
    out[gy * 32 + gx] = 0.2f * (s[y + 1][x + 1] + s[y][x + 1] + s[y + 2][x + 1] + s[y + 1][x] + s[y + 1][x + 2]);
}

/* colour -1: both colours, one after the other, in one launch */
__global__ void redblack(int colour, float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int c = 0; c < 2; c++) {
        if (colour >= 0 && c != colour) continue;
        if (i > 0 && i < NP - 1 && (i & 1) == c) a[i] = 0.5f * (a[i - 1] + a[i + 1]);
    }
}

template <bool FIX>
__global__ void redblack_block(float *a)
{
    int i = threadIdx.x;
    for (int c = 0; c < 2; c++) {
        if (i > 0 && i < NP - 1 && (i & 1) == c) a[i] = 0.5f * (a[i - 1] + a[i + 1]);
        if (FIX) __syncthreads();
    }
}

/* time steps with ping-pong buffers a and b (periodic) */
template <bool FIX>
__global__ void steps(float *a, float *b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    for (int s = 0; s < 4; s++) {
        const float *src = s & 1 ? b : a;
        float *dst = s & 1 ? a : b;
        dst[i] = 0.5f * (src[(i + n - 1) % n] + src[(i + 1) % n]);
        if (FIX) __syncthreads();
    }
}

__global__ void one_step(const float *src, float *dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    dst[i] = 0.5f * (src[(i + n - 1) % n] + src[(i + 1) % n]);
}

template <bool FIX>
__global__ void wavefront(float *out)
{
    __shared__ float g[16][16];
    int x = threadIdx.x, y = threadIdx.y;
    g[y][x] = x == 0 || y == 0 ? 1.f : 0.f;
    __syncthreads();
    for (int d = 2; d <= 30; d++) {
        if (x + y == d && x > 0 && y > 0) g[y][x] = g[y - 1][x] + g[y][x - 1];
        if (FIX) __syncthreads();
    }
    __syncthreads();
    out[y * 16 + x] = g[y][x];
}

__global__ void ghost_inplace(float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x;
    a[i] += 1.f;
    __syncthreads();
    if (t == 63 && blockIdx.x + 1 < gridDim.x) a[i + 1] = a[i] * 0.5f;
}

__global__ void ghost_out(float *a, float *ghosts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, t = threadIdx.x;
    a[i] += 1.f;
    if (t == 63) ghosts[blockIdx.x] = a[i] * 0.5f;
}

__global__ void ghost_in(float *a, const float *ghosts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0 && blockIdx.x > 0) a[i] += ghosts[blockIdx.x - 1];
}

template <bool FIX>
__global__ void conv_rows(const float *in, float *out)
{
    __shared__ float s[66];
    int t = threadIdx.x;
    for (int row = 0; row < 4; row++) {
        s[t + 1] = in[row * 64 + t];
        if (t == 0) s[0] = s[65] = 0.f;
        __syncthreads();
        out[row * 64 + t] = (s[t] + s[t + 1] + s[t + 2]) / 3.0f;
        if (FIX) __syncthreads();
    }
}

__global__ void conv_global(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float l = i > 0 ? in[i - 1] : 0.f, r = i < NP - 1 ? in[i + 1] : 0.f;
    out[i] = 0.25f * (l + 2.f * in[i] + r);
}

__global__ void fused2(const float *in, float *out)
{
    __shared__ float s0[68], s1[66];
    int t = threadIdx.x, base = blockIdx.x * 64;
    s0[t + 2] = in[base + t];
    if (t < 2) s0[t] = in[(base + NP - 2 + t) % NP];
    if (t >= 62) s0[t + 4] = in[(base + t + 2) % NP];
    __syncthreads();
    s1[t + 1] = 0.5f * (s0[t + 1] + s0[t + 3]);
    if (t == 0) s1[0] = 0.5f * (s0[0] + s0[2]);
    if (t == 63) s1[65] = 0.5f * (s0[65] + s0[67]);
    __syncthreads();
    out[base + t] = 0.5f * (s1[t] + s1[t + 2]);
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    float *a, *b, *g, h[1024];
    for (int i = 0; i < 1024; i++) h[i] = (float)((i * 37) % 101);
    cudaMalloc(&a, sizeof h);
    cudaMalloc(&b, sizeof h);
    cudaMalloc(&g, sizeof h);
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(b, 0, sizeof h);
    cudaMemset(g, 0, sizeof h);
    switch (c) {
    case 0: st_inplace<<<4, 64>>>(a); break;
    case 1: st_jacobi<<<4, 64>>>(a, b); break;
    case 2: tile_smooth<false><<<1, dim3(16, 16)>>>(a, b); break;
    case 3: tile_smooth<true><<<1, dim3(16, 16)>>>(a, b); break;
    case 4: halo<false><<<4, 64>>>(a, b); break;
    case 5: halo<true><<<4, 64>>>(a, b); break;
    case 6: tiles2d<<<dim3(2, 2), dim3(16, 16)>>>(a, a); break;
    case 7: tiles2d<<<dim3(2, 2), dim3(16, 16)>>>(a, b); break;
    case 8: redblack<<<4, 64>>>(-1, a); break;
    case 9: redblack<<<4, 64>>>(0, a); redblack<<<4, 64>>>(1, a); break;
    case 10: redblack_block<true><<<1, NP>>>(a); break;
    case 11: redblack_block<false><<<1, NP>>>(a); break;
    case 12: steps<true><<<4, 64>>>(a, b); break;
    case 13: steps<true><<<1, NP>>>(a, b); break;
    case 14: steps<false><<<1, NP>>>(a, b); break;
    case 15:
        for (int s = 0; s < 4; s++) one_step<<<4, 64>>>(s & 1 ? b : a, s & 1 ? a : b);
        break;
    case 16: wavefront<false><<<1, dim3(16, 16)>>>(b); break;
    case 17: wavefront<true><<<1, dim3(16, 16)>>>(b); break;
    case 18: ghost_inplace<<<4, 64>>>(a); break;
    case 19: ghost_out<<<4, 64>>>(a, g); ghost_in<<<4, 64>>>(a, g); break;
    case 20: conv_rows<false><<<1, 64>>>(a, b); break;
    case 21: conv_rows<true><<<1, 64>>>(a, b); break;
    case 22: conv_global<<<4, 64>>>(a, b); break;
    case 23: fused2<<<4, 64>>>(a, b); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
