/* test_exec_float.c - unit tests of emu/fp.h, exec_float.c, exec_half.c and exec_cvt.c:
 * binds hand-made instructions, runs their handlers on a hand-built warp and compares with
 * references computed on the host (host rounding modes, _Float16, __float128).
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra -frounding-math -ffp-contract=off
 *        tests/unit/test_exec_float.c emu/exec_float.c emu/exec_half.c emu/exec_cvt.c -lm
 * Prints one line per failure and "N passed, N failed"; exits 1 on any failure. */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "../../emu/exec.h"
#include "../../emu/fp.h"

#include "check.h"

/* ---- a hand-built warp and a tiny instruction "assembler" ---------------------------- */

enum { NROWS = 16, NPREDS = 8, RA = 2, RB = 3, RC = 4, RD = 5, RD2 = 6 };
static uint64_t rows[NROWS * WARP_SIZE];
static uint32_t preds[NPREDS];
static Warp warp = {.R = rows, .P = preds};

static const struct { const char *name; int op; } op_names[] = {
#define OP(name, str, fmt, binder) {str, OP_##name},
#include "../../emu/ops.def"
#undef OP
};
static const char *mod_names[] = {
#define X(n) #n,
    PTX_MODS(X)
#undef X
};
static const struct { const char *name; int ty; } ty_names[] = {
    {"b8", TY_B8}, {"b16", TY_B16}, {"b32", TY_B32}, {"b64", TY_B64}, {"u8", TY_U8},
    {"u16", TY_U16}, {"u32", TY_U32}, {"u64", TY_U64}, {"s8", TY_S8}, {"s16", TY_S16},
    {"s32", TY_S32}, {"s64", TY_S64}, {"f16", TY_F16}, {"f16x2", TY_F16X2},
    {"bf16", TY_BF16}, {"bf16x2", TY_BF16X2}, {"f32", TY_F32}, {"f64", TY_F64},
    {"e4m3x2", TY_E4M3X2}, {"e5m2x2", TY_E5M2X2}, {"tf32", TY_TF32},
};

static Binder binder_of(int op)
{
    switch (op) {
    case OP_add: return bind_flt_add;
    case OP_sub: return bind_flt_sub;
    case OP_mul: return bind_flt_mul;
    case OP_mad: return bind_flt_mad;
    case OP_div: return bind_flt_div;
    case OP_abs: return bind_flt_abs;
    case OP_neg: return bind_flt_neg;
    case OP_min: return bind_flt_min;
    case OP_max: return bind_flt_max;
    case OP_fma: return bind_fma;
    case OP_rcp: return bind_rcp;
    case OP_sqrt: return bind_sqrt;
    case OP_rsqrt: return bind_rsqrt;
    case OP_sin: return bind_sin;
    case OP_cos: return bind_cos;
    case OP_lg2: return bind_lg2;
    case OP_ex2: return bind_ex2;
    case OP_tanh: return bind_tanh;
    case OP_testp: return bind_testp;
    case OP_copysign: return bind_copysign;
    case OP_cvt: return bind_cvt;
    case OP_cvt_pack: return bind_cvt_pack;
    case OP_setp: return bind_half_setp;
    case OP_set: return bind_half_set;
    default: return NULL;
    }
}

/* Bind "op.mod.type..." with nd destinations (rows RD, RD2 or predicates 2, 3) and ns
 * sources (rows RA, RB, RC, RC+1; a predicate c is index 4). Returns the binder's error. */
static const char *bind(const char *text, int nd, int ns, Inst *in)
{
    InstDesc d;
    memset(&d, 0, sizeof d);
    memset(in, 0, sizeof *in);
    char buf[128], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    char *tok = strtok_r(buf, ".", &save);
    d.op = -1;
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++)
        if (!strcmp(op_names[i].name, tok)) d.op = op_names[i].op;
    if (!strcmp(tok, "cvt") && strstr(text, "cvt.pack.")) {
        d.op = OP_cvt_pack;
        strtok_r(NULL, ".", &save);
    }
    while ((tok = strtok_r(NULL, ".", &save))) {
        int found = 0;
        for (size_t i = 0; i < sizeof ty_names / sizeof ty_names[0] && !found; i++)
            if (!strcmp(ty_names[i].name, tok)) { d.types[d.ntypes++] = (uint8_t)ty_names[i].ty; found = 1; }
        for (int i = 0; i < MOD_COUNT && !found; i++)
            if (!strcasecmp(mod_names[i], tok)) { d.mods[i >> 6] |= 1ull << (i & 63); found = 1; }
        if (!found) { printf("test bug: unknown word %s in %s\n", tok, text); exit(2); }
    }
    int is_pred_dst = d.op == OP_setp || d.op == OP_testp;
    d.nd = nd; d.ns = ns; d.vec = 1; d.text = text;
    in->op = (uint16_t)d.op;
    in->t = d.types[0]; in->t2 = d.types[1];
    in->nd = (uint8_t)nd; in->ns = (uint8_t)ns;
    for (int i = 0; i < nd; i++) in->d[i] = is_pred_dst ? 2 + i : (i ? RD2 : RD);
    for (int i = 0; i < ns; i++) in->s[i] = RA + i;
    if (is_pred_dst && ns == 3) in->s[2] = 4;
    Binder b = binder_of(d.op);
    if (!b) return "no binder";
    const char *e = b(in, &d);
    if (!e && !in->fn) return "binder set no handler";
    return e;
}

/* Run on every lane with the same inputs; returns lane 0's result and checks the others. */
static uint64_t run3(const char *text, int ns, uint64_t a, uint64_t b, uint64_t c)
{
    Inst in;
    const char *e = bind(text, 1, ns, &in);
    if (e) { CHECK(0, "%s: binder says %s", text, e); return 0xdeadbeef; }
    for (int l = 0; l < WARP_SIZE; l++) {
        rows[RA * 32 + l] = a; rows[RB * 32 + l] = b; rows[RC * 32 + l] = c;
        rows[RD * 32 + l] = 0x5555;
    }
    in.fn(&warp, &in, FULL_MASK);
    for (int l = 1; l < WARP_SIZE; l++)
        if (rows[RD * 32 + l] != rows[RD * 32]) { CHECK(0, "%s: lanes differ", text); break; }
    return rows[RD * 32];
}
static uint64_t run1(const char *t, uint64_t a) { return run3(t, 1, a, 0, 0); }
static uint64_t run2(const char *t, uint64_t a, uint64_t b) { return run3(t, 2, a, b, 0); }

#define EQ(text, got, want)                                                         \
    do {                                                                            \
        uint64_t g_ = (got), w_ = (want);                                           \
        CHECK(g_ == w_, "%s: got 0x%llx want 0x%llx", text, (unsigned long long)g_, \
              (unsigned long long)w_);                                              \
    } while (0)

