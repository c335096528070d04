/* observe.c - the attached tools and the dispatchers of their events (observe.h). */
#include <stdio.h>
#include "observe.h"

uint32_t obs_mask;
static const Observer *tools[OBS_MAX_TOOLS];
static int ntools;
static uint32_t needs;

int obs_attach(const Observer *o)
{
    if (ntools == OBS_MAX_TOOLS) {
        fprintf(stderr, "ptxemu: cannot attach %s: %d tools are attached already\n", o->tool_name,
                OBS_MAX_TOOLS);
        return -1;
    }
    tools[ntools] = o;
    obs_mask |= o->events;
    needs |= o->needs;
    return ntools++;
}

uint32_t obs_needs(void)
{
    return needs;
}

/* Every tool that subscribed to the event's group and has its callback. An OBS_EVI event
 * answers nonzero when one callback does (the others still run: a *_begin that failed for
 * one tool still begins for the others, so that each can clean up at the end). */
#define OBS_EV(group, name, params, args)                                       \
    int obs_##name params                                                        \
    {                                                                            \
        for (int i = 0; i < ntools; i++)                                         \
            if ((tools[i]->events & (group)) && tools[i]->name) tools[i]->name args; \
        return 0;                                                                \
    }
#define OBS_EVI(group, name, params, args)                                      \
    int obs_##name params                                                        \
    {                                                                            \
        int rc = 0;                                                              \
        for (int i = 0; i < ntools; i++)                                         \
            if ((tools[i]->events & (group)) && tools[i]->name && tools[i]->name args) rc = -1; \
        return rc;                                                               \
    }
#include "observe.def"
#undef OBS_EV
