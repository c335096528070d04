/* racecheck.c - the race detector tool (see racecheck.h for what it checks).
 *
 * Clocks. Each warp has its own clock, advanced after every release it performs, and a
 * vector clock of what it has acquired: a dense part over the warps of its cluster (index
 * rank * warps-per-CTA + warp) and a sorted sparse part, by global warp id, for warps of
 * other clusters (reached only through global-memory synchronisation). An access by warp v
 * at clock k happens before warp w's present when w's vector clock holds at least k for v.
 * Lanes of one warp are ordered by any advance of the warp's clock in between (barriers, full
 * warp syncs, its releases and fences) - coarser than per-thread clocks: it can hide a race
 * between two lanes across a fence, never invent one - except a warp sync of some of the
 * lanes (__syncwarp(mask), a tile's sync), which orders only its members: a 32x32 matrix of
 * lane-to-lane bounds, made at the first such sync, says what each lane has seen of each.
 *
 * Shadow. Each 4-byte word of a checked allocation (a CTA's shared memory; each 1 KiB page
 * of global memory a launch touched) has 16 bytes: its last write and two reads, each a lane
 * and an index into an access log and the bytes of the word it touched. Accesses to
 * different bytes never conflict; a write forgets an earlier write to other bytes of the
 * word (a race with those is missed, none is invented), except one by the same thread since
 * its last synchronisation, whose bytes the word keeps (byte-by-byte copies). A read replaces a read it covers
 * that happens before it (a write racing with the old one races with the new one); reads
 * that do not order keep two slots, so a read by another CTA is not lost to the own. A log record (launch, CTA, warp, instruction, clock,
 * proxy-fence count) stands for every lane and word one warp instruction touched at one
 * clock, so the log grows with the instructions run between synchronisations, not with the
 * data, and compaction drops the records no word names any more. (Each pass of a loop is
 * its own record.) Shared accesses log per
 * cluster (freed with it); global ones for the process, so that launches stream order leaves
 * unordered are checked against each other (race_order gives each launch its place).
 * Findings are printed by racereport.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "racecheck.h"
#include "racecheck_state.h"

#define CHILD_DEPTH 256   /* nested launches from the device the order is kept for */

/* ---- vector clocks ---------------------------------------------------------------------- */

typedef struct VCE { uint64_t key; uint32_t clk; } VCE;
typedef struct Far { VCE *e; uint32_t n, cap; } Far;   /* sorted by key (global warp id) */
typedef struct Clock { uint32_t *d; Far far; } Clock;  /* d: one entry a warp of the cluster */

static uint32_t far_get(const Far *f, uint64_t key)
{
    uint32_t lo = 0, hi = f->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (f->e[mid].key < key) lo = mid + 1; else hi = mid;
    }
    return lo < f->n && f->e[lo].key == key ? f->e[lo].clk : 0;
}

/* dst = max(dst, src), entry by entry (a merge of two sorted lists) */
static void far_join(Far *dst, const Far *src)
{
    if (!src->n) return;
    uint32_t cap = dst->n + src->n, i = 0, j = 0, n = 0;
    VCE *e = malloc(cap * sizeof *e);
    if (!e) return;
    while (i < dst->n || j < src->n) {
        if (j == src->n || (i < dst->n && dst->e[i].key < src->e[j].key)) e[n++] = dst->e[i++];
        else if (i == dst->n || src->e[j].key < dst->e[i].key) e[n++] = src->e[j++];
        else {
            e[n] = dst->e[i++];
            if (src->e[j].clk > e[n].clk) e[n].clk = src->e[j].clk;
            j++; n++;
        }
    }
    free(dst->e);
    dst->e = e; dst->n = n; dst->cap = cap;
}

/* f[key] = max(f[key], clk) */
static void far_set(Far *f, uint64_t key, uint32_t clk)
{
    uint32_t lo = 0, hi = f->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (f->e[mid].key < key) lo = mid + 1; else hi = mid;
    }
    if (lo < f->n && f->e[lo].key == key) {
        if (clk > f->e[lo].clk) f->e[lo].clk = clk;
        return;
    }
    if (f->n == f->cap) {
        uint32_t nc = f->cap ? f->cap * 2 : 8;
        VCE *e = realloc(f->e, nc * sizeof *e);
        if (!e) return;
        f->e = e; f->cap = nc;
    }
    memmove(f->e + lo + 1, f->e + lo, (f->n - lo) * sizeof *f->e);
    f->e[lo] = (VCE){key, clk};
    f->n++;
}

static void clock_join(Clock *dst, const Clock *src, uint32_t D)
{
    if (src->d)
        for (uint32_t i = 0; i < D; i++)
            if (src->d[i] > dst->d[i]) dst->d[i] = src->d[i];
    far_join(&dst->far, &src->far);
}

static void clock_clear(Clock *c, uint32_t D)
{
    if (c->d) memset(c->d, 0, D * sizeof *c->d);
    c->far.n = 0;
}

static void clock_free(Clock *c)
{
    free(c->d); free(c->far.e);
    memset(c, 0, sizeof *c);
}

static int clock_init(Clock *c, uint32_t D)
{
    if (!c->d) c->d = calloc(D ? D : 1, sizeof *c->d);
    return c->d ? 0 : -1;
}

/* ---- a map from 64-bit keys to pointers (open addressing) ------------------------------ */


static uint32_t hash64(uint64_t k) { return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32); }

static void **map_slot(Map *m, uint64_t key, int create)
{
    if (create && (m->n + 1) * 2 > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        uint64_t *k = calloc(nc, sizeof *k);
        void **v = calloc(nc, sizeof *v);
        if (!k || !v) { free(k); free(v); return NULL; }
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->v[i]) {
                uint32_t j = hash64(m->k[i]) & (nc - 1);
                while (v[j]) j = (j + 1) & (nc - 1);
                k[j] = m->k[i]; v[j] = m->v[i];
            }
        free(m->k); free(m->v);
        m->k = k; m->v = v; m->cap = nc;
    }
    if (!m->cap) return NULL;
    uint32_t j = hash64(key) & (m->cap - 1);
    while (m->v[j] && m->k[j] != key) j = (j + 1) & (m->cap - 1);
    if (!m->v[j] && !create) return NULL;
    if (!m->v[j]) { m->k[j] = key; m->n++; }
    return &m->v[j];
}

static void map_free(Map *m, void (*fr)(void *))
{
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->v[i]) fr(m->v[i]);
    free(m->k); free(m->v);
    memset(m, 0, sizeof *m);
}

/* ---- state ---------------------------------------------------------------------------- */

typedef struct RaceWarp {
    uint32_t clk;               /* own clock                                                */
    uint32_t sync_clk;          /* clock at the last event that ordered every lane          */
    uint32_t wg_clk;            /* clock at which its last wgmma read its operands (+1)     */
    uint32_t (*seen)[WARP_SIZE];  /* after partial warp syncs: seen[b][a], lane b is ordered
                                 * after lane a's accesses at clocks below it (NULL: none)  */
    uint32_t fence_clk;         /* own clock at the last fence (0 none): what strong writes */
    uint8_t fence_scope;        /*   publish after it, and the fence's scope                */
    Clock vc;
    Far pend;                   /* released clocks relaxed reads saw: a fence acquires them  */
    uint8_t pend_far;           /* ... some from another CTA (1) or cluster (2)             */
    struct { uint32_t pc, clk, pgen, idx, gen; uint64_t step; } memo[2][8];   /* recent records: shared, global */
    uint32_t ver;               /* bumped whenever clk or vc changes                        */
    struct { uint32_t rec, ver, gen; } ok[2];   /* shared, global: a log record known to
                                                 * happen before, at version ver, log gen */
    uint8_t mbinit_fenced;      /* fence.mbarrier_init since its last cluster arrival        */
} RaceWarp;

/* Shared bytes a bulk or tensor store reads, from its issue until its issuing thread's
 * wait_group retires its bulk group (not until the engine is done: whether it was done
 * then depends on the schedule). */
typedef struct Range { uint32_t off, size, cta, group; uint16_t warp; uint8_t lane; } Range;

typedef struct RaceCta {
    Cell *cell; uint32_t ncell;
    RaceWarp *w;
    Clock bar[16];              /* the join of each named barrier's arrivals so far           */
    Range *rd; uint32_t nrd, caprd;   /* sources bulk/tensor stores are reading              */
    uint32_t agent_clk;         /* the CTA's async agent: copies that landed in its memory   */
    uint32_t pgen;              /* fence.proxy.async executed so far                         */
    uint32_t init_unfenced;     /* mbarrier.init since the last fence.mbarrier_init          */
} RaceCta;

/* Asynchronous copies write through the CTA's async agent: a clock of its own (dense index
 * after the cluster's warps), advanced at each landing and released into the mbarrier the
 * copy signals (a wait that observes the phase acquires it) or acquired by cp.async
 * wait_group. A read of landed bytes by a thread that acquired nothing is then a hazard
 * whether or not the copy had landed yet: detection does not depend on the schedule. */
#define AGENT_WARP 0xffffu
#define HOST_WARP 0xfffeu       /* a copy or fill the host issued (race_copy_begin)          */

typedef struct RaceCluster {
    uint32_t index;             /* linear cluster index in the grid                          */
    Log log;                    /* shared-memory accesses                                    */
    Clock cbar[2];              /* barrier.cluster arrivals by phase parity                  */
} RaceCluster;

/* An mbarrier: phases completed, the join of the current phase's arrivals, the last two
 * completed phases' joins, and the last phase each thread of the cluster observed (+2). */
typedef struct RaceMbar {
    uint32_t phase;
    uint8_t parity;
    uint8_t signalled;          /* a copy signalled it: tx_* name the last one              */
    uint8_t tx_reported;        /* bytes beyond a phase were reported already               */
    uint32_t tx_pc, tx_cta, tx_t;
    Clock acc, done[2];
    uint32_t *seen; uint32_t nseen;
    uint32_t init_rec, init_gen;    /* the last init or inval (log record << 5 | lane), and the
                                       log's compactions then: later operations must follow it */
} RaceMbar;

