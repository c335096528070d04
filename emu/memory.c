/* memory.c - the device memory arena: allocation, the allocation table, and per-space address
 * resolution with the diagnostics of bad accesses.
 *
 * Layout: one 96 GiB PROT_NONE reservation. Each block starts 256-byte aligned (cudaMalloc's
 * alignment) and owns a footprint of its size rounded up to 256 plus a 256-byte gap, so a
 * small overrun lands in no live allocation. Space below `bump` that no live footprint covers
 * is kept in a sorted, coalesced free list (first fit); freeing the topmost block lowers
 * `bump`, so a cudaMalloc/cudaFree loop reuses the same address and never grows. Pages are
 * committed with mprotect on allocation and returned (MADV_DONTNEED + PROT_NONE) once no live
 * footprint touches them. The reservation is advised for transparent huge pages, so a kernel's
 * first touch of a large array faults once per 2 MiB instead of once per 4 KiB page (what the
 * first launch over fresh memory paid, from every worker at once); only aligned 2 MiB ranges
 * that lie wholly inside committed memory can get one, so small allocations stay in 4 KiB pages.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "memory.h"
#include "observe.h"
#include "emu.h"
#include "exec_mem_fast.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ARENA_SIZE  (96ull << 30)
#define ARENA_HINT  0x700000000000ull
#define DEVICE_MEM  (80ull << 30)      /* reported total: 80 GiB, an H100 80GB rounded      */
#define BLOCK_ALIGN 256ull
#define GAP         256ull
#define HISTORY     64                 /* recently freed blocks remembered for messages     */

typedef struct Block { uint64_t start, size; int kind, dev; uint32_t grant; } Block;   /* dev: MEM_ANY_DEVICE or owner; grant: other devices allowed */
typedef struct Range { uint64_t start, end; } Range;

static struct {
    pthread_rwlock_t lock;
    uint64_t bump, hwm;                /* next never-used byte; highest bump ever          */
    Block *live; size_t nlive, clive;  /* sorted by start                                   */
    Range *free; size_t nfree, cfree;  /* sorted, coalesced, all below bump                 */
    size_t used;                       /* bytes of live device-side blocks                  */
    size_t used_dev[MEM_MAX_DEVICES];  /* of which each device owns (the rest: every one's) */
    Block freed[HISTORY]; unsigned nfreed;
    long page;
} A = { .lock = PTHREAD_RWLOCK_INITIALIZER };

__thread MemCache mem_cache __attribute__((tls_model("initial-exec")));
/* Devices whose memory the running launch may touch (its own and its enabled peers). */
static uint32_t access_mask = ~0u;
static int launch_dev = -1;   /* the device of the running launch (-1: unknown) */
uint64_t mem_generation;
uint64_t mem_arena_lo, mem_arena_hi;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_status = -1;
static int hugepages = 1;   /* PTXEMU_HUGEPAGES=0: 4 KiB pages only (to measure the difference) */

/* Advises [p, p+len) of the arena for huge pages: at the reservation, and again wherever a
 * range of it was mapped afresh (a new mapping does not inherit the advice). Advice only:
 * a kernel without transparent huge pages refuses it, and the arena works as before. */
static void hugepage_advice(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    if (hugepages) madvise(p, len, MADV_HUGEPAGE);
#else
    (void)p; (void)len;
#endif
}

static void arena_reserve(void)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *p = mmap((void *)ARENA_HINT, ARENA_SIZE, PROT_NONE, flags | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p == MAP_FAILED)              /* hint taken (or refused): anywhere will do         */
        p = mmap(NULL, ARENA_SIZE, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED) return;
    const char *h = getenv("PTXEMU_HUGEPAGES");
    hugepages = !(h && !strcmp(h, "0"));
    hugepage_advice(p, ARENA_SIZE);
    mem_arena_lo = (uint64_t)(uintptr_t)p;
    mem_arena_hi = mem_arena_lo + ARENA_SIZE;
    /* Start one block in, so no device pointer is ever the arena's first byte and an
     * underrun of the first allocation is still inside the arena for messages. */
    A.bump = A.hwm = mem_arena_lo + 4096;
    A.page = sysconf(_SC_PAGESIZE);
    init_status = 0;
}

int mem_init(void)
{
    pthread_once(&init_once, arena_reserve);
    return init_status;
}

int mem_in_arena(uint64_t addr) { return mem_in_arena_fast(addr); }

static uint64_t footprint(uint64_t size)
{
    return ((size + BLOCK_ALIGN - 1) & ~(BLOCK_ALIGN - 1)) + GAP;
}

static uint64_t page_down(uint64_t a) { return a & ~(uint64_t)(A.page - 1); }
static uint64_t page_up(uint64_t a) { return page_down(a + A.page - 1); }

/* Index of the last live block starting at or below addr, or -1. */
static long find_below(uint64_t addr)
{
    size_t lo = 0, hi = A.nlive;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (A.live[mid].start <= addr) lo = mid + 1; else hi = mid;
    }
    return (long)lo - 1;
}

static const Block *find_live(uint64_t addr)
{
    long i = find_below(addr);
    return (i >= 0 && addr - A.live[i].start < A.live[i].size) ? &A.live[i] : NULL;
}

static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    void *p = realloc(*arr, nc * elem);
    if (!p) return -1;
    *arr = p; *cap = nc;
    return 0;
}

/* Take fsz bytes: first fit in the free list, else from bump. 0 when the arena is full. */
/* Fresh address space first: a freed block's addresses are reused only once the 96 GiB
 * arena has been used up, so a kernel touching freed memory faults instead of hitting a
 * newer allocation (seen: a freed 64 MiB block handed to the next launch's parameters). */
static uint64_t take_range(uint64_t fsz)
{
    if (mem_arena_hi - A.bump >= fsz) {
        uint64_t s = A.bump;
        A.bump += fsz;
        if (A.bump > A.hwm) A.hwm = A.bump;
        return s;
    }
    for (size_t i = 0; i < A.nfree; i++) {
        Range *r = &A.free[i];
        if (r->end - r->start < fsz) continue;
        uint64_t s = r->start;
        r->start += fsz;
        if (r->start == r->end) {
            memmove(r, r + 1, (A.nfree - i - 1) * sizeof *r);
            A.nfree--;
        }
        return s;
    }
    if (mem_arena_hi - A.bump < fsz) return 0;
    uint64_t s = A.bump;
    A.bump += fsz;
    if (A.bump > A.hwm) A.hwm = A.bump;
    return s;
}

