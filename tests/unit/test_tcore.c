/* test_tcore.c - the tensor cores' dot product (emu/tcore.h) against the model restated.
 *
 * tc_row_dot and tc_row_tile16 (wmma's fast path: exponents of zeros as sentinels, integer
 * cut and f32 conversion, AVX2 where the host has it), tc_dot_dec and tc_dot must give the bits the measured model gives
 * (emu/exec_mma.c: each term cut towards zero to a multiple of 2^(E-26), E the largest
 * alignment exponent of the nonzero terms, the exact sum cut to f32 towards zero or rounded
 * to f16 to nearest even; Inf/NaN in IEEE double, NaN canonical). The reference below is the
 * model written the plain way - doubles, ldexp, a rounding conversion stepped back with
 * nextafterf - on many random and adversarial inputs: subnormals, Inf, NaN, signed zeros,
 * cancelling products, wide exponent spreads, sums that overflow f32. Any bit differing fails.
 * Prints one line per failure (the first 20) and "N passed, N failed". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../../emu/tcore.h"

#include "check.h"

/* ---- the reference: the model, formula by formula ---------------------------------- */

static const struct { int eb, mb, bias; } fmt[] = { {5, 10, 15}, {8, 7, 127}, {8, 10, 127}, {8, 23, 127} };

static uint32_t ref_bits(uint32_t u, int f) { return f == TC_TF32 ? u >> 13 : u; }

static int ref_special(uint32_t u, int f)
{
    uint32_t e = u >> fmt[f].mb & ((1u << fmt[f].eb) - 1);
    return e == (1u << fmt[f].eb) - 1;
}

/* value = (-1)^s m 2^q; alignment exponent x of 0.1m x 2^x (a subnormal's field counts as 1) */
static void ref_parts(uint32_t u, int f, int *s, double *m, int *q, int *x)
{
    int mb = fmt[f].mb, e = (int)(u >> mb & ((1u << fmt[f].eb) - 1)), ee = e ? e : 1;
    uint32_t frac = u & ((1u << mb) - 1);
    *s = (int)(u >> (mb + fmt[f].eb) & 1);
    *m = e ? (double)(frac | 1u << mb) : (double)frac;
    *q = ee - fmt[f].bias - mb;
    *x = ee - fmt[f].bias + 1;
}

static double ref_val(uint32_t u, int f)
{
    int s, q, x;
    double m;
    if (ref_special(u, f)) {
        if (u & ((1u << fmt[f].mb) - 1)) return NAN;
        return (u >> (fmt[f].mb + fmt[f].eb) & 1) ? -INFINITY : INFINITY;
    }
    ref_parts(u, f, &s, &m, &q, &x);
    return s ? -ldexp(m, q) : ldexp(m, q);
}

static uint32_t ref_f32(double v)   /* towards zero; 2^128 and beyond infinite */
{
    if (isnan(v)) return 0x7fffffffu;
    float r = (float)v;
    if (fabs(v) < 0x1p128 && fabs((double)r) > fabs(v)) r = nextafterf(r, 0.0f);
    uint32_t u;
    memcpy(&u, &r, 4);
    return u;
}

static uint32_t ref_f16(double v)   /* to nearest even */
{
    if (isnan(v)) return 0x7fff;
    uint32_t sg = signbit(v) ? 0x8000u : 0;
    double a = fabs(v);
    int e;
    frexp(a, &e);
    int ulp = e - 11 < -24 ? -24 : e - 11;
    double r = a == 0 || isinf(a) ? a : ldexp(nearbyint(ldexp(a, -ulp)), ulp);
    if (r >= 65520.0) return sg | 0x7c00;
    if (r < 0x1p-14) return sg | (uint32_t)ldexp(r, 24);
    frexp(r, &e);
    return sg | (uint32_t)(e + 14) << 10 | ((uint32_t)ldexp(r, 11 - e) & 1023);
}

