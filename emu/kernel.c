/* kernel.c - the kernels the machine runs: their Programs come from the kernel source the
 * layer above registers (emu.h), for the events the attached tools observe; and whether a
 * launch configuration fits a kernel (from the host, or from the device: cdp.c). */
#include <stdio.h>
#include "kernel.h"
#include "observe.h"

/* The source registered by the layer above (emu.h), before any launch. */
static const EmuKernelSource *source;
void emu_set_kernel_source(const EmuKernelSource *src) { source = src; }


int kernel_check_config(const Program *p, const unsigned g[3], const unsigned b[3], size_t dyn,
                        char *err, size_t errlen)
{
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2] || threads > 1024 || b[0] > 1024 ||
        b[1] > 1024 || b[2] > 64 || g[0] > 0x7fffffffu || g[1] > 65535 || g[2] > 65535) {
        snprintf(err, errlen, "ptxemu: kernel %s: invalid launch configuration grid (%u,%u,%u) "
                 "block (%u,%u,%u)", p->name, g[0], g[1], g[2], b[0], b[1], b[2]);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    if (p->reqntid[0] && (b[0] != (unsigned)p->reqntid[0] ||
                             b[1] != (unsigned)(p->reqntid[1] ? p->reqntid[1] : 1) ||
                             b[2] != (unsigned)(p->reqntid[2] ? p->reqntid[2] : 1))) {
        snprintf(err, errlen, "ptxemu: kernel %s requires a block of (%d,%d,%d) threads (.reqntid)",
                 p->name, p->reqntid[0], p->reqntid[1] ? p->reqntid[1] : 1,
                 p->reqntid[2] ? p->reqntid[2] : 1);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    if (p->maxntid[0]) {
        uint64_t mx = (uint64_t)p->maxntid[0] * (p->maxntid[1] ? p->maxntid[1] : 1) *
                      (p->maxntid[2] ? p->maxntid[2] : 1);
        if (threads > mx) {
            snprintf(err, errlen, "ptxemu: kernel %s allows at most %llu threads a block (.maxntid)",
                     p->name, (unsigned long long)mx);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
    }
    if (p->shared_static + dyn > 227u * 1024) {
        snprintf(err, errlen, "ptxemu: kernel %s needs %zu bytes of shared memory a block; the "
                 "limit is 232448", p->name, (size_t)p->shared_static + dyn);
        return EMU_ERR_INVALID_VALUE;
    }
    return EMU_OK;
}


/* Cluster shape: the launch's, else the kernel's .reqnctapercluster, else single CTAs. */
int kernel_cluster_shape(const Program *p, const unsigned g[3], const unsigned *cluster,
                         Launch *L, char *err, size_t errlen)
{
    const int *req = p->reqncta;
    for (int i = 0; i < 3; i++) {
        unsigned want = req[0] ? (unsigned)(req[i] ? req[i] : 1) : 0;
        unsigned c = cluster ? cluster[i] : want ? want : 1;
        if (cluster && want && c != want) {
            snprintf(err, errlen, "ptxemu: kernel %s requires clusters of (%d,%d,%d) CTAs "
                     "(.reqnctapercluster)", p->name, req[0], req[1] ? req[1] : 1,
                     req[2] ? req[2] : 1);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
        if (!c || g[i] % c) {
            snprintf(err, errlen, "ptxemu: kernel %s: grid (%u,%u,%u) is not a whole number of "
                     "clusters of (%u,%u,%u)", p->name, g[0], g[1], g[2],
                     cluster ? cluster[0] : 1, cluster ? cluster[1] : 1, cluster ? cluster[2] : 1);
            return EMU_ERR_INVALID_CONFIGURATION;
        }
        L->cluster[i] = c;
    }
    L->cluster_size = L->cluster[0] * L->cluster[1] * L->cluster[2];
    if (L->cluster_size > MAX_CLUSTER) {
        snprintf(err, errlen, "ptxemu: kernel %s: a cluster of %u CTAs is larger than %d",
                 p->name, L->cluster_size, MAX_CLUSTER);
        return EMU_ERR_INVALID_CONFIGURATION;
    }
    L->explicit_cluster = cluster != NULL || req[0] || p->explicit_cluster;
    return EMU_OK;
}


/* The Program of k for launches now (with the tools attached now). */
static const Program *program_of(EmuKernel *k, char *err, size_t errlen, int *rc)
{
    if (!source) {
        snprintf(err, errlen, "ptxemu: no kernels: nothing translates them");
        *rc = EMU_ERR_INVALID_DEVICE_FUNCTION;
        return NULL;
    }
    return source->program(k, obs_mask, err, errlen, rc);
}

EmuKernel *emu_kernel_from_pointer(EmuKernel *parent, uint64_t fnptr)
{
    return source ? source->from_pointer(parent, fnptr) : NULL;
}

const Program *emu_kernel_program(EmuKernel *k, char *err, size_t errlen, int *rc)
{
    return program_of(k, err, errlen, rc);
}

int emu_check_child(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn,
                    char *err, size_t errlen)
{
    int rc;
    const Program *p = program_of(k, err, errlen, &rc);
    return p ? kernel_check_config(p, grid, block, dyn, err, errlen) : rc;
}

void kernel_ran(Launch *L, uint64_t thread_insts)
{
    Program *p = (Program *)L->prog;   /* Program.hot is the one counter a launch adds to */
    if (L->obs || !source || !source->hot || __atomic_load_n(&p->native, __ATOMIC_RELAXED)) return;
    source->hot(L->kernel, p, __atomic_add_fetch(&p->hot, thread_insts, __ATOMIC_RELAXED));
}
