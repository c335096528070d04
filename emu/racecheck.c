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
    uint8_t pending_read;      /* an async copy reads this word (bulk/tensor store source) */
    uint16_t pg;               /* fence.proxy.async generation of the last write           */
} RaceCell;

typedef struct RaceFinding {
    int kind, global;
    uint32_t pc1, pc2, t1, t2, offset, count;
    uint32_t block[3], block2[3];
    uint64_t addr;
} RaceFinding;

/* Global memory: a hash table of the words touched in the launch (open addressing).
 * who = CTA linear index * 1024 + thread + 1; gen the CTA's barrier generation; gs the
 * launch's fence count at the access. */
typedef struct GCell {
    uint64_t key;
    uint32_t ww, wpc, rw, rpc;
    uint16_t wg, rg, wgs, rgs;
    uint8_t watomic, used;
} GCell;

#define GTABLE_MAX (1u << 22)   /* 4 M words (160 MiB): past that new words go unchecked */

enum { K_RAW, K_WAR, K_WAW, K_ASYNC_READ, K_ASYNC_WRITE, K_ASYNC_SRC, K_PROXY, K_MBINIT };
static const char *const kind_name[] = {
    "read-after-write", "write-after-read", "write-after-write",
    "read-before-async-copy-complete", "write-before-async-copy-complete",
    "write-before-async-copy-read-complete", "async-proxy-read-without-proxy-fence",
    "mbarrier-used-before-fence-mbarrier-init"
};

#define MAX_FINDINGS 256

struct RaceLog {
    RaceFinding f[MAX_FINDINGS];
    uint32_t n, dropped;
    GCell *g;
    uint32_t gcap, gn;
    int gfull;
};

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

/* Two instructions of the same CUDA source line (or the same instruction, without .loc)
 * count as one place: reports are folded by the pair of places. */
static int same_place(const Program *p, uint32_t a, uint32_t b)
{
    if (a == b) return 1;
    uint32_t la = p->code[a].loc, lb = p->code[b].loc;
    return la && lb && p->locs[la].file == p->locs[lb].file && p->locs[la].line == p->locs[lb].line;
}

