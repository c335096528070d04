/* ptxemu.c - the launcher: runs a CUDA program with ptxemu's libcudart.so.13 found first.
 *
 * `ptxemu [options] PROGRAM [ARGS...]` puts the directory of our libcudart.so.13 in front of
 * LD_LIBRARY_PATH and execs PROGRAM. The library is looked for in $PTXEMU_LIBDIR, then next
 * to this executable in the build tree (runtime/ and libtool's runtime/.libs/), then in the
 * installed package library directory, which is not on the default search path so that an
 * installed ptxemu never shadows a real CUDA.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "devices.h"
#include "explore.h"
#include "debugcmd.h"
#include "report.h"
#include "inspect.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#ifdef PTXEMU_VERSION
#define PACKAGE_VERSION PTXEMU_VERSION
#else
#error "define PACKAGE_VERSION (config.h) or PTXEMU_VERSION"
#endif
#endif

#define LIBNAME "libcudart.so.13"
#define DRIVERNAME "libcuda.so.1"
#define JITSHIM "libptxemu-jit.so"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: ptxemu [options] PROGRAM [ARGS...]\n"
        "       ptxemu --devices [--json]\n"
        "Run a CUDA program built by nvcc (the default static runtime, --cudart shared,\n"
        "the driver API, NVRTC) on the CPU: its kernels execute on ptxemu, an emulated\n"
        "sm_90 (H100) GPU. See man ptxemu and the README.\n"
        "\n"
        "Options:\n"
        "       ptxemu race [--seeds N] [--jobs J] [--start S] [--shard I/N] [--json FILE]\n"
        "                   [--no-racecheck] PROGRAM [ARGS...]\n"
        "       ptxemu race --merge FILE...\n"
        "         runs PROGRAM under seeds S.. of deterministic mode (default 1..100) with the\n"
        "         race detector on and stops at the first whose output or exit status differs\n"
        "         from seed S's, or that reports a race or fault; prints the command that\n"
        "         replays it; --merge: the shards' JSON as one run (docs/cluster.md)\n"
        "       ptxemu debug [-s SEED] [-x FILE] [-c CMD]... [-b LOC]... PROGRAM [ARGS...]\n"
        "       ptxemu debug --trace [--kernel K] [--block X,Y,Z] [--warp N] [--lane N]\n"
        "                    [--thread X,Y,Z] [--line LOC] [--trace-file FILE] PROGRAM [ARGS...]\n"
        "         steps through PROGRAM's kernels: breakpoints at CUDA or PTX lines in a\n"
        "         chosen block/warp/lane, step a warp by line or instruction, show lanes,\n"
        "         registers, shared memory, mbarriers and copies in flight; --trace prints\n"
        "         every instruction instead (ptxemu debug --help; docs/debug.md)\n"
        "\n"
        "  --devices        print the emulated devices, every attribute and the peer links\n"
        "                   (as PROGRAM would see them), then exit; --json: as JSON\n"
        "  -d, --device-count N  emulate N identical devices, 1 to 16 (PTXEMU_DEVICES=N)\n"
        "  -t, --threads N  worker threads (same as PTXEMU_THREADS=N)\n"
        "  -s, --seed N     deterministic mode with seed N (same as PTXEMU_SEED=N)\n"
        "  --record FILE    write the schedule taken (same as PTXEMU_SCHEDULE_OUT=FILE)\n"
        "  --replay FILE    replay a recorded schedule (same as PTXEMU_SCHEDULE_IN=FILE)\n"
        "  --cudart WHICH   ptxemu (default): programs built with --cudart shared load\n"
        "                   ptxemu's libcudart.so.13; nvidia: they load NVIDIA's, which runs\n"
        "                   over ptxemu's libcuda.so.1 (same as PTXEMU_CUDART=WHICH)\n"
        "  --racecheck      report races in shared and global memory and misuse of async\n"
        "                   copies and mbarriers (same as PTXEMU_RACECHECK=1)\n"
        "  --profile        per launch: instructions, active lanes, sectors per global request,\n"
        "                   wavefronts per shared request, occupancy, barrier waits and an\n"
        "                   estimated H100 time (same as PTXEMU_PROFILE=1; docs/profile.md)\n"
        "  --clock model    CUDA events measure the --profile model's H100 time (kernels by\n"
        "                   their estimate, copies over PCIe) instead of host time\n"
        "                   (same as PTXEMU_CLOCK=model)\n"
        "  --timeline FILE  write a Chrome-trace / Perfetto JSON timeline of launches, blocks,\n"
        "                   warps running and waiting, async copies and memory copies, on\n"
        "                   an emulated clock (same as PTXEMU_TIMELINE=FILE)\n"
        "  --report-json FILE  run PROGRAM as a child and write one JSON document: its\n"
        "                   launches, faults, races, deadlocks, time limits, CUDA errors it\n"
        "                   never asked about, device memory leaked at exit, its exit status\n"
        "  --exit-on-error  exit with status 1 when a run that exited 0 had a fault, race,\n"
        "                   deadlock or time limit (for autograders)\n"
        "  --timeout SECONDS  stop a kernel that runs longer, say where every warp is and\n"
        "                   fail the launch with cudaErrorLaunchTimeout (PTXEMU_TIMEOUT)\n"
        "  --tier WHICH     how kernels run: auto (default: interpreted, and a kernel that\n"
        "                   runs long is compiled to native code in the background), interp\n"
        "                   (always interpreted), compiled (each kernel compiled before its\n"
        "                   first launch); same as PTXEMU_TIER=WHICH, docs/architecture.md\n"
        "  -l, --log N      diagnostics level 0-3 (same as PTXEMU_LOG=N)\n"
        "  -h, --help       show this help and exit\n"
        "  -V, --version    show the version and exit\n"
        "  --               end of options\n"
        "\n"
        "Environment:\n"
        "  PTXEMU_DEVICES   how many H100s to emulate, 1 to 16 (default 1); all are\n"
        "                   peers, as on an NVLink-connected HGX board\n"
        "  PTXEMU_THREADS   worker threads that run thread blocks (default: number of cores)\n"
        "  PTXEMU_LOG       diagnostics level: 0 = only errors, 1 = and warnings (default),\n"
        "                   2 = and information, 3 = and a line for every launch\n"
        "  PTXEMU_LIBDIR    directory holding ptxemu's " LIBNAME " (default: found\n"
        "                   next to this program, or in the installed package directory)\n"
        "  PTXEMU_SEED      deterministic mode: one thread runs every launch and every\n"
        "                   interleaving of warps and completion of an asynchronous copy\n"
        "                   comes from this seed (the same seed gives the same output)\n"
        "  PTXEMU_SCHEDULE_OUT / PTXEMU_SCHEDULE_IN  record / replay the schedule taken\n"
        "  PTXEMU_RACECHECK 1: report races in shared and global memory and async-copy and\n"
        "                   mbarrier misuse (runs in deterministic mode, seed 1 unless\n"
        "                   PTXEMU_SEED says);\n"
        "                   error: also exit with status 1 when any is found\n"
        "  PTXEMU_REPORT    a file: race reports, faults, deadlocks, time limits, CUDA errors\n"
        "                   and leaks as JSON, one object a line\n"
        "  PTXEMU_LEAKCHECK 1: at exit, report device allocations still alive and where they\n"
        "                   were made\n"
        "  PTXEMU_INITCHECK 1: report kernel reads of global or shared memory nothing wrote\n"
        "  PTXEMU_TIMELINE  a file: the timeline as Chrome-trace JSON (docs/timeline.md)\n"
        "  PTXEMU_PROFILE   1: counters and an estimated H100 time after every launch\n"
        "  PTXEMU_TIMEOUT   seconds a kernel may run (default: no limit); past it the launch\n"
        "                   fails with cudaErrorLaunchTimeout and every warp's place is printed\n"
        "  PTXEMU_STATS     1: one line per kernel launch on stderr with its instruction\n"
        "                   counts and time\n"
        "  PTXEMU_IDLE_BLOCKS run: set up and run the blocks whose threads all leave at the\n"
        "                   kernel's first branch (default: counted as run, not run)\n"
        "  PTXEMU_DUMP_PTX  a directory: write the program's PTX there, so the PTX line\n"
        "                   numbers in error messages can be looked up\n"
        "  PTXEMU_ASYNC     late: complete asynchronous copies only when a wait needs them\n"
        "                   (exposes missing waits); default: soon after they are issued\n"
        "  PTXEMU_STRICT_BOUNDS 1: an access past the end of an allocation faults even inside\n"
        "                   the pages an H100 maps for it (default: it completes, with a warning)\n"
        "  PTXEMU_HUGEPAGES 0: no transparent huge-page advice on device memory (4 KiB\n"
        "                   pages only); default: advised, fewer first-touch page faults\n"
        "  PTXEMU_FMA_CONTRACT 0: never fuse a mul and an add into an fma as ptxas would\n"
        "                   (docs/fma-contraction.md)\n"
        "  PTXEMU_TIER      auto, interp or compiled (--tier)\n"
        "  PTXEMU_JIT_HOT   auto tier: thread instructions a kernel runs before it is\n"
        "                   compiled (default 100000000)\n"
        "  PTXEMU_JIT_CACHE a directory for compiled kernels (default: $XDG_CACHE_HOME or\n"
        "                   ~/.cache, ptxemu/jit), shared by runs and safe to delete\n"
        "  PTXEMU_JIT_CC    the C compiler that builds them (default: cc)\n"
        "  PTXEMU_JIT_JOBS  compilers one kernel's build runs at once (a kernel of over 400\n"
        "                   instructions is built in units; default and most: the CPUs)\n"
        "  PTXEMU_JIT_KEEP  1: keep each compiled kernel's C source and compiler log in the\n"
        "                   cache (to read what was compiled)\n"
        "  PTXEMU_JIT_REPORT 1: list on stderr the handlers each compiled kernel calls instead\n"
        "                   of inlining them (json: one JSON object per kernel)\n"
        "  PTXEMU_PTXAS     the ptxas that tells registers for occupancy, numRegs and a\n"
        "                   verbose JIT log (default: PATH, CUDA_HOME, /usr/local/cuda;\n"
        "                   empty: none)\n"
        "  PTXEMU_CHECK     0: start PROGRAM even when the launcher finds no PTX it can run\n"
        "  PTXEMU_NUMBA_COMPAT 0: leave Python programs alone (default: Numba older than 0.57\n"
        "                   is adapted to CUDA 13's libNVVM and driver; docs/python.md)\n"
        "  PTXEMU_DEBUG     1 or trace, and PTXEMU_DEBUG_* / PTXEMU_TRACE_*: what ptxemu debug\n"
        "                   sets (docs/debug.md)\n"
        "\n"
        "Exit status: PROGRAM's, or 127 if PROGRAM cannot be found, 126 if it cannot be run,\n"
        "2 for a bad option or option value (also of the variables above that options set).\n");
}

static int has_file(const char *dir, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return 0;
    return access(path, R_OK) == 0;
}

static int is_lib_dir(const char *dir)
{
    return has_file(dir, LIBNAME) && has_file(dir, DRIVERNAME);
}

/* The build tree: this executable is runtime/ptxemu, the library runtime/.libs/ or runtime/. */
static int find_in_build_tree(char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return 0;
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return 0;
    *slash = 0;
    const char *subdirs[] = { "/.libs", "" };
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
        if (snprintf(out, n, "%s%s", self, subdirs[i]) >= (int)n) continue;
        if (is_lib_dir(out)) return 1;
    }
    return 0;
}

