/* profile.c - the profile tool (`ptxemu --profile`, PTXEMU_PROFILE=1): per-launch counters of
 * what a performance lesson talks about, and the timing model's estimate of an H100's time.
 *
 * Counted while the kernel runs: warp and thread instructions (average active lanes: the
 * divergence), global load and store requests and the 32-byte sectors each touches (the
 * coalescing), shared-memory requests and the wavefronts they need (the bank conflicts), and,
 * on the emulated clock, how long warps waited at barriers and mbarriers. From the launch
 * configuration: the theoretical occupancy (threads, blocks and shared memory per SM; the
 * registers ptxas would allocate are unknown to PTX). One line block per launch on stderr, and
 * a "kind":"profile" line to PTXEMU_REPORT. The counts feed the timing model (emu/model.c),
 * which is why `--clock model` attaches this tool too, without its report.
 *
 * Sectors: the distinct 32-byte blocks the active lanes of one warp instruction touch. Shared
 * wavefronts: the banks are 32 of 4 bytes; lanes that touch different 4-byte words of one bank
 * need one wavefront each, lanes on the same word share it; 8- and 16-byte accesses go in 2 and
 * 4 phases of 16 and 8 lanes. */
#include <stdio.h>
#include <stdlib.h>
#include "tools.h"

static int print_reports;

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

/* The most lanes of mask on one 4-byte word: a shared atomic replays once for each. */
static uint32_t same_word_lanes(uint32_t mask, uint8_t *const host[WARP_SIZE])
{
    uint32_t most = 1;
    FOR_LANES(mask, l) {
        uint32_t n = 0;
        uint64_t a = (uint64_t)(uintptr_t)host[l] / 4;
        FOR_LANES(mask, m) n += (uint64_t)(uintptr_t)host[m] / 4 == a;
        if (n > most) most = n;
    }
    return most;
}

