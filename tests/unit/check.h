/* check.h - the unit tests' one assertion: CHECK(cond, printf-style message) counts a pass,
 * or counts a failure and prints where and why. Each test prints `passed`/`failed` at the end
 * and exits non-zero on any failure. */
#ifndef PTXEMU_TEST_CHECK_H
#define PTXEMU_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (cond) passed++;                                                         \
        else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__);                \
               printf(__VA_ARGS__); printf("\n"); }                                 \
    } while (0)

#endif
