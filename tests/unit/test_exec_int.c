/* test_exec_int.c - unit tests of the integer, logic, compare, select and move handlers
 * (emu/exec_int.c, emu/exec_cmp.c) and of device printf formatting (emu/devprintf.c).
 * Each case binds a hand-made Inst/InstDesc, runs the handler on a hand-built Warp, once for
 * the whole warp and once for a partial mask (lanes outside it must keep their value).
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra tests/unit/test_exec_int.c emu/exec_int.c
 *        emu/exec_cmp.c emu/devprintf.c -lpthread
 * Prints one line per failure and "N passed, N failed"; exits 1 on any failure. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../emu/exec.h"
#include "../../emu/memory.h"

#include "check.h"

/* ---- test doubles of engine.c, memory.c and exec_float.c ---- */
static int fault_code, fault_count;

int warp_fault(Warp *w, int lane, int cuda_err, const char *fmt, ...)
{
    (void)w; (void)lane; (void)fmt;
    fault_code = cuda_err;
    fault_count++;
    return STEP_FAULT;
}

/* Device memory for %s: one host buffer whose host address is its device address. The
 * inline mem_lane_ptr sends generic addresses to mem_lane_ptr_slow, doubled here. */
static char devmem[256];
__thread MemCache mem_cache;
uint64_t mem_generation, mem_arena_lo, mem_arena_hi;

void *mem_lane_ptr_slow(Warp *w, int space, uint64_t addr, unsigned size, unsigned align,
                        int lane, int access)
{
    (void)space; (void)align; (void)access;
    uint64_t lo = (uint64_t)(uintptr_t)devmem;
    if (addr < lo || addr + size > lo + sizeof devmem) {
        warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "bad address");
        return NULL;
    }
    return (void *)(uintptr_t)addr;
}

static const char half_msg[] = "half delegated";
const char *bind_half_setp(Inst *in, const InstDesc *d) { (void)in; (void)d; return half_msg; }
const char *bind_half_set(Inst *in, const InstDesc *d) { (void)in; (void)d; return half_msg; }

/* ---- a warp ---- */
enum { NROWS = 32, NPREDS = 16, RD = 10, RS = 2, PD = 4 };   /* dest row 10.., sources 2.. */
static uint64_t rows[NROWS * WARP_SIZE];
static uint32_t preds[NPREDS];
static Launch launch;
static Warp warp = { .R = rows, .P = preds, .launch = &launch };
#define SENT 0x5a5a5a5a5a5a5a5aull

/* ---- building an instruction from a short spec: type and modifier names ---- */
static const struct { const char *name; int ty; } tynames[] = {
    { "b16", TY_B16 }, { "b32", TY_B32 }, { "b64", TY_B64 }, { "b128", TY_B128 },
    { "u16", TY_U16 }, { "u32", TY_U32 }, { "u64", TY_U64 }, { "s16", TY_S16 },
    { "s32", TY_S32 }, { "s64", TY_S64 }, { "f16", TY_F16 }, { "f32", TY_F32 },
    { "f64", TY_F64 }, { "pred", TY_PRED }, { "u8", TY_U8 }, { "u16x2", TY_U16X2 },
    { "s16x2", TY_S16X2 },
};
static const char *modnames[] = {
#define X(n) #n,
    PTX_MODS(X)
#undef X
};

static void make_desc(InstDesc *d, const char *spec, int nd, int ns)
{
    char buf[128], *save = NULL;
    memset(d, 0, sizeof *d);
    d->nd = nd; d->ns = ns; d->vec = 1; d->text = spec;
    d->src_imm_mask = 0xf;
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        int done = 0;
        for (size_t i = 0; i < sizeof tynames / sizeof tynames[0] && !done; i++)
            if (!strcmp(t, tynames[i].name)) { d->types[d->ntypes++] = (uint8_t)tynames[i].ty; done = 1; }
        for (int m = 0; m < MOD_COUNT && !done; m++)
            if (!strcasecmp(t, modnames[m])) { d->mods[m >> 6] |= 1ull << (m & 63); done = 1; }
        if (!done) printf("bad spec word %s\n", t);
    }
}

/* Bind; operands: d[i] = RD+i (or predicate PD+i), s[i] = RS+i. */
static const char *bind_inst(Binder b, Inst *in, const char *spec, int nd, int ns)
{
    InstDesc d;
    make_desc(&d, spec, nd, ns);
    memset(in, 0, sizeof *in);
    in->nd = (uint8_t)nd; in->ns = (uint8_t)ns; in->vec = 1;
    in->t = d.types[0]; in->t2 = d.types[1];
    for (int i = 0; i < nd; i++) in->d[i] = RD + i;
    for (int i = 0; i < ns; i++) in->s[i] = RS + i;
    return b(in, &d);
}

static void fill_row(int r, uint64_t v) { for (int l = 0; l < WARP_SIZE; l++) ROW(&warp, r)[l] = v; }

/* Run a bound instruction on uniform sources; returns lane 0's result and checks that all
 * lanes agree and that a partial mask leaves the other lanes alone. */
static uint64_t run_uniform(const Inst *in, const uint64_t *src, int ns, const char *spec)
{
    for (int i = 0; i < ns; i++) fill_row(RS + i, src[i]);
    fill_row(RD, SENT);
    in->fn(&warp, in, FULL_MASK);
    uint64_t r = ROW(&warp, RD)[0];
    int same = 1;
    for (int l = 1; l < WARP_SIZE; l++) same &= ROW(&warp, RD)[l] == r;
    CHECK(same, "%s: lanes disagree", spec);
    fill_row(RD, SENT);
    in->fn(&warp, in, 0x5u);
    CHECK(ROW(&warp, RD)[0] == r && ROW(&warp, RD)[2] == r && ROW(&warp, RD)[1] == SENT &&
          ROW(&warp, RD)[31] == SENT, "%s: partial mask wrong", spec);
    return r;
}

static void expect(Binder b, const char *spec, uint64_t want, int ns, uint64_t s0, uint64_t s1,
                   uint64_t s2, uint64_t s3)
{
    Inst in;
    uint64_t src[4] = { s0, s1, s2, s3 };
    const char *e = bind_inst(b, &in, spec, 1, ns);
    CHECK(!e, "%s: bind failed: %s", spec, e ? e : "");
    if (e) return;
    uint64_t got = run_uniform(&in, src, ns, spec);
    CHECK(got == want, "%s (%llx, %llx, %llx, %llx): got %llx want %llx", spec,
          (unsigned long long)s0, (unsigned long long)s1, (unsigned long long)s2,
          (unsigned long long)s3, (unsigned long long)got, (unsigned long long)want);
}
#define E1(b, spec, want, a) expect(b, spec, want, 1, a, 0, 0, 0)
#define E2(b, spec, want, a, x) expect(b, spec, want, 2, a, x, 0, 0)
#define E3(b, spec, want, a, x, c) expect(b, spec, want, 3, a, x, c, 0)
#define E4(b, spec, want, a, x, c, e) expect(b, spec, want, 4, a, x, c, e)

