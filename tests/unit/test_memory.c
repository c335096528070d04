/* test_memory.c - unit tests of emu/memory.c: the arena, allocation and reuse, the allocation
 * table, per-space address resolution and the messages of bad accesses.
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra tests/unit/test_memory.c emu/memory.c -lpthread
 * Prints one line per failure and "N passed, N failed"; exits 1 on any failure. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../emu/memory.h"
#include "../../emu/emu.h"

#include "check.h"

/* ---- test double of engine.c's fault path ---- */
static int fault_code, fault_lane, fault_count;
static char fault_msg[768];

int warp_fault(Warp *w, int lane, int cuda_err, const char *fmt, ...)
{
    (void)w;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fault_msg, sizeof fault_msg, fmt, ap);
    va_end(ap);
    fault_code = cuda_err;
    fault_lane = lane;
    fault_count++;
    return STEP_FAULT;
}

/* engine.c's warning path: counted; these tests run with PTXEMU_STRICT_BOUNDS=1 (set in
 * main), so the GPU's tolerance of accesses just past an allocation is tested end to end by
 * tests/run_launcher_tests.sh instead */
static int warn_count;
void warp_warn(Warp *w, int lane, const char *fmt, ...)
{
    (void)w; (void)lane; (void)fmt;
    warn_count++;
}

void warp_warn_kind(Warp *w, int lane, const char *kind, const char *fmt, ...)
{
    (void)w; (void)lane; (void)kind; (void)fmt;
    warn_count++;
}

static void reset_fault(void) { fault_code = 0; fault_lane = -1; fault_count = 0; fault_msg[0] = 0; }

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void test_init_alloc(void)
{
    CHECK(mem_init() == 0, "mem_init failed");
    CHECK(mem_init() == 0, "mem_init not idempotent");
    printf("info: arena at 0x%llx\n", (unsigned long long)mem_arena_lo);
    CHECK(mem_alloc(0, MEM_DEVICE) == 0, "mem_alloc(0) should return 0");
    uint64_t a = mem_alloc(1, MEM_DEVICE), b = mem_alloc(1000, MEM_DEVICE);
    uint64_t c = mem_alloc(4096, MEM_DEVICE);
    CHECK(a && b && c, "allocations failed");
    CHECK(a % 256 == 0 && b % 256 == 0 && c % 256 == 0, "not 256-byte aligned");
    CHECK(mem_in_arena(a) && mem_in_arena(c + 4095), "not in arena");
    CHECK(b >= a + 256 + 256, "no gap after a 1-byte block: a=%llx b=%llx",
          (unsigned long long)a, (unsigned long long)b);
    CHECK(c >= b + 1024 + 256, "no gap after a 1000-byte block");
    memset((void *)(uintptr_t)c, 0xab, 4096);
    CHECK(((uint8_t *)(uintptr_t)c)[4095] == 0xab, "memory not writable");
    CHECK(((uint8_t *)(uintptr_t)b)[999] == 0, "new memory not zero");
    size_t sz = 0; int kind = -1;
    CHECK(mem_find(b + 500, &sz, &kind) == b && sz == 1000 && kind == MEM_DEVICE, "mem_find");
    CHECK(mem_find(b + 1000, NULL, NULL) == 0, "mem_find past the end");
    CHECK(mem_host(b, 1000) == (void *)(uintptr_t)b, "mem_host whole block");
    CHECK(mem_host(b + 999, 1) != NULL, "mem_host last byte");
    CHECK(mem_host(b + 999, 2) == NULL, "mem_host crossing the end");
    CHECK(mem_host(b - 1, 1) == NULL, "mem_host before the start");
    CHECK(mem_free(b + 1, MEM_DEVICE) == -1, "free of an interior address");
    CHECK(mem_free(b, MEM_HOST_PINNED) == -1, "free with the wrong kind");
    CHECK(mem_free(b, MEM_DEVICE) == 0, "free");
    CHECK(mem_free(b, MEM_DEVICE) == -1, "double free");
    CHECK(mem_host(b, 1) == NULL, "mem_host of freed memory");
    uint64_t m = mem_alloc(100, MEM_MANAGED);
    CHECK(m && mem_free(m, MEM_DEVICE) == 0, "cudaFree frees managed memory");
    /* fresh address space first: a freed block's addresses are not handed out again soon,
     * so a kernel touching freed memory faults instead of hitting a newer block */
    uint64_t b2 = mem_alloc(500, MEM_DEVICE);
    CHECK(b2 != b && b2 > c, "freed range reused at once: %llx", (unsigned long long)b2);
    mem_free(a, MEM_DEVICE); mem_free(b2, MEM_DEVICE); mem_free(c, MEM_DEVICE);
}

