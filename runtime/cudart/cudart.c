/* cudart.c - the runtime's implicit context: the driver is initialised at the first call
 * that needs the device, and each thread works in the context current on it (one the
 * program made through the driver API), else in the device's primary context, which the
 * runtime retains once for the process.
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
static CUcontext primary;

static void init_run(void)
{
    CUresult e = cuInit(0);
    init_status = e == CUDA_SUCCESS ? cudaSuccess : cudaErrorInitializationError;
}

cudaError_t rt_enter_any(void)
{
    pthread_once(&init_once, init_run);
    if (init_status != cudaSuccess) return init_status;
    CUcontext c = NULL;
    if (cuCtxGetCurrent(&c) == CUDA_SUCCESS && c) return cudaSuccess;
    rt_lock();
    CUresult e = primary ? CUDA_SUCCESS : cuDevicePrimaryCtxRetain(&primary, 0);
    rt_unlock();
    if (e == CUDA_SUCCESS) e = cuCtxSetCurrent(primary);
    return rt_err(e);
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

/* The primary context was reset (destroyed): the next call retains a new one. */
void rt_forget_primary(void)
{
    CUcontext c = NULL;
    if (cuCtxGetCurrent(&c) == CUDA_SUCCESS && c == primary) cuCtxSetCurrent(NULL);
    primary = NULL;
}
