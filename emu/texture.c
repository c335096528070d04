/* texture.c - the table of live texture and surface objects (texture.h).
 *
 * A handle is a slot index plus one, so 0 is never a handle, as in CUDA. Slots are reused
 * only after every other one has been used once (a cursor goes round), so a stale handle
 * of a destroyed object usually finds an empty slot and faults rather than reading a
 * newer object. Lookups from kernels are one atomic load; changes take a mutex.
 */
#include <stdlib.h>
#include <pthread.h>
#include "texture.h"

#define TEX_SLOTS 65536u

static EmuTex *slots[TEX_SLOTS];
static unsigned cursor;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t emu_tex_register(const EmuTex *t)
{
    EmuTex *c = malloc(sizeof *c);
    if (!c) return 0;
    *c = *t;
    pthread_mutex_lock(&lock);
    for (unsigned n = 0; n < TEX_SLOTS; n++) {
        unsigned i = (cursor + n) % TEX_SLOTS;
        if (!slots[i]) {
            __atomic_store_n(&slots[i], c, __ATOMIC_RELEASE);
            cursor = i + 1;
            pthread_mutex_unlock(&lock);
            return (uint64_t)i + 1;
        }
    }
    pthread_mutex_unlock(&lock);
    free(c);
    return 0;
}

int emu_tex_unregister(uint64_t h, int surface)
{
    if (h == 0 || h > TEX_SLOTS) return -1;
    pthread_mutex_lock(&lock);
    EmuTex *c = slots[h - 1];
    int ok = c && c->surface == surface;
    if (ok) __atomic_store_n(&slots[h - 1], NULL, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
    if (!ok) return -1;
    free(c);
    return 0;
}

const EmuTex *emu_tex_lookup(uint64_t h)
{
    if (h == 0 || h > TEX_SLOTS) return NULL;
    return __atomic_load_n(&slots[h - 1], __ATOMIC_ACQUIRE);
}