/* Give [s, e) back: coalesce into the free list; returns the whole free range
 * now containing it, so the caller can decommit its pages. -1 when the list cannot grow. */
static int give_range(uint64_t s, uint64_t e, Range *out)
{
    size_t i = 0;
    while (i < A.nfree && A.free[i].start < s) i++;
    int left = i > 0 && A.free[i - 1].end == s;
    int right = i < A.nfree && A.free[i].start == e;
    if (left && right) {
        A.free[i - 1].end = A.free[i].end;
        memmove(&A.free[i], &A.free[i + 1], (A.nfree - i - 1) * sizeof(Range));
        A.nfree--;
        i--;
    } else if (left) {
        A.free[--i].end = e;
    } else if (right) {
        A.free[i].start = s;
    } else {
        if (grow((void **)&A.free, &A.cfree, A.nfree, sizeof(Range))) return -1;
        memmove(&A.free[i + 1], &A.free[i], (A.nfree - i) * sizeof(Range));
        A.free[i] = (Range){ s, e };
        A.nfree++;
    }
    *out = A.free[i];
    return 0;
}

static int registered(int kind) { return kind == MEM_REGISTERED || kind == MEM_REGISTERED_RO; }
/* Another process's allocation opened here is that process's device memory, not this one's. */
static int counts_as_device(int kind)
{
    return kind != MEM_HOST_PINNED && !registered(kind) && kind != MEM_IPC;
}

/* Device-side bytes in use as device dev sees them: its own blocks and the shared ones (module
 * variables, heaps, managed memory); for a shared block, the fullest device. Lock held. */
static size_t used_on(int dev)
{
    size_t own = 0, most = 0;
    for (int d = 0; d < MEM_MAX_DEVICES; d++) {
        own += A.used_dev[d];
        if (A.used_dev[d] > most) most = A.used_dev[d];
    }
    return A.used - own + (dev == MEM_ANY_DEVICE ? most : A.used_dev[dev]);
}

uint64_t mem_alloc(size_t size, int kind)
{
    return mem_alloc_on(size, kind, MEM_ANY_DEVICE);
}

uint64_t mem_alloc_on(size_t size, int kind, int dev)
{
    if (size == 0 || mem_init() || size > ARENA_SIZE) return 0;
    if (dev < MEM_ANY_DEVICE || dev >= MEM_MAX_DEVICES) return 0;
    uint64_t fsz = footprint(size), s = 0;
    pthread_rwlock_wrlock(&A.lock);
    if (counts_as_device(kind) && used_on(dev) + size > DEVICE_MEM) goto out;
    if (grow((void **)&A.live, &A.clive, A.nlive, sizeof(Block))) goto out;
    s = take_range(fsz);
    if (!s) goto out;
    if (mprotect((void *)(uintptr_t)page_down(s), page_up(s + size) - page_down(s),
                 PROT_READ | PROT_WRITE)) {
        Range r;
        give_range(s, s + fsz, &r);   /* cannot fail: s came from a range just split      */
        s = 0;
        goto out;
    }
    size_t i = (size_t)(find_below(s) + 1);
    memmove(&A.live[i + 1], &A.live[i], (A.nlive - i) * sizeof(Block));
    A.live[i] = (Block){ s, size, kind, dev, 0 };
    A.nlive++;
    if (counts_as_device(kind)) A.used += size;
    if (counts_as_device(kind) && dev != MEM_ANY_DEVICE) A.used_dev[dev] += size;
out:
    pthread_rwlock_unlock(&A.lock);
    if (s) OBSERVE(obs_mask, alloc, s, size, kind);
    return s;
}

