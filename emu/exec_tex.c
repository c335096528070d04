/* exec_tex.c - texture and surface instructions: tex, tld4, txq, suld.b, sust.b/.p, sured.b, suq.
 *
 * The operand `[h, {coords}]` names an object by its 64-bit handle (texture.h). Binders decode
 * geometry, query, boundary mode and types once; handlers look the handle up per lane and
 * sample. Filtering follows what an H100 does (recorded by tests/cuda/textures.cu, see
 * docs/textures.md): a linear filter's coordinate is rounded to 8 fractional bits (the
 * weights are multiples of 1/256, halves rounded up), each lerp is a*(1-w) + b*w in f32,
 * and a 1D array is a 2D one of height 1 sampled at y = 0, so in border mode half of every
 * 1D linear sample is the border colour.
 */
#include <math.h>
#include <string.h>
#include "exec.h"
#include "fp.h"
#include "texture.h"

/* Inst.aux8: geometry (TEXG_*); Inst.bop: tex mode / tld4 component / txq query /
 * surface boundary mode; Inst.cmp: coordinate count. */
enum { TM_PLAIN, TM_LEVEL, TM_GRAD };
enum { SB_TRAP, SB_CLAMP, SB_ZERO };

/* ---- texels ---- */

/* Bytes of one channel of each format. */
static const int fmt_size[] = { 1, 2, 4, 1, 2, 4, 2, 4 };

/* Channel c of the texel at p as a float (normalized read or a float format) or as integer
 * bits (element read of an integer format). */
static uint32_t chan_raw(const EmuTex *t, const uint8_t *p, int c, int *is_float)
{
    const uint8_t *q = p + c * fmt_size[t->fmt];
    uint8_t u8; int8_t s8; uint16_t u16; int16_t s16; uint32_t u32;
    *is_float = 1;
    switch (t->fmt) {
    case TEXF_U8: u8 = *q;
        if (t->read_norm) return fp_f32_bits((float)u8 / 255.0f);
        *is_float = 0; return u8;
    case TEXF_S8: s8 = (int8_t)*q;
        if (t->read_norm) return fp_f32_bits(fmaxf((float)s8 / 127.0f, -1.0f));
        *is_float = 0; return (uint32_t)(int32_t)s8;
    case TEXF_U16: memcpy(&u16, q, 2);
        if (t->read_norm) return fp_f32_bits((float)u16 / 65535.0f);
        *is_float = 0; return u16;
    case TEXF_S16: memcpy(&s16, q, 2);
        if (t->read_norm) return fp_f32_bits(fmaxf((float)s16 / 32767.0f, -1.0f));
        *is_float = 0; return (uint32_t)(int32_t)s16;
    case TEXF_F16: memcpy(&u16, q, 2); return fp_f32_bits(fp_f16_to_f32(u16));
    case TEXF_F32: memcpy(&u32, q, 4); return u32;
    default: memcpy(&u32, q, 4); *is_float = 0; return u32;
    }
}

static float srgb_to_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* The texel at integer coordinates (already addressed) of level lv, layer/slice z; or the
 * border colour when `border`. Missing channels read 0. */
static void texel(const EmuTex *t, const EmuTexLevel *lv, int x, int y, int z, int border,
                  uint32_t out[4])
{
    int isf = 1;
    for (int c = 0; c < 4; c++) {
        if (border) { out[c] = fp_f32_bits(t->border[c]); continue; }
        if (c >= t->nch) { out[c] = 0; continue; }
        const uint8_t *p = lv->base + (size_t)z * lv->slice + (size_t)y * lv->pitch + (size_t)x * t->elem;
        out[c] = chan_raw(t, p, c, &isf);
        if (t->srgb && c < 3) out[c] = fp_f32_bits(srgb_to_linear(fp_bits_f32(out[c])));
    }
    if (border && !(t->read_norm || t->fmt == TEXF_F16 || t->fmt == TEXF_F32))
        for (int c = 0; c < 4; c++) out[c] = (uint32_t)(int32_t)t->border[c];
}

/* Apply the address mode to integer coordinate i of a dimension of size n: the index, or -1
 * for the border. */
static int address(int mode, int64_t i, int n)
{
    switch (mode) {
    case TEXA_WRAP: { int64_t r = i % n; return (int)(r < 0 ? r + n : r); }
    case TEXA_MIRROR: { int64_t p = i % (2 * n); if (p < 0) p += 2 * n; return (int)(p < n ? p : 2 * n - 1 - p); }
    case TEXA_BORDER: return i < 0 || i >= n ? -1 : (int)i;
    default: return i < 0 ? 0 : i >= n ? n - 1 : (int)i;
    }
}

/* One dimension of a sample: the two texel indices and the weight of the second, in 1/256. */
typedef struct Axis { int i0, i1, w; } Axis;

