// shared.cu - race-detector suite: shared memory and block barriers (tests/run_race_suite.sh).
// argv[1] picks the case; each case runs one small kernel and prints
// "case N: <cudaDeviceSynchronize() result>". Labels (tests/race/suite/labels.txt):
//@ 0 race any neighbour in another warp read without __syncthreads
//@ 1 free - neighbour read after __syncthreads
//@ 2 race any own slot overwritten while another warp still reads it (no second barrier)
//@ 3 free - second __syncthreads before the overwrite
//@ 4 race any loop over one shared buffer with one barrier per iteration
//@ 5 free - ping-pong buffers with one barrier per iteration
//@ 6 race any thread 0 zeroes a counter that other warps atomicAdd without a barrier
//@ 7 free - counter zeroed then __syncthreads then atomicAdd
//@ 8 race any shared histogram with plain ++
//@ 9 free - shared histogram with atomicAdd
//@ 10 race any 16x16 tile transpose without __syncthreads
//@ 11 free - tile transpose with __syncthreads
//@ 12 race read-after-write warp hands data to warp through a volatile flag without fences
//@ 13 free - volatile flag with __threadfence_block on both sides
//@ 14 race any thread 0 rewrites a broadcast value next iteration without a trailing barrier
//@ 15 free - broadcast loop with trailing barrier
//@ 16 race write-after-write two arrays carved from dynamic shared memory overlap
//@ 17 free - dynamic shared memory carved without overlap
//@ 18 race any warp leaders add into one shared word with plain +=
//@ 19 free - warp leaders atomicAdd into one shared word
//@ 20 race any producer warp writes after bar.arrive of a named barrier
//@ 21 free - producer writes then bar.arrive, consumer bar.sync then reads
//@ 22 race any two-round named-barrier pipeline without an empty barrier
//@ 23 free - two-round pipeline with full and empty named barriers
//@ 24 free - __syncthreads_or used as the barrier
//@ 25 race any cross-warp exchange ordered only by __syncwarp
//@ 26 free - per-warp ownership of shared rows with __syncwarp
//@ 27 race any per-warp rows with a wrong stride overlap between warps
//@ 28 race any shared buffer reused as scratch without a barrier after the last read
//@ 29 free - shared buffer reuse after a barrier
//@ 30 free - lookup table written once then read by all after a barrier
//@ 31 race write-after-write thread 0 writes a sentinel into the last thread's slot
//@ 32 free - sentinel in its own slot
//@ 33 race any counter read plainly while other warps still atomicAdd it
//@ 34 free - counter read after __syncthreads
//@ 35 free - volatile stop flag written and polled with volatile accesses only
//@ 36 race any stop flag written plainly while others poll it with volatile reads
//@ 37 free - warp hands data to warp through a block-scope release store / acquire load
//@ 38 free - 16 blocks of 64 one after another reuse the same shared-memory slots
#include <cstdio>
#include <cstdlib>
#include <cuda/atomic>

#define N 256

__global__ void neighbour(int fix, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = t * 3;
    if (fix) __syncthreads();
    out[t] = s[(t + 32) % N];
}

__global__ void overwrite(int fix, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    int v = s[(t + 32) % N];
    if (fix) __syncthreads();
    s[t] = v * 2;
    __syncthreads();
    out[t] = s[t];
}

__global__ void loop_buf(int fix, int *out)
{
    __shared__ int s[2][N];
    int t = threadIdx.x, acc = 0;
    for (int i = 0; i < 4; i++) {
        int *b = s[fix ? (i & 1) : 0];
        b[t] = t + i;
        __syncthreads();
        acc += b[(t + 32) % N];
    }
    out[t] = acc;
}

