// multi_device.cu - four devices through the runtime API (run with PTXEMU_DEVICES=4, see
// multi_device.env): device identity (names, PCI bus ids, distinct UUIDs), cudaSetDevice per
// host thread with allocations and kernels on each device, pointer attributes naming the
// device, memory use per device, peer access (the capability matrix, the link's attributes,
// enabling and disabling with their errors, kernels touching a peer's memory and its atomics),
// peer copies (1D, async, 3D, and plain cudaMemcpy between devices), managed memory on every
// device, a kernel touching another device's memory without peer access (it faults, on its
// own device only, which cudaDeviceReset recovers), and bad ordinals everywhere.
//
// NOT RECORDED ON A GPU: the device machine has one H100. The expected output
// (tests/expected/cuda/multi_device.0.out) is derived from the one-device recording
// (tests/cuda/device_props.cu: errors, the H100's identity) and the documented semantics of
// a machine of four NVLink-connected H100s (docs/devices.md): the PCI slots and board groups
// ptxemu gives devices 1..3, peer access between any two distinct devices, an access to
// another device's memory without peer access faulting as cudaErrorIllegalAddress.
#include <cstdio>
#include <cstring>
#include <thread>
#include <cuda_runtime.h>

#define NDEV 4
#define N 256

static void show(const char *what, cudaError_t e)
{
    printf("%s: %s\n", what, cudaGetErrorName(e));
}

__global__ void k_fill(int *out, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = base + i;
}

__global__ void k_sum(const int *in, int *out)   // one thread: sum of N ints
{
    int s = 0;
    for (int i = 0; i < N; i++) s += in[i];
    *out = s;
}

__global__ void k_add(int *counter, int n)
{
    atomicAdd(counter, n);
}

static void identity(void)
{
    int n = -1;
    show("cudaGetDeviceCount", cudaGetDeviceCount(&n));
    printf("count = %d\n", n);
    cudaDeviceProp p[NDEV];
    for (int d = 0; d < NDEV; d++) {
        cudaGetDeviceProperties(&p[d], d);
        char bus[32] = "";
        cudaDeviceGetPCIBusId(bus, sizeof bus, d);
        int back = -1;
        cudaDeviceGetByPCIBusId(&back, bus);
        printf("device %d: %s, sm_%d%d, %d SMs, pci %d/%d/%d = %s -> device %d, board group %d\n",
               d, p[d].name, p[d].major, p[d].minor, p[d].multiProcessorCount, p[d].pciDomainID,
               p[d].pciBusID, p[d].pciDeviceID, bus, back, p[d].multiGpuBoardGroupID);
    }
    int distinct = 1;
    for (int a = 0; a < NDEV; a++)
        for (int b = a + 1; b < NDEV; b++)
            distinct &= memcmp(&p[a].uuid, &p[b].uuid, sizeof p[a].uuid) != 0;
    printf("uuids distinct = %d\n", distinct);
}

// Each host thread picks its device, allocates there, runs a kernel, checks the result.
static void per_thread(int d, int *device_seen, int *ok, int *ptr_device, int **buf)
{
    cudaSetDevice(d);
    cudaGetDevice(device_seen);
    int host[N];
    cudaMalloc(buf, N * sizeof(int));
    k_fill<<<N / 64, 64>>>(*buf, d * 1000);
    cudaMemcpy(host, *buf, sizeof host, cudaMemcpyDeviceToHost);
    *ok = cudaGetLastError() == cudaSuccess;
    for (int i = 0; i < N; i++) *ok &= host[i] == d * 1000 + i;
    cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, *buf);
    *ptr_device = a.type == cudaMemoryTypeDevice ? a.device : -1;
}

static void threads(int *bufs[NDEV])
{
    int seen[NDEV], ok[NDEV], ptr[NDEV];
    std::thread t[NDEV];
    for (int d = 0; d < NDEV; d++) t[d] = std::thread(per_thread, d, &seen[d], &ok[d], &ptr[d], &bufs[d]);
    for (int d = 0; d < NDEV; d++) t[d].join();
    for (int d = 0; d < NDEV; d++)
        printf("thread %d: cudaGetDevice %d, kernel result ok %d, pointer on device %d\n", d,
               seen[d], ok[d], ptr[d]);
    int here = -1;
    cudaGetDevice(&here);
    printf("main thread still on device %d\n", here);
}

