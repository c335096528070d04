/* test_exec_mem.c - unit tests of the memory, atomic and warp-level handlers (emu/exec_mem.c,
 * exec_atom.c, exec_warp.c): each test binds one instruction as the translator would and
 * runs its handler on a hand-made warp.
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra tests/unit/test_exec_mem.c emu/exec_mem.c
 *        emu/exec_atom.c emu/exec_warp.c emu/memory.c -lpthread
 * Expected values come from the PTX ISA text; the H100 checks are listed in the report.
 * Prints one line per failure and "N passed, N failed"; exits 1 on any failure. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../emu/exec.h"
#include "../../emu/memory.h"

#include "check.h"

/* ---- test doubles of engine.c ---- */
static int fault_code, fault_lane;
static char fault_msg[768];
static int converge_ret;
static uint32_t converge_members;

int warp_fault(Warp *w, int lane, int cuda_err, const char *fmt, ...)
{
    (void)w;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fault_msg, sizeof fault_msg, fmt, ap);
    va_end(ap);
    fault_code = cuda_err;
    fault_lane = lane;
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

int warp_converge(Warp *w, const Inst *in, uint32_t mask, uint32_t members)
{
    (void)w; (void)in; (void)mask;
    converge_members = members;
    return converge_ret;
}

/* warp.c's .sync convergence: the same double (exited lanes are the engine's business) */
int warp_converge_sync(Warp *w, const Inst *in, uint32_t mask, uint32_t members, uint32_t kinds)
{
    (void)kinds;
    return warp_converge(w, in, mask, members);
}

/* fault.c's report of a lane outside its own membermask: counted */
static int outside_count;
void warp_sync_outside(Warp *w, const char *op, uint32_t lanes, uint32_t row)
{
    (void)w; (void)op; (void)lanes; (void)row;
    outside_count++;
}

/* ---- a warp and an instruction under construction ---- */
#define NROWS 64
static uint64_t R[NROWS * WARP_SIZE];
static uint32_t P[16];
static uint8_t shared_buf[4096] __attribute__((aligned(16)));
static uint8_t local_buf[32 * 128] __attribute__((aligned(16)));
static Cta cta;
static Warp W;
static Inst I;
static InstDesc D;

static void reset(void)
{
    memset(R, 0, sizeof R); memset(P, 0, sizeof P); P[0] = FULL_MASK;
    memset(&W, 0, sizeof W);
    W.R = R; W.P = P; W.cta = &cta; W.local = local_buf; W.local_stride = 128;
    W.valid = W.alive = W.active = FULL_MASK;
    cta.shared = shared_buf; cta.shared_size = sizeof shared_buf;
    fault_code = 0; fault_lane = -1; fault_msg[0] = 0;
    converge_ret = 0; converge_members = 0;
}

static void begin(int ty, int space, int vec)
{
    memset(&I, 0, sizeof I); memset(&D, 0, sizeof D);
    D.types[0] = (uint8_t)ty; D.ntypes = 1; D.space = space; D.vec = vec;
    I.t = (uint8_t)ty; I.space = (uint8_t)space; I.vec = (uint8_t)vec;
}
static void mod(int m) { D.mods[m >> 6] |= 1ull << (m & 63); }
static void dst(uint32_t r) { I.d[D.nd++] = r; }
static void src(uint32_t r) { I.s[D.ns++] = r; }
static void addr(uint32_t base, int64_t imm) { I.base = base; I.imm = imm; D.has_addr = 1; }
static const char *bind(Binder b)
{
    const char *e = b(&I, &D);
    I.nd = (uint8_t)D.nd; I.ns = (uint8_t)D.ns;
    return e;
}
static int run(uint32_t mask) { return I.fn(&W, &I, mask); }
static uint64_t *row(int r) { return ROW(&W, r); }
static void fill(int r, uint64_t v) { for (int l = 0; l < 32; l++) row(r)[l] = v; }

/* ---- ld / st ---- */

/* Another host thread flips a 16-byte word between two patterns while ld.v4.u32 / ld.v2.u64
 * read it in every lane: no lane may see half of each (the GPU's vector accesses are whole;
 * CUB's decoupled look-back reads a status and its value as one). */
static volatile int flipping;
static void *flipper(void *arg)
{
    uint8_t *p = arg;
    const uint64_t a[2] = { 0x1111111111111111ull, 0x1111111111111111ull };
    const uint64_t b[2] = { 0x2222222222222222ull, 0x2222222222222222ull };
    while (flipping) {
        memcpy(p, a, 16);
        memcpy(p, b, 16);
    }
    return NULL;
}

static void test_vector_whole(void)
{
    uint64_t buf = mem_alloc(64, MEM_DEVICE);
    uint8_t *h = (uint8_t *)(uintptr_t)buf;
    memset(h, 0x11, 16);
    flipping = 1;
    pthread_t t;
    pthread_create(&t, NULL, flipper, h);
    int torn = 0;
    for (int kind = 0; kind < 2; kind++) {
        reset();
        begin(kind ? TY_U64 : TY_U32, SP_GLOBAL, kind ? 2 : 4);
        dst(3); dst(4);
        if (!kind) { dst(5); dst(6); }
        addr(2, 0);
        fill(2, buf);
        CHECK(!bind(bind_ld), "bind vector ld %d", kind);
        for (int rep = 0; rep < 20000 && !torn; rep++) {
            run(FULL_MASK);
            for (int l = 0; l < 32; l++) {
                uint64_t first = row(3)[l] & 0xff, last = row(kind ? 4 : 6)[l] & 0xff;
                if (first != last) torn++;
            }
        }
    }
    flipping = 0;
    pthread_join(t, NULL);
    CHECK(!torn, "vector loads saw %d torn values", torn);
}

