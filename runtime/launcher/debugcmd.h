/* debugcmd.h - `ptxemu debug`: the step debugger and the instruction trace (emu/debug.c runs
 * them inside the program). argv starts after "debug"; LD_LIBRARY_PATH is already set.
 * Execs the program; returns an exit status only when it cannot (2 usage, 126/127 exec). */
#ifndef PTXEMU_DEBUGCMD_H
#define PTXEMU_DEBUGCMD_H
int debug_main(int argc, char **argv);
#endif
