// ipc.cu - CUDA IPC of device memory between processes (cudaIpcGetMemHandle,
// cudaIpcOpenMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle). The parent allocates an
// array between two small neighbours (so the three share pages), fills it and exports it; a
// child (this program again, exec'd, the handle in hex on its command line) opens it with the
// driver API, sees the parent's bytes, waits while the parent's kernel adds 1, sees that too,
// and adds 1000 from its own kernel; the parent then sees the child's writes, and the
// neighbours are untouched. The child also opens an interprocess event the parent recorded. Then the errors: memory cuMemAlloc did not make, a handle opened
// in its own process, a handle ptxemu did not make, a freed allocation's handle, and the
// handle of a process that has exited. Prints "ok: ..." or "FAIL: ..." per check and
// "failures: N"; exit 0 when there are none. (The error values are cuda.h's where it names
// them; ptxemu's own choices are in docs/driver.md.)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const int N = 1000;   // 4000 bytes: not a whole page, and not page-aligned
static int failures;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        int ok_ = (cond);                                                        \
        printf("%s: ", ok_ ? "ok" : "FAIL");                                     \
        printf(__VA_ARGS__);                                                     \
        printf("\n");                                                            \
        failures += !ok_;                                                        \
    } while (0)

__global__ void add(int *p, int n, int v)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] += v;
}

__global__ void iota(int *p, int n, int base)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = base + i;
}

static const char *rt(cudaError_t e) { return cudaGetErrorName(e); }
static const char *drv(CUresult e)
{
    const char *s = 0;
    cuGetErrorName(e, &s);
    return s ? s : "?";
}

static void to_hex(const cudaIpcMemHandle_t &h, char *out)
{
    for (size_t i = 0; i < sizeof h.reserved; i++)
        sprintf(out + 2 * i, "%02x", (unsigned char)h.reserved[i]);
}

static int from_hex(const char *s, CUipcMemHandle *h)
{
    if (strlen(s) != 2 * sizeof h->reserved) return -1;
    for (size_t i = 0; i < sizeof h->reserved; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        h->reserved[i] = (char)v;
    }
    return 0;
}

// The elements of [p, p+N) equal base + i.
static int holds(const int *host, int base)
{
    for (int i = 0; i < N; i++)
        if (host[i] != base + i) return 0;
    return 1;
}

