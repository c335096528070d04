/* hostrace.c - the race detector's view of the host (PTXEMU_RACECHECK): a host read or write
 * of page-locked memory (pinned, mapped, registered or managed) that asynchronous work the
 * host has not waited for touches.
 *
 * Every such piece of work - an asynchronous copy or fill with a page-locked side, a kernel
 * that touched page-locked memory (this file observes the kernels' accesses, emu/observe.h,
 * beside the race detector) - is kept here
 * with its place in stream order until the host has waited for it (a stream, event or
 * device synchronisation, a synchronous copy). Meanwhile its pages are protected: no access
 * where the work writes, no writes where it only reads. A host access there traps
 * (SIGSEGV); the handler reports the race once for that work - the API call, its stream and
 * where it was issued, the host instruction that touched the memory - lifts the work's
 * protection and lets the access go on. The driver's own code, and the kernels and copies it
 * runs, run with every protection lifted (drv_hostrace_lift / drv_hostrace_apply around the
 * driver lock), so only the program's own accesses trap. A page that also holds memory no
 * work touches (allocations share pages) is given up on its first such access. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"
#include "emu/observe.h"
#include "emu/report.h"
#include "emu/scheduler.h"

#define PAGE 4096ull

typedef struct Range { uint64_t lo, hi; int writes; } Range;

typedef struct Work {
    char what[200];             /* "cuMemcpyDtoHAsync_v2" or "kernel k(int*)"             */
    char mangled[160];          /* a kernel's name as the PTX has it, else ""              */
    uint32_t si;                /* its stream's order index and its place there           */
    uint64_t clock;
    uintptr_t site[DRV_SITE_FRAMES];   /* where the program issued it                      */
    Range *r;                   /* the bytes it touches (a kernel's: whole pages)          */
    size_t nr;
} Work;

static Work *works;
static size_t nworks, capworks;
static uint64_t *given_up;      /* pages that also hold memory no work touches            */
static size_t ngiven, capgiven;
static int applied;             /* the protections are in force (the program runs)        */
static struct sigaction prev;
static int installed;
static int on, fail_on_race, found;   /* PTXEMU_RACECHECK (=error), and a race reported */
static uint64_t *pages;         /* page-locked pages the running launch touched: page << 1 | */
static size_t npages, cappages; /*   written (kernel_access)                                 */
static uint64_t last_page = ~0ull;
static int last_host;

int drv_hostrace_visible(uint64_t p, int *kind_out)
{
    size_t size;
    int kind = -1;
    if (!mem_find(p, &size, &kind)) return 0;
    if (kind_out) *kind_out = kind;
    return kind == MEM_HOST_PINNED || kind == MEM_MANAGED || kind == MEM_REGISTERED ||
           kind == MEM_REGISTERED_RO;
}

static int given(uint64_t page)
{
    for (size_t i = 0; i < ngiven; i++) if (given_up[i] == page) return 1;
    return 0;
}

static void protect_range(const Range *r, int prot)
{
    for (uint64_t pg = r->lo & ~(PAGE - 1); pg < r->hi; pg += PAGE)
        if (!given(pg)) mprotect((void *)(uintptr_t)pg, PAGE, prot);
}

/* The driver is entered: its code, kernels and copies touch the memory freely. */
void drv_hostrace_lift(void)
{
    if (!applied) return;
    applied = 0;
    for (size_t w = 0; w < nworks; w++)
        for (size_t k = 0; k < works[w].nr; k++) protect_range(&works[w].r[k], PROT_READ | PROT_WRITE);
}

/* The program runs again: what the host has waited for is done; the rest is protected. */
void drv_hostrace_apply(void)
{
    if (!nworks) return;
    const DrvOrder *host = drv_order_host();
    for (size_t w = 0; w < nworks;) {
        Work *x = &works[w];
        if (x->si < host->n && host->c[x->si] >= x->clock) {   /* waited for: done */
            free(x->r);
            *x = works[--nworks];
            continue;
        }
        w++;
    }
    if (!nworks) return;
    for (int pass = 0; pass < 2; pass++)   /* reads first: a page another work writes wins */
        for (size_t w = 0; w < nworks; w++)
            for (size_t k = 0; k < works[w].nr; k++)
                if (works[w].r[k].writes == pass) protect_range(&works[w].r[k], pass ? PROT_NONE : PROT_READ);
    applied = 1;
}

static const char *space_of(int kind)
{
    return kind == MEM_MANAGED ? "managed" : kind == MEM_HOST_PINNED ? "pinned" : "registered host";
}

static void stream_words(uint32_t i, char *buf, size_t n)
{
    if (i == 0) snprintf(buf, n, "the default stream");
    else if (i == 1) snprintf(buf, n, "the per-thread default stream");
    else snprintf(buf, n, "stream #%u", i - 1);
}