/* Set by find_libdir when the libraries are those of the build tree (not installed ones). */
static int in_build_tree;

static int find_libdir(char *out, size_t n)
{
    const char *env = getenv("PTXEMU_LIBDIR");
    if (env && *env) {
        if (is_lib_dir(env) && snprintf(out, n, "%s", env) < (int)n) return 1;
        fprintf(stderr, "ptxemu: PTXEMU_LIBDIR=%s does not contain %s\n", env, LIBNAME);
        return 0;
    }
    if (find_in_build_tree(out, n)) return in_build_tree = 1;
#ifdef PTXEMU_PKGLIBDIR
    if (is_lib_dir(PTXEMU_PKGLIBDIR) && snprintf(out, n, "%s", PTXEMU_PKGLIBDIR) < (int)n)
        return 1;
#endif
    fprintf(stderr, "ptxemu: cannot find ptxemu's %s (set PTXEMU_LIBDIR to its directory)\n",
            LIBNAME);
    return 0;
}

/* var = first[:old value] */
static int prepend_env(const char *var, const char *first)
{
    const char *old = getenv(var);
    size_t len = strlen(first) + (old ? strlen(old) : 0) + 2;
    char *v = malloc(len);
    if (!v) return -1;
    snprintf(v, len, "%s%s%s", first, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv(var, v, 1);
    free(v);
    return rc;
}

/* The program finds ptxemu's libcudart.so.13 and libcuda.so.1 first (for this process and
 * its children only), and the JIT shim is preloaded for programs that compile at run time. */
static int prepend_library_path(const char *dir)
{
    if (prepend_env("LD_LIBRARY_PATH", dir)) return -1;
    char shim[PATH_MAX];
    if (snprintf(shim, sizeof shim, "%s/%s", dir, JITSHIM) >= (int)sizeof shim) return -1;
    if (access(shim, R_OK) == 0 && prepend_env("LD_PRELOAD", shim)) return -1;
#ifdef PTXEMU_ASAN_RUNTIME
    /* A --enable-sanitizers build: the libraries need the ASan runtime, which must be the
     * first library of a program that was not itself built with it. */
    if (prepend_env("LD_PRELOAD", PTXEMU_ASAN_RUNTIME)) return -1;
#endif
    return 0;
}

/* ---- values of options and of the environment variables they set ----
 * A bad value is refused before the program starts (exit status 2), naming the option or
 * the variable: `--timeout abc` would otherwise mean no time limit at all. */

static int is_uint(const char *s, unsigned long long lo, unsigned long long hi)
{
    char *end;
    if (!*s || *s == '-' || *s == '+' || *s == ' ') return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    return !errno && !*end && v >= lo && v <= hi;
}

static int ok_threads(const char *s) { return is_uint(s, 1, 4096); }
static int ok_log(const char *s) { return s[0] >= '0' && s[0] <= '3' && !s[1]; }
static int ok_seed(const char *s) { return is_uint(s, 0, ~0ull); }
static int ok_devices(const char *s) { return is_uint(s, 1, 16); }
static int ok_clock(const char *s) { return !strcmp(s, "model") || !strcmp(s, "host"); }
static int ok_tier(const char *s) { return !strcmp(s, "auto") || !strcmp(s, "interp") || !strcmp(s, "compiled"); }
static int ok_timeout(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    return *s && !errno && !*end && v >= 0 && v < 1e9 && v == v;
}

static const struct ValueCheck {
    const char *var, *opt;
    int (*ok)(const char *);
    const char *expected;
} value_checks[] = {
    { "PTXEMU_THREADS", "--threads", ok_threads, "a number of worker threads from 1 to 4096" },
    { "PTXEMU_LOG", "--log", ok_log, "a diagnostics level from 0 to 3" },
    { "PTXEMU_SEED", "--seed", ok_seed, "a seed: a whole number from 0 to 2^64-1" },
    { "PTXEMU_DEVICES", "--device-count", ok_devices, "the number of devices to emulate, an integer from 1 to 16" },
    { "PTXEMU_TIMEOUT", "--timeout", ok_timeout, "a number of seconds (0: no limit), e.g. 10 or 2.5" },
    { "PTXEMU_CLOCK", "--clock", ok_clock, "model or host" },
    { "PTXEMU_TIER", "--tier", ok_tier, "auto, interp or compiled" },
};

/* The check of the variable an option sets, NULL when it has none. */
static const struct ValueCheck *check_of(const char *var)
{
    for (size_t k = 0; k < sizeof value_checks / sizeof value_checks[0]; k++)
        if (!strcmp(value_checks[k].var, var)) return &value_checks[k];
    return NULL;
}

/* Every checked variable that is set (by an option or by the user) has a good value; says
 * which is not, by the option when one set it (given[k]). */
static int values_ok(const char *const *given)
{
    for (size_t k = 0; k < sizeof value_checks / sizeof value_checks[0]; k++) {
        const struct ValueCheck *c = &value_checks[k];
        const char *v = getenv(c->var);
        if (!v || !*v || c->ok(v)) continue;
        if (given[k])
            fprintf(stderr, "ptxemu: %s %s: expected %s\n", given[k], v, c->expected);
        else
            fprintf(stderr, "ptxemu: %s=%s: expected %s (%s)\n", c->var, v, c->expected, c->opt);
        return 0;
    }
    return 1;
}

/* The option that set each checked variable (values_ok names it in its message). */
static const char *opt_given[16];

/* Python programs (Numba) find ptxemu's start-up folder first on PYTHONPATH: its
 * sitecustomize.py adapts a Numba older than CUDA 12 to CUDA 13 (python/startup/, installed
 * in $(pkgdatadir)/python-startup). PTXEMU_NUMBA_COMPAT=0 leaves Python alone. */
static int prepend_python_path(void)
{
    const char *env = getenv("PTXEMU_NUMBA_COMPAT");
    if (env && !strcmp(env, "0")) return 0;
    const char *dir = NULL;
#ifdef PTXEMU_SRCDIR
    if (in_build_tree) dir = PTXEMU_SRCDIR "/python/startup";
#endif
#ifdef PTXEMU_PKGDATADIR
    if (!in_build_tree) dir = PTXEMU_PKGDATADIR "/python-startup";
#endif
    if (!dir || !has_file(dir, "sitecustomize.py")) return 0;
    return prepend_env("PYTHONPATH", dir);
}

/* An option's value: "--opt N" or "-o N"; returns the index of the value or -1. */
static int set_from_option(int argc, char **argv, int i, const char *var)
{
    if (i + 1 >= argc || !argv[i + 1][0]) {
        fprintf(stderr, "ptxemu: %s needs a value\n", argv[i]);
        return -1;
    }
    if (setenv(var, argv[i + 1], 1) != 0) return -1;
    const struct ValueCheck *c = check_of(var);
    if (c) opt_given[c - value_checks] = argv[i];
    return i + 1;
}

/* What to do besides running a program: 0 nothing, 1 --devices, 2 --devices --json. */
static int devices_mode;
/* --report-json FILE, --exit-on-error: the program runs as a child (report.c). */
static const char *report_json;
static int exit_on_error;

/* Parse options; returns the index of PROGRAM, or -1 when done (exit code in *status); with
 * --devices, argc (no program). */
static int parse_options(int argc, char **argv, int *status)
{
    int i = 1, json = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); *status = 0; return -1; }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf("ptxemu %s\n", PACKAGE_VERSION);
            *status = 0;
            return -1;
        }
        int v = -2;
        if (!strcmp(a, "--devices")) { devices_mode = 1; continue; }
        if (!strcmp(a, "--json")) { json = 1; continue; }
        if (!strcmp(a, "--exit-on-error")) { exit_on_error = 1; continue; }
        if (!strcmp(a, "--report-json")) {
            if (i + 1 >= argc) { fprintf(stderr, "ptxemu: %s needs a value\n", a); *status = 2; return -1; }
            report_json = argv[++i];
            continue;
        }
        if (!strcmp(a, "-t") || !strcmp(a, "--threads")) v = set_from_option(argc, argv, i, "PTXEMU_THREADS");
        else if (!strcmp(a, "-l") || !strcmp(a, "--log")) v = set_from_option(argc, argv, i, "PTXEMU_LOG");
        else if (!strcmp(a, "-s") || !strcmp(a, "--seed")) v = set_from_option(argc, argv, i, "PTXEMU_SEED");
        else if (!strcmp(a, "--record")) v = set_from_option(argc, argv, i, "PTXEMU_SCHEDULE_OUT");
        else if (!strcmp(a, "--racecheck")) v = setenv("PTXEMU_RACECHECK", "1", 1) == 0 ? i : -1;
        else if (!strcmp(a, "--timeline")) v = set_from_option(argc, argv, i, "PTXEMU_TIMELINE");
        else if (!strcmp(a, "--profile")) v = setenv("PTXEMU_PROFILE", "1", 1) == 0 ? i : -1;
        else if (!strcmp(a, "--clock")) v = set_from_option(argc, argv, i, "PTXEMU_CLOCK");
        else if (!strcmp(a, "--timeout")) v = set_from_option(argc, argv, i, "PTXEMU_TIMEOUT");
        else if (!strcmp(a, "--tier")) v = set_from_option(argc, argv, i, "PTXEMU_TIER");
        else if (!strcmp(a, "--replay")) v = set_from_option(argc, argv, i, "PTXEMU_SCHEDULE_IN");
        else if (!strcmp(a, "--cudart")) v = set_from_option(argc, argv, i, "PTXEMU_CUDART");
        else if (!strcmp(a, "-d") || !strcmp(a, "--device-count")) v = set_from_option(argc, argv, i, "PTXEMU_DEVICES");
        else fprintf(stderr, "ptxemu: unknown option %s (try ptxemu --help)\n", a);
        if (v < 0) { *status = 2; return -1; }
        i = v;
    }
    if (!values_ok(opt_given)) {
        *status = 2;
        return -1;
    }
    if (json && !devices_mode) {
        fprintf(stderr, "ptxemu: --json goes with --devices\n");
        *status = 2;
        return -1;
    }
    if (devices_mode) {
        if (i < argc) {
            fprintf(stderr, "ptxemu: --devices takes no program (%s)\n", argv[i]);
            *status = 2;
            return -1;
        }
        devices_mode += json;
        return argc;
    }
    if (i >= argc) {
        usage(stderr);
        *status = 2;
        return -1;
    }
    return i;
}

