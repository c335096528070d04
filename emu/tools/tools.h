/* tools.h - what every tool includes: the observer interface, the read-only queries and the
 * report file, and each tool's attach function (tools/attach.c calls them). Tools see the
 * machine through these headers only (a make check test holds them to it). */
#ifndef PTXEMU_TOOLS_H
#define PTXEMU_TOOLS_H

#include "emu/observe.h"
#include "emu/query.h"
#include "emu/report.h"

/* Each returns 0, or -1 after saying why on stderr. */
int racecheck_attach(int fail_on_hazard);    /* PTXEMU_RACECHECK=1 / =error      */
int initcheck_attach(void);                  /* PTXEMU_INITCHECK=1               */
int profile_attach(int print);               /* PTXEMU_PROFILE=1 (print), PTXEMU_CLOCK=model */
int timeline_attach(const char *path);       /* PTXEMU_TIMELINE=FILE             */
int launchlog_attach(void);                  /* PTXEMU_REPORT_LAUNCHES=1         */
int debug_attach(void);                      /* PTXEMU_DEBUG / PTXEMU_TRACE...: 1 attached, 0 not asked */

#endif
