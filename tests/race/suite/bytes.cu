// bytes.cu - race-detector suite: byte-granular copies (tests/run_race_suite.sh). A memcpy of
// char data is a loop of byte stores; when slots overlap, two lanes of one warp write one byte
// at different instructions, which independent thread scheduling leaves unordered unless a
// __syncwarp or a barrier comes between. argv[1] picks the case. Labels:
//@ 0 race write-after-write memcpy of 5 bytes into 4-byte slots of global memory: lane t's 5th byte is lane t+1's 1st
//@ 1 free - memcpy of 4 bytes into 4-byte slots of global memory
//@ 2 race write-after-write memcpy of 5 bytes into 4-byte slots of shared memory
//@ 3 free - 4 bytes into the own slot, __syncwarp, then the 5th into the next slot
//@ 4 race write-after-write 3-byte copies 2 bytes apart from an odd address: neighbours share a byte
//@ 5 free - 3-byte copies 3 bytes apart from an odd address: slots share words, not bytes
//@ 6 race write-after-write structs of three shorts: each thread also zeroes the next struct's first field
//@ 7 free - structs of three shorts: each thread writes its own fields (neighbours share words)
//@ 8 race read-after-write a lane writes one byte past its slot, the next lane reads its slot's first byte
//@ 9 free - the same with __syncwarp between the write and the read
//@ 10 race any two warps copy 33 bytes each into one 64-byte buffer of shared memory, overlapping by one
//@ 11 free - two warps copy 32 bytes each into their halves of the buffer, __syncthreads, read back
#include <cstdio>
#include <cstdlib>
#include <cstring>

struct S4 { char b[4]; };
struct Sh { short a, b, c; };

__global__ void copy_global(S4 *out, const S4 *in, int n)
{
    int t = threadIdx.x;
    memcpy(&out[t], &in[t], n);
}
__global__ void copy_shared(const S4 *in, int *res)
{
    __shared__ S4 s[33];
    int t = threadIdx.x;
    memcpy(&s[t], &in[t], 5);
    __syncthreads();
    res[t] = s[t].b[0];
}
__global__ void copy_synced(S4 *out, const S4 *in)
{
    int t = threadIdx.x;
    memcpy(&out[t], &in[t], 4);
    __syncwarp();
    ((char *)out)[4 * t + 4] = in[t + 1].b[0];
}
__global__ void odd_copy(char *out, const char *in, int stride)
{
    int t = threadIdx.x;
    memcpy(out + 1 + stride * t, in + 3 * t, 3);
}
__global__ void shorts(Sh *p, int race)
{
    int t = threadIdx.x;
    p[t].a = (short)t;
    p[t].b = (short)(t + 1);
    p[t].c = (short)(t + 2);
    if (race) p[t + 1].a = 0;
}
__global__ void past_then_read(char *buf, int *res, int sync)
{
    int t = threadIdx.x;
    buf[4 * t + 4] = (char)t;
    if (sync) __syncwarp();
    res[t] = buf[4 * t];
}
__global__ void two_warps(const char *in, int *res, int overlap)
{
    __shared__ char s[66];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    if (l == 0) memcpy(s + 32 * w, in + 40 * w, overlap ? 33 : 32);
    __syncthreads();
    res[threadIdx.x] = s[threadIdx.x];
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    char *a, *b;
    int *res;
    cudaMalloc(&a, 4096); cudaMalloc(&b, 4096); cudaMalloc(&res, 4096);
    cudaMemset(a, 0, 4096); cudaMemset(b, 7, 4096);
    switch (c) {
    case 0: case 1: copy_global<<<1, 32>>>((S4 *)a, (const S4 *)b, c ? 4 : 5); break;
    case 2: copy_shared<<<1, 32>>>((const S4 *)b, res); break;
    case 3: copy_synced<<<1, 32>>>((S4 *)a, (const S4 *)b); break;
    case 4: case 5: odd_copy<<<1, 32>>>(a, b, c == 4 ? 2 : 3); break;
    case 6: case 7: shorts<<<1, 32>>>((Sh *)a, c == 6); break;
    case 8: case 9: past_then_read<<<1, 32>>>(a, res, c == 9); break;
    case 10: case 11: two_warps<<<1, 64>>>(b, res, c == 10); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
