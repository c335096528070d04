/* fault.c - the one fault path: where a lane stands (kernel, CUDA and PTX line, block,
 * thread), the first fault of a launch that aborts it, and warnings for undefined behaviour
 * the GPU does not fault on; each also written to PTXEMU_REPORT. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "machine.h"
#include "emu.h"

#include "report.h"

/* "kernel K, file:line, PTX name:line, block (..), thread (..)" of lane `lane` at w's pc. */
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
    snprintf(buf, n, "kernel %s, %sPTX %s:%u, block (%u,%u,%u), thread (%u,%u,%u)", p->dname, src,
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
    report_kernel(js, w->prog);
    fputc(',', js);
    report_place(js, w, lane);
    fprintf(js, ",\"message\":");
    report_str(js, what);
    fprintf(js, ",\"seed\":%llu}\n", (unsigned long long)(w->launch->det ? w->launch->seed : 0));
    report_close(js);
}

/* A note about one instruction, once per launch: on stderr as "ptxemu: LABEL: place: what"
 * (warnings only at PTXEMU_LOG >= 1, errors always) and as a JSON line of `kind`. */
static void note(Warp *w, int lane, const char *kind, const char *label, int is_error,
                 const char *fmt, va_list ap)
{
    Launch *L = w->launch;
    if (!is_error && emu_log_level < 1 && !getenv("PTXEMU_REPORT")) return;
    pthread_mutex_lock(&L->lock);
    int seen = 0;
    for (uint32_t i = 0; i < L->nwarned; i++) seen |= L->warned_pc[i] == w->pc;
    if (!seen && L->nwarned < sizeof L->warned_pc / sizeof L->warned_pc[0]) {
        L->warned_pc[L->nwarned++] = w->pc;
        char at[512], what[512];
        vsnprintf(what, sizeof what, fmt, ap);
        warp_where(w, lane, at, sizeof at);
        if (is_error || emu_log_level >= 1) fprintf(stderr, "ptxemu: %s: %s: %s\n", label, at, what);
        report_lane(kind, -1, w, lane, what);   /* and as JSON, for tools and graders */
    }
    pthread_mutex_unlock(&L->lock);
}

void warp_warn(Warp *w, int lane, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note(w, lane, "warning", "warning", 0, fmt, ap);
    va_end(ap);
}

void warp_warn_kind(Warp *w, int lane, const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note(w, lane, kind, "warning", 0, fmt, ap);
    va_end(ap);
}

void warp_undefined(Warp *w, int lane, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    note(w, lane, "undefined", "undefined behaviour", 1, fmt, ap);
    va_end(ap);
}

void warp_sync_outside(Warp *w, const char *op, uint32_t lanes, uint32_t row)
{
    int l = __builtin_ctz(lanes);
    warp_undefined(w, l, "lane %d executes %s with membermask 0x%08x, which does not name it "
                   "(%d lane%s of the warp do%s so); the mask of a warp-synchronous "
                   "instruction must name every lane that executes it", l, op,
                   (uint32_t)ROW(w, row)[l], __builtin_popcount(lanes),
                   __builtin_popcount(lanes) == 1 ? "" : "s", __builtin_popcount(lanes) == 1 ? "es" : "");
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
        warp_where(w, lane, at, sizeof at);
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
