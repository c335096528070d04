// race.cu - kernels whose results depend on the interleaving of warps: the order in which
// threads win an atomicAdd, and a lost update. Used by tests/run_determinism_tests.sh: in
// deterministic mode the same seed must give the same output, different seeds different
// interleavings, and a recorded schedule must replay exactly.
#include <cstdio>
__global__ void order(int *ctr, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = atomicAdd(ctr, 1);
}
__global__ void lost(int *c) { int v = *c; __nanosleep(1); *c = v + 1; }
int main() {
  int *ctr, *out; cudaMalloc(&ctr, 8); cudaMalloc(&out, 4096 * 4); cudaMemset(ctr, 0, 8);
  order<<<8, 128>>>(ctr, out);
  int h[1024]; cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  unsigned long long hash = 1469598103934665603ull;
  for (int i = 0; i < 1024; i++) hash = (hash ^ h[i]) * 1099511628211ull;
  printf("order hash %016llx first %d %d %d\n", hash, h[0], h[128], h[1023]);
  cudaMemset(ctr, 0, 8);
  lost<<<4, 64>>>(ctr + 1);
  int c; cudaMemcpy(&c, ctr + 1, 4, cudaMemcpyDeviceToHost);
  printf("lost update: %d of 256\n", c);
}
