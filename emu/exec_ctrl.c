/* exec_ctrl.c - control flow and CTA synchronisation: bra, call, ret, exit, trap, barriers,
 * and the internal ops translation makes (<sreg>, <lea.frame>). */
#include <string.h>
#include <time.h>
#include "engine.h"
#include "exec.h"
#include "clock.h"
#include "observe.h"
#include "jitop.h"
#include "call.h"
#include "memory.h"
#include "scheduler.h"

/* ---- branches ------------------------------------------------------------------- */

/* Lanes of the group that do not take a control transfer go on at pc+1; the group splits
 * and the lowest pc runs first. */
static int h_bra(Warp *w, const Inst *in, uint32_t mask)
{
    if (mask == w->active) { w->pc = (uint32_t)in->imm; return STEP_JUMP; }
    warp_diverge(w, mask, (uint32_t)in->imm, in->base);   /* base: reconvergence pc */
    return STEP_JUMP;
}
JIT_OP(h_bra, "BRA", "", "", "", "", "", "")

const char *bind_bra(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_bra;
    return NULL;
}

const char *bind_brx(Inst *in, const InstDesc *d)
{
    (void)in; (void)d;
    return "brx.idx (indirect branch) is not supported yet";
}

/* ---- exit and ret --------------------------------------------------------------------- */

static int lanes_exit(Warp *w, uint32_t mask)
{
    w->alive &= ~mask;
    w->active &= ~mask;
    w->pc++;                 /* lanes the guard kept out go on with the next instruction */
    cta_threads_exited(w->cta, popcount32(mask & w->valid));
    warp_lanes_exited(w);
    warp_regroup(w);
    return STEP_EXIT;
}

static int h_exit(Warp *w, const Inst *in, uint32_t mask)
{
    (void)in;
    return lanes_exit(w, mask);
}

const char *bind_exit(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_exit;
    return NULL;
}

static inline uint8_t *lane_local(Warp *w, int l, uint32_t off)
{
    return w->local + (size_t)l * w->local_stride + off;
}

/* Read or write one call value of lane l: a frame slot (relative to fp) or a register. */
static void value_get(Warp *w, int l, uint8_t kind, uint32_t at, uint32_t fp, uint32_t size,
                      uint8_t *buf)
{
    if (kind == CA_FRAME) memcpy(buf, lane_local(w, l, fp + at), size);
    else { uint64_t v = ROW(w, at)[l]; memset(buf, 0, size); memcpy(buf, &v, size > 8 ? 8 : size); }
}

static void value_put(Warp *w, int l, uint8_t kind, uint32_t at, uint32_t fp, uint32_t size,
                      const uint8_t *buf)
{
    if (kind == CA_FRAME) { memcpy(lane_local(w, l, fp + at), buf, size); return; }
    uint64_t v = 0;
    memcpy(&v, buf, size > 8 ? 8 : size);
    if (at != ROW_SINK) ROW(w, at)[l] = v;
}

static void regs_save(Warp *w, int l, const CallDesc *cd, uint8_t *save)
{
    for (uint32_t row = cd->row_lo; row < cd->row_hi; row++, save += 8)
        memcpy(save, &ROW(w, row)[l], 8);
    for (uint32_t p = cd->pred_lo; p < cd->pred_hi; p++, save++)
        *save = (uint8_t)(w->P[p] >> l & 1);
}

static void regs_restore(Warp *w, int l, const CallDesc *cd, const uint8_t *save)
{
    for (uint32_t row = cd->row_lo; row < cd->row_hi; row++, save += 8)
        memcpy(&ROW(w, row)[l], save, 8);
    for (uint32_t p = cd->pred_lo; p < cd->pred_hi; p++, save++)
        w->P[p] = (w->P[p] & ~(1u << l)) | ((uint32_t)*save << l);
}

#define CALL_VALUE_MAX 4096   /* bytes of results a return may carry per lane */

/* Return from a .func: each lane pops its own frame (lanes may return to different call
 * sites); at depth 0 ret ends the thread, as in an .entry. Results are read before the
 * callee's registers are restored: a recursive callee's result rows may be restored. */
static int ret_lanes(Warp *w, const Inst *in, uint32_t mask);

/* The ret of a kernel that every lane of the warp still alive runs, none inside a call and no
 * region open: the warp's end, every warp's last instruction. What ret_lanes does for it
 * (every lane leaves; no group, no pc, no other lanes), without its frame of call values. */