/* PTXEMU_CUDART=nvidia: the program finds only ptxemu's libcuda.so.1 (in the library
 * directory's driver-only/), so a program built with --cudart shared loads NVIDIA's own
 * libcudart.so.13, which then runs over ptxemu's driver. Default (ptxemu): both of ptxemu's. */
static int choose_cudart(char *dir, size_t n)
{
    const char *c = getenv("PTXEMU_CUDART");
    if (!c || !*c || !strcmp(c, "ptxemu")) return 0;
    if (strcmp(c, "nvidia")) {
        fprintf(stderr, "ptxemu: --cudart %s: expected ptxemu or nvidia\n", c);
        return 1;
    }
    size_t len = strlen(dir);
    if (snprintf(dir + len, n - len, "/driver-only") >= (int)(n - len) || !has_file(dir, DRIVERNAME)) {
        fprintf(stderr, "ptxemu: --cudart nvidia: no %s in %s\n", DRIVERNAME, dir);
        return 1;
    }
    return 0;
}

/* The file execvp would run for `prog`: itself when it has a slash, else found on PATH. */
static int resolve(const char *prog, char *out, size_t n)
{
    if (strchr(prog, '/')) return snprintf(out, n, "%s", prog) < (int)n;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (snprintf(out, n, "%.*s/%s", (int)len, len ? path : ".", prog) < (int)n &&
            access(out, X_OK) == 0)
            return 1;
        path += len + (end != NULL);
    }
    return 0;
}