__global__ void init_atomic(int fix, int *out)
{
    __shared__ int cnt;
    if (threadIdx.x == 0) cnt = 0;
    if (fix) __syncthreads();
    atomicAdd(&cnt, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = cnt;
}

__global__ void hist(int fix, int *out)
{
    __shared__ int h[16];
    int t = threadIdx.x;
    if (t < 16) h[t] = 0;
    __syncthreads();
    int bin = (t * 7) % 16;
    if (fix) atomicAdd(&h[bin], 1);
    else h[bin]++;
    __syncthreads();
    if (t < 16) out[t] = h[t];
}

__global__ void transpose(int fix, const int *in, int *out)
{
    __shared__ int tile[16][17];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 16 + x] + x;
    if (fix) __syncthreads();
    out[y * 16 + x] = tile[x][y];
}

__global__ void flag_block(int fix, int *out)
{
    __shared__ int data[32];
    __shared__ int flag_;
    volatile int *flag = &flag_;
    int t = threadIdx.x;
    if (t == 0) *flag = 0;
    __syncthreads();
    if (t < 32) {
        data[t] = t * 5;
        __syncwarp();
        if (t == 0) {
            if (fix) __threadfence_block();
            *flag = 1;
        }
    } else {
        while (*flag == 0) { }
        if (fix) __threadfence_block();
        out[t] = data[t - 32];
    }
}

__global__ void bcast_loop(int fix, int *out)
{
    __shared__ int b;
    int t = threadIdx.x, acc = 0;
    for (int i = 0; i < 4; i++) {
        if (t == 0) b = i * 10 + 1;
        __syncthreads();
        acc += b;
        if (fix) __syncthreads();
    }
    out[t] = acc;
}

__global__ void carve(int fix, int *out)
{
    extern __shared__ int dyn[];
    int t = threadIdx.x;
    int *a = dyn, *b = dyn + (fix ? 128 : 96);   /* a has 128 entries */
    a[t] = t;
    b[t] = -t;
    __syncthreads();
    out[t] = a[t] + b[t];
}

__global__ void leader_sum(int fix, int *out)
{
    __shared__ int sum;
    int t = threadIdx.x;
    if (t == 0) sum = 0;
    __syncthreads();
    if (t % 32 == 0) {
        if (fix) atomicAdd(&sum, t);
        else sum += t;
    }
    __syncthreads();
    if (t == 0) out[0] = sum;
}

__global__ void named(int fix, int *out)
{
    __shared__ int buf[32];
    int t = threadIdx.x;
    if (t < 32) {
        if (fix) {
            buf[t] = t * 9;
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        } else {
            asm volatile("bar.arrive 1, 64;" ::: "memory");
            buf[t] = t * 9;
        }
    } else {
        asm volatile("bar.sync 1, 64;" ::: "memory");
        out[t] = buf[t - 32];
    }
}

__global__ void named2(int fix, int *out)
{
    __shared__ int buf[32];
    int t = threadIdx.x, acc = 0;
    for (int r = 0; r < 3; r++) {
        if (t < 32) {
            if (fix && r > 0) asm volatile("bar.sync 2, 64;" ::: "memory");   /* buffer empty */
            buf[t] = t + r;
            asm volatile("bar.sync 1, 64;" ::: "memory");                       /* buffer full */
        } else {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            acc += buf[t - 32];
            if (fix && r < 2) asm volatile("bar.arrive 2, 64;" ::: "memory");
        }
    }
    if (t >= 32) out[t] = acc;
}

__global__ void sync_or(int fix, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x, any;
    s[t] = t & 5;
    if (fix) any = __syncthreads_or(t == 77);
    else {
        __syncwarp();
        any = 1;
    }
    out[t] = s[(t + 64) % N] + any;
}

__global__ void per_warp(int fix, int *out)
{
    __shared__ int s[8 * 32 + 32];
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    int *row = s + w * (fix ? 32 : 16);
    for (int i = 0; i < 4; i++) {
        row[l] = l * i + w;
        __syncwarp();
        int v = row[(l + 1) % 32];
        __syncwarp();
        row[l] = v + 1;
        __syncwarp();
    }
    out[threadIdx.x] = row[l];
}

