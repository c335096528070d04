/* elffile.h - reading a program file and finding a section of it: how the driver reaches
 * the __nv_relfatbin section of an -rdc=true program and the launcher the .nv_fatbin of the
 * program it is about to start. */
#ifndef PTXEMU_ELFFILE_H
#define PTXEMU_ELFFILE_H

#include <stddef.h>

/* The whole file, malloc'ed (the caller frees it); NULL when it cannot be read or is empty. */
unsigned char *elf_read_file(const char *path, size_t *size);

/* The section `want` of a 64-bit ELF file in memory: 0 with its offset and size, or -1 when
 * absent, without contents (NOBITS) or malformed. Every offset is checked against size. */
int elf_section(const unsigned char *f, size_t size, const char *want, size_t *off,
                size_t *len);

#endif