/* Says before the program starts when its kernels cannot run here (PTXEMU_CHECK=0: not),
 * leaving the reason in msg. */
static int preflight(const char *prog, char *msg, size_t n)
{
    const char *env = getenv("PTXEMU_CHECK");
    if (env && !strcmp(env, "0")) return 0;
    char path[PATH_MAX];
    if (!resolve(prog, path, sizeof path) || !inspect_program(path, msg, n)) return 0;
    fprintf(stderr, "ptxemu: %s\n", msg);
    return 1;
}

int main(int argc, char **argv)
{
    int status = 0;
    int prog = parse_options(argc, argv, &status);
    if (prog < 0) return status;
    char dir[PATH_MAX];
    if (!find_libdir(dir, sizeof dir)) return 1;
    if (devices_mode) return devices_main(dir, devices_mode == 2);
    if (choose_cudart(dir, sizeof dir)) return 2;
    if (prepend_library_path(dir) != 0 || prepend_python_path() != 0) {
        fprintf(stderr, "ptxemu: cannot set LD_LIBRARY_PATH or PYTHONPATH: %s\n", strerror(errno));
        return 1;
    }
    if (!strcmp(argv[prog], "race")) return explore_main(argc - prog - 1, &argv[prog + 1]);
    if (!strcmp(argv[prog], "debug")) return debug_main(argc - prog - 1, &argv[prog + 1]);
    char why[1536];
    if (preflight(argv[prog], why, sizeof why)) {
        if (report_json) report_refused(&argv[prog], report_json, why);   /* a grader learns why */
        return 1;
    }
    if (report_json || exit_on_error) return report_run(&argv[prog], report_json, exit_on_error);
    execvp(argv[prog], &argv[prog]);
    int err = errno;
    fprintf(stderr, "ptxemu: %s: %s\n", argv[prog],
            err == ENOENT ? "command not found" : strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
}