static void test_ld_st(void)
{
    uint64_t buf = mem_alloc(1024, MEM_DEVICE);
    uint8_t *h = (uint8_t *)(uintptr_t)buf;
    for (int i = 0; i < 1024; i++) h[i] = (uint8_t)(0x80 + i);
    static const struct { int ty; int size; uint64_t want; } cases[] = {
        {TY_U8, 1, 0x80}, {TY_S8, 1, 0xffffffffffffff80ull}, {TY_U16, 2, 0x8180},
        {TY_S16, 2, 0xffffffffffff8180ull}, {TY_U32, 4, 0x83828180},
        {TY_S32, 4, 0xffffffff83828180ull}, {TY_F32, 4, 0x83828180},
        {TY_B64, 8, 0x8786858483828180ull}, {TY_F16, 2, 0x8180},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        reset();
        begin(cases[c].ty, SP_GLOBAL, 1);
        dst(3); addr(2, 0);
        for (int l = 0; l < 32; l++) row(2)[l] = buf + (uint64_t)(l * 16);
        CHECK(!bind(bind_ld), "bind ld case %zu", c);
        CHECK(run(FULL_MASK) == STEP_NEXT && row(3)[0] == cases[c].want,
              "ld case %zu: got %llx", c, (unsigned long long)row(3)[0]);
    }
    /* ld.v4.u32, partial mask: lanes outside the mask untouched */
    reset();
    begin(TY_U32, SP_GLOBAL, 4);
    dst(3); dst(4); dst(5); dst(6); addr(2, 16);
    fill(2, buf);
    fill(6, 0x1234);
    CHECK(!bind(bind_ld), "bind ld.v4");
    CHECK(run(0x5) == STEP_NEXT && row(3)[0] == 0x93929190 && row(6)[2] == 0x9f9e9d9c &&
          row(6)[1] == 0x1234, "ld.v4: %llx %llx", (unsigned long long)row(3)[0],
          (unsigned long long)row(6)[2]);
    /* misaligned vector load */
    I.imm = 8;
    CHECK(run(0x1) == STEP_FAULT && fault_code == EMU_ERR_MISALIGNED_ADDRESS, "ld.v4 misaligned");
    /* out of bounds names the allocation */
    reset();
    begin(TY_U32, SP_NONE, 1);
    dst(3); addr(2, 0);
    fill(2, buf);
    row(2)[9] = buf + 1024 + 12;
    CHECK(!bind(bind_ld) && I.space == SP_GENERIC, "bind generic ld");
    CHECK(run(FULL_MASK) == STEP_FAULT && fault_code == EMU_ERR_ILLEGAL_ADDRESS && fault_lane == 9 &&
          strstr(fault_msg, "12 bytes past the end of a 1024-byte allocation"), "oob: %s", fault_msg);

    /* st.v2.u16, then st conflict: of lanes storing 4 bytes or less to one address the
     * lowest active lane's value stays, as on the H200 (tests/cuda/store_conflict.cu) */
    reset();
    begin(TY_U16, SP_GLOBAL, 2);
    addr(2, 0); src(3); src(4);
    for (int l = 0; l < 32; l++) {
        row(2)[l] = buf + 4 * (uint64_t)l;
        row(3)[l] = 0x10000 + (uint64_t)l;
        row(4)[l] = 0xaa00 + (uint64_t)l;
    }
    CHECK(!bind(bind_st), "bind st.v2");
    CHECK(run(FULL_MASK) == STEP_NEXT && *(uint16_t *)(h + 4 * 5) == 5 &&
          *(uint16_t *)(h + 4 * 5 + 2) == 0xaa05, "st.v2.u16");
    reset();
    begin(TY_B32, SP_GLOBAL, 1);
    addr(2, 0); src(3);
    fill(2, buf);
    for (int l = 0; l < 32; l++) row(3)[l] = (uint64_t)l;
    CHECK(!bind(bind_st) && run(0x00ff00f0) == STEP_NEXT && *(uint32_t *)h == 4,
          "st conflict: %u", *(uint32_t *)h);
    /* shared, local, frame-relative param, generic windows */
    reset();
    begin(TY_B64, SP_SHARED, 1);
    addr(2, 8); src(3);
    for (int l = 0; l < 32; l++) { row(2)[l] = 8 * (uint64_t)l; row(3)[l] = 100 + (uint64_t)l; }
    CHECK(!bind(bind_st) && run(FULL_MASK) == STEP_NEXT && *(uint64_t *)(shared_buf + 8 * 32) == 131,
          "st.shared");
    begin(TY_B64, SP_NONE, 1);
    dst(4); addr(2, 0);
    for (int l = 0; l < 32; l++) row(2)[l] = SHARED_WINDOW + 8 + 8 * (uint64_t)l;
    CHECK(!bind(bind_ld) && run(FULL_MASK) == STEP_NEXT && row(4)[31] == 131, "ld generic shared");
    begin(TY_B32, SP_PARAM, 1);
    I.flags = IF_FRAME; I.space = SP_LOCAL;
    addr(ROW_ZERO, 4); src(3);
    for (int l = 0; l < 32; l++) { W.fp[l] = 16; row(3)[l] = 7 + (uint64_t)l; }
    CHECK(!bind(bind_st) && I.space == SP_LOCAL && run(FULL_MASK) == STEP_NEXT &&
          *(uint32_t *)(local_buf + 5 * 128 + 20) == 12, "st.param frame");
    begin(TY_B32, SP_NONE, 1);
    dst(5); addr(2, 0);
    fill(2, LOCAL_WINDOW + 20);
    CHECK(!bind(bind_ld) && run(FULL_MASK) == STEP_NEXT && row(5)[5] == 12 && row(5)[0] == 7,
          "ld generic local");
    fill(2, LOCAL_WINDOW + 128);
    CHECK(run(1) == STEP_FAULT && strstr(fault_msg, "stack overflow"), "local oob: %s", fault_msg);
    /* .acquire / .release and cache operators bind; b128 and v8 do not */
    begin(TY_U32, SP_GLOBAL, 1); mod(MOD_ACQUIRE); mod(MOD_GPU); dst(3); addr(2, 0);
    CHECK(!bind(bind_ld), "ld.acquire.gpu");
    begin(TY_U32, SP_GLOBAL, 1); mod(MOD_NC); mod(MOD_L1_NO_ALLOCATE); dst(3); addr(2, 0);
    CHECK(!bind(bind_ld), "ld.global.nc.L1::no_allocate");
    begin(TY_U32, SP_GLOBAL, 1); mod(MOD_RELEASE); mod(MOD_SYS); src(3); addr(2, 0);
    CHECK(!bind(bind_st), "st.release.sys");
    begin(TY_B128, SP_GLOBAL, 1); dst(3); addr(2, 0);
    CHECK(bind(bind_ld) != NULL, "ld.b128 rejected");
    begin(TY_B32, SP_GLOBAL, 8); dst(3); dst(4); dst(5); dst(6); addr(2, 0);
    CHECK(bind(bind_ld) != NULL, "ld.v8 rejected");
    mem_free(buf, MEM_DEVICE);
}

