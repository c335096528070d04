/* fault.c - the one fault path: where a lane stands (kernel, CUDA and PTX line, block,
 * thread), the first fault of a launch that aborts it, and warnings for undefined behaviour
 * the GPU does not fault on; each also written to PTXEMU_REPORT. */
#include <stdarg.h>
#include <stdio.h>
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
        warp_where(w, lane, at, sizeof at);
        fprintf(stderr, "ptxemu: warning: %s: %s\n", at, what);
        report_lane("warning", -1, w, lane, what);   /* and as JSON, for tools and graders */
    }
    pthread_mutex_unlock(&L->lock);
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
