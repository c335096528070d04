/* callsite.c - where in the program a driver call came from: the first frames of the stack
 * outside ptxemu's libraries (libcuda.so.1, libcudart.so.13, NVIDIA's libcudart when it runs
 * over ours), for messages such as the leak report. A program built with the static runtime
 * has the runtime's frames in its own file: the first of those is named, with the frames
 * above it, so `addr2line -f -e PROGRAM OFFSET` finds the caller. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <string.h>
#include "runtime/driver/drv.h"

static int ours(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return !strncmp(b, "libcuda.so", 10) || !strncmp(b, "libcudart.so", 12) ||
           !strncmp(b, "libptxemu", 9);
}

void drv_callsite(uintptr_t site[DRV_SITE_FRAMES])
{
    void *frames[32];
    int n = backtrace(frames, 32), k = 0;
    memset(site, 0, DRV_SITE_FRAMES * sizeof *site);
    for (int i = 1; i < n && k < DRV_SITE_FRAMES; i++) {
        Dl_info di;
        if (!dladdr(frames[i], &di) || !di.dli_fname) continue;
        if (!k && ours(di.dli_fname)) continue;
        site[k++] = (uintptr_t)frames[i];
    }
}

void drv_callsite_format(const uintptr_t site[DRV_SITE_FRAMES], char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < DRV_SITE_FRAMES && site[k] && at < n; k++) {
        Dl_info di;
        if (!dladdr((void *)site[k], &di) || !di.dli_fname) break;
        /* a return address: the call is the instruction before it */
        uintptr_t off = site[k] - 1 - (uintptr_t)di.dli_fbase;
        int w = di.dli_sname
            ? snprintf(buf + at, n - at, "%s%s(%s)+0x%lx", k ? " < " : "", di.dli_fname, di.dli_sname,
                       (unsigned long)(site[k] - 1 - (uintptr_t)di.dli_saddr))
            : snprintf(buf + at, n - at, "%s%s+0x%lx", k ? " < " : "", di.dli_fname, (unsigned long)off);
        if (w < 0) break;
        at += (size_t)w;
    }
}