static int h_ret(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t deep = 0, d[WARP_SIZE / 4];   /* four lanes' depths a word */
    memcpy(d, w->depth, sizeof d);
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) deep |= d[k];
    if (deep || w->sp || mask != w->active || (w->alive & ~mask)) return ret_lanes(w, in, mask);
    uint32_t n = mask & w->valid;
    w->alive = 0;
    w->active = 0;
    w->pc = 0;
    w->merge_pc = UINT32_MAX;
    cta_threads_exited(w->cta, n == FULL_MASK ? WARP_SIZE : popcount32(n));
    warp_lanes_exited(w);
    return STEP_EXIT;
}

static __attribute__((noinline)) int ret_lanes(Warp *w, const Inst *in, uint32_t mask)
{
    uint32_t leaving = 0;
    uint8_t vals[CALL_VALUE_MAX];
    /* the ret of a kernel: no lane of the warp is inside a call, so every lane of mask
     * leaves (one vectorized test instead of a branch per lane) */
    uint64_t deep = 0, d[WARP_SIZE / 4];   /* four lanes' depths a word */
    memcpy(d, w->depth, sizeof d);
#pragma GCC unroll 8
    for (int k = 0; k < WARP_SIZE / 4; k++) deep |= d[k];
    if (!deep) leaving = mask;
    for (uint32_t m = deep ? mask : 0; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (w->depth[l] == 0) { leaving |= 1u << l; continue; }
        uint32_t fp = w->fp[l], ret_pc, caller_fp;
        memcpy(&ret_pc, lane_local(w, l, fp), 4);
        memcpy(&caller_fp, lane_local(w, l, fp + 4), 4);
        const CallDesc *cd = w->prog->code[ret_pc - 1].aux;
        const FnDesc *fd = cd->indirect && (uint64_t)in->imm < w->prog->nfdesc ? &w->prog->fdesc[in->imm] : NULL;
        uint32_t off = 0;
        for (uint32_t k = 0; k < cd->nrets; k++) {
            if (fd) {   /* the callee's own result slots */
                memset(vals + off, 0, cd->rets[k].size);
                if (k < fd->nrets)
                    value_get(w, l, fd->rkind[k], fd->rslot[k], fp,
                              fd->rsize[k] < cd->rets[k].size ? fd->rsize[k] : cd->rets[k].size, vals + off);
            } else
                value_get(w, l, cd->rets[k].kind, cd->rets[k].src, fp, cd->rets[k].size, vals + off);
            off += cd->rets[k].size;
        }
        if (fd && fd->recursive) {
            CallDesc save = { .row_lo = fd->row_lo, .row_hi = fd->row_hi, .pred_lo = fd->pred_lo,
                              .pred_hi = fd->pred_hi };
            regs_restore(w, l, &save, lane_local(w, l, fp + fd->save_off));
        } else if (!fd && cd->recursive)
            regs_restore(w, l, cd, lane_local(w, l, fp + cd->save_off));
        off = 0;
        for (uint32_t k = 0; k < cd->nrets; k++) {
            value_put(w, l, cd->rets[k].dkind, cd->rets[k].dst, caller_fp, cd->rets[k].size, vals + off);
            off += cd->rets[k].size;
        }
        w->fp[l] = caller_fp;
        w->depth[l]--;
        w->lane_pc[l] = ret_pc;
    }
    uint32_t returning = mask & ~leaving;
    /* the warp's last lanes leave: what warp_regroup would find (no group, no pc, no other
     * lanes), without its scans; this is every warp's end (no lane of it waits anywhere) */
    if (leaving && !returning && mask == w->active && !(w->alive & ~leaving) && !w->sp) {
        w->alive = 0;
        w->active = 0;
        w->pc = 0;
        w->merge_pc = UINT32_MAX;
        cta_threads_exited(w->cta, popcount32(leaving & w->valid));
        warp_lanes_exited(w);
        return STEP_EXIT;
    }
    /* fast path: the whole group returns to one place (inside a divergence region the
     * return may close it: regroup decides); no lane leaves then */
    if (returning && returning == w->active && !w->sp) {
        uint32_t pc0 = w->lane_pc[__builtin_ctz(returning)];
        int same = 1;
        for (uint32_t m = returning; m; m &= m - 1)
            same &= w->lane_pc[__builtin_ctz(m)] == pc0;
        if (same) { w->pc = pc0; return STEP_JUMP; }
    }
    /* Every lane's pc is stored and the running group dissolved before the leaving lanes
     * are counted out: their exit may release a barrier that lanes of this warp wait at, and
     * the release re-picks the running group (warp_unpark), which must not take the pc of
     * this ret for theirs (HeCBench's wyllie: the lanes released skipped the store after
     * __syncthreads; tests/cuda/bar_exit_release.cu). */
    uint32_t pc = w->pc;
    for (uint32_t m = w->active & ~mask; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = pc + 1;
    w->active = 0;
    if (leaving) {
        w->alive &= ~leaving;
        cta_threads_exited(w->cta, popcount32(leaving & w->valid));
        warp_lanes_exited(w);
    }
    warp_regroup(w);
    return leaving && !returning ? STEP_EXIT : STEP_JUMP;
}

const char *bind_ret(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_ret;
    return NULL;
}

/* ---- calls ---------------------------------------------------------------------------- */

static int h_call(Warp *w, const Inst *in, uint32_t mask)
{
    const CallDesc *cd = in->aux;
    uint32_t target = (uint32_t)in->imm, back = w->pc + 1;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t fp = w->fp[l], nfp = fp + cd->caller_frame;
        if (!w->local || (uint64_t)nfp + cd->callee_frame > w->local_stride)
            return warp_fault(w, l, EMU_ERR_HARDWARE_STACK_ERROR,
                              "stack overflow calling %s at call depth %u: %u bytes of stack per "
                              "thread are not enough (cudaDeviceSetLimit(cudaLimitStackSize) "
                              "raises it)", cd->name, w->depth[l] + 1u, w->local_stride);
        memcpy(lane_local(w, l, nfp), &back, 4);
        memcpy(lane_local(w, l, nfp + 4), &fp, 4);
        /* save first: .reg parameters are callee registers the arguments overwrite */
        if (cd->recursive) regs_save(w, l, cd, lane_local(w, l, nfp + cd->save_off));
        uint8_t buf[CALL_VALUE_MAX];
        for (uint32_t k = 0; k < cd->nargs; k++) {
            const CallArg *a = &cd->args[k];
            value_get(w, l, a->kind, a->src, fp, a->size, buf);
            value_put(w, l, a->dkind, a->dst, nfp, a->size, buf);
        }
        w->fp[l] = nfp;
        w->depth[l]++;
    }
    if (mask == w->active) { w->pc = target; return STEP_JUMP; }
    warp_diverge(w, mask, target, w->pc + 1);   /* callers meet the others on return */
    return STEP_JUMP;
}