/* A location strong accesses synchronise through: what was released to it, and by whom. */
typedef struct RaceLoc {
    Far vc;
    uint32_t cta, clus;
    uint8_t scope;
} RaceLoc;

static RaceFinding *record(Launch *L, int kind, uint32_t off, uint32_t cta1, uint32_t t1,
                           uint32_t pc1, uint32_t cta2, uint32_t t2, uint32_t pc2);

static RaceLog *G;   /* the process's detector state (launches run one at a time) */

static RaceLog *state(void)
{
    if (!G && (G = calloc(1, sizeof *G))) {
        const char *c = getenv("PTXEMU_RACECHECK_COMPACT");
        G->compact_always = c && !strcmp(c, "1");
    }
    return G;
}

static void race_order(uint32_t stream, uint64_t clock, const uint64_t *after, uint32_t n)
{
    RaceLog *g = state();
    if (!g) return;
    uint64_t *a = realloc(g->next_after, (n ? n : 1) * sizeof *a);
    if (!a) return;
    memcpy(a, after, n * sizeof *a);
    g->next_after = a; g->next_nafter = n; g->next_stream = stream; g->next_clock = clock;
    g->have_order = 1;
}

static int race_child_order(uint32_t *stream, uint64_t *clock, uint64_t **after, uint32_t *n)
{
    RaceLog *g = G;
    if (!g || !g->nlaunches) return -1;
    const RaceLaunch *rl = &g->launches[g->cur];
    uint32_t len = g->nafter > rl->stream ? g->nafter : rl->stream + 1;
    uint64_t *a = calloc(len, sizeof *a);
    if (!a) return -1;
    memcpy(a, g->after, g->nafter * sizeof *a);
    if (a[rl->stream] < rl->clock) a[rl->stream] = rl->clock;
    *stream = rl->stream; *clock = rl->clock; *after = a; *n = len;
    return 0;
}

/* A launch begins: it takes the stream order race_order gave, or else comes after every
 * launch before it (one stream). */
static RaceLaunch *new_launch(RaceLog *g)
{
    if (g->nlaunches == g->caplaunches) {
        uint32_t nc = g->caplaunches ? g->caplaunches * 2 : 16;
        RaceLaunch *l = realloc(g->launches, nc * sizeof *l);
        if (!l) return NULL;
        g->launches = l; g->caplaunches = nc;
    }
    if (!g->have_order) {
        uint64_t prev = g->default_clock++;
        race_order(0, prev + 1, &prev, 1);
    }
    g->have_order = 0;
    uint64_t *t = g->after;
    g->after = g->next_after; g->nafter = g->next_nafter;
    g->next_after = t;
    g->cur = g->nlaunches++;
    RaceLaunch *rl = &g->launches[g->cur];
    *rl = (RaceLaunch){.stream = g->next_stream, .clock = g->next_clock};
    return rl;
}

static RaceLog *race_log_new(const Launch *L)
{
    RaceLog *g = state();
    if (!g) return NULL;
    g->n = g->dropped = 0;
    g->full = 0;
    RaceLaunch *rl = new_launch(g);
    if (!rl) return NULL;
    rl->prog = L->prog;
    memcpy(rl->grid, L->grid, sizeof rl->grid);
    memcpy(rl->block, L->block, sizeof rl->block);
    return g;
}

/* Whether launch i (an earlier one) comes before the running launch in stream order. */
static int launch_before(const RaceLog *g, uint32_t i)
{
    const RaceLaunch *l = &g->launches[i];
    return l->stream < g->nafter && g->after[l->stream] >= l->clock;
}

static void free_mbar(void *p)
{
    RaceMbar *b = p;
    clock_free(&b->acc); clock_free(&b->done[0]); clock_free(&b->done[1]);
    free(b->seen); free(b);
}

static void free_loc(void *p) { free(((RaceLoc *)p)->vc.e); free(p); }

/* What lives for one launch only. */
static void release_launch(RaceLog *g)
{
    map_free(&g->mbars, free_mbar);
    map_free(&g->locs, free_loc);
}

static void race_log_free(RaceLog *g)
{
    if (g) release_launch(g);
}

/* Global memory [addr, addr+size) was freed: its words start over. */
static void race_forget(uint64_t addr, size_t size)
{
    RaceLog *g = G;
    if (!g || !size) return;
    for (uint64_t k = addr / 4; k < (addr + size + 3) / 4; k++) {
        void **s = map_slot(&g->pages, k / PAGE_WORDS, 0);
        if (s) ((Cell *)*s)[k % PAGE_WORDS] = (Cell){0};
    }
    void **a = map_slot(&g->allocs, addr, 0);   /* the counted size, 0 once freed */
    if (a && *(size_t *)*a) {
        g->checked -= *(size_t *)*a;
        *(size_t *)*a = 0;
    }
}

/* Programs are going away (a module unloads): forget every earlier launch. */
static void race_forget_all(void)
{
    RaceLog *g = G;
    if (!g) return;
    map_free(&g->pages, free);
    g->last_page = NULL;
    map_free(&g->allocs, free);
    free(g->glog.a);
    memset(&g->glog, 0, sizeof g->glog);
    g->shadow = g->checked = 0;
    g->nlaunches = 0;
}

/* Shadow bytes and the checked bytes they cover, for PTXEMU_STATS. */
static void note_shadow(RaceLog *g, long delta, long checked)
{
    g->shadow += (size_t)delta;
    g->checked += (size_t)checked;
    if (g->shadow > g->shadow_peak) g->shadow_peak = g->shadow;
    if (g->checked > g->checked_peak) g->checked_peak = g->checked;
}

static int race_setup_cta(Cta *c)
{
    RaceLog *g = RACE_LOG(c->launch);
    Cluster *cl = c->cluster;
    g->nw = c->nwarps;
    g->D = cl->n * (c->nwarps + 1);   /* the warps, then each CTA's async agent */
    RaceCta *rc = calloc(1, sizeof *rc);
    if (!rc) return -1;
    c->tool[race_slot] = rc;
    rc->ncell = c->shared_size / 4 + 1;
    rc->cell = calloc(rc->ncell, sizeof *rc->cell);
    rc->w = calloc(c->nwarps, sizeof *rc->w);
    if (!rc->cell || !rc->w) return -1;
    note_shadow(g, (long)(rc->ncell * sizeof *rc->cell), (long)c->shared_size);
    for (uint32_t i = 0; i < c->nwarps; i++) {
        rc->w[i].clk = rc->w[i].sync_clk = 1;
        if (clock_init(&rc->w[i].vc, g->D)) return -1;
    }
    if (c->rank == 0) {
        RaceCluster *rcl = calloc(1, sizeof *rcl);
        if (!rcl) return -1;
        const Launch *L = c->launch;
        uint32_t n0 = L->grid[0] / L->cluster[0], n1 = L->grid[1] / L->cluster[1];
        rcl->index = cl->id[0] + n0 * (cl->id[1] + n1 * cl->id[2]);
        rcl->log.n = 1;   /* index 0 means "none" */
        cl->tool[race_slot] = rcl;
    }
    return 0;
}

/* When a CTA ends, a barrier of its shared memory whose phase holds bytes no expect-tx
 * announced (a negative transaction count) was sent more than any phase expected. */
static void check_leftover_tx(Cta *c)
{
    Map *m = &RACE_LOG(c->launch)->mbars;
    uint64_t lo = (uint64_t)(uintptr_t)c->shared, hi = lo + c->shared_size;
    for (uint32_t i = 0; i < m->cap; i++) {
        RaceMbar *b = m->v[i];
        if (!b || !b->signalled || b->tx_reported || m->k[i] < lo || m->k[i] + 8 > hi) continue;
        QueryMbar q = query_mbar(*(const uint64_t *)(uintptr_t)m->k[i]);
        if (!q.valid || q.tx >= 0) continue;
        RaceFinding *f = record(c->launch, K_TX, (uint32_t)(m->k[i] - lo), b->tx_cta, b->tx_t,
                                b->tx_pc, b->tx_cta, b->tx_t, b->tx_pc);
        if (f) { f->addr = b->phase; f->unannounced = -q.tx; }
    }
}

static void race_free_cta(Cta *c)
{
    RaceCta *rc = RACE_CTA(c);
    if (!rc) return;
    RaceLog *g = RACE_LOG(c->launch);
    check_leftover_tx(c);
    note_shadow(g, -(long)(rc->ncell * sizeof *rc->cell), -(long)c->shared_size);
    for (uint32_t i = 0; rc->w && i < c->nwarps; i++) {
        clock_free(&rc->w[i].vc); free(rc->w[i].seen); free(rc->w[i].pend.e);
    }
    for (int i = 0; i < 16; i++) clock_free(&rc->bar[i]);
    free(rc->cell); free(rc->w); free(rc->rd); free(rc);
    c->tool[race_slot] = NULL;
    RaceCluster *rcl = RACE_CL(c->cluster);
    if (rcl && c->rank + 1 == c->cluster->n) {
        size_t lb = (size_t)rcl->log.cap * sizeof(Acc);
        if (lb > g->logbytes_peak) g->logbytes_peak = lb;
        free(rcl->log.a);
        clock_free(&rcl->cbar[0]); clock_free(&rcl->cbar[1]);
        free(rcl);
        c->cluster->tool[race_slot] = NULL;
    }
}

static RaceWarp *rw_of(const Warp *w) { return &RACE_CTA(w->cta)->w[w->id]; }
static uint32_t self_index(const Warp *w) { return w->cta->rank * w->cta->nwarps + w->id; }
static uint64_t gwarp(uint32_t cta, uint32_t warp, uint32_t nw) { return (uint64_t)cta * nw + warp; }
static uint32_t clus_index(const Warp *w) { return RACE_CL(w->cta->cluster)->index; }
static uint32_t agent_index(const Warp *w, uint32_t rank) { return w->cta->cluster->n * w->cta->nwarps + rank; }

/* ---- releases and acquires ------------------------------------------------------------- */

static void acquire_far(Warp *w, const Far *f);

/* The warp moves on to a new clock; its accesses so far happen before every lane's next. */
static void advance(RaceWarp *me)
{
    me->clk++;
    me->sync_clk = me->clk;
    me->ver++;
}