/* ---- prefetch, cvta, isspacep, fence ---- */

static void test_addr_ops(void)
{
    reset();
    begin(TY_NONE, SP_GLOBAL, 1); mod(MOD_L2); addr(2, 0);
    fill(2, 0x10);
    CHECK(!bind(bind_prefetch) && run(FULL_MASK) == STEP_NEXT, "prefetch of a bad address");

    struct { int space, to, ty; uint64_t in, out; } cv[] = {
        {SP_SHARED, 0, TY_U64, 0x40, SHARED_WINDOW + 0x40},
        {SP_SHARED, 1, TY_U64, SHARED_WINDOW + 0x40, 0x40},
        {SP_LOCAL, 0, TY_U64, 0x8, LOCAL_WINDOW + 0x8},
        {SP_LOCAL, 1, TY_U64, LOCAL_WINDOW + 0x8, 0x8},
        {SP_GLOBAL, 0, TY_U64, 0x700000001000ull, 0x700000001000ull},
        {SP_SHARED, 1, TY_U32, SHARED_WINDOW + 0x40, 0x40},
        {SP_SHARED_CLUSTER, 0, TY_U32, 0x40, 0x40},
        {SP_CONST, 1, TY_U64, 0x700000002000ull, 0x700000002000ull},
    };
    for (size_t i = 0; i < sizeof cv / sizeof cv[0]; i++) {
        begin(cv[i].ty, cv[i].space, 1);
        if (cv[i].to) mod(MOD_TO);
        dst(3); src(2);
        fill(2, cv[i].in);
        CHECK(!bind(bind_cvta) && run(FULL_MASK) == STEP_NEXT && row(3)[4] == cv[i].out,
              "cvta case %zu: %llx", i, (unsigned long long)row(3)[4]);
    }
    begin(TY_U64, SP_NONE, 1); dst(3); src(2);
    CHECK(bind(bind_cvta) != NULL, "cvta without a space rejected");

    uint64_t g = mem_alloc(64, MEM_DEVICE), k = mem_alloc(64, MEM_PARAM), m = mem_alloc(64, MEM_CONST);
    row(2)[0] = g; row(2)[1] = SHARED_WINDOW + 4; row(2)[2] = LOCAL_WINDOW + 4; row(2)[3] = k;
    row(2)[4] = m;
    struct { int space; uint32_t want; } sp[] = {
        {SP_GLOBAL, 0x09} /* a .const block is not .global (H100) */, {SP_SHARED, 0x2}, {SP_SHARED_CLUSTER, 0x2}, {SP_LOCAL, 0x4},
        {SP_PARAM, 0x8}, {SP_CONST, 0x10},
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        begin(TY_NONE, sp[i].space, 1);
        dst(3); src(2);
        P[3] = 0x80000000u;
        CHECK(!bind(bind_isspacep) && run(0x1f) == STEP_NEXT && P[3] == (sp[i].want | 0x80000000u),
              "isspacep case %zu: %x", i, P[3]);
    }
    mem_free(g, MEM_DEVICE); mem_free(k, MEM_PARAM); mem_free(m, MEM_CONST);

    begin(TY_NONE, SP_NONE, 1); mod(MOD_SC); mod(MOD_GPU);
    CHECK(!bind(bind_fence) && run(FULL_MASK) == STEP_NEXT, "fence.sc.gpu");
}