int mem_free(uint64_t addr, int kind)
{
    if (mem_init()) return -1;
    int rc = -1;
    pthread_rwlock_wrlock(&A.lock);
    long i = find_below(addr);
    if (i < 0 || A.live[i].start != addr) goto out;
    Block b = A.live[i];
    if (b.kind != kind && !(kind == MEM_DEVICE && b.kind == MEM_MANAGED)) goto out;
    uint64_t fsz = footprint(b.size);
    Range r;
    if (give_range(b.start, b.start + fsz, &r)) goto out;
    memmove(&A.live[i], &A.live[i + 1], (A.nlive - (size_t)i - 1) * sizeof(Block));
    A.nlive--;
    OBSERVE(obs_mask, release, b.start, b.size);   /* tools' shadows of it start over */
    if (counts_as_device(b.kind)) A.used -= b.size;
    if (counts_as_device(b.kind) && b.dev != MEM_ANY_DEVICE) A.used_dev[b.dev] -= b.size;
    A.freed[A.nfreed++ % HISTORY] = b;
    /* Return the pages no live footprint touches any more: those inside the coalesced free
     * range that overlap the block just freed. */
    uint64_t lo = page_up(r.start), hi = page_down(r.end);
    uint64_t flo = page_down(b.start), fhi = page_up(b.start + fsz);
    if (flo > lo) lo = flo;
    if (fhi < hi) hi = fhi;
    if (lo < hi) {
        madvise((void *)(uintptr_t)lo, hi - lo, MADV_DONTNEED);
        mprotect((void *)(uintptr_t)lo, hi - lo, PROT_NONE);
    }
    __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

void *mem_host(uint64_t addr, size_t size)
{
    void *p = NULL;
    pthread_rwlock_rdlock(&A.lock);
    const Block *b = find_live(addr);
    if (b && size <= b->size - (addr - b->start)) p = (void *)(uintptr_t)addr;
    pthread_rwlock_unlock(&A.lock);
    return p;
}

uint64_t mem_find(uint64_t addr, size_t *size_out, int *kind_out)
{
    uint64_t s = 0;
    pthread_rwlock_rdlock(&A.lock);
    const Block *b = find_live(addr);
    if (b) {
        s = b->start;
        if (size_out) *size_out = b->size;
        if (kind_out) *kind_out = b->kind;
    }
    pthread_rwlock_unlock(&A.lock);
    return s;
}

static int peer_ok(const Block *b);

uint64_t mem_find_reachable(uint64_t addr, size_t *size_out)
{
    uint64_t s = 0;
    pthread_rwlock_rdlock(&A.lock);
    const Block *b = find_live(addr);
    if (b && peer_ok(b)) {
        s = b->start;
        *size_out = b->size;
    }
    pthread_rwlock_unlock(&A.lock);
    return s;
}

void mem_usage(size_t *used, size_t *total)
{
    pthread_rwlock_rdlock(&A.lock);
    if (used) *used = A.used;
    pthread_rwlock_unlock(&A.lock);
    if (total) *total = DEVICE_MEM;
}

size_t mem_used_on(int dev)
{
    if (dev < MEM_ANY_DEVICE || dev >= MEM_MAX_DEVICES) return 0;
    pthread_rwlock_rdlock(&A.lock);
    size_t u = used_on(dev);
    pthread_rwlock_unlock(&A.lock);
    return u;
}

/* Cached lookups were checked against the old mask: a new one drops them. */
void mem_set_launch_device(int dev)
{
    __atomic_store_n(&launch_dev, dev, __ATOMIC_RELEASE);
}

int mem_grant(uint64_t addr, uint32_t devices)
{
    int rc = -1;
    pthread_rwlock_wrlock(&A.lock);
    long i = find_below(addr);
    if (i >= 0 && A.live[i].start == addr) {
        A.live[i].grant = devices;
        rc = 0;
    }
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

void mem_set_access(uint32_t mask)
{
    if (__atomic_exchange_n(&access_mask, mask, __ATOMIC_ACQ_REL) != mask)
        __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);
}

int mem_generic_space(uint64_t addr)
{
    if (mem_in_arena_fast(addr)) return SP_GLOBAL;
    if (addr - SHARED_WINDOW < WINDOW_SIZE) return SP_SHARED;
    if (addr - LOCAL_WINDOW < WINDOW_SIZE) return SP_LOCAL;
    if (__atomic_load_n(&mem_nregistered, __ATOMIC_ACQUIRE) && mem_registered_at(addr))
        return SP_GLOBAL;
    return SP_NONE;
}

/* ---- registered host memory ---- */

int mem_nregistered;

int mem_registered_at(uint64_t addr)
{
    pthread_rwlock_rdlock(&A.lock);
    const Block *b = find_live(addr);
    int r = b && registered(b->kind);
    pthread_rwlock_unlock(&A.lock);
    return r;
}

static int overlaps(uint64_t lo, uint64_t hi, uint64_t wlo, uint64_t whi)
{
    return lo < whi && wlo < hi;
}

int mem_register(uint64_t addr, size_t size, int read_only)
{
    if (mem_init()) return MEM_REG_NOMEM;
    uint64_t end = addr + size;
    if (!size || end < addr) return MEM_REG_UNUSABLE;
    if (overlaps(addr, end, mem_arena_lo, mem_arena_hi) ||
        overlaps(addr, end, SHARED_WINDOW, SHARED_WINDOW + WINDOW_SIZE) ||
        overlaps(addr, end, LOCAL_WINDOW, LOCAL_WINDOW + WINDOW_SIZE))
        return MEM_REG_UNUSABLE;
    int rc = 0;
    pthread_rwlock_wrlock(&A.lock);
    long i = find_below(end - 1);   /* the last block starting inside or before the range */
    if (i >= 0 && A.live[i].start + A.live[i].size > addr) { rc = MEM_REG_OVERLAP; goto out; }
    if (grow((void **)&A.live, &A.clive, A.nlive, sizeof(Block))) { rc = MEM_REG_NOMEM; goto out; }
    i++;
    memmove(&A.live[i + 1], &A.live[i], (A.nlive - (size_t)i) * sizeof(Block));
    A.live[i] = (Block){ addr, size, read_only ? MEM_REGISTERED_RO : MEM_REGISTERED, MEM_ANY_DEVICE, 0 };
    A.nlive++;
    __atomic_add_fetch(&mem_nregistered, 1, __ATOMIC_RELEASE);
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

int mem_unregister(uint64_t addr)
{
    if (mem_init()) return MEM_REG_NONE;
    int rc = 0;
    pthread_rwlock_wrlock(&A.lock);
    long i = find_below(addr);
    const Block *b = find_live(addr);
    if (!b || !registered(b->kind)) { rc = MEM_REG_NONE; goto out; }
    if (b->start != addr) { rc = MEM_REG_INSIDE; goto out; }
    OBSERVE(obs_mask, release, b->start, b->size);
    memmove(&A.live[i], &A.live[i + 1], (A.nlive - (size_t)i - 1) * sizeof(Block));
    A.nlive--;
    __atomic_sub_fetch(&mem_nregistered, 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);   /* drop cached lookups */
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

/* ---- virtual memory management ----
 * Reservations and mappings are few (a program maps a handful of ranges), so plain arrays.
 * Mapping replaces the arena's anonymous pages by the memfd's (MAP_SHARED, so two mappings
 * of one physical allocation see the same bytes); unmapping puts PROT_NONE anonymous pages
 * back. Every function takes the write lock. */

#define VMM_GRAIN (2ull << 20)

typedef struct Vres { Range use, taken; } Vres;   /* taken: what take_range gave (aligned use inside) */
typedef struct Vmap { uint64_t start, size; int access; } Vmap;
static struct { Vres *res; size_t nres, cres; Vmap *map; size_t nmap, cmap; } V;

static int vmm_reserved(uint64_t addr, uint64_t size)
{
    for (size_t i = 0; i < V.nres; i++)
        if (addr >= V.res[i].use.start && addr < V.res[i].use.end && size <= V.res[i].use.end - addr)
            return 1;
    return 0;
}

uint64_t mem_vmm_reserve(size_t size, size_t align)
{
    if (!size || mem_init() || (align & (align - 1))) return 0;
    if (align < VMM_GRAIN) align = VMM_GRAIN;
    uint64_t s = 0;
    pthread_rwlock_wrlock(&A.lock);
    if (grow((void **)&V.res, &V.cres, V.nres, sizeof(Vres))) goto out;
    /* take size + align so an aligned start fits; the slack stays with the reservation */
    uint64_t t = take_range(size + align);
    if (!t) goto out;
    s = (t + align - 1) & ~(uint64_t)(align - 1);
    V.res[V.nres++] = (Vres){ { s, s + size }, { t, t + size + align } };
out:
    pthread_rwlock_unlock(&A.lock);
    return s;
}

int mem_vmm_free(uint64_t addr, size_t size)
{
    int rc = MEM_VMM_INVALID;
    pthread_rwlock_wrlock(&A.lock);
    for (size_t i = 0; i < V.nres; i++) {
        if (V.res[i].use.start != addr || V.res[i].use.end - addr != size) continue;
        for (size_t k = 0; k < V.nmap; k++)
            if (V.map[k].start >= addr && V.map[k].start < addr + size) goto out;   /* mapped */
        Range r, taken = V.res[i].taken;
        if (give_range(taken.start, taken.end, &r)) { rc = MEM_VMM_NOMEM; goto out; }
        memmove(&V.res[i], &V.res[i + 1], (V.nres - i - 1) * sizeof(Vres));
        V.nres--;
        rc = 0;
        break;
    }
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

static int vmm_overlaps_map(uint64_t addr, uint64_t size)
{
    for (size_t k = 0; k < V.nmap; k++)
        if (overlaps(addr, addr + size, V.map[k].start, V.map[k].start + V.map[k].size)) return 1;
    return 0;
}

int mem_vmm_map(uint64_t addr, size_t size, int fd, size_t offset)
{
    int rc = MEM_VMM_INVALID;
    pthread_rwlock_wrlock(&A.lock);
    if (!size || !vmm_reserved(addr, size) || vmm_overlaps_map(addr, size)) goto out;
    if (grow((void **)&V.map, &V.cmap, V.nmap, sizeof(Vmap))) { rc = MEM_VMM_NOMEM; goto out; }
    void *p = mmap((void *)(uintptr_t)addr, size, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, (off_t)offset);
    if (p == MAP_FAILED) { rc = MEM_VMM_NOMEM; goto out; }
    V.map[V.nmap++] = (Vmap){ addr, size, 0 };
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

/* Drop the live block of mapping m, if it has one (caller holds the write lock). */
static void vmm_forget_block(const Vmap *m)
{
    long i = find_below(m->start);
    if (i < 0 || A.live[i].start != m->start || A.live[i].kind != MEM_VMM) return;
    memmove(&A.live[i], &A.live[i + 1], (A.nlive - (size_t)i - 1) * sizeof(Block));
    A.nlive--;
    OBSERVE(obs_mask, release, m->start, m->size);
}

int mem_vmm_unmap(uint64_t addr, size_t size)
{
    int rc = MEM_VMM_INVALID;
    pthread_rwlock_wrlock(&A.lock);
    /* the range must be made of whole mappings */
    uint64_t covered = 0;
    for (size_t k = 0; k < V.nmap; k++)
        if (V.map[k].start >= addr && V.map[k].start < addr + size) {
            if (V.map[k].size > addr + size - V.map[k].start) goto out;
            covered += V.map[k].size;
        }
    if (!size || covered != size) goto out;
    for (size_t k = 0; k < V.nmap;) {
        Vmap *m = &V.map[k];
        if (m->start < addr || m->start >= addr + size) { k++; continue; }
        vmm_forget_block(m);
        if (mmap((void *)(uintptr_t)m->start, m->size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) != MAP_FAILED)
            hugepage_advice((void *)(uintptr_t)m->start, m->size);
        memmove(m, m + 1, (V.nmap - k - 1) * sizeof(Vmap));
        V.nmap--;
    }
    __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

int mem_vmm_set_access(uint64_t addr, size_t size, int rw)
{
    int rc = MEM_VMM_INVALID;
    pthread_rwlock_wrlock(&A.lock);
    uint64_t covered = 0;
    for (size_t k = 0; k < V.nmap; k++)
        if (overlaps(addr, addr + size, V.map[k].start, V.map[k].start + V.map[k].size)) {
            if (V.map[k].start < addr || V.map[k].size > addr + size - V.map[k].start) goto out;
            covered += V.map[k].size;
        }
    if (!size || covered != size) goto out;   /* every byte must be mapped */
    if (grow((void **)&A.live, &A.clive, A.nlive + V.nmap, sizeof(Block))) { rc = MEM_VMM_NOMEM; goto out; }
    for (size_t k = 0; k < V.nmap; k++) {
        Vmap *m = &V.map[k];
        if (m->start < addr || m->start >= addr + size || m->access == rw) continue;
        mprotect((void *)(uintptr_t)m->start, m->size, rw ? PROT_READ | PROT_WRITE : PROT_NONE);
        if (rw) {
            size_t i = (size_t)(find_below(m->start) + 1);
            memmove(&A.live[i + 1], &A.live[i], (A.nlive - i) * sizeof(Block));
            A.live[i] = (Block){ m->start, m->size, MEM_VMM, MEM_ANY_DEVICE, 0 };
            A.nlive++;
        } else {
            vmm_forget_block(m);
        }
        m->access = rw;
    }
    __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

/* ---- interprocess sharing (cuIpcGetMemHandle, cuIpcOpenMemHandle) ----
 * Exporting moves a block's whole pages (its neighbours' bytes on the first and last page
 * too: blocks are 256-byte aligned, not page-aligned) onto a memfd the caller made, in place:
 * the bytes are copied into the memfd mapped elsewhere, and that mapping is moved over the
 * old pages with mremap, so no address changes and no byte is lost. Opening maps the same
 * memfd at fresh address space of the arena and makes only the exported block's bytes a live
 * block there. Both are few, so plain arrays; every function takes the write lock. */

typedef struct Ipcmap { Range taken; uint64_t lo, len, start; } Ipcmap;
static struct { Ipcmap *m; size_t n, c; } I;

/* Whether [addr, addr+size) touches address space given to an opened handle. */
static int ipc_taken(uint64_t addr, uint64_t size)
{
    for (size_t k = 0; k < I.n; k++)
        if (overlaps(addr, addr + size, I.m[k].taken.start, I.m[k].taken.end)) return 1;
    return 0;
}

/* Put a copy of the len bytes at lo, now in the mapping fresh (len bytes, read-write), in
 * place of them. 0 ok; -1 with nothing changed (fresh is then unmapped). */
static int move_over(uint64_t lo, uint64_t len, void *fresh)
{
    memcpy(fresh, (void *)(uintptr_t)lo, len);
    if (mremap(fresh, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)(uintptr_t)lo) ==
        MAP_FAILED) {
        munmap(fresh, len);
        return -1;
    }
    return 0;
}

int mem_ipc_export(uint64_t start, int fd, uint64_t *lo_out, size_t *len_out)
{
    if (mem_init()) return -1;
    int rc = -1;
    size_t size = 0;
    pthread_rwlock_wrlock(&A.lock);
    long i = find_below(start);
    if (i < 0 || A.live[i].start != start || A.live[i].kind != MEM_DEVICE) goto out;
    size = A.live[i].size;
    uint64_t lo = page_down(start), len = page_up(start + size) - lo;
    if (ftruncate(fd, (off_t)len)) goto out;
    void *fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fresh == MAP_FAILED || move_over(lo, len, fresh)) goto out;
    *lo_out = lo;
    *len_out = len;
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    if (rc == 0) {
        /* from now on another process may write it: the tools' shadows (what was written,
         * by whom) cannot know those writes, so the block starts over for them as memory
         * of another kind (initcheck tracks MEM_DEVICE only) */
        OBSERVE(obs_mask, release, start, size);
        OBSERVE(obs_mask, alloc, start, size, MEM_IPC);
    }
    return rc;
}

int mem_ipc_unexport(uint64_t lo, size_t len)
{
    int rc = -1;
    pthread_rwlock_wrlock(&A.lock);
    void *fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh != MAP_FAILED && move_over(lo, len, fresh) == 0) {
        hugepage_advice((void *)(uintptr_t)lo, len);
        rc = 0;
    }
    pthread_rwlock_unlock(&A.lock);
    return rc;
}

uint64_t mem_ipc_map(int fd, size_t len, size_t offset, size_t size)
{
    if (mem_init() || !size || !len || len % (uint64_t)A.page || offset > len ||
        size > len - offset)
        return 0;
    uint64_t start = 0;
    pthread_rwlock_wrlock(&A.lock);
    if (grow((void **)&A.live, &A.clive, A.nlive, sizeof(Block)) ||
        grow((void **)&I.m, &I.c, I.n, sizeof(Ipcmap)))
        goto out;
    uint64_t t = take_range(len + (uint64_t)A.page);   /* room for a page-aligned start */
    if (!t) goto out;
    uint64_t lo = page_up(t);
    if (mmap((void *)(uintptr_t)lo, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        Range r;
        give_range(t, t + len + (uint64_t)A.page, &r);
        goto out;
    }
    start = lo + offset;
    I.m[I.n++] = (Ipcmap){ { t, t + len + (uint64_t)A.page }, lo, len, start };
    size_t i = (size_t)(find_below(start) + 1);
    memmove(&A.live[i + 1], &A.live[i], (A.nlive - i) * sizeof(Block));
    A.live[i] = (Block){ start, size, MEM_IPC, MEM_ANY_DEVICE, 0 };
    A.nlive++;
out:
    pthread_rwlock_unlock(&A.lock);
    if (start) OBSERVE(obs_mask, alloc, start, size, MEM_IPC);
    return start;
}

int mem_ipc_unmap(uint64_t start)
{
    int rc = -1;
    size_t size = 0;
    pthread_rwlock_wrlock(&A.lock);
    size_t k = 0;
    while (k < I.n && I.m[k].start != start) k++;
    long i = find_below(start);
    if (k == I.n || i < 0 || A.live[i].start != start || A.live[i].kind != MEM_IPC) goto out;
    size = A.live[i].size;
    Ipcmap m = I.m[k];
    Range r;
    if (give_range(m.taken.start, m.taken.end, &r)) goto out;
    memmove(&A.live[i], &A.live[i + 1], (A.nlive - (size_t)i - 1) * sizeof(Block));
    A.nlive--;
    memmove(&I.m[k], &I.m[k + 1], (I.n - k - 1) * sizeof(Ipcmap));
    I.n--;
    if (mmap((void *)(uintptr_t)m.lo, m.len, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) != MAP_FAILED)
        hugepage_advice((void *)(uintptr_t)m.lo, m.len);
    __atomic_add_fetch(&mem_generation, 1, __ATOMIC_RELEASE);
    rc = 0;
out:
    pthread_rwlock_unlock(&A.lock);
    if (rc == 0) OBSERVE(obs_mask, release, start, size);
    return rc;
}

/* ---- resolution of one lane, and the messages of bad accesses ---- */

static const char *acc_name(int access)
{
    return access == ACC_WRITE ? "write" : access == ACC_ATOMIC ? "atomic" : "read";
}

static const char *space_name(int space)
{
    switch (space) {
    case SP_CONST: return "const";
    case SP_PARAM: return "param";
    case SP_SHARED: case SP_SHARED_CLUSTER: return "shared";
    case SP_LOCAL: return "local";
    case SP_GENERIC: return "generic";
    default: return "global";
    }
}

/* Why [addr, addr+size) is not inside a live allocation, for the fault message. Called with
 * the read lock held. */
static void explain(uint64_t addr, unsigned size, char *buf, size_t n)
{
    long i = find_below(addr);
    const Block *b = i >= 0 ? &A.live[i] : NULL;
    const Block *next = (size_t)(i + 1) < A.nlive ? &A.live[i + 1] : NULL;
    if (addr < 0x10000) {
        snprintf(buf, n, addr ? " (near a null pointer)" : " (null pointer)");
    } else if (!mem_in_arena_fast(addr)) {
        if (b && registered(b->kind) && addr < b->start + b->size)
            snprintf(buf, n, ": the access runs %llu bytes past the end of %llu bytes of "
                     "registered host memory at 0x%llx",
                     (unsigned long long)(addr + size - b->start - b->size),
                     (unsigned long long)b->size, (unsigned long long)b->start);
        else
            snprintf(buf, n, " (not a device address: not inside any cudaMalloc'd block or "
                     "registered host memory)");
    } else if (b && addr < b->start + b->size) {
        snprintf(buf, n, ": the access runs %llu bytes past the end of a %llu-byte allocation "
                 "at 0x%llx", (unsigned long long)(addr + size - b->start - b->size),
                 (unsigned long long)b->size, (unsigned long long)b->start);
    } else if (next && next->start - addr <= GAP &&
               (!b || next->start - addr < addr - b->start - b->size)) {
        snprintf(buf, n, ": %llu bytes before the start of a %llu-byte allocation at 0x%llx",
                 (unsigned long long)(next->start - addr), (unsigned long long)next->size,
                 (unsigned long long)next->start);
    } else if (b && addr < b->start + footprint(b->size)) {
        snprintf(buf, n, ": %llu bytes past the end of a %llu-byte allocation at 0x%llx",
                 (unsigned long long)(addr - b->start - b->size),
                 (unsigned long long)b->size, (unsigned long long)b->start);
    } else if (ipc_taken(addr, 1)) {
        snprintf(buf, n, " (inside the pages of another process's allocation opened with "
                 "cuIpcOpenMemHandle, outside the allocation itself)");
    } else if (vmm_reserved(addr, 1)) {
        snprintf(buf, n, " (address space reserved with cuMemAddressReserve, not mapped or "
                 "not made accessible: cuMemMap, cuMemSetAccess)");
    } else if (addr < A.hwm) {
        for (unsigned k = 0; k < HISTORY && k < A.nfreed; k++) {
            const Block *f = &A.freed[(A.nfreed - 1 - k) % HISTORY];
            if (addr - f->start < footprint(f->size)) {
                snprintf(buf, n, " (freed memory: inside a %llu-byte allocation at 0x%llx "
                         "that was freed)", (unsigned long long)f->size,
                         (unsigned long long)f->start);
                return;
            }
        }
        snprintf(buf, n, " (freed memory)");
    } else {
        snprintf(buf, n, " (not inside any allocation)");
    }
}

/* Whether the running launch may touch block b: on a GPU, another device's memory is not
 * mapped in a context until peer access to it is enabled, and touching it faults. */
static int peer_ok(const Block *b)
{
    int ld = __atomic_load_n(&launch_dev, __ATOMIC_ACQUIRE);
    return b->dev == MEM_ANY_DEVICE ||
           (__atomic_load_n(&access_mask, __ATOMIC_ACQUIRE) >> b->dev & 1) ||
           (ld >= 0 && (b->grant >> ld & 1));
}

/* The GPU's tolerance. Measured on an H100 (docs/memory.md): device memory is mapped in 2 MiB
 * pages, so an access past the end of an allocation but inside the 2 MiB pages that hold it
 * completes (a 3 MiB cudaMalloc, 2 MiB aligned, is readable and writable up to 4 MiB; small
 * allocations share pages with their neighbours and reach further). ptxemu lets an access
 * through when it ends within the allocation's size rounded up to 2 MiB from its start -
 * never further than the GPU would - committing the pages it touches; reads there see
 * zeros or whatever an earlier tolerated write left. Before an allocation's start, freed
 * memory and memory of another device without peer access still fault, as does everything
 * with PTXEMU_STRICT_BOUNDS=1. Called with the read lock held. */
static int strict_bounds(void)
{
    static int v = -1;
    if (__atomic_load_n(&v, __ATOMIC_RELAXED) < 0) {
        const char *e = getenv("PTXEMU_STRICT_BOUNDS");
        __atomic_store_n(&v, e && *e && strcmp(e, "0") != 0, __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&v, __ATOMIC_RELAXED);
}

#define GPU_PAGE (2ull << 20)

static int tolerated(uint64_t addr, unsigned size, Block *near)
{
    if (!mem_in_arena_fast(addr) || strict_bounds()) return 0;
    /* the nearest device allocation below; launch parameters and constants live elsewhere
     * on a GPU, and host memory is not mapped in 2 MiB device pages */
    long i = find_below(addr);
    while (i >= 0 && A.live[i].kind != MEM_DEVICE && A.live[i].kind != MEM_MANAGED &&
           A.live[i].kind != MEM_MODULE && A.live[i].kind != MEM_HEAP)
        i--;
    if (i < 0) return 0;
    const Block *b = &A.live[i];
    uint64_t end = b->start + b->size;
    uint64_t reach = b->start + ((b->size + GPU_PAGE - 1) & ~(GPU_PAGE - 1));
    if (!peer_ok(b) || addr + size <= end || addr + size > reach ||
        !mem_in_arena_fast(addr + size - 1))
        return 0;
    for (size_t k = 0; k < V.nres; k++)   /* reserved address space is mapped by cuMemMap only */
        if (overlaps(addr, addr + size, V.res[k].taken.start, V.res[k].taken.end)) return 0;
    if (ipc_taken(addr, size)) return 0;   /* another process's bytes around an opened handle */
    /* freed memory faults on the GPU (a freed allocation's pages are unmapped), even where
     * the arena put it within 2 MiB of a live one */
    for (unsigned k = 0; k < HISTORY && k < A.nfreed; k++) {
        const Block *f = &A.freed[k];
        if (overlaps(addr, addr + size, f->start, f->start + footprint(f->size))) return 0;
    }
    if (mprotect((void *)(uintptr_t)page_down(addr), page_up(addr + size) - page_down(addr),
                 PROT_READ | PROT_WRITE))
        return 0;
    *near = *b;
    return 1;
}

static void *global_slow(Warp *w, int space, uint64_t addr, unsigned size, int lane,
                         int access)
{
    char why[200];
    uint64_t gen = __atomic_load_n(&mem_generation, __ATOMIC_ACQUIRE);
    pthread_rwlock_rdlock(&A.lock);
    const Block *b = find_live(addr);
    if (b && size <= b->size - (addr - b->start) && b->kind == MEM_REGISTERED_RO) {
        /* never cached: the fast paths do not tell reads from writes */
        pthread_rwlock_unlock(&A.lock);
        if (access == ACC_READ) return (void *)(uintptr_t)addr;
        warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "%s %s of %u bytes at 0x%llx: the host "
                   "memory there was registered read-only (cudaHostRegisterReadOnly)",
                   space_name(space), acc_name(access), size, (unsigned long long)addr);
        return NULL;
    }
    if (b && size <= b->size - (addr - b->start) && !peer_ok(b)) {
        int owner = b->dev;
        pthread_rwlock_unlock(&A.lock);
        warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "%s %s of %u bytes at 0x%llx: the memory "
                   "belongs to device %d, and peer access to it is not enabled from the "
                   "context running the kernel (cuCtxEnablePeerAccess, "
                   "cudaDeviceEnablePeerAccess)", space_name(space), acc_name(access), size,
                   (unsigned long long)addr, owner);
        return NULL;
    }
    if (b && size <= b->size - (addr - b->start)) {
        if (mem_cache.gen != gen) memset(&mem_cache, 0, sizeof mem_cache);
        unsigned k = mem_cache.next++ % MEM_CACHE_WAYS;
        mem_cache.start[k] = b->start;
        mem_cache.len[k] = b->size;
        mem_cache.gen = gen;
        pthread_rwlock_unlock(&A.lock);
        return (void *)(uintptr_t)addr;
    }
    Block near;
    if (tolerated(addr, size, &near)) {
        pthread_rwlock_unlock(&A.lock);
        /* an error as compute-sanitizer's memcheck counts it (--report-json, ptxemu race),
         * a warning on a plain run, whose result the H100 would give too */
        warp_warn_kind(w, lane, "out-of-bounds", "invalid %s %s of %u bytes at 0x%llx, offset %llu of a %llu-byte "
                  "allocation at 0x%llx (past its end): the H100 maps memory there (2 MiB "
                  "pages), so the access completes as on the GPU; PTXEMU_STRICT_BOUNDS=1 makes "
                  "it a fault", space_name(space), acc_name(access), size,
                  (unsigned long long)addr, (unsigned long long)(addr - near.start),
                  (unsigned long long)near.size, (unsigned long long)near.start);
        return (void *)(uintptr_t)addr;
    }
    explain(addr, size, why, sizeof why);
    pthread_rwlock_unlock(&A.lock);
    warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "out-of-bounds %s %s of %u bytes at 0x%llx%s",
               space_name(space), acc_name(access), size, (unsigned long long)addr, why);
    return NULL;
}

#define SHARED_SM_BYTES (228u * 1024)

/* The CTA a shared::cluster address points into: rank bits (see machine.h) name another
 * CTA of the cluster, none the own one. NULL (fault recorded) for a rank the cluster
 * does not have. */
Cta *mem_cluster_cta(Warp *w, uint64_t addr, int lane)
{
    uint32_t r = (uint32_t)(addr >> CLUSTER_RANK_SHIFT) & 0x1f;
    if (!r) return w->cta;
    Cluster *cl = w->cta ? w->cta->cluster : NULL;
    if (cl && r - 1 < cl->n) return cl->ctas[r - 1];
    warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "shared::cluster address 0x%llx names the CTA "
               "of rank %u, but the cluster has %u CTA%s", (unsigned long long)addr, r - 1,
               cl ? cl->n : 1, cl && cl->n == 1 ? "" : "s");
    return NULL;
}

static void *shared_slow(Warp *w, uint64_t off, unsigned size, int lane, int access)
{
    Cta *c = w->cta;
    if (off >> CLUSTER_RANK_SHIFT && off < (33ull << CLUSTER_RANK_SHIFT)) {
        if (!(c = mem_cluster_cta(w, off, lane))) return NULL;
        off &= (1ull << CLUSTER_RANK_SHIFT) - 1;
    }
    uint32_t have = c ? c->shared_size : 0;
    if (off < have && size <= have - off) return c->shared + off;
    /* Measured on an H100: an offset far outside any possible shared memory (16 MiB)
     * fails as cudaErrorIllegalInstruction; we use the 228 KiB an SM has as the line. */
    int code = off >= SHARED_SM_BYTES ? EMU_ERR_ILLEGAL_INSTRUCTION : EMU_ERR_ILLEGAL_ADDRESS;
    warp_fault(w, lane, code, "out-of-bounds shared %s of %u bytes at "
               "offset 0x%llx (the block has %u bytes of shared memory)", acc_name(access),
               size, (unsigned long long)off, have);
    return NULL;
}

static void *local_slow(Warp *w, uint64_t off, unsigned size, int lane, int access)
{
    if (w->local && off < w->local_stride && size <= w->local_stride - off)
        return w->local + (size_t)lane * w->local_stride + off;
    warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "local memory access out of bounds (stack "
               "overflow?): %s of %u bytes at offset 0x%llx, %u bytes of local memory per "
               "thread", acc_name(access), size, (unsigned long long)off, w->local_stride);
    return NULL;
}

void *mem_lane_ptr_slow(Warp *w, int space, uint64_t addr, unsigned size, unsigned align,
                        int lane, int access)
{
    if (align > 1 && (addr & (align - 1))) {
        warp_fault(w, lane, EMU_ERR_MISALIGNED_ADDRESS, "misaligned %s %s of %u bytes at "
                   "0x%llx (must be %u-byte aligned)", space_name(space), acc_name(access),
                   size, (unsigned long long)addr, align);
        return NULL;
    }
    switch (space) {
    case SP_SHARED: case SP_SHARED_CLUSTER: return shared_slow(w, addr, size, lane, access);
    case SP_LOCAL: return local_slow(w, addr, size, lane, access);
    case SP_GLOBAL: case SP_CONST: case SP_PARAM:
        return global_slow(w, space, addr, size, lane, access);
    default: break;
    }
    switch (mem_generic_space(addr)) {
    case SP_GLOBAL: return global_slow(w, SP_GLOBAL, addr, size, lane, access);
    case SP_SHARED: return shared_slow(w, addr - SHARED_WINDOW, size, lane, access);
    case SP_LOCAL: return local_slow(w, addr - LOCAL_WINDOW, size, lane, access);
    default: break;
    }
    char why[200];
    pthread_rwlock_rdlock(&A.lock);
    explain(addr, size, why, sizeof why);
    pthread_rwlock_unlock(&A.lock);
    warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "out-of-bounds generic %s of %u bytes at "
               "0x%llx: generic address 0x%llx is not in any state space%s", acc_name(access),
               size, (unsigned long long)addr, (unsigned long long)addr, why);
    return NULL;
}

