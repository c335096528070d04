// graph.cu - race-detector suite: graph algorithms on a small symmetric graph (256 vertices,
// degree 6, CSR) (tests/run_race_suite.sh). Iterative algorithms run several launches in one
// stream: launches are ordered, the races are within a launch. argv[1] picks the case. Labels:
//@ 0 race any vertex-centric BFS: plain reads and writes of level[] of neighbours
//@ 1 free - queue BFS: levels claimed with atomicCAS only, next frontier appended with atomicAdd
//@ 2 race any queue BFS: plain pre-check 'if (level[u] == -1)' before atomicCAS
//@ 3 free - queue BFS: relaxed atomic pre-check before atomicCAS
//@ 4 race any SSSP relaxation: 'if (dist[u] > nd) atomicMin(&dist[u], nd)' with plain reads
//@ 5 free - SSSP relaxation: relaxed atomic loads, then atomicMin
//@ 6 free - SSSP Jacobi style: read last launch's copy, atomicMin into the new array
//@ 7 race any label propagation with plain reads and writes of labels
//@ 8 free - label propagation with relaxed atomic loads, atomicMin and atomicOr on the changed flag
//@ 9 race write-after-write label propagation: changed flag set with a plain store by many threads
//@ 10 free - label propagation: changed flag set with volatile stores
//@ 11 race any pointer jumping in place: parent[v] = parent[parent[v]]
//@ 12 free - pointer jumping between two arrays
//@ 13 race any degree count with plain ++
//@ 14 free - degree count with atomicAdd
//@ 15 race any frontier compaction with a plain read-increment of the tail
//@ 16 free - frontier compaction with atomicAdd on the tail
//@ 17 race any PageRank pull updated in place
//@ 18 free - PageRank pull into a second array
//@ 19 race any shared-memory relaxation: plain 'if (d[u] > x)' then atomicMin
//@ 20 free - shared-memory relaxation: volatile read then atomicMin
//@ 21 free - warp-shuffle minimum, then one atomicMin per warp
//@ 22 race any greedy colouring in place: reads neighbours' colours while they change
//@ 23 free - greedy colouring reading last round's colours
//@ 24 race any visited bytes: plain 'if (!visited[u]) visited[u] = 1' on neighbours
//@ 25 free - visited bytes: each thread writes only its own vertex's byte (bytes of one word)
#include <cstdio>
#include <cstdlib>
#include <cuda/atomic>

#define NV 256
#define DEG 6
#define INF 0x3fffffff
typedef cuda::atomic_ref<int, cuda::thread_scope_device> dref;

__device__ __forceinline__ int ld_relaxed(int *p) { return dref(*p).load(cuda::memory_order_relaxed); }

__global__ void bfs_plain(int *level, const int *rp, const int *col, int cur)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (level[v] != cur) return;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e];
        if (level[u] == -1) level[u] = cur + 1;
    }
}

template <int MODE>
__global__ void bfs_queue(int *level, const int *rp, const int *col, const int *front, int nfront,
                          int *next, int *nnext, int cur)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nfront) return;
    int v = front[i];
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e];
        bool claim;
        if (MODE == 0) claim = atomicCAS(&level[u], -1, cur + 1) == -1;
        else if (MODE == 1) claim = level[u] == -1 && atomicCAS(&level[u], -1, cur + 1) == -1;
        else claim = ld_relaxed(&level[u]) == -1 && atomicCAS(&level[u], -1, cur + 1) == -1;
        if (claim) next[atomicAdd(nnext, 1)] = u;
    }
}

template <bool FIX>
__global__ void sssp(int *dist, const int *rp, const int *col, const int *w)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int dv = FIX ? ld_relaxed(&dist[v]) : dist[v];
    if (dv >= INF) return;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e], nd = dv + w[e];
        if (FIX ? nd < ld_relaxed(&dist[u]) : nd < dist[u]) atomicMin(&dist[u], nd);
    }
}

__global__ void sssp_jacobi(const int *old, int *dist, const int *rp, const int *col, const int *w)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int dv = old[v];
    if (dv >= INF) return;
    for (int e = rp[v]; e < rp[v + 1]; e++) atomicMin(&dist[col[e]], dv + w[e]);
}

__global__ void copy(const int *a, int *b)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    b[v] = a[v];
}

