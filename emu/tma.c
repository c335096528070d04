/* tma.c - tensor maps: the cuTensorMapEncode* checks, as an H100's driver makes them, and the
 * box transfers of cp.async.bulk.tensor / cp.reduce.async.bulk.tensor (tile and im2col).
 *
 * The rules below come from NVIDIA's documentation where it agrees with the hardware and from
 * recordings on an H100 (driver 580.159.04) where it does not: tests/cuda/tma_encode.cu and
 * tests/gpu/tma_probe.cu (data in tests/tma-data/). Box layout in shared memory: elements in
 * dimension order (dim 0 fastest), densely packed, each dimension holding ceil(box/stride)
 * elements (dim 0 of a non-interleaved map ignores its element stride); swizzling XORs bits
 * [4, 4+n) of each shared-memory address with its bits [7, 7+n) (n = 1, 2, 3 for 32/64/128-byte
 * spans), and a swizzled row narrower than the span still occupies the whole span.
 *
 * Interleaved maps (CU_TENSOR_MAP_INTERLEAVE_16B/_32B) follow other rules on the H100 (probe
 * section L, cases 431-493; the earlier cases 112-127 and 270 agree). With IL = 16 or 32 bytes:
 * - dimension 0 counts IL-byte rows, whatever the element type: the row of dim-0 coordinate c
 *   starts c * IL bytes into the tensor's line (not c * element size, not globalStrides), it is
 *   in bounds when 0 <= c < globalDim[0], and the box takes ceil(boxDim[0] / elementStrides[0])
 *   of them, stepping elementStrides[0] rows; any dim-0 start is taken (no 16-byte rule);
 * - dimension rank-2 is not walked: only its start coordinate counts (an out-of-bounds start
 *   zeroes the whole box); the other dimensions are walked as usual, in order;
 * - shared memory receives the rows back to back (dim 0 fastest), IL bytes each, swizzled by
 *   address as usual; out-of-bounds rows read as zero; stores write the in-bounds rows, in order;
 * - complete_tx counts every row written: rows * IL bytes, which is what tma_box_bytes returns.
 *   The engine signals that count in several pieces: an mbarrier that expects any other count
 *   completes or not at random (measured), which ptxemu cannot reproduce; it signals the
 *   H100's total, and exec_async.c warns when that differs from the box's elements.
 * Section M of the probe (cases 494-593) recorded the rest:
 * - reductions take the same rows as stores (in-bounds rows only) and reduce each element of a
 *   row with the ops the type allows when not interleaved (u32, s32, u64, f16, bf16, f32 with
 *   every such op; s64 min, f64 and tf32 add); the others, and any negative coordinate, raise
 *   an illegal-instruction error, as without interleave;
 * - the NaN fill writes 0x7ff7 over every element of an out-of-bounds row (f16, bf16, f32,
 *   f64; also when fill_mode was set by tensormap.replace), also when the unwalked dimension
 *   is out of bounds;
 * - tf32 loads round every 4-byte element of a row as tile loads do (see tf32_round);
 * - a map whose rank tensormap.replace lowered below 3, or a rank-2 map made interleaved by
 *   it, raises an illegal-instruction error (loads and stores); lowered from 4 to 3 it works,
 *   the unwalked dimension then being new rank-2 (dimension 1);
 * - im2col: the driver encodes interleaved im2col maps; stores fault (illegal instruction,
 *   like every im2col_no_offs store recorded). Loads (probe section N, cases 594-631, which
 *   also explain 579-583) walk the non-interleaved im2col pattern one dimension lower:
 *   dimensions 0 .. rank-3 are the spatial ones (W is dimension 0, in IL-byte rows: the row of
 *   coordinate c starts c * IL bytes in, bounded by globalDim[0]; H and D are dimensions 1 and
 *   2 with their strides), corner s (lo/up) and offset s belong to dimension s, each walks its
 *   bounding box [lo, globalDim-1+up] from its coordinate by its element stride (W fastest,
 *   wrapping to lo and stepping the next); dimension rank-2 is not walked (its coordinate
 *   only; out of bounds zeroes every pixel: 611, 613); dimension rank-1 (the image) steps when
 *   every spatial dimension wraps (604, 625). Each pixel moves ONE IL-byte row whatever
 *   channelsPerPixel says (605, 606, 623, 624), so complete_tx counts ppc * IL bytes; rows
 *   land back to back, swizzled by address (630); out-of-bounds pixels read zero or the NaN
 *   fill (631). 579: W bounded by globalDim[0] = 8, not by the 12 of dimension 1.
 */
#include "tma.h"

#include <stdio.h>
#include "fp.h"
#include <string.h>

#define TMA_MAGIC 0x50544d41u  /* "PTMA" */
#define DT_COUNT 13            /* UINT8 .. TFLOAT32_FTZ; the packed sm_100 types are refused */
#define SMEM_MAX (227u * 1024) /* no box may exceed the largest shared allocation */

enum { DT_U8, DT_U16, DT_U32, DT_S32, DT_U64, DT_S64, DT_F16, DT_F32, DT_F64, DT_BF16,
       DT_F32_FTZ, DT_TF32, DT_TF32_FTZ };

