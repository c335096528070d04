// printf_fifo_probe.cu - how many device printf lines the GPU's printf buffer holds.
// Usage: printf_fifo_probe KIND FIFO BLOCKS [LAUNCHES]
//   KIND: 0 no argument, 1/2/4/8 that many ints, d one double, s one %s of a 20-character
//         string, L one int with a 100-character format, l one long long, c 8 chars (%c)
//   FIFO: bytes for cudaLimitPrintfFifoSize (0: leave the default)
//   BLOCKS: blocks of 256 threads, every thread prints one line
//   LAUNCHES: kernels launched back to back before one cudaDeviceSynchronize (default 1)
// Every kernel line starts with "P"; the host prints "H ..." lines. The recording script
// counts the P lines (tests/gpu/record_warp_edges.sh).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void say(int kind)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    switch (kind) {
    case 0: printf("P\n"); break;
    case 1: printf("P %d\n", i); break;
    case 2: printf("P %d %d\n", i, 2); break;
    case 4: printf("P %d %d %d %d\n", i, 2, 3, 4); break;
    case 8: printf("P %d %d %d %d %d %d %d %d\n", i, 2, 3, 4, 5, 6, 7, 8); break;
    case 'd': printf("P %f\n", (double)i); break;
    case 's': printf("P %s %d\n", "abcdefghijklmnopqrst", i); break;
    case 'L': printf("P %d ............................................................................................\n", i); break;
    case 'l': printf("P %lld\n", (long long)i); break;
    case 'c': printf("P %c%c%c%c%c%c%c%c\n", 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'); break;
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    int kind = argv[1][0] >= '0' && argv[1][0] <= '9' ? atoi(argv[1]) : argv[1][0];
    size_t fifo = strtoull(argv[2], NULL, 0);
    int blocks = atoi(argv[3]), launches = argc > 4 ? atoi(argv[4]) : 1;
    size_t before = 0, after = 0;
    cudaDeviceGetLimit(&before, cudaLimitPrintfFifoSize);
    cudaError_t set = cudaSuccess;
    if (fifo) set = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo);
    cudaDeviceGetLimit(&after, cudaLimitPrintfFifoSize);
    fprintf(stderr, "H default %zu set %s now %zu\n", before, cudaGetErrorName(set), after);
    for (int k = 0; k < launches; k++) say<<<blocks, 256>>>(kind);
    cudaError_t e = cudaDeviceSynchronize();
    cudaError_t late = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20);
    fprintf(stderr, "H sync %s; setting the limit after a launch: %s\n", cudaGetErrorName(e), cudaGetErrorName(late));
    return 0;
}