/* Count n updates of key (key + 1: 0 marks a free slot); a full neighbourhood drops them */
static void atom_count(AtomSlot *t, uint64_t key, uint64_t n)
{
    key++;
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    for (uint32_t probe = 0; probe < 64; probe++) {
        AtomSlot *s = &t[((uint32_t)(h >> 40) + probe) & (ATOM_SLOTS - 1)];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE), zero = 0;
        if (k == 0 && __atomic_compare_exchange_n(&s->key, &zero, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            k = key;
        else if (k == 0)
            k = zero;
        if (k == key) { __atomic_fetch_add(&s->n, n, __ATOMIC_RELAXED); return; }
    }
}

static AtomSlot *atom_tables(Launch *L)
{
    AtomSlot *t = __atomic_load_n((AtomSlot **)&L->prof.atoms, __ATOMIC_ACQUIRE);
    if (t) return t;
    AtomSlot *fresh = calloc(2 * (size_t)ATOM_SLOTS, sizeof *fresh), *none = NULL;
    if (!fresh) return NULL;
    if (!__atomic_compare_exchange_n((AtomSlot **)&L->prof.atoms, &none, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free(fresh);
        return none;
    }
    return fresh;
}

/* A global atomic's updates by address and region (model.h). ptxas adds up an integer add of
 * a warp to one address first (REDUX.SUM and one RED, or a prefix sum and one ATOM: the SASS
 * of tests/perf/lessons.cu's red_same and atom_same): that is one update. */
static void count_atomic(Warp *w, const Inst *in, uint32_t mask, uint8_t *const host[WARP_SIZE], uint32_t sectors)
{
    AtomSlot *t = atom_tables(w->launch);
    if (!t) return;
    int l0 = __builtin_ctz(mask);
    int one = in->bop == 0 /* add */ && in->t >= TY_B32 && in->t <= TY_S64 && in->t != TY_B128;
    FOR_LANES(mask, l) one &= host[l] == host[l0];
    uint64_t cost = in->t == TY_F32 || in->t == TY_F64 || in->t == TY_F16 || in->t == TY_F16X2 ||
                    in->t == TY_BF16 || in->t == TY_BF16X2 ? 2 : 1;
    FOR_LANES(mask, l) {
        uint64_t a = (uint64_t)(uintptr_t)host[l];
        atom_count(t, a, cost);
        atom_count(t + ATOM_SLOTS, a >> ATOM_REGION_BITS, 1);
        if (one) break;
    }
    if (in->op == OP_atom) __atomic_fetch_add(&w->launch->prof.atom_ret_sec, sectors, __ATOMIC_RELAXED);
}

static void prof_mem(Warp *w, const Inst *in, uint32_t mask, unsigned size, int access,
                    uint8_t *const host[WARP_SIZE])
{
    Profile *p = &w->launch->prof;
    const Cta *c = w->cta;
    int l0 = __builtin_ctz(mask);
    const uint8_t *h = host[l0];
    int shared = c && h >= c->shared && h < c->shared + c->shared_size;
    if (!shared && !query_is_global((uint64_t)(uintptr_t)h)) return;   /* local, param, const */
    int store = access != ACC_READ;
    if (shared) {
        uint32_t wf = access == ACC_ATOMIC ? ATOM_SHARED_PASS * same_word_lanes(mask, host) : wavefronts(mask, size, host);
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
    if (access == ACC_ATOMIC) count_atomic(w, in, mask, host, d);
    __atomic_fetch_add(store ? &p->gst_req : &p->gld_req, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(store ? &p->gst_sec : &p->gld_sec, d, __ATOMIC_RELAXED);
    w->m_sect += d;
}

/* Warps' running and waiting intervals on the emulated clock. */
static void prof_span(const Event *e)
{
    if (e->kind != EV_WAIT && e->kind != EV_RUN) return;
    Launch *L = e->L;
    if (!L) return;
    __atomic_fetch_add(e->kind == EV_WAIT ? &L->prof.wait_ns : &L->prof.run_ns, e->t1 > e->t0 ? e->t1 - e->t0 : 0,
                       __ATOMIC_RELAXED);
}

static void prof_bar_arrive(Warp *w, int id)
{
    (void)id;
    __atomic_fetch_add(&w->launch->prof.bar_arrivals, 1, __ATOMIC_RELAXED);
}

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

static void profile_report(Launch *L, const char *name)
{
    const Profile *p = &L->prof;
    uint32_t warps;
    const char *limit;
    /* theoretical occupancy: blocks an SM holds, by warps, blocks and shared memory */
    uint32_t blocks = model_sm_blocks(L, &warps, &limit);
    double occ = 100.0 * blocks * warps / H100_WARPS_PER_SM;
    if (occ > 100.0) occ = 100.0;
    /* achieved, as the grid fills the SMs wave by wave */
    double nblk = (double)L->grid[0] * L->grid[1] * L->grid[2], waves = model_waves(L, blocks);
    double achieved = 100.0 * nblk * warps / (waves * H100_SMS * H100_WARPS_PER_SM);
    if (achieved > occ) achieved = occ;
    ModelEstimate e = model_estimate(L);
    double issue_ns = e.issue_ns, dram_ns = e.dram_ns, smem_ns = e.smem_ns, est_ns = e.total_ns;
    const char *bound = e.bound;
    fprintf(stderr,
            "ptxemu: profile: kernel %s (launch %llu), grid (%u,%u,%u) block (%u,%u,%u)\n"
            "ptxemu: profile:   instructions: %llu warp, %llu thread; %.1f of 32 lanes active on average\n"
            "ptxemu: profile:   global loads: %llu requests, %.2f sectors a request; stores: %llu requests, %.2f sectors a request\n"
            "ptxemu: profile:   shared loads: %llu requests, %.2f wavefronts a request; stores: %llu requests, %.2f wavefronts a request\n"
            "ptxemu: profile:   occupancy: theoretical %.0f%% (%u blocks of %u warps an SM, limited by %s; registers not modelled), achieved %.1f%% (%.0f wave%s of blocks over 132 SMs)\n"
            "ptxemu: profile:   waiting at barriers and mbarriers: %.1f%% of warp time\n"
            "ptxemu: profile:   estimated H100 time: %.1f us (%s bound: issue %.1f us, warp latency %.1f us, DRAM %.1f us, shared %.1f us, atomics %.1f us, launch 3 us)\n",
            name, (unsigned long long)L->seq, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2],
            (unsigned long long)L->warp_insts, (unsigned long long)L->thread_insts, ratio(L->thread_insts, L->warp_insts),
            (unsigned long long)p->gld_req, ratio(p->gld_sec, p->gld_req), (unsigned long long)p->gst_req,
            ratio(p->gst_sec, p->gst_req), (unsigned long long)p->sld_req, ratio(p->sld_wave, p->sld_req),
            (unsigned long long)p->sst_req, ratio(p->sst_wave, p->sst_req), occ, blocks, warps, limit, achieved,
            waves, waves == 1 ? "" : "s",
            100.0 * ratio(p->wait_ns, p->wait_ns + p->run_ns), est_ns / 1000.0, bound, issue_ns / 1000.0,
            e.clock_ns / 1000.0, dram_ns / 1000.0, smem_ns / 1000.0, e.atom_ns / 1000.0);
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

static void prof_launch_end(Launch *L)
{
    if (print_reports) profile_report(L, L->prog->dname);
}

static const Observer profile = {
    .tool_name = "profile", .events = OBS_MEM | OBS_SPAN | OBS_SYNC | OBS_LAUNCH,
    .mem = prof_mem, .span = prof_span, .bar_arrive = prof_bar_arrive, .launch_end = prof_launch_end,
};

int profile_attach(int print)
{
    print_reports = print;
    return obs_attach(&profile) < 0 ? -1 : 0;
}
