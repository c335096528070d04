/* texture.c - CUDA arrays, mipmapped arrays, copies into and out of them, and texture and
 * surface objects (cuArray*, cuMipmappedArray*, cuMemcpy[HDA]to[HDA]*, cuTexObject*,
 * cuSurfObject*).
 *
 * An array's texels lie in one arena allocation, row after row, slice (or layer, or cube
 * face) after slice, with no padding: 2D/3D copies reach them through drv_array_side and
 * memory.c's copy loop. A texture or surface object is an EmuTex registered with the
 * emulator (emu/texture.h); its handle is the CUtexObject/CUsurfObject, and the descriptors
 * it was made from are kept here so that the Get*Desc calls return them.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"
#include "emu/memory.h"
#include "emu/texture.h"

struct CUarray_st {
    CUDA_ARRAY3D_DESCRIPTOR desc;
    uint64_t mem;
    size_t elem, pitch, slice, bytes;
    CUmipmappedArray owner;          /* a level of this mipmapped array: destroyed with it */
};

struct CUmipmappedArray_st {
    CUDA_ARRAY3D_DESCRIPTOR desc;
    unsigned nlevels;
    CUarray lv[TEX_MAX_LEVELS];
};

/* ---- formats ---- */

/* Bytes per channel and the emulator's format, or 0 for formats ptxemu does not sample. */
static int format_info(CUarray_format f, int *texf)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: *texf = TEXF_U8; return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: *texf = TEXF_U16; return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: *texf = TEXF_U32; return 4;
    case CU_AD_FORMAT_SIGNED_INT8: *texf = TEXF_S8; return 1;
    case CU_AD_FORMAT_SIGNED_INT16: *texf = TEXF_S16; return 2;
    case CU_AD_FORMAT_SIGNED_INT32: *texf = TEXF_S32; return 4;
    case CU_AD_FORMAT_HALF: *texf = TEXF_F16; return 2;
    case CU_AD_FORMAT_FLOAT: *texf = TEXF_F32; return 4;
    default: return 0;
    }
}

static int channels_ok(unsigned n) { return n == 1 || n == 2 || n == 4; }

/* ---- arrays ---- */