/* ---- whole-warp resolution: one bounds check for the warp when it can, else per lane ----
 * The fast checks run over all 32 lanes without branches (lanes outside mask are masked
 * out of the verdict; their host[] entries are scratch), which keeps them a few cycles a
 * lane: the first version, with min/max chains and a branch per lane, spent ~60% of a
 * full-warp ld.global in the check. */


/* Per-lane fallback: exact checks and the fault of the lowest bad lane. */
static int lanes_slow(Warp *w, int space, uint32_t mask, const uint64_t *addr, unsigned size,
                      int access, uint8_t **host)
{
    FOR_LANES(mask, l) {
        host[l] = mem_lane_ptr(w, space, addr[l], size, size, l, access);
        if (!host[l]) return STEP_FAULT;
    }
    return 0;
}

/* All lanes aligned and inside the cached allocation: device address == host address.
 * A lane is out of the block when its offset o = x - start exceeds lim = len - size; as
 * lim < 2^63, that is when o or lim - o has bit 63 set (o >= 2^63: x lies below start or
 * absurdly far above; lim - o < 0: past the end). Only subtractions and ors, so the
 * full-warp loop vectorizes even without a 64-bit unsigned vector compare (SSE2); the
 * comparison form ran about 13 instructions a lane. */
/* The worker's cached allocation holding a0 (a way of mem_cache), as its start and lim = its
 * length minus size; -1 when the cache holds none or it is shorter than size. */