/* ---- atom / red ---- */

static uint64_t atom_buf;

static int bind_atom_op(int op, int ty, int space, int is_red)
{
    begin(ty, space, 1);
    mod(op);
    if (!is_red) dst(3);
    addr(2, 0);
    src(4);
    if (op == MOD_CAS) src(5);
    return bind(is_red ? bind_red : bind_atom) == NULL;
}

static void test_atom_int(void)
{
    uint32_t *m32 = (uint32_t *)(uintptr_t)atom_buf;
    uint64_t *m64 = (uint64_t *)(uintptr_t)atom_buf;
    reset();
    fill(2, atom_buf);
    /* add: every lane hits one word, in lane order */
    *m32 = 10;
    fill(4, 3);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_GLOBAL, 0) && run(FULL_MASK) == STEP_NEXT &&
          *m32 == 10 + 96 && row(3)[0] == 10 && row(3)[31] == 10 + 93, "atom.add.u32");
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_NONE, 1) && run(0x3) == STEP_NEXT && *m32 == 112,
          "red.add generic");
    /* inc / dec wrap */
    *m32 = 0;
    fill(4, 2);
    CHECK(bind_atom_op(MOD_INC, TY_U32, SP_GLOBAL, 0) && run(0xf) == STEP_NEXT && *m32 == 1 &&
          row(3)[0] == 0 && row(3)[1] == 1 && row(3)[2] == 2 && row(3)[3] == 0, "atom.inc wrap");
    *m32 = 1;
    CHECK(bind_atom_op(MOD_DEC, TY_U32, SP_GLOBAL, 0) && run(0xf) == STEP_NEXT && *m32 == 0 &&
          row(3)[0] == 1 && row(3)[1] == 0 && row(3)[2] == 2 && row(3)[3] == 1, "atom.dec wrap");
    *m32 = 7;
    fill(4, 5);
    CHECK(bind_atom_op(MOD_DEC, TY_U32, SP_GLOBAL, 0) && run(1) == STEP_NEXT && *m32 == 5,
          "dec above the bound");
    /* signed and unsigned min/max */
    *m32 = 5;
    fill(4, (uint32_t)-3);
    CHECK(bind_atom_op(MOD_MIN, TY_S32, SP_GLOBAL, 0) && run(1) == STEP_NEXT && *m32 == (uint32_t)-3,
          "atom.min.s32");
    *m32 = 5;
    CHECK(bind_atom_op(MOD_MIN, TY_U32, SP_GLOBAL, 0) && run(1) == STEP_NEXT && *m32 == 5,
          "atom.min.u32");
    *m64 = 1;
    fill(4, 1ull << 40);
    CHECK(bind_atom_op(MOD_MAX, TY_S64, SP_GLOBAL, 0) && run(1) == STEP_NEXT && *m64 == 1ull << 40,
          "atom.max.s64");
    /* bit operations, exch, cas */
    *m64 = 0xff00;
    fill(4, 0x0ff0);
    CHECK(bind_atom_op(MOD_XOR, TY_B64, SP_GLOBAL, 0) && run(1) == STEP_NEXT && *m64 == 0xf0f0 &&
          row(3)[0] == 0xff00, "atom.xor.b64");
    CHECK(bind_atom_op(MOD_OR, TY_B32, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m64 == 0xfff0,
          "red.or.b32");
    for (int l = 0; l < 32; l++) row(4)[l] = (uint64_t)l;
    CHECK(bind_atom_op(MOD_EXCH, TY_B32, SP_GLOBAL, 0) && run(FULL_MASK) == STEP_NEXT &&
          *m32 == 31 && row(3)[0] == 0xfff0 && row(3)[5] == 4, "atom.exch");
    /* cas: only the lane whose compare value matches the running value swaps */
    *m32 = 0;
    for (int l = 0; l < 32; l++) { row(4)[l] = (uint64_t)l; row(5)[l] = (uint64_t)l + 1; }
    CHECK(bind_atom_op(MOD_CAS, TY_B32, SP_GLOBAL, 0) && run(FULL_MASK) == STEP_NEXT &&
          *m32 == 32 && row(3)[7] == 7, "atom.cas chain: %u", *m32);
    *m32 = 0xaaaa5555;
    fill(4, 0x5555); fill(5, 0x1234);
    CHECK(bind_atom_op(MOD_CAS, TY_B16, SP_GLOBAL, 0) && run(1) == STEP_NEXT &&
          *m32 == 0xaaaa1234 && row(3)[0] == 0x5555, "atom.cas.b16");
    /* shared memory, through the window too */
    reset();
    fill(2, 64);
    fill(4, 1);
    *(uint32_t *)(shared_buf + 64) = 0;
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_SHARED, 0) && run(FULL_MASK) == STEP_NEXT &&
          *(uint32_t *)(shared_buf + 64) == 32, "atom.shared.add");
    fill(2, SHARED_WINDOW + 64);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_NONE, 0) && run(FULL_MASK) == STEP_NEXT &&
          *(uint32_t *)(shared_buf + 64) == 64 && row(3)[31] == 63, "atom generic shared");
    /* faults and rejections */
    fill(2, atom_buf + 2);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_GLOBAL, 0) && run(1) == STEP_FAULT &&
          fault_code == EMU_ERR_MISALIGNED_ADDRESS, "atom misaligned");
    CHECK(!bind_atom_op(MOD_EXCH, TY_B32, SP_GLOBAL, 1), "red.exch rejected");
    CHECK(!bind_atom_op(MOD_INC, TY_U64, SP_GLOBAL, 0), "atom.inc.u64 rejected");
    CHECK(!bind_atom_op(MOD_MIN, TY_F32, SP_GLOBAL, 0), "atom.min.f32 rejected");
    CHECK(!bind_atom_op(MOD_CAS, TY_B128, SP_GLOBAL, 0), "atom.cas.b128 rejected");
    CHECK(!bind_atom_op(MOD_ADD, TY_U32, SP_LOCAL, 0), "atom.local rejected");
}

