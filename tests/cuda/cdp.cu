// cdp.cu - dynamic parallelism (CDP2): kernels launching kernels. Built with -rdc=true
// -lcudadevrt (cdp.flags).
// Usage: cdp SCENARIO
//   0 launches 3 deep, many children per block, parameters of many sizes and alignments,
//     dynamic shared memory, a device-side stream with copies in it, fire-and-forget and
//     tail launches, device-side launch errors, the nesting depth limit
//   1 a grandchild faults: the host sees the launch fail (sticky error)
// Everything printed is a count, a checksum or an error name: the GPU runs children
// concurrently, in an order of its choosing, so nothing depends on that order.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); exit(1); } } while (0)

// ---- 1. three levels: host -> top -> mid -> leaf ---------------------------------------
__global__ void leaf(unsigned long long *sum, int *count, int a, int b)
{
    atomicAdd(sum, (unsigned long long)(a * 1000 + b * 10 + threadIdx.x + blockIdx.x * blockDim.x));
    if (threadIdx.x == 0) atomicAdd(count, 1);
}

__global__ void mid(unsigned long long *sum, int *count, int a)
{
    // one launch per thread of every block: 2 blocks x 8 threads of each mid grid
    leaf<<<2, 16>>>(sum, count, a, blockIdx.x * blockDim.x + threadIdx.x);
}

__global__ void top(unsigned long long *sum, int *count)
{
    if (threadIdx.x % 16 == 0) mid<<<2, 8>>>(sum, count, blockIdx.x * 4 + threadIdx.x / 16);
}

// ---- 2. many children per block --------------------------------------------------------
__global__ void fill(int *out, int base, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[base + i] = base * 7 + i * 3 + 1;
}

__global__ void many(int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    fill<<<1 + t % 3, 32>>>(out, t * 96, 64 + t % 33);
}

// ---- 3. parameters of every size and alignment ------------------------------------------
struct Odd { char c; double d; short s; };                    // 24 bytes, align 8
struct Three { char a, b, c; };                               // 3 bytes, align 1
struct __align__(16) Wide { int v[4]; };                      // 16 bytes, align 16
struct Big { unsigned char bytes[200]; int tail; };           // 204 bytes, align 4

__device__ unsigned long long mix(unsigned long long h, unsigned long long v)
{
    return (h ^ v) * 1099511628211ull;
}

__global__ void params(unsigned long long *out, char c, short s, int i, long long ll, float f,
                       double d, Odd o, Three t, Wide w, Big big, unsigned char u8, float2 f2,
                       unsigned long long *echo)
{
    unsigned long long h = 14695981039346656037ull;
    h = mix(h, (unsigned char)c); h = mix(h, (unsigned short)s); h = mix(h, (unsigned)i);
    h = mix(h, (unsigned long long)ll); h = mix(h, __float_as_uint(f));
    h = mix(h, (unsigned long long)__double_as_longlong(d));
    h = mix(h, (unsigned char)o.c); h = mix(h, (unsigned long long)__double_as_longlong(o.d));
    h = mix(h, (unsigned short)o.s);
    h = mix(h, (unsigned char)t.a); h = mix(h, (unsigned char)t.b); h = mix(h, (unsigned char)t.c);
    for (int k = 0; k < 4; k++) h = mix(h, (unsigned)w.v[k]);
    for (int k = 0; k < 200; k++) h = mix(h, big.bytes[k]);
    h = mix(h, (unsigned)big.tail); h = mix(h, u8);
    h = mix(h, __float_as_uint(f2.x)); h = mix(h, __float_as_uint(f2.y));
    h = mix(h, echo == out ? 1 : 0);
    out[blockIdx.x * blockDim.x + threadIdx.x] = h + threadIdx.x;
}

// the arguments of child t, built the same way on the host (the reference launches) and
// on the device
struct Args {
    char c; short s; int i; long long ll; float f; double d; Odd o; Three t; Wide w; Big big;
    unsigned char u8; float2 f2;
};

__host__ __device__ void make_args(Args *a, int t, int seed)
{
    a->c = (char)(t - 5); a->s = (short)(t * 300 - 7000); a->i = t * 100003 - 5;
    a->ll = (long long)t * 0x100000001ll - 3; a->f = 1.5f * t; a->d = 0.25 * t - seed;
    a->o.c = (char)(t + 1); a->o.d = 2.5 * t + seed; a->o.s = (short)(-t * 3);
    a->t.a = (char)t; a->t.b = (char)(t * 2); a->t.c = (char)(t * 3);
    a->w.v[0] = t; a->w.v[1] = -t; a->w.v[2] = t * t; a->w.v[3] = seed;
    for (int k = 0; k < 200; k++) a->big.bytes[k] = (unsigned char)(k * 7 + t + seed);
    a->big.tail = 0x12345678 ^ t;
    a->u8 = (unsigned char)(250 + t);
    a->f2.x = t * 0.5f; a->f2.y = -t * 2.0f;
}

