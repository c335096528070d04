/* engine.c - the interpreter loop of one warp, divergence handling, and the fault path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "scheduler.h"
#include "exec.h"
#include "memory.h"
#include "emu.h"
#include "debug.h"

/* Lowest pc among runnable lanes outside the running group: the running group merges
 * with them when it gets there (the rule outside divergence regions). */
static uint32_t min_other_pc(const Warp *w)
{
    uint32_t next = UINT32_MAX;
    for (uint32_t m = warp_runnable(w) & ~w->active; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] < next) next = w->lane_pc[__builtin_ctz(m)];
    return next;
}

/* Run the runnable lanes of `from` that have the lowest pc. */
static void run_lowest(Warp *w, uint32_t from)
{
    uint32_t lo = UINT32_MAX, group = 0;
    for (uint32_t m = from; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] < lo) lo = w->lane_pc[__builtin_ctz(m)];
    for (uint32_t m = from; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] == lo) group |= 1u << __builtin_ctz(m);
    w->active = group;
    w->pc = group ? lo : 0;
}

/* Choose the next running group. Inside a divergence region (a branch split the lanes and
 * they meet again at its reconvergence pc), a group runs until it reaches that pc, then the
 * region's other lanes run; when all have arrived the region closes and they go on
 * together. This is the order an H100 shows (the fall-through path first, each path to the
 * join). Outside regions, the lanes with the lowest pc run and merge by pc. */
void warp_regroup(Warp *w)
{
    for (uint32_t m = w->active; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = w->pc;
    while (w->sp) {
        const struct DivEntry *e = &w->stk[w->sp - 1];
        uint32_t members = e->mask & w->alive, arrived = 0;
        for (uint32_t m = members; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (w->lane_pc[l] == e->rpc || (e->rpc == RPC_EXIT && w->depth[l] < e->depth))
                arrived |= 1u << l;
        }
        uint32_t pending = members & ~arrived & ~w->waiting;
        if (pending) {
            run_lowest(w, pending);
            w->merge_pc = e->rpc;
            return;
        }
        uint32_t rpc = e->rpc, go = arrived & ~w->waiting;
        if ((members & ~arrived) && !go) {  /* the rest are parked and nobody can go on */
            w->active = 0;
            w->merge_pc = rpc;
            return;
        }
        /* All arrived, or the others wait at a barrier: the arrived lanes go on (an early
         * return before __syncthreads must reach its exit, or the barrier would wait for
         * it forever); the parked lanes continue on their own when released. */
        w->sp--;
        if (rpc != RPC_EXIT && go) {
            w->active = go;
            w->pc = rpc;
            w->merge_pc = w->sp ? w->stk[w->sp - 1].rpc : min_other_pc(w);
            return;
        }
        /* paths that met only by returning or exiting: the enclosing rule decides */
    }
    run_lowest(w, warp_runnable(w));
    w->merge_pc = min_other_pc(w);
}

/* A branch split the running group: `taken` lanes go to target, the others to pc+1. The
 * not-taken path runs first, up to the reconvergence pc rpc. */
void warp_diverge(Warp *w, uint32_t taken, uint32_t target, uint32_t rpc)
{
    warp_diverge_at(w, taken, target, w->pc + 1, rpc);
}

/* The same, the other lanes going to rest_pc (an indirect call: they call their own
 * targets when they run this instruction again). */
void warp_diverge_at(Warp *w, uint32_t taken, uint32_t target, uint32_t rest_pc, uint32_t rpc)
{
    uint32_t all = w->active;
    for (uint32_t m = taken; m; m &= m - 1) w->lane_pc[__builtin_ctz(m)] = target;
    const struct DivEntry *top = w->sp ? &w->stk[w->sp - 1] : NULL;
    /* a region with the same join already covers these lanes (a loop's exit branch taken
     * again); past DIV_MAX the enclosing region's join is used */
    if (!(top && top->rpc == rpc && (top->mask & all) == all) && w->sp < DIV_MAX) {
        struct DivEntry *e = &w->stk[w->sp++];
        e->rpc = rpc;
        e->mask = all;
        e->depth = w->depth[__builtin_ctz(all)];
    }
    w->active = all & ~taken;
    w->pc = rest_pc;
    if (!w->active || w->pc == rpc) {
        warp_regroup(w);
        return;
    }
    w->merge_pc = w->sp ? w->stk[w->sp - 1].rpc : min_other_pc(w);
}

void warp_unpark(Warp *w, uint32_t lanes)
{
    w->waiting &= ~lanes;
    if (!w->active) {
        warp_regroup(w);
        return;
    }
    if (w->sp) return;   /* released lanes run when the running group reaches its join */
    /* keep running the current group; the released lanes join by pc */
    for (uint32_t m = lanes & w->alive; m; m &= m - 1) {
        uint32_t pc = w->lane_pc[__builtin_ctz(m)];
        if (pc < w->merge_pc) w->merge_pc = pc;
    }
    if (w->merge_pc <= w->pc) warp_regroup(w);
}

/* After a jump: inside a divergence region only its join ends the group's run (callee
 * code may lie beyond it); outside, a jump past waiting lanes lets them catch up. */
static inline int past_merge(const Warp *w)
{
    return w->sp ? w->pc == w->merge_pc : w->pc >= w->merge_pc;
}

int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members)
{
    members &= w->valid & w->alive;   /* exited lanes are not waited for (exec.h) */
    uint32_t missing = members & ~mask;
    if (!missing) return 0;
    uint32_t pc = (uint32_t)(in - w->prog->code);
    uint32_t parked = 0;
    for (uint32_t m = w->sync_wait; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] == pc) parked |= 1u << __builtin_ctz(m);
    if (!(members & ~(mask | parked))) {
        /* everyone is here: release the parked lanes and run the instruction again with
         * the whole group (regroup merges lanes that share a pc) */
        w->sync_wait &= ~parked;
        w->waiting &= ~parked;
        warp_regroup(w);
        return STEP_JUMP;
    }
    w->sync_wait |= mask;
    w->waiting |= mask;
    warp_regroup(w);
    return STEP_BLOCK;
}

