/* racecheck.c - shared-memory race detection over barrier intervals (see racecheck.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "racecheck.h"
#include "memory.h"

/* The last write and the last read of one 4-byte word. Threads are numbered
 * rank * 65536 + thread + 1 (0 = none); gen is the word's CTA barrier generation at the
 * access, wgen the accessing warp's bar.warp.sync generation. */
typedef struct RaceCell {
    uint32_t wt, wg, ww, wpc;
    uint32_t rt, rg, rw, rpc;
    uint8_t watomic, ratomic, pending;
} RaceCell;

typedef struct RaceFinding {
    int kind;
    uint32_t pc1, pc2, t1, t2, offset, count;
    uint32_t block[3];
} RaceFinding;

enum { K_RAW, K_WAR, K_WAW, K_ASYNC_READ, K_ASYNC_WRITE };
static const char *const kind_name[] = {
    "read-after-write", "write-after-read", "write-after-write",
    "read-before-async-copy-complete", "write-before-async-copy-complete"
};

#define MAX_FINDINGS 256

struct RaceLog { RaceFinding f[MAX_FINDINGS]; uint32_t n, dropped; };

int race_setup_cta(Cta *c)
{
    c->race = calloc(c->shared_size / 4 + 1, sizeof(RaceCell));
    return c->race ? 0 : -1;
}

void race_free_cta(Cta *c)
{
    free(c->race);
    c->race = NULL;
}

static uint32_t tid_of(const Warp *w, int lane)
{
    return (w->cta->rank << 16) + w->id * WARP_SIZE + (uint32_t)lane + 1;
}

/* The CTA whose shared memory holds p (the own one, or another of the cluster). */
static Cta *owner(Warp *w, const uint8_t *p)
{
    Cluster *cl = w->cta->cluster;
    if (p >= w->cta->shared && p < w->cta->shared + w->cta->shared_size) return w->cta;
    for (uint32_t r = 0; cl && r < cl->n; r++) {
        Cta *c = cl->ctas[r];
        if (p >= c->shared && p < c->shared + c->shared_size) return c;
    }
    return NULL;
}

static void record(Launch *L, int kind, Cta *c, uint32_t off, uint32_t t1, uint32_t pc1,
                   uint32_t t2, uint32_t pc2)
{
    RaceLog *g = L->race;
    for (uint32_t i = 0; i < g->n; i++) {
        RaceFinding *f = &g->f[i];
        if (f->kind == kind && f->pc1 == pc1 && f->pc2 == pc2) { f->count++; return; }
    }
    if (g->n == MAX_FINDINGS) { g->dropped++; return; }
    RaceFinding *f = &g->f[g->n++];
    f->kind = kind; f->pc1 = pc1; f->pc2 = pc2; f->t1 = t1; f->t2 = t2; f->offset = off;
    f->count = 1;
    memcpy(f->block, c->ctaid, sizeof f->block);
}

/* Whether an earlier access (thread t, generation g, warp generation wg) is ordered before
 * the current one by a barrier or, within one warp, a bar.warp.sync. */
static int ordered(uint32_t t, uint32_t g, uint32_t wg, uint32_t u, uint32_t cg, uint32_t cwg)
{
    if (!t || t == u || g < cg) return 1;
    int same_warp = (t - 1) / WARP_SIZE == (u - 1) / WARP_SIZE;
    return same_warp && wg < cwg;
}

void race_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                 uint8_t *const host[WARP_SIZE])
{
    Launch *L = w->launch;
    uint32_t pc = (uint32_t)(in - w->prog->code);
    int write = access != ACC_READ, atomic = access == ACC_ATOMIC;
    FOR_LANES(mask, l) {
        Cta *c = owner(w, host[l]);
        if (!c || !c->race) continue;   /* not shared memory */
        uint32_t off = (uint32_t)(host[l] - c->shared), u = tid_of(w, l);
        uint32_t g = c->race_gen, wg = w->race_wgen;
        for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < c->shared_size / 4 + 1; k++) {
            RaceCell *x = &((RaceCell *)c->race)[k];
            if (x->pending) {
                record(L, write ? K_ASYNC_WRITE : K_ASYNC_READ, c, k * 4, 0, pc, u, pc);
                continue;
            }
            /* an atomic write racing only with reads is the CAS-loop idiom (read, then
             * compare-and-swap): benign, not reported; plain writes always count */
            if (!ordered(x->wt, x->wg, x->ww, u, g, wg) && !x->watomic)
                record(L, write ? K_WAW : K_RAW, c, k * 4, x->wt, x->wpc, u, pc);
            else if (write && !atomic && x->watomic && !ordered(x->wt, x->wg, x->ww, u, g, wg))
                record(L, K_WAW, c, k * 4, x->wt, x->wpc, u, pc);
            if (write && !atomic && !ordered(x->rt, x->rg, x->rw, u, g, wg))
                record(L, K_WAR, c, k * 4, x->rt, x->rpc, u, pc);
            if (write) { x->wt = u; x->wg = g; x->ww = wg; x->wpc = pc; x->watomic = (uint8_t)atomic; }
            else { x->rt = u; x->rg = g; x->rw = wg; x->rpc = pc; x->ratomic = 0; }
        }
    }
}