/* Join the warp's knowledge, its own clock included, into c; the warp moves on. */
static void release_into(Warp *w, Clock *c)
{
    RaceWarp *me = rw_of(w);
    uint32_t D = RACE_LOG(w->launch)->D, s = self_index(w);
    if (clock_init(c, D)) return;
    clock_join(c, &me->vc, D);
    if (me->clk > c->d[s]) c->d[s] = me->clk;
    advance(me);
}

static void acquire_from(Warp *w, const Clock *c)
{
    RaceWarp *me = rw_of(w);
    clock_join(&me->vc, c, RACE_LOG(w->launch)->D);
    me->ver++;
}

static void race_fence(Warp *w, const Inst *in)
{
    RaceWarp *me = rw_of(w);
    me->fence_clk = me->clk;
    me->fence_scope = (uint8_t)SYNC_SCOPE(in->sync);
    advance(me);
    /* the acquire pattern: relaxed reads before the fence acquire what they saw, when the
     * fence's scope includes the releasers */
    int sc = me->fence_scope;
    if (me->pend.n && (!sc || sc >= SCOPE_GPU || (sc == SCOPE_CLUSTER ? me->pend_far < 2 : !me->pend_far))) {
        acquire_far(w, &me->pend);
        me->pend.n = 0;
        me->pend_far = 0;
    }
}

/* Lanes g sync among themselves: each learns what any of them had seen, and every access
 * they made before (clocks below the new one). */
static void sync_lanes(RaceWarp *me, uint32_t g)
{
    uint32_t row[WARP_SIZE];
    for (int x = 0; x < WARP_SIZE; x++) {
        row[x] = me->sync_clk;
        for (uint32_t m = g; m; m &= m - 1)
            if (me->seen[__builtin_ctz(m)][x] > row[x]) row[x] = me->seen[__builtin_ctz(m)][x];
        if (g >> x & 1) row[x] = me->clk;
    }
    for (uint32_t m = g; m; m &= m - 1) memcpy(me->seen[__builtin_ctz(m)], row, sizeof row);
}

/* A wgmma of w read its shared-memory operands (whichever warp's wait completed it): the
 * reads carry w's clock then, and w moves on. */
static void race_wgmma_done(Warp *w)
{
    RaceWarp *me = rw_of(w);
    me->wg_clk = me->clk;
    advance(me);
}

/* A wgmma.wait_group of w returned: the warpgroup's operations are complete, so w is ordered
 * after the operand reads of every warp of its warpgroup. */
static void race_wgmma_acquire(Warp *w)
{
    RaceWarp *me = rw_of(w);
    Cta *c = w->cta;
    for (uint32_t i = w->id / 4 * 4; i < w->id / 4 * 4 + 4 && i < c->nwarps; i++) {
        uint32_t k = RACE_CTA(c)->w[i].wg_clk, *d = &me->vc.d[c->rank * c->nwarps + i];
        if (k > *d) *d = k;
    }
    me->ver++;
}

static void race_warp_sync(Warp *w, uint32_t mask, const uint64_t *members)
{
    RaceWarp *me = rw_of(w);
    uint32_t all = 1;
    for (uint32_t m = mask; m; m &= m - 1)
        all &= ((uint32_t)members[__builtin_ctz(m)] & w->valid) == w->valid;
    if (all) { advance(me); return; }
    if (!me->seen && !(me->seen = calloc(WARP_SIZE, sizeof *me->seen))) { advance(me); return; }
    me->clk++;
    me->ver++;
    /* lanes of one instruction may name different groups (the tiles of a partition) */
    for (uint32_t m = mask, done = 0; m; m &= m - 1) {
        uint32_t g = (uint32_t)members[__builtin_ctz(m)] & w->valid & mask;
        if (g & done) continue;
        sync_lanes(me, g);
        done |= g;
    }
}

static void race_bar_arrive(Warp *w, int id) { release_into(w, &RACE_CTA(w->cta)->bar[id]); }
static void race_bar_acquire(Warp *w, int id) { acquire_from(w, &RACE_CTA(w->cta)->bar[id]); }
static void race_bar_reset(Cta *c, int id) { clock_clear(&RACE_CTA(c)->bar[id], RACE_LOG(c->launch)->D); }

static void race_cbar_arrive(Warp *w, int phase)
{
    release_into(w, &RACE_CL(w->cta->cluster)->cbar[phase & 1]);
}

static void race_cbar_acquire(Warp *w, int phase)
{
    acquire_from(w, &RACE_CL(w->cta->cluster)->cbar[phase & 1]);
}

/* Phase `phase` ended: the other slot (phase - 1, whose waiters have all moved on, since
 * every thread arrived in `phase` after waiting) takes the next phase's arrivals. */
static void race_cbar_complete(Cluster *cl, int phase)
{
    RaceCluster *r = RACE_CL(cl);
    if (r) clock_clear(&r->cbar[(phase + 1) & 1], RACE_LOG(cl->launch)->D);
}

/* Whether scope s of a thread in (cta, clus) includes a thread in (cta2, clus2). */
static int in_scope(int s, uint32_t cta, uint32_t clus, uint32_t cta2, uint32_t clus2)
{
    if (s == SCOPE_CTA) return cta == cta2;
    if (s == SCOPE_CLUSTER) return clus == clus2;
    return 1;
}

/* The warp acquires the clocks of f (by global warp id): entries of the own cluster go to
 * the dense part. */
static void acquire_far(Warp *w, const Far *f)
{
    RaceLog *g = RACE_LOG(w->launch);
    RaceWarp *me = rw_of(w);
    Cluster *cl = w->cta->cluster;
    me->ver++;
    for (uint32_t i = 0; i < f->n; i++) {
        const VCE *e = &f->e[i];
        uint32_t ecta = (uint32_t)(e->key / g->nw), ew = (uint32_t)(e->key % g->nw), r = 0;
        while (r < cl->n && cl->ctas[r]->linear != ecta) r++;
        if (r < cl->n) {
            uint32_t *d = &me->vc.d[r * g->nw + ew];
            if (e->clk > *d) *d = e->clk;
        } else if (far_get(&me->vc.far, e->key) < e->clk)
            far_set(&me->vc.far, e->key, e->clk);
    }
}

/* A strong read or an atomic at `key` sees what was released there, when each side's scope
 * includes the other. It acquires it when it is an acquire operation; a relaxed one only
 * through the fence after it (the acquire pattern), which race_fence applies - except an
 * atomic read-modify-write after a fence of device scope or wider: the last-block idiom of
 * the CUDA samples and Programming Guide (store, __threadfence, atomicInc; the block that
 * drew the last ticket reads the others' stores) relies on the two fences ordering the
 * tickets, the hardware honours it, and reporting it would be a false alarm on their code. */
static void acquire_loc(Warp *w, uint64_t key, const Inst *in)
{
    RaceLog *g = RACE_LOG(w->launch);
    void **s = map_slot(&g->locs, key, 0);
    if (!s) return;
    RaceLoc *loc = *s;
    int scope = SYNC_SCOPE(in->sync), sem = SYNC_SEM(in->sync);
    uint32_t cta = w->cta->linear, clus = clus_index(w);
    if (!in_scope(loc->scope, loc->cta, loc->clus, cta, clus) ||
        !in_scope(scope, cta, clus, loc->cta, loc->clus))
        return;
    RaceWarp *me = rw_of(w);
    int fenced_rmw = in->op == OP_atom && me->fence_clk && (!me->fence_scope || me->fence_scope >= SCOPE_GPU);
    if (sem == SEM_ACQUIRE || sem == SEM_ACQ_REL || fenced_rmw) {
        acquire_far(w, &loc->vc);
        return;
    }
    far_join(&me->pend, &loc->vc);
    if (loc->clus != clus) me->pend_far = 2;
    else if (loc->cta != cta && !me->pend_far) me->pend_far = 1;
}

/* A strong write or an atomic at `key` publishes the warp's knowledge when it is a release
 * or follows a fence (then up to the fence's clock), within the narrower of the scopes. */
static void publish_loc(Warp *w, uint64_t key, const Inst *in)
{
    RaceLog *g = RACE_LOG(w->launch);
    RaceWarp *me = rw_of(w);
    int sem = SYNC_SEM(in->sync), scope = SYNC_SCOPE(in->sync);
    uint32_t own;
    if (sem == SEM_RELEASE || sem == SEM_ACQ_REL) own = me->clk;
    else if (me->fence_clk) {
        own = me->fence_clk;
        if (me->fence_scope && (!scope || me->fence_scope < scope)) scope = me->fence_scope;
    } else return;
    void **s = map_slot(&g->locs, key, 1);
    if (!s) return;
    if (!*s && !(*s = calloc(1, sizeof(RaceLoc)))) return;
    RaceLoc *loc = *s;
    Cluster *cl = w->cta->cluster;
    loc->cta = w->cta->linear; loc->clus = clus_index(w); loc->scope = (uint8_t)scope;
    for (uint32_t r = 0; r < cl->n; r++)
        for (uint32_t v = 0; v < g->nw; v++) {
            uint32_t k = me->vc.d[r * g->nw + v];
            if (k && far_get(&loc->vc, gwarp(cl->ctas[r]->linear, v, g->nw)) < k)
                far_set(&loc->vc, gwarp(cl->ctas[r]->linear, v, g->nw), k);
        }
    far_join(&loc->vc, &me->vc.far);
    uint64_t self = gwarp(w->cta->linear, w->id, g->nw);
    if (far_get(&loc->vc, self) < own) far_set(&loc->vc, self, own);
    if (own == me->clk) advance(me);
}

/* ---- mbarriers --------------------------------------------------------------------------- */

static RaceMbar *mbar_of(Launch *L, const uint64_t *m, int create)
{
    void **s = map_slot(&RACE_LOG(L)->mbars, (uint64_t)(uintptr_t)m, create);
    if (!s) return NULL;
    if (!*s && create) *s = calloc(1, sizeof(RaceMbar));
    return *s;
}

