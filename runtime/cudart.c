/* cudart.c - libcudart shim core: lazy start of the emulator from PTXEMU_* settings, the lock.
 *
 * The emulator starts at the first call that needs device memory or a kernel, not when the
 * program's constructors register their fatbinaries, so that a program which never touches
 * the device pays nothing.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include "runtime/cudart_internal.h"

/* Recursive, because device-side callbacks into the host and nested helpers may re-enter. */
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

/* Integer environment setting in [lo, hi]; a bad value warns and yields the default. */
static int rt_env_int(const char *name, int lo, int hi, int dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        rt_diag("warning: ignoring %s=%s (expected an integer from %d to %d)", name, s, lo, hi);
        return dflt;
    }
    return (int)v;
}

size_t rt_default_heap, rt_default_stack;

static cudaError_t rt_init_status = cudaErrorInitializationError;
static pthread_once_t rt_init_once = PTHREAD_ONCE_INIT;

static void rt_init_run(void)
{
    emu_log_level = rt_env_int("PTXEMU_LOG", 0, 3, 1);
    int threads = rt_env_int("PTXEMU_THREADS", 0, 4096, 0);
    int rc = emu_init(threads);
    if (rc != EMU_OK) {
        rt_diag("cannot start the emulator (error %d): device memory could not be reserved", rc);
        rt_init_status = cudaErrorInitializationError;
        return;
    }
    rt_default_heap = emu_heap_size();
    rt_default_stack = emu_stack_size();
    rt_init_status = cudaSuccess;
}

cudaError_t rt_init(void)
{
    pthread_once(&rt_init_once, rt_init_run);
    return rt_init_status;
}