static CUresult array_new(const CUDA_ARRAY3D_DESCRIPTOR *d, CUmipmappedArray owner, CUarray *out)
{
    int texf;
    int cs = format_info(d->Format, &texf);
    if (!cs) {
        drv_diag("ptxemu: CUDA array format 0x%x is not supported", (unsigned)d->Format);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (!channels_ok(d->NumChannels) || !d->Width) return CUDA_ERROR_INVALID_VALUE;
    unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP |
                     CUDA_ARRAY3D_TEXTURE_GATHER;
    if (d->Flags & ~known) {
        drv_diag("ptxemu: CUDA array flags 0x%x are not supported", d->Flags & ~known);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if ((d->Flags & CUDA_ARRAY3D_CUBEMAP) &&
        (d->Width != d->Height || !d->Depth || d->Depth % 6 ||
         (!(d->Flags & CUDA_ARRAY3D_LAYERED) && d->Depth != 6)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((d->Flags & CUDA_ARRAY3D_LAYERED) && !d->Depth) return CUDA_ERROR_INVALID_VALUE;
    if (!d->Height && d->Depth && !(d->Flags & CUDA_ARRAY3D_LAYERED)) return CUDA_ERROR_INVALID_VALUE;
    CUarray a = calloc(1, sizeof *a);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    a->desc = *d;
    a->owner = owner;
    a->elem = (size_t)cs * d->NumChannels;
    a->pitch = a->elem * d->Width;
    a->slice = a->pitch * (d->Height ? d->Height : 1);
    a->bytes = a->slice * (d->Depth ? d->Depth : 1);
    a->mem = mem_alloc(a->bytes, MEM_DEVICE);
    if (!a->mem || drv_handle_add(a, H_ARRAY)) {
        if (a->mem) mem_free(a->mem, MEM_DEVICE);
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memset((void *)(uintptr_t)a->mem, 0, a->bytes);   /* fresh arrays read 0 on the H100 */
    *out = a;
    return CUDA_SUCCESS;
}

static void array_free(CUarray a)
{
    drv_handle_del(a);
    mem_free(a->mem, MEM_DEVICE);
    free(a);
}

/* Run `expr` under the lock in the current context. */
#define IN_CTX(expr)                                                      \
    do {                                                                  \
        CUcontext ctx_;                                                   \
        CUresult e_ = drv_ctx_enter(&ctx_);                               \
        if (e_ != CUDA_SUCCESS) return e_;                                \
        drv_lock();                                                       \
        e_ = (expr);                                                      \
        drv_unlock();                                                     \
        return e_;                                                        \
    } while (0)

static CUresult create3d(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (!out || !d) return CUDA_ERROR_INVALID_VALUE;
    return array_new(d, NULL, out);
}

CUresult CUDAAPI cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    IN_CTX(create3d(pHandle, pAllocateArray));
}

CUresult CUDAAPI cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    if (!pAllocateArray) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = { pAllocateArray->Width, pAllocateArray->Height, 0,
                                  pAllocateArray->Format, pAllocateArray->NumChannels, 0 };
    IN_CTX(create3d(pHandle, &d));
}

/* A live array the program may name (levels of mipmapped arrays included). */
static CUarray array_of(CUarray a) { return drv_handle_kind(a) == H_ARRAY ? a : NULL; }

static CUresult get3d(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a)
{
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (!array_of(a)) return CUDA_ERROR_INVALID_HANDLE;
    *d = a->desc;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    IN_CTX(get3d(pArrayDescriptor, hArray));
}

static CUresult get2d(CUDA_ARRAY_DESCRIPTOR *d, CUarray a)
{
    CUDA_ARRAY3D_DESCRIPTOR d3;
    CUresult e = get3d(&d3, a);
    if (e == CUDA_SUCCESS && !d) e = CUDA_ERROR_INVALID_VALUE;
    if (e != CUDA_SUCCESS) return e;
    *d = (CUDA_ARRAY_DESCRIPTOR){ d3.Width, d3.Height, d3.Format, d3.NumChannels };
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    IN_CTX(get2d(pArrayDescriptor, hArray));
}

static CUresult destroy(CUarray a)
{
    if (!array_of(a) || a->owner) return CUDA_ERROR_INVALID_HANDLE;
    array_free(a);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuArrayDestroy(CUarray hArray) { IN_CTX(destroy(hArray)); }

/* ---- mipmapped arrays ---- */

static CUresult mip_create(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n)
{
    if (!out || !d || !n) return CUDA_ERROR_INVALID_VALUE;
    size_t big = d->Width > d->Height ? d->Width : d->Height;
    if (!(d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) && d->Depth > big) big = d->Depth;
    unsigned most = 1;
    while (big >> most) most++;
    if (n > most || n > TEX_MAX_LEVELS) return CUDA_ERROR_INVALID_VALUE;
    CUmipmappedArray m = calloc(1, sizeof *m);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    m->desc = *d;
    for (unsigned l = 0; l < n; l++) {
        CUDA_ARRAY3D_DESCRIPTOR ld = *d;
        int layers = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
        ld.Width = d->Width >> l ? d->Width >> l : 1;
        ld.Height = d->Height ? (d->Height >> l ? d->Height >> l : 1) : 0;
        ld.Depth = d->Depth && !layers ? (d->Depth >> l ? d->Depth >> l : 1) : d->Depth;
        CUresult e = array_new(&ld, m, &m->lv[l]);
        if (e != CUDA_SUCCESS) {
            for (unsigned k = 0; k < l; k++) array_free(m->lv[k]);
            free(m);
            return e;
        }
        m->nlevels = l + 1;
    }
    if (drv_handle_add(m, H_MIPMAP)) {
        for (unsigned k = 0; k < n; k++) array_free(m->lv[k]);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = m;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                        const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                        unsigned int numMipmapLevels)
{
    IN_CTX(mip_create(pHandle, pMipmappedArrayDesc, numMipmapLevels));
}

static CUresult mip_level(CUarray *out, CUmipmappedArray m, unsigned l)
{
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    if (drv_handle_kind(m) != H_MIPMAP) return CUDA_ERROR_INVALID_HANDLE;
    if (l >= m->nlevels) return CUDA_ERROR_INVALID_VALUE;
    *out = m->lv[l];
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray,
                                          unsigned int level)
{
    IN_CTX(mip_level(pLevelArray, hMipmappedArray, level));
}

static CUresult mip_destroy(CUmipmappedArray m)
{
    if (drv_handle_kind(m) != H_MIPMAP) return CUDA_ERROR_INVALID_HANDLE;
    for (unsigned l = 0; l < m->nlevels; l++) array_free(m->lv[l]);
    drv_handle_del(m);
    free(m);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    IN_CTX(mip_destroy(hMipmappedArray));
}

/* ---- copies ---- */

CUresult drv_array_side(CUarray a, size_t x, size_t y, size_t z, uint64_t *base, size_t *pitch,
                        size_t *height, size_t room[3])
{
    if (!array_of(a)) return CUDA_ERROR_INVALID_VALUE;
    size_t h = a->desc.Height ? a->desc.Height : 1, d = a->desc.Depth ? a->desc.Depth : 1;
    if (x > a->pitch || y > h || z > d) return CUDA_ERROR_INVALID_VALUE;
    *base = a->mem + x + y * a->pitch + z * a->slice;
    *pitch = a->pitch;
    *height = h;
    room[0] = a->pitch - x;
    room[1] = h - y;
    room[2] = d - z;
    return CUDA_SUCCESS;
}

/* The 1D copies address an array's bytes as one line (as they do for 1D arrays). */
static CUresult linear_copy(CUarray da, size_t doff, uint64_t dst, CUarray sa, size_t soff,
                            uint64_t src, size_t n)
{
    if ((da && !array_of(da)) || (sa && !array_of(sa))) return CUDA_ERROR_INVALID_VALUE;
    if (da) { if (doff > da->bytes || n > da->bytes - doff) return CUDA_ERROR_INVALID_VALUE; dst = da->mem + doff; }
    if (sa) { if (soff > sa->bytes || n > sa->bytes - soff) return CUDA_ERROR_INVALID_VALUE; src = sa->mem + soff; }
    if (!n) return CUDA_SUCCESS;
    if ((!da && mem_in_arena(dst) && !drv_mem_ok(dst, n)) || (!sa && mem_in_arena(src) && !drv_mem_ok(src, n)) ||
        !dst || !src)
        return CUDA_ERROR_INVALID_VALUE;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

static CUresult linear_sync(CUarray da, size_t doff, uint64_t dst, CUarray sa, size_t soff,
                            uint64_t src, size_t n)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    drv_order_host_waits(NULL);
    e = linear_copy(da, doff, dst, sa, soff, src, n);
    drv_unlock();
    return e;
}

static CUresult linear_async(CUarray da, size_t doff, uint64_t dst, CUarray sa, size_t soff,
                             uint64_t src, size_t n, CUstream s)
{
    CUcontext c;
    CUresult e = drv_ctx_enter(&c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    e = drv_stream_check_copy(s);
    if (e == CUDA_SUCCESS) e = linear_copy(da, doff, dst, sa, soff, src, n);
    drv_unlock();
    return e;
}

#define U(p) ((uint64_t)(uintptr_t)(p))

CUresult CUDAAPI cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{
    return linear_sync(dstArray, dstOffset, 0, NULL, 0, U(srcHost), ByteCount);
}
CUresult CUDAAPI cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    return linear_sync(NULL, 0, U(dstHost), srcArray, srcOffset, 0, ByteCount);
}
CUresult CUDAAPI cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{
    if (!drv_mem_ok(srcDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
    return linear_sync(dstArray, dstOffset, 0, NULL, 0, srcDevice, ByteCount);
}
CUresult CUDAAPI cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    if (!drv_mem_ok(dstDevice, ByteCount)) return CUDA_ERROR_INVALID_VALUE;
    return linear_sync(NULL, 0, dstDevice, srcArray, srcOffset, 0, ByteCount);
}
CUresult CUDAAPI cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                                 size_t ByteCount)
{
    return linear_sync(dstArray, dstOffset, 0, srcArray, srcOffset, 0, ByteCount);
}
CUresult CUDAAPI cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                      size_t ByteCount, CUstream hStream)
{
    return linear_async(dstArray, dstOffset, 0, NULL, 0, U(srcHost), ByteCount, hStream);
}
CUresult CUDAAPI cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset,
                                      size_t ByteCount, CUstream hStream)
{
    return linear_async(NULL, 0, U(dstHost), srcArray, srcOffset, 0, ByteCount, hStream);
}

/* Per-thread default stream twins (ptds.c explains them). */
#define PTDS(name, params, args) \
    CUresult CUDAAPI name##_ptds params; \
    CUresult CUDAAPI name##_ptds params { return name args; }
PTDS(cuMemcpyHtoA_v2, (CUarray a, size_t o, const void *h, size_t n), (a, o, h, n))
PTDS(cuMemcpyAtoH_v2, (void *h, CUarray a, size_t o, size_t n), (h, a, o, n))
PTDS(cuMemcpyDtoA_v2, (CUarray a, size_t o, CUdeviceptr d, size_t n), (a, o, d, n))
PTDS(cuMemcpyAtoD_v2, (CUdeviceptr d, CUarray a, size_t o, size_t n), (d, a, o, n))
PTDS(cuMemcpyAtoA_v2, (CUarray a, size_t o, CUarray b, size_t p, size_t n), (a, o, b, p, n))
CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray a, size_t o, const void *h, size_t n, CUstream s);
CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray a, size_t o, const void *h, size_t n, CUstream s)
{
    return cuMemcpyHtoAAsync_v2(a, o, h, n, drv_ptsz(s));
}
CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *h, CUarray a, size_t o, size_t n, CUstream s);
CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *h, CUarray a, size_t o, size_t n, CUstream s)
{
    return cuMemcpyAtoHAsync_v2(h, a, o, n, drv_ptsz(s));
}

