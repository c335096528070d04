/* defer.c - deterministic mode: asynchronous work completes when the seed says.
 *
 * Work runs here when it is issued, so a program that reads a copy's destination without
 * synchronising always sees the copy done - the most common bug of a first streams lab
 * could never show. On a GPU the copy lands somewhere between its issue and the
 * synchronisation that orders it. In deterministic mode (PTXEMU_SEED, without a tool that
 * follows stream order - the race detector checks one launch at a time) each asynchronous
 * kernel launch, copy and
 * fill is either run at once or kept here, as the seed chooses; kept work completes at a
 * later turn (every later issue of work or query gives each kept piece an even chance), or
 * when something must come after it: work issued behind it in stream order or after an
 * event that follows it, and every host wait (stream, event, device, a synchronous copy,
 * cudaFree). So some seeds show the missing synchronisation as a wrong result, and the same
 * seed shows it every time.
 *
 * Only work the host could see early is kept: kernels, device copies and fills, and copies
 * from or to page-locked (pinned, registered, managed) memory; a copy from or to pageable
 * memory completes before the call returns on a GPU too. Caller holds the driver lock. */
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "emu/scheduler.h"

enum { D_KERNEL, D_COPY, D_FILL };

typedef struct Deferred {
    int kind;
    uint32_t si;                /* the stream's order index, and the work's place in it */
    uint64_t clock;
    DrvOrder after;             /* what the work follows (stream order, events)          */
    EmuPending *p; CUcontext c; CUfunction f;                           /* D_KERNEL */
    uint64_t dst, src; int dd, sd; size_t n;                            /* D_COPY   */
    uint64_t at; size_t pitch, width, height; unsigned value, size;    /* D_FILL   */
} Deferred;

static Deferred *q;
static size_t nq, capq;
static uint64_t rng;
static int state = -1;          /* -1 not yet known, 0 off, 1 on */

int drv_defer_on(void)
{
    if (state < 0) {
        uint64_t seed = 0;
        state = sched_deterministic(&seed) && !emu_wants_stream_order();
        rng = seed ^ 0x5eedde7e4a11ull;
    }
    return state;
}

/* splitmix64: the seed's next coin */
static int coin(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (int)((z ^ (z >> 31)) >> 63);
}

int drv_defer_choose(void)
{
    return drv_defer_on() && coin();
}

static void run(Deferred *d)
{
    switch (d->kind) {
    case D_KERNEL: drv_launch_complete(d->p, d->c, d->f); break;
    case D_COPY: drv_mem_copy_run(d->dst, d->dd, d->src, d->sd, d->n); break;
    default: drv_mem_fill_run(d->at, d->pitch, d->value, d->size, d->width, d->height); break;
    }
    free(d->after.c);
}

static int follows(const DrvOrder *v, const Deferred *d)
{
    return d->si < v->n && v->c[d->si] >= d->clock;
}

/* Complete every kept piece that v follows, and first what each of them follows. */
static void settle(const DrvOrder *v)
{
    for (size_t i = 0; i < nq;) {
        if (!follows(v, &q[i])) { i++; continue; }
        Deferred d = q[i];
        memmove(&q[i], &q[i + 1], (nq - i - 1) * sizeof *q);
        nq--;
        settle(&d.after);   /* earlier pieces it follows (they sit before it) */
        run(&d);
        i = 0;              /* the recursion may have taken pieces before i */
    }
}

static void settle_at_exit(void);

static void keep(Deferred d, CUstream s)
{
    static int registered;
    if (!registered) registered = atexit(settle_at_exit) == 0;
    DrvOrder o = { 0 };
    drv_order_stream_get(s, &o);   /* its place: the stream's clock after this work's tick */
    d.si = drv_order_stream_index(s);
    d.clock = d.si < o.n ? o.c[d.si] : 0;
    if (d.clock) o.c[d.si] = d.clock - 1;   /* what it follows: the stream's earlier work */
    d.after = o;
    if (nq == capq) {
        size_t nc = capq ? capq * 2 : 16;
        Deferred *g = realloc(q, nc * sizeof *g);
        if (!g) { settle(&o); run(&d); return; }   /* no room: now, in order */
        q = g;
        capq = nc;
    }
    q[nq++] = d;
}

void drv_defer_kernel(EmuPending *p, CUcontext c, CUfunction f, CUstream s)
{
    keep((Deferred){ .kind = D_KERNEL, .p = p, .c = c, .f = f }, s);
}

void drv_defer_copy(uint64_t dst, int dd, uint64_t src, int sd, size_t n, CUstream s)
{
    keep((Deferred){ .kind = D_COPY, .dst = dst, .dd = dd, .src = src, .sd = sd, .n = n }, s);
}

void drv_defer_fill(uint64_t p, size_t pitch, unsigned value, unsigned size, size_t width,
                    size_t height, CUstream s)
{
    keep((Deferred){ .kind = D_FILL, .at = p, .pitch = pitch, .value = value, .size = size,
                     .width = width, .height = height }, s);
}

void drv_defer_settle_stream(CUstream s)
{
    if (!nq) return;
    DrvOrder o = { 0 };
    drv_order_stream_get(s, &o);
    settle(&o);
    free(o.c);
}

void drv_defer_settle_host(void)
{
    if (nq) settle(drv_order_host());
}

void drv_defer_settle_all(void)
{
    while (nq) {
        Deferred d = q[0];
        memmove(&q[0], &q[1], (nq - 1) * sizeof *q);
        nq--;
        run(&d);   /* issue order respects every stream order and event */
    }
}

/* A turn: each kept piece completes now (with what it follows) on the toss of a coin. */
void drv_defer_turn(void)
{
    size_t n = nq;
    if (!n) return;
    uint64_t *pick = malloc(n * 2 * sizeof *pick);
    if (!pick) return;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (coin()) { pick[2 * k] = q[i].si; pick[2 * k + 1] = q[i].clock; k++; }
    for (size_t j = 0; j < k; j++) {   /* the piece and, in stream order, what is before it */
        DrvOrder one = { calloc(pick[2 * j] + 1, sizeof(uint64_t)), (uint32_t)pick[2 * j] + 1 };
        if (!one.c) break;
        one.c[pick[2 * j]] = pick[2 * j + 1];
        settle(&one);
        free(one.c);
    }
    free(pick);
}

int drv_defer_follows(const DrvOrder *v)
{
    for (size_t i = 0; i < nq; i++)
        if (follows(v, &q[i])) return 1;
    return 0;
}

int drv_defer_holds(CUstream s)
{
    if (!nq) return 0;
    DrvOrder o = { 0 };
    drv_order_stream_get(s, &o);
    int held = drv_defer_follows(&o);
    free(o.c);
    return held;
}

/* At exit kept work completes: its printf output, and what the program left running. */
static void settle_at_exit(void)
{
    drv_lock();
    drv_defer_settle_all();
    drv_unlock();
}
