/* profile.c - `ptxemu --profile` (see profile.h).
 *
 * Sectors: the distinct 32-byte blocks the active lanes of one warp instruction touch. Shared
 * wavefronts: the banks are 32 of 4 bytes; lanes that touch different 4-byte words of one bank
 * need one wavefront each, lanes on the same word share it; 8- and 16-byte accesses go in 2 and
 * 4 phases of 16 and 8 lanes.
 *
 * The time estimate is a bottleneck model with H100 SXM constants (132 SMs, 4 warp schedulers
 * each at 1.98 GHz, 3.35 TB/s of DRAM bandwidth, one shared-memory wavefront per SM and cycle,
 * about 3 us to launch): the launch plus the largest of issue time (warp instructions spread
 * over the SMs the grid can fill, a warp's arrival at a block barrier counting as BAR_SLOTS
 * instructions for the stall it causes), DRAM time (every sector counted once: L2 hits are not
 * modelled) and shared-memory time. It is meant to rank variants of a kernel as the GPU does,
 * not to predict microseconds; docs/profile.md compares it with recorded H100 times. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "engine.h"
#include "memory.h"

int profile_mode, profile_print, clock_model;
static double last_launch_ns;   /* the estimate of the launch that ended last (--clock model) */
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

void profile_set_last_launch(double ns)
{
    pthread_mutex_lock(&model_lock);
    last_launch_ns = ns;
    pthread_mutex_unlock(&model_lock);
}

double profile_last_launch_ns(void)
{
    pthread_mutex_lock(&model_lock);
    double v = last_launch_ns;
    pthread_mutex_unlock(&model_lock);
    return v;
}

#define H100_SMS 132.0
#define H100_GHZ 1.98
#define H100_DRAM_BPS 3.35e12
#define H100_LAUNCH_NS 3000.0
#define H100_WARPS_PER_SM 64
#define H100_BLOCKS_PER_SM 32
#define H100_SHARED_PER_SM (228u * 1024u)
/* Fitted on the reduction probes of tests/perf (the others fitted nothing): with 8, three
 * barriers cost more than the shuffles that replace them, as recorded on the H100. */
#define BAR_SLOTS 8.0

static uint32_t distinct(uint64_t *v, int n)
{
    uint32_t d = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = v[j] == v[i];
        d += !seen;
    }
    return d;
}

/* Wavefronts of one shared access: per phase, the most distinct words any bank serves. */
static uint32_t wavefronts(uint32_t mask, unsigned size, uint8_t *const host[WARP_SIZE])
{
    int per = size >= 16 ? 8 : size == 8 ? 16 : 32;
    uint32_t total = 0;
    for (int p = 0; p < WARP_SIZE; p += per) {
        uint64_t words[WARP_SIZE];
        int bank_of[WARP_SIZE], n = 0;
        for (int l = p; l < p + per; l++) {
            if (!(mask >> l & 1)) continue;
            uint64_t a = (uint64_t)(uintptr_t)host[l];
            for (unsigned b = 0; b < (size < 4 ? 4 : size); b += 4) {   /* every word the lane touches */
                words[n] = (a + b) / 4;
                bank_of[n++] = (int)((a + b) / 4 % 32);
                if (n == WARP_SIZE) break;
            }
            if (n == WARP_SIZE) break;
        }
        uint32_t worst = 0;
        for (int bank = 0; bank < 32; bank++) {
            uint64_t w[WARP_SIZE];
            int k = 0;
            for (int i = 0; i < n; i++) if (bank_of[i] == bank) w[k++] = words[i];
            uint32_t d = distinct(w, k);
            if (d > worst) worst = d;
        }
        total += worst ? worst : 0;
    }
    return total ? total : 1;
}

