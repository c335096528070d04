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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/launcher/inspect.h"
#include "frontend/elffile.h"
#include "frontend/fatbin.h"

typedef struct Verdict {
    int with_ptx, without;       /* fatbinaries with runnable PTX, and without            */
    char why[1024];              /* the reason of the first one without                   */
} Verdict;

static int judge(const void *fb, size_t size, void *arg)
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
    unsigned char *f = elf_read_file(path, &size);
    if (!f) return 0;                          /* not ours to judge: let exec report it */
    int verdict = 0;
    if (elf_section(f, size, ".nv_fatbin", &off, &len) == 0) {
        Verdict v;
        memset(&v, 0, sizeof v);
        fatbin_each(f + off, len, judge, &v);
        Verdict rel;
        memset(&rel, 0, sizeof rel);
        if (!v.with_ptx && elf_section(f, size, "__nv_relfatbin", &off, &len) == 0)
            fatbin_each(f + off, len, judge, &rel);
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
