/* explore.h - `ptxemu race`: many seeds of deterministic mode, stop at the first
 * difference or hazard (runtime/explore.c). argv starts after "race"; LD_LIBRARY_PATH is
 * already set. Returns the exit status: 0 nothing found, 1 found, 2 usage or system error. */
#ifndef PTXEMU_EXPLORE_H
#define PTXEMU_EXPLORE_H
int explore_main(int argc, char **argv);
#endif
