/* report.c - the run document of `ptxemu --report-json` (see report.h).
 *
 * The library appends one JSON object a line to PTXEMU_REPORT as things happen; here the
 * program runs as a child with PTXEMU_REPORT on a file of ours, PTXEMU_REPORT_LAUNCHES=1 (a
 * line per launch) and PTXEMU_LEAKCHECK=1, and once it exits the lines are sorted by kind
 * into one document. A PTXEMU_REPORT the user set gets every line as it comes (copied while
 * the program runs). A SIGTERM, SIGINT or SIGALRM that reaches ptxemu goes on to the
 * program, which ends its report with a "stopped" record (emu/stop.c); ptxemu then writes
 * the document all the same, with such a record of its own if the program died without one
 * (SIGKILL). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "report.h"

enum { R_LAUNCH, R_FAULT, R_RACE, R_DEADLOCK, R_TIMEOUT, R_API, R_LEAK, R_WARN, R_UNDEF, R_OOB,
       R_PROFILE, R_STOP, R_N };
static const char *const section[R_N] = { "launches", "faults", "races", "deadlocks", "timeouts",
                                          "api_errors", "leaks", "warnings", "undefined",
                                          "out_of_bounds", "profiles", "stopped" };

static int kind_of(const char *line)
{
    static const struct { const char *k; int r; } map[] = {
        { "\"kind\":\"launch\"", R_LAUNCH }, { "\"kind\":\"fault\"", R_FAULT },
        { "\"kind\":\"deadlock\"", R_DEADLOCK }, { "\"kind\":\"timeout\"", R_TIMEOUT },
        { "\"kind\":\"api_error\"", R_API }, { "\"kind\":\"leak\"", R_LEAK },
        { "\"kind\":\"warning\"", R_WARN }, { "\"kind\":\"undefined\"", R_UNDEF },
        { "\"kind\":\"out-of-bounds\"", R_OOB }, { "\"kind\":\"profile\"", R_PROFILE },
        { "\"kind\":\"stopped\"", R_STOP } };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strncmp(line + 1, map[i].k, strlen(map[i].k))) return map[i].r;
    return R_RACE;   /* the detector names its kinds: read-after-write, ... */
}

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

/* Writes the document; returns how many faults, races, deadlocks, time limits, undefined
 * behaviours and out-of-bounds accesses it holds. refused: the launcher's message when it
 * did not start the program (lines is then NULL), else NULL. A program killed by a signal
 * that left no "stopped" record gets one (also in user, the user's PTXEMU_REPORT, which has
 * the program's own lines already). */
static int write_doc(FILE *out, FILE *lines, char **argv, int status, FILE *user, const char *refused)
{
    int stopped = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    char **items[R_N] = {0};
    size_t count[R_N] = {0};
    while (lines && (n = getline(&buf, &cap, lines)) > 0) {
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
        if (n < 2 || buf[0] != '{') continue;
        int k = kind_of(buf);
        stopped |= k == R_STOP;
        char **grown = realloc(items[k], (count[k] + 1) * sizeof *grown);
        if (!grown) break;
        items[k] = grown;
        items[k][count[k]++] = strdup(buf);
    }
    free(buf);
    if (!stopped && WIFSIGNALED(status)) {
        char rec[200];
        snprintf(rec, sizeof rec, "{\"kind\":\"stopped\",\"signal\":%d,\"name\":\"%s\",\"message\":\"the program "
                 "was killed by signal %d before it could end its report\"}", WTERMSIG(status),
                 WTERMSIG(status) == SIGKILL ? "SIGKILL" : "signal", WTERMSIG(status));
        char **grown = realloc(items[R_STOP], (count[R_STOP] + 1) * sizeof *grown);
        if (grown) {
            items[R_STOP] = grown;
            items[R_STOP][count[R_STOP]++] = strdup(rec);
            if (user) fprintf(user, "%s\n", rec);
        }
    }
    fputs("{\"program\":[", out);
    for (int i = 0; argv[i]; i++) {
        if (i) fputc(',', out);
        put_str(out, argv[i]);
    }
    fputs("],\n", out);
    if (WIFEXITED(status)) fprintf(out, "\"exit_status\":%d,\"signal\":null,\n", WEXITSTATUS(status));
    else fprintf(out, "\"exit_status\":null,\"signal\":%d,\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    fputs("\"refused\":", out);
    if (refused) put_str(out, refused);
    else fputs("null", out);
    fputs(",\n", out);
    int errors = (int)(count[R_FAULT] + count[R_RACE] + count[R_DEADLOCK] + count[R_TIMEOUT] +
                       count[R_UNDEF] + count[R_OOB]);
    fprintf(out, "\"errors\":%d,\n", errors);
    for (int k = 0; k < R_N; k++) {
        fprintf(out, "\"%s\":[", section[k]);
        for (size_t i = 0; i < count[k]; i++) {
            fprintf(out, "%s\n  %s", i ? "," : "", items[k][i] ? items[k][i] : "null");
            free(items[k][i]);
        }
        free(items[k]);
        fprintf(out, "%s]%s\n", count[k] ? "\n" : "", k + 1 < R_N ? "," : "");
    }
    fputs("}\n", out);
    return errors;
}

