/* main.c - measures each backend on each kernel: compile latency (cold, median of several;
 * and the C backend's cache hit), then the run time of the generated code on the fixed
 * workload against native C and the interpreter, in alternating rounds in one run, and checks
 * that every one of them writes the same bytes.
 *
 *   jitcmp [--scale N] [--reps N] [--rounds N] [--kernel NAME] [--backend NAME]...
 *          [--dump DIR]     write the generated C and LLVM IR of each kernel there and stop
 *          [--count]        run each selected backend once under callgrind's collection
 *                           (valgrind --tool=callgrind --collect-atstart=no); see run.sh
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include "jitcmp.h"

typedef struct Entry {
    const Backend *be;          /* NULL: interpreter or native */
    const char *name;
    BlockFn fn;
    void *handle;
    double emit, compile, load, total;    /* medians of the cold compiles, wall ms */
    double cpu;                           /* median CPU ms of a cold compile (with children) */
    double hit_hash, hit_load;            /* medians of the cache hits (C backend), ms */
    double best, runs[64];
    int nruns, ok;
} Entry;

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmpd);
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

static const char *sel_kernel[K_COUNT], *sel_backend[32];
static int nsel_kernel, nsel_backend;

static int selected(const char *const *sel, int n, const char *name)
{
    if (!n) return 1;
    for (int i = 0; i < n; i++)
        if (!strcmp(sel[i], name) || strstr(name, sel[i]) == name) return 1;
    return 0;
}

/* Cold compiles: reps times from nothing (the on-disk cache emptied first); then reps
 * cache hits (C and LLVM), the last of which is the code that runs. */