/* Coordinate x (texel units, or normalized when norm) in a dimension of n texels. */
static Axis axis(const EmuTex *t, int dim, float x, int n, int linear)
{
    Axis a;
    /* wrap and mirror exist for normalized coordinates only; with texel coordinates the
     * GPU clamps (CUDA Programming Guide, texture fetching; convolutionTexture relies on it) */
    int mode = t->addr[dim];
    if (!t->norm && (mode == TEXA_WRAP || mode == TEXA_MIRROR)) mode = TEXA_CLAMP;
    double p = x;   /* the coordinate in texels */
    if (t->norm) {
        /* the H100 cuts a normalized coordinate to 21 fractional bits (towards minus infinity)
         * and scales it exactly (tests/cuda/tex_coord_precision.cu: x * n in f32 misses 1 in
         * 20 weights of a 4093-texel row) */
        double xf = isfinite(x) ? floor(ldexp((double)x, 21)) : x;
        if (fabs(xf) > 0x1p52) xf = xf > 0 ? 0x1p52 : -0x1p52;
        if (mode == TEXA_WRAP) xf -= floor(ldexp(xf, -21)) * 0x1p21;
        p = ldexp(xf, -21) * n;
    }
    if (!linear) {
        double f = floor(p);
        int64_t i = f < -1e9 ? -1000000000 : f > 1e9 ? 1000000000 : (int64_t)f;
        a.i0 = a.i1 = address(mode, i, n);
        a.w = 0;
        return a;
    }
    /* the H100 rounds the coordinate to 8 fractional bits, halves up */
    double q = floor((p - 0.5) * 256.0 + 0.5);
    if (q < -1e11) q = -1e11;
    if (q > 1e11) q = 1e11;
    int64_t qi = (int64_t)q;
    int64_t i = qi >> 8;
    a.w = (int)(qi & 255);
    a.i0 = address(mode, i, n);
    a.i1 = address(mode, i + 1, n);
    return a;
}

/* prod / 2^shift rounded to an integer, halves to even. */
static int round_weight(uint32_t prod, int shift)
{
    uint32_t q = prod >> shift, r = prod & ((1u << shift) - 1), half = 1u << (shift - 1);
    return (int)(q + (r > half || (r == half && (q & 1))));
}

static float lerp256(float a, float b, int w)
{
    float wf = (float)w / 256.0f;
    return a * (1.0f - wf) + b * wf;
}

/* The H100's sum of a footprint's weighted f32 texels (tests/cuda/tex_filter_round.cu,
 * tests/gpu/probes/tex_pitch_mirror.cu): each term texel x weight/256 is cut towards zero to
 * a multiple of 2^(E-33), E the exponent of the largest term (|term| < 2^E; the recordings
 * fix the width 33 only to within 31..39), the cut terms are summed exactly and the sum is
 * rounded to f32, to nearest with halfway cases away from zero. */
enum { FILTER_WIDTH = 33 };

static float filter_sum(const double *terms, int n)
{
    int E = INT32_MIN;
    double plain = 0;
    for (int i = 0; i < n; i++) {
        plain += terms[i];
        int e;
        if (terms[i] != 0 && isfinite(terms[i])) { frexp(terms[i], &e); if (e > E) E = e; }
    }
    if (!isfinite(plain) || E == INT32_MIN) return (float)plain;
    int lsb = E - FILTER_WIDTH;
    int64_t S = 0;
    for (int i = 0; i < n; i++) S += (int64_t)trunc(ldexp(terms[i], -lsb));
    if (S == 0) return 0.0f;
    uint64_t m = (uint64_t)(S < 0 ? -S : S);
    int top = 63 - __builtin_clzll(m) + lsb;          /* the exponent of the sum's leading bit */
    int ulp = top - 23 < -149 ? -149 : top - 23;      /* f32's last bit there */
    int sh = ulp - lsb;
    if (sh > 0) {
        uint64_t r = m & ((1ull << sh) - 1);
        m = (m >> sh) + (r >= 1ull << (sh - 1));
        lsb = ulp;
    }
    float f = (float)ldexp((double)m, lsb);
    return S < 0 ? -f : f;
}

static int is_signed_fmt(int f) { return f == TEXF_S8 || f == TEXF_S16; }

/* A texel's channels as 16-bit fixed-point fractions of 1 (unorm: 65535, snorm: 32767), the
 * form in which the H100 filters 8/16-bit normalized data: 8-bit unorm v is v * 257. */
static void texel_fixed(const EmuTex *t, const EmuTexLevel *lv, int x, int y, int z, int border,
                        int32_t q[4])
{
    int sg = is_signed_fmt(t->fmt);
    float scale = sg ? 32767.0f : 65535.0f;
    for (int c = 0; c < 4; c++) {
        if (border) { q[c] = (int32_t)lrintf(t->border[c] * scale); continue; }
        if (c >= t->nch) { q[c] = 0; continue; }
        const uint8_t *p = lv->base + (size_t)z * lv->slice + (size_t)y * lv->pitch +
                           (size_t)x * t->elem + c * fmt_size[t->fmt];
        int16_t s16; uint16_t u16;
        switch (t->fmt) {
        case TEXF_U8: q[c] = *p * 257; break;
        case TEXF_S8: { int v = (int8_t)*p; q[c] = v <= -127 ? -32767 : (int32_t)lrintf((float)v * 32767.0f / 127.0f); break; }
        case TEXF_U16: memcpy(&u16, p, 2); q[c] = u16; break;
        default: memcpy(&s16, p, 2); q[c] = s16 < -32767 ? -32767 : s16; break;
        }
    }
}

static int is_1d(int g) { return g == TEXG_1D || g == TEXG_A1D; }

