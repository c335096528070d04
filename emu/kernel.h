/* kernel.h - a kernel's Program and the checks of a launch configuration (kernel.c), shared
 * by the host's launches (emu.c) and the device's (cdp.c). */
#ifndef PTXEMU_KERNEL_H
#define PTXEMU_KERNEL_H

#include <stddef.h>
#include "machine.h"
#include "emu.h"

/* The Program of k, bound for the tools attached now; NULL with the message in err and the
 * cudaError_t in *rc. */
const Program *emu_kernel_program(EmuKernel *k, char *err, size_t errlen, int *rc);
/* The kernel a device function pointer names (dynamic parallelism), NULL if none. */
EmuKernel *emu_kernel_from_pointer(EmuKernel *parent, uint64_t fnptr);
/* Grid, block and shared memory against the limits and the kernel's .reqntid/.maxntid;
 * EMU_OK or the error, its message in err. */
int kernel_check_config(const Program *p, const unsigned g[3], const unsigned b[3], size_t dyn,
                        char *err, size_t errlen);
/* L's cluster shape: the launch's (cluster, or NULL), else the kernel's .reqnctapercluster,
 * else single CTAs; fills L->cluster, cluster_size and explicit_cluster. */
int kernel_cluster_shape(const Program *p, const unsigned g[3], const unsigned *cluster,
                         Launch *L, char *err, size_t errlen);
/* A cluster of L finished after running thread_insts: the kernel source hears how long a
 * plain kernel has run (the compiled tier builds the ones that run long). */
void kernel_ran(Launch *L, uint64_t thread_insts);
/* The configuration check of a launch from the device. */
int emu_check_child(EmuKernel *k, const unsigned grid[3], const unsigned block[3], size_t dyn,
                    char *err, size_t errlen);

#endif