/* Extern functions run on the host, lane by lane in lane order (the order the GPU's printf
 * buffer shows for one warp). */
static int h_call_extern(Warp *w, const Inst *in, uint32_t mask)
{
    const CallDesc *cd = in->aux;
    int asserted = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t vals[16] = {0};
        uint32_t big[16][4];   /* arguments over 8 bytes (dim3): passed as pointers to a copy */
        void *argp[16];
        for (uint32_t k = 0; k < cd->nargs; k++) {
            const CallArg *a = &cd->args[k];
            if (a->kind == CA_FRAME && a->size > 8) {
                memcpy(big[k], lane_local(w, l, w->fp[l] + a->src), a->size > 16 ? 16 : a->size);
                vals[k] = (uint64_t)(uintptr_t)big[k];
            } else if (a->kind == CA_FRAME) memcpy(&vals[k], lane_local(w, l, w->fp[l] + a->src), a->size);
            else vals[k] = ROW(w, a->src)[l];
            argp[k] = &vals[k];
        }
        ffi_arg ret = 0;
        exec_call_context(w, l);
        ffi_call((ffi_cif *)&cd->cif, (void (*)(void))cd->host_fn, &ret, argp);
        int f = exec_call_faulted();
        if (f == CALL_FAULTED) return STEP_FAULT;
        if (f == CALL_ASSERTED) { asserted = 1; continue; }
        if (cd->nrets) {
            const CallArg *r = &cd->rets[0];
            uint64_t v = (uint64_t)ret;
            value_put(w, l, r->dkind, r->dst, w->fp[l], r->size > 8 ? 8 : r->size, (uint8_t *)&v);
        }
    }
    return asserted ? STEP_FAULT : STEP_NEXT;
}