static void memory_per_device(void)
{
    size_t free1a, free2a, free1b, free2b, total;
    cudaSetDevice(1);
    cudaMemGetInfo(&free1a, &total);
    cudaSetDevice(2);
    cudaMemGetInfo(&free2a, &total);
    void *big = NULL;
    cudaSetDevice(1);
    show("cudaMalloc 1 GiB on device 1", cudaMalloc(&big, 1ull << 30));
    cudaMemGetInfo(&free1b, &total);
    cudaSetDevice(2);
    cudaMemGetInfo(&free2b, &total);
    printf("device 1 free memory fell by 1 GiB: %d, device 2's did not change: %d\n",
           free1a - free1b == (1ull << 30), free2a == free2b);
    cudaSetDevice(1);
    cudaFree(big);
}

static void peer_matrix(void)
{
    for (int a = 0; a < NDEV; a++) {
        printf("can access peer from %d:", a);
        for (int b = 0; b < NDEV; b++) {
            int v = -1;
            cudaDeviceCanAccessPeer(&v, a, b);
            printf(" %d", v);
        }
        printf("\n");
    }
    static const char *names[] = { "", "performance rank", "access supported",
                                   "native atomics", "cuda arrays", "partial atomics only" };
    for (int at = 1; at <= 5; at++) {
        int v = -1;
        cudaError_t e = cudaDeviceGetP2PAttribute(&v, (cudaDeviceP2PAttr)at, 0, 1);
        printf("link 0->1 %s: %s %d\n", names[at], cudaGetErrorName(e), v);
    }
    int v = -1;
    show("link 2->2", cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 2, 2));
}

// Device 0 reads and adds into device 1's memory once peer access is enabled.
static void peer_access(int *bufs[NDEV])
{
    cudaSetDevice(0);
    show("enable 0->1", cudaDeviceEnablePeerAccess(1, 0));
    show("enable 0->1 again", cudaDeviceEnablePeerAccess(1, 0));
    show("enable 0->0", cudaDeviceEnablePeerAccess(0, 0));
    show("enable 0->2 with flags 1", cudaDeviceEnablePeerAccess(2, 1));
    show("disable 0->2 never enabled", cudaDeviceDisablePeerAccess(2));
    int *sum0 = NULL, *counter1 = NULL, sum = 0, count = 0;
    cudaMalloc(&sum0, sizeof(int));
    k_sum<<<1, 1>>>(bufs[1], sum0);   // device 1's buffer: 1000..1255
    show("kernel on 0 reading device 1", cudaDeviceSynchronize());
    cudaMemcpy(&sum, sum0, sizeof sum, cudaMemcpyDeviceToHost);
    printf("sum = %d\n", sum);
    cudaSetDevice(1);
    cudaMalloc(&counter1, sizeof(int));
    cudaMemset(counter1, 0, sizeof(int));
    cudaSetDevice(0);
    k_add<<<8, 128>>>(counter1, 3);   // atomics over the link
    show("kernel on 0 adding into device 1", cudaDeviceSynchronize());
    cudaMemcpy(&count, counter1, sizeof count, cudaMemcpyDeviceToHost);
    printf("counter = %d\n", count);
    show("disable 0->1", cudaDeviceDisablePeerAccess(1));
    show("disable 0->1 again", cudaDeviceDisablePeerAccess(1));
    cudaFree(sum0);
    cudaSetDevice(1);
    cudaFree(counter1);
}

static void peer_copies(int *bufs[NDEV])
{
    int host[N], back[N];
    cudaSetDevice(0);
    show("cudaMemcpyPeer 2 <- 1", cudaMemcpyPeer(bufs[2], 2, bufs[1], 1, N * sizeof(int)));
    cudaMemcpy(host, bufs[2], sizeof host, cudaMemcpyDeviceToHost);
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= host[i] == 1000 + i;
    printf("device 2 holds device 1's values: %d\n", ok);
    show("cudaMemcpyPeerAsync 3 <- 2", cudaMemcpyPeerAsync(bufs[3], 3, bufs[2], 2, N * sizeof(int), 0));
    show("cudaStreamSynchronize", cudaStreamSynchronize(0));
    cudaMemcpy(back, bufs[3], sizeof back, cudaMemcpyDeviceToHost);
    printf("device 3 holds them too: %d\n", !memcmp(host, back, sizeof host));
    show("cudaMemcpy default 0 <- 3", cudaMemcpy(bufs[0], bufs[3], N * sizeof(int), cudaMemcpyDefault));
    cudaMemcpy(back, bufs[0], sizeof back, cudaMemcpyDeviceToHost);
    printf("device 0 holds them too: %d\n", !memcmp(host, back, sizeof host));

    // 16 rows of 16 ints from device 1, a 4x4 box of 8-int rows copied to device 3
    cudaMemset(bufs[3], 0, N * sizeof(int));
    cudaMemcpy3DPeerParms q;
    memset(&q, 0, sizeof q);
    q.srcPtr = make_cudaPitchedPtr(bufs[1], 16 * sizeof(int), 16, 4);
    q.srcPos = make_cudaPos(4 * sizeof(int), 1, 0);
    q.srcDevice = 1;
    q.dstPtr = make_cudaPitchedPtr(bufs[3], 16 * sizeof(int), 16, 4);
    q.dstDevice = 3;
    q.extent = make_cudaExtent(8 * sizeof(int), 2, 2);
    show("cudaMemcpy3DPeer 3 <- 1", cudaMemcpy3DPeer(&q));
    cudaMemcpy(back, bufs[3], sizeof back, cudaMemcpyDeviceToHost);
    printf("3D peer copy rows:");
    for (int r = 0; r < 5; r++) printf(" [%d %d %d]", back[r * 16], back[r * 16 + 7], back[r * 16 + 8]);
    printf("\n");
    show("cudaMemcpy3DPeerAsync 3 <- 1", cudaMemcpy3DPeerAsync(&q, 0));
}

