// vmm.cu - virtual memory management through the driver API: granularity, address
// reservations, physical allocations mapped (twice: two addresses, one set of bytes),
// access, properties and retained handles, kernels reading and writing mapped memory, and
// the errors of bad calls. The last case touches an unmapped range from a kernel (an
// illegal address ends the context).
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void fill(unsigned *p, unsigned n, unsigned base)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i * 7u;
}

__global__ void sum(const unsigned *p, unsigned n, unsigned *out)
{
    unsigned s = 0;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x) s += p[i] ^ i;
    atomicAdd(out, s);
}

static const char *name(CUresult e)
{
    const char *s = 0;
    cuGetErrorName(e, &s);
    return s ? s : "?";
}

#define SHOW(what, call) printf("%s: %s\n", what, name(call))

int main()
{
    cudaFree(0);   // the runtime's primary context is current from here on
    CUdevice dev;
    cuCtxGetDevice(&dev);
    int vmm = 0;
    cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
    printf("virtual memory management supported: %d\n", vmm);

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gmin = 0, grec = 0;
    SHOW("granularity minimum", cuMemGetAllocationGranularity(&gmin, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    SHOW("granularity recommended", cuMemGetAllocationGranularity(&grec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    printf("granularity: %zu %zu\n", gmin, grec);
    CUmemAllocationProp bad = prop;
    bad.location.id = 99;
    SHOW("granularity of device 99", cuMemGetAllocationGranularity(&gmin, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM));

    size_t g = gmin, size = 2 * g;
    CUmemGenericAllocationHandle a, b, r;
    SHOW("create a", cuMemCreate(&a, g, &prop, 0));
    SHOW("create b", cuMemCreate(&b, g, &prop, 0));
    SHOW("create half a page", cuMemCreate(&r, g / 2, &prop, 0));
    SHOW("create with flags 1", cuMemCreate(&r, g, &prop, 1));

    CUdeviceptr va = 0, vb = 0;
    SHOW("reserve 2 pages", cuMemAddressReserve(&va, size, 0, 0, 0));
    SHOW("reserve 1 page", cuMemAddressReserve(&vb, g, 0, 0, 0));
    SHOW("reserve half a page", cuMemAddressReserve(&vb, g / 2, 0, 0, 0));
    printf("reservations aligned to the granularity: %d %d\n", (int)(va % g == 0), (int)(vb % g == 0));

    SHOW("map a at va", cuMemMap(va, g, 0, a, 0));
    SHOW("map b at va + g", cuMemMap(va + g, g, 0, b, 0));
    SHOW("map a at vb", cuMemMap(vb, g, 0, a, 0));
    SHOW("map b over a mapping", cuMemMap(va, g, 0, b, 0));
    SHOW("map past the allocation", cuMemMap(va, g, g, b, 0));
    SHOW("map at an unaligned address", cuMemMap(va + 4096, g, 0, b, 0));
    SHOW("release a while mapped", cuMemRelease(a));
    SHOW("release b while mapped", cuMemRelease(b));

    CUmemAccessDesc acc = {};
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    SHOW("set access va", cuMemSetAccess(va, size, &acc, 1));
    SHOW("set access vb", cuMemSetAccess(vb, g, &acc, 1));
    unsigned long long flags = 99;
    SHOW("get access", cuMemGetAccess(&flags, &prop.location, va + 100));
    printf("access flags: %llu\n", flags);

    unsigned n = (unsigned)(size / 4), *out;
    cudaMalloc(&out, 4);
    fill<<<(n + 255) / 256, 256>>>((unsigned *)va, n, 5u);
    printf("fill: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaMemset(out, 0, 4);
    sum<<<1, 256>>>((const unsigned *)va, n, out);
    unsigned h = 0;
    cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost);
    printf("sum over va: %u\n", h);
    // the first page through its second mapping: the same bytes
    cudaMemset(out, 0, 4);
    sum<<<1, 256>>>((const unsigned *)vb, n / 2, out);
    cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost);
    printf("sum over vb: %u\n", h);
    unsigned words[2] = { 0, 0 };
    SHOW("copy from vb", cuMemcpyDtoH(words, vb + 4 * 1000, 8));
    printf("words at vb[1000]: %u %u\n", words[0], words[1]);
    SHOW("copy to va + g", cuMemcpyHtoD(va + g, words, 8));
    SHOW("copy from va + g", cuMemcpyDtoH(words + 1, va + g, 4));
    printf("word at va + g: %u\n", words[1]);

    CUmemGenericAllocationHandle back = 0;
    SHOW("retain handle of vb", cuMemRetainAllocationHandle(&back, (void *)(vb + 12345)));
    CUmemAllocationProp got = {};
    SHOW("properties", cuMemGetAllocationPropertiesFromHandle(&got, back));
    printf("properties: type %d location %d/%d\n", (int)got.type, (int)got.location.type, got.location.id);
    SHOW("release retained", cuMemRelease(back));

    SHOW("unmap half of va", cuMemUnmap(va, g / 2));
    SHOW("free va while mapped", cuMemAddressFree(va, size));
    SHOW("unmap va", cuMemUnmap(va, size));
    SHOW("free va", cuMemAddressFree(va, size));
    SHOW("free va again", cuMemAddressFree(va, size));
    // a's bytes are still mapped at vb
    SHOW("copy from vb after va is gone", cuMemcpyDtoH(words, vb + 4 * 1000, 4));
    printf("word at vb[1000]: %u\n", words[0]);
    SHOW("unmap vb", cuMemUnmap(vb, g));
    SHOW("release a again", cuMemRelease(a));
    SHOW("free vb", cuMemAddressFree(vb, g));

    // a kernel touching a reserved but unmapped range
    CUdeviceptr vc = 0;
    cuMemAddressReserve(&vc, g, 0, 0, 0);
    fill<<<1, 32>>>((unsigned *)vc, 32, 1u);
    printf("kernel on an unmapped range: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
