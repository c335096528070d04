/* inspect.c - the launcher's check, before a program starts, that ptxemu can run its kernels.
 *
 * ptxemu runs PTX. A program built with nvcc carries its kernels in the fatbinaries of the
 * ELF section .nv_fatbin (one per file, and the device-link step's, often without code; with
 * -rdc=true the per-file PTX is in __nv_relfatbin). When no fatbinary holds PTX an sm_90 device
 * can run - only SASS (a -gencode with code=sm_XX alone), only PTX for a newer architecture - or
 * its PTX has no .target, the program cannot run; the launcher says so and what to rebuild
 * with, instead of letting it fail in its first CUDA call. A program without .nv_fatbin (the driver API with
 * modules loaded from files, or no CUDA at all) is not judged.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/launcher/inspect.h"
#include "frontend/fatbin.h"

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return NULL; }
    long n = ftell(f);
    if (n <= 0 || fseek(f, 0, SEEK_SET) != 0) { fclose(f); return NULL; }
    unsigned char *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* The named section of a 64-bit ELF file: offset and size; -1 when absent or malformed. */
static int section(const unsigned char *f, size_t size, const char *want, size_t *off,
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
        size_t max = strs.sh_size - sh.sh_name;
        if (strnlen(nm, max) == max || strcmp(nm, want)) continue;
        if (sh.sh_type == SHT_NOBITS || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
            return -1;
        *off = sh.sh_offset;
        *len = sh.sh_size;
        return 0;
    }
    return -1;
}

#define FATBIN_MAGIC 0xBA55ED50u

/* Each fatbinary of a section, in order; calls fn with it. Returns how many were seen. */
static int each_fatbin(const unsigned char *p, size_t len,
                       int (*fn)(const unsigned char *, size_t, void *), void *arg)
{
    int n = 0;
    for (size_t at = 0; at + 16 <= len;) {
        uint32_t magic;
        memcpy(&magic, p + at, 4);
        if (magic != FATBIN_MAGIC) { at += 8; continue; }
        uint64_t body;
        memcpy(&body, p + at + 8, 8);
        uint64_t total = (uint64_t)(p[at + 6] | p[at + 7] << 8) + body;
        if (total > len - at || total < 16) break;
        n++;
        if (fn(p + at, (size_t)total, arg)) break;
        at += (total + 7) & ~(uint64_t)7;
    }
    return n;
}

typedef struct Verdict {
    int with_ptx, without;       /* fatbinaries with runnable PTX, and without            */
    char why[1024];              /* the reason of the first one without                   */
} Verdict;

static int judge(const unsigned char *fb, size_t size, void *arg)
{
    Verdict *v = arg;
    if (!fatbin_has_code(fb, size))
        return 0;                /* the device-link step's empty cubin: nothing to run */
    FatbinPtx ptx;
    char err[1024] = "";
    int rc = fatbin_pick_ptx_data(fb, size, &ptx, err, sizeof err);
    if (rc == FATBIN_OK) {
        int has_target = strstr(ptx.text, ".target") != NULL;
        fatbin_free(&ptx);
        if (has_target) {
            v->with_ptx++;
            return 0;
        }
        snprintf(err, sizeof err, "its PTX has no .target directive; rebuild it with nvcc, "
                 "which writes one");
    }
    /* the program's own files come after the runtime's fatbinary: the last reason is theirs,
     * unless it only says the fatbinary is empty */
    if (!v->without++ || !strstr(err, "holds no code entries"))
        snprintf(v->why, sizeof v->why, "%s", err);
    return 0;
}

int inspect_program(const char *path, char *msg, size_t n)
{
    size_t size, off, len;
    unsigned char *f = read_file(path, &size);
    if (!f) return 0;                          /* not ours to judge: let exec report it */
    int verdict = 0;
    if (section(f, size, ".nv_fatbin", &off, &len) == 0) {
        Verdict v;
        memset(&v, 0, sizeof v);
        each_fatbin(f + off, len, judge, &v);
        Verdict rel;
        memset(&rel, 0, sizeof rel);
        if (!v.with_ptx && section(f, size, "__nv_relfatbin", &off, &len) == 0)
            each_fatbin(f + off, len, judge, &rel);
        /* Only a program with no runnable PTX at all is refused: with -rdc=true the
         * registered fatbinary is SASS only and the files' PTX (in __nv_relfatbin) is
         * linked instead. */
        if (v.without && !v.with_ptx && !rel.with_ptx) {
            const char *slash = strrchr(path, '/');
            snprintf(msg, n, "%s cannot run on ptxemu: %s", slash ? slash + 1 : path, v.why);
            verdict = 1;
        }
    }
    free(f);
    return verdict;
}