/* Our layout inside the 128 opaque bytes. */
typedef struct {
    uint32_t magic;
    uint8_t mode, dtype, rank, elsize;
    uint8_t interleave, swizzle, l2, oob;
    uint8_t es[5];
    uint8_t pad0[3];
    uint64_t addr;
    uint32_t dim_m1[5];        /* dims - 1 (dims are 1 .. 2^32) */
    uint64_t strides[4];       /* bytes, dims 1..rank-1 */
    uint16_t box[5];           /* tile: 1..256 */
    int16_t lo[3], up[3];      /* im2col corners (W, H, D) */
    uint16_t cpp, ppc;
} Map;

_Static_assert(sizeof(Map) <= TMAP_BYTES, "tensor map layout exceeds 128 bytes");

static const uint8_t elsizes[DT_COUNT] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

static int is_float(int dt) { return dt >= DT_F16; }

static uint64_t dim(const Map *m, int i) { return (uint64_t)m->dim_m1[i] + 1; }

/* ---- encoding ----------------------------------------------------------------------------- */

/* Checks shared by both encoders; fills the common fields of m. */
static int encode_common(Map *m, int dtype, uint32_t rank, void *gaddr, const uint64_t *dims,
                         const uint64_t *strides, const uint32_t *es, int il, int sw, int l2,
                         int oob)
{
    if (dtype < 0 || dtype >= DT_COUNT) return TMA_ERROR_INVALID_VALUE;
    if (rank < 1 || rank > 5) return TMA_ERROR_INVALID_VALUE;
    if (il < 0 || il > 2 || sw < 0 || sw > 3 || l2 < 0 || l2 > 3 || oob < 0 || oob > 1)
        return TMA_ERROR_INVALID_VALUE;
    if (il && rank < 3) return TMA_ERROR_INVALID_VALUE;
    if (oob && !is_float(dtype)) return TMA_ERROR_INVALID_VALUE;
    uint64_t align = il == 2 ? 32 : 16;
    if ((uintptr_t)gaddr % align) return TMA_ERROR_INVALID_VALUE;
    for (uint32_t i = 0; i < rank; i++) {
        if (dims[i] == 0 || dims[i] > (1ull << 32)) return TMA_ERROR_INVALID_VALUE;
        if (es[i] == 0 || es[i] > 8) return TMA_ERROR_INVALID_VALUE;
    }
    /* Only the lower rank-1 strides exist; 0 passes (the H100's driver accepts it). */
    for (uint32_t i = 0; i + 1 < rank; i++)
        if (strides[i] % align || strides[i] >= (1ull << 40)) return TMA_ERROR_INVALID_VALUE;
    memset(m, 0, sizeof *m);
    m->magic = TMA_MAGIC;
    m->dtype = (uint8_t)dtype;
    m->rank = (uint8_t)rank;
    m->elsize = elsizes[dtype];
    m->interleave = (uint8_t)il;
    m->swizzle = (uint8_t)sw;
    m->l2 = (uint8_t)l2;
    m->oob = (uint8_t)oob;
    m->addr = (uint64_t)(uintptr_t)gaddr;
    for (uint32_t i = 0; i < rank; i++) {
        m->dim_m1[i] = (uint32_t)(dims[i] - 1);
        m->es[i] = (uint8_t)es[i];
    }
    for (uint32_t i = 0; i + 1 < rank; i++) m->strides[i] = strides[i];
    return TMA_SUCCESS;
}

/* The inner (dim 0) row of a box: a multiple of 16 bytes, within the swizzle span. */
static int check_inner(uint32_t inner_bytes, int il, int sw)
{
    if (inner_bytes % 16) return TMA_ERROR_INVALID_VALUE;
    if (!il && sw && inner_bytes > (16u << sw)) return TMA_ERROR_INVALID_VALUE;
    return TMA_SUCCESS;
}

int tma_encode_tiled(void *tmap, int dtype, uint32_t rank, void *global_address,
                     const uint64_t *global_dim, const uint64_t *global_strides,
                     const uint32_t *box_dim, const uint32_t *element_strides, int interleave,
                     int swizzle, int l2_promotion, int oob_fill)
{
    Map m;
    if (!tmap || !global_dim || !box_dim || !element_strides || (rank > 1 && !global_strides))
        return TMA_ERROR_INVALID_VALUE;
    int r = encode_common(&m, dtype, rank, global_address, global_dim, global_strides,
                          element_strides, interleave, swizzle, l2_promotion, oob_fill);
    if (r) return r;
    uint64_t bytes = m.elsize;
    for (uint32_t i = 0; i < rank; i++) {
        if (box_dim[i] == 0 || box_dim[i] > 256) return TMA_ERROR_INVALID_VALUE;
        m.box[i] = (uint16_t)box_dim[i];
        bytes *= box_dim[i];
    }
    if (check_inner(box_dim[0] * m.elsize, interleave, swizzle)) return TMA_ERROR_INVALID_VALUE;
    if (bytes > SMEM_MAX) return TMA_ERROR_INVALID_VALUE;
    m.mode = TMA_MODE_TILE;
    memcpy(tmap, &m, sizeof m);
    memset((uint8_t *)tmap + sizeof m, 0, TMAP_BYTES - sizeof m);
    return TMA_SUCCESS;
}