static void json_str(FILE *f, const char *s)
{
    report_str(f, s);
}

/* The race: said once for the work, on stderr and to PTXEMU_REPORT. */
static void report(Work *x, uint64_t a, int host_writes, uintptr_t pc)
{
    int kind = -1;
    size_t asz = 0;
    uint64_t base = mem_find(a, &asz, &kind);
    uintptr_t at[DRV_SITE_FRAMES] = { pc };
    char where[600], issued[600], sn[48], msg[2400];
    drv_callsite_format(at, where, sizeof where);
    drv_callsite_format(x->site, issued, sizeof issued);
    stream_words(x->si, sn, sizeof sn);
    int work_writes = 0;
    for (size_t k = 0; k < x->nr; k++)
        if (a >= (x->r[k].lo & ~(PAGE - 1)) && a < x->r[k].hi) work_writes |= x->r[k].writes;
    snprintf(msg, sizeof msg, "host-device in %s memory at 0x%llx (offset %llu of a %zu-byte "
             "allocation at 0x%llx): the host %s it at %s while %s, issued on %s at %s, %s it, and "
             "nothing has made the host wait for that work", space_of(kind), (unsigned long long)a,
             (unsigned long long)(a - base), asz, (unsigned long long)base,
             host_writes ? "writes" : "reads", where[0] ? where : "an unknown place", x->what, sn,
             issued[0] ? issued : "an unknown place", work_writes ? "writes" : "reads");
    const char *hint = "synchronise before the host touches the memory: cudaStreamSynchronize "
                       "of that stream, cudaEventSynchronize of an event recorded after the work, "
                       "or cudaDeviceSynchronize";
    uint64_t seed = 0;
    sched_deterministic(&seed);
    char tail[48];
    snprintf(tail, sizeof tail, "(seed %llu)", (unsigned long long)seed);
    report_line("ptxemu: race:", msg, hint, tail);
    FILE *js = report_open();
    if (js) {
        fprintf(js, "{\"kind\":\"host-device\",\"space\":\"%s\",\"address\":%llu,\"allocation\":%llu,"
                "\"allocation_size\":%zu,\"offset\":%llu,\"host_access\":\"%s\",\"host_place\":",
                space_of(kind), (unsigned long long)a, (unsigned long long)base, asz,
                (unsigned long long)(a - base), host_writes ? "write" : "read");
        json_str(js, where);
        fputs(",\"work\":", js);
        json_str(js, x->what);
        if (x->mangled[0]) {
            fputs(",\"kernel\":", js);
            json_str(js, x->mangled);
        }
        fputs(",\"stream\":", js);
        json_str(js, sn);
        fputs(",\"issued_at\":", js);
        json_str(js, issued);
        fputs(",\"message\":", js);
        json_str(js, msg);
        fputs(",\"hint\":", js);
        json_str(js, hint);
        fprintf(js, ",\"count\":1,\"seed\":%llu}\n", (unsigned long long)seed);
        report_close(js);
    }
    found = 1;
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    uint64_t a = (uint64_t)(uintptr_t)si->si_addr, page = a & ~(PAGE - 1);
    int host_writes = 1;
    uintptr_t pc = 0;
#if defined(__x86_64__)
    ucontext_t *uc = ucv;
    host_writes = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#else
    (void)ucv;
#endif
    int ours = 0;
    for (size_t w = 0; applied && w < nworks; w++) {
        Work *x = &works[w];
        for (size_t k = 0; k < x->nr; k++) {
            if (page + PAGE <= (x->r[k].lo & ~(PAGE - 1)) || page >= x->r[k].hi) continue;
            ours = 1;
            if (a < x->r[k].lo || a >= x->r[k].hi || (!x->r[k].writes && !host_writes)) continue;
            report(x, a, host_writes, pc);   /* once: the work's pages are left alone now */
            for (size_t j = 0; j < x->nr; j++) protect_range(&x->r[j], PROT_READ | PROT_WRITE);
            x->nr = 0;
            return;
        }
    }
    if (ours) {   /* memory no work touches, on a page with some that one does */
        if (ngiven == capgiven) {
            size_t nc = capgiven ? capgiven * 2 : 16;
            uint64_t *g = realloc(given_up, nc * sizeof *g);
            if (g) { given_up = g; capgiven = nc; }
        }
        if (ngiven < capgiven) given_up[ngiven++] = page;
        mprotect((void *)(uintptr_t)page, PAGE, PROT_READ | PROT_WRITE);
        return;
    }
    /* not ours: the fault it is (the program's own handler, or the default) */
    sigaction(SIGSEGV, &prev, NULL);
    if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) signal(SIGSEGV, SIG_DFL);
    (void)sig;
}