/* A call through a function pointer: the lanes calling the first lane's target call it
 * now; lanes with other targets run this call again afterwards. */
static int h_call_indirect(Warp *w, const Inst *in, uint32_t mask)
{
    const CallDesc *cd = in->aux;
    const uint64_t *ptr = ROW(w, cd->callee_row);
    int l0 = __builtin_ctz(mask);
    uint64_t target = ptr[l0], idx = (target - FUNC_PTR_BASE) / FUNC_PTR_STEP;
    const FnDesc *fd = target >= FUNC_PTR_BASE && (target - FUNC_PTR_BASE) % FUNC_PTR_STEP == 0 &&
                       idx < w->prog->nfdesc ? &w->prog->fdesc[idx] : NULL;
    if (!fd || fd->pc == UINT32_MAX)
        return warp_fault(w, l0, EMU_ERR_INVALID_PC, "call through 0x%llx, which is not a device "
                          "function of this kernel's module", (unsigned long long)target);
    uint32_t taken = 0, back = w->pc + 1;
    FOR_LANES(mask, l) if (ptr[l] == target) taken |= 1u << l;
    uint8_t buf[CALL_VALUE_MAX];
    for (uint32_t m = taken; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t fp = w->fp[l], nfp = fp + cd->caller_frame;
        if (!w->local || (uint64_t)nfp + fd->frame > w->local_stride)
            return warp_fault(w, l, EMU_ERR_HARDWARE_STACK_ERROR, "stack overflow in a call "
                              "through a function pointer at call depth %u", w->depth[l] + 1u);
        memcpy(lane_local(w, l, nfp), &back, 4);
        memcpy(lane_local(w, l, nfp + 4), &fp, 4);
        if (fd->recursive) {
            CallDesc save = { .row_lo = fd->row_lo, .row_hi = fd->row_hi, .pred_lo = fd->pred_lo,
                              .pred_hi = fd->pred_hi };
            regs_save(w, l, &save, lane_local(w, l, nfp + fd->save_off));
        }
        for (uint32_t k = 0; k < cd->nargs && k < fd->nparams; k++) {
            uint32_t size = cd->args[k].size < fd->psize[k] ? cd->args[k].size : fd->psize[k];
            memset(buf, 0, fd->psize[k] < CALL_VALUE_MAX ? fd->psize[k] : CALL_VALUE_MAX);
            value_get(w, l, cd->args[k].kind, cd->args[k].src, fp, size, buf);
            value_put(w, l, fd->pkind[k], fd->pslot[k], nfp, fd->psize[k], buf);
        }
        w->fp[l] = nfp;
        w->depth[l]++;
    }
    if (taken == w->active) { w->pc = fd->pc; return STEP_JUMP; }
    warp_diverge_at(w, taken, fd->pc, w->pc, back);
    return STEP_JUMP;
}

const char *bind_call(Inst *in, const InstDesc *d)
{
    (void)d;
    const CallDesc *cd = in->aux;
    if (!cd) return "call without a description";
    in->fn = cd->is_extern ? h_call_extern : cd->indirect ? h_call_indirect : h_call;
    return NULL;
}

/* ---- trap, nanosleep, pmevent ----------------------------------------------------------- */

static int h_trap(Warp *w, const Inst *in, uint32_t mask)
{
    return warp_fault(w, __builtin_ctz(mask), EMU_ERR_LAUNCH_FAILURE, "%s executed",
                      op_info[in->op].name);
}

const char *bind_trap(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_trap;
    return NULL;
}

static int h_nop(Warp *w, const Inst *in, uint32_t mask)
{
    (void)w; (void)in; (void)mask;
    return STEP_NEXT;
}

const char *bind_nop(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_nop;
    return NULL;
}

/* nanosleep only promises a delay; a jump to the next instruction counts against the time
 * slice, so a sleeping warp lets the others run. */
static int h_nanosleep(Warp *w, const Inst *in, uint32_t mask)
{
    (void)in; (void)mask;
    w->pc++;
    return STEP_JUMP;
}

const char *bind_nanosleep(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_nanosleep;
    return NULL;
}