static int measure_compile(Entry *e, const Prog *pg, int reps)
{
    double em[64], co[64], lo[64], to[64], cp[64], hh[64], hl[64];
    int nh = 0, c = !strcmp(e->be->family, "c"), ll = !strcmp(e->be->family, "llvm");
    const char *dir = getenv("JITCMP_CACHE") ? getenv("JITCMP_CACHE") : "/tmp/jitcmp-cache";
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && rm -f %s/*.so %s/*.o", dir, dir, dir);
    for (int r = 0; r < reps; r++) {
        if (system(cmd)) return -1;
        void *h = NULL;
        double t0 = now_ms(), c0 = cpu_ms();
        BlockFn fn = e->be->compile(e->be, pg, &h, &em[r], &co[r], &lo[r]);
        to[r] = now_ms() - t0;
        cp[r] = cpu_ms() - c0;
        if (!fn) return -1;
        if (r == reps - 1 && !c && !ll) { e->fn = fn; e->handle = h; }
        else e->be->release(h);
    }
    for (int r = 0; (c || ll) && r < reps; r++) {
        void *h;
        BlockFn fn = c ? c_cache_lookup(e->be, pg, &h, &hh[nh], &hl[nh])
                       : llvm_cache_lookup(e->be, pg, &h, &hh[nh], &hl[nh]);
        if (!fn) return -1;
        nh++;
        if (r == reps - 1) { e->fn = fn; e->handle = h; }
        else e->be->release(h);
    }
    e->emit = median(em, reps); e->compile = median(co, reps); e->load = median(lo, reps);
    e->total = median(to, reps);
    e->cpu = median(cp, reps);
    e->hit_hash = nh ? median(hh, nh) : -1;
    e->hit_load = nh ? median(hl, nh) : -1;
    return 0;
}

/* JITCMP_KEEP=dir: copy the file the compile wrote to dir/KERNEL.BACKEND.EXT for objdump */
static void keep(const char *kernel, const char *backend)
{
    const char *dir = getenv("JITCMP_KEEP");
    if (!dir || !last_object[0]) return;
    char name[64], path[400];
    snprintf(name, sizeof name, "%s", backend);
    for (char *c = name; *c; c++) if (*c == ' ') *c = '_';
    const char *ext = strrchr(last_object, '.');
    snprintf(path, sizeof path, "%s/%s.%s%s", dir, kernel, name, ext ? ext : "");
    FILE *in = fopen(last_object, "rb"), *out = in ? fopen(path, "wb") : NULL;
    char buf[65536];
    size_t k;
    while (out && (k = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, k, out);
    if (in) fclose(in);
    if (out) fclose(out);
}

static void dump(const char *dir)
{
    for (int k = 0; k < K_COUNT; k++) {
        Prog pg;
        prog_build(&pg, k);
        char path[300];
        snprintf(path, sizeof path, "%s/%s.c", dir, kernel_name[k]);
        char *t = c_emit_text(&c_backends[2], &pg);
        FILE *f = fopen(path, "w");
        if (f) { fputs(t, f); fclose(f); }
        free(t);
        snprintf(path, sizeof path, "%s/%s.vec.c", dir, kernel_name[k]);
        t = c_emit_text(&c_backends[7], &pg);   /* cc vec -O2 native */
        f = fopen(path, "w");
        if (f) { fputs(t, f); fclose(f); }
        free(t);
        snprintf(path, sizeof path, "%s/%s.ll", dir, kernel_name[k]);
        t = llvm_emit_text(&pg, "block");
        f = fopen(path, "w");
        if (f) { fputs(t, f); fclose(f); }
        free(t);
        printf("dump: kernel=%s insts=%d rows=%d\n", kernel_name[k], pg.n, pg.nrows);
        prog_free(&pg);
    }
}

int main(int argc, char **argv)
{
    int scale = 4, reps = 5, rounds = 7, count = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--scale") && i + 1 < argc) scale = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc) sel_kernel[nsel_kernel++] = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc && nsel_backend < 32) sel_backend[nsel_backend++] = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc) { dump(argv[++i]); return 0; }
        else if (!strcmp(argv[i], "--count")) count = 1;
        else { fprintf(stderr, "usage: see main.c\n"); return 2; }
    }
    if (reps < 1 || reps > 64 || rounds < 1 || rounds > 64) { fprintf(stderr, "jitcmp: 1..64\n"); return 2; }

    /* every backend variant, then the two references */
    Entry all[40];
    int n = 0;
    const Backend *lists[3] = { c_backends, gccjit_backends, llvm_backends };
    int counts[3] = { n_c_backends, n_gccjit_backends, n_llvm_backends };
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < counts[f]; i++)
            if (selected(sel_backend, nsel_backend, lists[f][i].name))
                all[n++] = (Entry){ .be = &lists[f][i], .name = lists[f][i].name };

    int any_llvm = 0;
    for (int i = 0; i < n; i++) any_llvm |= !strcmp(all[i].be->family, "llvm");
    if (any_llvm && !count) printf("setup: llvm_first_lljit_ms=%.2f\n", llvm_setup_ms());

    for (int k = 0; k < K_COUNT; k++) {
        if (!selected(sel_kernel, nsel_kernel, kernel_name[k])) continue;
        Prog pg;
        prog_build(&pg, k);
        Work *wk = work_new(k, &pg, scale);
        work_run(wk, NULL);
        uint64_t want = work_digest(wk);
        int has_native = work_native(wk) >= 0;
        if (has_native) {
            work_reset(wk);
            work_native(wk);
            if (work_digest(wk) != want) printf("warning: kernel=%s native digest differs\n", pg.name);
        }
        printf("kernel: name=%s insts=%d rows=%d scale=%d\n", pg.name, pg.n, pg.nrows, scale);
        fflush(stdout);
        Entry e[42];
        for (int i = 0; i < n; i++) {
            e[i] = all[i];
            last_object[0] = 0;
            if (measure_compile(&e[i], &pg, count ? 1 : reps)) {
                printf("compile: kernel=%s backend=\"%s\" FAILED\n", pg.name, e[i].name);
                e[i].fn = NULL;
                continue;
            }
            keep(pg.name, e[i].name);
            work_reset(wk);
            work_run(wk, e[i].fn);
            e[i].ok = work_digest(wk) == want;
            if (!count) {
                printf("compile: kernel=%s backend=\"%s\" cpu_ms=%.2f wall_ms=%.2f emit_ms=%.2f "
                       "compile_ms=%.2f load_ms=%.2f", pg.name, e[i].name, e[i].cpu, e[i].total, e[i].emit, e[i].compile, e[i].load);
                if (e[i].hit_hash >= 0)
                    printf(" hit_hash_ms=%.3f hit_load_ms=%.3f", e[i].hit_hash, e[i].hit_load);
                printf(" same_bytes=%s\n", e[i].ok ? "yes" : "NO");
                fflush(stdout);
            }
        }
        int ni = n, nat = -1, itp = n;
        e[ni++] = (Entry){ .name = "interpreter", .ok = 1 };
        if (has_native) { nat = ni; e[ni++] = (Entry){ .name = "native C", .ok = 1 }; }

        if (count) {
            /* one run each under callgrind's collection; compiles stay outside it */
            for (int i = 0; i < ni; i++) {
                if (i < n && !e[i].fn) continue;
                work_reset(wk);
                CALLGRIND_ZERO_STATS;
                CALLGRIND_TOGGLE_COLLECT;
                if (i == nat) work_native(wk); else work_run(wk, i < n ? e[i].fn : NULL);
                CALLGRIND_TOGGLE_COLLECT;
                char what[128];
                snprintf(what, sizeof what, "kernel=%s backend=%s", pg.name, e[i].name);
                CALLGRIND_DUMP_STATS_AT(what);
            }
        } else {
            /* alternating rounds: each round runs every entry once, in turn */
            for (int r = 0; r < rounds; r++)
                for (int i = 0; i < ni; i++) {
                    if (i < n && !e[i].fn) continue;
                    work_reset(wk);
                    double s = i == nat ? work_native(wk) : work_run(wk, i < n ? e[i].fn : NULL);
                    e[i].runs[e[i].nruns++] = s;
                }
            double base = nat >= 0 ? median(e[nat].runs, e[nat].nruns) : 0;
            double interp = median(e[itp].runs, e[itp].nruns);
            for (int i = 0; i < ni; i++) {
                if (!e[i].nruns) continue;
                double best = e[i].runs[0];
                for (int j = 1; j < e[i].nruns; j++) if (e[i].runs[j] < best) best = e[i].runs[j];
                double med = median(e[i].runs, e[i].nruns);
                double bnat = nat >= 0 ? e[nat].runs[0] : 0;
                printf("run: kernel=%s backend=\"%s\" median_s=%.4f min_s=%.4f", pg.name, e[i].name, med, best);
                if (nat >= 0) printf(" vs_native=%.2f vs_native_min=%.2f", med / base, best / bnat);
                printf(" vs_interp=%.2f same_bytes=%s\n", med / interp, e[i].ok ? "yes" : "NO");
            }
        }
        fflush(stdout);
        for (int i = 0; i < n; i++) if (e[i].fn) e[i].be->release(e[i].handle);
        work_free(wk);
        prog_free(&pg);
    }
    return 0;
}