void warp_lanes_exited(Warp *w)
{
    uint32_t parked = w->sync_wait & w->alive;
    if (!parked) return;
    w->sync_wait &= ~parked;
    w->waiting &= ~parked;   /* they run their instruction again: regroup merges them */
}

/* "kernel K, file:line, PTX name:line, block (..), thread (..)" for messages. */
void warp_where(Warp *w, int lane, char *buf, size_t n);
static void where(Warp *w, int lane, char *buf, size_t n) { warp_where(w, lane, buf, n); }
void warp_where(Warp *w, int lane, char *buf, size_t n)
{
    const Program *p = w->prog;
    Launch *L = w->launch;
    const Inst *in = &p->code[w->pc < p->ncode ? w->pc : 0];
    char src[640] = "";
    if (src_place(p, in, src, sizeof src - 2, 0)) strcat(src, ", ");
    Cta *c = w->cta;
    uint32_t t = w->id * WARP_SIZE + (uint32_t)lane;
    uint32_t bx = L->block[0], by = L->block[1];
    snprintf(buf, n, "kernel %s, %sPTX %s:%u, block (%u,%u,%u), thread (%u,%u,%u)", p->name, src,
             p->ptx_name ? p->ptx_name : "ptx", in->line, c->ctaid[0], c->ctaid[1], c->ctaid[2],
             t % bx, t / bx % by, t / (bx * by));
}

/* One line of PTXEMU_REPORT about a lane of w: its kind (with a CUDA error code, unless -1),
 * the place and the message. */
static void report_lane(const char *kind, int code, Warp *w, int lane, const char *what)
{
    FILE *js = report_open();
    if (!js) return;
    fprintf(js, "{\"kind\":\"%s\",", kind);
    if (code >= 0) fprintf(js, "\"code\":%d,", code);
    fprintf(js, "\"kernel\":");
    report_str(js, w->prog->name);
    fputc(',', js);
    report_place(js, w, lane);
    fprintf(js, ",\"message\":");
    report_str(js, what);
    fprintf(js, ",\"seed\":%llu}\n", (unsigned long long)(w->launch->det ? w->launch->seed : 0));
    report_close(js);
}

