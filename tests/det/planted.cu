// planted.cu - a planted lost update for `ptxemu race`: warp 0 writes a shared value that
// warp 1 reads without __syncthreads in between, so the printed value depends on which warp
// runs first. tests/run_determinism_tests.sh checks that exploration finds a seed where the
// output differs, within a bounded number of seeds, and prints a replay command for it.
#include <cstdio>
__global__ void planted(int *out)
{
    __shared__ int s;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    if (threadIdx.x == 0) s = s + 1;           // warp 0
    if (threadIdx.x == 32) s = s + 10;         // warp 1: races with warp 0's update
    __syncthreads();
    if (threadIdx.x == 0) *out = s;
}
int main()
{
    int *d, h = -1;
    cudaMalloc(&d, 4);
    planted<<<1, 64>>>(d);
    cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
    printf("s = %d\n", h);
    return 0;
}