__global__ void params_parent(unsigned long long *out, int seed)
{
    Args a;
    make_args(&a, threadIdx.x, seed);
    unsigned long long *o = out + threadIdx.x * 4;
    params<<<1, 4>>>(o, a.c, a.s, a.i, a.ll, a.f, a.d, a.o, a.t, a.w, a.big, a.u8, a.f2, o);
}

// ---- 4. dynamic shared memory ------------------------------------------------------------
__global__ void reverse(const int *in, int *out)
{
    extern __shared__ int s[];
    int n = blockDim.x;
    s[threadIdx.x] = in[blockIdx.x * n + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * n + threadIdx.x] = s[n - 1 - threadIdx.x];
}

__global__ void shared_parent(const int *in, int *out)
{
    reverse<<<3, 256, 256 * sizeof(int)>>>(in, out);
}

// ---- 5. a device-side stream: work in it runs in issue order ------------------------------
__global__ void scale(int *a, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * k + i;
}

__global__ void stream_parent(int *a, int *b, int n)
{
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    scale<<<(n + 127) / 128, 128, 0, s>>>(a, n, 3);
    cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice, s);
    scale<<<(n + 127) / 128, 128, 0, s>>>(b, n, 5);
    cudaStreamDestroy(s);
}

// ---- 6. fire-and-forget and tail launches -----------------------------------------------
__global__ void put(int *slot, int v) { *slot = v; }

__global__ void total(const int *slots, int n, int *result)
{
    int s = 0;
    for (int i = 0; i < n; i++) s += slots[i] * (i + 1);
    *result = s;
}

