// vmm_ipc.cu - physical allocations shared between processes through POSIX file descriptors
// (cuMemExportToShareableHandle / cuMemImportFromShareableHandle), as memMapIPCDrv does.
// The parent creates, exports and maps with no current context (the VMM calls are the
// process's, not a context's), fills the memory from a kernel, and sends the descriptor to a
// child process (this program again, exec'd) over a socket. The child imports it, maps it at
// its own address, checks the parent's bytes from a kernel and writes its own; the parent then
// reads them. The errors of bad handle types and bad descriptors are printed too.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const size_t SIZE = 2u << 20;   // the H100's granularity
static const unsigned N = SIZE / 8;    // the parent fills the first half, the child the second

__global__ void fill(unsigned *p, unsigned n, unsigned base)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        p[i] = base + i * 2654435761u;
}

__global__ void sum(const unsigned *p, unsigned n, unsigned *out)
{
    unsigned s = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += p[i] * (2 * i + 1);
    atomicAdd(out, s);
}

static const char *name(CUresult e)
{
    const char *s = 0;
    cuGetErrorName(e, &s);
    return s ? s : "?";
}

#define SHOW(who, what, call) printf("%s: %s: %s\n", who, what, name(call))

static unsigned device_sum(const unsigned *p, unsigned n)
{
    unsigned *out, h = 0;
    cudaMalloc(&out, sizeof *out);
    cudaMemset(out, 0, sizeof *out);
    sum<<<8, 128>>>(p, n, out);
    cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(out);
    return h;
}

static CUmemAllocationProp prop_for(CUmemAllocationHandleType t)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = t;
    return prop;
}

/* Maps a handle at a new reservation, readable and writable by device 0. */
static CUdeviceptr map(const char *who, CUmemGenericAllocationHandle h)
{
    CUdeviceptr va = 0;
    SHOW(who, "reserve", cuMemAddressReserve(&va, SIZE, 0, 0, 0));
    SHOW(who, "map", cuMemMap(va, SIZE, 0, h, 0));
    CUmemAccessDesc acc = {};
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = 0;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    SHOW(who, "set access", cuMemSetAccess(va, SIZE, &acc, 1));
    return va;
}

static void send_fd(int sock, int fd)
{
    char byte = 'h', ctl[CMSG_SPACE(sizeof(int))] = {};
    struct iovec iov = { &byte, 1 };
    struct msghdr m = {};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(sock, &m, 0) != 1) perror("sendmsg");
}