/* Lanes at one address (exec_atom.c's one_addr): one lane's pointer resolved, integer adds as
 * one host atomic of the sum. Every result must be what the lanes one by one in lane order
 * give: partial masks, operands that differ between lanes, a destination that is the
 * operand's row, 64-bit and wrapping sums, red, exch, and faults of the lowest lane. */
static void test_atom_one_addr(void)
{
    reset();
    uint32_t *s32 = (uint32_t *)(shared_buf + 128);
    uint64_t *m64 = (uint64_t *)(uintptr_t)atom_buf;
    /* atom.shared.add.u32 %r4, [%r2], %r4: operands differ, d is b's row, 12 lanes */
    uint32_t mask = 0x0f0f00f0u, want = 0xfffffff0u;
    uint64_t exp[WARP_SIZE];
    fill(2, 128);
    for (int l = 0; l < 32; l++) row(4)[l] = exp[l] = (uint64_t)l * l + 1 + (l & 1 ? 1ull << 40 : 0);
    for (int l = 0; l < 32; l++) if (mask >> l & 1) { uint32_t x = (uint32_t)exp[l]; exp[l] = want; want += x; }
    *s32 = 0xfffffff0u;
    begin(TY_U32, SP_SHARED, 1); mod(MOD_ADD); dst(4); addr(2, 0); src(4);
    int ok = !bind(bind_atom) && run(mask) == STEP_NEXT && *s32 == want;
    for (int l = 0; l < 32; l++) ok &= row(4)[l] == exp[l];
    CHECK(ok, "atom.shared.add.u32 at one address, lanes' own operands, d = b: %#x", *s32);
    /* the same operand in every lane, part of a warp, 64-bit, wrapping */
    reset();
    fill(2, atom_buf);
    fill(4, 0x40);
    fill(3, 77);
    *m64 = 0xffffffffffffff00ull;
    mask = 0x80000f01u;
    CHECK(bind_atom_op(MOD_ADD, TY_U64, SP_GLOBAL, 0) && run(mask) == STEP_NEXT &&
          *m64 == 0xffffffffffffff00ull + 6 * 0x40 && row(3)[0] == 0xffffffffffffff00ull &&
          row(3)[8] == 0xffffffffffffff40ull && row(3)[10] == 0xffffffffffffffc0ull && row(3)[11] == 0 &&
          row(3)[31] == 0x40 &&
          row(3)[1] == 77 && row(3)[30] == 77, "atom.add.u64 at one address, part of a warp: %#llx",
          (unsigned long long)*m64);
    /* the whole warp, the same operand, a u32 that wraps */
    *(uint32_t *)m64 = 0xfffffff0u;
    fill(4, 1);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_GLOBAL, 0) && run(FULL_MASK) == STEP_NEXT &&
          *(uint32_t *)m64 == 16 && row(3)[15] == 0xffffffffu && row(3)[16] == 0 && row(3)[31] == 15,
          "atom.add.u32 wrapping at one address");
    /* red with operands that differ */
    reset();
    fill(2, 128);
    for (int l = 0; l < 32; l++) row(4)[l] = (uint64_t)(3 * l);
    *s32 = 5;
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_SHARED, 1) && run(0xffff0000u) == STEP_NEXT &&
          *s32 == 5 + 3 * (16 + 31) * 16 / 2, "red.shared.add.u32 at one address: %u", *s32);
    /* exch at one address: each lane gets the value of the lane before it */
    *s32 = 1000;
    CHECK(bind_atom_op(MOD_EXCH, TY_B32, SP_SHARED, 0) && run(0x00000f00u) == STEP_NEXT && *s32 == 33 &&
          row(3)[8] == 1000 && row(3)[9] == 24 && row(3)[11] == 30, "atom.exch at one address");
    /* one lane elsewhere: the lanes one by one */
    row(2)[20] = 256;
    *(uint32_t *)(shared_buf + 256) = 0;
    *s32 = 0;
    fill(4, 2);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_SHARED, 0) && run(FULL_MASK) == STEP_NEXT && *s32 == 62 &&
          *(uint32_t *)(shared_buf + 256) == 2 && row(3)[21] == 40 && row(3)[20] == 0,
          "atom.add with one lane at another address");
    /* faults: the lowest lane of the mask, as the lanes one by one report it */
    fill(2, 8192);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_SHARED, 0) && run(0xf0u) == STEP_FAULT &&
          fault_code == EMU_ERR_ILLEGAL_ADDRESS && fault_lane == 4 && strstr(fault_msg, "shared"),
          "atom.shared out of bounds at one address: lane %d, %s", fault_lane, fault_msg);
    fill(2, atom_buf + 2);
    CHECK(bind_atom_op(MOD_ADD, TY_U32, SP_GLOBAL, 1) && run(0x6u) == STEP_FAULT &&
          fault_code == EMU_ERR_MISALIGNED_ADDRESS && fault_lane == 1, "red misaligned at one address: lane %d",
          fault_lane);
}

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