static void race_mbar_init(Warp *w, const uint64_t *m)
{
    RaceMbar *b = mbar_of(w->launch, m, 1);
    if (!b) return;
    uint32_t D = RACE_LOG(w->launch)->D;
    b->phase = 0; b->parity = 0;
    b->signalled = b->tx_reported = 0;
    clock_clear(&b->acc, D); clock_clear(&b->done[0], D); clock_clear(&b->done[1], D);
    if (b->seen) memset(b->seen, 0, b->nseen * sizeof *b->seen);
}

static void race_mbar_arrive(Warp *w, const Inst *in, const uint64_t *m)
{
    RaceMbar *b = mbar_of(w->launch, m, 1);
    if (b && (!in || SYNC_SEM(in->sync) != SEM_RELAXED)) release_into(w, &b->acc);
}

static void race_mbar_sync(Launch *L, const uint64_t *m)
{
    RaceMbar *b = mbar_of(L, m, 0);
    if (!b || (uint8_t)(*m >> 62 & 1) == b->parity) return;
    Clock t = b->done[b->phase & 1];
    b->done[b->phase & 1] = b->acc;
    b->acc = t;
    clock_clear(&b->acc, RACE_LOG(L)->D);
    b->phase++;
    b->parity ^= 1;
}

static uint32_t race_mbar_phase(Launch *L, const uint64_t *m)
{
    RaceMbar *b = mbar_of(L, m, 0);
    return b ? b->phase + 1 : 0;
}


/* A successful wait observed the phase before the current one (-1 on a fresh barrier): it
 * acquires that phase's arrivals. A parity wait that observes a phase the thread already
 * observed means the parity was not flipped since its last wait. */
static void race_mbar_waited(Warp *w, const Inst *in, int lane, const uint64_t *m, int parity)
{
    RaceMbar *b = mbar_of(w->launch, m, 0);
    if (!b) return;
    if (b->phase && SYNC_SEM(in->sync) != SEM_RELAXED) acquire_from(w, &b->done[(b->phase - 1) & 1]);
    /* a state token names its phase; only a parity can alias an older phase */
    if (!parity) return;
    uint32_t n = w->cta->cluster->n * w->cta->nthreads;
    if (!b->seen) {
        if (!(b->seen = calloc(n, sizeof *b->seen))) return;
        b->nseen = n;
    }
    uint32_t t = w->cta->rank * w->cta->nthreads + w->id * WARP_SIZE + (uint32_t)lane;
    uint32_t obs = b->phase + 1;   /* the observed phase, plus 2 */
    if (t < b->nseen) {
        if (b->seen[t] && obs <= b->seen[t]) {
            RaceFinding *f = record(w->launch, K_PARITY, (uint32_t)((const uint8_t *)m - w->cta->shared),
                                    w->cta->linear, t, w->pc, w->cta->linear, t, w->pc);
            if (f) f->addr = b->phase;
        }
        b->seen[t] = obs;
    }
}

static void race_mbar_tx(Warp *w, uint32_t pc, int lane, const uint64_t *m, uint32_t issued)
{
    RaceMbar *b = mbar_of(w->launch, m, 0);
    if (!b || !issued) return;
    uint32_t t = w->id * WARP_SIZE + (uint32_t)lane;
    b->signalled = 1; b->tx_pc = pc; b->tx_cta = w->cta->linear; b->tx_t = t;
    if (b->phase + 1 == issued) return;
    b->tx_reported = 1;
    RaceFinding *f = record(w->launch, K_TX, 0, w->cta->linear, t, pc, w->cta->linear, t, pc);
    if (f) f->addr = issued - 1;
}

/* ---- findings --------------------------------------------------------------------------- */

/* Two instructions of the same CUDA source line (or the same instruction, without .loc)
 * count as one place: reports are folded by the pair of places. */
static int same_place(const Program *p, uint32_t a, uint32_t b)
{
    if (a == b) return 1;
    uint32_t la = p->code[a].loc, lb = p->code[b].loc;
    return la && lb && p->locs[la].file == p->locs[lb].file && p->locs[la].line == p->locs[lb].line;
}

/* How far apart two threads of a race are: what must order them (the hint says). */
enum { RS_THREAD, RS_WARP, RS_BLOCK, RS_GRID };
static uint32_t race_scope(int same_launch, uint32_t cta1, uint32_t t1, uint32_t cta2, uint32_t t2)
{
    if (!same_launch || cta1 != cta2) return RS_GRID;
    if (t1 / WARP_SIZE != t2 / WARP_SIZE) return RS_BLOCK;
    return t1 == t2 ? RS_THREAD : RS_WARP;
}

/* Note a finding (or count it, when one of the same kind at the same pair of places
 * exists). The earlier access may belong to an earlier launch (launch1, program p1). A
 * finding shows the widest pair of threads it met: a missing __syncthreads() whose first
 * instance happened to be two lanes of one warp is shown, and hinted at, as the block-level
 * race it is. Returns the finding when it is new or now shows a wider pair, else NULL. */