static inline int cache_block(uint64_t a0, unsigned size, uint64_t *start, uint64_t *lim)
{
    const MemCache *mc = &mem_cache;
    if (mc->gen != __atomic_load_n(&mem_generation, __ATOMIC_ACQUIRE)) return -1;
    int k = 0;
    while (k < MEM_CACHE_WAYS && a0 - mc->start[k] >= mc->len[k]) k++;
    if (k == MEM_CACHE_WAYS || mc->len[k] < size) return -1;
    *start = mc->start[k];
    *lim = mc->len[k] - size;
    return 0;
}

static int arena_fast(uint32_t mask, const uint64_t *addr, unsigned size, uint8_t **host)
{
    /* the block holding the first lane's address; every lane must fall in it */
    uint64_t start, lim, bad = 0, any = 0;
    if (cache_block(addr[__builtin_ctz(mask)], size, &start, &lim)) return -1;
    if (mask == FULL_MASK) {
        for (int l = 0; l < WARP_SIZE; l++) {
            uint64_t x = addr[l], o = x - start;
            host[l] = (uint8_t *)(uintptr_t)x;
            bad |= o | (lim - o);
            any |= x;
        }
        return ((bad >> 63) | (any & (size - 1))) ? -1 : 0;
    }
    /* part of a warp: the mask's lanes only, one by one. The branch-free form over all 32
     * lanes (each lane's bit of the mask as a 64-bit mask) took 16 instructions a lane, 533
     * for a half warp, 20% of cuda-samples simpleAttributes' loop under the interpreter (its
     * gathers and scatters diverge on tid % 2); this loop ~9 a lane of the mask. */
    for (int l = 0; l < WARP_SIZE; l++) host[l] = (uint8_t *)(uintptr_t)addr[l];
    for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t x = addr[__builtin_ctz(m)], o = x - start;
        bad |= (((o | (lim - o)) >> 63) | (x & (size - 1)));
    }
    return bad ? -1 : 0;
}

