/* test_sfu.c - the MUFU tables (emu/sfu.c): each family loads alone, reading its file only
 * as far as its own tables, and gives the recorded values in every entry.
 *
 * The expected hashes are FNV-1a over the results, computed with the loader of a5a28ab, which
 * unpacked the whole of each file at once (the values the H100 recorded, sfu_pack.c): over
 * each first-file table's whole range through its function (the function returns the entry
 * itself there: ex2 on [1,2) and [-2,-1), rcp on [1,2), rsqrt and sqrt on [1,4), lg2 on
 * [1,2) and [0.5,1)), over every entry of the tanh tables, and over every 4099th bit pattern
 * for sin and cos (an entry decoded wrong moves every later one: the running sums). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "emu/sfu.h"
#include "check.h"

static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static void mix(uint64_t *h, uint32_t v)
{
    for (int i = 0; i < 4; i++) { *h ^= (v >> (8 * i)) & 255; *h *= 1099511628211ull; }
}

/* fn on the count bit patterns from first, ftz and not */
static uint64_t hash_run(float (*fn)(float, int), uint32_t first, uint32_t count)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < count; i++) {
        float x = bf(first + i);
        mix(&h, fb(fn(x, 1)));
        mix(&h, fb(fn(x, 0)));
    }
    return h;
}

static uint64_t hash_family(int fam)
{
    const uint32_t n = 1u << 23;
    switch (fam) {
    case SFU_EX2: return hash_run(sfu_ex2, 0x3f800000u, n) ^ hash_run(sfu_ex2, 0xbf800000u, n) << 1;
    case SFU_RCP: return hash_run(sfu_rcp, 0x3f800000u, n);
    case SFU_RSQRT: return hash_run(sfu_rsqrt, 0x3f800000u, 2 * n);
    case SFU_SQRT: return hash_run(sfu_sqrt, 0x3f800000u, 2 * n);
    default: return hash_run(sfu_lg2, 0x3f800000u, n) ^ hash_run(sfu_lg2, 0x3f000000u, n) << 1;
    }
}

static const char *const fam_name[SFU_FAMILIES] = { "ex2", "rcp", "rsqrt", "sqrt", "lg2" };
static const uint64_t recorded[SFU_FAMILIES] = {
    0xcc7a94518e466629ull, 0xc59842e245865493ull, 0x25e244ed9b9027dfull,
    0xf544f067602452dbull, 0xeebdfa988af99185ull,
};

static int loaded(int fam) { return __atomic_load_n(&sfu_loaded[fam], __ATOMIC_ACQUIRE); }

typedef struct Job { int fam, ok; uint64_t h; } Job;
static void *first_use(void *p)
{
    Job *j = p;
    j->ok = sfu_ok(j->fam);
    j->h = j->ok ? hash_family(j->fam) : 0;
    return NULL;
}

int main(void)
{
    for (int f = 0; f < SFU_FAMILIES; f++) CHECK(!loaded(f), "%s loaded before its first use", fam_name[f]);

    /* ex2 alone: the others stay unloaded */
    CHECK(sfu_ready(SFU_EX2), "ex2 does not load");
    for (int f = 1; f < SFU_FAMILIES; f++) CHECK(!loaded(f), "loading ex2 loaded %s too", fam_name[f]);
    CHECK(!sfu_trig_loaded && !sfu_tanh_loaded && !sfu_halfs_loaded, "loading ex2 loaded the second file's tables");
    uint64_t h = hash_family(SFU_EX2);
    CHECK(h == recorded[SFU_EX2], "ex2's values: hash %016llx, recorded %016llx", (unsigned long long)h,
          (unsigned long long)recorded[SFU_EX2]);

    /* lg2 alone (the file's last tables: every other one skipped), then the rest at once,
     * each thread its family's first use */
    CHECK(sfu_ready(SFU_LG2), "lg2 does not load");
    for (int f = 1; f < SFU_LG2; f++) CHECK(!loaded(f), "loading lg2 loaded %s too", fam_name[f]);
    Job job[SFU_FAMILIES];
    pthread_t th[SFU_FAMILIES];
    for (int f = 0; f < SFU_FAMILIES; f++) {
        job[f] = (Job){ f, 0, 0 };
        CHECK(pthread_create(&th[f], NULL, first_use, &job[f]) == 0, "thread %d", f);
    }
    for (int f = 0; f < SFU_FAMILIES; f++) {
        pthread_join(th[f], NULL);
        CHECK(job[f].ok, "%s does not load", fam_name[f]);
        CHECK(job[f].h == recorded[f], "%s's values: hash %016llx, recorded %016llx", fam_name[f],
              (unsigned long long)job[f].h, (unsigned long long)recorded[f]);
    }
    CHECK(sfu_ready(-1) == 0 && sfu_ready(SFU_FAMILIES) == 0, "a family that does not exist loads");

    /* the second file: tanh (its second table) alone, then sin/cos and the halves */
    CHECK(sfu_tanh_ready(), "tanh does not load");
    CHECK(!sfu_trig_loaded && !sfu_halfs_loaded, "loading tanh loaded sin or the halves too");
    static const uint8_t q[11] = { 6, 6, 6, 5, 5, 4, 4, 4, 3, 2, 3 };   /* sfu.c's tanh_q */
    h = 1469598103934665603ull;
    for (int e = -8; e <= 2; e++)
        for (uint32_t m = 0; m < 1u << 23; m += 1u << q[e + 8]) mix(&h, fb(sfu_tanh(bf((uint32_t)(e + 127) << 23 | m))));
    CHECK(h == 0x64d4d410cd772634ull, "tanh's values: hash %016llx", (unsigned long long)h);
    CHECK(sfu_trig_ready(), "sin does not load");
    h = 1469598103934665603ull;
    for (uint64_t u = 0; u < 1ull << 32; u += 4099) {
        mix(&h, fb(sfu_sin(bf((uint32_t)u), 0)));
        mix(&h, fb(sfu_cos(bf((uint32_t)u), 1)));
    }
    CHECK(h == 0xe359c7fedf0bd719ull, "sin and cos's values: hash %016llx", (unsigned long long)h);
    CHECK(sfu_halfs_ready(), "the halves do not load");
    h = 1469598103934665603ull;
    for (uint32_t v = 0; v < 65536; v++)
        for (int k = 0; k < 4; k++) mix(&h, sfu_half(k & 1, (uint16_t)v, k >> 1));
    CHECK(h == 0x39666ac2265a2e3cull, "the halves' values: hash %016llx", (unsigned long long)h);

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
