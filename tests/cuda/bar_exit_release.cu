// bar_exit_release.cu - a loop with __syncthreads() inside that threads leave at different
// trip counts and then exit: the barrier waits only for threads that have not exited, so the
// last thread to leave releases the others waiting at it, and they go on with the statement
// after the barrier. On an sm_70+ GPU the barrier counts threads, not warps; the expected
// output was recorded on an H200 (tests/expected/cuda/bar_exit_release.0.out).
// ptxemu once resumed such released lanes one instruction too far when a lane of their own
// warp released them by exiting: the store after the barrier was skipped (HeCBench's wyllie).
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                                     \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
            return 1;                                                                \
        }                                                                            \
    } while (0)

// Thread t counts val[t] down to 0, one step per pass, the barrier between the load and the
// store; turns[t] counts the passes.
__global__ void count_down(int *val, int *turns, int n)
{
    int t = threadIdx.x;
    if (t >= n) return;
    int v;
    while ((v = val[t]) > 0) {
        int next = v - 1;
        __syncthreads();
        val[t] = next;
        turns[t] += 1;
    }
}

// List ranking by pointer jumping: node i holds (successor << 32) | distance to it; each pass
// jumps over the successor until the successor is the last node (successor -1).
__global__ void rank_list(long long *node, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long mine, succ;
    while (((mine = node[i]) >> 32) != -1 && ((succ = node[mine >> 32]) >> 32) != -1) {
        long long d = (mine & 0xffffffffll) + (succ & 0xffffffffll);
        long long jumped = (succ >> 32 << 32) + d;
        __syncthreads();
        node[i] = jumped;
    }
}

static int run_count_down(int threads, int n, int mod)
{
    int *val, *turns;
    CHECK(cudaMallocManaged(&val, n * sizeof(int)));
    CHECK(cudaMallocManaged(&turns, n * sizeof(int)));
    for (int t = 0; t < n; t++) { val[t] = t % mod; turns[t] = 0; }
    count_down<<<1, threads>>>(val, turns, n);
    CHECK(cudaDeviceSynchronize());
    long sum_val = 0, sum_turns = 0, wrong = 0;
    for (int t = 0; t < n; t++) {
        sum_val += val[t];
        sum_turns += turns[t];
        wrong += turns[t] != t % mod;
    }
    printf("count_down threads=%d n=%d mod=%d: left %ld, passes %ld, threads with a wrong count %ld;"
           " turns[0..7] =", threads, n, mod, sum_val, sum_turns, wrong);
    for (int t = 0; t < 8 && t < n; t++) printf(" %d", turns[t]);
    printf("\n");
    CHECK(cudaFree(val));
    CHECK(cudaFree(turns));
    return 0;
}

// order 0: node i's successor is i+1; order 1: a fixed shuffle (stride 7 modulo n, n not a
// multiple of 7). Expected rank: distance to the last node.
static int run_rank(int n, int order)
{
    long long *node;
    int *succ = new int[n], *want = new int[n];
    CHECK(cudaMallocManaged(&node, n * sizeof(long long)));
    int *seq = new int[n];
    for (int k = 0; k < n; k++) seq[k] = order ? (int)((7LL * k) % n) : k;
    for (int k = 0; k < n; k++) {
        succ[seq[k]] = k + 1 < n ? seq[k + 1] : -1;
        want[seq[k]] = n - 1 - k;
    }
    for (int i = 0; i < n; i++)
        node[i] = ((long long)succ[i] << 32) | (unsigned)(succ[i] == -1 ? 0 : 1);
    rank_list<<<(n + 255) / 256, 256>>>(node, n);
    CHECK(cudaDeviceSynchronize());
    int wrong = 0;
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        int r = (int)(node[i] & 0xffffffffll);
        sum += r;
        wrong += r != want[i];
    }
    printf("rank_list n=%d order=%d: rank sum %lld, wrong ranks %d: %s\n", n, order, sum, wrong,
           wrong ? "FAIL" : "PASS");
    CHECK(cudaFree(node));
    delete[] succ;
    delete[] want;
    delete[] seq;
    return 0;
}

int main()
{
    if (run_count_down(32, 5, 5) || run_count_down(32, 32, 7) || run_count_down(64, 64, 9) ||
        run_count_down(256, 200, 13))
        return 1;
    if (run_rank(5, 0) || run_rank(40, 0) || run_rank(200, 0) || run_rank(200, 1) ||
        run_rank(1000, 1))
        return 1;
    return 0;
}
