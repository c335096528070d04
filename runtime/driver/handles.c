/* handles.c - the registry of live handles: which pointers the driver handed out, and as what.
 *
 * Programs pass back contexts, modules, functions, streams, events and link states as opaque
 * pointers; a stale or garbage one must give CUDA_ERROR_INVALID_HANDLE (or _CONTEXT), never
 * a crash, so nothing is dereferenced before it is found here. An open-addressing table of
 * pointers; removed entries become tombstones. Callers hold the driver lock.
 */
#include <stdlib.h>
#include "runtime/driver/drv.h"

typedef struct Slot { const void *p; int kind; } Slot;
#define TOMB ((const void *)1)

static Slot *slots;
static size_t cap, used;       /* used: live entries and tombstones */

static size_t hash(const void *p, size_t n)
{
    return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (n - 1);
}

static int grow(void)
{
    size_t nc = cap ? cap * 2 : 256;
    Slot *ns = calloc(nc, sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < cap; i++) {
        if (!slots[i].p || slots[i].p == TOMB) continue;
        size_t j = hash(slots[i].p, nc);
        while (ns[j].p) j = (j + 1) & (nc - 1);
        ns[j] = slots[i];
    }
    free(slots);
    slots = ns;
    cap = nc;
    used = 0;
    for (size_t i = 0; i < nc; i++) used += ns[i].p != NULL;
    return 0;
}

static Slot *find(const void *p)
{
    if (!cap || !p || p == TOMB) return NULL;
    for (size_t i = hash(p, cap);; i = (i + 1) & (cap - 1)) {
        if (slots[i].p == p) return &slots[i];
        if (!slots[i].p) return NULL;
    }
}

int drv_handle_add(const void *p, int kind)
{
    if ((used + 1) * 2 > cap && grow()) return -1;
    size_t i = hash(p, cap);
    while (slots[i].p && slots[i].p != TOMB) i = (i + 1) & (cap - 1);
    if (!slots[i].p) used++;
    slots[i] = (Slot){ p, kind };
    return 0;
}

void drv_handle_del(const void *p)
{
    Slot *s = find(p);
    if (s) *s = (Slot){ TOMB, H_NONE };
}

int drv_handle_kind(const void *p)
{
    Slot *s = find(p);
    return s ? s->kind : H_NONE;
}