static RaceFinding *record(Launch *L, int kind, Cta *c, uint32_t off, uint32_t t1, uint32_t pc1,
                           uint32_t t2, uint32_t pc2)
{
    RaceLog *g = L->race;
    for (uint32_t i = 0; i < g->n; i++) {
        RaceFinding *f = &g->f[i];
        if (f->kind == kind && same_place(L->prog, f->pc1, pc1) && same_place(L->prog, f->pc2, pc2)) {
            f->count++;
            return NULL;
        }
    }
    if (g->n == MAX_FINDINGS) { g->dropped++; return NULL; }
    RaceFinding *f = &g->f[g->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind; f->pc1 = pc1; f->pc2 = pc2; f->t1 = t1; f->t2 = t2; f->offset = off;
    f->count = 1;
    memcpy(f->block, c->ctaid, sizeof f->block);
    return f;
}

static GCell *gcell(RaceLog *g, uint64_t key)
{
    if ((g->gn + 1) * 2 > g->gcap) {
        if (g->gcap >= GTABLE_MAX) { g->gfull = 1; return NULL; }
        uint32_t nc = g->gcap ? g->gcap * 2 : 1u << 16;
        GCell *n = calloc(nc, sizeof *n);
        if (!n) { g->gfull = 1; return NULL; }
        for (uint32_t i = 0; i < g->gcap; i++)
            if (g->g[i].used) {
                uint32_t j = (uint32_t)((g->g[i].key * 0x9e3779b97f4a7c15ull) >> 32) & (nc - 1);
                while (n[j].used) j = (j + 1) & (nc - 1);
                n[j] = g->g[i];
            }
        free(g->g);
        g->g = n;
        g->gcap = nc;
    }
    uint32_t j = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (g->gcap - 1);
    while (g->g[j].used && g->g[j].key != key) j = (j + 1) & (g->gcap - 1);
    if (!g->g[j].used) { g->g[j].used = 1; g->g[j].key = key; g->gn++; }
    return &g->g[j];
}

/* Global accesses of one CTA are ordered by its barriers; of different CTAs by a fence
 * executed anywhere in between (coarse: it can hide a race, never invent one). */
static int gordered(uint32_t t, uint16_t g, uint16_t gs, uint32_t u, uint16_t cg, uint16_t cgs)
{
    if (!t || t == u) return 1;
    if ((t - 1) / 1024 == (u - 1) / 1024) return g != cg;
    return gs != cgs;
}

static void global_record(Warp *w, int kind, uint64_t addr, uint32_t t1, uint32_t pc1,
                          uint32_t u, uint32_t pc)
{
    RaceFinding *f = record(w->launch, kind, w->cta, 0, t1, pc1, u, pc);
    if (!f) return;
    const Launch *L = w->launch;
    uint32_t other = (t1 - 1) / 1024, gx = L->grid[0], gy = L->grid[1];
    f->global = 1;
    f->addr = addr;
    f->block2[0] = other % gx; f->block2[1] = other / gx % gy; f->block2[2] = other / (gx * gy);
    f->t1 = ((t1 - 1) % 1024) + 1;
    f->t2 = ((u - 1) % 1024) + 1;
}

static void global_access(Warp *w, int lane, uint32_t pc, uint64_t a, unsigned size, int write,
                          int atomic)
{
    RaceLog *g = w->launch->race;
    uint32_t u = w->cta->linear * 1024 + w->id * WARP_SIZE + (uint32_t)lane + 1;
    uint16_t cg = (uint16_t)w->cta->race_gen, cgs = (uint16_t)w->launch->race_gsync;
    for (uint64_t k = a / 4; k <= (a + size - 1) / 4; k++) {
        GCell *x = gcell(g, k);
        if (!x) return;
        if (!gordered(x->ww, x->wg, x->wgs, u, cg, cgs) && !x->watomic)
            global_record(w, write ? K_WAW : K_RAW, k * 4, x->ww, x->wpc, u, pc);
        else if (write && !atomic && x->watomic && !gordered(x->ww, x->wg, x->wgs, u, cg, cgs))
            global_record(w, K_WAW, k * 4, x->ww, x->wpc, u, pc);
        if (write && !atomic && !gordered(x->rw, x->rg, x->rgs, u, cg, cgs))
            global_record(w, K_WAR, k * 4, x->rw, x->rpc, u, pc);
        if (write) { x->ww = u; x->wg = cg; x->wgs = cgs; x->wpc = pc; x->watomic = (uint8_t)atomic; }
        else { x->rw = u; x->rg = cg; x->rgs = cgs; x->rpc = pc; }
    }
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
    int strong = (in->op == OP_ld || in->op == OP_ldu || in->op == OP_st) && (in->aux8 & RACE_STRONG);
    int write = access != ACC_READ, atomic = access == ACC_ATOMIC || strong;
    FOR_LANES(mask, l) {
        Cta *c = owner(w, host[l]);
        if (!c && mem_in_arena((uint64_t)(uintptr_t)host[l])) {
            global_access(w, l, pc, (uint64_t)(uintptr_t)host[l], size, write, atomic);
            continue;
        }
        if (!c || !c->race) continue;
        uint32_t off = (uint32_t)(host[l] - c->shared), u = tid_of(w, l);
        uint32_t g = c->race_gen, wg = w->race_wgen;
        for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < c->shared_size / 4 + 1; k++) {
            RaceCell *x = &((RaceCell *)c->race)[k];
            if (x->pending) {
                record(L, write ? K_ASYNC_WRITE : K_ASYNC_READ, c, k * 4, 0, pc, u, pc);
                continue;
            }
            if (write && x->pending_read) {   /* missing cp.async.bulk.wait_group.read */
                record(L, K_ASYNC_SRC, c, k * 4, 0, pc, u, pc);
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
            if (write) {
                x->wt = u; x->wg = g; x->ww = wg; x->wpc = pc; x->watomic = (uint8_t)atomic;
                x->pg = (uint16_t)c->race_pgen;
            } else { x->rt = u; x->rg = g; x->rw = wg; x->rpc = pc; x->ratomic = 0; }
        }
    }
}

/* A bulk or tensor store will read [src, src+size) of shared memory through the async
 * proxy: data written by threads since the last fence.proxy.async may not be seen. */
void race_async_read_issue(Warp *w, int lane, const uint8_t *src, uint32_t size)
{
    Cta *c = owner(w, src);
    if (!c || !c->race || !size) return;
    uint32_t off = (uint32_t)(src - c->shared), pc = (uint32_t)(w->pc), u = tid_of(w, lane);
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < c->shared_size / 4 + 1; k++) {
        RaceCell *x = &((RaceCell *)c->race)[k];
        if (x->wt && x->pg == (uint16_t)c->race_pgen)
            record(w->launch, K_PROXY, c, k * 4, x->wt, x->wpc, u, pc);
        x->pending_read++;
    }
}

