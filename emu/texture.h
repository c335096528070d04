/* texture.h - texture and surface objects as the emulator sees them, and their handle table.
 *
 * Contract: the driver describes a texture or surface (its texels in device memory, their
 * format, and for textures the sampler state) in an EmuTex and registers it; the 64-bit
 * handle it gets back is what kernels receive as a cudaTextureObject_t/cudaSurfaceObject_t
 * and what tex/tld4/txq/suld/sust/sured/suq instructions (exec_tex.c) look up. Lookup is
 * lock-free; an unknown or destroyed handle looks up as NULL, which the instruction reports
 * as a fault. The driver must not free the texels while a kernel may still use the object.
 */
#ifndef PTXEMU_TEXTURE_H
#define PTXEMU_TEXTURE_H
#include <stdint.h>
#include <stddef.h>

/* Channel formats (numbered as CUarray_format's element kinds, not its values). */
enum { TEXF_U8, TEXF_U16, TEXF_U32, TEXF_S8, TEXF_S16, TEXF_S32, TEXF_F16, TEXF_F32 };
/* Address modes, filter modes (numbered as CUaddress_mode / CUfilter_mode). */
enum { TEXA_WRAP = 0, TEXA_CLAMP = 1, TEXA_MIRROR = 2, TEXA_BORDER = 3 };
enum { TEXM_POINT = 0, TEXM_LINEAR = 1 };
/* Geometry of the resource. */
enum { TEXG_1D, TEXG_2D, TEXG_3D, TEXG_A1D, TEXG_A2D, TEXG_CUBE, TEXG_ACUBE, TEXG_LINEAR };

#define TEX_MAX_LEVELS 16

typedef struct EmuTexLevel {
    uint8_t *base;               /* texel (0,0,0) of this level                            */
    uint32_t w, h, d;            /* d: depth of a 3D level, else the number of layers/faces */
    size_t pitch, slice;         /* bytes between rows and between slices/layers            */
} EmuTexLevel;

typedef struct EmuTex {
    int surface;                 /* a surface object (suld/sust), else a texture            */
    int geom;                    /* TEXG_*                                                  */
    int fmt, nch, elem;          /* channel format, channels (1..4), bytes per texel        */
    int nlevels;
    EmuTexLevel lv[TEX_MAX_LEVELS];
    /* sampler state (textures) */
    int addr[3], filter, mip_filter, norm, read_norm, srgb;
    float border[4], lod_bias, min_lod, max_lod;
    /* what txq reports */
    int q_dtype, q_order;
} EmuTex;

/* Register a copy of t; returns its handle (never 0), or 0 when the table is full. */
uint64_t emu_tex_register(const EmuTex *t);
/* Forget a handle: 0 ok, -1 not a live handle of that kind. */
int emu_tex_unregister(uint64_t h, int surface);
/* The object behind a handle, NULL when none is live. */
const EmuTex *emu_tex_lookup(uint64_t h);

#endif