/* Sample level lv at (x, y, z) for `dims` filtered dimensions; z is a layer when dims < 3. */
static void sample_level(const EmuTex *t, const EmuTexLevel *lv, int dims, float x, float y,
                         float z, int layer, uint32_t out[4])
{
    int linear = t->filter == TEXM_LINEAR;
    Axis ax = axis(t, 0, x, (int)lv->w, linear);
    Axis ay = dims >= 2 ? axis(t, 1, y, (int)lv->h, linear) : (Axis){ 0, 0, 0 };
    /* A 1D array is a 2D one of height 1 sampled at y = 0: both rows of the footprint are
     * row 0 (and filtering along y changes nothing) unless the border replaces row -1. */
    if (is_1d(t->geom)) ay = linear && t->addr[1] == TEXA_BORDER ? (Axis){ -1, 0, 128 } : (Axis){ 0, 0, 0 };
    Axis az = dims >= 3 ? axis(t, 2, z, (int)lv->d, linear) : (Axis){ layer, layer, 0 };
    if (!linear) {
        texel(t, lv, ax.i0 < 0 ? 0 : ax.i0, ay.i0 < 0 ? 0 : ay.i0, az.i0 < 0 ? 0 : az.i0,
              ax.i0 < 0 || ay.i0 < 0 || az.i0 < 0, out);
        return;
    }
    /* The H100 multiplies the axes' 8-bit weights: in 2D the far texel's weight wx*wy/256 is
     * rounded to 1/256 (halves up) and the other three are what is left of wx, wy and 1
     * (tests/cuda/textures.cu, 2D sections; tests/gpu/probes/tex_mirror_edge.cu: at
     * weights 42.5, 127.5, 21.5, 64.5 it uses 43, 127, 21, 65); in 3D each texel's weight is
     * rounded to 1/256 half to even (unverified on halfway cases) before the weighted sum,
     * which it sums as filter_sum says. */
    int wxs[2] = { 256 - ax.w, ax.w }, wys[2] = { 256 - ay.w, ay.w }, wzs[2] = { 256 - az.w, az.w };
    int xs[2] = { ax.i0, ax.i1 }, ys[2] = { ay.i0, ay.i1 }, zs[2] = { az.i0, az.i1 };
    double terms[4][8];
    int nt = 0;
    int64_t iacc[4] = { 0, 0, 0, 0 };
    /* 8- and 16-bit channels read as normalized floats are filtered in 16-bit fixed point */
    int fixed = t->read_norm && !t->srgb && t->fmt != TEXF_U32 && t->fmt != TEXF_S32;
    int nz = dims >= 3 ? 2 : 1;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                int wt;
                if (nz == 2) {
                    wt = round_weight((uint32_t)(wxs[i] * wys[j]) * (uint32_t)wzs[k], 16);
                } else {   /* w11 rounded (halves up), the others its complements */
                    int w11 = (ax.w * ay.w + 128) >> 8;
                    wt = i ? (j ? w11 : ax.w - w11) : (j ? ay.w - w11 : 256 - ax.w - ay.w + w11);
                }
                if (!wt) continue;
                uint32_t v[4];
                int b = xs[i] < 0 || ys[j] < 0 || zs[k] < 0;
                if (fixed) {
                    int32_t q[4];
                    texel_fixed(t, lv, b ? 0 : xs[i], b ? 0 : ys[j], b ? 0 : zs[k], b, q);
                    for (int c = 0; c < 4; c++) iacc[c] += (int64_t)q[c] * wt;
                    continue;
                }
                texel(t, lv, b ? 0 : xs[i], b ? 0 : ys[j], b ? 0 : zs[k], b, v);
                float wf = (float)wt / 256.0f;
                for (int c = 0; c < 4; c++) terms[c][nt] = (double)fp_bits_f32(v[c]) * wf;
                nt++;
            }
    for (int c = 0; c < 4; c++) {
        if (!fixed) { out[c] = fp_f32_bits(filter_sum(terms[c], nt)); continue; }
        /* round to 16 bits, halves up, then scale as the read mode does */
        int64_t r = (iacc[c] + 128) >> 8;
        float f = is_signed_fmt(t->fmt) ? fmaxf((float)r / 32767.0f, -1.0f) : (float)r / 65535.0f;
        out[c] = fp_f32_bits(f);
    }
}

/* Which face of a cube a direction hits, and the 2D normalized coordinates on it. */
static int cube_face(float x, float y, float z, float *s, float *u)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), ma, sc, tc;
    int f;
    if (ax >= ay && ax >= az) { f = x >= 0 ? 0 : 1; ma = ax; sc = x >= 0 ? -z : z; tc = -y; }
    else if (ay >= az) { f = y >= 0 ? 2 : 3; ma = ay; sc = x; tc = y >= 0 ? z : -z; }
    else { f = z >= 0 ? 4 : 5; ma = az; sc = z >= 0 ? x : -x; tc = -y; }
    *s = (sc / ma + 1.0f) * 0.5f;
    *u = (tc / ma + 1.0f) * 0.5f;
    return f;
}

/* The level of detail of a gradient pair (texel units of level 0). */
static float grad_lod(const EmuTex *t, int dims, const float *dx, const float *dy)
{
    float sx = 0, sy = 0, sz[3] = { (float)t->lv[0].w, (float)t->lv[0].h, (float)t->lv[0].d };
    for (int i = 0; i < dims; i++) {
        float a = dx[i] * sz[i], b = dy[i] * sz[i];
        sx += a * a;
        sy += b * b;
    }
    float m = fmaxf(sx, sy);
    return m > 0 ? 0.5f * log2f(m) : -INFINITY;
}