static void test_usage_and_loop(void)
{
    size_t used0, total;
    mem_usage(&used0, &total);
    CHECK(total == 80ull << 30, "total is not 80 GiB");
    int ok = 1;
    for (int i = 0; i < 2000; i++) {
        uint64_t p = mem_alloc((size_t)(1 + i % 7) << 16, MEM_DEVICE);
        if (!p) { ok = 0; break; }
        ((volatile uint8_t *)(uintptr_t)p)[0] = 1;
        if (mem_free(p, MEM_DEVICE)) { ok = 0; break; }
    }
    CHECK(ok, "alloc/free loop failed");
    size_t used1;
    mem_usage(&used1, NULL);
    CHECK(used1 == used0, "usage grew: %zu -> %zu", used0, used1);
    uint64_t h = mem_alloc(1 << 20, MEM_HOST_PINNED);
    mem_usage(&used1, NULL);
    CHECK(used1 == used0, "pinned host memory counted as device memory");
    mem_free(h, MEM_HOST_PINNED);
    CHECK(mem_alloc((80ull << 30) + 1, MEM_DEVICE) == 0, "more than 80 GiB allocated");
}

static void test_pages_returned(void)
{
    size_t n = 64u << 20;
    long r0 = rss_kib();
    uint64_t p = mem_alloc(n, MEM_DEVICE);
    memset((void *)(uintptr_t)p, 1, n);
    long r1 = rss_kib();
    mem_free(p, MEM_DEVICE);
    long r2 = rss_kib();
    CHECK(r1 - r0 > 60000, "RSS did not grow on touch (%ld -> %ld KiB)", r0, r1);
    CHECK(r1 - r2 > 60000, "freed pages not returned (%ld -> %ld KiB)", r1, r2);
    uint64_t q = mem_alloc(n, MEM_DEVICE);
    CHECK(q && q != p && ((uint8_t *)(uintptr_t)q)[n / 2] == 0, "new block not fresh");
    mem_free(q, MEM_DEVICE);
}

/* The arena is advised for huge pages: the mapping that holds a large block carries the
 * kernel's "hg" flag (VmFlags in /proc/self/smaps). Skipped where the kernel has no
 * transparent huge pages; whether a fault gets one depends on the machine, so only the
 * advice is checked. */
static void test_hugepage_advice(void)
{
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK)) {
        printf("huge-page advice: skipped (no transparent huge pages)\n");
        return;
    }
    size_t n = 8u << 20;
    uint64_t p = mem_alloc(n, MEM_DEVICE);
    CHECK(p != 0, "8 MiB allocation failed");
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f != NULL, "no /proc/self/smaps");
    if (!f) return;
    char line[512];
    int in = 0, found = 0, advised = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = p + n / 2 >= lo && p + n / 2 < hi;
            found |= in;
        } else if (in && !strncmp(line, "VmFlags:", 8)) {
            advised = strstr(line, " hg") != NULL;
        }
    }
    fclose(f);
    CHECK(found && advised, "the block's mapping is not advised for huge pages (found %d)", found);
    mem_free(p, MEM_DEVICE);
}

/* ---- resolution ---- */

static uint8_t shared_buf[1024] __attribute__((aligned(16)));
static uint8_t local_buf[32 * 256] __attribute__((aligned(16)));
static Cta cta;

static void mkwarp(Warp *w)
{
    memset(w, 0, sizeof *w);
    cta.shared = shared_buf;
    cta.shared_size = sizeof shared_buf;
    w->cta = &cta;
    w->local = local_buf;
    w->local_stride = 256;
}

