/* explore.h - `ptxemu race`: many seeds of deterministic mode, stop at the first
 * difference or hazard (explore.c); `ptxemu race --merge`: the shards' JSON documents into
 * the one answer a single run would give (racemerge.c). argv starts after "race";
 * LD_LIBRARY_PATH is already set. Exit status: 0 nothing found, 1 found, 2 usage or system
 * error. */
#ifndef PTXEMU_EXPLORE_H
#define PTXEMU_EXPLORE_H
#include <stdio.h>

int explore_main(int argc, char **argv);

/* What a seed showed: its output or exit status differs from the reference seed's, or its
 * stderr reports a hazard. Shared by a run and by the merge, so both print the same words. */
enum { FIND_OUTPUT, FIND_STATUS, FIND_HAZARD, FIND_REFERENCE };
typedef struct Finding {
    int kind;
    unsigned long long seed, ref_seed;
    int status, ref_status;          /* exit statuses (128 + signal when killed) */
    long line;                       /* FIND_OUTPUT: first line that differs (1-based) */
    const char *seed_line, *ref_line;
    const char *report;              /* FIND_HAZARD: the seed's stderr */
    const char *where, *ref_where;   /* FIND_REFERENCE: the two shards that disagree */
} Finding;

extern const char *const explore_kind_names[];   /* "output", "exit status", ... */
void explore_print_finding(FILE *f, const Finding *fd);
/* "ptxemu --seed S [--racecheck] PROG ARGS..." with arguments quoted for a POSIX shell
 * (malloc'd; NULL when out of memory); explore_print_replay prints it as "replay: ...". */
char *explore_replay_command(unsigned long long seed, int racecheck, char *const *prog);
void explore_print_replay(FILE *f, unsigned long long seed, int racecheck, char *const *prog);
void explore_put_json_str(FILE *f, const char *s);

int race_merge_main(int nfiles, char **files);
#endif
