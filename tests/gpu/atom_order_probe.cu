// atom_order_probe.cu - the order in which the warps of a grid add floats to one address, on
// sheath's step-0 scatter (HeCBench, issue 26): 500000 particles at x = p * 0.01 / 500000, 1954
// blocks of 256 threads, each thread adding 1 - di to cell i and di to cell i + 1 (i and di from
// x / 1e-4), 5000 particles a cell. RED (the result unused, as sheath) four times: each
// launch's 101 sums and their hash; ATOM (the old values kept) three times: the sums and the
// hashes of the old values, the first launch's old values to DIR/atom_old.bin (the order of
// arrival in each cell is the order of the old values); one add of 1.0f per thread to cell
// p / 5000 three times: the hash of the values each thread saw, the first to DIR/rank.bin.
// Recorded on an H200 by tests/gpu/record_atom_order.sh (tests/gpu/atom_order_h200.txt): every
// launch gave different sums. Under ptxemu with one worker every launch gives the same.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#define N 500000
#define NI 101
struct Particle { double x, v; bool alive; };
__device__ void scatter_red(double lc, float value, float *field) {
  int i = (int)lc; float di = lc - i;
  atomicAdd(&field[i], value * (1 - di));
  atomicAdd(&field[i + 1], value * di); }
__global__ void k_red(const Particle *__restrict pa, float *__restrict den, long n) {
  long p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n && pa[p].alive) scatter_red(pa[p].x / 1e-4, 1.f, den); }
__global__ void k_atom(const Particle *__restrict pa, float *__restrict den, long n, float *o1, float *o2) {
  long p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n && pa[p].alive) { double lc = pa[p].x / 1e-4; int i = (int)lc; float di = lc - i;
    o1[p] = atomicAdd(&den[i], 1.f * (1 - di)); o2[p] = atomicAdd(&den[i + 1], 1.f * di); } }
__global__ void k_rank(float *cnt, float *rk, long n) {  /* one add per thread, cell = p / 5000 */
  long p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) rk[p] = atomicAdd(&cnt[p / 5000], 1.0f); }
static uint64_t h64(const void *p, size_t n) { const unsigned char *c = (const unsigned char *)p;
  uint64_t h = 1469598103934665603ULL; for (size_t i = 0; i < n; i++) { h ^= c[i]; h *= 1099511628211ULL; } return h; }
int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  static Particle hp[N];
  double delta = (100 * 1e-4) / N;
  for (int p = 0; p < N; p++) { hp[p].x = 0 + p * delta; hp[p].v = 0; hp[p].alive = true; }
  Particle *dp; float *den, *o1, *o2, *rk;
  cudaMalloc(&dp, sizeof hp); cudaMalloc(&den, NI * 4); cudaMalloc(&o1, N * 4); cudaMalloc(&o2, N * 4); cudaMalloc(&rk, N * 4);
  cudaMemcpy(dp, hp, sizeof hp, cudaMemcpyHostToDevice);
  int nb = 1 + N / 256; float h[NI]; static float b1[N], b2[N];
  for (int r = 0; r < 4; r++) {
    cudaMemset(den, 0, NI * 4); k_red<<<nb, 256>>>(dp, den, N); cudaMemcpy(h, den, sizeof h, cudaMemcpyDeviceToHost);
    printf("red %d %016llx", r, (unsigned long long)h64(h, sizeof h));
    for (int i = 0; i < NI; i++) { unsigned u; memcpy(&u, &h[i], 4); printf(" %08x", u); } printf("\n");
  }
  for (int r = 0; r < 3; r++) {
    cudaMemset(den, 0, NI * 4); k_atom<<<nb, 256>>>(dp, den, N, o1, o2); cudaMemcpy(h, den, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(b1, o1, N * 4, cudaMemcpyDeviceToHost); cudaMemcpy(b2, o2, N * 4, cudaMemcpyDeviceToHost);
    printf("atom %d %016llx o %016llx %016llx", r, (unsigned long long)h64(h, sizeof h), (unsigned long long)h64(b1, sizeof b1), (unsigned long long)h64(b2, sizeof b2));
    for (int i = 0; i < NI; i++) { unsigned u; memcpy(&u, &h[i], 4); printf(" %08x", u); } printf("\n");
    if (r == 0) { char f[512]; snprintf(f, sizeof f, "%s/atom_old.bin", dir); FILE *o = fopen(f, "wb"); fwrite(b1, 4, N, o); fwrite(b2, 4, N, o); fclose(o); }
  }
  for (int r = 0; r < 3; r++) {
    cudaMemset(den, 0, NI * 4); k_rank<<<nb, 256>>>(den, rk, N); cudaMemcpy(b1, rk, N * 4, cudaMemcpyDeviceToHost);
    printf("rank %d %016llx\n", r, (unsigned long long)h64(b1, sizeof b1));
    if (r == 0) { char f[512]; snprintf(f, sizeof f, "%s/rank.bin", dir); FILE *o = fopen(f, "wb"); fwrite(b1, 4, N, o); fclose(o); }
  }
  cudaError_t e = cudaDeviceSynchronize(); printf("%s\n", cudaGetErrorString(e));
  return 0; }
