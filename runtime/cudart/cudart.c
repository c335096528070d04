/* cudart.c - the runtime's implicit context: the driver is initialised at the first call
 * that needs the device, and each thread works in the context current on it (one the
 * program made through the driver API, or the primary context of the device cudaSetDevice
 * chose), else in the primary context of device 0. The runtime retains each device's
 * primary context once for the process.
 *
 * Nothing happens at load time or when the program's constructors register fatbinaries, so
 * a program that never touches the device pays nothing.
 */
#include <pthread.h>
#include "runtime/cudart/cudart_internal.h"

/* Recursive: helpers of one entry point may re-enter. Guards the registry. */
static pthread_mutex_t rt_mutex;
static pthread_once_t rt_mutex_once = PTHREAD_ONCE_INIT;

static void rt_mutex_make(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rt_mutex, &a);
    pthread_mutexattr_destroy(&a);
}

void rt_lock(void)
{
    pthread_once(&rt_mutex_once, rt_mutex_make);
    pthread_mutex_lock(&rt_mutex);
}

void rt_unlock(void)
{
    pthread_mutex_unlock(&rt_mutex);
}

static cudaError_t init_status = cudaErrorInitializationError;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Each device's primary context, retained once for the process at its first use. */
static CUcontext primaries[RT_MAX_DEVICES];
/* The device cudaSetDevice chose on this thread (device 0 until then). */
static _Thread_local int thread_device;

static void init_run(void)
{
    CUresult e = cuInit(0);
    init_status = e == CUDA_SUCCESS ? cudaSuccess : cudaErrorInitializationError;
}

cudaError_t rt_init(void)
{
    pthread_once(&init_once, init_run);
    return init_status;
}

/* A valid ordinal: cudaErrorInvalidDevice otherwise (after initialisation). */
cudaError_t rt_check_device(int device)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return e;
    CUdevice d;
    return device < 0 || device >= RT_MAX_DEVICES || cuDeviceGet(&d, device) != CUDA_SUCCESS
               ? cudaErrorInvalidDevice : cudaSuccess;
}

cudaError_t rt_primary(int device, CUcontext *out)
{
    cudaError_t e = rt_check_device(device);
    if (e != cudaSuccess) return e;
    rt_lock();
    CUresult r = primaries[device] ? CUDA_SUCCESS : cuDevicePrimaryCtxRetain(&primaries[device], device);
    *out = primaries[device];
    rt_unlock();
    return rt_err(r);
}

cudaError_t rt_enter_any(void)
{
    cudaError_t e = rt_init();
    if (e != cudaSuccess) return e;
    CUcontext c = NULL;
    if (cuCtxGetCurrent(&c) == CUDA_SUCCESS && c) return cudaSuccess;
    if ((e = rt_primary(thread_device, &c)) != cudaSuccess) return e;
    return rt_err(cuCtxSetCurrent(c));
}

/* After a kernel fault every call that uses the context returns the fault before it looks
 * at its arguments; cuCtxGetCacheConfig reports it without side effects. */
cudaError_t rt_enter(void)
{
    cudaError_t e = rt_enter_any();
    if (e != cudaSuccess) return e;
    CUfunc_cache c;
    return rt_err(cuCtxGetCacheConfig(&c));
}

/* The device's primary context becomes current on this thread (as NVIDIA's runtime does). */
cudaError_t rt_set_device(int device)
{
    CUcontext c;
    cudaError_t e = rt_primary(device, &c);
    if (e != cudaSuccess) return e;
    thread_device = device;
    return rt_err(cuCtxSetCurrent(c));
}

/* The device of the context current on this thread, else the one it chose. */
int rt_current_device(void)
{
    CUcontext c = NULL;
    CUdevice d;
    if (rt_init() == cudaSuccess && cuCtxGetCurrent(&c) == CUDA_SUCCESS && c &&
        cuCtxGetDevice(&d) == CUDA_SUCCESS)
        return d;
    return thread_device;
}

/* The device's primary context was reset (destroyed): the next call retains a new one. */
void rt_forget_primary(int device)
{
    CUcontext c = NULL;
    if (cuCtxGetCurrent(&c) == CUDA_SUCCESS && c && c == primaries[device]) cuCtxSetCurrent(NULL);
    primaries[device] = NULL;
}