static RaceFinding *record_in(Launch *L, int kind, uint32_t off, uint32_t launch1, uint32_t cta1,
                              uint32_t t1, uint32_t pc1, uint32_t cta2, uint32_t t2, uint32_t pc2)
{
    RaceLog *g = RACE_LOG(L);
    const Program *p1 = g->launches[launch1].prog;
    uint32_t scope = race_scope(launch1 == g->cur, cta1, t1, cta2, t2);
    for (uint32_t i = 0; i < g->n; i++) {
        RaceFinding *f = &g->f[i];
        if (f->kind == kind && f->prog1 == p1 && same_place(p1, f->pc1, pc1) &&
            same_place(L->prog, f->pc2, pc2)) {
            f->count++;
            if (kind <= K_WAW && scope > f->scope) {   /* the caller sets its address too */
                f->scope = scope;
                f->pc1 = pc1; f->pc2 = pc2; f->cta1 = cta1; f->cta2 = cta2;
                f->t1 = t1; f->t2 = t2; f->offset = off; f->owner = g->owner;
                return f;
            }
            return NULL;
        }
    }
    if (g->n == MAX_FINDINGS) { g->dropped++; return NULL; }
    RaceFinding *f = &g->f[g->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind; f->pc1 = pc1; f->pc2 = pc2; f->cta1 = cta1; f->cta2 = cta2;
    f->t1 = t1; f->t2 = t2; f->offset = off; f->count = 1;
    f->prog1 = p1; f->launch1 = launch1; f->owner = g->owner; f->scope = scope;
    return f;
}

static RaceFinding *record(Launch *L, int kind, uint32_t off, uint32_t cta1, uint32_t t1,
                           uint32_t pc1, uint32_t cta2, uint32_t t2, uint32_t pc2)
{
    return record_in(L, kind, off, RACE_LOG(L)->cur, cta1, t1, pc1, cta2, t2, pc2);
}

/* ---- accesses ------------------------------------------------------------------------- */

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

/* Drop the log records no shadow word refers to any more, renumbering the rest: the log
 * then holds what the shadow needs, not every instruction run since the launch began. */
static void log_compact(Log *log, Cell *const *arr, const uint32_t *len, uint32_t narr)
{
    uint32_t *map = calloc(log->n, sizeof *map);
    if (!map) return;
    for (uint32_t i = 0; i < narr; i++)
        for (uint32_t k = 0; k < len[i]; k++) {
            map[(arr[i][k].w & ~CELL_PENDING) >> 5] = 1;
            map[arr[i][k].r >> 5] = 1;
            map[arr[i][k].r2 >> 5] = 1;
        }
    uint32_t n = 1;
    for (uint32_t i = 1; i < log->n; i++)
        if (map[i]) { log->a[n] = log->a[i]; map[i] = n++; }
    for (uint32_t i = 0; i < narr; i++)
        for (uint32_t k = 0; k < len[i]; k++) {
            Cell *x = &arr[i][k];
            if (x->w & ~CELL_PENDING)
                x->w = (x->w & (CELL_PENDING | 31)) | map[(x->w & ~CELL_PENDING) >> 5] << 5;
            if (x->r) x->r = (x->r & 31) | map[x->r >> 5] << 5;
            if (x->r2) x->r2 = (x->r2 & 31) | map[x->r2 >> 5] << 5;
        }
    free(map);
    log->n = n;
    log->gen++;   /* the warps' memos name old indices */
}

/* Compact the warp's shared (space 0) or global log when that pays: the global one only
 * once it is a quarter of the global shadow, so the walks cost little against the run. */
static void maybe_compact(Warp *w, Log *log, int space)
{
    RaceLog *g = RACE_LOG(w->launch);
    Cell *arr[MAX_CLUSTER];
    uint32_t len[MAX_CLUSTER];
    if (space == 0) {
        Cluster *cl = w->cta->cluster;
        for (uint32_t r = 0; r < cl->n; r++) {
            RaceCta *rc = RACE_CTA(cl->ctas[r]);
            arr[r] = rc ? rc->cell : NULL;
            len[r] = rc ? rc->ncell : 0;
        }
        log_compact(log, arr, len, cl->n);
        g->compactions++;
        return;
    }
    if ((size_t)log->cap * sizeof(Acc) * 4 < g->shadow && !g->compact_always) return;
    Cell **pa = malloc(g->pages.n * sizeof *pa);
    uint32_t *pl = malloc(g->pages.n * sizeof *pl), n = 0;
    if (pa && pl) {
        for (uint32_t i = 0; i < g->pages.cap; i++)
            if (g->pages.v[i]) { pa[n] = g->pages.v[i]; pl[n++] = PAGE_WORDS; }
        log_compact(log, pa, pl, n);
        g->compactions++;
    }
    free(pa); free(pl);
}

static int log_grow(Log *log, uint32_t first)
{
    if (log->cap >= LOG_MAX) return -1;
    uint32_t nc = log->cap ? log->cap * 2 : first;
    Acc *a = realloc(log->a, nc * sizeof *a);
    if (!a) return -1;
    log->a = a; log->cap = nc;
    return 0;
}

/* The log record of the warp's current instruction at its current clock: one a dynamic
 * instruction (the warp's step count tells them apart), so that two passes of a loop are two
 * accesses - lane t's fifth byte written in the fifth pass and lane t+1's first byte in the
 * first are different instructions of independent threads, not one warp instruction. */
static uint32_t log_index(Warp *w, Log *log, int space, uint32_t pc, uint32_t pgen)
{
    RaceWarp *me = rw_of(w);
    __typeof__(me->memo[0][0]) *m = &me->memo[space][pc & 7];
    if (m->idx && m->gen == log->gen && m->pc == pc && m->clk == me->clk && m->pgen == pgen &&
        m->step == w->steps)
        return m->idx;
    if (log->n + 1 >= log->cap) {
        uint32_t gen = log->gen;
        if (log->cap >= 4096 || RACE_LOG(w->launch)->compact_always) maybe_compact(w, log, space);
        /* grow unless a compaction left at least half the room free */
        if ((log->gen == gen || log->n > log->cap / 2) && log_grow(log, RACE_LOG(w->launch)->compact_always ? 4 : 1024) < 0) {
            RACE_LOG(w->launch)->full = 1;
            return 0;
        }
    }
    if (!log->n) log->n = 1;
    Acc *a = &log->a[log->n];
    a->launch = RACE_LOG(w->launch)->cur;
    a->cta = w->cta->linear; a->clus = clus_index(w); a->pc = pc; a->clk = me->clk;
    a->pgen = pgen; a->warp = (uint16_t)w->id; a->rank = (uint8_t)w->cta->rank;
    m->idx = log->n++; m->pc = pc; m->clk = me->clk; m->pgen = pgen; m->gen = log->gen; m->step = w->steps;
    return m->idx;
}

/* Whether the access (a, lane al) happens before the warp's present (lane l). */
static int before(const Warp *w, const RaceWarp *me, const Acc *a, uint32_t al, int l)
{
    const RaceLog *g = RACE_LOG(w->launch);
    if (a->launch != g->cur) return launch_before(g, a->launch);
    if (a->warp == AGENT_WARP) return a->clus == clus_index(w) && a->clk <= me->vc.d[agent_index(w, a->rank)];
    if (a->cta == w->cta->linear && a->warp == w->id)
        return al == (uint32_t)l || a->clk < me->sync_clk || (me->seen && a->clk < me->seen[l][al]);
    if (a->clus == clus_index(w)) return a->clk <= me->vc.d[a->rank * w->cta->nwarps + a->warp];
    return a->clk <= far_get(&me->vc.far, gwarp(a->cta, a->warp, RACE_LOG(w->launch)->nw));
}

/* Strong operations (atomics; ld/st .volatile, .relaxed, .acquire, .release: Inst.sync has
 * an order) race with nothing but plain writes: that is how CUDA code marks an intended race. */
static int strong_inst(const Inst *in)
{
    return in->op == OP_atom || in->op == OP_red ||
           ((in->op == OP_ld || in->op == OP_ldu || in->op == OP_st || in->op == OP_mbarrier) &&
            SYNC_SEM(in->sync) != SEM_WEAK);
}

static int pending_read(const RaceCta *rc, uint32_t k)
{
    for (uint32_t i = 0; i < rc->nrd; i++)
        if (k * 4 + 4 > rc->rd[i].off && k * 4 < rc->rd[i].off + rc->rd[i].size) return 1;
    return 0;
}

/* Whether shadow value v (a record and a lane) happens before lane l's present. A record
 * found ordered for a reason that holds for all its lanes (another warp, or an older clock of
 * this one) is remembered until the warp's clocks change: the lanes of a warp instruction
 * mostly meet the words one earlier warp instruction wrote. */
static int ordered(const Warp *w, RaceWarp *me, const Log *log, int space, uint32_t v, int l)
{
    __typeof__(me->ok[0]) *ok = &me->ok[space];
    if (v >> 5 == ok->rec && me->ver == ok->ver && log->gen == ok->gen) return 1;
    const Acc *a = &log->a[v >> 5];
    if (!before(w, me, a, v & 31, l)) return 0;
    if (a->cta != w->cta->linear || a->warp != w->id || a->clk < me->sync_clk) {
        ok->rec = v >> 5; ok->ver = me->ver; ok->gen = log->gen;
    }
    return 1;
}

/* A compare-and-swap loop reads plainly, then cas-es with what it read: a plain read and a
 * cas conflict under the memory model, but the loop retries until its read was current, so
 * such pairs are not reported. A cas that compares with a constant (a register the program
 * never writes: an immediate or a parameter) is no such loop - the plain check before it, as
 * in `if (level[v] == -1) atomicCAS(&level[v], -1, d)`, races. Any other atomic against a
 * plain access is a data race (one access not strong). */
static int is_cas(const Program *p, const Inst *in)
{
    if (in->op != OP_atom || in->bop != ATOM_BOP_CAS) return 0;
    uint32_t row = in->s[0];
    if (row < p->first_var_row) return 0;
    /* nvcc moves the constant into a register first: look a few instructions back */
    for (const Inst *q = in - 1; q >= p->code && in - q <= 8; q--)
        if (q->nd && q->d[0] == row) return !(q->op == OP_mov && q->ns >= 1 && q->s[0] < p->first_var_row);
    return 1;
}

static const Inst *inst_of(const Launch *L, const Acc *a)
{
    return &RACE_LOG(L)->launches[a->launch].prog->code[a->pc];
}

/* Two strong accesses are morally strong only when each one's scope includes the other's
 * thread: atomicAdd_block (atom.cta) of two blocks on one word is a data race. */
/* The bytes a strong access covers: atomics of different sizes on overlapping bytes are not
 * morally strong (the memory model wants them to overlap completely). */
static unsigned strong_size(const Inst *in)
{
    static const unsigned char bytes[TY_COUNT] = {
        [TY_B8] = 1, [TY_U8] = 1, [TY_S8] = 1, [TY_B16] = 2, [TY_U16] = 2, [TY_S16] = 2,
        [TY_F16] = 2, [TY_BF16] = 2, [TY_B32] = 4, [TY_U32] = 4, [TY_S32] = 4, [TY_F32] = 4,
        [TY_F16X2] = 4, [TY_BF16X2] = 4, [TY_B64] = 8, [TY_U64] = 8, [TY_S64] = 8,
        [TY_F64] = 8, [TY_B128] = 16 };
    if (in->op == OP_mbarrier) return 8;
    return (in->t < TY_COUNT ? bytes[in->t] : 0) * (in->vec ? in->vec : 1);
}

static int both_strong(const Inst *ai, const Acc *a, const Inst *ni, const Warp *w)
{
    uint32_t cta = w->cta->linear, clus = clus_index(w);
    /* an mbarrier's operations are atomic on the object whatever scope they name */
    if (ai->op == OP_mbarrier && ni->op == OP_mbarrier) return strong_inst(ai) && strong_inst(ni);
    return strong_inst(ai) && strong_inst(ni) && strong_size(ai) == strong_size(ni) &&
           in_scope(SYNC_SCOPE(ai->sync), a->cta, a->clus, cta, clus) &&
           in_scope(SYNC_SCOPE(ni->sync), cta, clus, a->cta, a->clus);
}

/* The read slots of x: a read replaces one it covers that happens before it; else it takes a
 * free slot, or the second one (the first keeps the oldest unordered read). */
static void note_read(Warp *w, RaceWarp *me, const Log *log, int global, Cell *x, uint32_t v,
                      unsigned mask, int l)
{
    if (x->r && !(x->rm & 15 & ~mask) && ordered(w, me, log, global, x->r, l)) x->r = 0;
    if (x->r2 && !(x->r2m & 15 & ~mask) && ordered(w, me, log, global, x->r2, l)) x->r2 = 0;
    if (!x->r) { x->r = v; x->rm = (uint8_t)mask; }
    else { x->r2 = v; x->r2m = (uint8_t)mask; }
}

static int plain_write(const Launch *L, const Acc *a)
{
    if (a->warp == AGENT_WARP || a->warp == HOST_WARP) return 0;
    const Inst *in = inst_of(L, a);
    return in->op == OP_st && !strong_inst(in);
}

/* Check one word against its shadow and update it. mask: the bytes of the word accessed;
 * atomic: the access is strong (an atomic, or a volatile/relaxed/acquire/release ld/st). */
static void check_word(Warp *w, Cell *x, const Log *log, uint32_t k, int l, uint32_t cur,
                       int write, int atomic, int global, uint64_t addr, unsigned mask)
{
    RaceWarp *me = rw_of(w);
    Launch *L = w->launch;
    const Acc *now = &log->a[cur];
    const Inst *nin = &RACE_LOG(L)->launches[now->launch].prog->code[now->pc];
    uint32_t t = w->id * WARP_SIZE + (uint32_t)l;
    RaceFinding *f = NULL;
    uint32_t wi = (x->w & ~CELL_PENDING) >> 5;
    int own_multi = x->wmulti && log->a[wi].cta == w->cta->linear && log->a[wi].warp == w->id &&
                    log->a[wi].launch == now->launch;
    if (wi && (x->wm & mask) && !own_multi && !ordered(w, me, log, global, x->w & ~CELL_PENDING, l)) {
        const Acc *a = &log->a[wi];
        const Inst *ai = a->warp == HOST_WARP ? NULL : inst_of(L, a);
        if (a->warp == AGENT_WARP) {   /* bytes a copy wrote, before the wait that shows them */
            RaceFinding *g = record(L, write ? K_ASYNC_WRITE : K_ASYNC_READ, k * 4, a->cta, 0, now->pc,
                                    w->cta->linear, t, now->pc);
            if (g && global) { g->global = 1; g->addr = addr; }
        }
        else if (!ai || (!(atomic && both_strong(ai, a, nin, w)) &&
                         !(!write && is_cas(RACE_LOG(L)->launches[a->launch].prog, ai))))
            f = record_in(L, write ? K_WAW : K_RAW, k * 4, a->launch, a->cta,
                          a->warp * WARP_SIZE + (x->w & 31), a->pc, w->cta->linear, t, now->pc);
    }
    for (int s = 0; !write && s < 2; s++) {   /* writes kept in read slots (below) */
        uint32_t rv = s ? x->r2 : x->r, rm = s ? x->r2m : x->rm;
        if (!rv || !(rm & CELL_KEPT) || !(rm & mask) || ordered(w, me, log, global, rv, l)) continue;
        const Acc *a = &log->a[rv >> 5];
        RaceFinding *g2 = record_in(L, K_RAW, k * 4, a->launch, a->cta,
                                    a->warp * WARP_SIZE + (rv & 31), a->pc, w->cta->linear, t, now->pc);
        if (g2 && global) { g2->global = 1; g2->addr = addr; }
    }
    for (int s = 0; write && s < 2; s++) {
        uint32_t rv = s ? x->r2 : x->r;
        if (!rv || !((s ? x->r2m : x->rm) & mask) || ordered(w, me, log, global, rv, l)) continue;
        const Acc *a = &log->a[rv >> 5];
        const Inst *ri = a->warp == HOST_WARP ? NULL : inst_of(L, a);
        int was_write = ri && ri->op == OP_st;   /* a plain write kept aside (below) */
        if (ri && ((atomic && both_strong(ri, a, nin, w)) ||
                   (!was_write && !strong_inst(ri) && is_cas(w->prog, nin)))) continue;
        RaceFinding *g2 = record_in(L, was_write ? K_WAW : K_WAR, k * 4, a->launch, a->cta,
                                    a->warp * WARP_SIZE + (rv & 31), a->pc, w->cta->linear, t, now->pc);
        if (g2 && global) { g2->global = 1; g2->addr = addr; }
    }
    if (f && global) { f->global = 1; f->addr = addr; }
    uint32_t v = cur << 5 | (uint32_t)l;
    const Acc *prev = wi ? &log->a[wi] : NULL;
    if (write && wi == cur && !(x->wm & mask)) {   /* another lane's bytes of this instruction */
        x->w = (x->w & CELL_PENDING) | v; x->wm |= (uint8_t)mask; x->wmulti = 1;
    } else if (write && prev && !x->wmulti && !(x->wm & mask) && (x->w & 31) == (uint32_t)l &&
               prev->launch == now->launch && prev->cta == w->cta->linear && prev->warp == w->id &&
               prev->clk == now->clk && plain_write(L, prev) && !atomic) {
        /* the same thread wrote other bytes of the word since its last synchronisation (a
         * byte-by-byte copy): the word keeps all of them, named by the latest write, so that
         * another lane writing one of the earlier bytes at another instruction (one past the
         * end of its own slot) still meets them */
        x->w = (x->w & CELL_PENDING) | v; x->wm |= (uint8_t)mask;
    } else if (write) {
        /* A plain write the new one would make the shadow forget is kept in a read slot
         * when later accesses may race with it and not with the new write: an atomic over it
         * (atomics of other threads race with the plain write, not with this atomic: a
         * counter zeroed plainly, then incremented by its own thread first), or a write to
         * other bytes of the word that it does not happen before (readers of the whole word
         * race with both). Reads check such kept writes too. */
        uint32_t old = x->w & ~CELL_PENDING;
        if (wi && wi != cur && plain_write(L, &log->a[wi]) &&
            ((x->wm & mask) ? atomic : !ordered(w, me, log, global, old, l))) {
            if (!x->r) { x->r = old; x->rm = x->wm | CELL_KEPT; }
            else { x->r2 = old; x->r2m = x->wm | CELL_KEPT; }
        }
        x->w = (x->w & CELL_PENDING) | v; x->wm = (uint8_t)mask; x->wmulti = 0;
    } else note_read(w, me, log, global, x, v, mask, l);
}

/* The bytes of word k that [a, a+size) covers, as a mask (bit i: byte i). */
static unsigned word_mask(uint64_t a, uint64_t size, uint64_t k)
{
    uint64_t lo = a > k * 4 ? a : k * 4, hi = a + size < k * 4 + 4 ? a + size : k * 4 + 4;
    return ((1u << (hi - lo)) - 1) << (lo - k * 4);
}

static Cell *global_cells(RaceLog *g, uint64_t word)
{
    if (g->last_page && g->last_key == word / PAGE_WORDS) return g->last_page + word % PAGE_WORDS;
    void **s = map_slot(&g->pages, word / PAGE_WORDS, 1);
    if (!s) return NULL;
    if (!*s) {
        if (!(*s = calloc(PAGE_WORDS, sizeof(Cell)))) return NULL;
        size_t size = 0;
        uint64_t base = mem_find(word * 4, &size, NULL);
        void **a = base ? map_slot(&g->allocs, base, 1) : NULL;
        if (a && !*a) *a = calloc(1, sizeof(size_t));
        long fresh = a && *a && !*(size_t *)*a ? (long)size : 0;
        if (fresh) *(size_t *)*a = size;
        note_shadow(g, PAGE_WORDS * sizeof(Cell), fresh);
    }
    g->last_key = word / PAGE_WORDS;
    g->last_page = *s;
    return (Cell *)*s + word % PAGE_WORDS;
}

static void global_access(Warp *w, int l, uint32_t cur, uint64_t a, unsigned size, int write,
                          int atomic)
{
    RaceLog *g = RACE_LOG(w->launch);
    for (uint64_t k = a / 4; k <= (a + size - 1) / 4; k++) {
        Cell *x = global_cells(g, k);
        if (!x) { g->full = 1; return; }
        if (x->w & CELL_PENDING) {   /* a bulk store in flight will write it */
            uint32_t pc = g->glog.a[cur].pc, t = w->id * WARP_SIZE + (uint32_t)l;
            RaceFinding *f = record(w->launch, write ? K_ASYNC_WRITE : K_ASYNC_READ, 0, w->cta->linear,
                                    0, pc, w->cta->linear, t, pc);
            if (f) { f->global = 1; f->addr = k * 4; }
            continue;
        }
        check_word(w, x, &g->glog, 0, l, cur, write, atomic, 1, k * 4, word_mask(a, size, k));
    }
}

/* One lane's access to the shared memory of CTA c (its own, or another of the cluster). */
static void shared_access(Warp *w, Cta *c, int l, uint32_t pc, uint32_t cur, const uint8_t *p,
                          unsigned size, int write, int atomic)
{
    Launch *L = w->launch;
    RaceCta *rc = RACE_CTA(c);
    RaceCluster *rcl = RACE_CL(w->cta->cluster);
    uint32_t off = (uint32_t)(p - c->shared), t = w->id * WARP_SIZE + (uint32_t)l;
    RACE_LOG(L)->owner = c->linear;
    for (uint32_t k = off / 4; cur && k <= (off + size - 1) / 4 && k < rc->ncell; k++) {
        Cell *x = &rc->cell[k];
        if (x->w & CELL_PENDING)
            record(L, write ? K_ASYNC_WRITE : K_ASYNC_READ, k * 4, c->linear, 0, pc, w->cta->linear, t, pc);
        else if (write && rc->nrd && pending_read(rc, k))   /* missing wait_group.read */
            record(L, K_ASYNC_SRC, k * 4, c->linear, 0, pc, w->cta->linear, t, pc);
        else
            check_word(w, x, &rcl->log, k, l, cur, write, atomic, 0, 0, word_mask(off, size, k));
    }
}

static void race_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                 uint8_t *const host[WARP_SIZE])
{
    uint32_t pc = (uint32_t)(in - w->prog->code);
    int strong = strong_inst(in) && access != ACC_ATOMIC;
    int write = access != ACC_READ, atomic = access == ACC_ATOMIC || strong;
    int reads = atomic && in->op != OP_st && in->op != OP_red;   /* acquires, for strong ops */
    RaceLog *g = RACE_LOG(w->launch);
    uint32_t curg = 0, curs = 0;   /* the instruction's log records, once it needs them */
    const Cta *sown = NULL;
    FOR_LANES(mask, l) {
        uint64_t key = (uint64_t)(uintptr_t)host[l] / 4;
        if (reads) acquire_loc(w, key, in);
        Cta *c = owner(w, host[l]);
        if (!c && query_is_global((uint64_t)(uintptr_t)host[l])) {
            if (!curg) curg = log_index(w, &g->glog, 1, pc, 0);
            if (curg) global_access(w, l, curg, (uint64_t)(uintptr_t)host[l], size, write, atomic);
        } else if (c && RACE_CTA(c)) {
            if (c != sown) {   /* the record names the proxy-fence count of the owner */
                curs = log_index(w, &RACE_CL(w->cta->cluster)->log, 0, pc, RACE_CTA(c)->pgen);
                sown = c;
            }
            if (curs) shared_access(w, c, l, pc, curs, host[l], size, write, atomic);
        }
        if (atomic && write) publish_loc(w, key, in);
    }
}