/* Sample with mipmapping: lod chooses the level (point) or blends two (linear). */
static void sample(const EmuTex *t, int dims, float x, float y, float z, int layer, float lod,
                   uint32_t out[4])
{
    if (t->nlevels <= 1) { sample_level(t, &t->lv[0], dims, x, y, z, layer, out); return; }
    lod += t->lod_bias;
    float lo = fmaxf(t->min_lod, 0.0f), hi = fminf(t->max_lod, (float)(t->nlevels - 1));
    lod = lod < lo ? lo : lod > hi ? hi : lod;
    if (t->mip_filter != TEXM_LINEAR) {
        int l = (int)floorf(lod + 0.5f);
        if (l > t->nlevels - 1) l = t->nlevels - 1;
        sample_level(t, &t->lv[l], dims, x, y, z, layer, out);
        return;
    }
    int l0 = (int)floorf(lod), w = (int)floorf((lod - (float)l0) * 256.0f + 0.5f);
    if (w == 256) { l0++; w = 0; }
    uint32_t a[4], b[4];
    sample_level(t, &t->lv[l0], dims, x, y, z, layer, a);
    if (!w || l0 + 1 >= t->nlevels) { memcpy(out, a, sizeof a); return; }
    sample_level(t, &t->lv[l0 + 1], dims, x, y, z, layer, b);
    for (int c = 0; c < 4; c++) out[c] = fp_f32_bits(lerp256(fp_bits_f32(a[c]), fp_bits_f32(b[c]), w));
}

static const EmuTex *lookup(Warp *w, const Inst *in, int lane, int surface)
{
    uint64_t h = ROW(w, in->base)[lane] + (uint64_t)in->imm;
    const EmuTex *t = emu_tex_lookup(h);
    if (!t || t->surface != surface) {
        warp_fault(w, lane, EMU_ERR_ILLEGAL_ADDRESS, "%s handle 0x%llx is not a live %s object",
                   surface ? "surface" : "texture", (unsigned long long)h,
                   surface ? "surface" : "texture");
        return NULL;
    }
    return t;
}

/* The resource's geometry must be what the instruction names (1D arrays count as 2D with
 * height 1 only inside the sampler). */
static int geom_ok(const EmuTex *t, int g)
{
    if (t->geom == g) return 1;
    return g == TEXG_1D && t->geom == TEXG_LINEAR;
}

static float cf(const Warp *w, uint32_t row, int l) { return fp_bits_f32((uint32_t)ROW(w, row)[l]); }

/* Coordinates of one lane as floats; integer coordinates (Inst.t2 = S32) are texel indices. */
static float coord(const Warp *w, const Inst *in, int k, int l)
{
    uint32_t v = (uint32_t)ROW(w, in->s[k])[l];
    return in->t2 == TY_S32 ? (float)(int32_t)v + 0.5f : fp_bits_f32(v);
}

/* An element read of linear memory (tex1Dfetch): out of range reads 0. */
static void fetch_linear(const EmuTex *t, int32_t i, uint32_t out[4])
{
    if (i < 0 || (uint32_t)i >= t->lv[0].w) { memset(out, 0, 16); return; }
    texel(t, &t->lv[0], i, 0, 0, 0, out);
}

static void write_result(Warp *w, const Inst *in, int l, const uint32_t v[4])
{
    for (int e = 0; e < in->nd && e < 4; e++) {
        uint32_t x = v[e];
        if (in->t == TY_F32) ROW(w, in->d[e])[l] = x;
        else ROW(w, in->d[e])[l] = in->t == TY_S32 ? (uint64_t)(int64_t)(int32_t)x : x;
    }
}

static int tex_lane(Warp *w, const Inst *in, int l)
{
    const EmuTex *t = lookup(w, in, l, 0);
    if (!t) return STEP_FAULT;
    int g = in->aux8;
    if (!geom_ok(t, g))
        return warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "texture geometry does not match the instruction");
    uint32_t v[4];
    if (t->geom == TEXG_LINEAR) {
        fetch_linear(t, in->t2 == TY_S32 ? (int32_t)ROW(w, in->s[0])[l] : (int32_t)floorf(cf(w, in->s[0], l)), v);
        write_result(w, in, l, v);
        return STEP_NEXT;
    }
    int nc = in->cmp, layer = 0, dims;
    float x = 0, y = 0, z = 0, lod = 0;
    switch (g) {
    case TEXG_1D: x = coord(w, in, 0, l); dims = 2; y = 0; break;  /* a 1D array is 2D, height 1 */
    case TEXG_2D: x = coord(w, in, 0, l); y = coord(w, in, 1, l); dims = 2; break;
    case TEXG_3D: x = coord(w, in, 0, l); y = coord(w, in, 1, l); z = coord(w, in, 2, l); dims = 3; break;
    case TEXG_A1D: layer = (int32_t)ROW(w, in->s[0])[l]; x = coord(w, in, 1, l); dims = 2; break;
    case TEXG_A2D: layer = (int32_t)ROW(w, in->s[0])[l]; x = coord(w, in, 1, l); y = coord(w, in, 2, l); dims = 2; break;
    default: {   /* cube, acube */
        int base = g == TEXG_ACUBE;
        if (base) layer = (int32_t)ROW(w, in->s[0])[l] * 6;
        int f = cube_face(cf(w, in->s[base], l), cf(w, in->s[base + 1], l), cf(w, in->s[base + 2], l), &x, &y);
        layer += f;
        dims = 2;
        break;
    }
    }
    int nl = (int)t->lv[0].d;
    if (g == TEXG_A1D || g == TEXG_A2D) layer = layer < 0 ? 0 : layer >= nl ? nl - 1 : layer;
    if (in->bop == TM_LEVEL) lod = cf(w, in->s[nc], l);
    else if (in->bop == TM_GRAD) {
        int gd = (in->ns - nc) / 2;
        float dx[3] = { 0 }, dy[3] = { 0 };
        for (int i = 0; i < gd && i < 3; i++) {
            dx[i] = cf(w, in->s[nc + i], l);
            dy[i] = cf(w, in->s[nc + gd + i], l);
        }
        lod = grad_lod(t, g == TEXG_1D || g == TEXG_A1D ? 1 : g == TEXG_3D ? 3 : 2, dx, dy);
    }
    sample(t, dims, x, y, z, layer, lod, v);
    write_result(w, in, l, v);
    return STEP_NEXT;
}

