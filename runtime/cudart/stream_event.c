/* stream_event.c - streams and events, over the driver's cuStream* and cuEvent* calls
 * (cudaStream_t is CUstream and cudaEvent_t is CUevent; flags and callbacks agree).
 */
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

/* ---- streams ---- */

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                   int priority)
{
    RT_DRIVER(cuStreamCreateWithPriority(pStream, flags, priority));
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    RT_DRIVER(cuStreamCreate(pStream, flags));
}

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t *pStream)
{
    RT_DRIVER(cuStreamCreate(pStream, cudaStreamDefault));
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream)
{
    RT_DRIVER(cuStreamDestroy(stream));
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream)
{
    RT_DRIVER(cuStreamSynchronize(stream));
}
RT_TWIN(cudaError_t, cudaStreamSynchronize_ptsz, cudaStreamSynchronize, (cudaStream_t s), (s))

cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream)
{
    RT_DRIVER(cuStreamQuery(stream));
}
RT_TWIN(cudaError_t, cudaStreamQuery_ptsz, cudaStreamQuery, (cudaStream_t s), (s))

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                          unsigned int flags)
{
    RT_DRIVER(cuStreamWaitEvent(stream, event, flags));
}
RT_TWIN(cudaError_t, cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent,
        (cudaStream_t s, cudaEvent_t e, unsigned f), (s, e, f))

cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    RT_DRIVER(cuStreamGetFlags(hStream, flags));
}
RT_TWIN(cudaError_t, cudaStreamGetFlags_ptsz, cudaStreamGetFlags,
        (cudaStream_t s, unsigned *f), (s, f))

cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    RT_DRIVER(cuStreamGetPriority(hStream, priority));
}
RT_TWIN(cudaError_t, cudaStreamGetPriority_ptsz, cudaStreamGetPriority,
        (cudaStream_t s, int *p), (s, p))

cudaError_t CUDARTAPI cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    RT_DRIVER(cuStreamGetId(hStream, streamId));
}
RT_TWIN(cudaError_t, cudaStreamGetId_ptsz, cudaStreamGetId,
        (cudaStream_t s, unsigned long long *i), (s, i))

cudaError_t CUDARTAPI cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    RT_DRIVER(cuStreamGetDevice(hStream, device));
}
RT_TWIN(cudaError_t, cudaStreamGetDevice_ptsz, cudaStreamGetDevice,
        (cudaStream_t s, int *d), (s, d))

/* Stream attributes: cudaStreamAttrValue is CUstreamAttrValue (cudaLaunchAttributeValue has
 * the driver's layout), the ids agree. In the _ptsz forms the null stream is this thread's. */
cudaError_t CUDARTAPI cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                             cudaStreamAttrValue *value_out)
{
    RT_DRIVER(cuStreamGetAttribute(hStream, (CUstreamAttrID)attr, (CUstreamAttrValue *)value_out));
}
RT_TWIN(cudaError_t, cudaStreamGetAttribute_ptsz, cudaStreamGetAttribute,
        (cudaStream_t s, cudaStreamAttrID a, cudaStreamAttrValue *v), (s ? s : cudaStreamPerThread, a, v))

cudaError_t CUDARTAPI cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                             const cudaStreamAttrValue *value)
{
    RT_DRIVER(cuStreamSetAttribute(hStream, (CUstreamAttrID)attr, (const CUstreamAttrValue *)value));
}
RT_TWIN(cudaError_t, cudaStreamSetAttribute_ptsz, cudaStreamSetAttribute,
        (cudaStream_t s, cudaStreamAttrID a, const cudaStreamAttrValue *v),
        (s ? s : cudaStreamPerThread, a, v))

cudaError_t CUDARTAPI cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    RT_DRIVER(cuStreamCopyAttributes(dst, src));
}
RT_TWIN(cudaError_t, cudaStreamCopyAttributes_ptsz, cudaStreamCopyAttributes,
        (cudaStream_t d, cudaStream_t s), (d ? d : cudaStreamPerThread, s ? s : cudaStreamPerThread))

cudaError_t CUDARTAPI cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                               unsigned int flags)
{
    RT_DRIVER(cuStreamAttachMemAsync(stream, (CUdeviceptr)(uintptr_t)devPtr, length, flags));
}
RT_TWIN(cudaError_t, cudaStreamAttachMemAsync_ptsz, cudaStreamAttachMemAsync,
        (cudaStream_t s, void *p, size_t n, unsigned f), (s ? s : cudaStreamPerThread, p, n, f))

cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                            void *userData, unsigned int flags)
{
    RT_DRIVER(cuStreamAddCallback(stream, (CUstreamCallback)callback, userData, flags));
}
RT_TWIN(cudaError_t, cudaStreamAddCallback_ptsz, cudaStreamAddCallback,
        (cudaStream_t s, cudaStreamCallback_t c, void *u, unsigned f), (s, c, u, f))

cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    RT_DRIVER(cuLaunchHostFunc(stream, fn, userData));
}
RT_TWIN(cudaError_t, cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc,
        (cudaStream_t s, cudaHostFn_t f, void *u), (s, f, u))

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    RT_DRIVER(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
}

/* ---- events ---- */

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_DRIVER(cuEventCreate(event, flags));
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t *event)
{
    RT_DRIVER(cuEventCreate(event, cudaEventDefault));
}

/* Interprocess events (the driver's ipc.c): the handle types are the same 64 bytes. */
cudaError_t CUDARTAPI cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    RT_DRIVER(cuIpcGetEventHandle((CUipcEventHandle *)handle, event));
}

cudaError_t CUDARTAPI cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    CUipcEventHandle h;
    memcpy(&h, &handle, sizeof h);
    RT_DRIVER(cuIpcOpenEventHandle(event, h));
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event)
{
    RT_DRIVER(cuEventDestroy(event));
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                               unsigned int flags)
{
    RT_DRIVER(cuEventRecordWithFlags(event, stream, flags));
}
RT_TWIN(cudaError_t, cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags,
        (cudaEvent_t e, cudaStream_t s, unsigned f), (e, s, f))

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    RT_DRIVER(cuEventRecord(event, stream));
}
RT_TWIN(cudaError_t, cudaEventRecord_ptsz, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s))

cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event)
{
    RT_DRIVER(cuEventQuery(event));
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event)
{
    RT_DRIVER(cuEventSynchronize(event));
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_DRIVER(cuEventElapsedTime(ms, start, end));
}