/* An mbarrier operation's access to the barrier object (exec_async.c): only the shadow
 * check, since its ordering (arrive releases, a wait that passes acquires) is the phase
 * logic's business above. */
static void race_mbar_touch(Warp *w, const Inst *in, int lane, uint8_t *mbar, int write)
{
    uint32_t pc = (uint32_t)(in - w->prog->code);
    Cta *c = owner(w, mbar);
    /* another block's barrier: its init reaches this block through fence.mbarrier_init and a
     * cluster barrier, which race_mbar_use checks */
    if (!c || c != w->cta || !RACE_CTA(c)) return;
    Log *log = &RACE_CL(w->cta->cluster)->log;
    uint32_t cur = log_index(w, log, 0, pc, RACE_CTA(c)->pgen);
    if (!cur) return;
    shared_access(w, c, lane, pc, cur, mbar, 8, write, strong_inst(in));
    /* the shadow keeps the last write, which a thread's own arrival after its init replaces:
     * the barrier remembers its init, which every later operation must come after */
    RaceMbar *b = mbar_of(w->launch, (const uint64_t *)mbar, 1);
    if (!b) return;
    if (!strong_inst(in)) {
        b->init_rec = cur << 5 | (uint32_t)lane;
        b->init_gen = log->gen;
    } else if (b->init_rec && b->init_gen == log->gen &&
               !ordered(w, rw_of(w), log, 0, b->init_rec, lane)) {
        const Acc *a = &log->a[b->init_rec >> 5];
        record_in(w->launch, write ? K_WAW : K_RAW, (uint32_t)(mbar - c->shared), a->launch, a->cta,
                  a->warp * WARP_SIZE + (b->init_rec & 31), a->pc, w->cta->linear,
                  w->id * WARP_SIZE + (uint32_t)lane, pc);
        b->init_rec = 0;   /* once */
    }
}

