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
        setenv("PTXEMU_REPORT", r->rep, 1);   /* what the run found, by kind */
        if (racecheck) setenv("PTXEMU_RACECHECK", "1", 1);
        else unsetenv("PTXEMU_RACECHECK");
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

const char *const explore_kind_names[] = { "output", "exit status", "hazard", "reference" };

/* A wait status as a shell would show it. */
static int exit_code(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void put_quoted(FILE *f, const char *a)
{
    if (*a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") ==
                  strlen(a)) {
        fputs(a, f);
        return;
    }
    fputc('\'', f);
    for (; *a; a++) {
        if (*a == '\'') fputs("'\\''", f);
        else fputc(*a, f);
    }
    fputc('\'', f);
}

char *explore_replay_command(unsigned long long seed, int rc, char *const *prog)
{
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len);
    if (!m) return NULL;
    fprintf(m, "ptxemu --seed %llu%s", seed, rc ? " --racecheck" : "");
    for (int i = 0; prog[i]; i++) {
        fputc(' ', m);
        put_quoted(m, prog[i]);
    }
    fclose(m);
    return line;
}

void explore_print_replay(FILE *f, unsigned long long seed, int rc, char *const *prog)
{
    char *c = explore_replay_command(seed, rc, prog);
    fprintf(f, "replay: %s\n", c ? c : "(out of memory)");
    free(c);
}

void explore_print_finding(FILE *f, const Finding *fd)
{
    switch (fd->kind) {
    case FIND_HAZARD:
        fprintf(f, "ptxemu race: seed %llu reports a hazard or fault:\n%s", fd->seed,
                fd->report ? fd->report : "");
        break;
    case FIND_STATUS:
        fprintf(f, "ptxemu race: seed %llu gives different exit status than seed %llu (%d, not %d)\n",
                fd->seed, fd->ref_seed, fd->status, fd->ref_status);
        break;
    case FIND_OUTPUT:
        fprintf(f, "ptxemu race: seed %llu gives different output than seed %llu\n", fd->seed,
                fd->ref_seed);
        if (fd->line > 0)
            fprintf(f, "  line %ld, seed %llu: %s\n  line %ld, seed %llu: %s\n", fd->line, fd->ref_seed,
                    fd->ref_line ? fd->ref_line : "(no such line)", fd->line, fd->seed,
                    fd->seed_line ? fd->seed_line : "(no such line)");
        break;
    case FIND_REFERENCE:
        fprintf(f, "ptxemu race: seed %llu gives different output or exit status in %s than in %s\n",
                fd->seed, fd->where, fd->ref_where);
        break;
    }
}

void explore_put_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* FNV-1a, 64 bits: the shards compare their reference outputs by it. */
static unsigned long long fnv1a(const char *s, size_t n)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* The first line where a and b differ (1-based), copied into *la / *lb (NULL past the end). */
static long first_difference(const char *a, size_t na, const char *b, size_t nb, char **la, char **lb)
{
    size_t i = 0, line_start = 0;
    long line = 1;
    while (i < na && i < nb && a[i] == b[i]) {
        if (a[i] == '\n') { line++; line_start = i + 1; }
        i++;
    }
    const char *ea = memchr(a + line_start, '\n', na - line_start);
    const char *eb = memchr(b + line_start, '\n', nb - line_start);
    size_t lena = ea ? (size_t)(ea - a) - line_start : na - line_start;
    size_t lenb = eb ? (size_t)(eb - b) - line_start : nb - line_start;
    *la = line_start < na ? strndup(a + line_start, lena > 200 ? 200 : lena) : NULL;
    *lb = line_start < nb ? strndup(b + line_start, lenb > 200 ? 200 : lenb) : NULL;
    return line;
}

static int parse_uint(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 0);
    return !*s || *end || errno ? -1 : 0;
}

/* The shard's document for `ptxemu race --merge` (docs/cluster.md). */
typedef struct Shard {
    unsigned long long start, seeds, shard, nshards, tried;
    int ref_status;
    size_t ref_len;
    unsigned long long ref_hash;
} Shard;