int tma_encode_im2col(void *tmap, int dtype, uint32_t rank, void *global_address,
                      const uint64_t *global_dim, const uint64_t *global_strides,
                      const int *pixel_box_lower, const int *pixel_box_upper,
                      uint32_t channels_per_pixel, uint32_t pixels_per_column,
                      const uint32_t *element_strides, int interleave, int swizzle,
                      int l2_promotion, int oob_fill)
{
    /* Corner ranges by rank: 16, 8 and 5 signed bits. */
    static const int lim[6] = {0, 0, 0, 32768, 128, 16};
    Map m;
    if (!tmap || !global_dim || !global_strides || !element_strides || !pixel_box_lower ||
        !pixel_box_upper || rank < 3 || rank > 5)
        return TMA_ERROR_INVALID_VALUE;
    int r = encode_common(&m, dtype, rank, global_address, global_dim, global_strides,
                          element_strides, interleave, swizzle, l2_promotion, oob_fill);
    if (r) return r;
    if (channels_per_pixel == 0 || channels_per_pixel > 256 || pixels_per_column == 0 ||
        pixels_per_column > 1024)
        return TMA_ERROR_INVALID_VALUE;
    if (check_inner(channels_per_pixel * m.elsize, interleave, swizzle))
        return TMA_ERROR_INVALID_VALUE;
    for (uint32_t s = 0; s + 2 < rank; s++) {
        int lo = pixel_box_lower[s], up = pixel_box_upper[s];
        if (lo < -lim[rank] || lo >= lim[rank] || up < -lim[rank] || up >= lim[rank])
            return TMA_ERROR_INVALID_VALUE;
        /* The bounding box [lo, dim-1+up] must hold at least one pixel. */
        if ((int64_t)dim(&m, (int)s + 1) - 1 + up < lo) return TMA_ERROR_INVALID_VALUE;
        m.lo[s] = (int16_t)lo;
        m.up[s] = (int16_t)up;
    }
    if ((uint64_t)channels_per_pixel * pixels_per_column * m.elsize > SMEM_MAX)
        return TMA_ERROR_INVALID_VALUE;
    m.cpp = (uint16_t)channels_per_pixel;
    m.ppc = (uint16_t)pixels_per_column;
    m.mode = TMA_MODE_IM2COL;
    memcpy(tmap, &m, sizeof m);
    memset((uint8_t *)tmap + sizeof m, 0, TMAP_BYTES - sizeof m);
    return TMA_SUCCESS;
}

int tma_replace_address(void *tmap, void *global_address)
{
    Map m;
    if (!tmap) return TMA_ERROR_INVALID_VALUE;
    /* The H100's driver checks 16-byte alignment only, even for 32-byte interleaved maps. */
    if ((uintptr_t)global_address % 16) return TMA_ERROR_INVALID_VALUE;
    /* It also accepts bytes that hold no map; such a map stays invalid here. */
    if (!tma_valid(tmap, NULL, 0)) return TMA_SUCCESS;
    memcpy(&m, tmap, sizeof m);
    m.addr = (uint64_t)(uintptr_t)global_address;
    memcpy(tmap, &m, sizeof m);
    return TMA_SUCCESS;
}

/* PTX's elemtype numbering (tensormap.replace) -> the CUtensorMapDataType one used here. */
static const int8_t ptx_elemtype[16] = {DT_U8, DT_U16, DT_U32, DT_S32, DT_U64, DT_S64, DT_F16,
                                        DT_F32, DT_F32_FTZ, DT_F64, DT_BF16, DT_TF32,
                                        DT_TF32_FTZ, -1, -1, -1};

/* One field; 0, or a reason for a value the field cannot hold. */
static const char *set_field(Map *m, int field, int ord, uint64_t v)
{
    int dims_ord = ord >= 0 && ord < 5, strides_ord = ord >= 0 && ord < 4;
    switch (field) {
    case TMA_F_GLOBAL_ADDRESS:
        if (v % 16) return "global_address is not 16-byte aligned";
        m->addr = v; return NULL;
    case TMA_F_RANK:
        if (v > 4) return "rank (new_val + 1) must be 1 to 5";
        m->rank = (uint8_t)(v + 1); return NULL;
    case TMA_F_BOX_DIM:
        if (!dims_ord || v < 1 || v > 256) return "box_dim must be 1 to 256";
        m->box[ord] = (uint16_t)v; return NULL;
    case TMA_F_GLOBAL_DIM:
        if (!dims_ord || v < 1 || v > 0xffffffffull) return "global_dim must be 1 to 2^32-1";
        m->dim_m1[ord] = (uint32_t)(v - 1); return NULL;
    case TMA_F_GLOBAL_STRIDE:
        if (!strides_ord || v % 16 || v >= (1ull << 40)) return "global_stride must be a multiple of 16 below 2^40";
        m->strides[ord] = v; return NULL;
    case TMA_F_ELEMENT_STRIDE:
        if (!dims_ord || v < 1 || v > 8) return "element_stride must be 1 to 8";
        m->es[ord] = (uint8_t)v; return NULL;
    case TMA_F_ELEMTYPE:
        if (v > 15 || ptx_elemtype[v] < 0) return "elemtype not supported on sm_90";
        m->dtype = (uint8_t)ptx_elemtype[v];
        m->elsize = elsizes[m->dtype]; return NULL;
    case TMA_F_INTERLEAVE:
        if (v > 2) return "interleave_layout must be 0 to 2";
        m->interleave = (uint8_t)v; return NULL;
    case TMA_F_SWIZZLE_MODE:
        if (v > 3) return "swizzle_mode must be 0 to 3 on sm_90";
        m->swizzle = (uint8_t)v; return NULL;
    case TMA_F_SWIZZLE_ATOMICITY:
        return v ? "swizzle_atomicity other than 16 bytes is not supported on sm_90" : NULL;
    case TMA_F_FILL_MODE:
        if (v > 1) return "fill_mode must be 0 or 1";
        m->oob = (uint8_t)v; return NULL;
    }
    return "unknown tensor map field";
}

