/* racereport.c - the race detector's reports: one line each on stderr (wrapped, with the
 * hint on lines of its own, when stderr is a terminal) and, with PTXEMU_REPORT, one JSON
 * object a line (see racecheck.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "racecheck.h"
#include "racecheck_state.h"

static const char *const kind_name[] = {
    "read-after-write", "write-after-read", "write-after-write",
    "read-before-async-copy-complete", "write-before-async-copy-complete",
    "write-before-async-copy-read-complete", "async-proxy-read-without-proxy-fence",
    "mbarrier-used-before-fence-mbarrier-init", "mbarrier-wait-on-observed-phase",
    "mbarrier-tx-beyond-phase", "wgmma-accumulator-before-wait"
};

static void where(const Program *p, uint32_t pc, char *buf, size_t n)
{
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    char src[640] = "";
    if (src_place(p, in, src, sizeof src - 2, 0)) strcat(src, ", ");
    snprintf(buf, n, "%sPTX %s:%u", src, p->ptx_name ? p->ptx_name : "ptx", in->line);
}

/* "file:line" of pc, or "PTX line N" without line info: for the hints. */
static void short_place(const Program *p, uint32_t pc, char *buf, size_t n)
{
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    const char *f, *ifile;
    uint32_t line, iline;
    if (src_lines(p, in, &f, &line, &ifile, &iline)) {   /* the kernel's own line */
        const char *base = f;
        for (const char *c = f; *c; c++) if (*c == '/') base = c + 1;
        snprintf(buf, n, "%s:%u", base, line);
    } else
        snprintf(buf, n, "PTX line %u", in->line);
}

/* What would order two plain accesses of one launch that nothing ordered, for people
 * learning: the barrier that belongs between them. */
static void order_hint(const Launch *L, const RaceFinding *f, char *buf, size_t n)
{
    char a[320], b[320];
    short_place(RACE_LOG(L)->launches[f->launch1].prog, f->pc1, a, sizeof a);
    short_place(L->prog, f->pc2, b, sizeof b);
    if (f->cta1 == f->cta2 && !strcmp(a, b) && f->kind == K_WAW)
        /* two stores of one line: a plain "winner" store (HeCBench's tsp: every thread with the
         * best result writes its index to one word) as often as a lost x++; which value stays
         * is the hardware's order (of one warp's lanes the H200 keeps the lowest lane's,
         * tests/cuda/store_conflict.cu), not something the program chose */
        snprintf(buf, n, "both writes come from %s: when threads store to one location there, the "
                 "value that stays is the one the hardware happens to store last; to count or sum "
                 "there use an atomic (atomicAdd), to choose one thread choose it explicitly "
                 "(atomicMin of its index) or give each thread a location of its own; if that line "
                 "runs more than once (a loop), a barrier between its runs orders them", a);
    else if (f->cta1 == f->cta2 && !strcmp(a, b))
        snprintf(buf, n, "both accesses come from %s: threads that update one location there with a "
                 "plain read-modify-write (x++, x += v) need an atomic (atomicAdd) or a location each; "
                 "if that line runs more than once (a loop), a barrier between its runs orders them", a);
    else if (f->cta1 == f->cta2 && f->t1 / 32 == f->t2 / 32)
        snprintf(buf, n, "both threads are in one warp and nothing orders them between %s and %s: "
                 "a __syncwarp() there orders the lanes of a warp, a __syncthreads() the whole block",
                 a, b);
    else if (f->cta1 == f->cta2)
        snprintf(buf, n, "no barrier separates %s and %s: a __syncthreads() (bar.sync) between "
                 "these lines, on the path from one access to the other, orders them", a, b);
    else if (!f->global)
        snprintf(buf, n, "the threads are in different blocks of a cluster: a cluster barrier "
                 "(cluster.sync(), barrier.cluster) between %s and %s orders them", a, b);
    else
        snprintf(buf, n, "the threads are in different blocks, which no __syncthreads() orders: "
                 "split the work into two launches, or publish with __threadfence() and an atomic "
                 "flag the reader acquires");
}

