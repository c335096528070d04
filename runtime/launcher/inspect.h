/* inspect.h - can ptxemu run this program's kernels? (runtime/launcher/inspect.c) */
#ifndef PTXEMU_INSPECT_H
#define PTXEMU_INSPECT_H
#include <stddef.h>
/* 1 when the program at path cannot run (msg says why and how to rebuild), else 0. */
int inspect_program(const char *path, char *msg, size_t n);
#endif
