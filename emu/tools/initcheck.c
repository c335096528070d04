/* initcheck.c - the initcheck tool (PTXEMU_INITCHECK=1): reads of device memory that nothing
 * wrote.
 *
 * Device allocations (cudaMalloc, cuMemAlloc and their kin: not pinned, managed or module
 * memory, which the host or an initializer fills) start unwritten, a bit a byte; host copies
 * and fills, kernel stores and atomics, and landing asynchronous copies mark bytes written.
 * A CTA's shared memory starts unwritten for each CTA. A kernel read of an unwritten byte is
 * reported once per instruction on stderr (a warning naming kernel, line, thread, address and
 * allocation) and as a "kind":"uninitialized-read" line to PTXEMU_REPORT.
 *
 * Allocations are few and change only between launches on the host side, kernels read
 * them from every worker: a sorted array of (base, size, bitmap) behind a read-write lock;
 * bits are set with atomic ORs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools.h"

static int slot;   /* Cta.tool[slot]: its shared bytes written, a bit each */

typedef struct Tracked { uint64_t base; size_t size; uint8_t *bits; } Tracked;
static Tracked *tr;
static size_t ntr, captr;
static pthread_rwlock_t tr_lock = PTHREAD_RWLOCK_INITIALIZER;

/* The tracked allocation holding addr (caller holds the lock), or NULL. */
static Tracked *find(uint64_t addr)
{
    size_t lo = 0, hi = ntr;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tr[mid].base <= addr) lo = mid + 1; else hi = mid;
    }
    if (!lo) return NULL;
    Tracked *t = &tr[lo - 1];
    return addr - t->base < t->size ? t : NULL;
}

static void init_alloc(uint64_t base, size_t size, int kind)
{
    if (kind != MEM_DEVICE || !size) return;
    uint8_t *bits = calloc((size + 7) / 8, 1);
    if (!bits) return;   /* untracked: no reports about it */
    pthread_rwlock_wrlock(&tr_lock);
    if (ntr == captr) {
        size_t nc = captr ? captr * 2 : 64;
        Tracked *n = realloc(tr, nc * sizeof *n);
        if (!n) { pthread_rwlock_unlock(&tr_lock); free(bits); return; }
        tr = n; captr = nc;
    }
    size_t i = ntr;
    while (i > 0 && tr[i - 1].base > base) { tr[i] = tr[i - 1]; i--; }
    tr[i] = (Tracked){ base, size, bits };
    ntr++;
    pthread_rwlock_unlock(&tr_lock);
}

static void init_free(uint64_t base, size_t size)
{
    (void)size;
    pthread_rwlock_wrlock(&tr_lock);
    Tracked *t = find(base);
    if (t && t->base == base) {
        free(t->bits);
        size_t i = (size_t)(t - tr);
        memmove(&tr[i], &tr[i + 1], (ntr - i - 1) * sizeof *tr);
        ntr--;
    }
    pthread_rwlock_unlock(&tr_lock);
}

static void set_bits(uint8_t *bits, size_t from, size_t n)
{
    for (size_t b = from; b < from + n; b++)
        if (!(bits[b / 8] >> (b % 8) & 1)) __atomic_fetch_or(&bits[b / 8], (uint8_t)(1u << (b % 8)), __ATOMIC_RELAXED);
}

/* The first unwritten byte of [from, from+n), or -1. */
static long first_unset(const uint8_t *bits, size_t from, size_t n)
{
    for (size_t b = from; b < from + n; b++)
        if (!(__atomic_load_n(&bits[b / 8], __ATOMIC_RELAXED) >> (b % 8) & 1)) return (long)b;
    return -1;
}

static void init_write(uint64_t addr, size_t n)
{
    if (!n) return;
    pthread_rwlock_rdlock(&tr_lock);
    while (n) {   /* a copy may span allocations that lie back to back */
        Tracked *t = find(addr);
        if (!t) break;
        size_t off = (size_t)(addr - t->base), k = n < t->size - off ? n : t->size - off;
        set_bits(t->bits, off, k);
        addr += k; n -= k;
    }
    pthread_rwlock_unlock(&tr_lock);
}

static int init_cta_begin(Cta *c)
{
    free(c->tool[slot]);
    c->tool[slot] = calloc(c->shared_size / 8 + 1, 1);
    return c->tool[slot] ? 0 : -1;
}

static void init_cta_end(Cta *c)
{
    free(c->tool[slot]);
    c->tool[slot] = NULL;
}

/* Host copies and fills write what they write; reads change nothing. */
static void init_host_access(uint64_t addr, size_t n, int write)
{
    if (write) init_write(addr, n);
}

static void init_tensor_wrote(uint64_t addr, size_t n)
{
    init_write(addr, n);
}