/* MODE 0: plain; 1: atomics; 2: atomics but plain changed flag; 3: volatile changed flag */
template <int MODE>
__global__ void labelprop(int *label, const int *rp, const int *col, int *changed)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e];
        if (MODE == 0) {
            if (label[u] < label[v]) label[v] = label[u];
        } else {
            int lu = ld_relaxed(&label[u]);
            if (lu < ld_relaxed(&label[v])) {
                atomicMin(&label[v], lu);
                if (MODE == 1) atomicOr(changed, 1);
                else if (MODE == 2) *changed = 1;
                else *(volatile int *)changed = 1;
            }
        }
    }
}

__global__ void jump(int *parent)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    parent[v] = parent[parent[v]];
}

__global__ void jump2(const int *pin, int *pout)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    pout[v] = pin[pin[v]];
}

template <bool FIX>
__global__ void degree(const int *rp, const int *col, int *deg)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        if (FIX) atomicAdd(&deg[col[e]], 1);
        else deg[col[e]]++;
    }
}

template <bool FIX>
__global__ void compact(const int *key, int *list, int *count)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (key[v] % 3 != 0) return;
    if (FIX) list[atomicAdd(count, 1)] = v;
    else {
        int p = *count;
        list[p] = v;
        *count = p + 1;
    }
}

__global__ void pagerank(const float *rin, float *rout, const int *rp, const int *col)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.f;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e];
        s += rin[u] / (float)(rp[u + 1] - rp[u]);
    }
    rout[v] = 0.15f / NV + 0.85f * s;
}

template <bool FIX>
__global__ void local_relax(int *out)
{
    __shared__ int sd[NV];
    volatile int *vd = sd;
    int t = threadIdx.x;
    sd[t] = t == 0 ? 0 : INF;
    __syncthreads();
    for (int r = 0; r < 4; r++) {
        int dv = FIX ? vd[t] : sd[t];
        if (dv < INF) {
            int nb[2] = {(t + 1) % NV, (t + 17) % NV};
            for (int k = 0; k < 2; k++) {
                int u = nb[k], x = dv + 1 + k;
                if (FIX ? vd[u] > x : sd[u] > x) atomicMin(&sd[u], x);
            }
        }
        __syncthreads();
    }
    out[t] = sd[t];
}

__global__ void warp_min(const int *vals, int *best)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    int x = vals[v];
    for (int o = 16; o > 0; o >>= 1) x = min(x, __shfl_xor_sync(0xffffffffu, x, o));
    if (threadIdx.x % 32 == 0) atomicMin(best, x);
}

__global__ void colour(const int *cin, int *cout, const int *rp, const int *col)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned used = 0;
    for (int e = rp[v]; e < rp[v + 1]; e++)
        if (col[e] < v) used |= 1u << (cin[col[e]] & 31);
    cout[v] = __ffs(~used) - 1;
}

__global__ void visit(char *visited, const int *rp, const int *col)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    for (int e = rp[v]; e < rp[v + 1]; e++) {
        int u = col[e];
        if (!visited[u]) visited[u] = 1;
    }
}

__global__ void visit_own(char *visited, const int *level, int *out)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    visited[v] = level[v] % 2 == 0;
    out[v] = visited[v] + 1;
}

