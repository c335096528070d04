/* attach.c - the tools the environment asks for (the ptxemu launcher sets these variables from
 * its options), attached in the order their reports have always come: the race detector,
 * initcheck, the launch lines, the profile, the timeline, the step debugger. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attach.h"
#include "tools.h"
#include "emu/clock.h"

/* A variable set to anything but "" or "0". */
static int on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

static int attach_all(void)
{
    int rc = 0;
    if (on("PTXEMU_RACECHECK"))
        rc |= racecheck_attach(!strcmp(getenv("PTXEMU_RACECHECK"), "error"));
    if (on("PTXEMU_INITCHECK")) rc |= initcheck_attach();
    if (on("PTXEMU_REPORT_LAUNCHES")) rc |= launchlog_attach();
    /* --clock model: %clock reads the timing model's clock, which the profile's counts feed */
    const char *ck = getenv("PTXEMU_CLOCK");
    int model = ck && !strcmp(ck, "model");
    if (ck && *ck && !model && strcmp(ck, "host"))
        fprintf(stderr, "ptxemu: PTXEMU_CLOCK=%s: expected model or host; using host time\n", ck);
    if (model) emu_set_clock(&model_clock);
    if (on("PTXEMU_PROFILE") || model) rc |= profile_attach(on("PTXEMU_PROFILE"));
    const char *tl = getenv("PTXEMU_TIMELINE");
    if (tl && *tl) rc |= timeline_attach(tl);
    if (debug_attach() < 0) rc = -1;
    return rc ? -1 : 0;
}

int tools_attach(void)
{
    static int done, status;
    if (!done) { done = 1; status = attach_all(); }
    return status;
}
