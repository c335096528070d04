/* stop.h - a run stopped from outside (SIGTERM, SIGINT, SIGALRM) still leaves a complete
 * PTXEMU_REPORT: the kernel running ends at its next scheduling round, as at a time limit,
 * its findings (races) are written as every launch's are, a "stopped" record follows, and
 * then the process ends by the signal as it would have. Only where PTXEMU_REPORT is set and
 * the program has not taken the signal itself. */
#ifndef PTXEMU_STOP_H
#define PTXEMU_STOP_H

void stop_init(void);                 /* at library start (emu_init) */
extern volatile int emu_stop_signal;  /* the signal that asked to stop, 0 none */
/* Launches being run or finished by some thread: the stop waits for them to end. */
void stop_launch_enter(void);
void stop_launch_leave(void);

#endif