static uint32_t fb(float f) { return fp_f32_bits(f); }
static uint64_t db(double f) { return fp_f64_bits(f); }
static float bf(uint32_t u) { return fp_bits_f32(u); }
static uint16_t h16(_Float16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
static _Float16 f16of(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return h; }

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd64(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}
/* random f32 bits biased towards interesting exponents */
static uint32_t rnd_f32(void)
{
    uint64_t r = rnd64();
    uint32_t u = (uint32_t)r;
    switch ((r >> 32) % 8) {
    case 0: u &= 0x807fffffu; break;                        /* subnormal */
    case 1: u = (u & 0x80ffffffu) | 0x3f000000u; break;     /* near 1 */
    case 2: u = (u & 0x81ffffffu) | 0x3e000000u; break;
    default: break;
    }
    return u;
}

static const int host_modes[] = {[RND_RN] = FE_TONEAREST, [RND_RZ] = FE_TOWARDZERO,
                                 [RND_RM] = FE_DOWNWARD, [RND_RP] = FE_UPWARD};
static const char *rnd_names[] = {"", "rn", "rz", "rm", "rp"};

/* ---- fp.h ------------------------------------------------------------------------- */

/* Directed f16 reference from the host's round-to-nearest (_Float16 conversions ignore
 * the rounding mode): step one encoding towards the mode's side when inexact. */
static uint16_t ref_f16(double x, int rnd)
{
    uint16_t h = h16((_Float16)x);
    if (x != x) return 0x7fff;
    double hv = (double)f16of(h);
    if (hv == x || rnd == RND_RN) return h;
    int below = hv < x;                       /* RN result below the exact value */
    int want_up = rnd == RND_RP || (rnd == RND_RZ && x < 0);
    if (want_up == below) {                   /* move by one in value */
        double target = want_up ? INFINITY : -INFINITY;
        (void)target;
        if ((h & 0x7fff) == 0) h = want_up ? 0x0001 : 0x8001;
        else if (((h >> 15) != 0) == want_up) h--;   /* magnitude down */
        else h++;
    }
    /* RZ/RM/RP never give infinity from a finite overflow in the opposite direction */
    if ((h & 0x7fff) == 0x7c00 && isfinite(x)) {
        if (rnd == RND_RZ || (rnd == RND_RM && x > 0) || (rnd == RND_RP && x < 0)) h--;
    }
    return h;
}

static void test_fp_formats(void)
{
    int bad = 0;
    for (uint32_t h = 0; h < 0x10000; h++) {              /* every f16, both ways */
        double x = fp_to_f64(h, FP_F16), y = (double)f16of((uint16_t)h);
        if (!(x == y && signbit(x) == signbit(y)) && !(x != x && y != y)) bad++;
        if (x == x && fp_from_f64(x, FP_F16, RND_RN, 0) != h) bad++;
    }
    CHECK(bad == 0, "f16 decode/encode round trip: %d bad", bad);

    bad = 0;
    for (int i = 0; i < 400000; i++) {                    /* f64 -> f16 in all modes */
        double x = fp_bits_f64(rnd64());
        if (i & 1) x = ldexp((double)(int64_t)rnd64(), -70 - (int)(rnd64() % 20));
        for (int r = RND_RN; r <= RND_RP; r++) {
            uint64_t got = fp_from_f64(x, FP_F16, r, 0), want = ref_f16(x, r);
            if (got != want && bad++ < 5)
                printf("  f16 %s %a: got %llx want %llx\n", rnd_names[r], x,
                       (unsigned long long)got, (unsigned long long)want);
        }
    }
    CHECK(bad == 0, "f64->f16 in all modes: %d bad", bad);

    bad = 0;
    for (int i = 0; i < 400000; i++) {                    /* f64 -> f32 vs host cast */
        double x = fp_bits_f64(rnd64());
        if (i & 1) x = ldexp((double)(int64_t)rnd64(), -(int)(rnd64() % 1200));
        for (int r = RND_RN; r <= RND_RP; r++) {
            fesetround(host_modes[r]);
            volatile double vx = x;
            volatile float f = (float)vx;   /* volatile: keep it before fesetround */
            fesetround(FE_TONEAREST);
            uint32_t want = fp_canon32(fb(f)), got = (uint32_t)fp_from_f64(x, FP_F32, r, 0);
            if (got != want && bad++ < 5)
                printf("  f32 %s %a: got %x want %x\n", rnd_names[r], x, got, want);
        }
    }
    CHECK(bad == 0, "f64->f32 in all modes: %d bad", bad);

    bad = 0;
    for (int i = 0; i < 200000; i++) {                    /* f32 -> bf16 RN/RZ vs bit trick */
        uint32_t u = rnd_f32();
        if (fp_isnan32(u)) continue;
        uint32_t rn = (u + 0x7fffu + ((u >> 16) & 1)) >> 16, rz = u >> 16;
        if (fp_f32_to_bf16(bf(u), RND_RN) != rn) bad++;
        if (fp_f32_to_bf16(bf(u), RND_RZ) != rz) bad++;
        if (fp_bf16_to_f32(rz) != bf(u & 0xffff0000u)) bad++;
    }
    CHECK(bad == 0, "f32->bf16: %d bad", bad);

    bad = 0;
    for (int i = 0; i < 200000; i++) {                    /* int64 -> f32/f64 vs host */
        int64_t v = (int64_t)rnd64() >> (rnd64() % 64);
        for (int r = RND_RN; r <= RND_RP; r++) {
            fesetround(host_modes[r]);
            volatile int64_t vv = v;
            volatile float f = (float)vv;
            volatile double dd = (double)vv;
            volatile uint64_t uv = (uint64_t)v;
            volatile float fu = (float)uv;
            fesetround(FE_TONEAREST);
            uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
            if (fp_from_int(mag, v < 0, FP_F32, r) != fb(f)) bad++;
            if (fp_from_int(mag, v < 0, FP_F64, r) != db(dd)) bad++;
            if (fp_from_int((uint64_t)v, 0, FP_F32, r) != fb(fu)) bad++;
        }
    }
    CHECK(bad == 0, "int->f32/f64 in all modes: %d bad", bad);

    /* satfinite and fp8 */
    EQ("f16 satfinite overflow", fp_from_f64(1e6, FP_F16, RND_RN, 1), 0x7bff);
    EQ("f16 satfinite -inf", fp_from_f64(-INFINITY, FP_F16, RND_RN, 1), 0xfbff);
    EQ("f16 overflow rn", fp_from_f64(65520.0, FP_F16, RND_RN, 0), 0x7c00);
    EQ("f16 65519 rn", fp_from_f64(65519.0, FP_F16, RND_RN, 0), 0x7bff);
    EQ("e4m3 1.0", fp_from_f64(1.0, FP_E4M3, RND_RN, 1), 0x38);
    EQ("e4m3 448", fp_from_f64(448.0, FP_E4M3, RND_RN, 1), 0x7e);
    EQ("e4m3 464 tie", fp_from_f64(464.0, FP_E4M3, RND_RN, 1), 0x7e);
    EQ("e4m3 1e9", fp_from_f64(-1e9, FP_E4M3, RND_RN, 1), 0xfe);
    EQ("e4m3 2^-9", fp_from_f64(0x1p-9, FP_E4M3, RND_RN, 1), 0x01);
    EQ("e4m3 2^-10 tie to 0", fp_from_f64(0x1p-10, FP_E4M3, RND_RN, 1), 0x00);
    EQ("e4m3 nan", fp_from_f64(NAN, FP_E4M3, RND_RN, 1), 0x7f);
    EQ("e5m2 1.0", fp_from_f64(1.0, FP_E5M2, RND_RN, 1), 0x3c);
    EQ("e5m2 57344", fp_from_f64(57344.0, FP_E5M2, RND_RN, 1), 0x7b);
    EQ("e5m2 inf satfinite", fp_from_f64(INFINITY, FP_E5M2, RND_RN, 1), 0x7b);
    EQ("e5m2 2^-16", fp_from_f64(0x1p-16, FP_E5M2, RND_RN, 1), 0x01);
    CHECK(fp_to_f64(0x7e, FP_E4M3) == 448.0, "e4m3 decode 448");
    CHECK(fp_to_f64(0x7f, FP_E4M3) != fp_to_f64(0x7f, FP_E4M3), "e4m3 decode nan");
    CHECK(fp_to_f64(0x01, FP_E4M3) == 0x1p-9, "e4m3 decode subnormal");
    CHECK(fp_to_f64(0x7c, FP_E5M2) == INFINITY, "e5m2 decode inf");
    EQ("tf32 rna", fp_from_f64(bf(0x3f801000u), FP_TF32, RND_RNA, 0) << 13, 0x3f802000u);
    EQ("tf32 rn tie even", fp_from_f64(bf(0x3f801000u), FP_TF32, RND_RN, 0) << 13, 0x3f800000u);

    /* round to odd: 1 + 2^-60 must not round down to 1 after a second rounding */
    double r = fp_add_rto(1.0, 0x1p-60);
    CHECK(r > 1.0 && r < 1.0 + 0x1p-50, "fp_add_rto sticky: %a", r);
    CHECK(fp_add_rto(1.0, -0x1p-60) < 1.0, "fp_add_rto sticky below");
    EQ("f16 add rn", fp_f16_add_rn(0x3c00, 0x3c00), 0x4000);
}

/* ---- f32/f64 arithmetic ----------------------------------------------------------- */

static float ref_op(int op, float a, float b, float c)
{
    volatile float va = a, vb = b, vc = c;
    switch (op) {
    case 0: return va + vb;
    case 1: return va - vb;
    case 2: return va * vb;
    case 3: return fmaf(va, vb, vc);
    case 4: return va / vb;
    default: return sqrtf(va);
    }
}

static void test_f32_rounded(void)
{
    static const char *names[] = {"add", "sub", "mul", "fma", "div", "sqrt"};
    static const int nsrc[] = {2, 2, 2, 3, 2, 1};
    for (int op = 0; op < 6; op++) {
        for (int r = RND_RN; r <= RND_RP; r++) {
            for (int ftz = 0; ftz < 2; ftz++) {
                char text[64];
                snprintf(text, sizeof text, "%s.%s%s.f32", names[op], rnd_names[r],
                         ftz ? ".ftz" : "");
                Inst in;
                const char *e = bind(text, 1, nsrc[op], &in);
                CHECK(!e, "%s: %s", text, e ? e : "");
                if (e) continue;
                int bad = 0;
                for (int it = 0; it < 2000; it++) {
                    uint32_t ua[32], ub[32], uc[32];
                    for (int l = 0; l < 32; l++) {
                        ua[l] = rnd_f32(); ub[l] = rnd_f32(); uc[l] = rnd_f32();
                        rows[RA * 32 + l] = ua[l]; rows[RB * 32 + l] = ub[l];
                        rows[RC * 32 + l] = uc[l];
                    }
                    in.fn(&warp, &in, FULL_MASK);
                    CHECK(fegetround() == FE_TONEAREST, "%s left the rounding mode", text);
                    for (int l = 0; l < 32; l++) {
                        float a = bf(ftz ? fp_ftz32(ua[l]) : ua[l]);
                        float b = bf(ftz ? fp_ftz32(ub[l]) : ub[l]);
                        float c = bf(ftz ? fp_ftz32(uc[l]) : uc[l]);
                        fesetround(host_modes[r]);
                        volatile float f = ref_op(op, a, b, c);
                        fesetround(FE_TONEAREST);
                        uint32_t want = fp_canon32(fb(f));
                        if (ftz) want = fp_ftz32(want);
                        if (rows[RD * 32 + l] != want && bad++ < 3)
                            printf("  %s %08x %08x %08x: got %08llx want %08x\n", text, ua[l],
                                   ub[l], uc[l], (unsigned long long)rows[RD * 32 + l], want);
                    }
                }
                CHECK(bad == 0, "%s random: %d bad", text, bad);
            }
        }
    }
    /* hand-picked directed cases */
    EQ("add.rz", run2("add.rz.f32", fb(1.0f), 0x33800000u /* 2^-24 */), fb(1.0f));
    EQ("add.rp", run2("add.rp.f32", fb(1.0f), 0x33800000u), 0x3f800001u);
    EQ("add.rm neg", run2("add.rm.f32", fb(-1.0f), 0xb3800000u), 0xbf800001u);
    EQ("add.rn tie", run2("add.rn.f32", fb(1.0f), 0x33800000u), fb(1.0f));
    EQ("add -0 + -0", run2("add.f32", 0x80000000u, 0x80000000u), 0x80000000u);
    EQ("add.rm x - x = -0", run2("sub.rm.f32", fb(3.0f), fb(3.0f)), 0x80000000u);
    EQ("add inf-inf canonical NaN", run2("add.f32", 0x7f800000u, 0xff800000u), 0x7fffffffu);
    EQ("mul NaN payload canonical", run2("mul.f32", 0xffc00001u, fb(2.0f)), 0x7fffffffu);
    EQ("add subnormal kept", run2("add.f32", 0x00000001u, 0x00000001u), 0x00000002u);
    EQ("add.ftz subnormal in", run2("add.ftz.f32", 0x00000001u, 0x00000001u), 0);
    EQ("mul.ftz subnormal out", run2("mul.ftz.f32", 0x00800000u, fb(0.5f)), 0);
    EQ("mul.ftz keeps sign", run2("mul.ftz.f32", 0x80800000u, fb(0.5f)), 0x80000000u);
    EQ("add.sat", run2("add.sat.f32", fb(0.75f), fb(0.5f)), fb(1.0f));
    EQ("add.sat neg", run2("add.sat.f32", fb(-0.75f), fb(0.5f)), 0);
    EQ("add.sat NaN", run2("add.sat.f32", 0x7fc00000u, fb(0.5f)), 0);
    EQ("add.sat -0", run2("add.sat.f32", 0x80000000u, 0x80000000u), 0);
    EQ("fma.rn.sat", run3("fma.rn.sat.f32", 3, fb(2.0f), fb(2.0f), fb(-3.5f)), fb(0.5f));
    EQ("mad.rn = fma", run3("mad.rn.f32", 3, 0x3f800001u, 0x3f800001u, 0xbf800002u),
       0x28800000u /* 2^-46, lost without fusion */);
    EQ("fma.rn.f64", run3("fma.rn.f64", 3, db(1.0 + 0x1p-52), db(1.0 + 0x1p-52),
                          db(-(1.0 + 0x1p-51))), db(0x1p-104));
    EQ("add.rz.f64", run2("add.rz.f64", db(1.0), db(0x1p-60)), db(1.0));
    EQ("add.rp.f64", run2("add.rp.f64", db(1.0), db(0x1p-60)), db(1.0 + 0x1p-52));
    EQ("div.rn.f64", run2("div.rn.f64", db(1.0), db(3.0)), db(1.0 / 3.0));
    EQ("div.rz.f64", run2("div.rz.f64", db(1.0), db(3.0)), db(1.0 / 3.0));
    EQ("div.rp.f64", run2("div.rp.f64", db(1.0), db(3.0)), db(1.0 / 3.0) + 1);
    EQ("sqrt.rn.f64", run1("sqrt.rn.f64", db(2.0)), db(sqrt(2.0)));
    EQ("sqrt.rn.f64 -1", run1("sqrt.rn.f64", db(-1.0)), FP_NAN_F64);
    EQ("rcp.rn.f32", run1("rcp.rn.f32", fb(4.0f)), fb(0.25f));
    EQ("rcp.rz.f32 3", run1("rcp.rz.f32", fb(3.0f)), 0x3eaaaaaau);
    EQ("rcp.rp.f32 3", run1("rcp.rp.f32", fb(3.0f)), 0x3eaaaaabu);
    EQ("rcp.rn.f64 0", run1("rcp.rn.f64", db(-0.0)), db(-INFINITY));
    EQ("mul.f64 NaN", run2("mul.f64", db(INFINITY), db(0.0)), FP_NAN_F64);
    EQ("sqrt.rn.f32 -0", run1("sqrt.rn.f32", 0x80000000u), 0x80000000u);
    EQ("sqrt.rn.f32 -1", run1("sqrt.rn.f32", fb(-1.0f)), 0x7fffffffu);
    EQ("div.rn.f32 1/0", run2("div.rn.f32", fb(1.0f), 0), 0x7f800000u);
    EQ("div.rn.f32 0/0", run2("div.rn.f32", 0, 0), 0x7fffffffu);
}

static void test_f32_misc(void)
{
    /* min / max */
    EQ("min", run2("min.f32", fb(1.0f), fb(2.0f)), fb(1.0f));
    EQ("max", run2("max.f32", fb(1.0f), fb(2.0f)), fb(2.0f));
    EQ("min NaN a", run2("min.f32", 0x7fc00000u, fb(2.0f)), fb(2.0f));
    EQ("max NaN b", run2("max.f32", fb(-2.0f), 0xffc00001u), fb(-2.0f));
    EQ("min NaN NaN", run2("min.f32", 0x7fc00001u, 0xffc00002u), 0x7fffffffu);
    EQ("min.NaN", run2("min.NaN.f32", 0x7fc00000u, fb(2.0f)), 0x7fffffffu);
    EQ("max.NaN no nan", run2("max.NaN.f32", fb(1.0f), fb(2.0f)), fb(2.0f));
    EQ("min -0 +0", run2("min.f32", 0x00000000u, 0x80000000u), 0x80000000u);
    EQ("min +0 -0", run2("min.f32", 0x80000000u, 0x00000000u), 0x80000000u);
    EQ("max -0 +0", run2("max.f32", 0x80000000u, 0x00000000u), 0x00000000u);
    EQ("max +0 -0", run2("max.f32", 0x00000000u, 0x80000000u), 0x00000000u);
    EQ("min subnormal", run2("min.f32", 0x00000001u, 0x00000002u), 0x00000001u);
    EQ("min.ftz subnormal", run2("min.ftz.f32", 0x80000001u, 0x00000002u), 0x80000000u);
    EQ("min.xorsign.abs", run2("min.xorsign.abs.f32", fb(-5.0f), fb(3.0f)), fb(-3.0f));
    EQ("max.xorsign.abs", run2("max.xorsign.abs.f32", fb(-5.0f), fb(-3.0f)), fb(5.0f));
    EQ("max.xorsign.abs NaN", run2("max.NaN.xorsign.abs.f32", fb(-5.0f), 0xffc00000u),
       0x7fffffffu);
    EQ("min.f64", run2("min.f64", db(-1.0), db(2.0)), db(-1.0));
    EQ("max.f64 NaN", run2("max.f64", db(NAN), db(2.0)), db(2.0));
    EQ("min.f64 -0", run2("min.f64", db(0.0), db(-0.0)), db(-0.0));
    /* abs / neg / copysign */
    EQ("abs", run1("abs.f32", fb(-2.0f)), fb(2.0f));
    EQ("abs.ftz", run1("abs.ftz.f32", 0x80000001u), 0);
    EQ("neg", run1("neg.f32", fb(2.0f)), fb(-2.0f));
    EQ("neg 0", run1("neg.f32", 0), 0x80000000u);
    EQ("neg.f64", run1("neg.f64", db(2.0)), db(-2.0));
    EQ("abs.f64", run1("abs.f64", db(-0.0)), 0);
    EQ("neg NaN canonical", run1("neg.f32", 0x7fc00000u), 0x7fffffffu);
    EQ("abs NaN canonical", run1("abs.f32", 0xffc12345u), 0x7fffffffu);
    EQ("neg.f64 NaN unchanged", run1("neg.f64", 0x7ff8000000000000ull), 0x7ff8000000000000ull);
    EQ("abs.f64 sNaN quieted", run1("abs.f64", 0x7ff0000000001234ull), 0x7ff8000000001234ull);
    EQ("add.f64 NaN propagates", run2("add.rz.f64", 0x7ff0000000001234ull, db(2.0)),
       0x7ff8000000001234ull);
    EQ("add.f64 NaN b", run2("add.f64", db(2.0), 0xfff0000000000005ull), 0xfff8000000000005ull);
    EQ("add.f64 two NaNs: a", run2("add.f64", 0x7ff8000000000001ull, 0x7ff8000000000002ull),
       0x7ff8000000000001ull);
    EQ("fma.f64 NaN c", run3("fma.rn.f64", 3, db(1.0), db(2.0), 0x7ff0000000000009ull),
       0x7ff8000000000009ull);
    EQ("div.f64 0/0 default NaN", run2("div.rn.f64", db(-0.0), db(0.0)), 0xfff8000000000000ull);
    EQ("min.f64 two NaNs: b", run2("min.f64", 0x7ff8000000000001ull, 0xfff0000000000002ull),
       0xfff8000000000002ull);
    EQ("mul.ftz exact below min normal", run2("mul.rn.ftz.f32", 0x00ffffffu, fb(0.5f)), 0);
    EQ("mul rounds up to min normal", run2("mul.rn.f32", 0x00ffffffu, fb(0.5f)), 0x00800000u);
    EQ("div.ftz exact below min normal", run2("div.rn.ftz.f32", 0x00ffffffu, fb(2.0f)), 0);
    EQ("fma.ftz exact below min normal", run3("fma.rn.ftz.f32", 3, 0x00ffffffu, fb(0.5f), 0), 0);
    EQ("copysign", run2("copysign.f32", fb(-1.0f), fb(3.0f)), fb(-3.0f));
    EQ("copysign NaN bits", run2("copysign.f32", 0x7fa00000u, 0x7f800001u), 0x7f800001u);
    EQ("copysign.f64", run2("copysign.f64", db(1.0), db(-3.0)), db(3.0));
    /* testp */
    static const struct { const char *t; uint32_t v; int want; } tp[] = {
        {"testp.finite.f32", 0x3f800000u, 1}, {"testp.finite.f32", 0x7f800000u, 0},
        {"testp.infinite.f32", 0xff800000u, 1}, {"testp.infinite.f32", 0x7fc00000u, 0},
        {"testp.number.f32", 0x7f800000u, 1}, {"testp.number.f32", 0x7fc00000u, 0},
        {"testp.notanumber.f32", 0x7f800001u, 1}, {"testp.notanumber.f32", 0, 0},
        {"testp.normal.f32", 0x00800000u, 1}, {"testp.normal.f32", 0, 1},
        {"testp.normal.f32", 0x80000000u, 1}, {"testp.normal.f32", 0x7f800000u, 0},
        {"testp.normal.f32", 0x007fffffu, 0}, {"testp.subnormal.f32", 0x807fffffu, 1},
        {"testp.subnormal.f32", 0x80000000u, 0},
    };
    for (size_t i = 0; i < sizeof tp / sizeof tp[0]; i++) {
        Inst in;
        const char *e = bind(tp[i].t, 1, 1, &in);
        CHECK(!e, "%s: %s", tp[i].t, e ? e : "");
        if (e) continue;
        preds[2] = 0xf0f0f0f0u;
        for (int l = 0; l < 32; l++) rows[RA * 32 + l] = tp[i].v;
        in.fn(&warp, &in, 0x0000ffffu);
        uint32_t want = 0xf0f00000u | (tp[i].want ? 0xffffu : 0);
        CHECK(preds[2] == want, "%s 0x%x: pred %08x want %08x", tp[i].t, tp[i].v, preds[2], want);
    }
    {
        Inst in;
        CHECK(!bind("testp.subnormal.f64", 1, 1, &in), "testp f64");
        for (int l = 0; l < 32; l++) rows[RA * 32 + l] = l & 1 ? 1 : db(1.0);
        in.fn(&warp, &in, FULL_MASK);
        CHECK(preds[2] == 0xaaaaaaaau, "testp.subnormal.f64 %08x", preds[2]);
    }
    /* approximate functions: exact cases and error bounds */
    EQ("ex2 3", run1("ex2.approx.f32", fb(3.0f)), fb(8.0f));
    EQ("ex2 -inf", run1("ex2.approx.ftz.f32", 0xff800000u), 0);
    EQ("ex2.ftz tiny", run1("ex2.approx.ftz.f32", fb(-130.0f)), 0);
    EQ("ex2 tiny", run1("ex2.approx.f32", fb(-130.0f)), 0x00080000u);
    EQ("lg2 8", run1("lg2.approx.f32", fb(8.0f)), fb(3.0f));
    EQ("lg2 0", run1("lg2.approx.f32", 0), 0xff800000u);
    EQ("lg2 -1", run1("lg2.approx.f32", fb(-1.0f)), 0x7fffffffu);
    EQ("lg2.ftz subnormal", run1("lg2.approx.ftz.f32", 1), 0xff800000u);
    EQ("rsqrt 4", run1("rsqrt.approx.f32", fb(4.0f)), fb(0.5f));
    EQ("rsqrt -0", run1("rsqrt.approx.f32", 0x80000000u), 0xff800000u);
    EQ("rsqrt.f64 4", run1("rsqrt.approx.f64", db(4.0)), db(0.5));
    EQ("sqrt.approx 9", run1("sqrt.approx.f32", fb(9.0f)), fb(3.0f));
    EQ("rcp.approx 0", run1("rcp.approx.f32", 0), 0x7f800000u);
    EQ("rcp.approx.ftz.f64 3", run1("rcp.approx.ftz.f64", db(3.0)),
       db(1.0 / 3.0) & 0xffffffff00000000ull);
    EQ("rcp.approx.ftz.f64 -0", run1("rcp.approx.ftz.f64", db(-0.0)), db(-INFINITY));
    EQ("rcp.approx.ftz.f64 subnormal", run1("rcp.approx.ftz.f64", 1), db(INFINITY));
    EQ("rcp.approx.ftz.f64 NaN", run1("rcp.approx.ftz.f64", 0x7ff8000000000001ull),
       0x7fffffff00000000ull);
    EQ("rsqrt.approx.ftz.f64 3", run1("rsqrt.approx.ftz.f64", db(3.0)), 0x3fe279a700000000ull);
    EQ("rsqrt.approx.ftz.f64 high word inf", run1("rsqrt.approx.ftz.f64", 0x7ff0000000000001ull), 0);
    EQ("rsqrt.approx.ftz.f64 -1", run1("rsqrt.approx.ftz.f64", db(-1.0)), 0x7fffffff00000000ull);
    EQ("sin 0", run1("sin.approx.f32", 0x80000000u), 0x80000000u);
    EQ("cos 0", run1("cos.approx.f32", 0), fb(1.0f));
    EQ("sin inf", run1("sin.approx.f32", 0x7f800000u), 0x7fffffffu);
    EQ("tanh 0", run1("tanh.approx.f32", 0), 0);
    EQ("tanh big", run1("tanh.approx.f32", fb(100.0f)), fb(1.0f));
    EQ("div.approx", run2("div.approx.f32", fb(1.0f), fb(4.0f)), fb(0.25f));
    EQ("div.approx huge b", run2("div.approx.f32", fb(1.0f), fb(0x1p127f)), 0);
    EQ("div.approx huge b neg", run2("div.approx.f32", fb(-1.0f), fb(0x1p127f)), 0x80000000u);
    EQ("div.approx inf/huge", run2("div.approx.f32", 0x7f800000u, fb(0x1p127f)), 0x7fffffffu);
    EQ("div.full", run2("div.full.ftz.f32", fb(3.0f), fb(2.0f)), fb(1.5f));
    float s = bf((uint32_t)run1("sin.approx.f32", fb(1.0f)));
    CHECK(fabs(s - sin(1.0)) < 0x1p-20, "sin 1: %a", s);
}

/* ---- halves ----------------------------------------------------------------------- */

static uint16_t ref_h_op(int op, uint16_t a, uint16_t b, uint16_t c)
{
    double x = (double)f16of(a), y = (double)f16of(b);
    __float128 q;
    switch (op) {
    case 0: q = (__float128)x + y; break;
    case 1: q = (__float128)x - y; break;
    case 2: q = (__float128)x * y; break;
    default: q = (__float128)x * y + (__float128)(double)f16of(c); break;
    }
    uint16_t r = h16((_Float16)q);
    return (r & 0x7fff) > 0x7c00 ? 0x7fff : r;
}

static void test_half(void)
{
    static const char *names[] = {"add", "sub", "mul", "fma.rn"};
    for (int op = 0; op < 4; op++) {
        char t1[32], t2[32];
        snprintf(t1, sizeof t1, "%s.f16", names[op]);
        snprintf(t2, sizeof t2, "%s.f16x2", names[op]);
        Inst i1, i2;
        int ns = op == 3 ? 3 : 2;
        CHECK(!bind(t1, 1, ns, &i1) && !bind(t2, 1, ns, &i2), "bind %s", t1);
        int bad = 0;
        for (int it = 0; it < 3000; it++) {
            uint32_t a[32], b[32], c[32];
            for (int l = 0; l < 32; l++) {
                a[l] = (uint32_t)rnd64(); b[l] = (uint32_t)rnd64(); c[l] = (uint32_t)rnd64();
                if (it & 1) { a[l] &= 0xbfffbfffu; b[l] &= 0xbfffbfffu; }  /* smaller */
                rows[RA * 32 + l] = a[l]; rows[RB * 32 + l] = b[l]; rows[RC * 32 + l] = c[l];
            }
            i2.fn(&warp, &i2, FULL_MASK);
            for (int l = 0; l < 32; l++) {
                uint32_t want = ref_h_op(op, a[l] & 0xffff, b[l] & 0xffff, c[l] & 0xffff) |
                                (uint32_t)ref_h_op(op, a[l] >> 16, b[l] >> 16, c[l] >> 16) << 16;
                if (rows[RD * 32 + l] != want && bad++ < 3)
                    printf("  %s %08x %08x %08x: got %08llx want %08x\n", t2, a[l], b[l], c[l],
                           (unsigned long long)rows[RD * 32 + l], want);
            }
            i1.fn(&warp, &i1, FULL_MASK);
            for (int l = 0; l < 32; l++)
                if (rows[RD * 32 + l] != ref_h_op(op, a[l] & 0xffff, b[l] & 0xffff, c[l] & 0xffff))
                    bad++;
        }
        CHECK(bad == 0, "%s random: %d bad", t2, bad);
    }
    /* bf16: compare with exact double arithmetic on close exponents */
    {
        Inst ia, im, ifm;
        CHECK(!bind("add.rn.bf16x2", 1, 2, &ia) && !bind("mul.bf16x2", 1, 2, &im) &&
              !bind("fma.rn.bf16x2", 1, 3, &ifm), "bind bf16x2");
        int bad = 0;
        for (int it = 0; it < 2000; it++) {
            uint32_t a[32], b[32], c[32];
            for (int l = 0; l < 32; l++) {
                a[l] = ((uint32_t)rnd64() & 0x83ff83ffu) | 0x3c003c00u;
                b[l] = ((uint32_t)rnd64() & 0x83ff83ffu) | 0x3c003c00u;
                c[l] = ((uint32_t)rnd64() & 0x83ff83ffu) | 0x3c003c00u;
                rows[RA * 32 + l] = a[l]; rows[RB * 32 + l] = b[l]; rows[RC * 32 + l] = c[l];
            }
            for (int k = 0; k < 3; k++) {
                Inst *in = k == 0 ? &ia : k == 1 ? &im : &ifm;
                in->fn(&warp, in, FULL_MASK);
                for (int l = 0; l < 32; l++) {
                    uint32_t want = 0;
                    for (int h = 0; h < 2; h++) {
                        double x = fp_bf16_to_f32(a[l] >> (16 * h)), y = fp_bf16_to_f32(b[l] >> (16 * h));
                        double z = fp_bf16_to_f32(c[l] >> (16 * h));
                        double e = k == 0 ? x + y : k == 1 ? x * y : x * y + z;  /* exact here */
                        want |= (uint32_t)fp_from_f64(e, FP_BF16, RND_RN, 0) << (16 * h);
                    }
                    if (rows[RD * 32 + l] != want && bad++ < 3)
                        printf("  bf16 op %d %08x %08x %08x: got %08llx want %08x\n", k, a[l],
                               b[l], c[l], (unsigned long long)rows[RD * 32 + l], want);
                }
            }
        }
        CHECK(bad == 0, "bf16x2 random: %d bad", bad);
    }
    EQ("add.f16x2 halves", run2("add.f16x2", 0x3c004000u, 0x3c003c00u), 0x40004200u);
    EQ("add.f16 upper ignored", run2("add.f16", 0xffff3c00u, 0x12343c00u), 0x4000);
    EQ("add.ftz.f16 subnormal", run2("add.ftz.f16", 0x0001, 0x0001), 0);
    EQ("add.f16 subnormal", run2("add.f16", 0x0001, 0x0001), 0x0002);
    EQ("mul.ftz.f16 result", run2("mul.ftz.f16", 0x0400, 0x3800), 0);
    EQ("add.sat.f16", run2("add.sat.f16", 0x3c00, 0x3c00), 0x3c00);
    EQ("add.sat.f16 NaN", run2("add.sat.f16", 0x7e00, 0x3c00), 0);
    EQ("add.f16 NaN", run2("add.f16", 0xfe01, 0x3c00), 0x7fff);
    EQ("fma.rn.relu.f16", run3("fma.rn.relu.f16x2", 3, 0x3c00bc00u, 0x3c003c00u, 0),
       0x3c000000u);
    EQ("fma.rn.relu.bf16 NaN", run3("fma.rn.relu.bf16", 3, 0x7fc1, 0x3f80, 0), 0x7fff);
    EQ("fma.rn.f16 overflow", run3("fma.rn.f16", 3, 0x7bff, 0x4000, 0), 0x7c00);
    EQ("fma.rn.sat.f16x2", run3("fma.rn.sat.f16x2", 3, 0x40004000u, 0x3c00bc00u, 0),
       0x3c000000u);
    EQ("neg.f16x2", run1("neg.f16x2", 0x3c00bc00u), 0xbc003c00u);
    EQ("neg.f16x2 NaN", run1("neg.f16x2", 0x7e007c00u), 0x7ffffc00u);
    EQ("abs.f16x2 NaN", run1("abs.f16x2", 0x3c007d00u), 0x3c007fffu);
    EQ("mul.ftz.f16 exact below min normal", run2("mul.ftz.f16", 0x07ff, 0x3800), 0);
    EQ("mul.f16 rounds up to min normal", run2("mul.f16", 0x07ff, 0x3800), 0x0400);
    EQ("abs.bf16", run1("abs.bf16", 0xbf80), 0x3f80);
    EQ("abs.ftz.f16", run1("abs.ftz.f16", 0x8001), 0);
    EQ("min.f16x2 NaN", run2("min.f16x2", 0x7e003c00u, 0x40004000u), 0x40003c00u);
    EQ("min.NaN.f16", run2("min.NaN.f16", 0x7e00, 0x4000), 0x7fff);
    EQ("max.bf16 -0", run2("max.bf16", 0x8000, 0x0000), 0x0000);
    EQ("min.bf16 -0", run2("min.bf16", 0x0000, 0x8000), 0x8000);
    EQ("min.xorsign.abs.f16", run2("min.xorsign.abs.f16", 0xc500, 0x4200), 0xc200);
    EQ("ex2.approx.f16", run1("ex2.approx.f16", 0x4200 /* 3 */), 0x4800);
    EQ("ex2.approx.f16x2 truncates", run1("ex2.approx.f16x2", 0x43e82000u), 0x4bbe3c05u);
    EQ("tanh.approx.bf16 truncates", run1("tanh.approx.bf16", 0x3f80), 0x3f42);
    EQ("ex2.approx.ftz.bf16x2", run1("ex2.approx.ftz.bf16x2", 0x40400000u), 0x41003f80u);
    EQ("tanh.approx.f16", run1("tanh.approx.f16", 0x0000), 0);
    EQ("sub.bf16", run2("sub.bf16", 0x3f80, 0x3f80), 0);

    /* setp / set */
    struct { const char *t; int ns; uint32_t a, b, c; uint32_t p, q; } sp[] = {
        {"setp.lt.f16", 2, 0x3c00, 0x4000, 0, 1, 0},
        {"setp.lt.f16", 2, 0x7e00, 0x4000, 0, 0, 1},
        {"setp.ltu.f16", 2, 0x7e00, 0x4000, 0, 1, 0},
        {"setp.gt.f16x2", 2, 0x3c004400u, 0x40004000u, 0, 1, 0},
        {"setp.eq.and.bf16x2", 3, 0x3f803f80u, 0x3f803f80u, 1, 1, 1},
        {"setp.eq.and.bf16x2", 3, 0x3f803f80u, 0x3f803f80u, 0, 0, 0},
        {"setp.ne.xor.f16x2", 3, 0x3c004000u, 0x3c003c00u, 1, 0, 1},
        {"setp.num.f16", 2, 0x3c00, 0x7c00, 0, 1, 0},
        {"setp.nan.bf16", 2, 0x7fc0, 0x3f80, 0, 1, 0},
        {"setp.eq.ftz.f16", 2, 0x0001, 0x8000, 0, 1, 0},
        {"setp.eq.f16", 2, 0x0001, 0x8000, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof sp / sizeof sp[0]; i++) {
        Inst in;
        const char *e = bind(sp[i].t, 2, sp[i].ns, &in);
        CHECK(!e, "%s: %s", sp[i].t, e ? e : "");
        if (e) continue;
        preds[2] = preds[3] = 0x12345678u;
        preds[4] = sp[i].c ? 0xffffffffu : 0;
        for (int l = 0; l < 32; l++) { rows[RA * 32 + l] = sp[i].a; rows[RB * 32 + l] = sp[i].b; }
        in.fn(&warp, &in, 0xff00ff00u);
        uint32_t wp = (0x12345678u & 0x00ff00ffu) | (sp[i].p ? 0xff00ff00u : 0);
        uint32_t wq = (0x12345678u & 0x00ff00ffu) | (sp[i].q ? 0xff00ff00u : 0);
        CHECK(preds[2] == wp && preds[3] == wq, "%s #%zu: p %08x q %08x want %08x %08x",
              sp[i].t, i, preds[2], preds[3], wp, wq);
    }
    EQ("set.lt.f16.f16", run2("set.lt.f16.f16", 0x3c00, 0x4000), 0x3c00);
    EQ("set.lt.u32.f16", run2("set.lt.u32.f16", 0x4000, 0x3c00), 0);
    EQ("set.lt.u32.f16 true", run2("set.lt.u32.f16", 0x3c00, 0x4000), 0xffffffffu);
    EQ("set.ge.u16.bf16", run2("set.ge.u16.bf16", 0x3f80, 0x3f80), 0xffff);
    EQ("set.gt.f16x2.f16x2", run2("set.gt.f16x2.f16x2", 0x40003c00u, 0x3c003c00u), 0x3c000000u);
    EQ("set.gt.u32.bf16x2", run2("set.gt.u32.bf16x2", 0x3f804000u, 0x40003f80u), 0x0000ffffu);
    EQ("set.lt.f16.s32", run2("set.lt.f16.s32", 0xffffffffu, 0), 0x3c00);
    EQ("set.lo.bf16.u32", run2("set.lo.bf16.u32", 0xffffffffu, 0), 0);
    EQ("set.lt.f16.f32", run2("set.lt.f16.f32", fb(1.0f), fb(2.0f)), 0x3c00);
    EQ("set.equ.f16.f64", run2("set.equ.f16.f64", db(NAN), db(2.0)), 0x3c00);
}

/* ---- cvt -------------------------------------------------------------------------- */

/* Every pair of integer types without .sat, whole rows: the source's low bits extended by
 * its sign, cut to the destination's width and extended by the destination's sign. */
static uint64_t ext(uint64_t v, int bits, int sg)
{
    if (bits == 64) return v;
    uint64_t m = (1ull << bits) - 1;
    v &= m;
    return sg && (v >> (bits - 1) & 1) ? v | ~m : v;
}

static void test_cvt_int_pairs(void)
{
    static const char *const nm[8] = { "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64" };
    static const uint64_t vals[] = { 0, 1, 0x7f, 0x80, 0xff, 0x8000, 0xffff, 0x7fffffff, 0x80000000u,
                                     0xffffffffu, 0x8000000000000000ull, ~0ull, 0x123456789abcdef0ull,
                                     0xfedcba9876543210ull };
    for (int si = 0; si < 8; si++)
        for (int di = 0; di < 8; di++) {
            char text[32];
            snprintf(text, sizeof text, "cvt.%s.%s", nm[di], nm[si]);
            int sb = 8 << (si & 3), db = 8 << (di & 3);
            for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++)
                EQ(text, run1(text, vals[k]), ext(ext(vals[k], sb, si >= 4), db, di >= 4));
        }
}

static void test_cvt(void)
{
    /* float -> int */
    EQ("cvt.rzi.s32.f32", run1("cvt.rzi.s32.f32", fb(-2.7f)), (uint64_t)-2);
    EQ("cvt.rni.s32.f32 tie", run1("cvt.rni.s32.f32", fb(2.5f)), 2);
    EQ("cvt.rni.s32.f32 tie odd", run1("cvt.rni.s32.f32", fb(-3.5f)), (uint64_t)-4);
    EQ("cvt.rmi.s32.f32", run1("cvt.rmi.s32.f32", fb(-2.1f)), (uint64_t)-3);
    EQ("cvt.rpi.s32.f32", run1("cvt.rpi.s32.f32", fb(2.1f)), 3);
    EQ("cvt.rzi.s32.f32 sat hi", run1("cvt.rzi.s32.f32", fb(3e9f)), 0x7fffffff);
    EQ("cvt.rzi.s32.f32 sat lo", run1("cvt.rzi.s32.f32", fb(-3e9f)), (uint64_t)(int64_t)INT32_MIN);
    EQ("cvt.rzi.s32.f32 NaN", run1("cvt.rzi.s32.f32", 0x7fc00000u), 0);
    EQ("cvt.rzi.s32.f32 inf", run1("cvt.rzi.s32.f32", 0xff800000u), (uint64_t)(int64_t)INT32_MIN);
    EQ("cvt.rzi.u32.f32 neg", run1("cvt.rzi.u32.f32", fb(-5.0f)), 0);
    EQ("cvt.rzi.u32.f32 big", run1("cvt.rzi.u32.f32", fb(5e9f)), 0xffffffffu);
    EQ("cvt.rni.u8.f32 sat", run1("cvt.rni.u8.f32", fb(300.0f)), 255);
    EQ("cvt.rni.s8.f32 sat", run1("cvt.rni.s8.f32", fb(-300.0f)), (uint64_t)-128);
    EQ("cvt.rzi.s64.f64", run1("cvt.rzi.s64.f64", db(-1e19)), 0x8000000000000000ull);
    EQ("cvt.rzi.u64.f64", run1("cvt.rzi.u64.f64", db(1e20)), ~0ull);
    EQ("cvt.rzi.u64.f64 2^63", run1("cvt.rzi.u64.f64", db(0x1p63)), 0x8000000000000000ull);
    EQ("cvt.rzi.s64.f64 -2^63", run1("cvt.rzi.s64.f64", db(-0x1p63)), 0x8000000000000000ull);
    EQ("cvt.rni.s16.f16", run1("cvt.rni.s16.f16", 0xc100 /* -2.5 */), (uint64_t)-2);
    EQ("cvt.rzi.u16.f16 inf", run1("cvt.rzi.u16.f16", 0x7c00), 0xffff);
    EQ("cvt.rzi.s32.bf16", run1("cvt.rzi.s32.bf16", 0xc2f7 /* -123.5 */), (uint64_t)-123);
    EQ("cvt.rzi.ftz.s32.f32", run1("cvt.rzi.ftz.s32.f32", 0x80000001u), 0);
    /* int -> float */
    EQ("cvt.rn.f32.s32", run1("cvt.rn.f32.s32", (uint32_t)-3), fb(-3.0f));
    EQ("cvt.rn.f32.u32", run1("cvt.rn.f32.u32", 0xffffffffu), fb(4294967296.0f));
    EQ("cvt.rz.f32.u32", run1("cvt.rz.f32.u32", 0xffffffffu), 0x4f7fffffu);
    EQ("cvt.rn.f32.s8", run1("cvt.rn.f32.s8", 0xff), fb(-1.0f));
    EQ("cvt.rn.f32.u8", run1("cvt.rn.f32.u8", 0x1ff), fb(255.0f));
    EQ("cvt.rn.f64.s64", run1("cvt.rn.f64.s64", 0x8000000000000000ull), db(-0x1p63));
    EQ("cvt.rm.f64.s64", run1("cvt.rm.f64.s64", (uint64_t)-((1ll << 60) + 1)),
       db(-(0x1p60 + 256)));
    EQ("cvt.rn.f16.s32", run1("cvt.rn.f16.s32", 70000), 0x7c00);
    EQ("cvt.rz.f16.s32", run1("cvt.rz.f16.s32", 70000), 0x7bff);
    EQ("cvt.rn.f16.u16", run1("cvt.rn.f16.u16", 2049), 0x6800);
    EQ("cvt.rp.f16.u16", run1("cvt.rp.f16.u16", 2049), 0x6801);
    EQ("cvt.rn.bf16.s32", run1("cvt.rn.bf16.s32", 257), 0x4380);
    EQ("cvt.rn.sat.f32.s32", run1("cvt.rn.sat.f32.s32", 5), fb(1.0f));
    /* int -> int */
    EQ("cvt.s32.s8", run1("cvt.s32.s8", 0x80), (uint64_t)-128);
    EQ("cvt.u32.s8", run1("cvt.u32.s8", 0x80), 0xffffff80u);
    EQ("cvt.u8.u32", run1("cvt.u8.u32", 0x1234), 0x34);
    EQ("cvt.s8.s32", run1("cvt.s8.s32", 0x80), (uint64_t)-128);
    EQ("cvt.sat.s8.s32", run1("cvt.sat.s8.s32", 0x80), 127);
    EQ("cvt.sat.u8.s32 neg", run1("cvt.sat.u8.s32", (uint32_t)-5), 0);
    EQ("cvt.sat.u32.s64", run1("cvt.sat.u32.s64", 1ull << 40), 0xffffffffu);
    EQ("cvt.sat.s32.u32", run1("cvt.sat.s32.u32", 0x80000000u), 0x7fffffff);
    EQ("cvt.sat.u64.s64", run1("cvt.sat.u64.s64", (uint64_t)-1), 0);
    EQ("cvt.sat.s64.u64", run1("cvt.sat.s64.u64", ~0ull), 0x7fffffffffffffffull);
    EQ("cvt.u64.s32", run1("cvt.u64.s32", 0xffffffffu), ~0ull);
    EQ("cvt.s16.u8", run1("cvt.s16.u8", 0xff), 0xff);
    test_cvt_int_pairs();
    /* float -> float */
    EQ("cvt.f32.f16", run1("cvt.f32.f16", 0x3555), 0x3eaaa000u);
    EQ("cvt.f32.f16 subnormal", run1("cvt.f32.f16", 0x0001), 0x33800000u);
    EQ("cvt.f32.f16 NaN", run1("cvt.f32.f16", 0x7e01), 0x7fffffffu);
    EQ("cvt.rn.f16.f32", run1("cvt.rn.f16.f32", fb(1.0f / 3.0f)), 0x3555);
    EQ("cvt.rz.f16.f32", run1("cvt.rz.f16.f32", fb(-65536.0f)), 0xfbff);
    EQ("cvt.rm.f16.f32", run1("cvt.rm.f16.f32", fb(-65536.0f)), 0xfc00);
    EQ("cvt.rn.f16.f32 subnormal", run1("cvt.rn.f16.f32", fb(0x1p-25f)), 0);
    EQ("cvt.rn.f16.f32 subnormal up", run1("cvt.rn.f16.f32", fb(0x1.8p-25f)), 1);
    EQ("cvt.rn.satfinite.f16.f32", run1("cvt.rn.satfinite.f16.f32", 0xff800000u), 0xfbff);
    EQ("cvt.rn.relu.f16.f32", run1("cvt.rn.relu.f16.f32", fb(-2.0f)), 0);
    EQ("cvt.rn.relu.f16.f32 NaN", run1("cvt.rn.relu.f16.f32", 0xffc00000u), 0x7fff);
    EQ("cvt.rn.f16.f64 single rounding", run1("cvt.rn.f16.f64", db(1.0 + 0x1p-11 + 0x1p-40)),
       0x3c01);
    EQ("cvt.rn.bf16.f32", run1("cvt.rn.bf16.f32", 0x3f808000u), 0x3f80);
    EQ("cvt.rn.bf16.f32 up", run1("cvt.rn.bf16.f32", 0x3f818000u), 0x3f82);
    EQ("cvt.rz.bf16.f32", run1("cvt.rz.bf16.f32", 0x3f81ffffu), 0x3f81);
    EQ("cvt.rn.bf16.f32 NaN", run1("cvt.rn.bf16.f32", 0x7f800001u), 0x7fff);
    EQ("cvt.f32.bf16", run1("cvt.f32.bf16", 0xc049), 0xc0490000u);
    EQ("cvt.rn.bf16.f16", run1("cvt.rn.bf16.f16", 0x3c01), 0x3f80);
    EQ("cvt.rn.f16.bf16", run1("cvt.rn.f16.bf16", 0x4780 /* 65536 */), 0x7c00);
    EQ("cvt.f64.f32", run1("cvt.f64.f32", fb(0.1f)), db((double)0.1f));
    /* NaN payloads through conversions, as the H100 gives them (tests/ptx/cvt_*) */
    EQ("cvt.f64.f32 NaN", run1("cvt.f64.f32", 0x7fc00000u), 0x7ff8000000000000ull);
    EQ("cvt.f64.f32 sNaN payload", run1("cvt.f64.f32", 0xff800001u), 0xfff8000020000000ull);
    EQ("cvt.f64.f16 NaN payload", run1("cvt.f64.f16", 0x7d01), 0x7ffc040000000000ull);
    EQ("cvt.rn.f32.f64 NaN payload", run1("cvt.rn.f32.f64", 0xfff8000040000000ull), 0xffc00002u);
    EQ("cvt.rz.f32.f64 NaN", run1("cvt.rz.f32.f64", 0x7ff8000012345678ull), 0x7fc00000u);
    EQ("cvt.rn.f16.f64 NaN", run1("cvt.rn.f16.f64", 0x7ff8000012345678ull), 0x7e00);
    EQ("cvt.rni.f64.f64 NaN", run1("cvt.rni.f64.f64", 0x7ff0000012345678ull), 0x7ff8000012345678ull);
    EQ("cvt.f32.bf16 NaN shift", run1("cvt.f32.bf16", 0x7fff), 0x7fff0000u);
    EQ("cvt.rn.f16.f32 NaN", run1("cvt.rn.f16.f32", 0x7f812345u), 0x7fff);
    EQ("cvt.rzi.s32.f32 NaN 0", run1("cvt.rzi.s32.f32", 0xffffffffu), 0);
    EQ("cvt.rzi.s64.f32 NaN", run1("cvt.rzi.s64.f32", 0x7fc00000u), 1ull << 63);
    EQ("cvt.rpi.u64.f32 NaN", run1("cvt.rpi.u64.f32", 0x7fc00000u), 1ull << 63);
    EQ("cvt.rzi.s32.f64 NaN", run1("cvt.rzi.s32.f64", 0x7ff8000000000000ull), 0xffffffff80000000ull);
    EQ("cvt.rni.u32.f64 NaN", run1("cvt.rni.u32.f64", 0x7ff8000000000000ull), 0x80000000u);
    EQ("cvt.rni.s64.f64 NaN", run1("cvt.rni.s64.f64", 0x7ff8000000000000ull), 1ull << 63);
    EQ("cvt.sat.f32.f64 NaN", run1("cvt.rn.sat.f32.f64", 0x7ff8000000000000ull), 0);
    EQ("cvt.ftz.f64.f32", run1("cvt.ftz.f64.f32", 0x80000001u), db(-0.0));
    EQ("cvt.rn.f32.f64", run1("cvt.rn.f32.f64", db(0.1)), fb(0.1f));
    EQ("cvt.rz.f32.f64", run1("cvt.rz.f32.f64", db(0.1)), fb(0.1f) - 1);
    EQ("cvt.rp.f32.f64 tiny", run1("cvt.rp.f32.f64", db(1e-300)), 1);
    EQ("cvt.rn.ftz.f32.f64 tiny", run1("cvt.rn.ftz.f32.f64", db(1e-40)), 0);
    EQ("cvt.rn.f32.f64 big", run1("cvt.rn.f32.f64", db(1e300)), 0x7f800000u);
    EQ("cvt.rz.f32.f64 big", run1("cvt.rz.f32.f64", db(1e300)), 0x7f7fffffu);
    EQ("cvt.rni.f32.f32", run1("cvt.rni.f32.f32", fb(2.5f)), fb(2.0f));
    EQ("cvt.rmi.f32.f32", run1("cvt.rmi.f32.f32", fb(-2.5f)), fb(-3.0f));
    EQ("cvt.rpi.f32.f32 -0.5", run1("cvt.rpi.f32.f32", fb(-0.5f)), 0x80000000u);
    EQ("cvt.rzi.f64.f64", run1("cvt.rzi.f64.f64", db(-7.9)), db(-7.0));
    EQ("cvt.rni.f16.f16", run1("cvt.rni.f16.f16", 0x3e00 /* 1.5 */), 0x4000);
    EQ("cvt.rpi.bf16.bf16", run1("cvt.rpi.bf16.bf16", 0x3fc0 /* 1.5 */), 0x4000);
    EQ("cvt.sat.f32.f32", run1("cvt.sat.f32.f32", fb(1.5f)), fb(1.0f));
    EQ("cvt.sat.f32.f32 NaN", run1("cvt.sat.f32.f32", 0x7fc00000u), 0);
    EQ("cvt.sat.f32.f32 neg", run1("cvt.sat.f32.f32", fb(-0.5f)), 0);
    EQ("cvt.ftz.f32.f32", run1("cvt.ftz.f32.f32", 0x00000005u), 0);
    EQ("cvt.f32.f32", run1("cvt.f32.f32", 0x00000005u), 5);
    EQ("cvt.rna.tf32.f32", run1("cvt.rna.tf32.f32", 0x3f801000u), 0x3f802000u);
    EQ("cvt.rn.tf32.f32", run1("cvt.rn.tf32.f32", 0x3f801000u), 0x3f800000u);
    EQ("cvt.rna.satfinite.tf32.f32", run1("cvt.rna.satfinite.tf32.f32", 0x7f7fffffu),
       0x7f7fe000u);
    EQ("cvt.rna.tf32.f32 rounds to inf", run1("cvt.rna.tf32.f32", 0x7f7fffffu), 0x7f800000u);
    /* tf32 NaNs as the H100 gives them: truncated, not quieted; .satfinite takes one ulp */
    EQ("cvt.rna.tf32.f32 NaN", run1("cvt.rna.tf32.f32", 0x7fc00001u), 0x7fc00000u);
    EQ("cvt.rna.tf32.f32 sNaN", run1("cvt.rna.tf32.f32", 0xff81ff81u), 0xff81e000u);
    EQ("cvt.rna.satfinite.tf32.f32 NaN", run1("cvt.rna.satfinite.tf32.f32", 0x7fc00001u),
       0x7fbfe000u);
    EQ("cvt.rna.satfinite.tf32.f32 inf", run1("cvt.rna.satfinite.tf32.f32", 0xff800000u),
       0xff7fe000u);
    EQ("cvt.f32.f32 copies NaN", run1("cvt.f32.f32", 0xff81ff81u), 0xff81ff81u);
    EQ("cvt.rni.f32.f32 NaN", run1("cvt.rni.f32.f32", 0xff81ff81u), 0x7fffffffu);
    EQ("cvt.rzi.s16.f64 NaN", run1("cvt.rzi.s16.f64", 0x7ff8000000000001ull), (uint64_t)-32768);
    EQ("cvt.rzi.u8.f64 NaN", run1("cvt.rzi.u8.f64", 0x7ff8000000000001ull), 0x80);
    EQ("cvt.rn.bf16.f64 NaN", run1("cvt.rn.bf16.f64", 0x7ff8000000000001ull), 0x7fc0);
    /* packed */
    EQ("cvt.rn.f16x2.f32", run2("cvt.rn.f16x2.f32", fb(1.0f), fb(2.0f)), 0x3c004000u);
    EQ("cvt.rz.bf16x2.f32", run2("cvt.rz.bf16x2.f32", 0x3f81ffffu, 0xc0000000u), 0x3f81c000u);
    EQ("cvt.rn.relu.satfinite.f16x2.f32",
       run2("cvt.rn.relu.satfinite.f16x2.f32", fb(1e6f), fb(-1.0f)), 0x7bff0000u);
    EQ("cvt.rn.satfinite.e4m3x2.f32", run2("cvt.rn.satfinite.e4m3x2.f32", fb(1.0f), fb(-1000.0f)),
       0x38feu);
    EQ("cvt.rn.satfinite.e5m2x2.f32", run2("cvt.rn.satfinite.e5m2x2.f32", 0x7fc00000u, fb(1.0f)),
       0x7f3cu);
    EQ("cvt.rn.satfinite.e4m3x2.f16x2", run1("cvt.rn.satfinite.e4m3x2.f16x2", 0x3c00c000u),
       0x38c0u);
    EQ("cvt.rn.satfinite.relu.e4m3x2.f16x2",
       run1("cvt.rn.satfinite.relu.e4m3x2.f16x2", 0x3c00c000u), 0x3800u);
    EQ("cvt.rn.f16x2.e4m3x2", run1("cvt.rn.f16x2.e4m3x2", 0x38feu), 0x3c00df00u);
    EQ("cvt.rn.f16x2.e5m2x2", run1("cvt.rn.f16x2.e5m2x2", 0x7c3cu), 0x7c003c00u);
    EQ("cvt.rn.f16x2.e4m3x2 NaN", run1("cvt.rn.f16x2.e4m3x2", 0x7f00u), 0x7fff0000u);
    /* cvt.pack */
    EQ("cvt.pack.sat.s16.s32", run2("cvt.pack.sat.s16.s32", 40000, (uint32_t)-5), 0x7ffffffbu);
    EQ("cvt.pack.sat.u16.s32", run2("cvt.pack.sat.u16.s32", (uint32_t)-1, 70000), 0x0000ffffu);
    EQ("cvt.pack.sat.u8.s32.b32", run3("cvt.pack.sat.u8.s32.b32", 3, 300, 7, 0x1234abcdu),
       0xabcdff07u);
    EQ("cvt.pack.sat.s8.s32.b32", run3("cvt.pack.sat.s8.s32.b32", 3, (uint32_t)-200, 5, 0),
       0x8005u);

    /* random cross-checks: f32 -> s32 (all irnd), f32 -> f16 (rn) */
    {
        Inst in[4], h;
        const char *nm[] = {"cvt.rni.s32.f32", "cvt.rzi.s32.f32", "cvt.rmi.s32.f32",
                            "cvt.rpi.s32.f32"};
        for (int k = 0; k < 4; k++) CHECK(!bind(nm[k], 1, 1, &in[k]), "bind %s", nm[k]);
        CHECK(!bind("cvt.rn.f16.f32", 1, 1, &h), "bind f16");
        int bad = 0;
        for (int it = 0; it < 3000; it++) {
            uint32_t a[32];
            for (int l = 0; l < 32; l++) {
                a[l] = rnd_f32();
                if (it & 1) a[l] = (a[l] & 0x83ffffffu) | 0x4c000000u;
                rows[RA * 32 + l] = a[l];
            }
            for (int k = 0; k < 4; k++) {
                in[k].fn(&warp, &in[k], FULL_MASK);
                for (int l = 0; l < 32; l++) {
                    double x = bf(a[l]);
                    double r = k == 0 ? nearbyint(x) : k == 1 ? trunc(x) : k == 2 ? floor(x) : ceil(x);
                    int64_t v = x != x ? 0 : r >= 0x1p31 ? INT32_MAX : r < -0x1p31 ? INT32_MIN : (int64_t)r;
                    if (rows[RD * 32 + l] != (uint64_t)v && bad++ < 3)
                        printf("  %s %08x: got %llx want %llx\n", nm[k], a[l],
                               (unsigned long long)rows[RD * 32 + l], (unsigned long long)v);
                }
            }
            h.fn(&warp, &h, FULL_MASK);
            for (int l = 0; l < 32; l++) {
                uint16_t want = h16((_Float16)bf(a[l]));
                if ((want & 0x7fff) > 0x7c00) want = 0x7fff;
                if (rows[RD * 32 + l] != want && bad++ < 3)
                    printf("  cvt.rn.f16.f32 %08x: got %llx want %x\n", a[l],
                           (unsigned long long)rows[RD * 32 + l], want);
            }
        }
        CHECK(bad == 0, "cvt random: %d bad", bad);
    }
}

/* ---- masks and binder rejections ---------------------------------------------------- */

static void test_mask_and_binders(void)
{
    Inst in;
    CHECK(!bind("add.rz.f32", 1, 2, &in), "bind add.rz");
    for (int l = 0; l < 32; l++) {
        rows[RA * 32 + l] = fb(1.0f); rows[RB * 32 + l] = fb(2.0f); rows[RD * 32 + l] = 7;
    }
    in.fn(&warp, &in, 0x80000001u);
    int ok = rows[RD * 32] == fb(3.0f) && rows[RD * 32 + 31] == fb(3.0f);
    for (int l = 1; l < 31; l++) ok &= rows[RD * 32 + l] == 7;
    CHECK(ok, "partial mask writes only its lanes");
    static const char *conv[] = {"cvt.rn.f16.f32", "add.f16x2", "cvt.rzi.s32.f64",
                                 "fma.rn.bf16x2", "min.f32"};
    for (size_t i = 0; i < sizeof conv / sizeof conv[0]; i++) {
        int ns = strstr(conv[i], "fma") ? 3 : strstr(conv[i], "cvt") ? 1 : 2;
        CHECK(!bind(conv[i], 1, ns, &in), "bind %s", conv[i]);
        for (int l = 0; l < 32; l++) rows[RD * 32 + l] = 7;
        in.fn(&warp, &in, 0x00000100u);
        ok = 1;
        for (int l = 0; l < 32; l++) ok &= l == 8 || rows[RD * 32 + l] == 7;
        CHECK(ok, "%s: partial mask", conv[i]);
    }

    static const struct { const char *t; int nd, ns; } bad[] = {
        {"mad.f32", 1, 3}, {"fma.f32", 1, 3}, {"div.f32", 1, 2}, {"sin.f32", 1, 1},
        {"add.sat.f64", 1, 2}, {"add.ftz.f64", 1, 2}, {"rsqrt.f32", 1, 1},
        {"add.rz.f16", 1, 2}, {"add.ftz.bf16", 1, 2}, {"fma.f16", 1, 3},
        {"fma.rn.sat.relu.f16", 1, 3}, {"ex2.approx.bf16", 1, 1}, {"mad.rn.f16", 1, 3},
        {"rcp.approx.f64", 1, 1}, {"min.NaN.f64", 1, 2}, {"min.xorsign.f32", 1, 2},
        {"testp.f32", 1, 1}, {"testp.finite.normal.f32", 1, 1}, {"add.approx.f32", 1, 2},
        {"cvt.s32.f32", 1, 1}, {"cvt.rn.s32.f32", 1, 1}, {"cvt.f32.s32", 1, 1},
        {"cvt.f16.f32", 1, 1}, {"cvt.f32.f64", 1, 1}, {"cvt.rni.f16.f32", 1, 1},
        {"cvt.rn.s32.s8", 1, 1}, {"cvt.rs.f16x2.f32", 1, 3}, {"cvt.rm.f16x2.f32", 1, 2},
        {"cvt.rn.e4m3x2.f32", 1, 2}, {"cvt.rn.f16x2.f32", 1, 1}, {"cvt.rna.f16.f32", 1, 1},
        {"cvt.rm.tf32.f32", 1, 1}, {"cvt.rn.relu.f32.f64", 1, 1},
        {"cvt.pack.u16.s32", 1, 2}, {"cvt.pack.sat.u8.s32", 1, 2},
        {"setp.lt.f16x2", 1, 2}, {"setp.lt.ftz.bf16", 1, 2}, {"setp.lt.and.f16", 1, 2},
        {"setp.lo.f16", 1, 2}, {"set.lt.f16x2.f16", 1, 2}, {"set.ltu.f16.s32", 1, 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *e = bind(bad[i].t, bad[i].nd, bad[i].ns, &in);
        CHECK(e != NULL, "%s should be rejected", bad[i].t);
    }
}

int main(void)
{
    test_fp_formats();
    test_f32_rounded();
    test_f32_misc();
    test_half();
    test_cvt();
    test_mask_and_binders();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