static void mark_async(Warp *w, const uint8_t *dst, uint32_t size, int delta)
{
    Cta *c = owner(w, dst);
    if (!c || !c->race || !size) return;
    uint32_t off = (uint32_t)(dst - c->shared);
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < c->shared_size / 4 + 1; k++) {
        RaceCell *x = &((RaceCell *)c->race)[k];
        if (delta > 0 || x->pending) x->pending = (uint8_t)(x->pending + delta);
        if (delta < 0) { x->wt = 0; x->rt = 0; }   /* the copy's write is the new state */
    }
}

void race_async_issue(Warp *w, int lane, const uint8_t *dst, uint32_t size)
{
    (void)lane;
    mark_async(w, dst, size, 1);
}

void race_async_done(Warp *w, const uint8_t *dst, uint32_t size)
{
    mark_async(w, dst, size, -1);
}

static void where(const Launch *L, uint32_t pc, char *buf, size_t n)
{
    const Program *p = L->prog;
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    char src[300] = "";
    if (in->loc && in->loc < p->nlocs) {
        const SrcLoc *s = &p->locs[in->loc];
        snprintf(src, sizeof src, "%s:%u, ", s->file < p->nfiles && p->files[s->file] ? p->files[s->file] : "?",
                 s->line);
    }
    snprintf(buf, n, "%sPTX %s:%u", src, p->ptx_name ? p->ptx_name : "ptx", in->line);
}

static void thread_of(const Launch *L, uint32_t t, uint32_t out[3])
{
    uint32_t id = (t - 1) & 0xffff, bx = L->block[0], by = L->block[1];
    out[0] = id % bx; out[1] = id / bx % by; out[2] = id / (bx * by);
}

int race_report(Launch *L)
{
    RaceLog *g = L->race;
    if (!g || !g->n) return 0;
    const char *path = getenv("PTXEMU_REPORT");
    FILE *js = path && *path ? fopen(path, "a") : NULL;
    for (uint32_t i = 0; i < g->n; i++) {
        RaceFinding *f = &g->f[i];
        char a[400], b[400];
        uint32_t t1[3] = {0, 0, 0}, t2[3];
        int async = f->kind >= K_ASYNC_READ;
        where(L, f->pc2, b, sizeof b);
        thread_of(L, f->t2, t2);
        if (!async) { where(L, f->pc1, a, sizeof a); thread_of(L, f->t1, t1); }
        if (async)
            fprintf(stderr, "ptxemu: race: %s in shared memory at offset 0x%x of block (%u,%u,%u), "
                    "kernel %s: thread (%u,%u,%u) at %s touches bytes an asynchronous copy has not "
                    "been seen to complete%s (%u time%s; seed %llu)\n", kind_name[f->kind], f->offset,
                    f->block[0], f->block[1], f->block[2], L->prog->name, t2[0], t2[1], t2[2], b,
                    " (wait_group / mbarrier wait missing?)", f->count, f->count == 1 ? "" : "s",
                    (unsigned long long)L->seed);
        else
            fprintf(stderr, "ptxemu: race: %s in shared memory at offset 0x%x of block (%u,%u,%u), "
                    "kernel %s: thread (%u,%u,%u) at %s and thread (%u,%u,%u) at %s with no "
                    "barrier in between (%u time%s; seed %llu)\n", kind_name[f->kind], f->offset,
                    f->block[0], f->block[1], f->block[2], L->prog->name, t1[0], t1[1], t1[2], a,
                    t2[0], t2[1], t2[2], b, f->count, f->count == 1 ? "" : "s",
                    (unsigned long long)L->seed);
        if (js) {
            fprintf(js, "{\"kind\":\"%s\",\"space\":\"shared\",\"address\":%u,\"kernel\":\"%s\","
                    "\"block\":[%u,%u,%u],\"count\":%u,\"seed\":%llu,\"accesses\":[",
                    kind_name[f->kind], f->offset, L->prog->name, f->block[0], f->block[1],
                    f->block[2], f->count, (unsigned long long)L->seed);
            if (!async)
                fprintf(js, "{\"thread\":[%u,%u,%u],\"warp\":%u,\"ptx_line\":%u},", t1[0], t1[1],
                        t1[2], ((f->t1 - 1) & 0xffff) / WARP_SIZE, L->prog->code[f->pc1].line);
            fprintf(js, "{\"thread\":[%u,%u,%u],\"warp\":%u,\"ptx_line\":%u}]}\n", t2[0], t2[1],
                    t2[2], ((f->t2 - 1) & 0xffff) / WARP_SIZE, L->prog->code[f->pc2].line);
        }
    }
    if (g->dropped)
        fprintf(stderr, "ptxemu: race: %u more distinct hazards not shown\n", g->dropped);
    if (js) fclose(js);
    return (int)g->n;
}

RaceLog *race_log_new(void)
{
    return calloc(1, sizeof(RaceLog));
}