/* An arrival or a transaction count on an mbarrier nobody initialised yet: the init it
 * needed was not ordered before it (the launch faults right after). */
static void race_mbar_uninit(Warp *w, const Inst *in, int lane, const uint8_t *mbar)
{
    Cta *c = owner(w, mbar);
    uint32_t pc = (uint32_t)(in - w->prog->code), t = w->id * WARP_SIZE + (uint32_t)lane;
    if (c && RACE_CTA(c)) record(w->launch, K_MBINIT, (uint32_t)(mbar - c->shared), c->linear, t, pc,
                             w->cta->linear, t, pc);
}

/* An accumulator register of a wgmma in flight (issued at wg_pc) is accessed by lane of w
 * before the wait_group that completes it. */
static void race_wgmma_early(Warp *w, const Inst *in, int lane, uint32_t wg_pc)
{
    uint32_t pc = (uint32_t)(in - w->prog->code), t = w->id * WARP_SIZE + (uint32_t)lane;
    record(w->launch, K_WGACC, 0, w->cta->linear, t, wg_pc, w->cta->linear, t, pc);
}

/* ---- asynchronous copies ------------------------------------------------------------- */

/* A bulk or tensor store will read [src, src+size) of shared memory through the async
 * proxy: data written by threads since the last fence.proxy.async may not be seen. */
static void race_async_proxy_read(Warp *w, int lane, const uint8_t *src, uint32_t size)
{
    Cta *c = owner(w, src);
    if (!c || !RACE_CTA(c) || !size) return;
    RaceCta *rc = RACE_CTA(c);
    RaceCluster *rcl = RACE_CL(w->cta->cluster);
    uint32_t off = (uint32_t)(src - c->shared), pc = w->pc;
    RACE_LOG(w->launch)->owner = c->linear;
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < rc->ncell; k++) {
        uint32_t wi = (rc->cell[k].w & ~CELL_PENDING) >> 5;
        if (wi && rcl->log.a[wi].pgen == RACE_CTA(c)->pgen) {
            const Acc *a = &rcl->log.a[wi];
            record(w->launch, K_PROXY, k * 4, a->cta, a->warp * WARP_SIZE + (rc->cell[k].w & 31), a->pc,
                   w->cta->linear, w->id * WARP_SIZE + (uint32_t)lane, pc);
        }
    }
}

static void race_async_read_issue(Warp *w, int lane, const uint8_t *src, uint32_t size)
{
    Cta *c = owner(w, src);
    if (!c || !RACE_CTA(c) || !size) return;
    race_async_proxy_read(w, lane, src, size);
    RaceCta *rc = RACE_CTA(c);
    uint32_t off = (uint32_t)(src - c->shared);
    if (rc->nrd == rc->caprd) {
        uint32_t nc = rc->caprd ? rc->caprd * 2 : 8;
        Range *r = realloc(rc->rd, nc * sizeof *r);
        if (!r) return;
        rc->rd = r; rc->caprd = nc;
    }
    rc->rd[rc->nrd++] = (Range){off, size, w->cta->linear, w->bulk_group[lane], (uint16_t)w->id, (uint8_t)lane};
}

static void race_async_read_waited(Warp *w, int lane, uint32_t before)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t r = 0; r < cl->n; r++) {
        RaceCta *rc = RACE_CTA(cl->ctas[r]);
        for (uint32_t i = 0; rc && i < rc->nrd;) {
            const Range *g = &rc->rd[i];
            if (g->cta == w->cta->linear && g->warp == w->id && g->lane == lane && g->group < before)
                rc->rd[i] = rc->rd[--rc->nrd];
            else
                i++;
        }
    }
}

static void race_mbar_use(Warp *w, int lane, const uint8_t *mbar)
{
    Cta *c = owner(w, mbar);
    if (c && c != w->cta && RACE_CTA(c)->init_unfenced && RACE_CTA(c))
        record(w->launch, K_MBINIT, (uint32_t)(mbar - c->shared), c->linear, 0, w->pc, w->cta->linear,
               w->id * WARP_SIZE + (uint32_t)lane, w->pc);
}

static void mark_async(Warp *w, const uint8_t *dst, uint32_t size)
{
    Cta *c = owner(w, dst);
    if (!c || !RACE_CTA(c) || !size) return;
    RaceCta *rc = RACE_CTA(c);
    uint32_t off = (uint32_t)(dst - c->shared);
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < rc->ncell; k++)
        rc->cell[k].w |= CELL_PENDING;
}

/* A bulk store's global destination: pending until the store lands. */
static void mark_async_global(Warp *w, const uint8_t *dst, uint32_t size)
{
    RaceLog *g = RACE_LOG(w->launch);
    uint64_t a = (uint64_t)(uintptr_t)dst;
    for (uint64_t k = a / 4; size && k <= (a + size - 1) / 4; k++) {
        Cell *x = global_cells(g, k);
        if (!x) { g->full = 1; return; }
        x->w |= CELL_PENDING;
    }
}

static void race_async_issue(Warp *w, int lane, const uint8_t *dst, uint32_t size)
{
    (void)lane;
    if (!owner(w, dst) && query_is_global((uint64_t)(uintptr_t)dst)) mark_async_global(w, dst, size);
    else mark_async(w, dst, size);
}

/* A bulk store landed in global memory: the issuing CTA's agent wrote the bytes; reads that
 * did not happen before the issue raced with it. */
static void land_global(Warp *w, int lane, uint32_t pc, const uint8_t *dst, uint32_t size)
{
    RaceLog *g = RACE_LOG(w->launch);
    RaceCta *rc = RACE_CTA(w->cta);
    Log *log = &g->glog;
    if (!rc || !size) return;
    if (!log->n) log->n = 1;
    if (log->n + 1 >= log->cap && log_grow(log, 1024) < 0) { g->full = 1; return; }
    rc->agent_clk++;
    uint32_t idx = log->n++;
    log->a[idx] = (Acc){ .launch = g->cur, .cta = w->cta->linear, .clus = clus_index(w), .pc = pc,
                         .clk = rc->agent_clk, .pgen = UINT32_MAX, .warp = AGENT_WARP,
                         .rank = (uint8_t)w->cta->rank };
    RaceWarp *me = rw_of(w);
    uint64_t a = (uint64_t)(uintptr_t)dst;
    for (uint64_t k = a / 4; k <= (a + size - 1) / 4; k++) {
        Cell *x = global_cells(g, k);
        if (!x) { g->full = 1; return; }
        unsigned m = word_mask(a, size, k);
        for (int s = 0; s < 2; s++) {
            uint32_t rv = s ? x->r2 : x->r;
            if (!rv || !((s ? x->r2m : x->rm) & m) || ordered(w, me, log, 1, rv, lane)) continue;
            const Acc *r = &log->a[rv >> 5];
            RaceFinding *f = record(w->launch, K_ASYNC_READ, 0, w->cta->linear, 0, r->pc, r->cta,
                                    r->warp * WARP_SIZE + (rv & 31), r->pc);
            if (f) { f->global = 1; f->addr = k * 4; }
        }
        *x = (Cell){ .w = idx << 5 | (uint32_t)lane, .wm = (uint8_t)m };
    }
}

/* The agent's clock joins what an mbarrier's current phase releases. */
static void agent_release(Warp *w, const Cta *c, const uint64_t *mbar)
{
    RaceMbar *b = mbar ? mbar_of(w->launch, mbar, 1) : NULL;
    if (!b || clock_init(&b->acc, RACE_LOG(w->launch)->D)) return;
    uint32_t *d = &b->acc.d[agent_index(w, c->rank)];
    if (RACE_CTA(c)->agent_clk > *d) *d = RACE_CTA(c)->agent_clk;
}

static void race_async_land(Warp *w, int lane, uint32_t pc, const uint8_t *dst, uint32_t size,
                     const uint64_t *mbar)
{
    Cta *c = owner(w, dst);
    if (!c && query_is_global((uint64_t)(uintptr_t)dst)) { land_global(w, lane, pc, dst, size); return; }
    if (!c || !RACE_CTA(c) || !size) return;
    RaceCta *rc = RACE_CTA(c);
    Log *log = &RACE_CL(w->cta->cluster)->log;
    if (!log->n) log->n = 1;
    if (log->n + 1 >= log->cap && log_grow(log, 1024) < 0) { RACE_LOG(w->launch)->full = 1; return; }
    rc->agent_clk++;
    uint32_t idx = log->n++;
    log->a[idx] = (Acc){ .launch = RACE_LOG(w->launch)->cur, .cta = c->linear, .clus = clus_index(w),
                         .pc = pc, .clk = rc->agent_clk, .pgen = UINT32_MAX, .warp = AGENT_WARP,
                         .rank = (uint8_t)c->rank };
    uint32_t off = (uint32_t)(dst - c->shared);
    RaceWarp *me = rw_of(w);
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < rc->ncell; k++) {
        Cell *x = &rc->cell[k];
        unsigned m = word_mask(off, size, k);
        /* a read of these bytes that does not happen before the issuing thread raced with
         * the copy: it may have read the old bytes or the new, whatever the schedule */
        for (int s = 0; s < 2; s++) {
            uint32_t rv = s ? x->r2 : x->r;
            if (!rv || !((s ? x->r2m : x->rm) & m) || ordered(w, me, log, 0, rv, lane)) continue;
            const Acc *a = &log->a[rv >> 5];
            record(w->launch, K_ASYNC_READ, k * 4, c->linear, 0, a->pc, a->cta,
                   a->warp * WARP_SIZE + (rv & 31), a->pc);
        }
        /* an earlier copy's bytes that the issuer has not seen land: two copies race */
        uint32_t pw = x->w & ~CELL_PENDING;
        if ((pw >> 5) && (x->wm & m) && log->a[pw >> 5].warp == AGENT_WARP && !ordered(w, me, log, 0, pw, lane))
            record(w->launch, K_ASYNC_WRITE, k * 4, c->linear, 0, pc, w->cta->linear,
                   w->id * WARP_SIZE + (uint32_t)lane, pc);
        *x = (Cell){ .w = idx << 5 | (uint32_t)lane, .wm = (uint8_t)m };
    }
    agent_release(w, c, mbar);
}