/* Reported instructions: one report each (program, pc) for the process. */
static struct { const Program *p; uint32_t pc; } seen[256];
static unsigned nseen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int first_time(const Program *p, uint32_t pc)
{
    pthread_mutex_lock(&seen_lock);
    int fresh = 1;
    for (unsigned i = 0; i < nseen && fresh; i++) fresh = !(seen[i].p == p && seen[i].pc == pc);
    if (fresh && nseen < sizeof seen / sizeof seen[0]) { seen[nseen].p = p; seen[nseen].pc = pc; nseen++; }
    else if (fresh) fresh = 0;   /* past 256 places: stay quiet */
    pthread_mutex_unlock(&seen_lock);
    return fresh;
}

static void report(Warp *w, int lane, const char *space, uint64_t addr, unsigned size,
                   uint64_t off, size_t asize)
{
    if (!first_time(w->prog, w->pc)) return;
    char at[512];
    warp_where(w, lane, at, sizeof at);
    if (!strcmp(space, "global"))
        fprintf(stderr, "ptxemu: initcheck: %s: reads %u bytes of global memory at 0x%llx (offset %llu of "
                "a %zu-byte allocation) that nothing wrote\n", at, size, (unsigned long long)addr,
                (unsigned long long)off, asize);
    else
        fprintf(stderr, "ptxemu: initcheck: %s: reads %u bytes of shared memory at offset 0x%llx that no "
                "thread of the block wrote\n", at, size, (unsigned long long)off);
    FILE *js = report_open();
    if (!js) return;
    fprintf(js, "{\"kind\":\"uninitialized-read\",\"space\":\"%s\",\"address\":%llu,\"offset\":%llu,"
            "\"bytes\":%u,\"allocation_size\":%zu,", space, (unsigned long long)addr,
            (unsigned long long)off, size, asize);
    report_kernel(js, w->prog);
    fputc(',', js);
    report_place(js, w, lane);
    fprintf(js, ",\"seed\":%llu}\n", (unsigned long long)(w->launch->det ? w->launch->seed : 0));
    report_close(js);
}

/* The CTA of the cluster whose shared memory holds p, or NULL. */
static Cta *shared_owner(Warp *w, const uint8_t *p)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t r = 0; cl && r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        if (p >= c->shared && p < c->shared + c->shared_size) return c;
    }
    return NULL;
}

static void init_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                       uint8_t *const host[WARP_SIZE])
{
    (void)in;
    int reads = access != ACC_WRITE;   /* atomics read, then write */
    pthread_rwlock_rdlock(&tr_lock);
    FOR_LANES(mask, l) {
        const uint8_t *p = host[l];
        Cta *c = w->cta ? shared_owner(w, p) : NULL;
        if (c) {
            if (!((uint8_t *)c->tool[slot])) continue;
            size_t off = (size_t)(p - c->shared);
            if (reads && first_unset(((uint8_t *)c->tool[slot]), off, size) >= 0)
                report(w, l, "shared", off, size, off, c->shared_size);
            if (access != ACC_READ) set_bits(((uint8_t *)c->tool[slot]), off, size);
            continue;
        }
        Tracked *t = find((uint64_t)(uintptr_t)p);
        if (!t) continue;
        size_t off = (size_t)((uint64_t)(uintptr_t)p - t->base), n = size < t->size - off ? size : t->size - off;
        if (reads && first_unset(t->bits, off, n) >= 0)
            report(w, l, "global", (uint64_t)(uintptr_t)p, size, off, t->size);
        if (access != ACC_READ) set_bits(t->bits, off, n);
    }
    pthread_rwlock_unlock(&tr_lock);
}

/* An asynchronous copy landed: its bytes are written (shared memory of a CTA of the
 * cluster, or global memory). */
static void init_async_wrote(Warp *w, const uint8_t *d, uint32_t size)
{
    Cta *c = shared_owner(w, d);
    if (c && c->tool[slot] && d + size <= c->shared + c->shared_size)
        set_bits(c->tool[slot], (size_t)(d - c->shared), size);
    else if (!c)
        init_write((uint64_t)(uintptr_t)d, size);
}

static const Observer initcheck = {
    .tool_name = "initcheck", .events = OBS_CTA | OBS_MEM | OBS_ALLOC | OBS_HOST,
    .cta_begin = init_cta_begin, .cta_end = init_cta_end, .mem = init_access,
    .async_wrote = init_async_wrote, .tensor_wrote = init_tensor_wrote, .alloc = init_alloc,
    .release = init_free, .host_access = init_host_access,
};

int initcheck_attach(void)
{
    return (slot = obs_attach(&initcheck)) < 0 ? -1 : 0;
}