__global__ void reuse(int fix, const int *in, int *out)
{
    __shared__ int s[N];
    int t = threadIdx.x;
    s[t] = in[t] + t;
    __syncthreads();
    int a = s[N - 1 - t];
    if (fix) __syncthreads();
    s[t] = a * 2;
    __syncthreads();
    out[t] = s[(t + 1) % N];
}

__global__ void table(int *out)
{
    __shared__ int tab[16];
    int t = threadIdx.x;
    if (t < 16) tab[t] = t * t;
    __syncthreads();
    out[t] = tab[t % 16] + tab[(t * 3) % 16];
}

__global__ void sentinel(int fix, int *out)
{
    __shared__ int s[N + 1];
    int t = threadIdx.x;
    s[t] = t;
    if (t == 0) s[fix ? N : N - 1] = -1;
    __syncthreads();
    out[t] = s[t] + s[N];
}

__global__ void count_read(int fix, int *out)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAdd(&c, 1);
    if (fix) __syncthreads();
    out[threadIdx.x] = c;
}

__global__ void stopflag(int fix, int *out)
{
    __shared__ int stop;
    volatile int *vs = &stop;
    int t = threadIdx.x;
    if (t == 0) stop = 0;
    __syncthreads();
    int n = 0;
    for (int i = 0; i < 8; i++) {
        if (*vs) break;
        n += i;
        if (t == 100 && i == 2) {
            if (fix) *vs = 1;
            else stop = 1;
        }
    }
    out[t] = n;
}

__global__ void scoped_flag(int *out)
{
    __shared__ int data[32];
    __shared__ int flag;
    cuda::atomic_ref<int, cuda::thread_scope_block> f(flag);
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t < 32) {
        data[t] = t * 3;
        __syncwarp();
        if (t == 0) f.store(1, cuda::memory_order_release);
    } else {
        while (f.load(cuda::memory_order_acquire) == 0) { }
        out[t] = data[t - 32];
    }
}

__global__ void many_blocks(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = blockIdx.x * 64 + t;
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[(t + 1) % 64];
}

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0, fix = c & 1;
    int *in, *out;
    cudaMalloc(&in, 4096);
    cudaMalloc(&out, 4096);
    cudaMemset(in, 0, 4096);
    cudaMemset(out, 0, 4096);
    switch (c) {
    case 0: case 1: neighbour<<<1, N>>>(fix, out); break;
    case 2: case 3: overwrite<<<1, N>>>(fix, out); break;
    case 4: case 5: loop_buf<<<1, N>>>(fix, out); break;
    case 6: case 7: init_atomic<<<1, N>>>(fix, out); break;
    case 8: case 9: hist<<<1, N>>>(fix, out); break;
    case 10: case 11: transpose<<<1, dim3(16, 16)>>>(fix, in, out); break;
    case 12: case 13: flag_block<<<1, 64>>>(fix, out); break;
    case 14: case 15: bcast_loop<<<1, N>>>(fix, out); break;
    case 16: case 17: carve<<<1, 128, 256 * sizeof(int)>>>(fix, out); break;
    case 18: case 19: leader_sum<<<1, N>>>(fix, out); break;
    case 20: case 21: named<<<1, 64>>>(fix, out); break;
    case 22: case 23: named2<<<1, 64>>>(fix, out); break;
    case 24: case 25: sync_or<<<1, N>>>(!fix, out); break;
    case 26: case 27: per_warp<<<1, N>>>(!fix, out); break;
    case 28: case 29: reuse<<<1, N>>>(fix, in, out); break;
    case 30: table<<<1, N>>>(out); break;
    case 31: case 32: sentinel<<<1, N>>>(!fix, out); break;
    case 33: case 34: count_read<<<1, N>>>(!fix, out); break;
    case 35: case 36: stopflag<<<1, N>>>(fix, out); break;
    case 37: scoped_flag<<<1, 64>>>(out); break;
    case 38: many_blocks<<<16, 64>>>(out); break;
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