static void race_async_signal(Warp *w, const uint64_t *mbar) { agent_release(w, w->cta, mbar); }

static void race_async_acquire(Warp *w)
{
    RaceWarp *me = rw_of(w);
    uint32_t *d = &me->vc.d[agent_index(w, w->cta->rank)];
    uint32_t clk = RACE_CTA(w->cta)->agent_clk;
    if (clk > *d) { *d = clk; me->ver++; }
}

/* ---- copies and fills the host issued ----------------------------------------------------
 * Each is work on its stream, placed by race_order like a launch, whose bytes are checked
 * against the global shadow: a copy that reads what a kernel of an unordered stream writes,
 * or writes what it reads or writes, races, and so does a later kernel against the copy. */

static struct {
    int on;
    uint32_t rec;               /* its log record (one for all its bytes), 0 until needed   */
    HostCopyFinding f[8];
    uint32_t n, dropped;
} hc;

static void race_copy_begin(const char *api)
{
    RaceLog *g = state();
    if (!g) return;
    RaceLaunch *rl = new_launch(g);   /* placed in stream order as a launch is */
    if (!rl) return;
    rl->api = api;
    hc.on = 1;
    hc.rec = 0;
    hc.n = hc.dropped = 0;
}

static uint32_t host_record(RaceLog *g)
{
    Log *log = &g->glog;
    if (log->n + 1 >= log->cap && log_grow(log, 1024) < 0) { g->full = 1; return 0; }
    if (!log->n) log->n = 1;
    log->a[log->n] = (Acc){.launch = g->cur, .warp = HOST_WARP};
    return log->n++;
}

/* The copy meets the earlier access v (a record and a lane) of word k, unordered. */
static void host_found(RaceLog *g, int kind, uint32_t v, uint64_t k)
{
    const Acc *a = &g->glog.a[v >> 5];
    for (uint32_t i = 0; i < hc.n; i++) {
        HostCopyFinding *f = &hc.f[i];
        if (f->kind == kind && g->launches[f->launch1].prog == g->launches[a->launch].prog &&
            (a->warp == HOST_WARP ? f->launch1 == a->launch : f->pc1 == a->pc)) {
            f->count++;
            return;
        }
    }
    if (hc.n == sizeof hc.f / sizeof hc.f[0]) { hc.dropped++; return; }
    hc.f[hc.n++] = (HostCopyFinding){kind, a->launch, a->pc, a->cta,
                                      a->warp == HOST_WARP ? 0 : a->warp * WARP_SIZE + (v & 31), 1, k * 4};
}

/* Whether shadow value v is the copy's own or comes before it in stream order. */
static int host_ordered(const RaceLog *g, uint32_t v)
{
    uint32_t launch = g->glog.a[v >> 5].launch;
    return launch == g->cur || launch_before(g, launch);
}

static void race_copy_bytes(uint64_t addr, size_t n, int write)
{
    RaceLog *g = G;
    if (!g || !hc.on || !n || !query_is_global(addr)) return;
    if (!hc.rec && !(hc.rec = host_record(g))) return;
    uint32_t v = hc.rec << 5;
    for (uint64_t k = addr / 4; k <= (addr + n - 1) / 4; k++) {
        Cell *x = global_cells(g, k);
        if (!x) { g->full = 1; return; }
        unsigned mask = word_mask(addr, n, k);
        uint32_t wv = x->w & ~CELL_PENDING;
        if (wv >> 5 && (x->wm & mask) && !host_ordered(g, wv)) host_found(g, write ? K_WAW : K_RAW, wv, k);
        for (int s = 0; write && s < 2; s++) {
            uint32_t rv = s ? x->r2 : x->r;
            if (rv && ((s ? x->r2m : x->rm) & mask) && !host_ordered(g, rv)) host_found(g, K_WAR, rv, k);
        }
        if (write) {
            x->w = v; x->wm = (uint8_t)mask; x->wmulti = 0;
            if (!(x->rm & 15 & ~mask)) x->r = 0;
            if (!(x->r2m & 15 & ~mask)) x->r2 = 0;
        } else if (!x->r || host_ordered(g, x->r)) { x->r = v; x->rm = (uint8_t)mask; }
        else { x->r2 = v; x->r2m = (uint8_t)mask; }
    }
}

static int race_copy_end(void)
{
    RaceLog *g = G;
    if (!g || !hc.on) return 0;
    hc.on = 0;
    race_report_copy(g, hc.f, hc.n, hc.dropped);
    return (int)hc.n;
}

/* ---- the tool: events (observe.h) to the checks above ---------------------------------- */

int race_slot;
static int fail_on_hazard, hazards_found;   /* PTXEMU_RACECHECK=error: exit 1 after any */

static void hazard_exit(void)
{
    if (hazards_found && fail_on_hazard) {
        fflush(NULL);
        _exit(1);
    }
}

static int on_launch_begin(Launch *L)
{
    L->tool[race_slot] = race_log_new(L);
    return L->tool[race_slot] ? 0 : -1;
}

static void on_launch_free(Launch *L) { race_log_free(RACE_LOG(L)); }

static void on_launch_report(Launch *L)
{
    if (RACE_LOG(L) && race_report(L)) hazards_found = 1;
}

/* The work a launch made from the device comes after the launch and before what follows it
 * (its stream's order, launches nested as deep as dynamic parallelism goes). */
static struct ChildOrder { uint32_t stream, n; uint64_t clock, *after; int ok; } child[CHILD_DEPTH];
static int nchild;

static void on_children_begin(Launch *L)
{
    (void)L;
    if (nchild == CHILD_DEPTH) return;
    struct ChildOrder *o = &child[nchild++];
    o->ok = !race_child_order(&o->stream, &o->clock, &o->after, &o->n);
}

static void on_child_launch(Launch *L)
{
    (void)L;
    if (nchild && nchild <= CHILD_DEPTH && child[nchild - 1].ok)
        race_order(child[nchild - 1].stream, child[nchild - 1].clock, child[nchild - 1].after, child[nchild - 1].n);
}

static void on_children_end(Launch *L)
{
    (void)L;
    if (!nchild) return;
    struct ChildOrder *o = &child[--nchild];
    if (o->ok) free(o->after);
    o->ok = 0;
}

static void on_fence(Warp *w, const Inst *in, int kind)
{
    RaceCta *rc = RACE_CTA(w->cta);
    if (kind == FENCE_PROXY_ASYNC && rc) rc->pgen++;
    if (kind == FENCE_MBAR_INIT) {
        if (rc) rc->init_unfenced = 0;
        rw_of(w)->mbinit_fenced = 1;   /* the next barrier.cluster.arrive.relaxed publishes the inits */
    }
    race_fence(w, in);
}

/* A .relaxed cluster arrival orders nothing before it, except the mbarrier inits a
 * fence.mbarrier_init made ready for it: after such a fence the arrival is a release (of the
 * inits, and with them of what came before). */
static void on_cbar_arrive(Warp *w, int phase, int release)
{
    RaceWarp *me = rw_of(w);
    int rel = release || me->mbinit_fenced;
    me->mbinit_fenced = 0;
    if (rel) race_cbar_arrive(w, phase);
}

static void on_mbar_init(Warp *w, const uint64_t *m)
{
    RACE_CTA(w->cta)->init_unfenced = 1;   /* other CTAs may not use it before the fence */
    race_mbar_init(w, m);
}

static int on_wgmma_early(Warp *w, const Inst *in, int lane, uint32_t wg_pc)
{
    race_wgmma_early(w, in, lane, wg_pc);
    return 1;   /* reported: no warning besides */
}

static void on_async_mbar_issue(Launch *L, const uint64_t *m, uint32_t *tag)
{
    *tag = race_mbar_phase(L, m);
}

static void on_host_copy_end(void)
{
    if (race_copy_end()) hazards_found = 1;
}

static const Observer racecheck = {
    .tool_name = "racecheck",
    .events = OBS_LAUNCH | OBS_CTA | OBS_MEM | OBS_ALLOC | OBS_HOST | OBS_SYNC | OBS_ASYNC,
    .needs = OBS_NEEDS_DETERMINISTIC | OBS_NEEDS_STREAM_ORDER,
    .launch_begin = on_launch_begin, .launch_report = on_launch_report, .launch_free = on_launch_free,
    .children_begin = on_children_begin, .child_launch = on_child_launch, .children_end = on_children_end,
    .cta_begin = race_setup_cta, .cta_end = race_free_cta,
    .mem = race_access,
    .release = race_forget, .programs_gone = race_forget_all,
    .stream_order = race_order, .host_copy_begin = race_copy_begin, .host_access = race_copy_bytes,
    .host_copy_end = on_host_copy_end,
    .bar_arrive = race_bar_arrive, .bar_acquire = race_bar_acquire, .bar_reset = race_bar_reset,
    .cbar_arrive = on_cbar_arrive, .cbar_acquire = race_cbar_acquire, .cbar_complete = race_cbar_complete,
    .warp_sync = race_warp_sync, .fence = on_fence,
    .mbar_touch = race_mbar_touch, .mbar_uninit = race_mbar_uninit, .mbar_init = on_mbar_init,
    .mbar_use = race_mbar_use, .mbar_arrive = race_mbar_arrive, .mbar_sync = race_mbar_sync,
    .mbar_waited = race_mbar_waited,
    .wgmma_done = race_wgmma_done, .wgmma_acquire = race_wgmma_acquire, .wgmma_early = on_wgmma_early,
    .async_issue = race_async_issue, .async_read_issue = race_async_read_issue,
    .async_mbar_issue = on_async_mbar_issue, .async_land = race_async_land,
    .async_signal = race_async_signal, .async_acquire = race_async_acquire,
    .async_read_waited = race_async_read_waited, .async_proxy_read = race_async_proxy_read,
    .mbar_tx = race_mbar_tx,
};

int racecheck_attach(int fail)
{
    if ((race_slot = obs_attach(&racecheck)) < 0) return -1;
    fail_on_hazard = fail;
    atexit(hazard_exit);
    return 0;
}