static int recv_fd(int sock)
{
    char byte, ctl[CMSG_SPACE(sizeof(int))] = {};
    struct iovec iov = { &byte, 1 };
    struct msghdr m = {};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    if (recvmsg(sock, &m, 0) != 1) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    int fd = -1;
    if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

static int child(int sock)
{
    const char *who = "child";
    SHOW(who, "init", cuInit(0));
    int fd = recv_fd(sock);
    printf("%s: received a descriptor: %s\n", who, fd >= 0 ? "yes" : "no");
    CUmemGenericAllocationHandle h = 0;
    SHOW(who, "import", cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd,
                                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);   // the imported handle keeps the memory
    CUmemAllocationProp got = {};
    SHOW(who, "properties", cuMemGetAllocationPropertiesFromHandle(&got, h));
    printf("%s: type %d, location %d/%d, handle types %d\n", who, (int)got.type, (int)got.location.type,
           got.location.id, (int)got.requestedHandleTypes);
    CUdeviceptr va = map(who, h);
    SHOW(who, "release", cuMemRelease(h));   // the mapping keeps it alive
    cudaFree(0);
    unsigned *p = (unsigned *)(uintptr_t)va;
    printf("%s: sum of the parent's half: %08x\n", who, device_sum(p, N));
    fill<<<8, 128>>>(p + N, N, 0xc0ffee);
    printf("%s: fill: %s\n", who, cudaGetErrorName(cudaDeviceSynchronize()));
    SHOW(who, "unmap", cuMemUnmap(va, SIZE));
    SHOW(who, "address free", cuMemAddressFree(va, SIZE));
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "child")) return child(atoi(argv[2]));
    const char *who = "parent";
    SHOW(who, "init", cuInit(0));
    CUcontext cur = (CUcontext)1;
    cuCtxGetCurrent(&cur);
    printf("%s: a current context: %s\n", who, cur ? "yes" : "no");
    int posix = -1;
    cuDeviceGetAttribute(&posix, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0);
    printf("%s: posix descriptors supported: %d\n", who, posix);

    // creation and export, with no context
    CUmemAllocationProp prop = prop_for(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    size_t g = 0;
    SHOW(who, "granularity", cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h = 0, plain = 0, other = 0;
    SHOW(who, "create (posix fd)", cuMemCreate(&h, SIZE, &prop, 0));
    CUmemAllocationProp none = prop_for(CU_MEM_HANDLE_TYPE_NONE);
    SHOW(who, "create (no handle type)", cuMemCreate(&plain, SIZE, &none, 0));
    CUmemAllocationProp win = prop_for(CU_MEM_HANDLE_TYPE_WIN32);
    SHOW(who, "create (win32)", cuMemCreate(&other, SIZE, &win, 0));
    int fd = -1, fd2 = -1;
    SHOW(who, "export (not requested)", cuMemExportToShareableHandle(&fd2, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    SHOW(who, "export (win32)", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_WIN32, 0));
    SHOW(who, "export (flags)", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    SHOW(who, "export (null)", cuMemExportToShareableHandle(NULL, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    SHOW(who, "export", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    printf("%s: a descriptor: %s\n", who, fd >= 0 ? "yes" : "no");

    // imports of what is not an exported allocation
    CUmemGenericAllocationHandle bad = 0;
    SHOW(who, "import (-1)", cuMemImportFromShareableHandle(&bad, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    int devnull = open("/dev/null", O_RDONLY);
    SHOW(who, "import (/dev/null)", cuMemImportFromShareableHandle(&bad, (void *)(intptr_t)devnull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(devnull);
    SHOW(who, "import (win32 type)", cuMemImportFromShareableHandle(&bad, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_WIN32));
    SHOW(who, "import (null handle)", cuMemImportFromShareableHandle(NULL, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));

    // mapped in this process too; a kernel fills the first half
    CUdeviceptr va = map(who, h);
    cudaFree(0);
    unsigned *p = (unsigned *)(uintptr_t)va;
    fill<<<8, 128>>>(p, N, 0x1234);
    printf("%s: fill: %s\n", who, cudaGetErrorName(cudaDeviceSynchronize()));
    printf("%s: sum of its half: %08x\n", who, device_sum(p, N));

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return perror("socketpair"), 1;
    char arg[16];
    snprintf(arg, sizeof arg, "%d", sv[1]);
    char *args[] = { argv[0], (char *)"child", arg, NULL };
    fflush(stdout);
    pid_t pid;
    if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ)) return perror("posix_spawn"), 1;
    close(sv[1]);
    send_fd(sv[0], fd);
    close(fd);
    int st = 0;
    waitpid(pid, &st, 0);
    printf("%s: the child exited with %d\n", who, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    printf("%s: sum of the child's half: %08x\n", who, device_sum(p + N, N));
    unsigned first = 0;
    cudaMemcpy(&first, p + N + 5, sizeof first, cudaMemcpyDeviceToHost);
    printf("%s: the child's word 5: %08x\n", who, first);

    SHOW(who, "unmap", cuMemUnmap(va, SIZE));
    SHOW(who, "address free", cuMemAddressFree(va, SIZE));
    SHOW(who, "release", cuMemRelease(h));
    SHOW(who, "release (no handle type)", cuMemRelease(plain));
    return 0;
}