static void reject(Binder b, const char *spec, int nd, int ns)
{
    Inst in;
    CHECK(bind_inst(b, &in, spec, nd, ns) != NULL, "%s: should be rejected", spec);
}

static uint64_t f32b(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t f64b(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

/* ---------------------------------------------------------------- arithmetic */

static void test_add_sub_mul(void)
{
    E2(bind_int_add, "u32", 0, 0xffffffff, 1);
    E2(bind_int_add, "u32", 7, 0xffffffff00000005ull, 2);          /* readers mask */
    E2(bind_int_add, "s16", 0x8000, 0x7fff, 1);
    E2(bind_int_add, "s64", 0, ~0ull, 1);
    E2(bind_int_add, "sat s32", 0x7fffffff, 0x7fffffff, 1);
    E2(bind_int_add, "sat s32", 0x80000000, 0x80000000, 0xffffffff);
    E2(bind_int_sub, "sat s32", 0x80000000, 0x80000000, 1);
    E2(bind_int_sub, "u64", ~0ull, 0, 1);
    E2(bind_int_sub, "u16", 0xffff, 0, 1);
    E2(bind_int_mul, "lo u16", 1, 0xffff, 0xffff);
    E2(bind_int_mul, "hi u16", 0xfffe, 0xffff, 0xffff);
    E2(bind_int_mul, "hi s16", 0, 0xffff, 0xffff);
    E2(bind_int_mul, "hi s16", 0x4000, 0x8000, 0x8000);
    E2(bind_int_mul, "wide s16", 0xfffffffa, 0xfffe, 3);
    E2(bind_int_mul, "wide u16", 0xfffe0001, 0xffff, 0xffff);
    E2(bind_int_mul, "wide u32", 0xfffffffe00000001ull, 0xffffffff, 0xffffffff);
    E2(bind_int_mul, "wide s32", 1, 0xffffffff, 0xffffffff);
    E2(bind_int_mul, "hi u64", 0xfffffffffffffffeull, ~0ull, ~0ull);
    E2(bind_int_mul, "hi s64", ~0ull, ~0ull, 2);
    E2(bind_int_mul, "hi s32", 0x40000000, 0x80000000, 0x80000000);
    E2(bind_int_mul, "lo s32", 0xfffffffa, 0xfffffffe, 3);
    E2(bind_int_mul, "lo u64", 6, 2, 3);
    E3(bind_int_mad, "lo s32", 17, 3, 4, 5);
    E3(bind_int_mad, "hi u32", 1, 0xffffffff, 0xffffffff, 3);
    E3(bind_int_mad, "wide u16", 0xfffe0002, 0xffff, 0xffff, 1);
    E3(bind_int_mad, "wide s32", 4, 0xfffffffe, 3, 10);
    E3(bind_int_mad, "wide s16", 0xffffffff, 0xffff, 1, 0);
    E3(bind_int_mad, "hi sat s32", 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff);
    E3(bind_int_mad, "hi sat s32", 0x80000000, 0x80000000, 0x7fffffff, 0x80000000);
    E3(bind_int_mad, "hi s64", 0, ~0ull, 2, 1);
    reject(bind_int_mul, "u32", 1, 2);
    reject(bind_int_mul, "wide u64", 1, 2);
    reject(bind_int_mad, "wide s64", 1, 3);
    reject(bind_int_mad, "lo sat s32", 1, 3);
    reject(bind_int_add, "sat u32", 1, 2);
    reject(bind_int_add, "b32", 1, 2);
    reject(bind_int_add, "u32", 1, 3);
}

static void test_div_rem_misc(void)
{
    E2(bind_int_div, "u32", 3, 7, 2);
    E2(bind_int_div, "u32", 0xffffffff, 7, 0);
    E2(bind_int_div, "s32", 0xfffffffd, (uint32_t)-7, 2);
    E2(bind_int_div, "s32", 0x80000000, 0x80000000, 0xffffffff);
    E2(bind_int_div, "s32", 0xffffffff, 5, 0);
    E2(bind_int_div, "s16", 0x8000, 0x8000, 0xffff);
    E2(bind_int_div, "u64", ~0ull, 1, 0);
    E2(bind_int_div, "s64", 0x8000000000000000ull, 0x8000000000000000ull, ~0ull);
    E2(bind_int_rem, "u32", 0xffffffff, 7, 0);
    E2(bind_int_rem, "s32", 0xffffffff, (uint32_t)-7, 2);
    E2(bind_int_rem, "s32", 0, 0x80000000, 0xffffffff);
    E2(bind_int_rem, "u16", 1, 10, 3);
    E2(bind_int_rem, "s64", 1, 7, (uint64_t)-2);
    E1(bind_int_abs, "s32", 5, (uint32_t)-5);
    E1(bind_int_abs, "s32", 0x80000000, 0x80000000);
    E1(bind_int_abs, "s16", 1, 0xffff);
    E1(bind_int_neg, "s64", ~0ull, 1);
    E1(bind_int_neg, "s16", 0xffff, 1);
    reject(bind_int_abs, "u32", 1, 1);
    E2(bind_int_min, "s32", 0xffffffff, 0xffffffff, 1);
    E2(bind_int_min, "u32", 1, 0xffffffff, 1);
    E2(bind_int_min, "u32", 1, 0xffffffff00000001ull, 2);
    E2(bind_int_max, "s16", 1, 0x8000, 1);
    E2(bind_int_max, "u64", ~0ull, ~0ull, 1);
    E2(bind_int_max, "s64", 1, ~0ull, 1);
    E2(bind_int_min, "relu s32", 0, (uint32_t)-5, 3);
    E2(bind_int_max, "relu s32", 0, (uint32_t)-5, (uint32_t)-3);
    E2(bind_int_max, "relu s32", 4, 4, (uint32_t)-3);
    reject(bind_int_max, "relu u32", 1, 2);
    E2(bind_mul24, "lo u32", 6, 0x01000002, 3);
    E2(bind_mul24, "lo s32", 0xfffffffe, 0x00ffffff, 2);
    E2(bind_mul24, "hi u32", 0xfffffe00, 0xffffff, 0xffffff);
    E2(bind_mul24, "hi s32", 0, 0xffffff, 0xffffff);
    E2(bind_mul24, "hi s32", 0x40000000, 0x800000, 0x800000);
    E3(bind_mad24, "lo u32", 10, 2, 3, 4);
    E3(bind_mad24, "hi sat s32", 0x7fffffff, 0x800000, 0x800000, 0x7fffffff);
    E3(bind_mad24, "hi s32", 0, 0x800000, 0x800000, 0xc0000000);
    reject(bind_mul24, "u32", 1, 2);
    E3(bind_sad, "u32", 14, 1, 5, 10);
    E3(bind_sad, "s32", 2, 0xffffffff, 1, 0);
    E3(bind_sad, "u16", 0xffff, 0, 0xffff, 0);
}

/* Packed .u16x2/.s16x2 (add, min, max): each half on its own, no carry between them. */
static void test_packed16x2(void)
{
    E2(bind_int_add, "u16x2", 0x23456789, 0x12345678, 0x11111111);
    E2(bind_int_add, "u16x2", 0, 0xffff0001, 0x0001ffff);
    E2(bind_int_add, "s16x2", 0x7fff8000, 0x7ffe7fff, 0x00010001);
    E2(bind_int_add, "u16x2", 0x23456789, 0xdead000012345678ull, 0x11111111); /* readers mask */
    E2(bind_int_min, "s16x2", 0x8000ffff, 0x8000ffff, 0x00010000);
    E2(bind_int_min, "u16x2", 0x00010000, 0x8000ffff, 0x00010000);
    E2(bind_int_max, "s16x2", 0x00010000, 0x8000ffff, 0x00010000);
    E2(bind_int_max, "u16x2", 0x8000ffff, 0x8000ffff, 0x00010000);
    E2(bind_int_min, "relu s16x2", 0, 0x8000ffff, 0x00010000);
    E2(bind_int_min, "relu s16x2", 0x00070000, 0x0007fffe, 0x7fff0003);
    E2(bind_int_max, "relu s16x2", 0x00000005, 0xfffe0005, 0xfffd0003);
    E2(bind_int_max, "relu s16x2", 0x7fff0001, 0x7fff8000, 0x80000001);
    reject(bind_int_max, "relu u16x2", 1, 2);
    reject(bind_int_min, "u16x2", 1, 3);
    reject(bind_int_add, "sat s16x2", 1, 2);
    reject(bind_int_add, "cc u16x2", 1, 2);
    reject(bind_int_sub, "u16x2", 1, 2);
    reject(bind_int_neg, "s16x2", 1, 1);
    reject(bind_int_abs, "s16x2", 1, 1);
    reject(bind_int_mul, "lo u16x2", 1, 2);
    reject(bind_int_div, "u16x2", 1, 2);
    reject(bind_bfe, "u16x2", 1, 3);
}

/* A 96-bit add, a borrow chain and an extended multiply, through Warp.cc. */
static void test_carry(void)
{
    Inst a, b, c;
    uint64_t s[3];
    warp.cc = 0;
    CHECK(!bind_inst(bind_int_add, &a, "cc u32", 1, 2), "add.cc bind");
    CHECK(!bind_inst(bind_addc, &b, "cc u32", 1, 2), "addc.cc bind");
    CHECK(!bind_inst(bind_addc, &c, "u32", 1, 2), "addc bind");
    s[0] = 0xffffffff; s[1] = 1;
    CHECK(run_uniform(&a, s, 2, "add.cc") == 0 && warp.cc == FULL_MASK, "add.cc carry out");
    s[0] = 0xffffffff; s[1] = 0;
    /* run_uniform runs twice; the carry is still set for lanes 0 and 2 only afterwards */
    warp.cc = FULL_MASK;
    CHECK(run_uniform(&b, s, 2, "addc.cc") == 0, "addc.cc value");
    warp.cc = FULL_MASK;
    s[0] = 5; s[1] = 6;
    CHECK(run_uniform(&c, s, 2, "addc") == 12 && warp.cc == FULL_MASK, "addc value, cc kept");
    warp.cc = 0;
    s[0] = 0xffffffff; s[1] = 1;
    fill_row(RS, s[0]); fill_row(RS + 1, s[1]);
    a.fn(&warp, &a, 0x5);
    CHECK(warp.cc == 0x5, "carry written only for mask lanes: %x", warp.cc);

    CHECK(!bind_inst(bind_int_sub, &a, "cc u32", 1, 2), "sub.cc bind");
    CHECK(!bind_inst(bind_subc, &b, "u32", 1, 2), "subc bind");
    CHECK(!bind_inst(bind_subc, &c, "cc u32", 1, 2), "subc.cc bind");
    /* CF after a subtraction is the carry of a + ~b + 1: 0 means a borrow (as on the H100) */
    warp.cc = FULL_MASK;
    s[0] = 0; s[1] = 1;
    CHECK(run_uniform(&a, s, 2, "sub.cc") == 0xffffffff && warp.cc == 0, "sub.cc borrow");
    s[0] = 5; s[1] = 2;
    CHECK(run_uniform(&b, s, 2, "subc") == 2, "subc borrow in");
    s[0] = 7; s[1] = 2;
    CHECK(run_uniform(&a, s, 2, "sub.cc") == 5 && warp.cc == FULL_MASK, "sub.cc no borrow");
    s[0] = 5; s[1] = 2;
    CHECK(run_uniform(&b, s, 2, "subc") == 3, "subc no borrow in");
    warp.cc = 0;
    s[0] = 0; s[1] = 0;
    CHECK(run_uniform(&c, s, 2, "subc.cc") == 0xffffffff && warp.cc == 0, "subc.cc");
    /* mixed chains, values read on an H100 */
    warp.cc = FULL_MASK;                                /* as left by a carrying add.cc */
    CHECK(run_uniform(&b, (uint64_t[]){ 5, 2 }, 2, "subc after add.cc") == 3, "add.cc; subc");
    CHECK(!bind_inst(bind_addc, &c, "u32", 1, 2), "addc bind");
    warp.cc = 0;                                        /* as left by sub.cc 0 - 1 */
    CHECK(run_uniform(&c, (uint64_t[]){ 5, 2 }, 2, "addc after sub.cc") == 7, "sub.cc; addc");

    CHECK(!bind_inst(bind_int_add, &a, "cc u64", 1, 2), "add.cc.u64 bind");
    CHECK(!bind_inst(bind_addc, &b, "u64", 1, 2), "addc.u64 bind");
    warp.cc = 0;
    s[0] = ~0ull; s[1] = 1;
    CHECK(run_uniform(&a, s, 2, "add.cc.u64") == 0 && warp.cc == FULL_MASK, "add.cc.u64");
    s[0] = 1; s[1] = 1;
    CHECK(run_uniform(&b, s, 2, "addc.u64") == 3, "addc.u64");

    CHECK(!bind_inst(bind_int_mad, &a, "lo cc u32", 1, 3), "mad.lo.cc bind");
    CHECK(!bind_inst(bind_madc, &b, "hi u32", 1, 3), "madc.hi bind");
    CHECK(!bind_inst(bind_madc, &c, "hi cc s32", 1, 3), "madc.hi.cc.s32 bind");
    warp.cc = FULL_MASK;
    s[0] = 0x10000; s[1] = 0x10000; s[2] = 5;
    CHECK(run_uniform(&a, s, 3, "mad.lo.cc") == 5 && warp.cc == 0, "mad.lo.cc no carry");
    s[0] = 0xffff; s[1] = 0x10001; s[2] = 1;
    CHECK(run_uniform(&a, s, 3, "mad.lo.cc") == 0 && warp.cc == FULL_MASK, "mad.lo.cc carry");
    s[0] = 2; s[1] = 3; s[2] = 0;
    CHECK(run_uniform(&b, s, 3, "madc.hi") == 1, "madc.hi carry in");
    warp.cc = FULL_MASK;
    s[0] = 0xffffffff; s[1] = 1; s[2] = 0xffffffff;
    CHECK(run_uniform(&c, s, 3, "madc.hi.cc.s32") == 0xffffffff && warp.cc == FULL_MASK,
          "madc.hi.cc.s32");
    reject(bind_addc, "u16", 1, 2);
    reject(bind_madc, "wide u32", 1, 3);
    reject(bind_int_mad, "wide cc u32", 1, 3);
}

static void test_bits(void)
{
    E1(bind_popc, "b32", 8, 0xf0f0);
    E1(bind_popc, "b32", 32, ~0ull);
    E1(bind_popc, "b64", 64, ~0ull);
    E1(bind_clz, "b32", 32, 0);
    E1(bind_clz, "b32", 31, 0xffffffff00000001ull);
    E1(bind_clz, "b64", 63, 1);
    E1(bind_clz, "b64", 64, 0);
    E1(bind_brev, "b32", 0x80000000, 1);
    E1(bind_brev, "b32", 0x1e6a2c48, 0x12345678);
    E1(bind_brev, "b64", 0x8000000000000000ull, 1);
    E1(bind_bfind, "u32", 0xffffffff, 0);
    E1(bind_bfind, "u32", 4, 0x10);
    E1(bind_bfind, "shiftamt u32", 27, 0x10);
    E1(bind_bfind, "shiftamt u32", 0xffffffff, 0);
    E1(bind_bfind, "s32", 0xffffffff, 0xffffffff);
    E1(bind_bfind, "s32", 15, 0xffff0000);
    E1(bind_bfind, "s32", 30, 0x7fffffff);
    E1(bind_bfind, "s64", 40, 1ull << 40);
    E1(bind_bfind, "s64", 0xffffffff, ~0ull);
    E1(bind_bfind, "shiftamt u64", 63, 1);
    E3(bind_fns, "b32", 3, 0xaaaaaaaa, 3, 1);
    E3(bind_fns, "b32", 3, 0xaaaaaaaa, 3, (uint32_t)-1);
    E3(bind_fns, "b32", 3, 0xaaaaaaaa, 2, 1);
    E3(bind_fns, "b32", 1, 0xaaaaaaaa, 2, (uint32_t)-1);
    E3(bind_fns, "b32", 0xffffffff, 0xaaaaaaaa, 0, 0);
    E3(bind_fns, "b32", 0, 1, 0, 0);
    E3(bind_fns, "b32", 31, 0xaaaaaaaa, 1, 16);
    E3(bind_fns, "b32", 0xffffffff, 0xaaaaaaaa, 1, 17);
    E3(bind_fns, "b32", 0, 0xaaaaaaaa, 1, 0x80000000);           /* as the H100 */
    E3(bind_fns, "b32", 0xffffffff, 0xaaaaaaab, 32, (uint32_t)-1);  /* base > 31 */
    E3(bind_fns, "b32", 29, 0xaaaaaaab, 30, (uint32_t)-1);
    E3(bind_bfe, "u32", 0x67, 0x12345678, 4, 8);
    E3(bind_bfe, "u32", 0x67, 0x12345678, 0x104, 8);
    E3(bind_bfe, "s32", 0xffffffff, 0xf0, 4, 4);
    E3(bind_bfe, "s32", 0x7, 0x70, 4, 4);
    E3(bind_bfe, "s32", 0xffffffff, 0x80000000, 31, 8);
    E3(bind_bfe, "u32", 1, 0x80000000, 31, 8);
    E3(bind_bfe, "s32", 0, 0xffffffff, 3, 0);
    E3(bind_bfe, "u32", 0, 0xffffffff, 40, 4);
    E3(bind_bfe, "s32", 0xffffffff, 0x80000000, 40, 4);
    E3(bind_bfe, "u64", 0xff, 0xff00000000ull, 32, 8);
    E3(bind_bfe, "s64", ~0ull, 0xff00000000ull, 32, 8);
    E3(bind_bfe, "s64", 0x7f, 0x7f00000000ull, 32, 8);
    E4(bind_bfi, "b32", 0xf00, 0xff, 0, 8, 4);
    E4(bind_bfi, "b32", 0x0fffffff, 0, 0xffffffff, 28, 8);
    E4(bind_bfi, "b32", 0x1234, 0xff, 0x1234, 8, 0);
    E4(bind_bfi, "b32", 0x1234, 0xff, 0x1234, 32, 4);
    E4(bind_bfi, "b64", 0x8000000000000000ull, 1, 0, 63, 1);
    E4(bind_bfi, "b64", ~0ull, ~0ull, 0, 0, 64);
    /* Counts past 255: the 32-bit forms keep the low 8 bits, the 64-bit ones the whole
     * value (int_bfe.ptx, read on an H100). */
    E3(bind_bfe, "u32", 0x21, 0x87654321, 0x100, 0x108);
    E3(bind_bfe, "s32", 0x32, 0x87654321, 0x104, 8);
    E4(bind_bfi, "b32", 0xaaaaa21a, 0x87654321, 0xaaaaaaaa, 0x104, 8);
    E3(bind_bfe, "u64", 0, 0x8765432187654321ull, 0x104, 8);
    E3(bind_bfe, "s64", ~0ull, 0x8765432187654321ull, 0x104, 8);
    E3(bind_bfe, "s64", 0, 0x7765432187654321ull, 0x104, 8);
    E3(bind_bfe, "u64", 0x0087654321876543ull, 0x8765432187654321ull, 8, 0x120);
    E3(bind_bfe, "s64", 0xff87654321876543ull, 0x8765432187654321ull, 8, 0x120);
    E3(bind_bfe, "u64", 0x0876543218765432ull, 0x8765432187654321ull, 4, 0x100);
    E3(bind_bfe, "s64", 0xff87654321876543ull, 0x8765432187654321ull, 8, 0xffffffff);
    E3(bind_bfe, "u64", 0, 0x8765432187654321ull, 0xffffffff, 0xffffffff);
    E4(bind_bfi, "b64", 0, 0x8765432187654321ull, 0, 0x104, 8);
    E4(bind_bfi, "b64", 0x6543218765432100ull, 0x8765432187654321ull, 0, 8, 0x120);
    E4(bind_bfi, "b64", 0x1000000000000005ull, 0x21, 5, 60, 0xffffffff);
    E2(bind_bmsk, "wrap b32", 6, 1, 2);
    E2(bind_bmsk, "clamp b32", 0xffffffff, 0, 32);
    E2(bind_bmsk, "wrap b32", 0, 0, 32);
    E2(bind_bmsk, "clamp b32", 0, 32, 1);
    E2(bind_bmsk, "wrap b32", 0xf0000000, 28, 8);
    E2(bind_bmsk, "wrap b32", 2, 33, 1);
    reject(bind_bmsk, "b32", 1, 2);
    E2(bind_szext, "wrap u32", 0, 0xffffffff, 0);
    E2(bind_szext, "clamp s32", 0xffffff80, 0x80, 8);
    E2(bind_szext, "clamp u32", 0xff, 0x1ff, 8);
    E2(bind_szext, "clamp s32", 0x12345678, 0x12345678, 40);
    E2(bind_szext, "wrap s32", 0xffffffff, 0xff, 36);
    E3(bind_dp4a, "u32 u32", 20, 0x01020304, 0x01010101, 10);
    E3(bind_dp4a, "s32 s32", 0xfffffffc, 0xffffffff, 0x01010101, 0);
    E3(bind_dp4a, "s32 u32", 0xffffff01, 0xff, 0xff, 0);
    E3(bind_dp4a, "u32 s32", 0xffffff01, 0xff, 0xff, 0);
    E3(bind_dp2a, "lo u32 u32", 7, 0x00020003, 0x04030201, 0);
    E3(bind_dp2a, "hi s32 s32", 0xffffffff, 0xffff0001, 0x05040302, 0);
    reject(bind_dp2a, "u32 u32", 1, 3);
    reject(bind_dp4a, "u32", 1, 3);
}

/* ---------------------------------------------------------------- logic, shifts, prmt, mov */

static void test_logic(void)
{
    E2(bind_and, "b32", 0xf000, 0xf0f0, 0xff00);
    E2(bind_or, "b16", 3, 0xffff0001ull, 2);
    E2(bind_xor, "b64", 0xff00ff00ff00ff00ull, ~0ull, 0x00ff00ff00ff00ffull);
    E1(bind_not, "b16", 0xffff, 0);
    E1(bind_not, "b32", 0xfffffffe, 1);
    E1(bind_cnot, "b32", 1, 0);
    E1(bind_cnot, "b32", 0, 5);
    E1(bind_cnot, "b16", 1, 0x10000);
    E4(bind_lop3, "b32", 0x80808080, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa, 0x80);
    E4(bind_lop3, "b32", 0x12345678 ^ 0x0f0f0f0f ^ 0xffff0000, 0x12345678, 0x0f0f0f0f, 0xffff0000, 0x96);
    E4(bind_lop3, "b32", 0x12345678, 0x12345678, 5, 6, 0xf0);
    E4(bind_lop3, "b32", ~0x5u & 0xffffffff, 1, 5, 6, 0x33);
    reject(bind_lop3, "b64", 1, 4);

    /* predicate forms */
    Inst in;
    const char *e = bind_inst(bind_and, &in, "pred", 1, 2);
    CHECK(!e, "and.pred bind");
    in.d[0] = PD; in.s[0] = PD + 1; in.s[1] = PD + 2;
    preds[PD] = 0xffff0000; preds[PD + 1] = 0xc; preds[PD + 2] = 0xa;
    in.fn(&warp, &in, 0xff);
    CHECK(preds[PD] == 0xffff0008, "and.pred: %x", preds[PD]);
    CHECK(!bind_inst(bind_xor, &in, "pred", 1, 2), "xor.pred bind");
    in.d[0] = PD; in.s[0] = PD + 1; in.s[1] = PD + 2;
    in.fn(&warp, &in, FULL_MASK);
    CHECK(preds[PD] == 0x6, "xor.pred: %x", preds[PD]);
    CHECK(!bind_inst(bind_not, &in, "pred", 1, 1), "not.pred bind");
    in.d[0] = PD; in.s[0] = PD + 1;
    in.fn(&warp, &in, 0xf);
    CHECK(preds[PD] == 0x3, "not.pred: %x", preds[PD]);
    CHECK(!bind_inst(bind_mov, &in, "pred", 1, 1), "mov.pred bind");
    in.d[0] = PD; in.s[0] = PD + 2; in.flags = IF_NEG_C;
    in.fn(&warp, &in, FULL_MASK);
    CHECK(preds[PD] == ~0xau, "mov.pred !q: %x", preds[PD]);
    {
        InstDesc d;
        make_desc(&d, "pred", 1, 2);
        memset(&in, 0, sizeof in);
        in.flags = IF_NEG_C;
        CHECK(bind_or(&in, &d) != NULL, "or.pred with a negated source must be rejected");
    }
}

static void test_shift_prmt(void)
{
    E2(bind_shl, "b32", 0x80000000, 1, 31);
    E2(bind_shl, "b32", 0, 1, 32);
    E2(bind_shl, "b32", 2, 1, 0x100000001ull);
    E2(bind_shl, "b16", 0x8000, 1, 15);
    E2(bind_shl, "b16", 0, 1, 16);
    E2(bind_shl, "b64", 0, 1, 64);
    E2(bind_shl, "b64", 1ull << 63, 1, 63);
    E2(bind_shr, "s32", 0xffffffff, 0x80000000, 40);
    E2(bind_shr, "u32", 1, 0x80000000, 31);
    E2(bind_shr, "b32", 0, 0x80000000, 33);
    E2(bind_shr, "s16", 0xf800, 0x8000, 4);
    E2(bind_shr, "s64", ~0ull, 1ull << 63, 0xffffffff);
    E2(bind_shr, "u64", 0, ~0ull, 64);
    E3(bind_shf, "l wrap b32", 3, 0x80000000, 1, 1);
    E3(bind_shf, "r clamp b32", 1, 0, 1, 32);
    E3(bind_shf, "r wrap b32", 0x10000001, 0x10, 1, 36);
    E3(bind_shf, "l clamp b32", 5, 5, 7, 40);
    E3(bind_shf, "l wrap b32", 7, 5, 7, 32);
    E3(bind_shf, "r wrap b32", 5, 5, 7, 0);
    reject(bind_shf, "l b32", 1, 3);
    reject(bind_shf, "wrap b32", 1, 3);
    uint64_t a = 0x33221100, b = 0x77665544;
    E3(bind_prmt, "b32", a, a, b, 0x3210);
    E3(bind_prmt, "b32", b, a, b, 0x7654);
    E3(bind_prmt, "b32", 0x44444444, a, b, 0x4444);
    E3(bind_prmt, "b32", 0x808080ff, 0x80, b, 0x0008);
    E3(bind_prmt, "b32", 0x00112233, a, b, 0xffff0123);
    E3(bind_prmt, "f4e b32", 0x44332211, a, b, 1);
    E3(bind_prmt, "f4e b32", 0x66554433, a, b, 7);
    E3(bind_prmt, "b4e b32", 0x55667700, a, b, 0);
    E3(bind_prmt, "b4e b32", 0x00112233, a, b, 3);
    E3(bind_prmt, "rc8 b32", 0x22222222, a, b, 2);
    E3(bind_prmt, "ecl b32", 0x33221111, a, b, 1);
    E3(bind_prmt, "ecr b32", 0x22221100, a, b, 2);
    E3(bind_prmt, "rc16 b32", 0x33223322, a, b, 1);
    E3(bind_prmt, "rc16 b32", 0x11001100, a, b, 2);
}

static void test_mov(void)
{
    E1(bind_mov, "b32", 0x12345678, 0xffffffff12345678ull);
    E1(bind_mov, "u16", 0x2345, 0x12345);
    E1(bind_mov, "f64", f64b(1.5), f64b(1.5));
    E1(bind_mov, "f32", f32b(-2.0f), f32b(-2.0f));
    reject(bind_mov, "b128", 1, 1);
    reject(bind_mov, "b32", 3, 1);
    E2(bind_mov, "b64", 0x2222222211111111ull, 0x11111111, 0x22222222);
    E2(bind_mov, "b32", 0xaaaabbbb, 0xffffbbbb, 0xaaaa);
    E4(bind_mov, "b64", 0x0004000300020001ull, 1, 2, 3, 0x10004);
    E2(bind_mov, "b16", 0x3412, 0x12, 0x34);

    Inst in;
    CHECK(!bind_inst(bind_mov, &in, "b32", 2, 1), "unpack bind");
    fill_row(RS, 0xaaaabbbb);
    fill_row(RD, SENT); fill_row(RD + 1, SENT);
    in.fn(&warp, &in, 0x3);
    CHECK(ROW(&warp, RD)[0] == 0xbbbb && ROW(&warp, RD + 1)[1] == 0xaaaa &&
          ROW(&warp, RD)[2] == SENT, "unpack b32 -> 2 x 16");
    CHECK(!bind_inst(bind_mov, &in, "b64", 4, 1), "unpack4 bind");
    fill_row(RS, 0x0123456789abcdefull);
    in.fn(&warp, &in, FULL_MASK);
    CHECK(ROW(&warp, RD)[5] == 0xcdef && ROW(&warp, RD + 1)[5] == 0x89ab &&
          ROW(&warp, RD + 2)[5] == 0x4567 && ROW(&warp, RD + 3)[5] == 0x0123, "unpack b64 -> 4 x 16");
}

/* ---------------------------------------------------------------- compare and select */

/* setp with per-lane sources: lane l compares A[l] with B[l]. */
static uint32_t setp_lanes(const char *spec, const uint64_t *A, const uint64_t *B, int n,
                           uint32_t *q, int nd, int ns, uint32_t c, int negc)
{
    Inst in;
    const char *e = bind_inst(bind_setp, &in, spec, nd, ns);
    CHECK(!e, "%s: bind failed: %s", spec, e ? e : "");
    if (e) return 0xdeadbeef;
    in.d[0] = PD; in.d[1] = PD + 1; in.s[2] = PD + 2;
    if (negc) in.flags |= IF_NEG_C;
    for (int l = 0; l < WARP_SIZE; l++) {
        ROW(&warp, RS)[l] = A[l % n];
        ROW(&warp, RS + 1)[l] = B[l % n];
    }
    preds[PD] = preds[PD + 1] = 0;
    preds[PD + 2] = c;
    in.fn(&warp, &in, (1u << n) - 1);
    if (q) *q = preds[PD + 1];
    return preds[PD];
}

static void test_setp(void)
{
    uint64_t a[4] = { 0xffffffff, 1, 5, 0x80000000 }, b[4] = { 1, 1, 4, 0x7fffffff };
    CHECK(setp_lanes("lt s32", a, b, 4, NULL, 1, 2, 0, 0) == 0x9, "setp.lt.s32");
    CHECK(setp_lanes("lt u32", a, b, 4, NULL, 1, 2, 0, 0) == 0x0, "setp.lt.u32");
    CHECK(setp_lanes("lo s32", a, b, 4, NULL, 1, 2, 0, 0) == 0x0, "setp.lo.s32 is unsigned");
    CHECK(setp_lanes("hs s32", a, b, 4, NULL, 1, 2, 0, 0) == 0xf, "setp.hs.s32");
    CHECK(setp_lanes("ge s32", a, b, 4, NULL, 1, 2, 0, 0) == 0x6, "setp.ge.s32");
    CHECK(setp_lanes("eq b32", a, b, 4, NULL, 1, 2, 0, 0) == 0x2, "setp.eq.b32");
    CHECK(setp_lanes("ne u16", a, b, 4, NULL, 1, 2, 0, 0) == 0xd, "setp.ne.u16");
    uint64_t c16a[2] = { 0xffff, 0x1ffff }, c16b[2] = { 1, 1 };
    CHECK(setp_lanes("lt s16", c16a, c16b, 2, NULL, 1, 2, 0, 0) == 0x3, "setp.lt.s16 masks");
    uint64_t sa[2] = { ~0ull, 1 }, sb[2] = { 0, 0 };
    CHECK(setp_lanes("gt s64", sa, sb, 2, NULL, 1, 2, 0, 0) == 0x2, "setp.gt.s64");
    CHECK(setp_lanes("hi u64", sa, sb, 2, NULL, 1, 2, 0, 0) == 0x3, "setp.hi.u64");

    float nan = NAN;
    uint64_t fa[5] = { f32b(nan), f32b(1.0f), f32b(-0.0f), f32b(2.0f), f32b(-1e-40f) };
    uint64_t fb[5] = { f32b(1.0f), f32b(1.0f), f32b(0.0f), f32b(1.0f), f32b(0.0f) };
    CHECK(setp_lanes("eq f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x6, "setp.eq.f32");
    CHECK(setp_lanes("ne f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x18, "setp.ne.f32 ordered");
    CHECK(setp_lanes("neu f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x19, "setp.neu.f32");
    CHECK(setp_lanes("equ f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x7, "setp.equ.f32");
    CHECK(setp_lanes("lt f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x10, "setp.lt.f32 subnormal");
    CHECK(setp_lanes("lt ftz f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x0, "setp.lt.ftz.f32");
    CHECK(setp_lanes("ltu f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x11, "setp.ltu.f32");
    CHECK(setp_lanes("geu f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0xf, "setp.geu.f32");
    CHECK(setp_lanes("num f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x1e, "setp.num.f32");
    CHECK(setp_lanes("nan f32", fa, fb, 5, NULL, 1, 2, 0, 0) == 0x1, "setp.nan.f32");
    uint64_t da[3] = { f64b(NAN), f64b(0.5), f64b(3.0) }, db[3] = { f64b(0), f64b(0.5), f64b(1) };
    CHECK(setp_lanes("le f64", da, db, 3, NULL, 1, 2, 0, 0) == 0x2, "setp.le.f64");
    CHECK(setp_lanes("gtu f64", da, db, 3, NULL, 1, 2, 0, 0) == 0x5, "setp.gtu.f64");

    /* p|q and a boolean combine with a third, possibly negated, predicate */
    uint32_t q;
    uint32_t p = setp_lanes("lt s32", a, b, 4, &q, 2, 2, 0, 0);
    CHECK(p == 0x9 && q == 0x6, "setp p|q: %x %x", p, q);
    p = setp_lanes("lt and s32", a, b, 4, &q, 2, 3, 0x3, 0);
    CHECK(p == 0x1 && q == 0x2, "setp.and p|q: %x %x", p, q);
    p = setp_lanes("lt and s32", a, b, 4, &q, 2, 3, 0x3, 1);
    CHECK(p == 0x8 && q == 0x4, "setp.and !c: %x %x", p, q);
    p = setp_lanes("lt or s32", a, b, 4, &q, 2, 3, 0x2, 0);
    CHECK(p == 0xb && q == 0x6, "setp.or: %x %x", p, q);
    p = setp_lanes("lt xor s32", a, b, 4, &q, 2, 3, 0xf, 0);
    CHECK(p == 0x6 && q == 0x9, "setp.xor: %x %x", p, q);

    reject(bind_setp, "s32", 1, 2);
    reject(bind_setp, "lt gt s32", 1, 2);
    reject(bind_setp, "equ s32", 1, 2);
    reject(bind_setp, "lo f32", 1, 2);
    reject(bind_setp, "lt ftz s32", 1, 2);
    reject(bind_setp, "lt and s32", 1, 2);
    Inst in;
    CHECK(bind_inst(bind_setp, &in, "lt f16", 1, 2) == half_msg, "setp.f16 delegated");
    CHECK(bind_inst(bind_set, &in, "lt u32 f16", 1, 2) == half_msg, "set.u32.f16 delegated");
}

static void test_set_selp_slct(void)
{
    E2(bind_set, "eq u32 s32", 0xffffffff, 5, 5);
    E2(bind_set, "lt u32 s32", 0, 5, 5);
    E2(bind_set, "lt f32 s32", f32b(1.0f), (uint32_t)-1, 0);
    E2(bind_set, "gt s32 f64", 0xffffffff, f64b(2.0), f64b(1.0));
    reject(bind_set, "eq u64 s32", 1, 2);
    Inst in;
    CHECK(!bind_inst(bind_set, &in, "eq and u32 u32", 1, 3), "set.and bind");
    in.s[2] = PD + 2;
    in.flags = IF_NEG_C;
    preds[PD + 2] = 0x1;
    fill_row(RS, 3); fill_row(RS + 1, 3); fill_row(RD, SENT);
    in.fn(&warp, &in, 0x3);
    CHECK(ROW(&warp, RD)[0] == 0 && ROW(&warp, RD)[1] == 0xffffffff && ROW(&warp, RD)[2] == SENT,
          "set.eq.and !c");

    CHECK(!bind_inst(bind_selp, &in, "b32", 1, 3), "selp bind");
    in.s[2] = PD + 2;
    preds[PD + 2] = 0x5;
    fill_row(RS, 0xffffffff0000000aull); fill_row(RS + 1, 0xb); fill_row(RD, SENT);
    in.fn(&warp, &in, FULL_MASK);
    CHECK(ROW(&warp, RD)[0] == 0xa && ROW(&warp, RD)[1] == 0xb && ROW(&warp, RD)[2] == 0xa &&
          ROW(&warp, RD)[3] == 0xb, "selp.b32");
    in.flags = IF_NEG_C;
    fill_row(RD, SENT);
    in.fn(&warp, &in, 0x3);
    CHECK(ROW(&warp, RD)[0] == 0xb && ROW(&warp, RD)[1] == 0xa && ROW(&warp, RD)[2] == SENT,
          "selp.b32 !p");
    CHECK(!bind_inst(bind_selp, &in, "f64", 1, 3), "selp.f64 bind");
    in.s[2] = PD + 2;
    fill_row(RS, f64b(1.0)); fill_row(RS + 1, f64b(2.0));
    in.fn(&warp, &in, FULL_MASK);
    CHECK(ROW(&warp, RD)[0] == f64b(1.0) && ROW(&warp, RD)[1] == f64b(2.0), "selp.f64");

    E3(bind_slct, "u32 s32", 1, 1, 2, 0);
    E3(bind_slct, "u32 s32", 2, 1, 2, 0xffffffff);
    E3(bind_slct, "u64 s32", 1, 1, 2, 0x100000000ull);
    E3(bind_slct, "f32 f32", 1, 1, 2, f32b(-0.0f));
    E3(bind_slct, "f32 f32", 2, 1, 2, f32b(NAN));
    E3(bind_slct, "b16 f32", 2, 0x10001, 2, f32b(-1e-40f));
    E3(bind_slct, "b16 ftz f32", 1, 0x10001, 2, f32b(-1e-40f));
    reject(bind_slct, "u32 ftz s32", 1, 3);
    reject(bind_slct, "u32 u32", 1, 3);
}

/* ---------------------------------------------------------------- device printf */

static uint8_t abuf[512];
static size_t alen;
static void arg4(uint32_t v) { alen = (alen + 3) & ~(size_t)3; memcpy(abuf + alen, &v, 4); alen += 4; }
static void arg8(uint64_t v) { alen = (alen + 7) & ~(size_t)7; memcpy(abuf + alen, &v, 8); alen += 8; }
static void argd(double d) { uint64_t v; memcpy(&v, &d, 8); arg8(v); }

static void expect_printf(const char *fmt, int want_ret, const char *want)
{
    launch.out_len = 0;
    if (launch.out) launch.out[0] = 0;
    int r = devprintf(&warp, 3, fmt, abuf, alen);
    const char *got = launch.out ? launch.out : "";
    CHECK(r == want_ret, "devprintf(\"%s\") returned %d, want %d", fmt, r, want_ret);
    if (want) CHECK(launch.out_len == strlen(want) && !strcmp(got, want),
                    "devprintf(\"%s\") printed \"%s\", want \"%s\"", fmt, got, want);
    alen = 0;
}

static void test_printf(void)
{
    uint64_t dev = (uint64_t)(uintptr_t)devmem;
    strcpy(devmem, "world");
    strcpy(devmem + 16, "abcdef");
    pthread_mutex_init(&launch.lock, NULL);

    arg4(42); arg8(dev); argd(3.14159); arg4(255); arg4('Z');
    expect_printf("hello %d %s %5.2f|%-4x|%c%%\n", 5, "hello 42 world  3.14|ff  |Z%\n");
    arg8((uint64_t)-5); arg4(0x1ff); arg4(0x10001);
    expect_printf("%lld %hhd %hu", 3, "-5 -1 1");
    arg4(6); arg4(7);
    expect_printf("%*d|", 2, "     7|");
    arg8(0);
    expect_printf("[%s]", 1, "[(null)]");
    arg8(dev + 16);
    expect_printf("[%.3s]", 1, "[abc]");
    arg8(dev + 16);
    expect_printf("[%8s]", 1, "[  abcdef]");
    argd(-0.0); argd(1e300); argd(0.5);
    expect_printf("%g %e %a", 3, "-0 1.000000e+300 0x1p-1");
    argd(1.5);
    expect_printf("%+08.3lf", 1, "+001.500");
    arg4(0xffffffff); arg8(0xffffffffffffffffull); arg8(8);
    expect_printf("%u %lx %zu", 2, "4294967295 ffffffffffffffff %zu");
    arg4(8);
    expect_printf("%#o %#x", -1, NULL);             /* too few arguments */
    arg8(0x1234);
    expect_printf("%p", 1, "0x1234");
    arg8(0);
    expect_printf("%p", 1, "(nil)");
    expect_printf("no args", 0, "no args");
    expect_printf("%n", -1, NULL);
    arg8(dev);
    expect_printf("%ls", -1, NULL);
    char fmt33[200] = "";
    for (int i = 0; i < 33; i++) { strcat(fmt33, "%d"); arg4((uint32_t)i % 10); }
    expect_printf(fmt33, 32, "01234567890123456789012345678901%d");

    /* formats and outputs read on an H100 (driver 580): unsupported specifications are
     * printed as written and take no argument */
    arg4(1); arg4(5); arg4(2);
    expect_printf("B[%d][%y][%d]\n", 2, "B[1][%y][5]\n");
    arg4(1);
    expect_printf("C[%d] 50%\n", 1, "C[1] 50%\n");
    arg4(1);
    expect_printf("D[%d] 50%", 1, "D[1] 50%");
    expect_printf("M[%", 0, "M[%");
    arg4(7); arg4('x'); arg4(8); argd(1234.5); argd(1.0); argd(1e-5);
    expect_printf("F[%5.1d][%-3c][%#o][%+.2e][%a][%G][%jd][%zd][%td][%Lf]\n", 6,
                  "F[    7][x  ][010][+1.23e+03][0x1p+0][1E-05][%jd][%zd][%td][%Lf]\n");
    arg4((uint32_t)-4); arg4(1); arg4(3); arg4(2); arg4(1000);
    expect_printf("H[%5%][%-*d][%*d][%'d]\n", 4, "H[%][1   ][  2][%'d]\n");
    arg8(0); arg8(0); arg8(0); arg8(dev + 6);
    devmem[6] = 0;
    expect_printf("I[%.0s][%.5s][%10.3s][%s]\n", 4, "I[][][          ][]\n");
    argd(1.5); argd(2.5); arg8(~0ull); arg8((uint64_t)-2);
    expect_printf("K[%lf][%hf][%llx][%lld]\n", 4, "K[1.500000][2.500000][ffffffffffffffff][-2]\n");
    arg4(66); arg4((uint32_t)-1); arg8(67);
    expect_printf("L[%c][%i][%llc]\n", 3, "L[B][-1][C]\n");
    arg4(3); arg4(7);
    expect_printf("A[%.*d]", 0, "A[%.*d]");          /* the GPU prints garbage here */
    arg8(dev + 16);
    expect_printf("S[%hs]", 1, "S[abcdef]");

    /* appending: two calls accumulate */
    launch.out_len = 0;
    CHECK(devprintf(&warp, 0, "a", abuf, 0) == 0 && devprintf(&warp, 0, "b\n", abuf, 0) == 0 &&
          launch.out_len == 3 && !strcmp(launch.out, "ab\n"), "output accumulates");

    /* a %s pointing nowhere faults */
    fault_count = 0;
    arg8(8);
    expect_printf("%s", -1, NULL);
    CHECK(fault_count == 1 && fault_code == EMU_ERR_ILLEGAL_ADDRESS, "bad %%s address faults");
    free(launch.out);
    launch.out = NULL;
    launch.out_cap = launch.out_len = 0;
}

int main(void)
{
    test_add_sub_mul();
    test_div_rem_misc();
    test_packed16x2();
    test_carry();
    test_bits();
    test_logic();
    test_shift_prmt();
    test_mov();
    test_setp();
    test_set_selp_slct();
    test_printf();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
