// atom_lane_order.cu - the order in which one warp's float atomicAdds to one address reach
// memory, for RED (the result unused) and ATOM (the result used), read from rounding: block p
// tests the lanes (x, y) = (p / 32, p % 32): its word starts at -2^26, lane x adds 2^26, lane y
// adds 1, the others 0, and the word ends at 1 exactly when x's add came first (else -2^26 + 1
// rounds to -2^26). On the H200 both follow the lanes in ascending order, as ptxemu does
// (HeCBench's sheath scatters particles with such adds; its difference from the GPU is not
// this). The expected output was recorded on an H200 (tests/expected/cuda/RECORDED_ON.txt).
#include <cstdio>
__global__ void red_pairs(float *w)
{
    int p = blockIdx.x, x = p / 32, y = p % 32, l = threadIdx.x;
    float v = l == x ? 67108864.0f : l == y ? 1.0f : 0.0f;
    atomicAdd(&w[p], v);
}
__global__ void atom_rank(float *w, float *rank)
{
    rank[threadIdx.x] = atomicAdd(w, 1.0f);
}
int main()
{
    float *w, *r, h[1024], rk[32];
    cudaMalloc(&w, 1024 * sizeof(float));
    cudaMalloc(&r, 32 * sizeof(float));
    for (int i = 0; i < 1024; i++) h[i] = -67108864.0f;
    cudaMemcpy(w, h, sizeof h, cudaMemcpyHostToDevice);
    red_pairs<<<1024, 32>>>(w);
    cudaMemcpy(h, w, sizeof h, cudaMemcpyDeviceToHost);
    int before[32] = {0}, odd = 0;
    for (int x = 0; x < 32; x++)
        for (int y = 0; y < 32; y++) {
            if (x == y) continue;
            float f = h[x * 32 + y];
            if (f == 1.0f) before[x]++;
            else if (f != 0.0f) odd++;
        }
    printf("red: lanes before how many others (rank from the end):");
    for (int x = 0; x < 32; x++) printf(" %d", before[x]);
    printf("\nred: pairs with neither result: %d\n", odd);
    int both = 0;
    for (int x = 0; x < 32; x++)
        for (int y = x + 1; y < 32; y++)
            both += (h[x * 32 + y] == 1.0f) == (h[y * 32 + x] == 1.0f);
    printf("red: pairs not ordered one way exactly: %d\n", both);
    float z = 0;
    cudaMemcpy(w, &z, 4, cudaMemcpyHostToDevice);
    atom_rank<<<1, 32>>>(w, r);
    cudaMemcpy(rk, r, sizeof rk, cudaMemcpyDeviceToHost);
    printf("atom: old value seen by each lane:");
    for (int i = 0; i < 32; i++) printf(" %g", rk[i]);
    printf("\n");
    return 0;
}
