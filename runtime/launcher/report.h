/* report.h - `ptxemu --report-json FILE` and `--exit-on-error`: the program runs as a child
 * whose PTXEMU_REPORT lines (launches, faults, races, deadlocks, time limits, errors the
 * program never asked about, leaks) become one JSON document with its exit status. */
#ifndef PTXEMU_REPORT_H
#define PTXEMU_REPORT_H

/* Runs argv[0..] (already resolved by the caller's environment) and returns the exit status
 * ptxemu should exit with. json: the document's path, or NULL; exit_on_error: a run with any
 * fault, race, deadlock or time limit exits non-zero even when the program exited 0. */
int report_run(char **argv, const char *json, int exit_on_error);

/* The launcher refused to start argv[0] (its kernels cannot run here: SASS only, PTX for a
 * newer GPU): writes the document all the same, with exit status 1, no launches and
 * "refused" holding the launcher's message, so that a grader learns why. */
void report_refused(char **argv, const char *json, const char *why);

#endif
