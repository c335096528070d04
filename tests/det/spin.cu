// spin.cu - loops that poll memory (tests/run_determinism_tests.sh). argv[1]: 0 a flag nobody
// sets (deterministic mode reports the deadlock), 1 a flag another warp sets after a while,
// 2 a long loop that only reads memory but makes progress (neither may be reported), 3 a warp
// that answers a flag after it has stepped aside as a poller, while the warp that set the flag
// waits for the answer in a loop that walks memory (so it never looks like a poll): the
// deterministic scheduler must give the poller a turn again (it once kept the walker on top).
#include <cstdio>
#include <cstdlib>
__global__ void waits(volatile int *flag, int *out, int mode)
{
    if (mode == 0) {               // nobody ever sets the flag
        if (threadIdx.x == 0) while (*flag == 0) { }
    } else if (mode == 1) {        // warp 1 sets it after some work
        if (threadIdx.x == 0) while (*flag == 0) { }
        if (threadIdx.x == 32) { int s = 0; for (int i = 0; i < 100000; i++) s += i % 7; out[1] = s; __threadfence(); *flag = 1; }
    } else if (mode == 3) {
        if (threadIdx.x == 32) { while (flag[0] == 0) { } flag[1] = 1; }
        if (threadIdx.x == 0) {
            int s = 0, i = 0;
            for (int k = 0; k < 2000; k++) s += flag[2 + k % 2];   // the poller steps aside meanwhile
            flag[0] = 1;
            while (flag[1] == 0) s += flag[2 + i++ % 2];
            out[1] = s;
        }
    } else {                       // a long loop that only reads: progress each pass
        int s = 0;
        for (int i = 0; i < 3000000; i++) s += flag[i % 4];
        out[threadIdx.x] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) out[0] = 7;
}
int main(int argc, char **argv)
{
    int mode = atoi(argv[1]);
    int *flag, *out;
    cudaMalloc(&flag, 64); cudaMalloc(&out, 256 * 4);
    cudaMemset(flag, 0, 64);
    waits<<<1, 64>>>(flag, out, mode);
    cudaError_t e = cudaDeviceSynchronize();
    printf("mode %d: %s\n", mode, cudaGetErrorString(e));
    return 0;
}