int tma_replace_field(void *tmap, int field, int ord, uint64_t value, char *err, size_t errlen)
{
    Map m;
    if (!tma_valid(tmap, err, errlen)) return -1;
    memcpy(&m, tmap, sizeof m);
    if (m.mode != TMA_MODE_TILE) {
        snprintf(err, errlen, "tensormap.replace.tile on an im2col tensor map");
        return -1;
    }
    const char *why = set_field(&m, field, ord, value);
    if (why) {
        snprintf(err, errlen, "tensormap.replace: %s (ord %d, new_val %llu)", why, ord,
                 (unsigned long long)value);
        return -1;
    }
    memcpy(tmap, &m, sizeof m);
    return 0;
}

/* ---- queries ------------------------------------------------------------------------------ */

int tma_valid(const void *tmap, char *err, size_t errlen)
{
    Map m;
    memcpy(&m, tmap, sizeof m);
    if (m.magic == TMA_MAGIC && m.dtype < DT_COUNT && m.rank >= 1 && m.rank <= 5 &&
        m.mode <= TMA_MODE_IM2COL)
        return 1;
    if (err && errlen) snprintf(err, errlen, "tensor map was not made by cuTensorMapEncode*");
    return 0;
}

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* Elements per box dimension in shared memory. */
static uint32_t box_count(const Map *m, int i)
{
    if (i == 0 && !m->interleave) return m->box[0];
    return ceil_div(m->box[i], m->es[i]);
}

/* Interleaved maps: the H100 does not walk dimension rank-2 (see the top of this file). */
static int il_walked(const Map *m, int i) { return i != m->rank - 2; }
static uint32_t il_bytes(const Map *m) { return 16u << (m->interleave - 1); }

static uint32_t elem_bytes(const Map *m)
{
    if (m->mode == TMA_MODE_IM2COL) return (uint32_t)m->cpp * m->ppc * m->elsize;
    uint32_t n = m->elsize;
    for (int i = 0; i < m->rank; i++) n *= box_count(m, i);
    return n;
}

uint32_t tma_box_elem_bytes(const void *tmap)
{
    Map m;
    memcpy(&m, tmap, sizeof m);
    return elem_bytes(&m);
}

uint32_t tma_box_bytes(const void *tmap)
{
    Map m;
    memcpy(&m, tmap, sizeof m);
    if (!m.interleave) return elem_bytes(&m);
    uint32_t n = il_bytes(&m);
    if (m.mode == TMA_MODE_IM2COL) return n * m.ppc;   /* one row per pixel, whatever cpp */
    for (int i = 0; i < m.rank; i++)
        if (il_walked(&m, i)) n *= box_count(&m, i);
    return n;
}

/* ---- transfers ---------------------------------------------------------------------------- */

/* Shared-memory byte offset of the box's linear byte offset o, after swizzling. The H100 takes
 * the pattern from the shared address bits (recorded with boxes 128- but not 1024-aligned),
 * so the XOR works on base + o, base being smem's offset in the CTA's shared space. */
static uint32_t swz(uint32_t o, int sw, uint32_t base)
{
    if (!sw) return o;
    uint32_t mask = (1u << sw) - 1, a = base + o;
    return (a ^ (((a >> 7) & mask) << 4)) - base;
}

/* The NaN fill: the H100 writes the 16-bit pattern 0x7ff7 over the element, whatever the
 * float type (f32 reads 0x7ff77ff7; f16, bf16, f64, tf32 and the _FTZ types: recorded). */
static void nan_fill(uint8_t *dst, int el)
{
    for (int i = 0; i < el; i += 2) { dst[i] = 0xf7; dst[i + 1] = 0x7f; }
}

typedef struct {
    const Map *m;
    int dir, redop;
    uint8_t *smem;
    uint32_t base;
    char *err;
    size_t errlen;
    uint64_t glo, ghi;          /* the allocation the last global element lay in */
} Xfer;

