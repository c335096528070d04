/* debugcmd.c - `ptxemu debug [options] PROGRAM [ARGS...]`: turns the options into the
 * PTXEMU_DEBUG* and PTXEMU_TRACE_* variables that emu/debug.c reads in the program, and execs
 * it. The debugger needs deterministic mode; --seed picks the schedule (default 1). */
#include "debugcmd.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void debug_usage(FILE *f)
{
    fprintf(f,
        "Usage: ptxemu debug [-s SEED] [-x FILE] [-c CMD]... [-b LOC]... PROGRAM [ARGS...]\n"
        "       ptxemu debug --trace [--kernel K] [--block X,Y,Z] [--warp N] [--lane N]\n"
        "                    [--thread X,Y,Z] [--line LOC] [--trace-file FILE] PROGRAM [ARGS...]\n"
        "Steps through the kernels of PROGRAM on the emulated GPU. It stops before the first\n"
        "instruction of the first launch and reads commands (`help` lists them) from the\n"
        "terminal. Warps run in deterministic mode: the same seed reaches the same stop.\n"
        "\n"
        "  -s, --seed N     the schedule's seed (default 1)\n"
        "  -x FILE          read commands from FILE instead of the terminal; at its end the\n"
        "                   program runs on without stopping\n"
        "  -c CMD           run CMD at the first stop, before reading any (repeatable)\n"
        "  -b, --break LOC  the same as -c 'break LOC' (LOC: FILE:LINE, LINE, ptx:LINE, KERNEL)\n"
        "  --trace          do not stop: print one line for every PTX instruction a warp runs\n"
        "                   (kernel, block, warp, active lanes, PTX and CUDA line, the\n"
        "                   instruction, the registers it wrote in the first active lane)\n"
        "  --kernel K, --block X,Y,Z, --warp N, --lane N, --thread X,Y,Z, --line LOC\n"
        "                   trace only those (a kernel whose name contains K; a lane's values)\n"
        "  --trace-file FILE  write the trace to FILE instead of stderr\n"
        "See docs/debug.md.\n");
}

static int append(char **buf, const char *a, const char *b)
{
    size_t n = (*buf ? strlen(*buf) : 0) + strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (!s) return -1;
    snprintf(s, n, "%s%s%s\n", *buf ? *buf : "", a, b);
    free(*buf);
    *buf = s;
    return 0;
}

/* What a numeric option's value should be, when it is not that; NULL when it is fine. */
static const char *bad_value(const char *opt, const char *v)
{
    char *end;
    unsigned long long n = 0;
    if (*v >= '0' && *v <= '9') {
        errno = 0;
        n = strtoull(v, &end, 0);
        if (errno || *end) v = "";
    }
    int num = *v >= '0' && *v <= '9';
    if (!strcmp(opt, "-s") || !strcmp(opt, "--seed")) return num ? NULL : "a seed: a whole number";
    if (!strcmp(opt, "--warp")) return num ? NULL : "a warp index in the block";
    if (!strcmp(opt, "--lane")) return num && n < 32 ? NULL : "a lane from 0 to 31";
    return NULL;
}

int debug_main(int argc, char **argv)
{
    static const struct { const char *opt, *var; } trace_opts[] = {
        { "--kernel", "PTXEMU_TRACE_KERNEL" }, { "--block", "PTXEMU_TRACE_BLOCK" },
        { "--warp", "PTXEMU_TRACE_WARP" }, { "--lane", "PTXEMU_TRACE_LANE" },
        { "--thread", "PTXEMU_TRACE_THREAD" }, { "--line", "PTXEMU_TRACE_LINE" },
        { "--trace-file", "PTXEMU_TRACE_FILE" }, { "-x", "PTXEMU_DEBUG_COMMANDS" },
        { "-s", "PTXEMU_SEED" }, { "--seed", "PTXEMU_SEED" },
    };
    char *ex = NULL;
    int i = 0, trace = 0, filtered = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { debug_usage(stdout); return 0; }
        if (!strcmp(a, "--trace")) { trace = 1; continue; }
        if (i + 1 >= argc) { fprintf(stderr, "ptxemu debug: %s needs a value\n", a); return 2; }
        const char *v = argv[++i];
        int known = 0;
        if (!strcmp(a, "-c")) known = append(&ex, "", v) == 0;
        else if (!strcmp(a, "-b") || !strcmp(a, "--break")) known = append(&ex, "break ", v) == 0;
        for (size_t k = 0; !known && k < sizeof trace_opts / sizeof trace_opts[0]; k++)
            if (!strcmp(a, trace_opts[k].opt)) {
                known = setenv(trace_opts[k].var, v, 1) == 0;
                filtered |= !strncmp(trace_opts[k].var, "PTXEMU_TRACE_", 13);
            }
        if (!known) {
            fprintf(stderr, "ptxemu debug: unknown option %s (try ptxemu debug --help)\n", a);
            return 2;
        }
        const char *want = bad_value(a, v);
        if (want) {
            fprintf(stderr, "ptxemu debug: %s %s: expected %s\n", a, v, want);
            return 2;
        }
    }
    if (i >= argc) { debug_usage(stderr); return 2; }
    if (filtered && !trace) {
        fprintf(stderr, "ptxemu debug: --kernel, --block, --warp, --lane, --thread, --line and "
                "--trace-file go with --trace (use `break LOC block ...` when stepping)\n");
        return 2;
    }
    if (trace && ex) { fprintf(stderr, "ptxemu debug: -c and -b go without --trace\n"); return 2; }
    setenv("PTXEMU_DEBUG", trace ? "trace" : "1", 1);
    if (ex) setenv("PTXEMU_DEBUG_EX", ex, 1);
    free(ex);
    execvp(argv[i], &argv[i]);
    int err = errno;
    fprintf(stderr, "ptxemu: %s: %s\n", argv[i], err == ENOENT ? "command not found" : strerror(err));
    return err == ENOENT || err == ENOTDIR ? 127 : 126;
}