static void test_lane_ptr(void)
{
    Warp w;
    mkwarp(&w);
    uint64_t a = mem_alloc(1024, MEM_DEVICE);
    reset_fault();
    CHECK(mem_lane_ptr(&w, SP_GLOBAL, a + 1020, 4, 4, 0, ACC_READ) == (void *)(uintptr_t)(a + 1020),
          "in-bounds global");
    CHECK(mem_cache_hit(a, 1024), "cache not filled");
    CHECK(mem_lane_ptr(&w, SP_GLOBAL, a + 1024, 4, 4, 3, ACC_WRITE) == NULL, "past the end");
    CHECK(fault_code == EMU_ERR_ILLEGAL_ADDRESS && fault_lane == 3, "code %d lane %d", fault_code,
          fault_lane);
    CHECK(strstr(fault_msg, "out-of-bounds global write of 4 bytes") &&
          strstr(fault_msg, "0 bytes past the end of a 1024-byte allocation"), "msg: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, a + 1032, 8, 8, 0, ACC_READ) &&
          strstr(fault_msg, "8 bytes past the end of a 1024-byte allocation"), "msg: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, a + 1022, 4, 2, 0, ACC_READ) &&
          strstr(fault_msg, "runs 2 bytes past the end"), "straddling: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, a + 2, 4, 4, 5, ACC_READ) &&
          fault_code == EMU_ERR_MISALIGNED_ADDRESS && fault_lane == 5, "misaligned: %d", fault_code);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, 0, 4, 4, 0, ACC_READ) && strstr(fault_msg, "null pointer"),
          "null: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, (uint64_t)(uintptr_t)&w, 4, 1, 0, ACC_READ) &&
          strstr(fault_msg, "not a device address"), "host: %s", fault_msg);
    mem_lane_ptr(&w, SP_GLOBAL, a, 4, 4, 0, ACC_READ);
    mem_free(a, MEM_DEVICE);
    CHECK(!mem_cache_hit(a, 4), "free did not invalidate the cache");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, a + 16, 4, 4, 0, ACC_READ) && strstr(fault_msg, "freed memory")
          && strstr(fault_msg, "1024-byte"), "freed: %s", fault_msg);
    /* a block right after: an underrun names the block it precedes */
    uint64_t x = mem_alloc(4096, MEM_DEVICE), y = mem_alloc(64, MEM_DEVICE);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, y - 4, 4, 4, 0, ACC_READ) &&
          strstr(fault_msg, "4 bytes before the start of a 64-byte allocation"), "under: %s", fault_msg);
    mem_free(x, MEM_DEVICE); mem_free(y, MEM_DEVICE);

    /* shared */
    reset_fault();
    CHECK(mem_lane_ptr(&w, SP_SHARED, 1020, 4, 4, 0, ACC_READ) == shared_buf + 1020, "shared ok");
    CHECK(!mem_lane_ptr(&w, SP_SHARED, 1024, 4, 4, 0, ACC_READ) && fault_code == EMU_ERR_ILLEGAL_ADDRESS
          && strstr(fault_msg, "1024 bytes of shared memory"), "shared oob: %s", fault_msg);
    /* local */
    CHECK(mem_lane_ptr(&w, SP_LOCAL, 8, 8, 8, 2, ACC_READ) == local_buf + 2 * 256 + 8, "local ok");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_LOCAL, 256, 1, 1, 0, ACC_READ) && strstr(fault_msg, "stack overflow"),
          "local oob: %s", fault_msg);
    Warp w2 = w;
    w2.local = NULL;
    reset_fault();
    CHECK(!mem_lane_ptr(&w2, SP_LOCAL, 0, 1, 1, 0, ACC_READ) && strstr(fault_msg, "stack overflow"),
          "no local memory");
    /* generic */
    uint64_t g = mem_alloc(64, MEM_DEVICE);
    CHECK(mem_generic_space(g) == SP_GLOBAL && mem_generic_space(SHARED_WINDOW + 4) == SP_SHARED &&
          mem_generic_space(LOCAL_WINDOW) == SP_LOCAL && mem_generic_space(0) == SP_NONE,
          "mem_generic_space");
    CHECK(mem_lane_ptr(&w, SP_GENERIC, g + 8, 8, 8, 0, ACC_READ) == (void *)(uintptr_t)(g + 8),
          "generic global");
    CHECK(mem_lane_ptr(&w, SP_GENERIC, SHARED_WINDOW + 16, 4, 4, 0, ACC_READ) == shared_buf + 16,
          "generic shared");
    CHECK(mem_lane_ptr(&w, SP_GENERIC, LOCAL_WINDOW + 16, 4, 4, 1, ACC_READ) == local_buf + 256 + 16,
          "generic local");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GENERIC, 0x10, 4, 4, 0, ACC_READ) &&
          strstr(fault_msg, "not in any state space") && fault_code == EMU_ERR_ILLEGAL_ADDRESS,
          "generic none: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GENERIC, SHARED_WINDOW + 3, 4, 4, 0, ACC_READ) &&
          fault_code == EMU_ERR_MISALIGNED_ADDRESS, "generic misaligned");
    mem_free(g, MEM_DEVICE);
}

