/* report.c - the PTXEMU_REPORT file (report.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "report.h"

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