/* Generic addresses all in the shared window and in bounds. */
static int generic_shared_fast(Warp *w, uint32_t mask, const uint64_t *addr, unsigned size,
                               uint8_t **host)
{
    uint64_t off[WARP_SIZE];
    if (!w->cta || addr[__builtin_ctz(mask)] - SHARED_WINDOW >= WINDOW_SIZE) return -1;
    for (int l = 0; l < WARP_SIZE; l++) off[l] = addr[l] - SHARED_WINDOW;
    return window_fast(mask, off, size, w->cta->shared, 0, w->cta->shared_size, host);
}

static int warp_ptrs(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                     uint8_t *host[WARP_SIZE]);

int mem_warp_ptrs(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                  uint8_t *host[WARP_SIZE])
{
    return warp_ptrs(w, in, mask, size, access, host);
}

int mem_warp_ptrs_observed(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                           uint8_t *host[WARP_SIZE])
{
    int r = warp_ptrs(w, in, mask, size, access, host);
    if (!r && w->launch) OBSERVE(w->launch->obs, mem, w, in, mask, size, access, host);
    return r;
}

/* The whole-warp paths: 0 when one resolved every lane of mask (host filled); else -1 with
 * the lanes' addresses and the space for lanes_slow. Never records a fault. */
static int fast_ptrs(Warp *w, const Inst *in, uint32_t mask, unsigned size, uint8_t *host[WARP_SIZE],
                     uint64_t addr[WARP_SIZE], int *space_out)
{
    const uint64_t *a = ROW(w, in->base);
    uint64_t imm = (uint64_t)in->imm;
    int space = (in->flags & IF_FRAME) ? SP_LOCAL : in->space;
    switch (space) {
    case SP_GLOBAL: case SP_CONST: case SP_PARAM:
        for (int l = 0; l < WARP_SIZE; l++) addr[l] = a[l] + imm;
        if (!arena_fast(mask, addr, size, host)) return 0;
        break;
    case SP_SHARED: case SP_SHARED_CLUSTER: {
        for (int l = 0; l < WARP_SIZE; l++) addr[l] = (uint32_t)(a[l] + imm);
        uint32_t ss = w->cta ? w->cta->shared_size : 0;
        if (!window_fast(mask, addr, size, w->cta ? w->cta->shared : NULL, 0, ss, host))
            return 0;
        break;
    }
    case SP_LOCAL:   /* exec_mem_fast.h's, which the compiled tier's accesses call too */
        if (!local_fast(w, a, imm, (in->flags & IF_FRAME) != 0, mask, size, host, addr)) return 0;
        break;
    default:                           /* generic: the common cases are all-global, all-shared */
        space = SP_GENERIC;
        for (int l = 0; l < WARP_SIZE; l++) addr[l] = a[l] + imm;
        if (!arena_fast(mask, addr, size, host) || !generic_shared_fast(w, mask, addr, size, host))
            return 0;
        break;
    }
    *space_out = space;
    return -1;
}