static void test_warp_ptrs(void)
{
    Warp w;
    mkwarp(&w);
    uint64_t rows[3 * WARP_SIZE] = {0};
    w.R = rows;
    Inst in;
    memset(&in, 0, sizeof in);
    in.base = 2;
    uint8_t *host[WARP_SIZE];
    uint64_t a = mem_alloc(32 * 16, MEM_DEVICE);
    for (int l = 0; l < 32; l++) ROW(&w, 2)[l] = a + 16 * (uint64_t)l;
    in.space = SP_GLOBAL;
    in.imm = 8;
    reset_fault();
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 8, ACC_READ, host) == 0 &&
          host[31] == (uint8_t *)(uintptr_t)(a + 16 * 31 + 8), "global warp");
    ROW(&w, 2)[7] += 1024;
    ROW(&w, 2)[9] += 1024;
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 8, ACC_READ, host) == STEP_FAULT && fault_lane == 7,
          "lowest faulting lane: %d", fault_lane);
    reset_fault();
    CHECK(mem_warp_ptrs(&w, &in, 1u << 3, 8, ACC_READ, host) == 0 && fault_count == 0,
          "lanes outside mask ignored");
    in.imm = 4;
    CHECK(mem_warp_ptrs(&w, &in, 1u << 3, 8, ACC_READ, host) == STEP_FAULT &&
          fault_code == EMU_ERR_MISALIGNED_ADDRESS, "vector misaligned");
    /* shared: 32-bit offsets */
    for (int l = 0; l < 32; l++) ROW(&w, 2)[l] = 4 * (uint64_t)l;
    in.space = SP_SHARED; in.imm = 0;
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 4, ACC_WRITE, host) == 0 && host[5] == shared_buf + 20,
          "shared warp");
    /* local, frame-relative */
    for (int l = 0; l < 32; l++) { ROW(&w, 2)[l] = 4; w.fp[l] = 8; }
    in.flags = IF_FRAME; in.space = SP_LOCAL; in.imm = 4;
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 4, ACC_READ, host) == 0 &&
          host[3] == local_buf + 3 * 256 + 16, "frame warp");
    /* generic mixture of windows */
    in.flags = 0; in.space = SP_GENERIC; in.imm = 0;
    for (int l = 0; l < 32; l++)
        ROW(&w, 2)[l] = l & 1 ? SHARED_WINDOW + 4 * (uint64_t)l : LOCAL_WINDOW + 4;
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 4, ACC_READ, host) == 0 && host[3] == shared_buf + 12 &&
          host[4] == local_buf + 4 * 256 + 4, "generic mixture");
    for (int l = 0; l < 32; l++) ROW(&w, 2)[l] = SHARED_WINDOW + 4 * (uint64_t)l;
    CHECK(mem_warp_ptrs(&w, &in, FULL_MASK, 4, ACC_READ, host) == 0 && host[31] == shared_buf + 124,
          "generic shared warp");
    mem_free(a, MEM_DEVICE);
}

/* Two threads allocating, filling and freeing: blocks must never overlap. */
static void *churn(void *arg)
{
    uint8_t tag = (uint8_t)(uintptr_t)arg;
    uint64_t blocks[16] = {0};
    for (int i = 0; i < 3000; i++) {
        int k = i % 16;
        if (blocks[k]) {
            uint8_t *p = (uint8_t *)(uintptr_t)blocks[k];
            size_t n = 0;
            mem_find(blocks[k], &n, NULL);
            for (size_t j = 0; j < n; j += 97) if (p[j] != tag) return (void *)1;
            mem_free(blocks[k], MEM_DEVICE);
        }
        size_t n = 100 + (size_t)(i * 37 % 5000);
        blocks[k] = mem_alloc(n, MEM_DEVICE);
        if (!blocks[k]) return (void *)1;
        memset((void *)(uintptr_t)blocks[k], tag, n);
    }
    for (int k = 0; k < 16; k++) mem_free(blocks[k], MEM_DEVICE);
    return NULL;
}