/* ---- texture and surface objects ---- */

/* What the Get*Desc calls return, by handle. */
typedef struct ObjInfo {
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUDA_RESOURCE_VIEW_DESC view;
    int has_view;
} ObjInfo;
#define MAX_OBJ 65536u
static ObjInfo *objs[MAX_OBJ + 1];

/* OpenCL's channel data type and order codes, which txq reports. */
static int q_dtype(int texf, int norm)
{
    static const int norm_codes[] = { 0x10D2, 0x10D3, 0x10DC, 0x10D0, 0x10D1, 0x10D9, 0x10DD, 0x10DE };
    static const int int_codes[] = { 0x10DA, 0x10DB, 0x10DC, 0x10D7, 0x10D8, 0x10D9, 0x10DD, 0x10DE };
    return norm ? norm_codes[texf] : int_codes[texf];
}

static void level_of_array(CUarray a, EmuTexLevel *lv)
{
    lv->base = (uint8_t *)(uintptr_t)a->mem;
    lv->w = (uint32_t)a->desc.Width;
    lv->h = (uint32_t)(a->desc.Height ? a->desc.Height : 1);
    lv->d = (uint32_t)(a->desc.Depth ? a->desc.Depth : 1);
    lv->pitch = a->pitch;
    lv->slice = a->slice;
}