static int warp_ptrs(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                     uint8_t *host[WARP_SIZE])
{
    uint64_t addr[WARP_SIZE];
    int space;
    if (!fast_ptrs(w, in, mask, size, host, addr, &space)) return 0;
    return lanes_slow(w, space, mask, addr, size, access, host);
}

int mem_warp_fast(Warp *w, const Inst *in, uint32_t mask, unsigned size, uint8_t *host[WARP_SIZE])
{
    uint64_t addr[WARP_SIZE];
    int space;
    return fast_ptrs(w, in, mask, size, host, addr, &space);
}

int mem_arena_block(uint64_t a0, unsigned size, uint64_t *start, uint64_t *lim)
{
    return cache_block(a0, size, start, lim);
}

uint8_t *mem_warp_span(Warp *w, const Inst *in, uint64_t a0, unsigned size)
{
    (void)w;
    int space = in->space;
    if ((in->flags & IF_FRAME) || (space != SP_GLOBAL && space != SP_CONST && space != SP_PARAM)) return NULL;
    return mem_span_cached(&mem_cache, __atomic_load_n(&mem_generation, __ATOMIC_ACQUIRE), a0, size)
               ? (uint8_t *)(uintptr_t)a0 : NULL;
}

const MemCache *mem_span_cache(void)
{
    return &mem_cache;
}
