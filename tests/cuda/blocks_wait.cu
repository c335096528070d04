// blocks_wait.cu - blocks of a launch that is not cooperative wait for each other, as programs
// do that rely on every block of a small grid being resident at once (ECL's graph codes, work
// queues of persistent kernels): block b spins until block b+1 has published its value, so the
// last block must run before the first ends. On the H100 all 64 blocks are resident together;
// ptxemu's workers take further blocks beside one that keeps running (emu/sched.c).
#include <cstdio>

__global__ void chain(volatile int *flag, int *value, int n)
{
    int b = blockIdx.x;
    __shared__ int got;
    if (threadIdx.x == 0) {
        int next = 0;
        if (b + 1 < n) {
            while (flag[b + 1] == 0) { }   // the block after this one has not published yet
            __threadfence();
            next = value[b + 1];
        }
        got = next;
    }
    __syncthreads();
    // every thread adds its part, so the block's value needs the whole block
    atomicAdd(&value[b], got / (int)blockDim.x + (int)threadIdx.x % 3);
    __syncthreads();
    if (threadIdx.x == 0) {
        value[b] += got % (int)blockDim.x + b;
        __threadfence();
        flag[b] = 1;
    }
}

// a persistent kernel: a few blocks take items from a shared queue until it is empty, and
// the last item's block waits until every other item is done before it adds them up
__global__ void queue(int *next, volatile int *done, int *item, int items, int *total)
{
    __shared__ int mine;
    for (;;) {
        if (threadIdx.x == 0) mine = atomicAdd(next, 1);
        __syncthreads();
        int i = mine;
        __syncthreads();
        if (i >= items) return;
        if (threadIdx.x == 0) {
            if (i == items - 1) {
                while (*done < items - 1) { }   // the others, on other blocks
                __threadfence();
                int s = 0;
                for (int k = 0; k < items - 1; k++) s += item[k];
                *total = s;
            } else {
                item[i] = i * 7 % 13;
                __threadfence();
                atomicAdd((int *)done, 1);
            }
        }
    }
}

int main()
{
    const int n = 64, threads = 128;
    int *flag, *value;
    cudaMalloc(&flag, n * sizeof(int));
    cudaMalloc(&value, n * sizeof(int));
    cudaMemset(flag, 0, n * sizeof(int));
    cudaMemset(value, 0, n * sizeof(int));
    chain<<<n, threads>>>(flag, value, n);
    cudaError_t e = cudaDeviceSynchronize();
    int h[n];
    cudaMemcpy(h, value, sizeof h, cudaMemcpyDeviceToHost);
    printf("chain: %s, value[0] %d value[31] %d value[63] %d\n", cudaGetErrorString(e), h[0], h[31], h[63]);

    const int items = 1000;
    int *next, *done, *item, *total;
    cudaMalloc(&next, sizeof(int));
    cudaMalloc(&done, sizeof(int));
    cudaMalloc(&item, items * sizeof(int));
    cudaMalloc(&total, sizeof(int));
    cudaMemset(next, 0, sizeof(int));
    cudaMemset(done, 0, sizeof(int));
    cudaMemset(total, 0, sizeof(int));
    queue<<<8, 64>>>(next, done, item, items, total);
    e = cudaDeviceSynchronize();
    int t = 0;
    cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost);
    printf("queue: %s, total %d\n", cudaGetErrorString(e), t);
    return 0;
}
