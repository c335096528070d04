// launch.cu - race-detector suite: several launches, streams, events and graphs
// (tests/run_race_suite.sh). A kernel boundary orders two launches only when stream order,
// an event wait, a host synchronisation or a graph edge says so. Each kernel is race-free on
// its own. argv[1] picks the case. Labels:
//@ 0 race any producer and consumer kernels in two non-blocking streams, nothing between them
//@ 1 free - producer and consumer kernels in one stream
//@ 2 free - consumer's stream waits on an event recorded after the producer
//@ 3 race any host synchronises the consumer's stream instead of the producer's
//@ 4 free - host synchronises the producer's stream before launching the consumer
//@ 5 race write-after-write two non-blocking streams' kernels store to the same buffer
//@ 6 free - two non-blocking streams' kernels atomicAdd the same counters
//@ 7 free - cudaDeviceSynchronize between launches in two non-blocking streams
//@ 8 race any event recorded before the producer launch, so waiting on it does not order the consumer
//@ 9 free - explicit graph: consumer kernel node depends on the producer node
//@ 10 race any explicit graph: producer and consumer kernel nodes without an edge
//@ 11 free - several in-place update launches in one stream
//@ 12 race any producer in the legacy default stream, consumer in a non-blocking stream
//@ 13 free - producer in the legacy default stream, consumer in a blocking stream
//@ 14 free - cudaEventSynchronize on the producer's event, then the consumer in another stream
//@ 15 free - two unordered kernels write disjoint halves of one allocation
//@ 16 free - two unordered kernels write the even and the odd bytes of the same words
//@ 17 race write-after-write two unordered kernels whose ranges overlap in one element
//@ 18 free - chain of three streams ordered by events
//@ 19 race any chain of three streams where the middle event is recorded before the middle stream's wait
//@ 20 free - buffer freed after a kernel in one stream, a new allocation at the same address used by a kernel in another stream
//@ 21 free - stream capture: two forked branches fill the halves of a buffer, the consumer is captured after the join
//@ 22 race any stream capture: the consumer is captured in the second branch, not after the first branch's producer
//@ 23 free - cudaMallocAsync/cudaFreeAsync in one stream, then cudaMallocAsync and a kernel in another stream
#include <cstdio>
#include <cstdlib>

