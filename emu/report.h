/* report.h - PTXEMU_REPORT: the machine-readable record of a run, one JSON object a line,
 * appended by faults, warnings, deadlocks, time limits and every tool's findings.
 *
 * Contract: report_open returns the file locked for the caller (NULL when PTXEMU_REPORT is
 * unset or cannot be opened); the caller writes one whole line and gives it back with
 * report_close, so lines of different threads never mix. */
#ifndef PTXEMU_REPORT_H
#define PTXEMU_REPORT_H

#include <stdio.h>
#include "machine.h"

FILE *report_open(void);
void report_close(FILE *f);
/* s as a JSON string, quotes included. */
void report_str(FILE *f, const char *s);
/* "block":[..],"thread":[..],"warp":N,"ptx_line":N,"src_file":"..","src_line":N of lane l of w
 * at its pc (and "inlined_file"/"inlined_line" for code inlined from a header). */
void report_place(FILE *f, Warp *w, int lane);
/* "kernel":"<mangled name>","demangled":"<the C++ name>" of a program. */
void report_kernel(FILE *f, const Program *p);
/* A finding on stderr: "PREFIX MSG; HINT TAIL" on one line, or when stderr is a terminal
 * MSG TAIL wrapped to its width and the hint once, on lines of its own ("    hint: ..."). */
void report_line(const char *prefix, const char *msg, const char *hint, const char *tail);

#endif