static int device_holds(const int *dev, int base)
{
    static int host[N];
    if (cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
    return holds(host, base);
}

// The child's side of an interprocess event: it behaves as a local event without timing.
static void child_event(const char *hex)
{
    CUipcEventHandle h;
    if (from_hex(hex, (CUipcMemHandle *)&h)) {
        CHECK(0, "child: a bad event handle argument");
        return;
    }
    CUevent ev = 0;
    CUresult e = cuIpcOpenEventHandle(&ev, h);
    CHECK(e == CUDA_SUCCESS && ev, "child: cuIpcOpenEventHandle: %s", drv(e));
    if (e != CUDA_SUCCESS) return;
    CHECK(cuEventQuery(ev) == CUDA_SUCCESS, "child: the opened event is complete");
    CHECK(cuStreamWaitEvent(0, ev, 0) == CUDA_SUCCESS, "child: cuStreamWaitEvent on it");
    CHECK(cuEventSynchronize(ev) == CUDA_SUCCESS, "child: cuEventSynchronize on it");
    CHECK(cuEventRecord(ev, 0) == CUDA_SUCCESS && cuEventSynchronize(ev) == CUDA_SUCCESS,
          "child: records it and waits for it");
    float ms;
    e = cuEventElapsedTime(&ms, ev, ev);
    CHECK(e == CUDA_ERROR_INVALID_HANDLE, "child: it keeps no time: %s", drv(e));
    CHECK(cuEventDestroy(ev) == CUDA_SUCCESS, "child: cuEventDestroy");
}

// ---- the child: "child MEMHANDLE:EVENTHANDLE TOPARENT FROMPARENT" ----
static int child(const char *arg, int to_parent, int from_parent)
{
    cudaFree(0);   // the primary context, current for the driver calls too
    char hex[2 * sizeof(CUipcMemHandle) + 1] = {};
    strncpy(hex, arg, sizeof hex - 1);
    CUipcMemHandle h;
    if (from_hex(hex, &h)) return printf("FAIL: child: a bad handle argument\n"), 1;
    if (arg[sizeof hex - 1] == ':') child_event(arg + sizeof hex);
    CUdeviceptr d = 0, again = 0;
    CUresult e = cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    CHECK(e == CUDA_SUCCESS && d, "child: cuIpcOpenMemHandle: %s", drv(e));
    if (e != CUDA_SUCCESS) return 1;
    e = cuIpcOpenMemHandle(&again, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    CHECK(e == CUDA_SUCCESS && again == d, "child: opened again in the same context: the same pointer (%s)", drv(e));
    int *p = (int *)(uintptr_t)d;
    CHECK(device_holds(p, 0), "child: sees the parent's bytes");
    size_t size = 0;
    CUdeviceptr base = 0;
    e = cuMemGetAddressRange(&base, &size, d + 8);
    CHECK(e == CUDA_SUCCESS && base == d && size == N * sizeof(int),
          "child: the opened range is the allocation: %zu bytes (%s)", size, drv(e));
    unsigned capable = 9;
    cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d);
    CHECK(capable == 0, "child: opened memory cannot be exported again (IPC capable %u)", capable);
    CHECK(cuMemFree(d) == CUDA_ERROR_INVALID_VALUE, "child: cuMemFree of opened memory is CUDA_ERROR_INVALID_VALUE");
    char c = 'o';
    if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1) return 1;   // the parent adds 1
    CHECK(device_holds(p, 1), "child: sees what the parent's kernel wrote after the open");
    add<<<4, 128>>>(p, N, 1000);
    cudaError_t r = cudaDeviceSynchronize();
    CHECK(r == cudaSuccess && device_holds(p, 1001), "child: its kernel added 1000 (%s)", rt(r));
    CHECK(cuIpcCloseMemHandle(d) == CUDA_SUCCESS, "child: first close");
    CHECK(device_holds(p, 1001), "child: still mapped after one of two closes");
    CHECK(cuIpcCloseMemHandle(d) == CUDA_SUCCESS, "child: second close");
    e = cuIpcCloseMemHandle(d);
    CHECK(e == CUDA_ERROR_INVALID_VALUE, "child: a third close is CUDA_ERROR_INVALID_VALUE: %s", drv(e));
    size = 0;
    CHECK(cuMemGetAddressRange(&base, &size, d) != CUDA_SUCCESS, "child: unmapped after the last close");
    return 0;
}

// ---- a child opening a handle whose allocation was freed ----
static int gone_child(const char *hex)
{
    cudaFree(0);
    CUipcMemHandle h;
    CUdeviceptr d = 0;
    if (from_hex(hex, &h)) return 1;
    CUresult e = cuIpcOpenMemHandle(&d, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    CHECK(e == CUDA_ERROR_INVALID_HANDLE, "child: the handle of a freed allocation: %s", drv(e));
    return failures != 0;
}

// ---- a child that exports its own allocation, prints the handle, and exits ----
static int exporter(int to_parent)
{
    int *q;
    cudaMalloc(&q, 64);
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, q);
    if (e != cudaSuccess) return 1;
    char hex[2 * sizeof h.reserved + 1];
    to_hex(h, hex);
    return write(to_parent, hex, sizeof hex - 1) == (ssize_t)(sizeof hex - 1) ? 0 : 1;
}

static pid_t spawn(char *self, const char *what, const char *hex, int a, int b)
{
    char sa[16], sb[16];
    snprintf(sa, sizeof sa, "%d", a);
    snprintf(sb, sizeof sb, "%d", b);
    char *args[] = { self, (char *)what, (char *)hex, sa, sb, NULL };
    fflush(stdout);
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ)) return -1;
    return pid;
}