int (*tma_global_range)(uint64_t addr, uint64_t *lo, uint64_t *hi);

/* A map may describe more memory than the program allocated: an element outside every live
 * allocation is an illegal address, not a host read or write. */
static int global_ok(Xfer *x, uint64_t g, int el)
{
    if ((g >= x->glo && g + (uint64_t)el <= x->ghi) || !tma_global_range) return 1;
    if (tma_global_range(g, &x->glo, &x->ghi) && g + (uint64_t)el <= x->ghi) return 1;
    snprintf(x->err, x->errlen, "tensor copy: global address 0x%llx is outside every allocation "
             "(the tensor map describes more memory than the program allocated)",
             (unsigned long long)g);
    return 0;
}

static int xfail(Xfer *x, const char *msg)
{
    snprintf(x->err, x->errlen, "%s", msg);
    return -1;
}

#define RED_INT(T)                                                                          \
    static int red_##T(T *d, T s, int op)                                                    \
    {                                                                                        \
        switch (op) {                                                                        \
        case TMA_RED_ADD: *d = (T)(*d + s); return 0;                                        \
        case TMA_RED_MIN: if (s < *d) *d = s; return 0;                                      \
        case TMA_RED_MAX: if (s > *d) *d = s; return 0;                                      \
        case TMA_RED_AND: *d &= s; return 0;                                                 \
        case TMA_RED_OR: *d |= s; return 0;                                                  \
        case TMA_RED_XOR: *d ^= s; return 0;                                                 \
        case TMA_RED_INC: *d = (*d >= s) ? 0 : (T)(*d + 1); return 0;                        \
        case TMA_RED_DEC: *d = (*d == 0 || *d > s) ? s : (T)(*d - 1); return 0;              \
        }                                                                                    \
        return -1;                                                                           \
    }
RED_INT(uint32_t)
RED_INT(int32_t)
RED_INT(uint64_t)
RED_INT(int64_t)

/* f32 reductions define .add only (the H100 refuses min/max); the _FTZ types flush subnormal
 * inputs and results to zero (recorded), and a NaN sum is the canonical 0x7fffffff. */
static uint32_t f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static float bits_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t ftz32(uint32_t b) { return (b & 0x7f800000u) ? b : b & 0x80000000u; }

static uint32_t add_f32(uint32_t a, uint32_t b, int ftz)
{
    if (ftz) { a = ftz32(a); b = ftz32(b); }
    float r = bits_f32(a) + bits_f32(b);
    if (r != r) return 0x7fffffffu;
    return ftz ? ftz32(f32_bits(r)) : f32_bits(r);
}

/* f16/bf16 min/max as an H100 orders them: a NaN operand yields the other, two NaNs give
 * 0x7fff, -0 orders below +0. */
static uint16_t minmax_half(uint16_t a, uint16_t b, int bf, int max)
{
    uint16_t inf = bf ? 0x7f80 : 0x7c00;
    int an = (a & 0x7fff) > inf, bn = (b & 0x7fff) > inf;
    if (an || bn) return an && bn ? 0x7fff : an ? b : a;
    int32_t ka = a & 0x8000 ? -(int32_t)(a & 0x7fff) - 1 : (int32_t)a;
    int32_t kb = b & 0x8000 ? -(int32_t)(b & 0x7fff) - 1 : (int32_t)b;
    return (!max) == (ka < kb) ? a : b;
}

/* The reductions an H100 performs per tensor type (bit per TMA_RED_*; recorded: the others
 * raise an illegal-instruction error). */
static const uint8_t red_ops[DT_COUNT] = {
    [DT_U32] = 0xff, [DT_S32] = 0xe7, [DT_U64] = 0xe7, [DT_S64] = 0x06, [DT_F16] = 0x07,
    [DT_BF16] = 0x07, [DT_F32] = 0x01, [DT_F32_FTZ] = 0x01, [DT_F64] = 0x01, [DT_TF32] = 0x01,
    [DT_TF32_FTZ] = 0x01,
};

static int reduce_supported(int dt, int op) { return op >= 0 && op < 8 && (red_ops[dt] >> op & 1); }

