/* explore.c - `ptxemu race`: run a program under many seeds of deterministic mode and stop
 * at the first seed whose output or exit status differs from the reference seed's, or
 * that reports a hazard (a race, fault, deadlock, time limit, undefined behaviour or an
 * access past an allocation, read from the run's PTXEMU_REPORT lines); print the command
 * that replays it.
 *
 * Seeds start..start+N-1 are split over shards (--shard I/N takes every N-th, from I) so
 * that batch systems can run them in parallel; every shard compares with the same
 * reference run (seed `start`). Up to --jobs programs run at once. Every run has the race
 * detector on (PTXEMU_RACECHECK=1; --no-racecheck turns it off): a racy program whose every
 * seed fails the same way still gets its report. On a terminal a progress line (seeds done,
 * rate, time left) is kept up to date on stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "explore.h"

typedef struct Run { pid_t pid; unsigned long long seed; char out[64], err[64], rep[64]; int status; } Run;

static int racecheck = 1;

static int start_run(Run *r, unsigned long long seed, char **prog, const char *dir)
{
    r->seed = seed;
    snprintf(r->out, sizeof r->out, "%s/%llu.out", dir, seed);
    snprintf(r->err, sizeof r->err, "%s/%llu.err", dir, seed);
    snprintf(r->rep, sizeof r->rep, "%s/%llu.json", dir, seed);
    r->pid = fork();
    if (r->pid < 0) return -1;
    if (r->pid == 0) {
        char s[32];
        snprintf(s, sizeof s, "%llu", seed);
        setenv("PTXEMU_SEED", s, 1);
        if (racecheck) setenv("PTXEMU_RACECHECK", "1", 1);
        else unsetenv("PTXEMU_RACECHECK");
        setenv("PTXEMU_REPORT", r->rep, 1);   /* what the run found, by kind */
        if (!freopen(r->out, "w", stdout) || !freopen(r->err, "w", stderr)) _exit(126);
        execvp(prog[0], prog);
        _exit(127);
    }
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, k;
    char tmp[65536];
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (n + k > cap) {
            cap = (n + k) * 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
        }
        memcpy(buf + n, tmp, k);
        n += k;
    }
    fclose(f);
    if (!buf && !(buf = malloc(1))) return NULL;
    buf[n] = 0;
    *len = n;
    return buf;
}

/* A run's report (PTXEMU_REPORT lines) holds an error: anything but launches, CUDA errors
 * the program may handle, leaks, warnings and profiles - a race, a fault, a deadlock, a time limit,
 * undefined behaviour, or an access past an allocation that the GPU's pages tolerate (an
 * error as compute-sanitizer's memcheck counts it, though a plain run only warns). */
static int report_has_error(const char *rep)
{
    static const char *const benign[] = { "\"kind\":\"launch\"", "\"kind\":\"api_error\"",
                                          "\"kind\":\"leak\"", "\"kind\":\"warning\"",
                                          "\"kind\":\"profile\"" };
    for (const char *l = rep; l && *l;) {
        const char *nl = strchr(l, '\n');
        if (*l == '{') {
            int ok = 0;
            for (size_t i = 0; i < sizeof benign / sizeof benign[0]; i++)
                ok |= !strncmp(l + 1, benign[i], strlen(benign[i]));
            if (!ok) return 1;
        }
        l = nl ? nl + 1 : NULL;
    }
    return 0;
}

/* A hazard: a report of the race detector, a kernel fault or undefined behaviour on a run's
 * stderr, or any error in its report. */
static int reports_hazard(const char *err, const char *rep)
{
    return (err && (strstr(err, "ptxemu: race:") || strstr(err, "ptxemu: kernel ") ||
                    strstr(err, "ptxemu: undefined behaviour:"))) || report_has_error(rep);
}