void profile_access(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                    uint8_t *const host[WARP_SIZE])
{
    (void)in;
    Profile *p = &w->launch->prof;
    const Cta *c = w->cta;
    int l0 = __builtin_ctz(mask);
    const uint8_t *h = host[l0];
    int shared = c && h >= c->shared && h < c->shared + c->shared_size;
    if (!shared && !mem_is_global((uint64_t)(uintptr_t)h)) return;   /* local, param, const */
    int store = access != ACC_READ;
    if (shared) {
        uint32_t wf = wavefronts(mask, size, host);
        __atomic_fetch_add(store ? &p->sst_req : &p->sld_req, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(store ? &p->sst_wave : &p->sld_wave, wf, __ATOMIC_RELAXED);
        w->m_wave += wf;
        return;
    }
    uint64_t sec[WARP_SIZE * 2];
    int n = 0;
    FOR_LANES(mask, l) {
        uint64_t a = (uint64_t)(uintptr_t)host[l];
        sec[n++] = a / 32;
        if ((a + size - 1) / 32 != a / 32 && n < WARP_SIZE * 2) sec[n++] = (a + size - 1) / 32;
    }
    uint32_t d = distinct(sec, n);
    __atomic_fetch_add(store ? &p->gst_req : &p->gld_req, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(store ? &p->gst_sec : &p->gld_sec, d, __ATOMIC_RELAXED);
    w->m_sect += d;
}

void profile_wait(Launch *L, uint64_t ns) { __atomic_fetch_add(&L->prof.wait_ns, ns, __ATOMIC_RELAXED); }
void profile_run(Launch *L, uint64_t ns) { __atomic_fetch_add(&L->prof.run_ns, ns, __ATOMIC_RELAXED); }

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

typedef struct Estimate { double issue_ns, clock_ns, dram_ns, smem_ns, total_ns; const char *bound; } Estimate;

static uint32_t sm_blocks(const Launch *L, uint32_t *warps_out, const char **limit_out);

/* The waves of blocks the grid runs in: SMs x blocks an SM holds at a time; a last partial
 * wave (or a grid smaller than one wave) leaves SMs idle. */
static double waves_of(const Launch *L, uint32_t blocks)
{
    double nblk = (double)L->grid[0] * L->grid[1] * L->grid[2], per_wave = H100_SMS * (blocks ? blocks : 1);
    return nblk > 0 ? (double)(uint64_t)((nblk + per_wave - 1) / per_wave) : 1;
}

static Estimate estimate(const Launch *L)
{
    const Profile *p = &L->prof;
    Estimate e;
    double sms = (double)L->ncta < H100_SMS ? (double)L->ncta : H100_SMS;
    e.issue_ns = ((double)L->issued_insts + BAR_SLOTS * (double)p->bar_arrivals) / (sms * 4.0) / H100_GHZ;
    e.dram_ns = (double)(p->gld_sec + p->gst_sec) * 32.0 / H100_DRAM_BPS * 1e9;
    e.smem_ns = (double)(p->sld_wave + p->sst_wave) / sms / H100_GHZ;
    /* no shorter than its warps' own clocks say: a wave of blocks lasts as long as its
     * slowest warp counted (a kernel waiting on clock(), a few warps with long loops) */
    e.clock_ns = waves_of(L, sm_blocks(L, NULL, NULL)) * (double)p->span_max / H100_GHZ;
    double worst = e.issue_ns;
    e.bound = "instruction issue";
    if (e.dram_ns > worst) { worst = e.dram_ns; e.bound = "DRAM bandwidth"; }
    if (e.smem_ns > worst) { worst = e.smem_ns; e.bound = "shared-memory bandwidth (bank conflicts count)"; }
    /* last, so that where a warp's time is its share of a bandwidth the bandwidth is named */
    if (e.clock_ns > worst * 1.001) { worst = e.clock_ns; e.bound = "warp latency"; }
    e.total_ns = H100_LAUNCH_NS + worst;
    return e;
}

double profile_estimate_ns(const Launch *L) { return estimate(L).total_ns; }

/* Blocks of L an SM holds at once (by warps, blocks and shared memory), and why. */
static uint32_t sm_blocks(const Launch *L, uint32_t *warps_out, const char **limit_out)
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
void profile_set_next_start(double ns) { next_start_ns = ns; }

void profile_model_launch(Launch *L)
{
    uint32_t warps;
    uint32_t blocks = sm_blocks(L, &warps, NULL);
    double per_sm = (double)blocks * warps;
    double grid = (double)L->grid[0] * L->grid[1] * L->grid[2] * warps / H100_SMS;
    L->prof.model_warps = grid < per_sm ? (grid < 1 ? 1 : grid) : per_sm;
    L->prof.model_start_ns = clock_model ? next_start_ns : 0;
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
double profile_warp_cycles(const Warp *w)
{
    double r = w->launch->prof.model_warps;
    double issue = (double)w->steps * (r / 4 > 1 ? r / 4 : 1);
    double dram = r * w->m_sect * (32.0 * H100_SMS * H100_GHZ * 1e9 / H100_DRAM_BPS);
    double smem = r * w->m_wave;
    double c = issue > dram ? issue : dram;
    return c > smem ? c : smem;
}

/* The cycles a finished warp took on the model: its issue share, sectors and wavefronts
 * (what %clock64 reads under --clock model), and, in a kernel that read %clock at its own
 * pace, no fewer than that clock counted - a kernel that waits 5 us by clock() takes 5 us.
 * The estimate's wave of blocks lasts at least the longest of these. */
void profile_warp_done(const Warp *w)
{
    Launch *L = w->launch;
    double c = profile_warp_cycles(w), pace = (double)w->steps * (double)L->prof.clock_cpi;
    if (!clock_model && L->prog->reads_clock && pace > c) c = pace;
    uint64_t v = (uint64_t)c, old = __atomic_load_n(&L->prof.span_max, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(&L->prof.span_max, &old, v, 1, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {}
}

void profile_report(Launch *L)
{
    const char *name = L->prog->dname;
    const Profile *p = &L->prof;
    uint32_t warps;
    const char *limit;
    /* theoretical occupancy: blocks an SM holds, by warps, blocks and shared memory */
    uint32_t blocks = sm_blocks(L, &warps, &limit);
    double occ = 100.0 * blocks * warps / H100_WARPS_PER_SM;
    if (occ > 100.0) occ = 100.0;
    /* achieved, as the grid fills the SMs wave by wave */
    double nblk = (double)L->grid[0] * L->grid[1] * L->grid[2], waves = waves_of(L, blocks);
    double achieved = 100.0 * nblk * warps / (waves * H100_SMS * H100_WARPS_PER_SM);
    if (achieved > occ) achieved = occ;
    Estimate e = estimate(L);
    double issue_ns = e.issue_ns, dram_ns = e.dram_ns, smem_ns = e.smem_ns, est_ns = e.total_ns;
    const char *bound = e.bound;
    fprintf(stderr,
            "ptxemu: profile: kernel %s (launch %llu), grid (%u,%u,%u) block (%u,%u,%u)\n"
            "ptxemu: profile:   instructions: %llu warp, %llu thread; %.1f of 32 lanes active on average\n"
            "ptxemu: profile:   global loads: %llu requests, %.2f sectors a request; stores: %llu requests, %.2f sectors a request\n"
            "ptxemu: profile:   shared loads: %llu requests, %.2f wavefronts a request; stores: %llu requests, %.2f wavefronts a request\n"
            "ptxemu: profile:   occupancy: theoretical %.0f%% (%u blocks of %u warps an SM, limited by %s; registers not modelled), achieved %.1f%% (%.0f wave%s of blocks over 132 SMs)\n"
            "ptxemu: profile:   waiting at barriers and mbarriers: %.1f%% of warp time\n"
            "ptxemu: profile:   estimated H100 time: %.1f us (%s bound: issue %.1f us, warp latency %.1f us, DRAM %.1f us, shared %.1f us, launch 3 us)\n",
            name, (unsigned long long)L->seq, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2],
            (unsigned long long)L->warp_insts, (unsigned long long)L->thread_insts, ratio(L->thread_insts, L->warp_insts),
            (unsigned long long)p->gld_req, ratio(p->gld_sec, p->gld_req), (unsigned long long)p->gst_req,
            ratio(p->gst_sec, p->gst_req), (unsigned long long)p->sld_req, ratio(p->sld_wave, p->sld_req),
            (unsigned long long)p->sst_req, ratio(p->sst_wave, p->sst_req), occ, blocks, warps, limit, achieved,
            waves, waves == 1 ? "" : "s",
            100.0 * ratio(p->wait_ns, p->wait_ns + p->run_ns), est_ns / 1000.0, bound, issue_ns / 1000.0,
            e.clock_ns / 1000.0, dram_ns / 1000.0, smem_ns / 1000.0);
    FILE *js = report_open();
    if (!js) return;
    fprintf(js, "{\"kind\":\"profile\",\"launch\":%llu,", (unsigned long long)L->seq);
    report_kernel(js, L->prog);
    fprintf(js, ",\"warp_instructions\":%llu,\"thread_instructions\":%llu,\"global_load_requests\":%llu,"
            "\"global_load_sectors\":%llu,\"global_store_requests\":%llu,\"global_store_sectors\":%llu,"
            "\"shared_load_requests\":%llu,\"shared_load_wavefronts\":%llu,\"shared_store_requests\":%llu,"
            "\"shared_store_wavefronts\":%llu,\"theoretical_occupancy\":%.4f,\"achieved_occupancy\":%.4f,\"wait_fraction\":%.4f,"
            "\"estimated_h100_ns\":%.0f,\"bound\":\"%s\"}\n",
            (unsigned long long)L->warp_insts, (unsigned long long)L->thread_insts,
            (unsigned long long)p->gld_req, (unsigned long long)p->gld_sec, (unsigned long long)p->gst_req,
            (unsigned long long)p->gst_sec, (unsigned long long)p->sld_req, (unsigned long long)p->sld_wave,
            (unsigned long long)p->sst_req, (unsigned long long)p->sst_wave, occ / 100.0, achieved / 100.0,
            ratio(p->wait_ns, p->wait_ns + p->run_ns), est_ns, bound);
    report_close(js);
}