static int geom_of_array(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (d->Flags & CUDA_ARRAY3D_CUBEMAP) return d->Flags & CUDA_ARRAY3D_LAYERED ? TEXG_ACUBE : TEXG_CUBE;
    if (d->Flags & CUDA_ARRAY3D_LAYERED) return d->Height ? TEXG_A2D : TEXG_A1D;
    return !d->Height ? TEXG_1D : !d->Depth ? TEXG_2D : TEXG_3D;
}

/* The texels a resource descriptor names, into t (format, geometry, levels). */
static CUresult resource(const CUDA_RESOURCE_DESC *r, EmuTex *t)
{
    CUarray_format f;
    unsigned nch;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        CUarray a = array_of(r->res.array.hArray);
        if (!a) return CUDA_ERROR_INVALID_HANDLE;
        f = a->desc.Format; nch = a->desc.NumChannels;
        t->geom = geom_of_array(&a->desc);
        t->nlevels = 1;
        level_of_array(a, &t->lv[0]);
        break;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
        CUmipmappedArray m = r->res.mipmap.hMipmappedArray;
        if (drv_handle_kind(m) != H_MIPMAP) return CUDA_ERROR_INVALID_HANDLE;
        f = m->desc.Format; nch = m->desc.NumChannels;
        t->geom = geom_of_array(&m->desc);
        t->nlevels = (int)m->nlevels;
        for (unsigned l = 0; l < m->nlevels; l++) level_of_array(m->lv[l], &t->lv[l]);
        break;
    }
    case CU_RESOURCE_TYPE_LINEAR:
        f = r->res.linear.format; nch = r->res.linear.numChannels;
        t->geom = TEXG_LINEAR;
        break;
    case CU_RESOURCE_TYPE_PITCH2D:
        f = r->res.pitch2D.format; nch = r->res.pitch2D.numChannels;
        t->geom = TEXG_2D;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    int cs = format_info(f, &t->fmt);
    if (!cs || !channels_ok(nch)) return CUDA_ERROR_INVALID_VALUE;
    t->nch = (int)nch;
    t->elem = cs * (int)nch;
    t->q_order = 0x10B0 + (nch == 1 ? 0 : nch == 2 ? 2 : 5);
    if (r->resType == CU_RESOURCE_TYPE_LINEAR) {
        size_t n = r->res.linear.sizeInBytes;
        if (!drv_mem_ok(r->res.linear.devPtr, n) || n % (size_t)t->elem) return CUDA_ERROR_INVALID_VALUE;
        t->nlevels = 1;
        t->lv[0] = (EmuTexLevel){ (uint8_t *)(uintptr_t)r->res.linear.devPtr, (uint32_t)(n / (size_t)t->elem),
                                  1, 1, n, n };
    } else if (r->resType == CU_RESOURCE_TYPE_PITCH2D) {
        size_t w = r->res.pitch2D.width, h = r->res.pitch2D.height, p = r->res.pitch2D.pitchInBytes;
        if (!w || !h || p < w * (size_t)t->elem || !drv_mem_ok(r->res.pitch2D.devPtr, p * (h - 1) + w * (size_t)t->elem))
            return CUDA_ERROR_INVALID_VALUE;
        t->nlevels = 1;
        t->lv[0] = (EmuTexLevel){ (uint8_t *)(uintptr_t)r->res.pitch2D.devPtr, (uint32_t)w, (uint32_t)h, 1, p, p * h };
    }
    return CUDA_SUCCESS;
}