static int wait_child(pid_t pid)
{
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "child")) {
        int rc = child(argv[2], atoi(argv[3]), atoi(argv[4]));
        printf("child failures: %d\n", failures);
        return rc || failures;
    }
    if (argc == 5 && !strcmp(argv[1], "gone")) return gone_child(argv[2]);
    if (argc == 5 && !strcmp(argv[1], "exporter")) return exporter(atoi(argv[3]));

    // an array between two neighbours that share its first and last page
    int *before, *a, *after;
    cudaMalloc(&before, 256);
    cudaMalloc(&a, N * sizeof(int));
    cudaMalloc(&after, 256);
    cudaMemset(before, 0xbb, 256);
    cudaMemset(after, 0xcc, 256);
    iota<<<4, 128>>>(a, N, 0);
    cudaDeviceSynchronize();

    cudaIpcMemHandle_t h, h2, h3;
    cudaError_t e = cudaIpcGetMemHandle(&h, a);
    CHECK(e == cudaSuccess, "cudaIpcGetMemHandle: %s", rt(e));
    cudaIpcGetMemHandle(&h2, a);
    CHECK(!memcmp(&h, &h2, sizeof h), "exporting the same allocation again gives the same handle");
    e = cudaIpcGetMemHandle(&h3, a + 10);
    CHECK(e == cudaSuccess && !memcmp(&h, &h3, sizeof h),
          "a pointer inside the allocation gives the allocation's handle (%s)", rt(e));
    CHECK(device_holds(a, 0), "the exported bytes are unchanged");
    unsigned capable = 9;
    cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, (CUdeviceptr)(uintptr_t)a);
    CHECK(capable == 1, "cudaMalloc memory is IPC capable (%u)", capable);

    // what cannot be exported
    int *pinned, *managed, *pooled;
    cudaMallocHost(&pinned, 64);
    cudaMallocManaged(&managed, 64);
    cudaMallocAsync(&pooled, 64, 0);
    cudaStreamSynchronize(0);
    CHECK(cudaIpcGetMemHandle(&h3, pinned) == cudaErrorInvalidValue, "pinned host memory: cudaErrorInvalidValue");
    CHECK(cudaIpcGetMemHandle(&h3, managed) == cudaErrorInvalidValue, "managed memory: cudaErrorInvalidValue");
    CHECK(cudaIpcGetMemHandle(&h3, pooled) == cudaErrorInvalidValue, "pool memory (cudaMallocAsync): cudaErrorInvalidValue");
    CHECK(cudaIpcGetMemHandle(&h3, (char *)a + (1 << 24)) == cudaErrorInvalidValue, "no allocation: cudaErrorInvalidValue");
    CHECK(cudaIpcGetMemHandle(NULL, a) == cudaErrorInvalidValue, "a null handle: cudaErrorInvalidValue");
    cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, (CUdeviceptr)(uintptr_t)pooled);
    CHECK(capable == 0, "pool memory is not IPC capable (%u)", capable);

    // opening in the exporting process, and handles that name nothing
    void *d = NULL;
    e = cudaIpcOpenMemHandle(&d, h, cudaIpcMemLazyEnablePeerAccess);
    CHECK(e == cudaErrorDeviceUninitialized, "opening a handle in its own process: %s", rt(e));
    cudaIpcMemHandle_t zero;
    memset(&zero, 0, sizeof zero);
    e = cudaIpcOpenMemHandle(&d, zero, cudaIpcMemLazyEnablePeerAccess);
    CHECK(e == cudaErrorInvalidResourceHandle, "a handle of zeros: %s", rt(e));
    CHECK(cudaIpcOpenMemHandle(&d, h, 2) == cudaErrorInvalidValue, "unknown flags: cudaErrorInvalidValue");
    CHECK(cudaIpcCloseMemHandle(a) == cudaErrorInvalidValue, "closing memory that was not opened: cudaErrorInvalidValue");
    cudaGetLastError();

    // an interprocess event, recorded after a kernel
    int ipc_events = -1;
    cudaDeviceGetAttribute(&ipc_events, cudaDevAttrIpcEventSupport, 0);
    CHECK(ipc_events == 1, "the device reports IPC event support (%d)", ipc_events);
    cudaEvent_t ev, plain;
    cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming);
    cudaEventCreateWithFlags(&plain, cudaEventDisableTiming);
    cudaIpcEventHandle_t eh;
    CHECK(cudaIpcGetEventHandle(&eh, plain) == cudaErrorInvalidValue,
          "an event without cudaEventInterprocess: cudaErrorInvalidValue");
    e = cudaIpcGetEventHandle(&eh, ev);
    CHECK(e == cudaSuccess, "cudaIpcGetEventHandle: %s", rt(e));
    cudaEvent_t opened;
    e = cudaIpcOpenEventHandle(&opened, eh);
    CHECK(e == cudaErrorDeviceUninitialized, "opening an event handle in its own process: %s", rt(e));
    cudaIpcEventHandle_t ezero;
    memset(&ezero, 0, sizeof ezero);
    e = cudaIpcOpenEventHandle(&opened, ezero);
    CHECK(e == cudaErrorInvalidResourceHandle, "an event handle of zeros: %s", rt(e));
    cudaGetLastError();
    add<<<4, 128>>>(a, N, 0);
    cudaEventRecord(ev, 0);

    // the child opens it, the parent writes while it is open, the child writes back
    char hex[2 * sizeof h.reserved + 1];
    to_hex(h, hex);
    char both[2 * sizeof hex];
    to_hex(*(cudaIpcMemHandle_t *)&eh, both + sizeof hex);
    memcpy(both, hex, sizeof hex - 1);
    both[sizeof hex - 1] = ':';
    int up[2], down[2];
    if (pipe(up) || pipe(down)) return perror("pipe"), 1;
    pid_t pid = spawn(argv[0], "child", both, up[1], down[0]);
    char c;
    if (pid < 0 || read(up[0], &c, 1) != 1) return printf("FAIL: the child did not start\n"), 1;
    add<<<4, 128>>>(a, N, 1);
    e = cudaDeviceSynchronize();
    if (write(down[1], &c, 1) != 1) return 1;
    int st = wait_child(pid);
    CHECK(st == 0, "the child exited with %d", st);
    CHECK(device_holds(a, 1001), "the parent sees the child's kernel's writes");
    static int host[N];
    cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost);
    CHECK(holds(host, 1001), "and so does a copy to the host");
    unsigned char nb[256], na[256];
    cudaMemcpy(nb, before, 256, cudaMemcpyDeviceToHost);
    cudaMemcpy(na, after, 256, cudaMemcpyDeviceToHost);
    int intact = 1;
    for (int i = 0; i < 256; i++) intact &= nb[i] == 0xbb && na[i] == 0xcc;
    CHECK(intact, "the neighbours sharing its pages are untouched");

    // freed: the handle names nothing, the neighbours keep their bytes
    CHECK(cudaFree(a) == cudaSuccess, "the exported allocation is freed");
    pid = spawn(argv[0], "gone", hex, up[1], down[0]);
    st = wait_child(pid);
    CHECK(st == 0, "a child opening the freed allocation's handle ran its check (exit %d)", st);
    cudaMemcpy(nb, before, 256, cudaMemcpyDeviceToHost);
    cudaMemcpy(na, after, 256, cudaMemcpyDeviceToHost);
    intact = 1;
    for (int i = 0; i < 256; i++) intact &= nb[i] == 0xbb && na[i] == 0xcc;
    CHECK(intact, "the neighbours keep their bytes after the free");
    int *a2;
    cudaMalloc(&a2, N * sizeof(int));
    cudaIpcGetMemHandle(&h2, a2);
    CHECK(memcmp(&h, &h2, sizeof h) != 0, "a new allocation gets a new handle%s",
          a2 == a ? " (at the same address)" : "");

    // the handle of a process that has exited
    pid = spawn(argv[0], "exporter", "-", up[1], 0);
    char got[2 * sizeof h.reserved + 1] = {};
    size_t n = 0;
    while (n < sizeof got - 1) {
        ssize_t k = read(up[0], got + n, sizeof got - 1 - n);
        if (k <= 0) break;
        n += (size_t)k;
    }
    st = wait_child(pid);
    CUipcMemHandle gone;
    CHECK(st == 0 && !from_hex(got, &gone), "an exporter child ran and exited (%d)", st);
    CUdeviceptr dd = 0;
    CUresult r = cuIpcOpenMemHandle(&dd, gone, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    CHECK(r == CUDA_ERROR_INVALID_HANDLE, "the handle of a process that has exited: %s", drv(r));

    printf("failures: %d\n", failures);
    return failures != 0;
}