static int write_json(const char *path, char **prog, const Shard *sh, const Finding *fd,
                      const char *error)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "ptxemu race: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    char host[256] = "", cwd[4096] = "";
    gethostname(host, sizeof host - 1);
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
    fputs("{\"ptxemu_race\":1,\n\"program\":[", f);
    for (int i = 0; prog[i]; i++) {
        if (i) fputc(',', f);
        explore_put_json_str(f, prog[i]);
    }
    fputs("],\n\"host\":", f);
    explore_put_json_str(f, host);
    fputs(",\"cwd\":", f);
    explore_put_json_str(f, cwd);
    fprintf(f, ",\n\"start\":%llu,\"seeds\":%llu,\"shard\":%llu,\"shards\":%llu,\"racecheck\":%s,"
            "\"tried\":%llu,\n", sh->start, sh->seeds, sh->shard, sh->nshards,
            racecheck ? "true" : "false", sh->tried);
    fprintf(f, "\"reference\":{\"seed\":%llu,\"exit_status\":%d,\"output_bytes\":%zu,"
            "\"output_fnv1a64\":\"%016llx\"},\n", sh->start, sh->ref_status, sh->ref_len, sh->ref_hash);
    fprintf(f, "\"result\":\"%s\",\n\"finding\":", error ? "error" : fd ? "found" : "clean");
    if (fd) {
        fprintf(f, "{\"seed\":%llu,\"kind\":\"%s\",\"exit_status\":%d,", fd->seed,
                explore_kind_names[fd->kind], fd->status);
        if (fd->kind == FIND_OUTPUT) {
            fprintf(f, "\"line\":%ld,\"reference_line\":", fd->line);
            if (fd->ref_line) explore_put_json_str(f, fd->ref_line); else fputs("null", f);
            fputs(",\"seed_line\":", f);
            if (fd->seed_line) explore_put_json_str(f, fd->seed_line); else fputs("null", f);
            fputc(',', f);
        }
        fputs("\"report\":", f);
        explore_put_json_str(f, fd->report ? fd->report : "");
        char *replay = explore_replay_command(fd->seed, racecheck, prog);
        fputs(",\n \"replay\":", f);
        explore_put_json_str(f, replay ? replay : "");
        free(replay);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    if (error) {
        fputs(",\n\"error\":", f);
        explore_put_json_str(f, error);
    }
    fputs("\n}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "ptxemu race: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static const char usage_line[] =
    "usage: ptxemu race [--seeds N] [--jobs J] [--start S] [--shard I/N] [--json FILE]\n"
    "                   [--no-racecheck] PROGRAM [ARGS...]\n"
    "       ptxemu race --merge FILE...\n";

/* Fills fd for a seed whose run differs from the reference or reports a hazard; 0 if it does
 * neither. The strings it points at are malloc'd into *l1, *l2 or are err itself. */
static int judge(Finding *fd, unsigned long long seed, unsigned long long start, int st, int ref_st,
                 const char *out, size_t len, const char *ref_out, size_t ref_len, const char *err,
                 const char *rep, char **l1, char **l2)
{
    memset(fd, 0, sizeof *fd);
    fd->seed = seed;
    fd->ref_seed = start;
    fd->status = exit_code(st);
    fd->ref_status = exit_code(ref_st);
    if (seed != start && st != ref_st) { fd->kind = FIND_STATUS; return 1; }
    if (seed != start && (!out || len != ref_len || memcmp(out, ref_out, len))) {
        fd->kind = FIND_OUTPUT;
        if (out) fd->line = first_difference(ref_out, ref_len, out, len, l1, l2);
        fd->ref_line = *l1;
        fd->seed_line = *l2;
        return 1;
    }
    if (reports_hazard(err, rep)) {
        fd->kind = FIND_HAZARD;
        fd->report = err;
        return 1;
    }
    return 0;
}

int explore_main(int argc, char **argv)
{
    unsigned long long seeds = 100, jobs = 1, start = 1, shard = 0, nshards = 1;
    const char *json = NULL;
    int i = 0;
    if (argc > 0 && !strcmp(argv[0], "--merge")) {
        if (argc < 2) { fputs(usage_line, stderr); return 2; }
        return race_merge_main(argc - 1, argv + 1);
    }
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--racecheck") || !strcmp(a, "--no-racecheck")) { racecheck = a[2] == 'r'; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            printf("%s", usage_line);
            printf("Runs PROGRAM under seeds S..S+N-1 of deterministic mode (default 1..100), J at a time,\n"
                   "with the race detector on (--no-racecheck: off), and stops at the first seed whose\n"
                   "output or exit status differs from seed S's, or that reports a race, fault, deadlock,\n"
                   "undefined behaviour or an access past an allocation; prints\n"
                   "the command that replays it. --shard I/N runs every N-th seed from the I-th (CI,\n"
                   "a Slurm job array); --json FILE writes the shard's result as JSON, and --merge reads\n"
                   "the files of all shards and answers as one run over all the seeds would\n"
                   "(docs/cluster.md).\n"
                   "Exit status: 0 nothing found, 1 found, 2 usage or system error.\n");
            return 0;
        }
        if (!strcmp(a, "--merge")) { fprintf(stderr, "ptxemu race: --merge takes only files\n"); return 2; }
        if (i + 1 >= argc) { fprintf(stderr, "ptxemu race: %s needs a value\n", a); return 2; }
        int bad = 0;
        if (!strcmp(a, "--seeds")) bad = parse_uint(argv[++i], &seeds) || !seeds;
        else if (!strcmp(a, "--jobs")) bad = parse_uint(argv[++i], &jobs) || !jobs || jobs > 256;
        else if (!strcmp(a, "--start")) bad = parse_uint(argv[++i], &start);
        else if (!strcmp(a, "--json")) json = argv[++i];
        else if (!strcmp(a, "--shard")) {
            char *slash = strchr(argv[++i], '/');
            if (!slash) bad = 1;
            else {
                *slash = 0;
                bad = parse_uint(argv[i], &shard) || parse_uint(slash + 1, &nshards) ||
                      !nshards || shard >= nshards;
                *slash = '/';
            }
        } else { fprintf(stderr, "ptxemu race: unknown option %s\n", a); return 2; }
        if (bad) { fprintf(stderr, "ptxemu race: bad value for %s\n", a); return 2; }
    }
    if (i >= argc) {
        fputs(usage_line, stderr);
        return 2;
    }
    char **prog = &argv[i];
    Shard sh = { start, seeds, shard, nshards, 0, 0, 0, 0 };
    char dir[] = "/tmp/ptxemu-race.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("ptxemu race: mkdtemp");
        if (json) write_json(json, prog, &sh, NULL, "cannot make a temporary folder");
        return 2;
    }
    unsigned long long first = start + 1 + shard;   /* this shard's seeds after the reference */
    unsigned long long total = 1 + (first < start + seeds ? (start + seeds - first + nshards - 1) / nshards : 0);
    int tty = isatty(STDERR_FILENO);
    double t0 = now_s();
    Run ref;
    size_t ref_len = 0, err_len = 0, rep_len = 0;
    fflush(NULL);
    if (start_run(&ref, start, prog, dir) < 0 || waitpid(ref.pid, &ref.status, 0) < 0) {
        perror("ptxemu race");
        if (json) write_json(json, prog, &sh, NULL, "cannot run the program");
        rmdir(dir);
        return 2;
    }
    progress(tty, 1, total, t0);
    char *ref_out = slurp(ref.out, &ref_len), *ref_err = slurp(ref.err, &err_len);
    char *ref_rep = slurp(ref.rep, &rep_len);
    if (!ref_out) { ref_out = strdup(""); ref_len = 0; }
    sh.ref_status = exit_code(ref.status);
    sh.ref_len = ref_len;
    sh.ref_hash = fnv1a(ref_out ? ref_out : "", ref_len);
    int found = 0;
    Finding fd;
    char *l1 = NULL, *l2 = NULL, *found_err = NULL;
    if (judge(&fd, start, start, ref.status, ref.status, ref_out, ref_len, ref_out, ref_len, ref_err,
              ref_rep, &l1, &l2))
        found = 1;
    Run *runs = calloc(jobs, sizeof *runs);
    unsigned long long next = first, step = nshards, end = start + seeds, tried = 1;
    unsigned running = 0;
    if (!runs) found = -1;
    while (!found && (next < end || running)) {
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
            size_t len = 0, elen, rlen;
            char *out = slurp(r->out, &len), *err = slurp(r->err, &elen), *rep = slurp(r->rep, &rlen);
            progress(tty, tried, total, t0);
            if (!found && judge(&fd, r->seed, start, st, ref.status, out, len, ref_out, ref_len, err,
                                rep, &l1, &l2)) {
                found = 1;
                found_err = err;   /* fd.report may point at it */
                err = NULL;
            }
            free(out);
            free(err);
            free(rep);
            unlink(r->out);
            unlink(r->err);
            unlink(r->rep);
        }
    }
    progress(tty, total, total, t0);   /* erased */
    if (found > 0) {
        explore_print_finding(stdout, &fd);
        explore_print_replay(stdout, fd.seed, racecheck, prog);
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
    if (!found) printf("ptxemu race: %llu seeds, all outputs identical to seed %llu, no hazard "
                       "reported%s\n", tried, start, racecheck ? " (race detector on)" : "");
    sh.tried = tried;
    int rc = found > 0 ? 1 : found < 0 ? 2 : 0;
    if (json && write_json(json, prog, &sh, found > 0 ? &fd : NULL,
                           found < 0 ? "cannot start the runs" : NULL) != 0)
        rc = 2;
    free(runs);
    free(ref_out);
    free(ref_err);
    free(ref_rep);
    free(found_err);
    free(l1);
    free(l2);
    unlink(ref.out);
    unlink(ref.err);
    unlink(ref.rep);
    rmdir(dir);
    return rc;
}