__global__ void tail_parent(int *slots, int *result)
{
    int t = threadIdx.x;
    if (t < 8) put<<<1, 1, 0, cudaStreamFireAndForget>>>(slots + t, t * 11 + 1);
    else if (t < 16) put<<<1, 1>>>(slots + t, t * 13 + 2);
    else slots[t] = t;   // the parent's own writes
    // runs once the grid and everything it launched have completed
    if (t == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(slots, 32, result);
}

// ---- 7. launch errors seen from the device -----------------------------------------------
__global__ void nothing() {}

__global__ void error_parent(int *codes)
{
    codes[0] = cudaGetLastError();
    nothing<<<1, 2048>>>();                     // too many threads a block
    codes[1] = cudaPeekAtLastError();
    codes[2] = cudaGetLastError();
    codes[3] = cudaGetLastError();
    nothing<<<1, 32, 300 * 1024>>>();           // too much shared memory
    codes[4] = cudaGetLastError();
    nothing<<<1, 32>>>();
    codes[5] = cudaGetLastError();
}

// ---- 8. nesting depth ----------------------------------------------------------------------
__global__ void dive(int depth, int *deepest, int *fail)
{
    atomicMax(deepest, depth);
    if (depth >= 40) return;
    dive<<<1, 1>>>(depth + 1, deepest, fail);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { fail[0] = e; fail[1] = depth; }
}

// ---- scenario 1: a faulting grandchild -----------------------------------------------------
__global__ void bad_store(int *p, long long off) { p[off + threadIdx.x] = 1; }

__global__ void fault_mid(int *p, long long off)
{
    if (threadIdx.x == 0) bad_store<<<1, 32>>>(p, off);
}

__global__ void fault_top(int *p, long long off)
{
    fault_mid<<<1, 32>>>(p, off);
}

static unsigned long long fnv(const void *p, size_t n)
{
    const unsigned char *b = (const unsigned char *)p;
    unsigned long long h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int scenario_main(void)
{
    // 1. three levels
    unsigned long long *sum; int *count;
    CHECK(cudaMalloc(&sum, sizeof *sum));
    CHECK(cudaMalloc(&count, sizeof *count));
    CHECK(cudaMemset(sum, 0, sizeof *sum));
    CHECK(cudaMemset(count, 0, sizeof *count));
    top<<<3, 64>>>(sum, count);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    unsigned long long hsum; int hcount;
    CHECK(cudaMemcpy(&hsum, sum, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hcount, count, sizeof hcount, cudaMemcpyDeviceToHost));
    printf("nested: leaf blocks %d, sum %llu\n", hcount, hsum);

    // 2. many children
    const int nchild = 4 * 64, nout = nchild * 96;
    int *out;
    CHECK(cudaMalloc(&out, nout * sizeof(int)));
    CHECK(cudaMemset(out, 0, nout * sizeof(int)));
    many<<<4, 64>>>(out);
    CHECK(cudaDeviceSynchronize());
    int *h = (int *)malloc(nout * sizeof(int));
    CHECK(cudaMemcpy(h, out, nout * sizeof(int), cudaMemcpyDeviceToHost));
    long long filled = 0;
    for (int i = 0; i < nout; i++) filled += h[i] != 0;
    printf("many: %d children, %lld elements written, checksum %016llx\n", nchild, filled,
           fnv(h, nout * sizeof(int)));

    // 3. parameters
    unsigned long long *pout;
    CHECK(cudaMalloc(&pout, 16 * 4 * sizeof *pout));
    params_parent<<<1, 16>>>(pout, 9);
    CHECK(cudaDeviceSynchronize());
    unsigned long long hp[64];
    CHECK(cudaMemcpy(hp, pout, sizeof hp, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 16; t++) {
        Args a;
        make_args(&a, t, 9);
        unsigned long long *o = pout + t * 4;
        params<<<1, 4>>>(o, a.c, a.s, a.i, a.ll, a.f, a.d, a.o, a.t, a.w, a.big, a.u8, a.f2, o);
    }
    CHECK(cudaDeviceSynchronize());
    unsigned long long href[64];
    CHECK(cudaMemcpy(href, pout, sizeof href, cudaMemcpyDeviceToHost));
    printf("params: child 0 %016llx, child 15 %016llx, all %016llx, same as from the host: %s\n",
           hp[0], hp[60], fnv(hp, sizeof hp), memcmp(hp, href, sizeof hp) ? "no" : "yes");

    // 4. dynamic shared memory
    int *in, *rev;
    CHECK(cudaMalloc(&in, 768 * sizeof(int)));
    CHECK(cudaMalloc(&rev, 768 * sizeof(int)));
    for (int i = 0; i < 768; i++) h[i] = i * i;
    CHECK(cudaMemcpy(in, h, 768 * sizeof(int), cudaMemcpyHostToDevice));
    shared_parent<<<1, 1>>>(in, rev);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, rev, 768 * sizeof(int), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < 768; i++) ok &= h[i] == (i / 256 * 256 + 255 - i % 256) * (i / 256 * 256 + 255 - i % 256);
    printf("shared: reversed %s\n", ok ? "ok" : "WRONG");

    // 5. stream order
    const int n = 1000;
    int *a, *b;
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    for (int i = 0; i < n; i++) h[i] = i % 17;
    CHECK(cudaMemcpy(a, h, n * sizeof(int), cudaMemcpyHostToDevice));
    stream_parent<<<1, 1>>>(a, b, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, b, n * sizeof(int), cudaMemcpyDeviceToHost));
    ok = 1;
    for (int i = 0; i < n; i++) ok &= h[i] == ((i % 17) * 3 + i) * 5 + i;
    printf("stream: kernel, copy, kernel in order %s\n", ok ? "ok" : "WRONG");

    // 6. fire-and-forget and tail launches
    int *slots, *result;
    CHECK(cudaMalloc(&slots, 32 * sizeof(int)));
    CHECK(cudaMalloc(&result, sizeof(int)));
    CHECK(cudaMemset(slots, 0, 32 * sizeof(int)));
    tail_parent<<<1, 32>>>(slots, result);
    CHECK(cudaDeviceSynchronize());
    int hres;
    CHECK(cudaMemcpy(&hres, result, sizeof hres, cudaMemcpyDeviceToHost));
    int want = 0;
    for (int i = 0; i < 32; i++) want += (i < 8 ? i * 11 + 1 : i < 16 ? i * 13 + 2 : i) * (i + 1);
    printf("tail: total %d (%s)\n", hres, hres == want ? "after every other launch" : "too early");

    // 7. errors
    int *codes;
    CHECK(cudaMalloc(&codes, 6 * sizeof(int)));
    error_parent<<<1, 1>>>(codes);
    CHECK(cudaDeviceSynchronize());
    int hc[6];
    CHECK(cudaMemcpy(hc, codes, sizeof hc, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 6; i++) printf("error %d: %s\n", i, cudaGetErrorName((cudaError_t)hc[i]));

    // 8. depth
    int *deepest, *fail;
    CHECK(cudaMalloc(&deepest, sizeof(int)));
    CHECK(cudaMalloc(&fail, 2 * sizeof(int)));
    CHECK(cudaMemset(deepest, 0, sizeof(int)));
    CHECK(cudaMemset(fail, 0, 2 * sizeof(int)));
    dive<<<1, 1>>>(0, deepest, fail);
    CHECK(cudaDeviceSynchronize());
    int hd, hf[2];
    CHECK(cudaMemcpy(&hd, deepest, sizeof hd, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hf, fail, sizeof hf, cudaMemcpyDeviceToHost));
    printf("depth: deepest grid %d, launch from depth %d failed with %s\n", hd, hf[1],
           cudaGetErrorName((cudaError_t)hf[0]));
    printf("final: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    free(h);
    return 0;
}

static int scenario_fault(void)
{
    int *p;
    CHECK(cudaMalloc(&p, 1024));
    fault_top<<<1, 1>>>(p, 1ll << 40);   // 4 TiB past the buffer
    printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    printf("synchronize: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    printf("then: %s\n", cudaGetErrorName(cudaMalloc(&p, 16)));
    return 0;
}

int main(int argc, char **argv)
{
    int scenario = argc > 1 ? atoi(argv[1]) : 0;
    return scenario == 1 ? scenario_fault() : scenario_main();
}
