/* jitlog.h - the info log of a verbose JIT link (jitlog.c). */
#ifndef PTXEMU_JITLOG_H
#define PTXEMU_JITLOG_H

#include "jit/jit.h"

/* The log the H100's driver writes for a verbose link of these n PTX texts, whose linked
 * module is em: ptxas's report (when ptxas is installed) and the linker's summary. A
 * malloc'd string, or NULL when out of memory. */
char *jitlog_verbose(const char *const *texts, int n, JitModule *em);

/* ptxas's report on the n texts for sm_90a (malloc'd), or NULL without ptxas or when it
 * fails; and the registers it gives kernel `name` in such a report, or -1. */
char *jitlog_ptxas_report(const char *const *texts, int n);
int jitlog_regs(const char *report, const char *name);

#endif