static void print_replay(unsigned long long seed, char **prog)
{
    printf("replay: ptxemu --seed %llu%s", seed, racecheck ? " --racecheck" : "");
    for (int i = 0; prog[i]; i++) printf(" %s", prog[i]);
    printf("\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* On a terminal (stderr), one line that keeps being rewritten: seeds done of the total,
 * the rate, and the time left at that rate. Nothing when stderr is a file or a pipe. */
static void progress(int on, unsigned long long done, unsigned long long total, double t0)
{
    if (!on) return;
    double el = now_s() - t0, rate = el > 0 ? (double)done / el : 0;
    if (done >= total) { fprintf(stderr, "\r\033[K"); return; }   /* erased at the end */
    fprintf(stderr, "\r\033[Kptxemu race: %llu of %llu seeds done, %.2f seeds/s", done, total, rate);
    if (rate > 0) {
        unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);
        if (left >= 60) fprintf(stderr, ", about %lu min %02lu s left", left / 60, left % 60);
        else fprintf(stderr, ", about %lu s left", left);
    }
    fflush(stderr);
}

static int parse_uint(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return !*s || *end || errno ? -1 : 0;
}

int explore_main(int argc, char **argv)
{
    unsigned long long seeds = 100, jobs = 1, start = 1, shard = 0, nshards = 1;
    int i = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--racecheck") || !strcmp(a, "--no-racecheck")) { racecheck = a[2] == 'r'; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("usage: ptxemu race [--seeds N] [--jobs J] [--start S] [--shard I/N] [--no-racecheck] "
                   "PROGRAM [ARGS...]\n"
                   "Runs PROGRAM under seeds S..S+N-1 of deterministic mode (default 1..100), J at a time,\n"
                   "with the race detector on (--no-racecheck: off), and stops at the first seed whose\n"
                   "output or exit status differs from seed S's, or that reports a race or fault; prints\n"
                   "the command that replays it. --shard I/N runs every N-th seed from the I-th (CI).\n"
                   "Exit status: 0 nothing found, 1 found, 2 usage or system error.\n");
            return 0;
        }
        if (i + 1 >= argc) { fprintf(stderr, "ptxemu race: %s needs a value\n", a); return 2; }
        int bad = 0;
        if (!strcmp(a, "--seeds")) bad = parse_uint(argv[++i], &seeds) || !seeds;
        else if (!strcmp(a, "--jobs")) bad = parse_uint(argv[++i], &jobs) || !jobs || jobs > 256;
        else if (!strcmp(a, "--start")) bad = parse_uint(argv[++i], &start);
        else if (!strcmp(a, "--shard")) {
            char *slash = strchr(argv[++i], '/');
            if (!slash) bad = 1;
            else {
                *slash = 0;
                bad = parse_uint(argv[i], &shard) || parse_uint(slash + 1, &nshards) ||
                      !nshards || shard >= nshards;
            }
        } else { fprintf(stderr, "ptxemu race: unknown option %s\n", a); return 2; }
        if (bad) { fprintf(stderr, "ptxemu race: bad value for %s\n", a); return 2; }
    }
    if (i >= argc) {
        fprintf(stderr, "usage: ptxemu race [--seeds N] [--jobs J] [--start S] [--shard I/N] "
                        "[--no-racecheck] PROGRAM [ARGS...]\n");
        return 2;
    }
    char **prog = &argv[i];
    char dir[] = "/tmp/ptxemu-race.XXXXXX";
    if (!mkdtemp(dir)) { perror("ptxemu race: mkdtemp"); return 2; }
    unsigned long long first = start + 1 + shard;   /* this shard's seeds after the reference */
    unsigned long long total = 1 + (first < start + seeds ? (start + seeds - first + nshards - 1) / nshards : 0);
    int tty = isatty(STDERR_FILENO);
    double t0 = now_s();
    Run ref;
    size_t ref_len = 0, err_len = 0;
    if (start_run(&ref, start, prog, dir) < 0 || waitpid(ref.pid, &ref.status, 0) < 0) {
        perror("ptxemu race");
        return 2;
    }
    progress(tty, 1, total, t0);
    size_t rep_len;
    char *ref_out = slurp(ref.out, &ref_len), *ref_err = slurp(ref.err, &err_len);
    char *ref_rep = slurp(ref.rep, &rep_len);
    int found = 0;
    if (reports_hazard(ref_err, ref_rep)) {
        progress(tty, total, total, t0);
        printf("ptxemu race: seed %llu reports a hazard or fault:\n%s", start, ref_err);
        print_replay(start, prog);
        found = 1;
    }
    Run *runs = calloc(jobs, sizeof *runs);
    unsigned long long next = first, step = nshards, end = start + seeds, tried = 1;
    unsigned running = 0;
    while (!found && runs && (next < end || running)) {
        while (running < jobs && next < end && !found) {
            Run *r = NULL;
            for (unsigned k = 0; k < jobs; k++) if (!runs[k].pid) { r = &runs[k]; break; }
            if (start_run(r, next, prog, dir) < 0) { perror("ptxemu race: fork"); found = -1; break; }
            running++;
            next += step;
        }
        int st;
        pid_t p = wait(&st);
        if (p < 0) break;
        for (unsigned k = 0; k < jobs; k++) {
            Run *r = &runs[k];
            if (r->pid != p) continue;
            r->pid = 0;
            running--;
            tried++;
            size_t len, elen, rlen;
            char *out = slurp(r->out, &len), *err = slurp(r->err, &elen), *rep = slurp(r->rep, &rlen);
            int differs = !out || len != ref_len || memcmp(out, ref_out, len) || st != ref.status;
            progress(tty, tried, total, t0);
            if (!found && (differs || reports_hazard(err, rep))) {
                progress(tty, total, total, t0);
                found = 1;
                if (differs)
                    printf("ptxemu race: seed %llu gives different %s than seed %llu\n", r->seed,
                           st != ref.status ? "exit status" : "output", start);
                else
                    printf("ptxemu race: seed %llu reports a hazard or fault:\n%s", r->seed, err);
                print_replay(r->seed, prog);
            }
            free(out);
            free(err);
            free(rep);
            unlink(r->out);
            unlink(r->err);
            unlink(r->rep);
        }
    }
    if (found > 0)   /* let the runs still going finish quietly */
        for (unsigned k = 0; runs && k < jobs; k++)
            if (runs[k].pid) {
                kill(runs[k].pid, SIGTERM);
                waitpid(runs[k].pid, NULL, 0);
                unlink(runs[k].out);
                unlink(runs[k].err);
                unlink(runs[k].rep);
            }
    progress(tty, total, total, t0);
    if (!found) printf("ptxemu race: %llu seeds, all outputs identical to seed %llu, no hazard "
                       "reported%s\n", tried, start, racecheck ? " (race detector on)" : "");
    free(runs);
    free(ref_out);
    free(ref_err);
    free(ref_rep);
    unlink(ref.out);
    unlink(ref.err);
    unlink(ref.rep);
    rmdir(dir);
    return found > 0 ? 1 : found < 0 ? 2 : 0;
}