__global__ void produce(int *buf) { buf[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x * 5 + 1; }
__global__ void consume(const int *buf, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = buf[i] + 1;
}
__global__ void bump(int *buf) { atomicAdd(&buf[threadIdx.x % 8], 1); }
__global__ void scale(int *buf) { buf[threadIdx.x] = buf[threadIdx.x] * 3 + 1; }
__global__ void fill(int *buf, int base) { buf[base + threadIdx.x] = base + threadIdx.x; }
__global__ void bytes(char *c, int odd) { c[2 * threadIdx.x + odd] = (char)threadIdx.x; }

int main(int argc, char **argv)
{
    int c = argc > 1 ? atoi(argv[1]) : 0;
    int *buf, *out, *out2;
    cudaMalloc(&buf, 4096);
    cudaMalloc(&out, 4096);
    cudaMalloc(&out2, 4096);
    cudaMemset(buf, 0, 4096);
    cudaMemset(out, 0, 4096);
    cudaMemset(out2, 0, 4096);
    cudaStream_t s1, s2, s3, b1;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b1, cudaStreamDefault);
    cudaEvent_t e1, e2;
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    cudaDeviceSynchronize();
    switch (c) {
    case 0:
        produce<<<1, 64, 0, s1>>>(buf);
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 1:
        produce<<<1, 64, 0, s1>>>(buf);
        consume<<<1, 64, 0, s1>>>(buf, out);
        break;
    case 2:
        produce<<<1, 64, 0, s1>>>(buf);
        cudaEventRecord(e1, s1);
        cudaStreamWaitEvent(s2, e1, 0);
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 3: case 4:
        produce<<<1, 64, 0, s1>>>(buf);
        cudaStreamSynchronize(c == 3 ? s2 : s1);
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 5:
        produce<<<1, 64, 0, s1>>>(buf);
        produce<<<1, 64, 0, s2>>>(buf);
        break;
    case 6:
        bump<<<1, 64, 0, s1>>>(buf);
        bump<<<1, 64, 0, s2>>>(buf);
        break;
    case 7:
        produce<<<1, 64, 0, s1>>>(buf);
        cudaDeviceSynchronize();
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 8:
        cudaEventRecord(e1, s1);
        produce<<<1, 64, 0, s1>>>(buf);
        cudaStreamWaitEvent(s2, e1, 0);
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 9: case 10: {
        cudaGraph_t g;
        cudaGraphNode_t np, nc;
        cudaGraphCreate(&g, 0);
        void *pa[] = {&buf};
        void *ca[] = {&buf, &out};
        cudaKernelNodeParams kp = {};
        kp.func = (void *)produce; kp.gridDim = dim3(1); kp.blockDim = dim3(64); kp.kernelParams = pa;
        cudaGraphAddKernelNode(&np, g, NULL, 0, &kp);
        cudaKernelNodeParams kc = kp;
        kc.func = (void *)consume; kc.kernelParams = ca;
        if (c == 9) cudaGraphAddKernelNode(&nc, g, &np, 1, &kc);
        else cudaGraphAddKernelNode(&nc, g, NULL, 0, &kc);
        cudaGraphExec_t x;
        cudaGraphInstantiate(&x, g, 0);
        cudaGraphLaunch(x, s1);
        cudaStreamSynchronize(s1);
        cudaGraphExecDestroy(x);
        cudaGraphDestroy(g);
        break;
    }
    case 11:
        for (int i = 0; i < 4; i++) scale<<<1, 64, 0, s1>>>(buf);
        break;
    case 12: case 13:
        produce<<<1, 64>>>(buf);
        consume<<<1, 64, 0, c == 12 ? s2 : b1>>>(buf, out);
        break;
    case 14:
        produce<<<1, 64, 0, s1>>>(buf);
        cudaEventRecord(e1, s1);
        cudaEventSynchronize(e1);
        consume<<<1, 64, 0, s2>>>(buf, out);
        break;
    case 15:
        fill<<<1, 64, 0, s1>>>(buf, 0);
        fill<<<1, 64, 0, s2>>>(buf, 64);
        break;
    case 16:
        bytes<<<1, 64, 0, s1>>>((char *)buf, 0);
        bytes<<<1, 64, 0, s2>>>((char *)buf, 1);
        break;
    case 17:
        fill<<<1, 64, 0, s1>>>(buf, 0);
        fill<<<1, 64, 0, s2>>>(buf, 63);
        break;
    case 18: case 19:
        produce<<<1, 64, 0, s1>>>(buf);
        cudaEventRecord(e1, s1);
        if (c == 19) cudaEventRecord(e2, s2);
        cudaStreamWaitEvent(s2, e1, 0);
        consume<<<1, 64, 0, s2>>>(buf, out);
        if (c == 18) cudaEventRecord(e2, s2);
        cudaStreamWaitEvent(s3, e2, 0);
        consume<<<1, 64, 0, s3>>>(buf, out2);
        break;
    case 20: {
        int *p, *q;
        cudaMalloc(&p, 4096);
        produce<<<1, 64, 0, s1>>>(p);
        cudaFree(p);
        cudaMalloc(&q, 4096);
        produce<<<1, 64, 0, s2>>>(q);
        break;
    }
    case 21: case 22: {
        cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal);
        cudaEventRecord(e1, s1);
        cudaStreamWaitEvent(s2, e1, 0);
        fill<<<1, 64, 0, s1>>>(buf, 0);
        fill<<<1, 64, 0, s2>>>(buf, 64);
        if (c == 22) consume<<<2, 64, 0, s2>>>(buf, out);
        cudaEventRecord(e2, s2);
        cudaStreamWaitEvent(s1, e2, 0);
        if (c == 21) consume<<<2, 64, 0, s1>>>(buf, out);
        cudaGraph_t g;
        cudaGraphExec_t x;
        cudaStreamEndCapture(s1, &g);
        cudaGraphInstantiate(&x, g, 0);
        cudaGraphLaunch(x, s1);
        cudaStreamSynchronize(s1);
        cudaGraphExecDestroy(x);
        cudaGraphDestroy(g);
        break;
    }
    case 23: {
        int *p, *q;
        cudaMallocAsync(&p, 4096, s1);
        produce<<<1, 64, 0, s1>>>(p);
        cudaFreeAsync(p, s1);
        cudaMallocAsync(&q, 4096, s2);
        produce<<<1, 64, 0, s2>>>(q);
        cudaFreeAsync(q, s2);
        break;
    }
    default: printf("case %d: no such case\n", c); return 2;
    }
    printf("case %d: %s\n", c, cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
