/* observe.h - the one way the machine tells tools what happens.
 *
 * Contract: a tool is an Observer, a struct of callbacks (one per event of observe.def) and the
 * groups of events it subscribes to, attached before the first launch (tools/attach.c reads the
 * environment and attaches them). The core never names a tool: it emits events with OBSERVE,
 * which tests a mask - the launch's (Launch.obs, fixed when the launch is set up) or, outside a
 * launch, the process's (obs_mask) - and costs one untaken branch when nobody subscribed.
 * Translation binds each kernel per mask (jit/translate.c): handlers that touch memory,
 * barriers or asynchronous state come in a plain variant, which emits nothing and tests
 * nothing, and an observed one; a launch with no tool attached runs plain code only.
 * Tools see the machine through query.h and write records through report.h; what a tool keeps
 * with a launch, cluster, block or warp goes in its slot (tool[] / Warp.tool[]).
 */
#ifndef PTXEMU_OBSERVE_H
#define PTXEMU_OBSERVE_H

#include <stddef.h>
#include <stdint.h>
#include "machine.h"
#include "events.h"

/* Groups of events (observe.def names each event's). */
enum {
    OBS_LAUNCH = 1u << 0,   /* launches and the work they launch from the device      */
    OBS_CTA    = 1u << 1,   /* thread blocks resident and done                        */
    OBS_SPAN   = 1u << 2,   /* intervals on the emulated clock (runs the clock)       */
    OBS_MEM    = 1u << 3,   /* memory accesses of warp instructions, bytes written    */
    OBS_ALLOC  = 1u << 4,   /* device allocations and frees                           */
    OBS_HOST   = 1u << 5,   /* host copies and fills, stream order                    */
    OBS_SYNC   = 1u << 6,   /* barriers, fences, mbarriers, warp sync, wgmma          */
    OBS_ASYNC  = 1u << 7,   /* asynchronous copies: issue, landing, waits             */
    OBS_STEP   = 1u << 8,   /* every instruction, before and after (deterministic)    */
};

/* What a tool needs of the machine besides its events. */
enum {
    OBS_NEEDS_DETERMINISTIC = 1u << 0,  /* one thread runs every warp (seed 1 unless set)  */
    OBS_NEEDS_PTX_TEXT      = 1u << 1,  /* modules keep their PTX text (Program.ptx_text)  */
    OBS_NEEDS_STREAM_ORDER  = 1u << 2,  /* the driver reports stream order of all work and
                                         * never parks a launch (stream_order, host_copy_*) */
};

/* fence kinds (the fence event) */
enum { FENCE_PLAIN, FENCE_PROXY_ASYNC, FENCE_MBAR_INIT };


/* The group each event belongs to: OBSG_name. */
enum {
#define OBS_EV(group, name, params, args) OBSG_##name = group,
#include "observe.def"
#undef OBS_EV
};

typedef struct Observer {
    const char *tool_name;      /* "racecheck", for messages                                */
    uint32_t events;            /* OBS_* groups it subscribes to                            */
    uint32_t needs;             /* OBS_NEEDS_*                                              */
#define OBS_EV(group, name, params, args) void (*name) params;
#define OBS_EVI(group, name, params, args) int (*name) params;
#include "observe.def"
#undef OBS_EV
} Observer;

/* Attach a tool (before the first launch; at most OBS_MAX_TOOLS). Tools are called in the
 * order they were attached. Returns its slot: the index of tool[] it may use in Launch,
 * Cluster and Cta, and of Warp.tool[]; -1 when there is no room. */
int obs_attach(const Observer *o);
/* The groups some attached tool subscribes to, and what they need together. */
extern uint32_t obs_mask;
uint32_t obs_needs(void);

/* Dispatchers: call every attached tool's callback of that event. */
#define OBS_EV(group, name, params, args) int obs_##name params;
#include "observe.def"
#undef OBS_EV

/* Emit event `ev` when `mask` has its group: an expression, nonzero when a callback of an
 * OBS_EVI event answered nonzero, else 0. The one way the core calls a tool. */
#define OBSERVE(mask, ev, ...) \
    (__builtin_expect(((mask) & OBSG_##ev) != 0, 0) ? obs_##ev(__VA_ARGS__) : 0)
/* Whether a mask has a group (the core prepares what an event carries only then). */
#define OBSERVING(mask, group) __builtin_expect(((mask) & (group)) != 0, 0)

/* Handlers with a plain and an observed variant: the body is an always-inline function
 * taking `const int V` (1: observed), which emits with OBSERVE(OBS_IF(V, w->launch->obs), ...);
 * the plain variant's events fold away at compile time. OBS_VARIANTS defines name_plain and
 * name_obs; OBS_PICK chooses at bind time from the translation's mask (InstDesc.obs). */
#define OBS_IF(V, mask) ((V) ? (mask) : 0u)
#define OBS_VARIANTS(name)                                                               \
    static int name##_plain(Warp *w, const Inst *in, uint32_t mask) { return name(w, in, mask, 0); } \
    static int name##_obs(Warp *w, const Inst *in, uint32_t mask) { return name(w, in, mask, 1); }
#define OBS_PICK(obs, groups, name) (((obs) & (groups)) ? name##_obs : name##_plain)

#endif
