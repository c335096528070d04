/* jitlog.h - the info log of a verbose JIT link (jitlog.c). */
#ifndef PTXEMU_JITLOG_H
#define PTXEMU_JITLOG_H

#include "emu/emu.h"

/* The log the H100's driver writes for a verbose link of these n PTX texts, whose linked
 * module is em: ptxas's report (when ptxas is installed) and the linker's summary. A
 * malloc'd string, or NULL when out of memory. */
char *jitlog_verbose(const char *const *texts, int n, EmuModule *em);

#endif
