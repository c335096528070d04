/* attach.h - the tools the environment asks for, attached to the machine (observe.h).
 *
 * Contract: called once, before emu_init, by whatever starts the machine (the driver's cuInit,
 * tests/ptxrun); the machine itself never names a tool. Returns 0, or -1 when a tool could not
 * be attached (said on stderr). */
#ifndef PTXEMU_TOOLS_ATTACH_H
#define PTXEMU_TOOLS_ATTACH_H

int tools_attach(void);

#endif