/* Global <- op(global, shared) for one element (the pair was checked by reduce_supported). */
static void reduce_elem(const Xfer *x, uint8_t *g, const uint8_t *s)
{
    int op = x->redop;
    switch (x->m->dtype) {
    case DT_U32: { uint32_t d, v; memcpy(&d, g, 4); memcpy(&v, s, 4); red_uint32_t(&d, v, op); memcpy(g, &d, 4); break; }
    case DT_S32: { int32_t d, v; memcpy(&d, g, 4); memcpy(&v, s, 4); red_int32_t(&d, v, op); memcpy(g, &d, 4); break; }
    case DT_U64: { uint64_t d, v; memcpy(&d, g, 8); memcpy(&v, s, 8); red_uint64_t(&d, v, op); memcpy(g, &d, 8); break; }
    case DT_S64: { int64_t d, v; memcpy(&d, g, 8); memcpy(&v, s, 8); red_int64_t(&d, v, op); memcpy(g, &d, 8); break; }
    case DT_F16: case DT_BF16: {
        uint16_t d, v;
        int bf = x->m->dtype == DT_BF16;
        memcpy(&d, g, 2); memcpy(&v, s, 2);
        if (op == TMA_RED_ADD) d = (uint16_t)(bf ? fp_bf16_add_rn(d, v) : fp_f16_add_rn(d, v));
        else d = minmax_half(d, v, bf, op == TMA_RED_MAX);
        memcpy(g, &d, 2);
        break;
    }
    case DT_F64: { double d, v; memcpy(&d, g, 8); memcpy(&v, s, 8); d += v; memcpy(g, &d, 8); break; }
    default: {   /* f32, tf32 (reduced as f32: recorded) and their _FTZ forms */
        uint32_t d, v;
        memcpy(&d, g, 4); memcpy(&v, s, 4);
        d = add_f32(d, v, x->m->dtype == DT_F32_FTZ || x->m->dtype == DT_TF32_FTZ);
        memcpy(g, &d, 4);
        break;
    }
    }
}

/* tf32 loads round each element to 10 mantissa bits: to nearest (ties not recorded; taken
 * away from zero, as cvt.rna.tf32.f32 does), a NaN becomes 0x7fffe000 (recorded, section M). */
static uint32_t tf32_round(uint32_t v)
{
    if ((v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu)) return 0x7fffe000u;
    return (v + 0x1000u) & ~0x1fffu;
}

/* One element: global address g (NULL when out of bounds), shared byte offset so. */
/* Told of every global byte range a store or reduction writes (PTXEMU_INITCHECK), or NULL. */
void (*tma_store_hook)(uint64_t addr, size_t n);

static int move_elem(Xfer *x, uint64_t g, int inb, uint32_t so)
{
    const Map *m = x->m;
    uint8_t *s = x->smem + so;
    int el = m->elsize;
    if (inb && !global_ok(x, g, el)) return -1;
    if (x->dir == TMA_LOAD) {
        if (inb && (m->dtype == DT_TF32 || m->dtype == DT_TF32_FTZ)) {
            uint32_t v;
            memcpy(&v, (const void *)(uintptr_t)g, 4);
            v = tf32_round(v);
            memcpy(s, &v, 4);
        } else if (inb) memcpy(s, (const void *)(uintptr_t)g, el);
        else if (m->oob) nan_fill(s, el);
        else memset(s, 0, el);
        return 0;
    }
    if (!inb) return 0;  /* stores and reductions skip out-of-bounds elements */
    if (tma_store_hook) tma_store_hook(g, (size_t)el);
    if (x->dir == TMA_STORE) { memcpy((void *)(uintptr_t)g, s, el); return 0; }
    reduce_elem(x, (uint8_t *)(uintptr_t)g, s);
    return 0;
}

/* Global address of an element given its coordinates; *inb = 0 when outside the tensor.
 * Stores and reductions (wr) bound dimension 0 by whole 16-byte granules: the H100 writes the
 * elements past the end that share the last granule with the tensor's last element
 * (recorded); loads fill exactly the elements past the end. */
static uint64_t gaddr(const Map *m, const int64_t *c, int wr, int *inb)
{
    uint64_t a = m->addr;
    *inb = 1;
    for (int i = 0; i < m->rank; i++) {
        uint64_t lim = dim(m, i);
        if (i == 0 && wr) lim = (lim * m->elsize + 15) / 16 * 16 / m->elsize;
        if (c[i] < 0 || (uint64_t)c[i] >= lim) { *inb = 0; return 0; }
        a += i == 0 ? (uint64_t)c[0] * m->elsize : (uint64_t)c[i] * m->strides[i - 1];
    }
    return a;
}

/* Shared-memory bytes between box rows: a swizzled row narrower than the swizzle span still
 * takes the whole span (the H100 leaves the rest untouched: recorded). */
static uint32_t row_pitch(const Map *m, uint32_t row)
{
    uint32_t span = m->swizzle ? 16u << m->swizzle : 0;
    return row < span ? span : row;
}

/* Shared-memory bytes a box covers (tma_box_bytes counts the data only). */
static uint32_t smem_footprint(const Map *m)
{
    if (m->interleave) return tma_box_bytes(m);
    uint32_t row = (m->mode == TMA_MODE_IM2COL ? m->cpp : box_count(m, 0)) * m->elsize;
    return tma_box_bytes(m) / row * row_pitch(m, row);
}

static int tile_box(Xfer *x, const int32_t *coords)
{
    const Map *m = x->m;
    uint32_t cnt[5] = {1, 1, 1, 1, 1}, k[5] = {0};
    uint32_t total = 1;
    for (int i = 0; i < m->rank; i++) { cnt[i] = box_count(m, i); total *= cnt[i]; }
    int es0 = m->interleave ? m->es[0] : 1;
    uint32_t pitch = row_pitch(m, cnt[0] * m->elsize);
    for (uint32_t e = 0; e < total; e++) {
        int64_t c[5];
        for (int i = 0; i < m->rank; i++)
            c[i] = (int64_t)coords[i] + (int64_t)k[i] * (i == 0 ? es0 : m->es[i]);
        int inb;
        uint64_t g = gaddr(m, c, x->dir != TMA_LOAD, &inb);
        uint32_t o = e / cnt[0] * pitch + e % cnt[0] * m->elsize;
        if (move_elem(x, g, inb, swz(o, m->swizzle, x->base))) return -1;
        for (int i = 0; i < m->rank && ++k[i] == cnt[i]; i++) k[i] = 0;
    }
    return 0;
}

