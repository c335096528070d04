// coop_devices.cu - cooperative kernels on two devices that wait for each other through host
// memory, as a multi-device solver does (conjugateGradientMultiDeviceCG): each grid sums its
// half of an array with grid.sync(), publishes the sum and an arrival flag in mapped host
// memory, and waits for the other device's flag before adding the other half. ptxemu must run
// the two launches at the same time. Needs two devices (PTXEMU_DEVICES=2, coop_devices.env);
// the expected output was recorded on two GPUs (tests/expected/cuda/RECORDED_ON.txt).
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("CUDA error %s at line %d\n", cudaGetErrorName(e_), __LINE__); return 1; } } while (0)

struct Shared { volatile int arrived[2]; volatile long long sum[2]; };

__global__ void half_sum(const int *v, int n, int rank, Shared *sh, long long *partial, long long *out)
{
    cg::grid_group grid = cg::this_grid();
    long long s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += v[i];
    atomicAdd((unsigned long long *)partial, (unsigned long long)s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        sh->sum[rank] = *partial;
        __threadfence_system();
        sh->arrived[rank] = 1;
        while (sh->arrived[1 - rank] == 0) {}   // the other device's kernel must be running
        __threadfence_system();
        *out = sh->sum[0] + sh->sum[1];
    }
}

int main()
{
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    if (ndev < 2) { printf("needs two devices\n"); return 2; }
    const int n = 1 << 20;
    Shared *sh;
    CHECK(cudaHostAlloc(&sh, sizeof *sh, cudaHostAllocMapped | cudaHostAllocPortable));
    sh->arrived[0] = sh->arrived[1] = 0;
    sh->sum[0] = sh->sum[1] = 0;
    int *v[2];
    long long *partial[2], *out[2];
    cudaStream_t st[2];
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamCreate(&st[d]));
        int *h = new int[n];
        for (int i = 0; i < n; i++) h[i] = (i * 7 + d * 3) % 1000;
        CHECK(cudaMalloc(&v[d], n * sizeof(int)));
        CHECK(cudaMemcpy(v[d], h, n * sizeof(int), cudaMemcpyHostToDevice));
        delete[] h;
        CHECK(cudaMalloc(&partial[d], sizeof(long long)));
        CHECK(cudaMemset(partial[d], 0, sizeof(long long)));
        CHECK(cudaMalloc(&out[d], sizeof(long long)));
    }
    int sms = 0, per_sm = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, half_sum, 256, 0));
    dim3 grid(sms * per_sm), block(256);
    printf("grid: %d blocks of 256 on each device\n", sms * per_sm);
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        int rank = d;
        void *args[] = { &v[d], (void *)&n, &rank, &sh, &partial[d], &out[d] };
        CHECK(cudaLaunchCooperativeKernel((void *)half_sum, grid, block, args, 0, st[d]));
    }
    for (int d = 0; d < 2; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaStreamSynchronize(st[d]));
        long long r = 0;
        CHECK(cudaMemcpy(&r, out[d], sizeof r, cudaMemcpyDeviceToHost));
        printf("device %d: its half %lld, both halves %lld\n", d, (long long)sh->sum[d], r);
    }
    return 0;
}
