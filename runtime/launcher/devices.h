/* devices.h - `ptxemu --devices`: prints the emulated devices (devices.c). */
#ifndef PTXEMU_LAUNCHER_DEVICES_H
#define PTXEMU_LAUNCHER_DEVICES_H

/* Loads libdir's libcuda.so.1 and prints every device, its attributes and the peer links,
 * for people or (json) as one JSON object. Returns the exit status. */
int devices_main(const char *libdir, int json);

#endif