/* Row r of an interleaved box (IL bytes at global address g; inb = 0 when out of bounds). */
static int il_row(Xfer *x, uint64_t g, int inb, uint32_t r)
{
    const Map *m = x->m;
    uint32_t il = il_bytes(m);
    if (inb && !global_ok(x, g, (int)il)) return -1;
    for (uint32_t j = 0; j < il; j += 16) {
        uint8_t *s = x->smem + swz(r * il + j, m->swizzle, x->base);
        uint8_t *gp = (uint8_t *)(uintptr_t)(g + j);
        if (x->dir == TMA_LOAD) {
            if (!inb) {
                if (m->oob) for (int e = 0; e < 16; e += m->elsize) nan_fill(s + e, m->elsize);
                else memset(s, 0, 16);
            } else if (m->dtype == DT_TF32 || m->dtype == DT_TF32_FTZ) {
                for (int e = 0; e < 16; e += 4) {
                    uint32_t v;
                    memcpy(&v, gp + e, 4);
                    v = tf32_round(v);
                    memcpy(s + e, &v, 4);
                }
            } else memcpy(s, gp, 16);
        } else if (inb) {
            if (tma_store_hook) tma_store_hook((uint64_t)(uintptr_t)gp, 16);
            if (x->dir == TMA_STORE) memcpy(gp, s, 16);
            else for (int e = 0; e < 16; e += m->elsize) reduce_elem(x, gp + e, s + e);
        }
    }
    return 0;
}

/* An interleaved box: IL-byte rows (see the top of this file). */
/* Global address of an interleaved row (dimension 0 counts IL-byte rows); *inb = 0 when any
 * coordinate is outside the tensor. */
static uint64_t il_addr(const Map *m, const int64_t *c, int *inb)
{
    uint64_t g = m->addr;
    *inb = 1;
    for (int i = 0; i < m->rank; i++) {
        if (c[i] < 0 || (uint64_t)c[i] >= dim(m, i)) *inb = 0;
        g += (uint64_t)c[i] * (i == 0 ? il_bytes(m) : m->strides[i - 1]);
    }
    return g;
}

static int il_box(Xfer *x, const int32_t *coords)
{
    const Map *m = x->m;
    uint32_t cnt[5] = {1, 1, 1, 1, 1}, k[5] = {0}, rows = 1;
    for (int i = 0; i < m->rank; i++)
        if (il_walked(m, i)) { cnt[i] = box_count(m, i); rows *= cnt[i]; }
    for (uint32_t r = 0; r < rows; r++) {
        int64_t c[5];
        int inb;
        for (int i = 0; i < m->rank; i++) c[i] = (int64_t)coords[i] + (int64_t)k[i] * m->es[i];
        uint64_t g = il_addr(m, c, &inb);
        if (il_row(x, g, inb, r)) return -1;
        for (int i = 0; i < m->rank && (!il_walked(m, i) || ++k[i] == cnt[i]); i++) k[i] = 0;
    }
    return 0;
}

/* The im2col pixel walk: the rank-2 spatial dimensions, from dimension d0 on (1; 0 for an
 * interleaved map), each walk the bounding box [lo, dim-1+up] by their element stride from
 * the pixel the coordinates name, W fastest; when all wrap, the image (dimension rank-1)
 * steps. p[s] is spatial dimension s's position, p[ns] the image's. */
typedef struct PixelWalk { const Map *m; int ns, d0; int64_t p[4], hi[3]; } PixelWalk;

static void walk_start(PixelWalk *pw, const Map *m, int d0, const int32_t *coords)
{
    pw->m = m; pw->ns = m->rank - 2; pw->d0 = d0;
    for (int s = 0; s < pw->ns; s++) {
        pw->p[s] = coords[s + d0];
        pw->hi[s] = (int64_t)dim(m, s + d0) - 1 + m->up[s];
    }
    pw->p[pw->ns] = coords[m->rank - 1];
}

static void walk_step(PixelWalk *pw)
{
    const Map *m = pw->m;
    int s = 0;
    for (; s < pw->ns; s++) {
        pw->p[s] += m->es[s + pw->d0];
        if (pw->p[s] <= pw->hi[s]) return;
        pw->p[s] = m->lo[s];
    }
    pw->p[pw->ns] += m->es[m->rank - 1];
}

/* im2col: ppc pixels of the walk, each loading cpp channels of the pixel displaced by the
 * im2col offsets. */