static volatile pid_t child;

static void forward(int sig)
{
    if (child > 0) kill(child, sig);
}

/* Appends the complete lines of path from byte `from` on to out; returns where it stopped. */
static long copy_lines(const char *path, long from, FILE *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return from;
    if (fseek(f, from, SEEK_SET) == 0) {
        char *buf = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&buf, &cap, f)) > 0 && buf[n - 1] == '\n') {
            fwrite(buf, 1, (size_t)n, out);
            from += n;
        }
        free(buf);
        fflush(out);
    }
    fclose(f);
    return from;
}

int report_run(char **argv, const char *json, int exit_on_error)
{
    char tmp[] = "/tmp/ptxemu-report.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) { perror("ptxemu: report"); return 1; }
    close(fd);
    const char *user_path = getenv("PTXEMU_REPORT");
    char *user = user_path && *user_path ? strdup(user_path) : NULL;
    setenv("PTXEMU_REPORT", tmp, 1);
    setenv("PTXEMU_REPORT_LAUNCHES", "1", 1);
    if (json && !getenv("PTXEMU_LEAKCHECK")) setenv("PTXEMU_LEAKCHECK", "1", 1);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) { perror("ptxemu: fork"); unlink(tmp); free(user); return 1; }
    if (pid == 0) {
        execvp(argv[0], argv);
        int err = errno;
        fprintf(stderr, "ptxemu: %s: %s\n", argv[0], err == ENOENT ? "command not found" : strerror(err));
        _exit(err == ENOENT || err == ENOTDIR ? 127 : 126);
    }
    /* a signal meant to stop the run goes on to the program, which ends its report and dies
     * by it; ptxemu waits for it and still writes the document */
    child = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGQUIT, SIG_IGN);
    FILE *uf = user ? fopen(user, "a") : NULL;
    int status = 0;
    long copied = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) break;
        if (uf) copied = copy_lines(tmp, copied, uf);   /* the user's file follows as lines come */
        struct timespec ts = { 0, 20 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (uf) copy_lines(tmp, copied, uf);
    FILE *lines = fopen(tmp, "r"), *out = json ? fopen(json, "w") : fopen("/dev/null", "w");
    int errors = 0;
    if (!out) fprintf(stderr, "ptxemu: cannot write %s: %s\n", json, strerror(errno));
    else if (lines) errors = write_doc(out, lines, argv, status, uf, NULL);
    if (out) fclose(out);
    if (lines) fclose(lines);
    if (uf) fclose(uf);
    unlink(tmp);
    free(user);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (exit_on_error && rc == 0 && errors) {
        fprintf(stderr, "ptxemu: exit status 1: the run had %d fault%s, race%s, deadlock%s or time "
                "limit%s (--exit-on-error)\n", errors, errors == 1 ? "" : "s", errors == 1 ? "" : "s",
                errors == 1 ? "" : "s", errors == 1 ? "" : "s");
        rc = 1;
    }
    return rc;
}

void report_refused(char **argv, const char *json, const char *why)
{
    FILE *out = json ? fopen(json, "w") : NULL;
    if (!out) {
        if (json) fprintf(stderr, "ptxemu: cannot write %s: %s\n", json, strerror(errno));
        return;
    }
    write_doc(out, NULL, argv, 1 << 8 /* exited with status 1 */, NULL, why);
    fclose(out);
}