static void test_atom_float(void)
{
    uint32_t *m32 = (uint32_t *)(uintptr_t)atom_buf;
    uint64_t *m64 = (uint64_t *)(uintptr_t)atom_buf;
    reset();
    fill(2, atom_buf);
    *m32 = f2u(1.5f);
    fill(4, f2u(0.25f));
    CHECK(bind_atom_op(MOD_ADD, TY_F32, SP_GLOBAL, 0) && run(0xf) == STEP_NEXT && *m32 == f2u(2.5f) &&
          row(3)[3] == f2u(2.25f), "atom.add.f32");
    /* global memory flushes subnormals, shared memory keeps them */
    *m32 = 0x00000010;
    fill(4, 0x00000020);
    CHECK(bind_atom_op(MOD_ADD, TY_F32, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0,
          "red.add.f32 global ftz: %x", *m32);
    *(uint32_t *)shared_buf = 0x00000010;
    fill(2, 0);
    CHECK(bind_atom_op(MOD_ADD, TY_F32, SP_SHARED, 1) && run(1) == STEP_NEXT &&
          *(uint32_t *)shared_buf == 0x30, "red.add.f32 shared keeps subnormals");
    fill(2, atom_buf);
    *m32 = 0x7f800000;
    fill(4, 0xff800000);
    CHECK(bind_atom_op(MOD_ADD, TY_F32, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0x7fffffff,
          "inf + -inf is the canonical NaN");
    double x = 0.1;
    memcpy(m64, &x, 8);
    fill(4, 0x3fd3333333333333ull);   /* 0.3 */
    CHECK(bind_atom_op(MOD_ADD, TY_F64, SP_GLOBAL, 0) && run(1) == STEP_NEXT &&
          *m64 == 0x3fd999999999999aull, "atom.add.f64: %llx", (unsigned long long)*m64);
    /* halves: 1.0 + 2^-11 rounds to even (1.0); 0x3c01 + 2^-11 rounds up */
    *m32 = 0x3c00;
    fill(4, 0x1000);
    CHECK(bind_atom_op(MOD_ADD, TY_F16, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0x3c00,
          "f16 tie to even: %x", *m32);
    *m32 = 0x3c01;
    CHECK(run(1) == STEP_NEXT && *m32 == 0x3c02, "f16 tie up: %x", *m32);
    *m32 = 0x3c003c00;                 /* {1.0, 1.0} + {1.0, -1.0} */
    fill(4, 0xbc003c00);
    CHECK(bind_atom_op(MOD_ADD, TY_F16X2, SP_GLOBAL, 0) && run(1) == STEP_NEXT &&
          *m32 == 0x00004000 && row(3)[0] == 0x3c003c00, "atom.add.f16x2: %x", *m32);
    *m32 = 0x3f80;                     /* bf16 1.0 + 1.0 */
    fill(4, 0x3f80);
    CHECK(bind_atom_op(MOD_ADD, TY_BF16, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0x4000,
          "red.add.bf16: %x", *m32);
    *m32 = 0x7e00;                     /* min(NaN, 2.0) = 2.0; max(-0, +0) = +0 */
    fill(4, 0x4000);
    CHECK(bind_atom_op(MOD_MIN, TY_F16, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0x4000,
          "min.f16 with NaN");
    *m32 = 0x8000;
    fill(4, 0x0000);
    CHECK(bind_atom_op(MOD_MAX, TY_F16, SP_GLOBAL, 1) && run(1) == STEP_NEXT && *m32 == 0x0000,
          "max.f16 signed zeros");
    /* vector forms */
    float init[4] = {1, 2, 3, 4};
    memcpy(m32, init, 16);
    begin(TY_F32, SP_GLOBAL, 4); mod(MOD_ADD);
    dst(3); dst(4); dst(5); dst(6); addr(2, 0); src(3); src(4); src(5); src(6);
    fill(3, f2u(10)); fill(4, f2u(20)); fill(5, f2u(30)); fill(6, f2u(40));
    CHECK(!bind(bind_atom) && run(1) == STEP_NEXT && m32[0] == f2u(11) && m32[3] == f2u(44) &&
          row(3)[0] == f2u(1) && row(6)[0] == f2u(4), "atom.v4.f32.add with aliased operands");
    begin(TY_F16, SP_GLOBAL, 2); mod(MOD_ADD); mod(MOD_NOFTZ);
    addr(2, 0); src(4); src(5);
    m32[0] = 0x3c003c00;
    fill(4, 0x3c00); fill(5, 0x4000);
    CHECK(!bind(bind_red) && run(1) == STEP_NEXT && m32[0] == 0x42004000, "red.v2.f16.add: %x", m32[0]);
    begin(TY_U32, SP_GLOBAL, 2); mod(MOD_ADD); addr(2, 0); src(4); src(5);
    CHECK(bind(bind_red) != NULL, "red.v2.u32 rejected");
    begin(TY_F32, SP_SHARED, 2); mod(MOD_ADD); addr(2, 0); src(4); src(5);
    CHECK(bind(bind_red) != NULL, "vector red on shared rejected");
}

/* ---- warp-level ---- */

static void shfl(int mode, uint64_t b, uint64_t c, uint32_t mask)
{
    begin(TY_B32, SP_NONE, 1); mod(MOD_SYNC); mod(mode);
    dst(3); dst(2); src(4); src(5); src(6); src(7);   /* d|p, a, b, c, membermask */
    fill(5, b); fill(6, c); fill(7, FULL_MASK);
    for (int l = 0; l < 32; l++) row(4)[l] = 100 + (uint64_t)l;
    P[2] = 0;
    if (bind(bind_shfl)) { CHECK(0, "bind shfl"); return; }
    CHECK(run(mask) == STEP_NEXT, "shfl run");
}

static void test_shfl(void)
{
    reset();
    shfl(MOD_IDX, 5, 0x1f, FULL_MASK);                  /* __shfl_sync(.., 5) */
    CHECK(row(3)[0] == 105 && row(3)[31] == 105 && P[2] == FULL_MASK, "shfl.idx broadcast");
    shfl(MOD_IDX, 5, (24u << 8) | 0x1f, FULL_MASK);     /* width 8 */
    CHECK(row(3)[0] == 105 && row(3)[9] == 113 && row(3)[31] == 129, "shfl.idx width 8");
    shfl(MOD_UP, 3, 0, FULL_MASK);
    CHECK(row(3)[2] == 102 && row(3)[3] == 100 && row(3)[31] == 128 && P[2] == 0xfffffff8u,
          "shfl.up: p=%x", P[2]);
    shfl(MOD_UP, 1, 24u << 8, FULL_MASK);               /* width 8: segment starts keep own */
    CHECK(row(3)[8] == 108 && row(3)[9] == 108 && P[2] == 0xfefefefeu, "shfl.up width 8");
    shfl(MOD_DOWN, 4, 0x1f, FULL_MASK);
    CHECK(row(3)[0] == 104 && row(3)[28] == 128 && row(3)[29] == 129 && P[2] == 0x0fffffffu,
          "shfl.down: p=%x", P[2]);
    shfl(MOD_DOWN, 2, (16u << 8) | 0x1f, FULL_MASK);    /* width 16 */
    CHECK(row(3)[13] == 115 && row(3)[14] == 114 && row(3)[16] == 118 && P[2] == 0x3fff3fffu,
          "shfl.down width 16: p=%x", P[2]);
    shfl(MOD_BFLY, 1, 0x1f, FULL_MASK);
    CHECK(row(3)[0] == 101 && row(3)[1] == 100 && row(3)[30] == 131, "shfl.bfly");
    /* xor beyond the segment: lanes 0-15 would read a later segment (out of range, own
     * value); lanes 16-31 may read the earlier one, as the pseudo-code's j <= maxLane says */
    shfl(MOD_BFLY, 16, (16u << 8) | 0x1f, FULL_MASK);
    CHECK(row(3)[0] == 100 && row(3)[16] == 100 && P[2] == 0xffff0000u,
          "shfl.bfly across segments: p=%x", P[2]);
    shfl(MOD_IDX, 37, 0x1f, FULL_MASK);                 /* b[4:0] only */
    CHECK(row(3)[0] == 105, "shfl.idx uses b[4:0]");
    /* partial mask: lanes outside keep their destination and predicate; the source lane 0 is
     * not executing, so its value reads as 0 (measured on the H100: tests/ptx/warp_shfl_inactive) */
    fill(3, 7);
    P[2] = 0;
    shfl(MOD_IDX, 0, 0x1f, 0xf0);
    CHECK(row(3)[4] == 0 && row(3)[3] == 7 && (P[2] & 0xf) == 0 && (P[2] & 0xf0) == 0xf0 &&
          converge_members == FULL_MASK, "shfl partial");
    shfl(MOD_IDX, 5, 0x1f, 0xf0);
    CHECK(row(3)[4] == 105, "shfl partial, an executing source");
    /* converge result is passed through */
    converge_ret = STEP_BLOCK;
    begin(TY_B32, SP_NONE, 1); mod(MOD_SYNC); mod(MOD_IDX);
    dst(3); src(4); src(5); src(6); src(7);
    CHECK(!bind(bind_shfl) && run(1) == STEP_BLOCK, "shfl waits for the warp");
    converge_ret = 0;
    begin(TY_B32, SP_NONE, 1); mod(MOD_IDX);
    dst(3); src(4); src(5); src(6);
    CHECK(bind(bind_shfl) != NULL, "shfl without .sync rejected");
}

static void vote(int mode, int ty, uint32_t pred, int neg, uint32_t members, uint32_t mask)
{
    begin(ty, SP_NONE, 1); mod(MOD_SYNC); mod(mode);
    dst(mode == MOD_BALLOT ? 3 : 4); src(5); src(6);
    if (neg) I.flags |= IF_NEG_C;
    P[5] = pred;
    fill(6, members);
    P[4] = 0;
    CHECK(!bind(bind_vote) && run(mask) == STEP_NEXT, "vote run");
}

static void test_vote_match_redux(void)
{
    reset();
    vote(MOD_ALL, TY_PRED, FULL_MASK, 0, FULL_MASK, FULL_MASK);
    CHECK(P[4] == FULL_MASK, "vote.all true");
    vote(MOD_ALL, TY_PRED, 0xfffffffe, 0, FULL_MASK, FULL_MASK);
    CHECK(P[4] == 0, "vote.all false");
    vote(MOD_ALL, TY_PRED, 0x0000ffff, 0, 0x0000ffff, 0x0000ffff);
    CHECK(P[4] == 0x0000ffff, "vote.all on a half warp");
    vote(MOD_ANY, TY_PRED, 0, 1, FULL_MASK, FULL_MASK);
    CHECK(P[4] == FULL_MASK, "vote.any of !p");
    vote(MOD_UNI, TY_PRED, 0xf0, 0, 0xff, 0xff);
    CHECK(P[4] == 0, "vote.uni false");
    vote(MOD_UNI, TY_PRED, 0xf0, 0, 0xf0, 0xf0);
    CHECK(P[4] == 0xf0, "vote.uni true");
    vote(MOD_BALLOT, TY_B32, 0x12345678, 0, FULL_MASK, 0x0000ffff);
    CHECK(row(3)[0] == 0x5678 && row(3)[16] == 0, "vote.ballot: %llx", (unsigned long long)row(3)[0]);
    begin(TY_PRED, SP_NONE, 1); mod(MOD_ALL); dst(4); src(5);
    CHECK(bind(bind_vote) != NULL, "vote without .sync rejected");

    /* match */
    for (int l = 0; l < 32; l++) row(5)[l] = (uint64_t)(l % 3) | (l == 4 ? 1ull << 40 : 0);
    fill(6, FULL_MASK);
    begin(TY_B32, SP_NONE, 1); mod(MOD_SYNC); mod(MOD_ANY); dst(3); src(5); src(6);
    CHECK(!bind(bind_match) && run(FULL_MASK) == STEP_NEXT && row(3)[0] == 0x49249249 &&
          row(3)[4] == 0x92492492, "match.any.b32: %llx", (unsigned long long)row(3)[0]);
    begin(TY_B64, SP_NONE, 1); mod(MOD_SYNC); mod(MOD_ANY); dst(3); src(5); src(6);
    CHECK(!bind(bind_match) && run(FULL_MASK) == STEP_NEXT && row(3)[4] == 0x10 &&
          row(3)[1] == (0x92492492u & ~0x10u), "match.any.b64");
    begin(TY_B32, SP_NONE, 1); mod(MOD_SYNC); mod(MOD_ALL); dst(3); dst(7); src(5); src(6);
    P[7] = 0;
    CHECK(!bind(bind_match) && run(FULL_MASK) == STEP_NEXT && row(3)[0] == 0 && P[7] == 0,
          "match.all false");
    fill(5, 9);
    CHECK(run(0xff) == STEP_NEXT && row(3)[0] == 0xff && P[7] == 0xff, "match.all true");

    /* redux */
    for (int l = 0; l < 32; l++) row(5)[l] = (uint64_t)(l - 3) & 0xffffffffu;
    struct { int op, ty; uint32_t want; } rx[] = {
        {MOD_ADD, TY_U32, 400}, {MOD_MIN, TY_S32, (uint32_t)-3}, {MOD_MIN, TY_U32, 0},
        {MOD_MAX, TY_U32, 0xffffffffu}, {MOD_MAX, TY_S32, 28}, {MOD_AND, TY_B32, 0},
        {MOD_OR, TY_B32, 0xffffffffu}, {MOD_XOR, TY_B32, 0xffffffe0u},
    };
    for (size_t i = 0; i < sizeof rx / sizeof rx[0]; i++) {
        begin(rx[i].ty, SP_NONE, 1); mod(MOD_SYNC); mod(rx[i].op); dst(3); src(5); src(6);
        CHECK(!bind(bind_redux) && run(FULL_MASK) == STEP_NEXT && row(3)[17] == rx[i].want,
              "redux case %zu: %llx", i, (unsigned long long)row(3)[17]);
    }
    begin(TY_F32, SP_NONE, 1); mod(MOD_SYNC); mod(MOD_MIN); dst(3); src(5); src(6);
    CHECK(bind(bind_redux) != NULL, "redux.f32 rejected");

    begin(TY_B32, SP_NONE, 1); dst(3);
    CHECK(!bind(bind_activemask) && run(0x00f0f0f0) == STEP_NEXT && row(3)[4] == 0x00f0f0f0,
          "activemask");
}

int main(void)
{
    setenv("PTXEMU_STRICT_BOUNDS", "1", 1);   /* faults past the end, as these tests expect */
    atom_buf = mem_alloc(256, MEM_DEVICE);
    test_ld_st();
    test_vector_whole();
    test_addr_ops();
    test_atom_int();
    test_atom_one_addr();
    test_atom_float();
    test_shfl();
    test_vote_match_redux();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