static void install(void)
{
    if (installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    installed = sigaction(SIGSEGV, &sa, &prev) == 0;
}

/* A piece of work on stream s (placed there already, drv_order_launch) that touches the
 * ranges r: kept until the host waits for it. */
static void add(CUstream s, const char *what, const char *mangled, Range *r, size_t nr)
{
    if (!nr) { free(r); return; }
    if (nworks == capworks) {
        size_t nc = capworks ? capworks * 2 : 16;
        Work *g = realloc(works, nc * sizeof *g);
        if (!g) { free(r); return; }
        works = g;
        capworks = nc;
    }
    install();
    Work *x = &works[nworks++];
    memset(x, 0, sizeof *x);
    snprintf(x->what, sizeof x->what, "%s", what);
    snprintf(x->mangled, sizeof x->mangled, "%s", mangled ? mangled : "");
    DrvOrder o = { 0 };
    drv_order_stream_get(s, &o);
    x->si = drv_order_stream_index(s);
    x->clock = x->si < o.n ? o.c[x->si] : 0;
    free(o.c);
    drv_callsite(x->site);
    x->r = r;
    x->nr = nr;
}

void drv_hostrace_copy(CUstream s, const char *api, uint64_t dst, uint64_t src, size_t n, int fill)
{
    if (!on || !n) return;
    Range *r = calloc(2, sizeof *r);
    if (!r) return;
    size_t k = 0;
    if (drv_hostrace_visible(dst, NULL)) r[k++] = (Range){ dst, dst + n, 1 };
    if (!fill && drv_hostrace_visible(src, NULL)) r[k++] = (Range){ src, src + n, 0 };
    add(s, api, NULL, r, k);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void drv_hostrace_kernel(CUstream s, const char *name, const char *mangled)
{
    if (!on || !npages) return;
    qsort(pages, npages, sizeof *pages, cmp_u64);
    Range *r = calloc(npages, sizeof *r);
    if (!r) { npages = 0; return; }
    size_t k = 0;
    for (size_t i = 0; i < npages; i++) {   /* page << 1 | writes, sorted: merge neighbours */
        uint64_t lo = (pages[i] >> 1) * PAGE;
        int wr = (int)(pages[i] & 1);
        if (k && r[k - 1].hi > lo) { r[k - 1].writes |= wr; continue; }   /* the same page */
        if (k && r[k - 1].hi == lo && r[k - 1].writes == wr) r[k - 1].hi += PAGE;
        else r[k++] = (Range){ lo, lo + PAGE, wr };
    }
    npages = 0;
    char what[200];
    snprintf(what, sizeof what, "kernel %s", name);
    add(s, what, mangled, r, k);
}

/* ---- the kernels' side: an observer of their memory accesses (emu/observe.h) ---- */

static int launch_begin(Launch *L)
{
    (void)L;
    npages = 0;
    last_page = ~0ull;
    return 0;
}

/* The page-locked pages a warp instruction touches, noted once each (the page looked up
 * last is remembered: a warp's lanes mostly share one). */
static void kernel_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                          uint8_t *const host[WARP_SIZE])
{
    (void)w; (void)in; (void)size;
    int write = access != ACC_READ;
    for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t a = (uint64_t)(uintptr_t)host[__builtin_ctz(m)], pg = a / PAGE;
        if (pg != last_page) {
            last_page = pg;
            last_host = drv_hostrace_visible(a, NULL);
        }
        if (!last_host) continue;
        if (npages && pages[npages - 1] >> 1 == pg) { pages[npages - 1] |= (uint64_t)write; continue; }
        if (npages == cappages) {
            size_t nc = cappages ? cappages * 2 : 64;
            uint64_t *g = realloc(pages, nc * sizeof *g);
            if (!g) return;
            pages = g;
            cappages = nc;
        }
        pages[npages++] = pg << 1 | (uint64_t)write;
    }
}

static const Observer hostrace = {
    .tool_name = "hostrace", .events = OBS_LAUNCH | OBS_MEM, .launch_begin = launch_begin,
    .mem = kernel_access,
};

/* PTXEMU_RACECHECK=error: a host-device race makes the process exit with status 1 too. */
static void race_exit(void)
{
    if (found && fail_on_race) {
        fflush(NULL);
        _exit(1);
    }
}

int drv_hostrace_attach(void)
{
    const char *rc = getenv("PTXEMU_RACECHECK");
    if (!rc || !*rc || !strcmp(rc, "0")) return 0;
    if (obs_attach(&hostrace) < 0) return -1;
    on = 1;
    fail_on_race = !strcmp(rc, "error");
    atexit(race_exit);
    return 0;
}

int drv_hostrace_on(void)
{
    return on;
}