void warp_warn(Warp *w, int lane, const char *fmt, ...)
{
    if (emu_log_level < 1) return;   /* PTXEMU_LOG=0: errors only */
    Launch *L = w->launch;
    pthread_mutex_lock(&L->lock);
    int seen = 0;
    for (uint32_t i = 0; i < L->nwarned; i++) seen |= L->warned_pc[i] == w->pc;
    if (!seen && L->nwarned < sizeof L->warned_pc / sizeof L->warned_pc[0]) {
        L->warned_pc[L->nwarned++] = w->pc;
        char at[512], what[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        where(w, lane, at, sizeof at);
        fprintf(stderr, "ptxemu: warning: %s: %s\n", at, what);
        report_lane("warning", -1, w, lane, what);   /* and as JSON, for tools and graders */
    }
    pthread_mutex_unlock(&L->lock);
}

/* ---- PTXEMU_REPORT: faults, deadlocks and time limits as JSON lines, beside the race
 * reports (one object a line, appended) ---- */

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

FILE *report_open(void)
{
    const char *path = getenv("PTXEMU_REPORT");
    if (!path || !*path) return NULL;
    pthread_mutex_lock(&report_lock);
    FILE *f = fopen(path, "a");
    if (!f) pthread_mutex_unlock(&report_lock);
    return f;
}

void report_close(FILE *f)
{
    if (!f) return;
    fclose(f);
    pthread_mutex_unlock(&report_lock);
}

void report_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\') fputc('\\', f);
        if ((unsigned char)*c >= 0x20) fputc(*c, f);
    }
    fputc('"', f);
}

/* "block":[..],"thread":[..],"warp":N,"ptx_line":N,"src_file":"..","src_line":N of lane l. */
void report_place(FILE *f, Warp *w, int lane)
{
    const Program *p = w->prog;
    Launch *L = w->launch;
    const Inst *in = &p->code[w->pc < p->ncode ? w->pc : 0];
    const char *file = "", *ifile = NULL;
    uint32_t line = 0, iline = 0, t = w->id * WARP_SIZE + (uint32_t)lane, bx = L->block[0], by = L->block[1];
    src_lines(p, in, &file, &line, &ifile, &iline);
    Cta *c = w->cta;
    fprintf(f, "\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"warp\":%u,\"ptx_line\":%u,\"src_file\":",
            c->ctaid[0], c->ctaid[1], c->ctaid[2], t % bx, t / bx % by, t / (bx * by), w->id, in->line);
    report_str(f, file);
    fprintf(f, ",\"src_line\":%u", line);
    if (ifile) {   /* code inlined from a header: where in the header */
        fprintf(f, ",\"inlined_file\":");
        report_str(f, ifile);
        fprintf(f, ",\"inlined_line\":%u", iline);
    }
}

int warp_fault(Warp *w, int lane, int cuda_err, const char *fmt, ...)
{
    Launch *L = w->launch;
    char what[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&L->lock);
    if (!L->aborted) {
        char at[512];
        where(w, lane, at, sizeof at);
        /* without -lineinfo the PTX carries no .loc: only PTX lines can be named */
        snprintf(L->fault.msg, sizeof L->fault.msg, "ptxemu: %s: %s%s", at, what,
                 w->prog->nlocs <= 1 ? " (no CUDA source lines: rebuild with -lineinfo to see them; "
                                       "PTXEMU_DUMP_PTX=DIR writes the PTX)" : "");
        L->fault.code = cuda_err;
        __atomic_store_n(&L->aborted, 1, __ATOMIC_RELEASE);
        if (strncmp(what, "deadlock", 8)) report_lane("fault", cuda_err, w, lane, what);   /* deadlocks: sched.c */
    }
    pthread_mutex_unlock(&L->lock);
    return STEP_FAULT;
}
int warp_run(Warp *w, uint32_t budget)
{
    const Inst *code = w->prog->code;
    uint64_t steps = 0, lanes = 0;
    int result;
    for (;;) {
        const Inst *in = &code[w->pc];
        uint32_t m = w->active & (w->P[in->pg] ^ in->pneg);
        if (__builtin_expect(w->wg_inflight != 0, 0)) wgmma_check_access(w, in);
        steps++;
        lanes += popcount32(m);
        if (__builtin_expect(in->op == OP_sreg, 0)) {   /* %clock reads the warp's count */
            w->steps += steps;
            w->lane_steps += lanes;
            steps = lanes = 0;
        }
        /* an instruction no lane executes is skipped without calling its handler */
        int r = m ? in->fn(w, in, m) : STEP_NEXT;
        if (__builtin_expect(r == STEP_NEXT, 1)) {
            if (++w->pc == w->merge_pc) warp_regroup(w);   /* pc+1 cannot skip merge_pc */
            continue;
        }
        if (r == STEP_FAULT) { result = RUN_FAULT; break; }
        if (r == STEP_YIELD) {
            if (past_merge(w)) warp_regroup(w);
            result = w->active ? RUN_YIELD : RUN_BLOCKED;
            break;
        }
        if (r == STEP_JUMP) {
            if (past_merge(w)) warp_regroup(w);
            /* a backward jump may be a spin loop waiting for another warp: yield now and
             * then so that warp gets to run */
            if (w->pc <= (uint32_t)(in - code) && --budget == 0) {
                result = w->active ? RUN_YIELD : (w->alive ? RUN_BLOCKED : RUN_DONE);
                break;
            }
        }
        if (!w->active) { result = w->alive ? RUN_BLOCKED : RUN_DONE; break; }
    }
    w->steps += steps;
    w->lane_steps += lanes;
    return result;
}