/* ---- barriers --------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) int bar_arrive(Warp *w, const Inst *in, uint32_t mask,
                                                            int kind, const int V)
{
    int l0 = __builtin_ctz(mask);
    uint64_t id = ROW(w, in->s[0])[l0];
    int has_count = kind >= BAR_RED_POPC ? in->ns == 3 : in->ns == 2;
    uint32_t count = has_count ? (uint32_t)ROW(w, in->s[1])[l0] : 0;
    if (id > 15)
        return warp_fault(w, l0, EMU_ERR_ILLEGAL_INSTRUCTION, "barrier id %llu out of range 0..15",
                          (unsigned long long)id);
    if (has_count && (count == 0 || count % WARP_SIZE))
        return warp_fault(w, l0, EMU_ERR_ILLEGAL_INSTRUCTION,
                          "barrier thread count %u is not a positive multiple of 32", count);
    /* a whole warp at a plain bar.sync: the arrival the compiled tier writes inline too */
    if (kind == BAR_SYNC && !V && !has_count && mask == FULL_MASK && w->active == FULL_MASK && !w->sp && !w->waiting)
        return bar_sync_whole(w, (int)id, w->pc + 1, cta_barrier_release);
    uint32_t c = 0;
    if (kind >= BAR_RED_POPC) c = w->P[in->s[in->ns - 1]] & mask;
    return cta_barrier_arrive(w, (int)id, count, mask, kind, c, OBS_IF(V, w->launch->obs));
}

#define BAR_HANDLER(name, kind)                                                          \
    static inline __attribute__((always_inline)) int name(Warp *w, const Inst *in,       \
                                                          uint32_t mask, const int V)    \
    { return bar_arrive(w, in, mask, kind, V); }                                         \
    OBS_VARIANTS(name)
BAR_HANDLER(h_bar_sync, BAR_SYNC)
/* the compiled tier writes a whole warp's arrival at a plain bar.sync inline (jit/compile.c:
 * emit_bar): engine.h's bar_sync_whole, as this handler runs it */
JIT_OP(h_bar_sync_plain, "BAR", "", "", "", "", "", "")
BAR_HANDLER(h_bar_arrive, BAR_ARRIVE)
BAR_HANDLER(h_bar_red_popc, BAR_RED_POPC)
BAR_HANDLER(h_bar_red_and, BAR_RED_AND)
BAR_HANDLER(h_bar_red_or, BAR_RED_OR)

/* .relaxed: the arrival orders nothing before it (the race detector's view) */
static inline __attribute__((always_inline)) int h_cluster_arrive(Warp *w, const Inst *in,
                                                                  uint32_t mask, const int V)
{
    int release = SYNC_SEM(in->sync) != SEM_RELAXED;
    return cluster_barrier_arrive(w, mask, release, OBS_IF(V, w->launch->obs));
}
OBS_VARIANTS(h_cluster_arrive)

static inline __attribute__((always_inline)) int h_cluster_wait(Warp *w, const Inst *in,
                                                                uint32_t mask, const int V)
{
    (void)in;
    return cluster_barrier_wait(w, mask, OBS_IF(V, w->launch->obs));
}
OBS_VARIANTS(h_cluster_wait)

/* bar.warp.sync membermask: lanes may pass different masks (the tiles of cooperative
 * groups); a lane its own mask does not name is undefined (compute-sanitizer's synccheck
 * reports it too, "Barrier error detected. Invalid arguments"; the H200 goes on). */
static inline __attribute__((always_inline)) int h_bar_warp_sync(Warp *w, const Inst *in,
                                                                 uint32_t mask, const int V)
{
    const uint64_t *m = ROW(w, in->s[0]);
    uint32_t members = 0, out = 0;
    FOR_LANES(mask, l) {
        members |= (uint32_t)m[l];
        out |= (uint32_t)(~m[l] >> l & 1) << l;
    }
    int r = warp_converge_sync(w, in, mask, members, JOIN_NONE);
    if (r) return r;
    if (out) warp_sync_outside(w, "bar.warp.sync", out, in->s[0]);
    OBSERVE(OBS_IF(V, w->launch->obs), warp_sync, w, mask, m);   /* orders the lanes' accesses */
    return 0;
}
OBS_VARIANTS(h_bar_warp_sync)