static void coords(const uint32_t dim[3], uint32_t i, uint32_t out[3])
{
    out[0] = i % dim[0]; out[1] = i / dim[0] % dim[1]; out[2] = i / (dim[0] * dim[1]);
}

/* The name of an accessing instruction (kept local: this file must not pull in the whole
 * opcode table, the memory unit tests link it alone). */
static const char *op_name(int op)
{
    switch (op) {
    case OP_ld: return "ld";
    case OP_ldu: return "ldu";
    case OP_st: return "st";
    case OP_atom: return "atom";
    case OP_red: return "red";
    case OP_cp: return "cp";
    case OP_st_async: return "st.async";
    case OP_mbarrier: return "mbarrier";
    case OP_ldmatrix: return "ldmatrix";
    case OP_wmma: return "wmma";
    case OP_wgmma: return "wgmma";
    default: return "access";
    }
}

/* "the legacy default stream" or "stream #i" (the detector's numbering). */
static void stream_name(uint32_t i, char *buf, size_t n)
{
    if (i == 0) snprintf(buf, n, "the default stream");
    else if (i == 1) snprintf(buf, n, "the per-thread default stream");
    else snprintf(buf, n, "stream #%u", i - 1);
}

/* One access of a report as JSON: op, block, thread, warp, PTX line and CUDA source line;
 * for a host copy, its API and stream. */
static void json_access(FILE *js, const RaceLaunch *rl, uint32_t pc, uint32_t cta, uint32_t t)
{
    const Program *p = rl->prog;
    if (!p) {
        char sn[64];
        stream_name(rl->stream, sn, sizeof sn);
        fprintf(js, "{\"host_copy\":\"%s\",\"stream\":\"%s\"}", rl->api, sn);
        return;
    }
    const Inst *in = &p->code[pc];
    const char *file = "", *ifile = NULL;
    uint32_t line = 0, iline = 0, b[3], th[3];
    coords(rl->grid, cta, b);
    coords(rl->block, t, th);
    src_lines(p, in, &file, &line, &ifile, &iline);
    fputc('{', js);
    report_kernel(js, p);
    fprintf(js, ",\"op\":\"%s\",\"block\":[%u,%u,%u],\"thread\":[%u,%u,%u],\"warp\":%u,"
            "\"ptx_line\":%u,\"src_file\":\"", op_name(in->op),
            b[0], b[1], b[2], th[0], th[1], th[2], t / WARP_SIZE, in->line);
    for (const char *c = file; *c; c++) {   /* JSON string escapes */
        if (*c == '"' || *c == '\\') fputc('\\', js);
        if ((unsigned char)*c >= 0x20) fputc(*c, js);
    }
    fprintf(js, "\",\"src_line\":%u", line);
    if (ifile) {   /* code inlined from a header: where in the header */
        fprintf(js, ",\"inlined_file\":\"");
        for (const char *c = ifile; *c; c++) {
            if (*c == '"' || *c == '\\') fputc('\\', js);
            if ((unsigned char)*c >= 0x20) fputc(*c, js);
        }
        fprintf(js, "\",\"inlined_line\":%u", iline);
    }
    fputc('}', js);
}

/* What orders work of two streams (a race between launches, or a launch and a host copy). */
#define STREAMS_HINT "nothing orders the two pieces of work: issue them on one stream, or make one " \
    "stream wait for the other (cudaEventRecord after the first, cudaStreamWaitEvent before the " \
    "second), or synchronise the host between them"

/* One report: "ptxemu: race: MESSAGE; HINT (N times; seed S)" (report.c wraps it on a
 * terminal, the hint once on lines of its own). */