/* A loop that polls memory nobody writes spins forever: every pass leaves the warp's
 * registers as they were. Every 64th backward jump compares a hash of the warp's state with
 * the one at the previous check; the same state at the same branch with no store, atomic or
 * synchronisation in between marks the warp as spinning without progress (mem_spin). The
 * deterministic scheduler counts such turns as it counts failed mbarrier polls, and when
 * nothing else runs for long enough it reports the deadlock (sched.c). A loop that reads a
 * clock, counts, or walks memory changes its registers and is never marked. */
/* A hash of what a warp's progress changes: its pc, lanes, registers and predicates, folded
 * into h (FNV-1a style). Spin detection compares it from one check to the next. */
uint64_t warp_state_hash(const Warp *w, uint64_t h)
{
    const Program *p = w->prog;
    h ^= w->active ^ (uint64_t)w->pc << 32;
    const uint64_t *r = ROW(w, p->first_var_row), *end = ROW(w, p->nrows);
    for (; r < end; r++) h = (h ^ *r) * 1099511628211ull;
    for (uint32_t i = 0; i < p->npreds; i++) h = (h ^ w->P[i]) * 1099511628211ull;
    return h;
}

static void spin_check(Warp *w, uint32_t branch_pc)
{
    if (++w->back_jumps & 63) return;
    uint64_t h = warp_state_hash(w, 1469598103934665603ull);
    w->mem_spin = h == w->loop_hash && branch_pc == w->loop_pc && !w->wrote;
    w->loop_hash = h;
    w->loop_pc = branch_pc;
    w->wrote = 0;
}

/* Instructions after which a spinning loop may see something new. */
static inline int may_publish(int op)
{
    return op != OP_ld && op != OP_ldu && op != OP_fence && op != OP_membar;
}

/* Deterministic mode: run w up to and including its next instruction that other warps can
 * observe (memory, barriers, fences, atomics, asynchronous operations), so that the
 * scheduler chooses every interleaving of such instructions. */
int warp_run_det(Warp *w)
{
    const Inst *code = w->prog->code;
    for (;;) {
        const Inst *in = &code[w->pc];
        uint32_t m = w->active & (w->P[in->pg] ^ in->pneg);
        if (__builtin_expect(w->wg_inflight != 0, 0)) wgmma_check_access(w, in);
        w->steps++;
        w->lane_steps += popcount32(m);
        if (__builtin_expect(debug_on, 0)) debug_before(w, in, m);
        int r = m ? in->fn(w, in, m) : STEP_NEXT;
        if (__builtin_expect(debug_on, 0)) debug_after(w, in, m);
        int stop = m && (in->flags & IF_PREEMPT);
        if (stop && may_publish(in->op)) { w->wrote = 1; w->mem_spin = 0; }
        if (r == STEP_NEXT) {
            if (++w->pc == w->merge_pc) warp_regroup(w);
        } else if (r == STEP_FAULT) {
            return RUN_FAULT;
        } else if (r == STEP_JUMP || r == STEP_YIELD) {
            if (past_merge(w)) warp_regroup(w);
            /* a backward jump ends the turn (spin loops too), except the first one of a turn
             * that resumes a failed wait: that turn goes back to the wait, so a polling loop
             * that never succeeds keeps failing turn after turn and is seen as spinning */
            int back = w->pc <= (uint32_t)(in - code) && !w->spin_resume;
            if (w->pc <= (uint32_t)(in - code)) {
                w->spin_resume = 0;
                spin_check(w, (uint32_t)(in - code));
            } else if (w->mem_spin && (uint32_t)(in - code) >= w->loop_pc) {
                w->mem_spin = 0;   /* a forward jump out of the loop */
            }
            stop |= r == STEP_YIELD || back;
        }
        if (!w->active) return w->alive ? RUN_BLOCKED : RUN_DONE;
        if (stop) return RUN_YIELD;
    }
}