static int *dev(const int *h, int n)
{
    int *d;
    cudaMalloc(&d, n * sizeof(int));
    cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
    return d;
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    static int rp[NV + 1], col[NV * DEG], w[NV * DEG], h[NV];
    for (int v = 0; v < NV; v++) {
        int nb[DEG] = {(v + 1) % NV, (v + NV - 1) % NV, v ^ 5, (v + 17) % NV, (v + NV - 17) % NV, v ^ 64};
        rp[v] = v * DEG;
        for (int k = 0; k < DEG; k++) {
            col[v * DEG + k] = nb[k];
            w[v * DEG + k] = (v + nb[k]) % 5 + 1;
        }
    }
    rp[NV] = NV * DEG;
    int *drp = dev(rp, NV + 1), *dcol = dev(col, NV * DEG), *dw = dev(w, NV * DEG);
    int *a, *b, *f, *cnt;
    cudaMalloc(&a, 4 * NV * sizeof(int));
    cudaMalloc(&b, 4 * NV * sizeof(int));
    cudaMalloc(&f, 4 * NV * sizeof(int));
    cudaMalloc(&cnt, 64);
    cudaMemset(b, 0, 4 * NV * sizeof(int));
    cudaMemset(f, 0, 4 * NV * sizeof(int));
    cudaMemset(cnt, 0, 64);
    switch (c) {
    case 0:
        for (int v = 0; v < NV; v++) h[v] = v == 0 ? 0 : -1;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        for (int cur = 0; cur < 3; cur++) bfs_plain<<<2, 128>>>(a, drp, dcol, cur);
        break;
    case 1: case 2: case 3: {
        for (int v = 0; v < NV; v++) h[v] = v == 0 ? 0 : -1;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        int *front = f, *next = f + NV, n = 1, zero = 0;
        cudaMemcpy(front, &zero, sizeof zero, cudaMemcpyHostToDevice);
        for (int cur = 0; cur < 3 && n > 0; cur++) {
            cudaMemset(cnt, 0, 4);
            int blocks = (n + 127) / 128;
            if (c == 1) bfs_queue<0><<<blocks, 128>>>(a, drp, dcol, front, n, next, cnt, cur);
            if (c == 2) bfs_queue<1><<<blocks, 128>>>(a, drp, dcol, front, n, next, cnt, cur);
            if (c == 3) bfs_queue<2><<<blocks, 128>>>(a, drp, dcol, front, n, next, cnt, cur);
            cudaMemcpy(&n, cnt, 4, cudaMemcpyDeviceToHost);
            int *t = front; front = next; next = t;
        }
        break;
    }
    case 4: case 5: case 6:
        for (int v = 0; v < NV; v++) h[v] = v == 0 ? 0 : INF;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
        for (int it = 0; it < 4; it++) {
            if (c == 4) sssp<false><<<2, 128>>>(a, drp, dcol, dw);
            if (c == 5) sssp<true><<<2, 128>>>(a, drp, dcol, dw);
            if (c == 6) {
                sssp_jacobi<<<2, 128>>>(b, a, drp, dcol, dw);
                copy<<<2, 128>>>(a, b);
            }
        }
        break;
    case 7: case 8: case 9: case 10:
        for (int v = 0; v < NV; v++) h[v] = (v * 37) % NV;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        for (int it = 0; it < 3; it++) {
            if (c == 7) labelprop<0><<<2, 128>>>(a, drp, dcol, cnt);
            if (c == 8) labelprop<1><<<2, 128>>>(a, drp, dcol, cnt);
            if (c == 9) labelprop<2><<<2, 128>>>(a, drp, dcol, cnt);
            if (c == 10) labelprop<3><<<2, 128>>>(a, drp, dcol, cnt);
        }
        break;
    case 11: case 12:
        for (int v = 0; v < NV; v++) h[v] = v / 2;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        for (int it = 0; it < 3; it++) {
            if (c == 11) jump<<<2, 128>>>(a);
            else {
                jump2<<<2, 128>>>(it & 1 ? b : a, it & 1 ? a : b);
            }
        }
        break;
    case 13: degree<false><<<2, 128>>>(drp, dcol, b); break;
    case 14: degree<true><<<2, 128>>>(drp, dcol, b); break;
    case 15: case 16:
        for (int v = 0; v < NV; v++) h[v] = (v * 7) % 11;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        if (c == 15) compact<false><<<2, 128>>>(a, b, cnt);
        else compact<true><<<2, 128>>>(a, b, cnt);
        break;
    case 17: case 18: {
        float hr[NV];
        for (int v = 0; v < NV; v++) hr[v] = 1.0f / NV;
        cudaMemcpy(a, hr, sizeof hr, cudaMemcpyHostToDevice);
        for (int it = 0; it < 3; it++) {
            if (c == 17) pagerank<<<2, 128>>>((float *)a, (float *)a, drp, dcol);
            else pagerank<<<2, 128>>>((float *)(it & 1 ? b : a), (float *)(it & 1 ? a : b), drp, dcol);
        }
        break;
    }
    case 19: local_relax<false><<<1, NV>>>(b); break;
    case 20: local_relax<true><<<1, NV>>>(b); break;
    case 21:
        for (int v = 0; v < NV; v++) h[v] = (v * 91 + 7) % 1000;
        cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
        h[0] = INF;
        cudaMemcpy(cnt, h, 4, cudaMemcpyHostToDevice);
        warp_min<<<2, 128>>>(a, cnt);
        break;
    case 22: case 23:
        cudaMemset(a, 0, NV * sizeof(int));
        for (int it = 0; it < 3; it++) {
            if (c == 22) colour<<<2, 128>>>(a, a, drp, dcol);
            else colour<<<2, 128>>>(it & 1 ? b : a, it & 1 ? a : b, drp, dcol);
        }
        break;
    case 24: cudaMemset(a, 0, NV); visit<<<2, 128>>>((char *)a, drp, dcol); break;
    case 25:
        for (int v = 0; v < NV; v++) h[v] = v % 5;
        cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
        visit_own<<<2, 128>>>((char *)a, b, f);
        break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