static int h_tex(Warp *w, const Inst *in, uint32_t mask)
{
    FOR_LANES(mask, l) if (tex_lane(w, in, l) != STEP_NEXT) return STEP_FAULT;
    return STEP_NEXT;
}

/* tld4: component bop of the four texels of the bilinear footprint, in the order
 * (i0,j1) (i1,j1) (i1,j0) (i0,j0). */
static int h_tld4(Warp *w, const Inst *in, uint32_t mask)
{
    FOR_LANES(mask, l) {
        const EmuTex *t = lookup(w, in, l, 0);
        if (!t) return STEP_FAULT;
        int g = in->aux8, layer = 0;
        if (!geom_ok(t, g) || t->geom == TEXG_LINEAR)
            return warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "texture geometry does not match tld4");
        float x, y;
        if (g == TEXG_2D) { x = coord(w, in, 0, l); y = coord(w, in, 1, l); }
        else if (g == TEXG_A2D) {
            layer = (int32_t)ROW(w, in->s[0])[l];
            x = coord(w, in, 1, l); y = coord(w, in, 2, l);
            int nl = (int)t->lv[0].d;
            layer = layer < 0 ? 0 : layer >= nl ? nl - 1 : layer;
        } else {
            int b = g == TEXG_ACUBE;
            if (b) layer = (int32_t)ROW(w, in->s[0])[l] * 6;
            layer += cube_face(cf(w, in->s[b], l), cf(w, in->s[b + 1], l), cf(w, in->s[b + 2], l), &x, &y);
        }
        const EmuTexLevel *lv = &t->lv[0];
        Axis ax = axis(t, 0, x, (int)lv->w, 1), ay = axis(t, 1, y, (int)lv->h, 1);
        int xs[4] = { ax.i0, ax.i1, ax.i1, ax.i0 }, ys[4] = { ay.i1, ay.i1, ay.i0, ay.i0 };
        uint32_t v[4];
        for (int k = 0; k < 4; k++) {
            uint32_t tv[4];
            int b = xs[k] < 0 || ys[k] < 0;
            texel(t, lv, b ? 0 : xs[k], b ? 0 : ys[k], layer, b, tv);
            v[k] = tv[in->bop];
        }
        write_result(w, in, l, v);
    }
    return STEP_NEXT;
}

/* ---- txq and suq ---- */

enum { Q_WIDTH, Q_HEIGHT, Q_DEPTH, Q_DTYPE, Q_ORDER, Q_NORM, Q_FILTER, Q_ADDR0, Q_ADDR1,
       Q_ADDR2, Q_LEVELS, Q_SAMPLES, Q_ARRAY, Q_COUNT };
static const int query_mod[Q_COUNT] = {
    MOD_WIDTH, MOD_HEIGHT, MOD_DEPTH, MOD_CHANNEL_DATA_TYPE, MOD_CHANNEL_ORDER,
    MOD_NORMALIZED_COORDS, MOD_FILTER_MODE, MOD_ADDR_MODE_0, MOD_ADDR_MODE_1, MOD_ADDR_MODE_2,
    MOD_NUM_MIPMAP_LEVELS, MOD_NUM_SAMPLES, MOD_ARRAY_SIZE
};

static int is_layered(int g) { return g == TEXG_A1D || g == TEXG_A2D || g == TEXG_ACUBE; }

static uint32_t query(const EmuTex *t, int q)
{
    const EmuTexLevel *lv = &t->lv[0];
    switch (q) {
    case Q_WIDTH: return lv->w;
    case Q_HEIGHT: return t->geom == TEXG_1D || t->geom == TEXG_A1D || t->geom == TEXG_LINEAR ? 0 : lv->h;
    case Q_DEPTH: return t->geom == TEXG_3D ? lv->d : 0;
    case Q_DTYPE: return (uint32_t)t->q_dtype;
    case Q_ORDER: return (uint32_t)t->q_order;
    case Q_NORM: return (uint32_t)t->norm;
    case Q_FILTER: return (uint32_t)t->filter;
    case Q_ADDR0: case Q_ADDR1: case Q_ADDR2: return (uint32_t)t->addr[q - Q_ADDR0];
    case Q_LEVELS: return (uint32_t)t->nlevels;
    case Q_SAMPLES: return 1;
    default:
        return is_layered(t->geom) ? (t->geom == TEXG_ACUBE ? lv->d / 6 : lv->d) : 0;
    }
}

static int h_query(Warp *w, const Inst *in, uint32_t mask)
{
    int surface = in->op == OP_suq;
    FOR_LANES(mask, l) {
        const EmuTex *t = lookup(w, in, l, surface);
        if (!t) return STEP_FAULT;
        ROW(w, in->d[0])[l] = query(t, in->bop);
    }
    return STEP_NEXT;
}

