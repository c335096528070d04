/* model.c - the H100 timing model (model.h).
 *
 * The time estimate is a bottleneck model with H100 SXM constants (132 SMs, 4 warp schedulers
 * each at 1.98 GHz, 3.35 TB/s of DRAM bandwidth, one shared-memory wavefront per SM and cycle,
 * about 3 us to launch): the launch plus the largest of issue time (warp instructions spread
 * over the SMs the grid can fill, a warp's arrival at a block barrier counting as BAR_SLOTS
 * instructions for the stall it causes), DRAM time (every sector counted once: L2 hits are not
 * modelled), shared-memory time and the time global atomics serialise on their busiest
 * address or region. Issue counts slots (Inst.cost: the units' rates). It is meant to rank variants of a kernel as the GPU does,
 * not to predict microseconds; docs/profile.md compares it with recorded H100 times. The
 * traffic it counts (Launch.prof, Warp.m_sect/m_wave) is measured by the profile tool
 * (tools/profile.c) when one is attached; without it only instructions and clocks count. */
#include <pthread.h>
#include <stdlib.h>
#include "model.h"

static double last_launch_ns;   /* the estimate of the launch that ended last */
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

void model_set_last_launch(double ns)
{
    pthread_mutex_lock(&model_lock);
    last_launch_ns = ns;
    pthread_mutex_unlock(&model_lock);
}

double model_last_launch_ns(void)
{
    pthread_mutex_lock(&model_lock);
    double v = last_launch_ns;
    pthread_mutex_unlock(&model_lock);
    return v;
}

#define BAR_SLOTS 8.0

/* Atomics (tests/perf/lessons.cu on an H200, docs/profile.md). Updates of one global address
 * serialise at the L2: 1.77 ns each for a float add (every thread adding to one float: 1M
 * updates took 1854 us, 262144 took 466, 4M 7385), half that for an integer one (a warp's
 * integer adds summed first: 32768 updates in 30 us); the tables count half-steps of
 * 0.885 ns. Updates of addresses close together share an L2 unit, about 0.1 ns each for a
 * 4 KiB region (a 1024-bin histogram: 1M updates in 104 us). */
#define ATOM_SAME_NS 0.885
#define ATOM_REGION_NS 0.1

/* The time the launch's global atomics serialise: the busiest address, or the busiest
 * region. Counted once, at the first estimate (the launch has ended), and the tables freed. */
static double atom_time(const Launch *cL)
{
    Launch *L = (Launch *)cL;
    if (L->prof.atom_ns >= 0) return L->prof.atom_ns;
    AtomSlot *t = L->prof.atoms;
    uint64_t addr = 0, region = 0;
    for (uint32_t i = 0; t && i < ATOM_SLOTS; i++) {
        if (t[i].n > addr) addr = t[i].n;
        if (t[ATOM_SLOTS + i].n > region) region = t[ATOM_SLOTS + i].n;
    }
    double a = addr * ATOM_SAME_NS, r = region * ATOM_REGION_NS;
    free(t);
    L->prof.atoms = NULL;
    return L->prof.atom_ns = a > r ? a : r;
}

/* The waves of blocks the grid runs in: SMs x blocks an SM holds at a time; a last partial
 * wave (or a grid smaller than one wave) leaves SMs idle. */
double model_waves(const Launch *L, uint32_t blocks)
{
    double nblk = (double)L->grid[0] * L->grid[1] * L->grid[2], per_wave = H100_SMS * (blocks ? blocks : 1);
    return nblk > 0 ? (double)(uint64_t)((nblk + per_wave - 1) / per_wave) : 1;
}

ModelEstimate model_estimate(const Launch *L)
{
    const Profile *p = &L->prof;
    ModelEstimate e;
    double sms = (double)L->ncta < H100_SMS ? (double)L->ncta : H100_SMS;
    e.issue_ns = ((double)L->warp_slots + BAR_SLOTS * (double)p->bar_arrivals) / (sms * 4.0) / H100_GHZ;
    e.dram_ns = (double)(p->gld_sec + p->gst_sec + p->atom_ret_sec) * 32.0 / H100_DRAM_BPS * 1e9;
    e.smem_ns = (double)(p->sld_wave + p->sst_wave) / sms / H100_GHZ;
    /* no shorter than its warps' own clocks say: a wave of blocks lasts as long as its
     * slowest warp counted (a kernel waiting on clock(), a few warps with long loops) */
    e.clock_ns = model_waves(L, model_sm_blocks(L, NULL, NULL)) * (double)p->span_max / H100_GHZ;
    e.atom_ns = atom_time(L);
    double worst = e.issue_ns;
    e.bound = "instruction issue";
    if (e.atom_ns > worst) { worst = e.atom_ns; e.bound = "atomics on one address (or a few)"; }
    if (e.dram_ns > worst) { worst = e.dram_ns; e.bound = "DRAM bandwidth"; }
    if (e.smem_ns > worst) { worst = e.smem_ns; e.bound = "shared-memory bandwidth (bank conflicts count)"; }
    /* last, so that where a warp's time is its share of a bandwidth the bandwidth is named */
    if (e.clock_ns > worst * 1.001) { worst = e.clock_ns; e.bound = "warp latency"; }
    e.total_ns = H100_LAUNCH_NS + worst;
    return e;
}