static uint32_t ref_dot(const uint32_t *a, const uint32_t *b, int K, int f, uint32_t c, int acc16)
{
    int cf = TC_ACC_C16(acc16) ? TC_F16 : TC_F32, o16 = TC_ACC_D16(acc16), special = ref_special(c, cf);
    for (int k = 0; k < K; k++) special |= ref_special(ref_bits(a[k], f), f) | ref_special(ref_bits(b[k], f), f);
    if (special) {
        double sum = ref_val(c, cf);
        for (int k = 0; k < K; k++) sum += ref_val(ref_bits(a[k], f), f) * ref_val(ref_bits(b[k], f), f);
        return o16 ? ref_f16(sum) : ref_f32(sum);
    }
    int sc, qc, xc, E = INT32_MIN, have = 0;
    double mc;
    ref_parts(c, cf, &sc, &mc, &qc, &xc);
    if (mc != 0) { E = xc; have = 1; }
    for (int k = 0; k < K; k++) {
        int sa, qa, xa, sb, qb, xb;
        double ma, mb;
        ref_parts(ref_bits(a[k], f), f, &sa, &ma, &qa, &xa);
        ref_parts(ref_bits(b[k], f), f, &sb, &mb, &qb, &xb);
        if (ma != 0 && mb != 0 && (!have || xa + xb - 1 > E)) { E = xa + xb - 1; have = 1; }
    }
    if (!have) {   /* every term zero: c's sign */
        int neg = cf == TC_F16 ? (c >> 15 & 1) : (c >> 31 & 1);
        return o16 ? (uint32_t)neg << 15 : (uint32_t)neg << 31;
    }
    int lsb = E - 26;
    /* each term cut towards zero to a multiple of 2^lsb; the sum of the cut terms is exact in
     * double (fewer than 53 bits above 2^lsb) */
    double sum = trunc(ldexp(mc, qc - lsb)) * (sc ? -1 : 1);
    for (int k = 0; k < K; k++) {
        int sa, qa, xa, sb, qb, xb;
        double ma, mb;
        ref_parts(ref_bits(a[k], f), f, &sa, &ma, &qa, &xa);
        ref_parts(ref_bits(b[k], f), f, &sb, &mb, &qb, &xb);
        sum += trunc(ldexp(ma * mb, qa + qb - lsb)) * ((sa ^ sb) ? -1 : 1);
    }
    double v = ldexp(sum, lsb);
    return o16 ? ref_f16(v) : ref_f32(v);
}

/* ---- inputs ------------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* An element of format f (tf32: an f32 register, low bits random), drawn by kind: random
 * bits, zero of either sign, subnormal, the largest and smallest exponents, Inf/NaN (when
 * specials), exponents near a centre (for cancellation and narrow spreads). */
static uint32_t element(int f, int specials, int centre)
{
    int eb = fmt[f].eb, mb = fmt[f].mb, emax = (1 << eb) - 1;
    uint32_t sign = (rnd() & 1) << (mb + eb), frac = rnd() & ((1u << mb) - 1), e;
    switch (rnd() % 10) {
    case 0: e = 0; frac = 0; break;
    case 1: e = 0; break;
    case 2: e = (uint32_t)(emax - 1 - (int)(rnd() % 3)); break;
    case 3: e = 1 + rnd() % 3; break;
    case 4: if (specials) { e = (uint32_t)emax; if (rnd() & 1) frac = 0; break; } /* fall through */
    case 5: case 6: case 7: {
        int x = centre + (int)(rnd() % 5) - 2;
        e = (uint32_t)(x < 1 ? 1 : x > emax - 1 ? emax - 1 : x);
        break;
    }
    default: e = rnd() % (uint32_t)emax; break;
    }
    uint32_t u = sign | e << mb | frac;
    return f == TC_TF32 ? u << 13 | (rnd() & 0x1fff) : u;
}

static uint32_t acc_elem(int c16, int specials)
{
    if (c16) return element(TC_F16, specials, 15);
    int e;
    switch (rnd() % 8) {
    case 0: return (rnd() & 1) << 31;
    case 1: return (rnd() & 1) << 31 | (rnd() & 0x7fffff);
    case 2: if (specials) return (rnd() & 1) << 31 | 0x7f800000u | (rnd() & 1 ? 0 : rnd() & 0x7fffff); /* fall through */
    default: e = (int)(rnd() % 255); return (rnd() & 1) << 31 | (uint32_t)e << 23 | (rnd() & 0x7fffff);
    }
}

static const char *fname[] = { "f16", "bf16", "tf32" };