const char *bind_bar(Inst *in, const InstDesc *d)
{
    if (desc_has(d, MOD_WARP)) {
        if (in->ns != 1) return "bar.warp.sync takes one operand";
        in->fn = OBS_PICK(d->obs, OBS_SYNC, h_bar_warp_sync);
        return NULL;
    }
    if (desc_has(d, MOD_CLUSTER)) {
        if (in->ns) return "barrier.cluster takes no operands";
        if (desc_has(d, MOD_ARRIVE)) in->fn = OBS_PICK(d->obs, OBS_SYNC, h_cluster_arrive);
        else if (desc_has(d, MOD_WAIT)) in->fn = OBS_PICK(d->obs, OBS_SYNC, h_cluster_wait);
        else return "barrier.cluster needs .arrive or .wait";
        return NULL;
    }
    if (desc_has(d, MOD_RED)) {
        if (in->nd != 1 || in->ns < 2 || in->ns > 3) return "bar.red needs d, a{, b}, c";
        if (desc_has(d, MOD_POPC)) in->fn = OBS_PICK(d->obs, OBS_SYNC, h_bar_red_popc);
        else if (desc_has(d, MOD_AND)) in->fn = OBS_PICK(d->obs, OBS_SYNC, h_bar_red_and);
        else if (desc_has(d, MOD_OR)) in->fn = OBS_PICK(d->obs, OBS_SYNC, h_bar_red_or);
        else return "bar.red needs .popc, .and or .or";
        return NULL;
    }
    if (in->ns < 1 || in->ns > 2) return "bar takes a barrier id and an optional thread count";
    in->fn = desc_has(d, MOD_ARRIVE) ? OBS_PICK(d->obs, OBS_SYNC, h_bar_arrive)
                                     : OBS_PICK(d->obs, OBS_SYNC, h_bar_sync);
    return NULL;
}

/* ---- internal ops ----------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* %clock/%clock64 count the warp's own instructions, each as the cycles an H100 SM shared by
 * as many resident warps would give it (clock_cpi): a virtual clock, so the same program reads
 * the same values whatever the host is doing, and a loop that waits a number of cycles runs
 * about as many passes as on the GPU rather than one a cycle. */
static int h_sreg(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t v;
    switch (in->imm) {
    case SR_CLOCK: v = (uint32_t)(w->steps * w->launch->prof.clock_cpi); break;
    case SR_CLOCK_HI: v = (uint32_t)((w->steps * w->launch->prof.clock_cpi) >> 32); break;
    case SR_CLOCK64: v = w->steps * w->launch->prof.clock_cpi; break;
    /* deterministic mode keeps time virtual too: scheduling steps, 100 ns each */
    case SR_GLOBALTIMER: v = w->launch->det ? w->launch->det_steps * 100 : now_ns(); break;
    case SR_GLOBALTIMER_LO: v = (uint32_t)(w->launch->det ? w->launch->det_steps * 100 : now_ns()); break;
    default: v = (uint32_t)((w->launch->det ? w->launch->det_steps * 100 : now_ns()) >> 32); break;
    }
    uint64_t *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = v;
    return STEP_NEXT;
}

/* A clock provider (clock.h) reads the clocks instead. */
const ClockProvider *emu_clock;
void emu_set_clock(const ClockProvider *c) { emu_clock = c; }

static int h_sreg_provided(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t v = emu_clock->read(w, (int)in->imm), *d = ROW(w, in->d[0]);
    FOR_LANES(mask, l) d[l] = v;
    return STEP_NEXT;
}

const char *bind_sreg(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = emu_clock ? h_sreg_provided : h_sreg;
    return NULL;
}

/* the address of a frame slot (local space) or of a kernel parameter (param space) */
static int h_lea(Warp *w, const Inst *in, uint32_t mask)
{
    uint64_t *d = ROW(w, in->d[0]);
    const uint64_t *b = ROW(w, in->base);
    int frame = in->flags & IF_FRAME;
    int narrow = in->t == TY_U32 || in->t == TY_B32 || in->t == TY_S32;
    FOR_LANES(mask, l) {
        uint64_t v = b[l] + (uint64_t)in->imm + (frame ? w->fp[l] : 0);
        d[l] = narrow ? (uint32_t)v : v;
    }
    return STEP_NEXT;
}

const char *bind_lea_frame(Inst *in, const InstDesc *d)
{
    (void)d;
    in->fn = h_lea;
    return NULL;
}