static void emit(const char *hint, const char *tail, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void emit(const char *hint, const char *tail, const char *fmt, ...)
{
    char msg[3000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report_line("ptxemu: race:", msg, hint, tail);
}

/* The report of a finding. */
static void print_finding(const Launch *L, const RaceFinding *f)
{
    char a[400], b[400];
    uint32_t b1[3], b2[3], t1[3], t2[3];
    unsigned long long seed = (unsigned long long)L->seed;
    const char *times = f->count == 1 ? "" : "s";
    char tail[80];
    snprintf(tail, sizeof tail, "(%u time%s; seed %llu)", f->count, times, seed);
    const RaceLaunch *r1 = &RACE_LOG(L)->launches[f->launch1];
    if (!r1->prog) {   /* an earlier copy the host issued */
        char sn[64];
        size_t asz = 0;
        uint64_t base = mem_find(f->addr, &asz, NULL);
        where(L->prog, f->pc2, b, sizeof b);
        coords(L->grid, f->cta2, b2); coords(L->block, f->t2, t2);
        stream_name(r1->stream, sn, sizeof sn);
        emit("", tail, "%s in global memory at 0x%llx (offset %llu of a %zu-byte "
                "allocation at 0x%llx): the host's %s on %s, issued earlier, and block (%u,%u,%u) "
                "thread (%u,%u,%u) of kernel %s at %s, which no stream order, event or "
                "synchronisation puts one after the other",
                kind_name[f->kind], (unsigned long long)f->addr, (unsigned long long)(f->addr - base),
                asz, (unsigned long long)base, r1->api, sn, b2[0], b2[1], b2[2], t2[0], t2[1], t2[2],
                L->prog->dname, b);
        return;
    }
    where(r1->prog, f->pc1, a, sizeof a); where(L->prog, f->pc2, b, sizeof b);
    coords(r1->grid, f->cta1, b1); coords(L->grid, f->cta2, b2);
    coords(r1->block, f->t1, t1); coords(L->block, f->t2, t2);
    const char *k = kind_name[f->kind], *kn = L->prog->dname;
    char hint[800] = "";
    if (f->kind <= K_WAW && f->launch1 == RACE_LOG(L)->cur) order_hint(L, f, hint, sizeof hint);
    switch (f->kind) {
    case K_MBINIT:
        if (f->pc1 == f->pc2 && f->cta1 == f->cta2 && f->t1 == f->t2) {   /* race_mbar_uninit */
            emit("", tail, "%s by block (%u,%u,%u) thread (%u,%u,%u) at %s, which arrives "
                    "on the mbarrier at shared offset 0x%x of block (%u,%u,%u), kernel %s, before any "
                    "thread initialised it: a barrier (__syncthreads()) after mbarrier.init orders the "
                    "init before every use", k, b2[0], b2[1], b2[2], t2[0],
                    t2[1], t2[2], b, f->offset, b1[0], b1[1], b1[2], kn);
            return;
        }
        emit("", tail, "%s by block (%u,%u,%u) thread (%u,%u,%u) at %s, which arrives "
                "on the mbarrier at shared offset 0x%x of block (%u,%u,%u), kernel %s, which that block "
                "initialised without a fence.mbarrier_init since", k,
                b2[0], b2[1], b2[2], t2[0], t2[1], t2[2], b, f->offset, b1[0], b1[1], b1[2], kn);
        return;
    case K_PARITY:
        emit("", tail, "%s by block (%u,%u,%u) thread (%u,%u,%u) at %s, kernel %s, which waited "
                "on the mbarrier at shared offset 0x%x and observed phase %lld again, which it had "
                "already observed: the parity it waits for was not flipped",
                k, b2[0], b2[1], b2[2], t2[0], t2[1], t2[2], b, kn, f->offset,
                (long long)f->addr - 1);
        return;
    case K_TX:
        if (f->unannounced > 0) {   /* found when the block ended */
            emit("", tail, "%s by the copy block (%u,%u,%u) thread (%u,%u,%u) at %s, "
                    "kernel %s: the mbarrier at shared offset 0x%x ended the block in phase %llu with "
                    "%d bytes delivered that no expect_tx announced", k,
                    b2[0], b2[1], b2[2], t2[0], t2[1], t2[2], b, kn, f->offset,
                    (unsigned long long)f->addr, f->unannounced);
            return;
        }
        emit("", tail, "%s by the copy block (%u,%u,%u) thread (%u,%u,%u) at %s, "
                "kernel %s issued during phase %llu of its mbarrier, which delivered its bytes after that phase "
                "completed: the phase expected fewer bytes (expect_tx too small?)",
                k, b2[0], b2[1], b2[2], t2[0], t2[1], t2[2], b, kn, (unsigned long long)f->addr);
        return;
    case K_WGACC:
        emit("", tail, "%s by block (%u,%u,%u) thread (%u,%u,%u) at %s, kernel %s: it "
                "accesses an accumulator register of the wgmma.mma_async at %s before the wgmma.wait_group "
                "that completes it: undefined on the GPU, which may give the old or the new value (ptxemu "
                "gives the new one once any warp of the warpgroup waited)", k, b2[0], b2[1], b2[2], t2[0], t2[1], t2[2],
                b, kn, a);
        return;
    case K_ASYNC_READ: case K_ASYNC_WRITE: case K_ASYNC_SRC:
        if (f->global) {   /* a bulk store's global destination */
            size_t asz = 0;
            uint64_t base = mem_find(f->addr, &asz, NULL);
            emit("", tail, "%s in global memory at 0x%llx (offset %llu of a %zu-byte "
                    "allocation at 0x%llx), kernel %s: thread (%u,%u,%u) of block (%u,%u,%u) at %s "
                    "touches bytes a bulk store has not been seen to complete (cp.async.bulk.wait_group "
                    "missing, or no barrier after it?)", k,
                    (unsigned long long)f->addr, (unsigned long long)(f->addr - base), asz,
                    (unsigned long long)base, kn, t2[0], t2[1], t2[2], b2[0], b2[1], b2[2], b);
            return;
        }
        emit("", tail, "%s in shared memory at offset 0x%x of block (%u,%u,%u), "
                "kernel %s: thread (%u,%u,%u) of block (%u,%u,%u) at %s touches bytes an asynchronous "
                "copy has not been seen to complete%s", k, f->offset,
                b1[0], b1[1], b1[2], kn, t2[0], t2[1], t2[2], b2[0], b2[1], b2[2], b,
                f->kind == K_ASYNC_SRC ? " (cp.async.bulk.wait_group.read missing?)"
                                       : " (wait_group / mbarrier wait missing?)");
        return;
    }
    if (f->global && f->launch1 != RACE_LOG(L)->cur) {
        size_t asz = 0;
        uint64_t base = mem_find(f->addr, &asz, NULL);
        emit("", tail, "%s in global memory at 0x%llx (offset %llu of a %zu-byte "
                "allocation at 0x%llx): block (%u,%u,%u) thread (%u,%u,%u) of an earlier launch of "
                "kernel %s at %s and block (%u,%u,%u) thread (%u,%u,%u) of kernel %s at %s, in "
                "launches no stream order, event or synchronisation puts one after the other", k, (unsigned long long)f->addr,
                (unsigned long long)(f->addr - base), asz, (unsigned long long)base, b1[0], b1[1],
                b1[2], t1[0], t1[1], t1[2], r1->prog->dname, a, b2[0], b2[1], b2[2], t2[0], t2[1],
                t2[2], kn, b);
        return;
    }
    if (f->global) {
        size_t asz = 0;
        uint64_t base = mem_find(f->addr, &asz, NULL);
        emit(hint, tail, "%s in global memory at 0x%llx (offset %llu of a %zu-byte "
                "allocation at 0x%llx), kernel %s: block (%u,%u,%u) thread (%u,%u,%u) at %s and "
                "block (%u,%u,%u) thread (%u,%u,%u) at %s with nothing ordering them", k,
                (unsigned long long)f->addr, (unsigned long long)(f->addr - base),
                asz, (unsigned long long)base, kn, b1[0], b1[1], b1[2], t1[0], t1[1], t1[2], a,
                b2[0], b2[1], b2[2], t2[0], t2[1], t2[2], b);
        return;
    }
    uint32_t bo[3];
    coords(L->grid, f->owner, bo);
    emit(f->kind == K_PROXY ? "" : hint, tail, "%s in shared memory at offset 0x%x of block (%u,%u,%u), kernel "
            "%s: thread (%u,%u,%u) of block (%u,%u,%u) at %s and thread (%u,%u,%u) of block "
            "(%u,%u,%u) at %s %s", k, f->offset, bo[0], bo[1], bo[2], kn,
            t1[0], t1[1], t1[2], b1[0], b1[1], b1[2], a, t2[0], t2[1], t2[2], b2[0], b2[1], b2[2], b,
            f->kind == K_PROXY ? "hands it to the async proxy with no fence.proxy.async in between"
                               : "with nothing ordering them");
}

static void json_finding(FILE *js, const Launch *L, const RaceFinding *f)
{
    int one = f->kind >= K_ASYNC_READ && f->kind != K_PROXY && f->kind != K_WGACC;   /* only the later access */
    uint32_t b[3];
    coords(L->grid, f->global ? f->cta2 : f->owner, b);   /* shared: the owner of the memory */
    fprintf(js, "{\"kind\":\"%s\",\"space\":\"%s\",\"address\":%llu,",
            kind_name[f->kind], f->kind == K_WGACC ? "register" : f->global ? "global" : "shared",
            (unsigned long long)(f->global ? f->addr : f->offset));
    report_kernel(js, L->prog);
    fprintf(js, ",\"block\":[%u,%u,%u],\"count\":%u,\"seed\":%llu,\"accesses\":[",
            b[0], b[1], b[2], f->count, (unsigned long long)L->seed);
    if (!one) {
        json_access(js, &RACE_LOG(L)->launches[f->launch1], f->pc1, f->cta1, f->t1);
        fputc(',', js);
    }
    json_access(js, &RACE_LOG(L)->launches[RACE_LOG(L)->cur], f->pc2, f->cta2, f->t2);
    fprintf(js, "]");
    if (f->global) {
        size_t asz = 0;
        uint64_t base = mem_find(f->addr, &asz, NULL);
        fprintf(js, ",\"allocation\":%llu,\"allocation_size\":%zu,\"offset\":%llu",
                (unsigned long long)base, asz, (unsigned long long)(f->addr - base));
    }
    if (f->kind <= K_WAW) {   /* what would order them */
        char hint[800];
        if (f->launch1 == RACE_LOG(L)->cur) order_hint(L, f, hint, sizeof hint);
        else snprintf(hint, sizeof hint, "%s", STREAMS_HINT);
        fputs(",\"hint\":", js);
        report_str(js, hint);
    }
    if (f->kind == K_PARITY) fprintf(js, ",\"phase\":%lld", (long long)f->addr - 1);
    if (f->kind == K_TX) fprintf(js, ",\"phase\":%llu", (unsigned long long)f->addr);
    fprintf(js, "}\n");
}

int race_report(Launch *L)
{
    RaceLog *g = RACE_LOG(L);
    if (!g) return 0;
    if (g->full)
        fprintf(stderr, "ptxemu: racecheck: kernel %s: the detector ran out of room for its shadow or "
                "access log; some accesses were not checked\n", L->prog->dname);
    if (getenv("PTXEMU_STATS")) {
        size_t lb = (size_t)g->glog.cap * sizeof(Acc);
        if (lb > g->logbytes_peak) g->logbytes_peak = lb;
        fprintf(stderr, "ptxemu: racecheck: kernel %s: shadow peak %zu bytes for %zu bytes of checked "
                "allocations (%.2fx; resident shared memory and the global allocations touched), "
                "access logs peak %zu bytes (%u compactions)\n", L->prog->dname, g->shadow_peak,
                g->checked_peak, g->checked_peak ? (double)g->shadow_peak / (double)g->checked_peak : 0.0,
                g->logbytes_peak, g->compactions);
    }
    if (!g->n) return 0;
    const char *path = getenv("PTXEMU_REPORT");
    FILE *js = path && *path ? fopen(path, "a") : NULL;
    for (uint32_t i = 0; i < g->n; i++) {
        print_finding(L, &g->f[i]);
        if (js) json_finding(js, L, &g->f[i]);
    }
    if (g->dropped)
        fprintf(stderr, "ptxemu: race: %u more distinct hazards not shown\n", g->dropped);
    static int hinted;
    if (L->prog->nlocs <= 1 && !hinted++)
        fprintf(stderr, "ptxemu: race: kernel %s has no CUDA source lines: rebuild with -lineinfo to "
                "see them (PTXEMU_DUMP_PTX=DIR writes the PTX the lines above refer to)\n", L->prog->dname);
    if (js) fclose(js);
    return (int)g->n;
}

/* The races a host copy met: printed, and written as JSON lines to PTXEMU_REPORT. */
void race_report_copy(const RaceLog *g, const HostCopyFinding *fs, uint32_t n, uint32_t dropped)
{
    if (!n) return;
    const RaceLaunch *now = &g->launches[g->cur];
    const char *path = getenv("PTXEMU_REPORT");
    FILE *js = path && *path ? fopen(path, "a") : NULL;
    char sn[64], sn1[64], a[400];
    stream_name(now->stream, sn, sizeof sn);
    for (uint32_t i = 0; i < n; i++) {
        const HostCopyFinding *f = &fs[i];
        const RaceLaunch *r1 = &g->launches[f->launch1];
        size_t asz = 0;
        uint64_t base = mem_find(f->addr, &asz, NULL);
        const char *k = kind_name[f->kind], *times = f->count == 1 ? "" : "s";   /* words */
        fprintf(stderr, "ptxemu: race: %s in global memory at 0x%llx (offset %llu of a %zu-byte "
                "allocation at 0x%llx): ", k, (unsigned long long)f->addr,
                (unsigned long long)(f->addr - base), asz, (unsigned long long)base);
        if (r1->prog) {
            uint32_t b1[3], t1[3];
            where(r1->prog, f->pc1, a, sizeof a);
            coords(r1->grid, f->cta1, b1); coords(r1->block, f->t1, t1);
            fprintf(stderr, "block (%u,%u,%u) thread (%u,%u,%u) of kernel %s at %s, launched earlier, "
                    "and the host's %s on %s, which no stream order, event or synchronisation puts "
                    "after that launch: synchronise the kernel's stream, or make the copy's stream wait "
                    "for an event recorded after the launch (cudaStreamWaitEvent) (%u word%s)\n",
                    b1[0], b1[1], b1[2], t1[0], t1[1], t1[2], r1->prog->dname, a, now->api, sn,
                    f->count, times);
        } else {
            stream_name(r1->stream, sn1, sizeof sn1);
            fprintf(stderr, "the host's %s on %s and its %s on %s, issued earlier, which no stream order, "
                    "event or synchronisation puts one after the other (%u word%s)\n",
                    now->api, sn, r1->api, sn1, f->count, times);
        }
        if (js) {
            fprintf(js, "{\"kind\":\"%s\",\"space\":\"global\",\"address\":%llu,\"host_copy\":\"%s\","
                    "\"count\":%u,\"accesses\":[", k, (unsigned long long)f->addr, now->api, f->count);
            json_access(js, r1, f->pc1, f->cta1, f->t1);
            fputc(',', js);
            json_access(js, now, 0, 0, 0);
            fprintf(js, "],\"allocation\":%llu,\"allocation_size\":%zu,\"offset\":%llu,\"hint\":\"%s\"}\n",
                    (unsigned long long)base, asz, (unsigned long long)(f->addr - base), STREAMS_HINT);
        }
    }
    if (dropped) fprintf(stderr, "ptxemu: race: %u more distinct hazards of the host's %s not shown\n", dropped, now->api);
    if (js) fclose(js);
}
