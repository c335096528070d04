/* compile.h - the compiled tier: a kernel's plain Program written as C, built by the system
 * compiler into a shared object (cached on disk by the hash of its source), and run by
 * warp_run instead of the interpreter once it is loaded (emu/native.h).
 *
 * Contract: only plain Programs (no tool observes the launch) are compiled. PTXEMU_TIER picks
 * the tier: "interp" never compiles; "compiled" builds each kernel at its translation, before
 * its first launch; "auto" (the default) builds a kernel in the background once it has run
 * PTXEMU_JIT_HOT thread instructions (100 million), so that a short kernel stays interpreted
 * and a long one switches to compiled code between warp turns. A kernel that cannot be built
 * runs interpreted under "auto" (said once on stderr); under "compiled" it fails to load, as
 * the tier that was asked for cannot run it. Compiled and interpreted code give the same bytes.
 * A large kernel is compiled as several translation units by up to PTXEMU_JIT_JOBS compilers
 * at once, linked into one shared object. Under "compiled" the first kernel of a module to be
 * translated starts the builds of the module's other kernels too, within the same
 * PTXEMU_JIT_JOBS compilers (its own first), so that their launches find them built.
 */
#ifndef PTXEMU_JIT_COMPILE_H
#define PTXEMU_JIT_COMPILE_H

#include <stddef.h>
#include <stdint.h>
#include "emu/machine.h"

enum { TIER_INTERP, TIER_AUTO, TIER_COMPILED };
int jit_tier(void);

/* A plain Program was translated: under TIER_COMPILED it is built now; -1 when that failed
 * (the tier was asked for: the kernel does not run). siblings: Programs of the same module's
 * other kernels, translated but not launched yet, queued to build in the background at the
 * same time (within PTXEMU_JIT_JOBS compilers, p's first); each must go through
 * jit_native_wait before it runs. */
int jit_native_new(Program *p, Program *const *siblings, int nsiblings);
/* Before each launch of a Program found already translated: under TIER_COMPILED, waits until
 * its build (queued as a sibling) is done, building it here if it has not started; -1 when
 * the build failed. Returns at once for a Program built or not compiled. */
int jit_native_wait(Program *p);
/* The Program has run `total` thread instructions so far: under TIER_AUTO a hot one is queued
 * for the background builder. Any thread may call it. */
void jit_native_hot(Program *p, uint64_t total);
/* The Program is about to be freed: it leaves the builder's queue (waiting for a build in
 * progress), and its shared object is closed. */
void jit_native_forget(Program *p);

/* The kernel's C source (for tests and PTXEMU_JIT_DUMP), malloc'd, NUL-terminated: a large
 * kernel's translation units one after another (each is compiled alone). */
char *jit_native_source(const Program *p);

#endif
