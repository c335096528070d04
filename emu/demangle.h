/* demangle.h - C++ kernel names as people read them ("byte_hist(unsigned char const*, int,
 * unsigned int*)" for _Z9byte_histPKhiPj), for messages, the profile and the timeline. */
#ifndef PTXEMU_DEMANGLE_H
#define PTXEMU_DEMANGLE_H

/* A malloc'd copy of `name` demangled; the name itself when it is not a mangled C++ name or
 * no demangler is at hand; NULL only when out of memory. */
char *emu_demangle(const char *name);

#endif