static int im2col_box(Xfer *x, const int32_t *coords, const uint16_t *offsets)
{
    const Map *m = x->m;
    int ns = m->rank - 2, nd = m->rank - 1;
    PixelWalk pw;
    walk_start(&pw, m, 1, coords);
    uint32_t row = row_pitch(m, m->cpp * m->elsize);
    for (uint32_t px = 0; px < m->ppc; px++, walk_step(&pw)) {
        int64_t c[5];
        for (int s = 0; s < ns; s++) c[s + 1] = pw.p[s] + (int16_t)offsets[s];
        c[nd] = pw.p[ns];
        for (uint32_t ch = 0; ch < m->cpp; ch++) {
            c[0] = (int64_t)coords[0] + ch;
            int inb;
            uint64_t g = gaddr(m, c, x->dir != TMA_LOAD, &inb);
            if (move_elem(x, g, inb, swz(px * row + ch * m->elsize, m->swizzle, x->base))) return -1;
        }
    }
    return 0;
}

/* An interleaved im2col load (probe section N, see the top of this file): the im2col walk one
 * dimension lower. Dimensions 0 .. rank-3 are the spatial ones (W is dimension 0, counted in
 * IL-byte rows), each walking [lo, dim-1+up] by its element stride from its coordinate and
 * displaced by its offset; dimension rank-2 is not walked; rank-1 is the image. Each pixel
 * moves one IL-byte row, whatever channelsPerPixel says. */
static int il_im2col_box(Xfer *x, const int32_t *coords, const uint16_t *offsets)
{
    const Map *m = x->m;
    int ns = m->rank - 2, nd = m->rank - 1;
    PixelWalk pw;
    walk_start(&pw, m, 0, coords);
    for (uint32_t px = 0; px < m->ppc; px++, walk_step(&pw)) {
        int64_t c[5];
        int inb;
        for (int s = 0; s < ns; s++) c[s] = pw.p[s] + (int16_t)offsets[s];
        c[ns] = coords[ns];
        c[nd] = pw.p[ns];
        uint64_t g = il_addr(m, c, &inb);
        if (il_row(x, g, inb, px)) return -1;
    }
    return 0;
}

int tma_transfer(const void *tmap, int dir, int mode, const int32_t *coords, int ndims,
                 const uint16_t *offsets, uint8_t *smem, uint32_t smem_offset,
                 uint32_t smem_avail, int redop, char *err, size_t errlen)
{
    Map m;
    Xfer x = {&m, dir, redop, smem, smem_offset, err, errlen, 0, 0};
    if (!tma_valid(tmap, err, errlen)) return -1;
    memcpy(&m, tmap, sizeof m);
    /* tensormap.replace can leave dimensions a transfer cannot use (a raised rank). */
    for (int i = 0; i < m.rank; i++)
        if (m.es[i] < 1 || m.es[i] > 8 || (mode == TMA_MODE_TILE && (m.box[i] < 1 || m.box[i] > 256)))
            return xfail(&x, "tensor map with an empty box or element stride");
    if (mode != m.mode)
        return xfail(&x, mode == TMA_MODE_IM2COL ? "im2col copy with a tiled tensor map"
                                                 : "tile copy with an im2col tensor map");
    if (ndims != m.rank) return xfail(&x, "tensor copy dimension differs from the tensor map's rank");
    if (dir != TMA_LOAD && dir != TMA_STORE && dir != TMA_REDUCE)
        return xfail(&x, "bad tensor copy direction");
    if (dir == TMA_LOAD && mode == TMA_MODE_IM2COL && m.rank > 2 && !offsets)
        return xfail(&x, "im2col load without offsets");
    /* The H100 raises an illegal-instruction error unless dim 0 starts on 16 bytes (an
     * interleaved map's dim 0 counts 16/32-byte rows: any start is taken). */
    if (!m.interleave && ((int64_t)coords[0] * m.elsize) % 16)
        return xfail(&x, "tensor copy: dim-0 coordinate is not a multiple of 16 bytes");
    if (smem_footprint(&m) > smem_avail)
        return xfail(&x, "tensor copy: box extends past the end of shared memory");
    /* The H100 raises an illegal-instruction error for an interleaved map whose rank
     * tensormap.replace lowered below 3, or a rank-2 map it made interleaved (section M). */
    if (m.interleave && m.rank < 3)
        return xfail(&x, "tensor copy with an interleaved tensor map of rank below 3");
    /* The H100 faults (illegal instruction) on a store whose box starts before the tensor. */
    if (dir != TMA_LOAD)
        for (int i = 0; i < m.rank; i++)
            if (coords[i] < 0)
                return xfail(&x, "tensor store/reduction with a negative coordinate");
    if (dir != TMA_LOAD && mode == TMA_MODE_IM2COL)
        return xfail(&x, "im2col tensor stores are not supported by ptxemu");
    if (dir == TMA_REDUCE && !reduce_supported(m.dtype, redop))
        return xfail(&x, "cp.reduce.async.bulk.tensor: the H100 has no such reduction for the "
                         "tensor map's element type");
    if (m.interleave)
        return mode == TMA_MODE_TILE ? il_box(&x, coords) : il_im2col_box(&x, coords, offsets);
    return mode == TMA_MODE_TILE ? tile_box(&x, coords) : im2col_box(&x, coords, offsets);
}