static const char *bind_query(Inst *in, const InstDesc *d, const char *name)
{
    int q = -1;
    for (int i = 0; i < Q_COUNT; i++) if (desc_has(d, query_mod[i])) q = i;
    if (q < 0) return in->op == OP_suq ? "suq: unsupported query" : "txq: unsupported query";
    if (in->op == OP_suq && q != Q_WIDTH && q != Q_HEIGHT && q != Q_DEPTH && q != Q_DTYPE &&
        q != Q_ORDER && q != Q_ARRAY)
        return "suq: unsupported query";
    if (!d->has_addr || d->nd != 1 || d->ns != 0) return name;
    in->bop = (uint8_t)q;
    in->fn = h_query;
    return NULL;
}

const char *bind_txq(Inst *in, const InstDesc *d) { return bind_query(in, d, "txq takes d, [handle]"); }
const char *bind_suq(Inst *in, const InstDesc *d) { return bind_query(in, d, "suq takes d, [handle]"); }

/* ---- binders of tex and tld4 ---- */

static int geom_of(const InstDesc *d)
{
    if (desc_has(d, MOD_A1D)) return TEXG_A1D;
    if (desc_has(d, MOD_A2D)) return TEXG_A2D;
    if (desc_has(d, MOD_ACUBE)) return TEXG_ACUBE;
    if (desc_has(d, MOD_CUBE)) return TEXG_CUBE;
    switch (d->tensor_dims) {
    case 1: return TEXG_1D;
    case 2: return TEXG_2D;
    case 3: return TEXG_3D;
    default: return -1;
    }
}

/* Coordinates each geometry takes ({x}, {x,y}, {x,y,z,_}, {i,x}, {i,x,y,_}, {x,y,z,_}, {i,x,y,z}). */
static const int coord_count[] = { 1, 2, 4, 2, 4, 4, 4 };
static const int grad_count[] = { 1, 2, 4, 1, 2, 4, 4 };

const char *bind_tex(Inst *in, const InstDesc *d)
{
    int g = geom_of(d);
    if (g < 0) return "tex: unsupported geometry (2dms/a2dms are not supported)";
    if (d->ntypes != 2 || (d->types[0] != TY_F32 && d->types[0] != TY_S32 && d->types[0] != TY_U32))
        return "tex: result type must be .f32, .s32 or .u32 (.f16x2 is not supported)";
    if (d->types[1] != TY_F32 && d->types[1] != TY_S32) return "tex: coordinates must be .f32 or .s32";
    if (d->vec != 4 || d->nd != 4) return "tex: needs a .v4 destination";
    if (!d->has_addr) return "tex takes [handle, {coordinates}]";
    int nc = coord_count[g], mode = TM_PLAIN;
    if (desc_has(d, MOD_LEVEL)) mode = TM_LEVEL;
    if (desc_has(d, MOD_GRAD)) mode = TM_GRAD;
    int want = nc + (mode == TM_LEVEL ? 1 : mode == TM_GRAD ? 2 * grad_count[g] : 0);
    if (mode == TM_GRAD && want > INST_MAXS) return "tex.grad of 3d and cube textures is not supported";
    if (d->ns != want) return "tex: wrong number of coordinates (offsets and depth compare are not supported)";
    if (d->types[1] == TY_S32 && (g == TEXG_CUBE || g == TEXG_ACUBE)) return "tex: cube coordinates must be .f32";
    in->aux8 = (uint8_t)g;
    in->bop = (uint8_t)mode;
    in->cmp = (uint8_t)nc;
    in->t = d->types[0];
    in->t2 = d->types[1];
    in->fn = h_tex;
    return NULL;
}

const char *bind_tld4(Inst *in, const InstDesc *d)
{
    int g = geom_of(d), comp = -1;
    if (g != TEXG_2D && g != TEXG_A2D && g != TEXG_CUBE && g != TEXG_ACUBE)
        return "tld4: geometry must be .2d, .a2d, .cube or .acube";
    if (desc_has(d, MOD_R)) comp = 0;
    if (desc_has(d, MOD_G)) comp = 1;
    if (desc_has(d, MOD_B)) comp = 2;
    if (desc_has(d, MOD_A)) comp = 3;
    if (comp < 0) return "tld4 needs .r, .g, .b or .a";
    if (d->ntypes != 2 || (d->types[0] != TY_F32 && d->types[0] != TY_S32 && d->types[0] != TY_U32) ||
        d->types[1] != TY_F32)
        return "tld4: types must be .f32/.s32/.u32 and .f32 coordinates";
    if (d->vec != 4 || d->nd != 4 || !d->has_addr) return "tld4 takes a .v4 destination and [handle, {coordinates}]";
    if (d->ns != coord_count[g]) return "tld4: wrong number of coordinates (offsets and depth compare are not supported)";
    in->aux8 = (uint8_t)g;
    in->bop = (uint8_t)comp;
    in->t = d->types[0];
    in->t2 = d->types[1];
    in->fn = h_tld4;
    return NULL;
}

/* ---- surfaces ---- */

/* Surface coordinates of one lane: byte offset x (.b) or element x (.p), y, z or layer.
 * Returns the texel's address, NULL for .zero out of range, or faults for .trap. */
#define SGEOM(in) ((in)->aux8 & 15)   /* sured keeps its operation in the high bits */

