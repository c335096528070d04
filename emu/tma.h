/* tma.h - tensor maps (CUtensorMap) and the tensor-copy transfers of cp.async.bulk.tensor.
 *
 * Contract: a tensor map is the 128-byte, 64-byte-aligned opaque object that
 * cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col fill; ptxemu uses its own layout inside
 * those bytes (with a magic number, so a map that was never encoded is recognised). The
 * encoders validate their arguments exactly as NVIDIA's driver does and return CUresult
 * values. The transfer functions move one box between global memory (device address ==
 * host address) and a shared-memory buffer, applying the map's swizzle, element strides,
 * im2col walk and out-of-bounds fill; the async engine calls them when it completes a
 * tensor copy, never at issue time.
 */
#ifndef PTXEMU_TMA_H
#define PTXEMU_TMA_H

#include <stddef.h>
#include <stdint.h>

#define TMAP_BYTES 128

/* CUresult values used here (same numbers as CUDA's driver API). */
enum { TMA_SUCCESS = 0, TMA_ERROR_INVALID_VALUE = 1 };

/* The encoders, with cuTensorMapEncodeTiled's / cuTensorMapEncodeIm2col's parameters
 * (enums passed as int). They return CUresult values. */
int tma_encode_tiled(void *tmap, int dtype, uint32_t rank, void *global_address,
                     const uint64_t *global_dim, const uint64_t *global_strides,
                     const uint32_t *box_dim, const uint32_t *element_strides, int interleave,
                     int swizzle, int l2_promotion, int oob_fill);
int tma_encode_im2col(void *tmap, int dtype, uint32_t rank, void *global_address,
                      const uint64_t *global_dim, const uint64_t *global_strides,
                      const int *pixel_box_lower, const int *pixel_box_upper,
                      uint32_t channels_per_pixel, uint32_t pixels_per_column,
                      const uint32_t *element_strides, int interleave, int swizzle,
                      int l2_promotion, int oob_fill);

/* cuTensorMapReplaceAddress: a new global address (16-byte aligned) for an encoded map. */
int tma_replace_address(void *tmap, void *global_address);

/* tensormap.replace: the fields, and the setter. value is new_val as PTX defines it (rank
 * minus one for TMA_F_RANK; elemtype/interleave/swizzle/fill in PTX's numbering), ord the
 * dimension of a per-dimension field (global_stride ord k: the stride of dimension k+1).
 * Returns 0, or -1 with a one-line reason in err for values the hardware cannot hold. */
enum { TMA_F_GLOBAL_ADDRESS = 0, TMA_F_RANK, TMA_F_BOX_DIM, TMA_F_GLOBAL_DIM, TMA_F_GLOBAL_STRIDE,
       TMA_F_ELEMENT_STRIDE, TMA_F_ELEMTYPE, TMA_F_INTERLEAVE, TMA_F_SWIZZLE_MODE,
       TMA_F_SWIZZLE_ATOMICITY, TMA_F_FILL_MODE };
int tma_replace_field(void *tmap, int field, int ord, uint64_t value, char *err, size_t errlen);

/* Is this a map ptxemu encoded? Returns 0 and fills err otherwise. */
int tma_valid(const void *tmap, char *err, size_t errlen);

/* Bytes one box transfers (what complete_tx counts and the shared memory it covers). */
uint32_t tma_box_bytes(const void *tmap);
/* The box's elements times the element size: tma_box_bytes, except for interleaved maps,
 * where the H100 moves and counts 16/32-byte rows (tma.c says how). */
uint32_t tma_box_elem_bytes(const void *tmap);

enum { TMA_LOAD = 0, TMA_STORE = 1, TMA_REDUCE = 2 };
enum { TMA_MODE_TILE = 0, TMA_MODE_IM2COL = 1 };
/* Reductions of cp.reduce.async.bulk.tensor (the same numbers as the async engine's ARED_*). */
enum { TMA_RED_ADD = 0, TMA_RED_MIN, TMA_RED_MAX, TMA_RED_INC, TMA_RED_DEC, TMA_RED_AND,
       TMA_RED_OR, TMA_RED_XOR };

/* Move one box. coords: ndims signed coordinates (tile) or, for im2col, the tensor
 * coordinates plus `offsets` (im2col offsets, ndims-2 of them). smem: the shared-memory
 * destination/source, smem_avail bytes available from there (the caller has checked its
 * 128-byte alignment, which the H100 requires); smem_offset: smem's offset in its CTA's
 * shared space, since the swizzle pattern follows the shared address bits (recorded).
 * redop: for TMA_REDUCE, a TMA_RED_*.
 * Refused (as the H100 refuses them, or as ptxemu cannot reproduce them): a dim-0 coordinate
 * that is not a multiple of 16 bytes (non-interleaved maps), a box past smem_avail, interleaved
 * reductions, im2col copies, NaN fill or tf32 types, stores with a negative coordinate, im2col stores, reductions the H100 does not perform for the
 * map's type (it raises an illegal-instruction error). Returns 0, or -1 with a one-line
 * reason in err (the caller faults). */
int tma_transfer(const void *tmap, int dir, int mode, const int32_t *coords, int ndims,
                 const uint16_t *offsets, uint8_t *smem, uint32_t smem_offset,
                 uint32_t smem_avail, int redop, char *err, size_t errlen);

/* Set by the engine: the live allocation holding addr ([*lo, *hi)), 0 when none. Without
 * it (unit tests) global addresses are taken as they are. */
extern int (*tma_global_range)(uint64_t addr, uint64_t *lo, uint64_t *hi);
/* Called with every global range a tensor store or reduction writes, when set. */
extern void (*tma_store_hook)(uint64_t addr, size_t n);

#endif