static int is_int_format(int texf) { return texf != TEXF_F16 && texf != TEXF_F32; }

static CUresult sampler(const CUDA_TEXTURE_DESC *d, EmuTex *t)
{
    for (int i = 0; i < 3; i++) {
        if ((unsigned)d->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER) return CUDA_ERROR_INVALID_VALUE;
        t->addr[i] = (int)d->addressMode[i];
    }
    if ((unsigned)d->filterMode > CU_TR_FILTER_MODE_LINEAR || (unsigned)d->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR)
        return CUDA_ERROR_INVALID_VALUE;
    t->filter = (int)d->filterMode;
    t->mip_filter = (int)d->mipmapFilterMode;
    t->norm = (d->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    t->read_norm = is_int_format(t->fmt) && !(d->flags & CU_TRSF_READ_AS_INTEGER);
    t->srgb = (d->flags & CU_TRSF_SRGB) != 0 && t->fmt == TEXF_U8 && t->read_norm;
    /* integers read as integers cannot be filtered */
    if (t->filter == TEXM_LINEAR && is_int_format(t->fmt) && !t->read_norm) return CUDA_ERROR_INVALID_VALUE;
    memcpy(t->border, d->borderColor, sizeof t->border);
    t->lod_bias = d->mipmapLevelBias;
    t->min_lod = d->minMipmapLevelClamp;
    t->max_lod = d->maxMipmapLevelClamp;
    if (t->nlevels > 1 && t->max_lod == 0 && t->min_lod == 0) t->max_lod = (float)(t->nlevels - 1);
    if (t->geom == TEXG_CUBE || t->geom == TEXG_ACUBE) t->norm = 1;
    t->q_dtype = q_dtype(t->fmt, t->read_norm);
    return CUDA_SUCCESS;
}

static CUresult obj_create(uint64_t *out, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *td,
                           const CUDA_RESOURCE_VIEW_DESC *v, int surface)
{
    if (!out || !r || (!surface && !td)) return CUDA_ERROR_INVALID_VALUE;
    if (v) {
        drv_diag("ptxemu: resource views (cuTexObjectCreate's pResViewDesc) are not supported");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (surface && r->resType != CU_RESOURCE_TYPE_ARRAY) return CUDA_ERROR_INVALID_VALUE;
    EmuTex t;
    memset(&t, 0, sizeof t);
    t.surface = surface;
    CUresult e = resource(r, &t);
    if (e == CUDA_SUCCESS && !surface) e = sampler(td, &t);
    if (e != CUDA_SUCCESS) return e;
    ObjInfo *info = calloc(1, sizeof *info);
    if (!info) return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t h = emu_tex_register(&t);
    if (!h || h > MAX_OBJ) {
        if (h) emu_tex_unregister(h, surface);
        free(info);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    info->res = *r;
    if (td) info->tex = *td;
    objs[h] = info;
    *out = h;
    return CUDA_SUCCESS;
}

static CUresult obj_destroy(uint64_t h, int surface)
{
    if (h == 0) return CUDA_SUCCESS;      /* as the H100's driver answers for 0 */
    if (h > MAX_OBJ || emu_tex_unregister(h, surface)) return CUDA_ERROR_INVALID_VALUE;
    free(objs[h]);
    objs[h] = NULL;
    return CUDA_SUCCESS;
}

static CUresult obj_info(uint64_t h, int surface, ObjInfo **out)
{
    const EmuTex *t = emu_tex_lookup(h);
    if (!t || t->surface != surface || h > MAX_OBJ || !objs[h]) return CUDA_ERROR_INVALID_VALUE;
    *out = objs[h];
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                   const CUDA_TEXTURE_DESC *pTexDesc,
                                   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    IN_CTX(obj_create((uint64_t *)pTexObject, pResDesc, pTexDesc, pResViewDesc, 0));
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject) { IN_CTX(obj_destroy(texObject, 0)); }

static CUresult get_res(CUDA_RESOURCE_DESC *out, uint64_t h, int surface)
{
    ObjInfo *i;
    CUresult e = out ? obj_info(h, surface, &i) : CUDA_ERROR_INVALID_VALUE;
    if (e == CUDA_SUCCESS) *out = i->res;
    return e;
}

static CUresult get_tex(CUDA_TEXTURE_DESC *out, uint64_t h)
{
    ObjInfo *i;
    CUresult e = out ? obj_info(h, 0, &i) : CUDA_ERROR_INVALID_VALUE;
    if (e == CUDA_SUCCESS) *out = i->tex;
    return e;
}

static CUresult get_view(CUDA_RESOURCE_VIEW_DESC *out, uint64_t h)
{
    ObjInfo *i;
    CUresult e = out ? obj_info(h, 0, &i) : CUDA_ERROR_INVALID_VALUE;
    if (e == CUDA_SUCCESS && !i->has_view) e = CUDA_ERROR_INVALID_VALUE;   /* made without one */
    if (e == CUDA_SUCCESS) *out = i->view;
    return e;
}

CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{
    IN_CTX(get_res(pResDesc, texObject, 0));
}

CUresult CUDAAPI cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{
    IN_CTX(get_tex(pTexDesc, texObject));
}

CUresult CUDAAPI cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject)
{
    IN_CTX(get_view(pResViewDesc, texObject));
}

CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc)
{
    IN_CTX(obj_create((uint64_t *)pSurfObject, pResDesc, NULL, NULL, 1));
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject) { IN_CTX(obj_destroy(surfObject, 1)); }

CUresult CUDAAPI cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject)
{
    IN_CTX(get_res(pResDesc, surfObject, 1));
}