int main(void)
{
    for (int it = 0; it < 400000; it++) {
        int f = (int)(rnd() % 3), acc16 = (int)(rnd() % 4), specials = rnd() % 8 == 0;
        int K = f == TC_TF32 ? 4 * (1 + (int)(rnd() % 2)) : 16, k0 = f == TC_TF32 && K == 4 ? 4 * (int)(rnd() % 2) : 0;
        int emax = (1 << fmt[f].eb) - 1, centre = 1 + (int)(rnd() % (uint32_t)(emax - 1));
        uint32_t a[16], b[16];
        for (int k = 0; k < 16; k++) {
            a[k] = element(f, specials, centre);
            b[k] = element(f, specials, centre);
        }
        if (rnd() % 4 == 0)   /* cancellation: pairs of equal products of opposite signs */
            for (int k = k0; k + 1 < k0 + K; k += 2) {
                a[k + 1] = a[k] ^ (f == TC_TF32 ? 0x80000000u : f == TC_F16 ? 0x8000u : 0x8000u);
                b[k + 1] = b[k];
            }
        if (rnd() % 8 == 0)   /* one product far above the others */
            a[k0 + (int)(rnd() % (uint32_t)K)] = f == TC_TF32 ? 0x7e000000u | (rnd() & 0x807fffffu)
                                                 : f == TC_F16 ? 0x7800u | (rnd() & 0x83ffu) : 0x7e00u | (rnd() & 0x807fu);
        if (f == TC_F16 && rnd() % 16 == 0) {   /* products near 2^32 of one sign: a sum past 2^31 units */
            uint32_t sg = (rnd() & 1) << 15;
            for (int k = 0; k < 16; k++) {
                a[k] = sg | (0x7bffu - rnd() % 4);
                b[k] = 0x7bffu - rnd() % 4;
            }
        }
        uint32_t c = acc_elem(TC_ACC_C16(acc16), specials);
        uint32_t want = ref_dot(a + k0, b + k0, K, f, c, acc16);
        TcRow ra, rb;
        tc_row_decode(a, 16, f, &ra);
        tc_row_decode(b, 16, f, &rb);
        TcElem ea[16], eb[16];
        tc_decode(a + k0, K, f, ea);
        tc_decode(b + k0, K, f, eb);
        uint32_t got_row = tc_row_dot(&ra, &rb, k0, K, f, c, acc16);
        uint32_t got_dec = tc_dot_dec(ea, eb, K, f, c, acc16);
        uint32_t got_dot = tc_dot(a + k0, b + k0, K, f, c, acc16);
        if (K == 16) {   /* the code wmma runs: a tile of one, A row 1 and B column 2 */
            static TcRow dec[64];
            static uint32_t tile[32][32];
            dec[1] = ra;
            dec[34] = rb;
            tile[1][2] = c;
            tc_row_tile16(dec, 2, 3, f, tile, acc16);
            if (tile[1][2] != want) got_row = tile[1][2];
            tile[1][2] = c;
            tc_row_tile16_plain(dec, 2, 3, f, tile, acc16);
            if (tile[1][2] != want) got_row = tile[1][2];
        }
        if (f == TC_F16 && acc16 == 0) {   /* the vector tile (tc_tile16_f16): A row 1, B column 2 */
            static uint16_t ta[16][16], tb[16][16];
            static uint32_t tcc[16][16], tc2[16][16];
            int whole = it % 64 == 0, sp = 0;   /* now and then every element of the tile */
            for (int i = 0; i < 16; i++)
                for (int k = 0; k < 16; k++) {
                    ta[i][k] = (uint16_t)element(f, specials && rnd() % 64 == 0, centre);
                    tb[i][k] = (uint16_t)element(f, specials && rnd() % 64 == 0, centre);
                    tcc[i][k] = acc_elem(0, specials && rnd() % 64 == 0);
                }
            for (int k = 0; k < 16; k++) { ta[1][k] = (uint16_t)a[k]; tb[k][2] = (uint16_t)b[k]; }
            tcc[1][2] = c;
            for (int i = 0; i < 16; i++)
                for (int k = 0; k < 16; k++)
                    sp |= ref_special(ta[i][k], f) | ref_special(tb[i][k], f) | ref_special(tcc[i][k], TC_F32);
            for (int v = 0; v < 2; v++) {
                memcpy(tc2, tcc, sizeof tc2);
                int r = v ? tc_tile16_f16_plain(ta, tb, tc2) : tc_tile16_f16(ta, tb, tc2);
                if (r != sp || (r && memcmp(tc2, tcc, sizeof tc2))) { got_row = ~want; continue; }
                if (r) continue;
                if (tc2[1][2] != want) got_row = tc2[1][2];
                for (int i = 0; whole && i < 16; i++)
                    for (int j = 0; j < 16; j++) {
                        uint32_t ca[16], cb[16];
                        for (int k = 0; k < 16; k++) { ca[k] = ta[i][k]; cb[k] = tb[k][j]; }
                        uint32_t wv = ref_dot(ca, cb, 16, f, tcc[i][j], 0);
                        if (tc2[i][j] != wv && failed < 20)
                            printf("FAIL tile %d,%d: model %08x, tile %08x\n", i, j, wv, tc2[i][j]);
                        if (tc2[i][j] != wv) got_row = ~want;
                    }
            }
        }
        if (got_row == want && got_dec == want && got_dot == want) {
            passed++;
        } else if (failed++ < 20) {
            printf("FAIL %s K=%d k0=%d acc16=%d c=%08x a=", fname[f], K, k0, acc16, c);
            for (int k = k0; k < k0 + K; k++) printf("%x%s", a[k], k + 1 < k0 + K ? "," : " b=");
            for (int k = k0; k < k0 + K; k++) printf("%x%s", b[k], k + 1 < k0 + K ? "," : "");
            printf(": model %08x, tc_row_dot or tile %08x, tc_dot_dec %08x, tc_dot %08x\n", want, got_row, got_dec, got_dot);
        }
    }
    /* The exact tile (tc_tile16_f16_exact): operands of few significant bits within a few
     * binades, as integer GEMMs have, pass its checks and must give the model's bits; each
     * tile also goes through tc_tile16_f16 (exact or general) and both builds. Spans near the
     * bound (27 binades between the lowest bit and the top of a product), c far above the
     * products, c of -0, subnormal results and zero rows are drawn too. */
    int exact = 0, tiles = 0;
    for (int it = 0; it < 4000; it++) {
        static uint16_t ta[16][16], tb[16][16];
        static uint32_t tcc[16][16], t1[16][16], t2[16][16], t3[16][16];
        /* mode 0-1: narrow operands and plain c (mostly exact); 2: wider; 3: c of any kind */
        int mode = (int)(rnd() % 4), ea = 5 + (int)(rnd() % 20), eb = 5 + (int)(rnd() % 20);
        int spread = (int)(rnd() % (mode < 2 ? 4 : 9)), bits = 1 + (int)(rnd() % (mode < 2 ? 5 : 11));
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 16; k++) {
                for (int m = 0; m < 2; m++) {
                    int e = (m ? eb : ea) + (int)(rnd() % (uint32_t)(spread + 1));
                    uint32_t frac = (rnd() & 1023) >> (10 - (bits - 1)) << (10 - (bits - 1)) & 1023;
                    uint16_t h = (uint16_t)((rnd() & 1) << 15 | (uint32_t)(e > 30 ? 30 : e) << 10 | frac);
                    if (rnd() % 6 == 0) h &= 0x8000;   /* zeros of either sign */
                    if (m) tb[k][i] = h; else ta[i][k] = h;
                }
            }
        if (rnd() % 8 == 0) { int z = (int)(rnd() % 16); for (int k = 0; k < 16; k++) ta[z][k] = 0; }
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                float v;
                if (mode == 1 && i == 3 && j == 5 && it % 2) { tcc[i][j] = 0x80000000u; continue; }   /* -0 */
                if (mode == 2) { tcc[i][j] = 0; continue; }   /* the products' bounds alone */
                switch (mode == 3 ? rnd() % 6 : 2 + rnd() % 2 * 3) {
                case 0: tcc[i][j] = 0; continue;
                case 1: tcc[i][j] = rnd() % 64 == 0 ? 0x80000000u : 0; continue;
                case 2: v = ldexpf((float)(int)(rnd() % 4096 - 2048), ea + eb - 30 - (int)(rnd() % 8)); break;
                case 3: v = (float)(rnd() % 3) * 1.2f; break;   /* cudaTensorCoreGemm's beta C */
                case 4: tcc[i][j] = rnd() % 32 == 0 ? (rnd() & 0x807fffffu) : 0x3f800000u; continue;
                default: v = ldexpf((float)(int)(rnd() % 256), ea + eb - 30 + (int)(rnd() % 12)); break;
                }
                memcpy(&tcc[i][j], &v, 4);
            }
        memcpy(t1, tcc, sizeof t1);
        memcpy(t2, tcc, sizeof t2);
        memcpy(t3, tcc, sizeof t3);
        int r1 = tc_tile16_f16_exact(ta, tb, t1), r2 = tc_tile16_f16_exact_plain(ta, tb, t2);
        int r3 = tc_tile16_f16(ta, tb, t3);
        tiles++;
        exact += !r1;
        int bad = r3 || (r1 && memcmp(t1, tcc, sizeof t1)) || (r2 && memcmp(t2, tcc, sizeof t2));
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                uint32_t ca[16], cb[16];
                for (int k = 0; k < 16; k++) { ca[k] = ta[i][k]; cb[k] = tb[k][j]; }
                uint32_t wv = ref_dot(ca, cb, 16, TC_F16, tcc[i][j], 0);
                if ((!r1 && t1[i][j] != wv) || (!r2 && t2[i][j] != wv) || t3[i][j] != wv) {
                    if (failed < 20)
                        printf("FAIL exact tile %d,%d (c %08x): model %08x, exact %08x (%d), plain %08x (%d), tile %08x\n",
                               i, j, tcc[i][j], wv, t1[i][j], r1, t2[i][j], r2, t3[i][j]);
                    bad = 1;
                }
            }
        if (bad) failed++; else passed++;
    }
    printf("exact tile: %d of %d tiles took it\n", exact, tiles);
    if (exact < tiles / 4) { printf("FAIL: the exact tile applied to too few tiles\n"); failed++; }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