static void test_threads(void)
{
    pthread_t t1, t2;
    void *r1, *r2;
    pthread_create(&t1, NULL, churn, (void *)1);
    pthread_create(&t2, NULL, churn, (void *)2);
    pthread_join(t1, &r1);
    pthread_join(t2, &r2);
    CHECK(!r1 && !r2, "concurrent allocations overlapped or failed");
}

/* Registered host memory: the program's own bytes become global memory where they are. */
static void test_registered(void)
{
    Warp w;
    mkwarp(&w);
    static int buf[1024], ro[64];
    uint64_t b = (uint64_t)(uintptr_t)buf, r = (uint64_t)(uintptr_t)ro;
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, b, 4, 4, 0, ACC_READ) && strstr(fault_msg, "not a device "
          "address"), "unregistered: %s", fault_msg);
    CHECK(mem_register(b, sizeof buf, 0) == 0, "register");
    CHECK(mem_register(b + 64, 16, 0) == MEM_REG_OVERLAP, "overlapping inside");
    CHECK(mem_register(b - 16, 32, 0) == MEM_REG_OVERLAP, "overlapping the start");
    uint64_t d = mem_alloc(64, MEM_DEVICE);
    CHECK(mem_register(d, 64, 0) == MEM_REG_UNUSABLE, "device memory");
    mem_free(d, MEM_DEVICE);
    CHECK(mem_register(SHARED_WINDOW + 64, 64, 0) == MEM_REG_UNUSABLE, "the shared window");
    CHECK(mem_register(b, 0, 0) == MEM_REG_UNUSABLE, "empty");
    CHECK(mem_generic_space(b + 8) == SP_GLOBAL && mem_is_global(b + 8), "generic: global");
    CHECK(mem_lane_ptr(&w, SP_GLOBAL, b + 4092, 4, 4, 0, ACC_WRITE) == (void *)(buf + 1023),
          "in bounds");
    CHECK(mem_lane_ptr(&w, SP_GENERIC, b + 8, 8, 8, 0, ACC_ATOMIC) == (void *)(buf + 2),
          "generic");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, b + 4096, 4, 4, 1, ACC_READ) &&
          fault_code == EMU_ERR_ILLEGAL_ADDRESS, "past the end");
    size_t sz;
    int kind;
    CHECK(mem_find(b + 100, &sz, &kind) == b && sz == sizeof buf && kind == MEM_REGISTERED,
          "mem_find");
    size_t used0, used1;
    mem_usage(&used0, NULL);
    CHECK(mem_register(r, sizeof ro, 1) == 0, "register read-only");
    mem_usage(&used1, NULL);
    CHECK(used0 == used1, "registered memory is not device memory");
    CHECK(mem_lane_ptr(&w, SP_GLOBAL, r + 4, 4, 4, 0, ACC_READ) == (void *)(ro + 1), "ro read");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, r + 4, 4, 4, 2, ACC_WRITE) && fault_lane == 2 &&
          strstr(fault_msg, "registered read-only"), "ro write: %s", fault_msg);
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, r, 4, 4, 0, ACC_ATOMIC) && fault_count == 1, "ro atomic");
    CHECK(mem_unregister(b + 4) == MEM_REG_INSIDE, "unregister inside");
    CHECK(mem_unregister(b) == 0 && mem_unregister(r) == 0, "unregister");
    CHECK(mem_unregister(b) == MEM_REG_NONE, "unregister again");
    CHECK(!mem_cache_hit(b, 4) && !mem_is_global(b) && mem_generic_space(b) == SP_NONE,
          "gone after unregistering");
    reset_fault();
    CHECK(!mem_lane_ptr(&w, SP_GLOBAL, b, 4, 4, 0, ACC_READ), "faults again");
}

int main(void)
{
    setenv("PTXEMU_STRICT_BOUNDS", "1", 1);   /* faults past the end, as these tests expect */
    test_init_alloc();
    test_usage_and_loop();
    test_pages_returned();
    test_hugepage_advice();
    test_lane_ptr();
    test_warp_ptrs();
    test_registered();
    test_threads();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
