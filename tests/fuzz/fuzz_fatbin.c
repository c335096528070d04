/* fuzz_fatbin.c - libFuzzer harness: the fatbinary reader with the length known (a section
 * of an ELF file, cuModuleLoadFatBinary) and without it (the registration wrapper, whose
 * data pointer says nothing of its size: here the input ends at an unmapped page, as a
 * section ends where the mapping does). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "frontend/fatbin.h"

static int count_one(const void *fatbin, size_t size, void *arg)
{
    FatbinPtx p;
    char err[512];
    (void)arg;
    if (fatbin_pick_ptx_data(fatbin, size, &p, err, sizeof err) == FATBIN_OK) fatbin_free(&p);
    return 0;
}

static void without_length(const uint8_t *data, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), room = (n + page - 1) / page * page;
    if (!room) room = page;
    uint8_t *map = mmap(NULL, room + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return;
    mprotect(map + room, page, PROT_NONE);   /* the input ends where readable memory does */
    uint8_t *at = map + room - n;
    memcpy(at, data, n);
    struct { int magic, version; const void *data; void *aux; } w = { (int)0x466243b1, 1, at, NULL };
    FatbinPtx p;
    char err[512];
    if (fatbin_pick_ptx(&w, &p, err, sizeof err) == FATBIN_OK) fatbin_free(&p);
    munmap(map, room + page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    FatbinPtx p;
    char err[512];
    if (fatbin_pick_ptx_data(data, n, &p, err, sizeof err) == FATBIN_OK) fatbin_free(&p);
    fatbin_each(data, n, count_one, NULL);
    fatbin_has_code(data, n);
    without_length(data, n);
    return 0;
}
