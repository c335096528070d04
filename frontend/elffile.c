/* elffile.c - reading a program file and finding a section of it (elffile.h). */
#include "frontend/elffile.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char *elf_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0, k;
    do {   /* read in chunks: /proc files and pipes have no size to ask for */
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1 << 20;
            unsigned char *nb = realloc(buf, nc);
            if (!nb) { free(buf); fclose(f); return NULL; }
            buf = nb;
            cap = nc;
        }
        k = fread(buf + n, 1, cap - n, f);
        n += k;
    } while (k > 0);
    fclose(f);
    if (!n) { free(buf); return NULL; }
    *size = n;
    return buf;
}

int elf_section(const unsigned char *f, size_t size, const char *want, size_t *off,
                size_t *len)
{
    if (size < sizeof(Elf64_Ehdr) || memcmp(f, ELFMAG, SELFMAG) || f[EI_CLASS] != ELFCLASS64)
        return -1;
    Elf64_Ehdr eh;
    memcpy(&eh, f, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum || eh.e_shstrndx >= eh.e_shnum)
        return -1;
    Elf64_Shdr strs;
    memcpy(&strs, f + eh.e_shoff + (size_t)eh.e_shstrndx * sizeof strs, sizeof strs);
    if (strs.sh_offset > size || strs.sh_size > size - strs.sh_offset) return -1;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, f + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_name >= strs.sh_size) continue;
        const char *nm = (const char *)f + strs.sh_offset + sh.sh_name;
        size_t maxlen = strs.sh_size - sh.sh_name;
        if (strnlen(nm, maxlen) == maxlen || strcmp(nm, want)) continue;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
            return -1;
        *off = sh.sh_offset;
        *len = sh.sh_size;
        return 0;
    }
    return -1;
}