static void managed_everywhere(void)
{
    int *m = NULL;
    cudaSetDevice(0);
    cudaMallocManaged(&m, N * sizeof(int));
    for (int d = 1; d < NDEV; d++) {
        cudaSetDevice(d);
        k_fill<<<1, 64>>>(m + (d - 1) * 64, d * 100);
    }
    cudaSetDevice(0);
    show("managed memory written by devices 1..3", cudaDeviceSynchronize());
    printf("managed: %d %d %d\n", m[0], m[64 + 5], m[128 + 63]);
    cudaFree(m);
}

// Device 3 touches device 2's memory after its peer access was disabled: the kernel faults on
// device 3 only; cudaDeviceReset makes device 3 usable again.
static void fault_without_peer(int *bufs[NDEV])
{
    int *sum3 = NULL;
    cudaSetDevice(3);
    cudaMalloc(&sum3, sizeof(int));
    show("enable 3->2", cudaDeviceEnablePeerAccess(2, 0));
    show("disable 3->2", cudaDeviceDisablePeerAccess(2));
    k_sum<<<1, 1>>>(bufs[2], sum3);
    show("kernel on 3 reading device 2 without peer access", cudaDeviceSynchronize());
    show("device 3 afterwards", cudaMalloc(&sum3, sizeof(int)));
    cudaSetDevice(2);
    show("device 2 afterwards", cudaDeviceSynchronize());
    cudaSetDevice(3);
    show("last error", cudaGetLastError());
    show("cudaDeviceReset on 3", cudaDeviceReset());
    int *again = NULL, host[N];
    cudaMalloc(&again, N * sizeof(int));
    k_fill<<<N / 64, 64>>>(again, 7);
    cudaMemcpy(host, again, sizeof host, cudaMemcpyDeviceToHost);
    show("device 3 after the reset", cudaGetLastError());
    printf("device 3 kernel result: %d %d\n", host[0], host[N - 1]);
    cudaFree(again);
}

static void bad_ordinals(void)
{
    cudaDeviceProp p;
    int v = 0;
    char bus[32];
    show("cudaSetDevice(4)", cudaSetDevice(4));
    show("cudaGetDeviceProperties(4)", cudaGetDeviceProperties(&p, 4));
    show("cudaDeviceGetAttribute(4)", cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 4));
    show("cudaDeviceCanAccessPeer(0,4)", cudaDeviceCanAccessPeer(&v, 0, 4));
    show("cudaDeviceEnablePeerAccess(4)", cudaDeviceEnablePeerAccess(4, 0));
    show("cudaDeviceGetP2PAttribute(0,4)", cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 4));
    show("cudaDeviceGetPCIBusId(4)", cudaDeviceGetPCIBusId(bus, sizeof bus, 4));
    v = -1;
    show("cudaDeviceGetByPCIBusId(0000:00:0a.0)", cudaDeviceGetByPCIBusId(&v, "0000:00:0a.0"));
    show("cudaMemcpyPeer to device 4", cudaMemcpyPeer(bus, 4, bus, 0, 4));
    cudaGetLastError();
}

int main()
{
    int *bufs[NDEV];
    identity();
    threads(bufs);
    memory_per_device();
    peer_matrix();
    peer_access(bufs);
    peer_copies(bufs);
    managed_everywhere();
    fault_without_peer(bufs);
    bad_ordinals();
    return 0;
}