/* Blocks of L an SM holds at once (by warps, blocks and shared memory), and why. */
uint32_t model_sm_blocks(const Launch *L, uint32_t *warps_out, const char **limit_out)
{
    uint32_t threads = L->block[0] * L->block[1] * L->block[2];
    uint32_t warps = (threads + 31) / 32, shared = L->shared_total;
    uint32_t by_warps = H100_WARPS_PER_SM / (warps ? warps : 1), by_shared = shared ? H100_SHARED_PER_SM / (shared + 1024) : 1000;
    uint32_t blocks = by_warps < H100_BLOCKS_PER_SM ? by_warps : H100_BLOCKS_PER_SM;
    const char *limit = by_warps <= H100_BLOCKS_PER_SM ? "threads per block" : "blocks per SM";
    if (by_shared < blocks) { blocks = by_shared; limit = "shared memory per block"; }
    if (warps_out) *warps_out = warps;
    if (limit_out) *limit_out = limit;
    return blocks;
}

/* At the launch's start: how many warps share an SM (what the grid fills of what an SM
 * holds), which sets %clock's pace, and under --clock model where the launch begins on the
 * model's timeline. */
static double next_start_ns;
void model_set_next_start(double ns) { next_start_ns = ns; }

void model_launch(Launch *L)
{
    uint32_t warps;
    uint32_t blocks = model_sm_blocks(L, &warps, NULL);
    double per_sm = (double)blocks * warps;
    double grid = (double)L->grid[0] * L->grid[1] * L->grid[2] * warps / H100_SMS;
    L->prof.model_warps = grid < per_sm ? (grid < 1 ? 1 : grid) : per_sm;
    L->prof.atom_ns = -1;
    L->prof.model_start_ns = model_clock_on() ? next_start_ns : 0;
    /* %clock's pace, fitted to how many passes a clock-waiting loop makes on the H100
     * (tests/perf/clockpace.cu): a warp alone waits about 7 cycles a PTX instruction for its
     * results, and r resident warps share the four schedulers at 2r/5 cycles an instruction */
    uint64_t share = (uint64_t)(L->prof.model_warps * 2 / 5);
    L->prof.clock_cpi = share > 7 ? share : 7;
}

/* A warp's clock on the model: the SM's cycles its work took, as the largest of issuing its
 * instructions (four schedulers, shared with the other warps of the SM, at least one cycle an
 * instruction), moving its global sectors (the SM's share of DRAM bandwidth, about 2.5 cycles
 * a 32-byte sector, shared too) and its shared-memory wavefronts (one a cycle). Waits are not
 * counted: a warp parked at a barrier does not advance. */
static double cycles_of(const Launch *L, uint64_t slots, uint32_t m_sect, uint32_t m_wave)
{
    double r = L->prof.model_warps;
    double issue = (double)slots * (r / 4 > 1 ? r / 4 : 1);
    double dram = r * m_sect * (32.0 * H100_SMS * H100_GHZ * 1e9 / H100_DRAM_BPS);
    double smem = r * m_wave;
    double c = issue > dram ? issue : dram;
    return c > smem ? c : smem;
}

double model_warp_cycles(const Warp *w)
{
    return cycles_of(w->launch, w->slots, w->m_sect, w->m_wave);
}

/* The cycles the finished warps of a block took on the model: each warp's issue share,
 * sectors and wavefronts (what %clock64 reads under --clock model), and, in a kernel that read
 * %clock at its own pace, no fewer than that clock counted - a kernel that waits 5 us by
 * clock() takes 5 us. The estimate's wave of blocks lasts at least the longest of these.
 * Every term grows with its count (positive factors; rounding and the conversion to an integer
 * keep order), so the longest warp's value is the value of the largest counts, taken over
 * the block by the caller (WarpMax): one computation and one atomic a block, not a warp. */
void model_warps_done(const Launch *cL, const WarpMax *m)
{
    Launch *L = (Launch *)cL;
    double c = cycles_of(L, m->slots, m->m_sect, m->m_wave), pace = (double)m->steps * (double)L->prof.clock_cpi;
    if (!model_clock_on() && L->prog->reads_clock && pace > c) c = pace;
    uint64_t v = (uint64_t)c, old = __atomic_load_n(&L->prof.span_max, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(&L->prof.span_max, &old, v, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {}
}

/* --clock model: the SM's cycle counter and the global timer where the model's H100 would
 * have them: the launch's start on the model's timeline plus the warp's cycles. */
static uint64_t model_read(const Warp *w, int id)
{
    double cyc = model_warp_cycles(w), start = w->launch->prof.model_start_ns;
    uint64_t clk = (uint64_t)(start * H100_GHZ + cyc), ns = (uint64_t)(start + cyc / H100_GHZ);
    switch (id) {
    case SR_CLOCK: return (uint32_t)clk;
    case SR_CLOCK_HI: return (uint32_t)(clk >> 32);
    case SR_CLOCK64: return clk;
    case SR_GLOBALTIMER: return ns;
    case SR_GLOBALTIMER_LO: return (uint32_t)ns;
    default: return (uint32_t)(ns >> 32);
    }
}

const ClockProvider model_clock = { "model", model_read };

int model_clock_on(void)
{
    return emu_clock == &model_clock;
}