static uint8_t *surf_addr(Warp *w, const Inst *in, const EmuTex *t, int l, unsigned size,
                          int formatted, int *fault)
{
    int g = SGEOM(in), k = 0, layer = 0;
    const EmuTexLevel *lv = &t->lv[0];
    *fault = 0;
    if (g == TEXG_A1D || g == TEXG_A2D) layer = (int32_t)ROW(w, in->s[k++])[l];
    int64_t x = (int32_t)ROW(w, in->s[k++])[l];
    int64_t y = g == TEXG_2D || g == TEXG_A2D || g == TEXG_3D ? (int32_t)ROW(w, in->s[k++])[l] : 0;
    int64_t z = g == TEXG_3D ? (int32_t)ROW(w, in->s[k])[l] : layer;
    if (formatted) x *= t->elem;
    int64_t W = (int64_t)lv->w * t->elem, H = g == TEXG_1D || g == TEXG_A1D ? 1 : lv->h, D = lv->d ? lv->d : 1;
    int out = x < 0 || x + size > W || y < 0 || y >= H || z < 0 || z >= D;
    if (out) {
        if (in->bop == SB_ZERO) return NULL;
        if (in->bop == SB_TRAP) {
            *fault = 1;
            warp_fault(w, l, EMU_ERR_ILLEGAL_ADDRESS, "surface access out of range (x %lld bytes, "
                       "y %lld, z/layer %lld; surface %lld bytes x %lld x %lld)", (long long)x,
                       (long long)y, (long long)z, (long long)W, (long long)H, (long long)D);
            return NULL;
        }
        x = x < 0 ? 0 : x + size > W ? (W - size) / t->elem * t->elem : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        z = z < 0 ? 0 : z >= D ? D - 1 : z;
    }
    return lv->base + (size_t)z * lv->slice + (size_t)y * lv->pitch + (size_t)x;
}

static const EmuTex *surf_lookup(Warp *w, const Inst *in, int l)
{
    const EmuTex *t = lookup(w, in, l, 1);
    if (t && t->geom != SGEOM(in)) {
        warp_fault(w, l, EMU_ERR_ILLEGAL_INSTRUCTION, "surface geometry does not match the instruction");
        return NULL;
    }
    return t;
}

/* Inst.t: element size in bytes; Inst.vec: elements. */
static int h_suld(Warp *w, const Inst *in, uint32_t mask)
{
    unsigned es = in->t, n = in->vec;
    FOR_LANES(mask, l) {
        const EmuTex *t = surf_lookup(w, in, l);
        if (!t) return STEP_FAULT;
        int fault;
        uint8_t *p = surf_addr(w, in, t, l, es * n, 0, &fault);
        if (fault) return STEP_FAULT;
        for (unsigned e = 0; e < n; e++) {
            uint64_t v = 0;
            if (p) memcpy(&v, p + e * es, es);
            ROW(w, in->d[e])[l] = v;
        }
    }
    return STEP_NEXT;
}

/* sust.p: a 32-bit source converted to the channel's format, as the H100 does: integer
 * formats saturate the word as an unsigned or signed integer, f16 converts it as an f32
 * (overflow gives the largest half, NaN payloads are truncated), f32 stores it. */
static void store_formatted(const EmuTex *t, uint8_t *p, int c, uint32_t v)
{
    uint8_t *q = p + c * fmt_size[t->fmt];
    int32_t s = (int32_t)v;
    uint8_t u8; int8_t s8; uint16_t u16; int16_t s16;
    switch (t->fmt) {
    case TEXF_U8: u8 = v > 255 ? 255 : (uint8_t)v; *q = u8; break;
    case TEXF_S8: s8 = (int8_t)(s > 127 ? 127 : s < -128 ? -128 : s); memcpy(q, &s8, 1); break;
    case TEXF_U16: u16 = v > 65535 ? 65535 : (uint16_t)v; memcpy(q, &u16, 2); break;
    case TEXF_S16: s16 = (int16_t)(s > 32767 ? 32767 : s < -32768 ? -32768 : s); memcpy(q, &s16, 2); break;
    case TEXF_F16:
        if (fp_isnan32(v)) u16 = (uint16_t)((v >> 16 & 0x8000) | 0x7c00 | (v >> 13 & 0x3ff));
        else u16 = (uint16_t)fp_from_f64((double)fp_bits_f32(v), FP_F16, RND_RN, 1);
        memcpy(q, &u16, 2);
        break;
    default: memcpy(q, &v, 4); break;
    }
}

static int h_sust(Warp *w, const Inst *in, uint32_t mask)
{
    unsigned es = in->t, n = in->vec, nc = in->cmp;
    int formatted = in->op == OP_sust && in->t2;
    FOR_LANES(mask, l) {
        const EmuTex *t = surf_lookup(w, in, l);
        if (!t) return STEP_FAULT;
        int fault;
        uint8_t *p = surf_addr(w, in, t, l, formatted ? (unsigned)t->elem : es * n, formatted, &fault);
        if (fault) return STEP_FAULT;
        if (!p) continue;
        for (unsigned e = 0; e < n; e++) {
            uint64_t v = ROW(w, in->s[nc + e])[l];
            if (formatted) { if ((int)e < t->nch) store_formatted(t, p, (int)e, (uint32_t)v); }
            else memcpy(p + e * es, &v, es);
        }
    }
    return STEP_NEXT;
}