void race_mbar_use(Warp *w, int lane, const uint8_t *mbar)
{
    Cta *c = owner(w, mbar);
    if (c && c != w->cta && c->race_init_unfenced && c->race)
        record(w->launch, K_MBINIT, c, (uint32_t)(mbar - c->shared), 0, w->pc, tid_of(w, lane), w->pc);
}

void race_async_read_done(Warp *w, const uint8_t *src, uint32_t size)
{
    Cta *c = owner(w, src);
    if (!c || !c->race || !size) return;
    uint32_t off = (uint32_t)(src - c->shared);
    for (uint32_t k = off / 4; k <= (off + size - 1) / 4 && k < c->shared_size / 4 + 1; k++) {
        RaceCell *x = &((RaceCell *)c->race)[k];
        if (x->pending_read) x->pending_read--;
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

/* The name of an accessing instruction (kept local: this file must not pull in the whole
 * opcode table, the memory unit tests link it alone). */
static const char *op_name(int op)
{
    switch (op) {
    case OP_ld: return "ld";
    case OP_ldu: return "ldu";
    case OP_st: return "st";
    case OP_atom: return "atom";
    case OP_red: return "red";
    case OP_cp: return "cp";
    case OP_st_async: return "st.async";
    default: return "access";
    }
}

/* One access of a report as JSON: op, block, thread, warp, PTX line and CUDA source line. */
static void json_access(FILE *js, const Launch *L, uint32_t pc, const uint32_t block[3],
                        const uint32_t t[3], uint32_t who)
{
    const Program *p = L->prog;
    const Inst *in = &p->code[pc];
    const char *file = "";
    uint32_t line = 0;
    if (in->loc && in->loc < p->nlocs) {
        const SrcLoc *s = &p->locs[in->loc];
        file = s->file < p->nfiles && p->files[s->file] ? p->files[s->file] : "";
        line = s->line;
    }
    fprintf(js, "{\"op\":\"%s\",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"warp\":%u,"
            "\"ptx_line\":%u,\"src_file\":\"", op_name(in->op),
            block[0], block[1], block[2], t[0], t[1], t[2], ((who - 1) & 0xffff) / WARP_SIZE, in->line);
    for (const char *c = file; *c; c++) {   /* JSON string escapes */
        if (*c == '"' || *c == '\\') fputc('\\', js);
        if ((unsigned char)*c >= 0x20) fputc(*c, js);
    }
    fprintf(js, "\",\"src_line\":%u}", line);
}

int race_report(Launch *L)
{
    RaceLog *g = L->race;
    if (g && g->gfull)
        fprintf(stderr, "ptxemu: racecheck: kernel %s touched more than %u words of global memory; "
                "words past those were not checked\n", L->prog->name, GTABLE_MAX / 2);
    if (g) { free(g->g); g->g = NULL; g->gcap = g->gn = 0; }
    if (!g || !g->n) return 0;
    const char *path = getenv("PTXEMU_REPORT");
    FILE *js = path && *path ? fopen(path, "a") : NULL;
    for (uint32_t i = 0; i < g->n; i++) {
        RaceFinding *f = &g->f[i];
        char a[400], b[400];
        uint32_t t1[3] = {0, 0, 0}, t2[3];
        int async = f->kind >= K_ASYNC_READ && f->kind != K_PROXY;
        if (f->kind == K_MBINIT) {
            where(L, f->pc2, b, sizeof b);
            thread_of(L, f->t2, t2);
            fprintf(stderr, "ptxemu: race: %s by thread (%u,%u,%u) of rank %u at %s, which arrives on the "
                    "mbarrier at shared offset 0x%x of block (%u,%u,%u), kernel %s, which that "
                    "block initialised without a fence.mbarrier_init since (%u time%s; seed %llu)\n",
                    kind_name[f->kind], t2[0], t2[1], t2[2], (f->t2 - 1) >> 16, b, f->offset,
                    f->block[0], f->block[1], f->block[2], L->prog->name, f->count,
                    f->count == 1 ? "" : "s", (unsigned long long)L->seed);
            if (js) {
                fprintf(js, "{\"kind\":\"%s\",\"space\":\"shared\",\"address\":%u,\"kernel\":\"%s\","
                        "\"block\":[%u,%u,%u],\"count\":%u,\"seed\":%llu,\"accesses\":[",
                        kind_name[f->kind], f->offset, L->prog->name, f->block[0], f->block[1],
                        f->block[2], f->count, (unsigned long long)L->seed);
                json_access(js, L, f->pc2, f->block, t2, f->t2);
                fprintf(js, "]}\n");
            }
            continue;
        }
        where(L, f->pc2, b, sizeof b);
        thread_of(L, f->t2, t2);
        if (!async) { where(L, f->pc1, a, sizeof a); thread_of(L, f->t1, t1); }
        if (f->global) {
            size_t asz = 0;
            uint64_t base = mem_find(f->addr, &asz, NULL);
            fprintf(stderr, "ptxemu: race: %s in global memory at 0x%llx (offset %llu of a %zu-byte "
                    "allocation at 0x%llx), kernel %s: block (%u,%u,%u) thread (%u,%u,%u) at %s and "
                    "block (%u,%u,%u) thread (%u,%u,%u) at %s with nothing ordering them (%u time%s; "
                    "seed %llu)\n", kind_name[f->kind], (unsigned long long)f->addr,
                    (unsigned long long)(f->addr - base), asz, (unsigned long long)base,
                    L->prog->name, f->block2[0], f->block2[1], f->block2[2], t1[0], t1[1], t1[2], a,
                    f->block[0], f->block[1], f->block[2], t2[0], t2[1], t2[2], b, f->count,
                    f->count == 1 ? "" : "s", (unsigned long long)L->seed);
        } else if (async)
            fprintf(stderr, "ptxemu: race: %s in shared memory at offset 0x%x of block (%u,%u,%u), "
                    "kernel %s: thread (%u,%u,%u) at %s touches bytes an asynchronous copy has not "
                    "been seen to complete%s (%u time%s; seed %llu)\n", kind_name[f->kind], f->offset,
                    f->block[0], f->block[1], f->block[2], L->prog->name, t2[0], t2[1], t2[2], b,
                    f->kind == K_ASYNC_SRC ? " (cp.async.bulk.wait_group.read missing?)"
                                           : " (wait_group / mbarrier wait missing?)",
                    f->count, f->count == 1 ? "" : "s",
                    (unsigned long long)L->seed);
        else
            fprintf(stderr, "ptxemu: race: %s in shared memory at offset 0x%x of block (%u,%u,%u), "
                    "kernel %s: thread (%u,%u,%u) at %s and thread (%u,%u,%u) at %s %s (%u time%s; "
                    "seed %llu)\n", kind_name[f->kind], f->offset,
                    f->block[0], f->block[1], f->block[2], L->prog->name, t1[0], t1[1], t1[2], a,
                    t2[0], t2[1], t2[2], b,
                    f->kind == K_PROXY ? "hands it to the async proxy with no fence.proxy.async in between"
                                       : "with no barrier in between",
                    f->count, f->count == 1 ? "" : "s", (unsigned long long)L->seed);
        if (js) {
            fprintf(js, "{\"kind\":\"%s\",\"space\":\"%s\",\"address\":%llu,\"kernel\":\"%s\","
                    "\"block\":[%u,%u,%u],\"count\":%u,\"seed\":%llu,\"accesses\":[",
                    kind_name[f->kind], f->global ? "global" : "shared",
                    (unsigned long long)(f->global ? f->addr : f->offset), L->prog->name,
                    f->block[0], f->block[1], f->block[2], f->count, (unsigned long long)L->seed);
            if (!async) {
                json_access(js, L, f->pc1, f->global ? f->block2 : f->block, t1, f->t1);
                fputc(',', js);
            }
            json_access(js, L, f->pc2, f->block, t2, f->t2);
            fprintf(js, "]");
            if (f->global) {
                size_t asz = 0;
                uint64_t base = mem_find(f->addr, &asz, NULL);
                fprintf(js, ",\"allocation\":%llu,\"allocation_size\":%zu,\"offset\":%llu",
                        (unsigned long long)base, asz, (unsigned long long)(f->addr - base));
            }
            fprintf(js, "}\n");
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
