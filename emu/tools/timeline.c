/* timeline.c - the timeline tool (PTXEMU_TIMELINE): the spans of the emulated clock
 * (events.h) as a Chrome-trace JSON file (chrome://tracing, ui.perfetto.dev), written as they
 * arrive.
 *
 * Rows: process 0 "host" (thread 0 the launches, thread 1 the memory copies), process 1
 * "workers" (one row a worker, the thread blocks it ran), and one process a launch
 * ("launch N: kernel") with a row for each warp of each block (runs / waits) and a row for
 * each block's asynchronous copies. The file is completed (closing brackets) at exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tools.h"

#define TL_MAX_EVENTS 8000000ull   /* past this the file would not load anywhere */
#define TID_PER_CTA 64u            /* warps 1..32 of a block, its async row at 63 */

static FILE *tl;
static pthread_mutex_t tl_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t tl_events, tl_dropped;

static void tl_close(void)
{
    pthread_mutex_lock(&tl_lock);
    if (tl) {
        fputs("\n]}\n", tl);
        fclose(tl);
        tl = NULL;
        if (tl_dropped)
            fprintf(stderr, "ptxemu: timeline: %llu events past the first %llu were left out\n",
                    (unsigned long long)tl_dropped, TL_MAX_EVENTS);
    }
    pthread_mutex_unlock(&tl_lock);
}

static void meta(const char *what, uint64_t pid, uint64_t tid, const char *fmt, const char *s,
                 uint64_t a, uint64_t b, uint64_t c)
{
    fprintf(tl, ",\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%llu,\"tid\":%llu,\"args\":{\"name\":\"", what,
            (unsigned long long)pid, (unsigned long long)tid);
    fprintf(tl, fmt, s ? s : "", (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
    fputs("\"}}", tl);
}

/* A JSON string without its quotes: kernel names are C identifiers, but be safe. */
static void put_name(const char *s)
{
    for (; s && *s; s++)
        if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20) fputc(*s, tl);
}

static void span(const char *cat, uint64_t pid, uint64_t tid, uint64_t t0, uint64_t t1)
{
    if (t1 < t0) t1 = t0;
    fprintf(tl, "\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%llu.%03llu,\"dur\":%llu.%03llu,\"pid\":%llu,"
            "\"tid\":%llu", cat, (unsigned long long)(t0 / 1000), (unsigned long long)(t0 % 1000),
            (unsigned long long)((t1 - t0) / 1000), (unsigned long long)((t1 - t0) % 1000),
            (unsigned long long)pid, (unsigned long long)tid);
}

static const char *const wait_names[] = { "waits at a barrier", "waits at barrier.cluster",
    "waits for its warp (warp-synchronous)", "waits for its warpgroup (wgmma)",
    "polls an mbarrier" };
static const char *const copy_names[] = { "HtoD", "DtoH", "DtoD", "HtoH" };

static void write_event(const Event *e)
{
    uint64_t lp = 100 + e->launch, row = (uint64_t)e->cta_linear * TID_PER_CTA;
    fputs(",\n{\"name\":\"", tl);
    switch (e->kind) {
    case EV_LAUNCH:
        put_name(e->name);
        span("launch", 0, 0, e->t0, e->t1);
        fprintf(tl, ",\"args\":{\"launch\":%llu}}", (unsigned long long)e->launch);
        fprintf(tl, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":0,\"args\":{\"name\":\"launch %llu: ",
                (unsigned long long)lp, (unsigned long long)e->launch);
        put_name(e->name);
        fprintf(tl, "\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%llu,\"tid\":0,"
                "\"args\":{\"sort_index\":%llu}}", (unsigned long long)lp, (unsigned long long)lp);
        break;
    case EV_CTA:
        fprintf(tl, "block (%u,%u,%u)", e->cta[0], e->cta[1], e->cta[2]);
        span("block", 1, e->worker, e->t0, e->t1);
        fprintf(tl, ",\"args\":{\"launch\":%llu,\"kernel\":\"", (unsigned long long)e->launch);
        put_name(e->name);
        fputs("\"}}", tl);
        for (uint32_t i = 0; i < e->nwarps && i < TID_PER_CTA - 2; i++)
            fprintf(tl, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":%llu,\"args\":"
                    "{\"name\":\"block (%u,%u,%u) warp %u\"}}", (unsigned long long)lp,
                    (unsigned long long)(row + i + 1), e->cta[0], e->cta[1], e->cta[2], i);
        fprintf(tl, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":%llu,\"args\":"
                "{\"name\":\"block (%u,%u,%u) async copies\"}}", (unsigned long long)lp,
                (unsigned long long)(row + TID_PER_CTA - 1), e->cta[0], e->cta[1], e->cta[2]);
        fprintf(tl, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"args\":"
                "{\"name\":\"worker %u\"}}", e->worker, e->worker);
        break;
    case EV_RUN:
        fputs("runs", tl);
        span("warp", lp, row + e->warp + 1, e->t0, e->t1);
        fprintf(tl, ",\"args\":{\"worker\":%u}}", e->worker);
        break;
    case EV_WAIT:
        fputs(wait_names[e->what], tl);
        span("wait", lp, row + e->warp + 1, e->t0, e->t1);
        fputs("}", tl);
        break;
    case EV_ASYNC:
        put_name(e->name);
        span("async", lp, row + TID_PER_CTA - 1, e->t0, e->t1);
        fprintf(tl, ",\"args\":{\"bytes\":%llu,\"warp\":%u}}", (unsigned long long)e->bytes, e->warp);
        break;
    case EV_MEMCPY:
        fputs(copy_names[e->what], tl);
        span("memcpy", 0, 1, e->t0, e->t1);
        fprintf(tl, ",\"args\":{\"bytes\":%llu}}", (unsigned long long)e->bytes);
        break;
    }
}

static void tl_span(const Event *e)
{
    pthread_mutex_lock(&tl_lock);
    if (tl) {
        if (tl_events < TL_MAX_EVENTS) { tl_events++; write_event(e); }
        else tl_dropped++;
    }
    pthread_mutex_unlock(&tl_lock);
}

static const Observer timeline = { .tool_name = "timeline", .events = OBS_SPAN, .span = tl_span };

int timeline_attach(const char *path)
{
    if (!(tl = fopen(path, "w"))) {
        fprintf(stderr, "ptxemu: cannot write the timeline to %s\n", path);
        return -1;
    }
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"emulated: one warp instruction "
          "on a worker is one nanosecond, a memory copy one nanosecond per 64 bytes\"},\n"
          "\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
          "\"args\":{\"name\":\"host\"}}", tl);
    meta("thread_name", 0, 0, "%slaunches", NULL, 0, 0, 0);
    meta("thread_name", 0, 1, "%smemory copies", NULL, 0, 0, 0);
    meta("process_name", 1, 0, "%sworkers", NULL, 0, 0, 0);
    atexit(tl_close);
    return obs_attach(&timeline) < 0 ? -1 : 0;
}