/* sured.b: an atomic reduction on one 32- or 64-bit element. Inst.t2: the type. */
static int h_sured(Warp *w, const Inst *in, uint32_t mask)
{
    unsigned es = in->t, nc = in->cmp;
    FOR_LANES(mask, l) {
        const EmuTex *t = surf_lookup(w, in, l);
        if (!t) return STEP_FAULT;
        int fault;
        uint8_t *p = surf_addr(w, in, t, l, es, 0, &fault);
        if (fault) return STEP_FAULT;
        if (!p) continue;
        uint64_t v = ROW(w, in->s[nc])[l];
        int sg = in->t2 == TY_S32 || in->t2 == TY_S64;
        if (es == 4) {
            uint32_t *a = (uint32_t *)p, old = __atomic_load_n(a, __ATOMIC_RELAXED), nv;
            do {
                uint32_t b = (uint32_t)v;
                switch (in->aux8 >> 4) {
                case 0: nv = old + b; break;
                case 1: nv = sg ? (uint32_t)((int32_t)old < (int32_t)b ? (int32_t)old : (int32_t)b) : old < b ? old : b; break;
                case 2: nv = sg ? (uint32_t)((int32_t)old > (int32_t)b ? (int32_t)old : (int32_t)b) : old > b ? old : b; break;
                case 3: nv = old & b; break;
                default: nv = old | b; break;
                }
            } while (!__atomic_compare_exchange_n(a, &old, nv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        } else {
            uint64_t *a = (uint64_t *)p, old = __atomic_load_n(a, __ATOMIC_RELAXED), nv;
            do {
                switch (in->aux8 >> 4) {
                case 0: nv = old + v; break;
                case 1: nv = sg ? (uint64_t)((int64_t)old < (int64_t)v ? (int64_t)old : (int64_t)v) : old < v ? old : v; break;
                case 2: nv = sg ? (uint64_t)((int64_t)old > (int64_t)v ? (int64_t)old : (int64_t)v) : old > v ? old : v; break;
                case 3: nv = old & v; break;
                default: nv = old | v; break;
                }
            } while (!__atomic_compare_exchange_n(a, &old, nv, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        }
    }
    return STEP_NEXT;
}

/* Geometry and boundary mode shared by suld, sust and sured. */
static const char *bind_surface_common(Inst *in, const InstDesc *d, int *nc)
{
    int g = geom_of(d);
    if (g < 0 || g == TEXG_CUBE || g == TEXG_ACUBE) return "surface geometry must be .1d, .2d, .3d, .a1d or .a2d";
    if (!d->has_addr) return "surface instructions take [handle, {coordinates}]";
    in->bop = desc_has(d, MOD_CLAMP) ? SB_CLAMP : desc_has(d, MOD_ZERO) ? SB_ZERO : SB_TRAP;
    in->aux8 = (uint8_t)g;
    *nc = coord_count[g];
    in->cmp = (uint8_t)*nc;
    return NULL;
}

static int btype_size(int ty)
{
    switch (ty) {
    case TY_B8: return 1;
    case TY_B16: return 2;
    case TY_B32: return 4;
    case TY_B64: return 8;
    default: return 0;
    }
}

const char *bind_suld(Inst *in, const InstDesc *d)
{
    int nc;
    const char *e = bind_surface_common(in, d, &nc);
    if (e) return e;
    if (!desc_has(d, MOD_B)) return "suld: only suld.b exists";
    int es = d->ntypes == 1 ? btype_size(d->types[0]) : 0;
    if (!es) return "suld: type must be .b8, .b16, .b32 or .b64";
    if (d->nd != d->vec || d->ns != nc) return "suld takes {d...}, [handle, {coordinates}]";
    in->t = (uint8_t)es;
    in->vec = (uint8_t)d->vec;
    in->fn = h_suld;
    return NULL;
}

const char *bind_sust(Inst *in, const InstDesc *d)
{
    int nc;
    const char *e = bind_surface_common(in, d, &nc);
    if (e) return e;
    int p = desc_has(d, MOD_P);
    if (!p && !desc_has(d, MOD_B)) return "sust needs .b or .p";
    int es = d->ntypes == 1 ? btype_size(d->types[0]) : 0;
    if (!es || (p && es != 4)) return p ? "sust.p: type must be .b32" : "sust.b: type must be .b8, .b16, .b32 or .b64";
    if (d->ns != nc + d->vec) return "sust takes [handle, {coordinates}], {values}";
    in->t = (uint8_t)es;
    in->t2 = (uint8_t)p;
    in->vec = (uint8_t)d->vec;
    in->fn = h_sust;
    return NULL;
}

const char *bind_sured(Inst *in, const InstDesc *d)
{
    int nc;
    const char *e = bind_surface_common(in, d, &nc);
    if (e) return e;
    if (!desc_has(d, MOD_B)) return "sured: only sured.b is supported";
    int op = desc_has(d, MOD_ADD) ? 0 : desc_has(d, MOD_MIN) ? 1 : desc_has(d, MOD_MAX) ? 2 :
             desc_has(d, MOD_AND) ? 3 : desc_has(d, MOD_OR) ? 4 : -1;
    if (op < 0) return "sured: operation must be .add, .min, .max, .and or .or";
    int ty = d->ntypes == 1 ? d->types[0] : 0;
    int es = ty == TY_U32 || ty == TY_S32 || ty == TY_B32 ? 4 : ty == TY_U64 || ty == TY_S64 || ty == TY_B64 ? 8 : 0;
    if (!es) return "sured: type must be .u32, .s32, .b32, .u64, .s64 or .b64";
    if (d->ns != nc + 1) return "sured takes [handle, {coordinates}], value";
    in->t = (uint8_t)es;
    in->t2 = (uint8_t)ty;
    in->aux8 = (uint8_t)(in->aux8 | op << 4);
    in->fn = h_sured;
    return NULL;
}
