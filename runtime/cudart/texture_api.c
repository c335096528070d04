/* texture_api.c - CUDA arrays, copies into and out of them, texture and surface objects, over
 * the driver's cuArray*, cuMemcpy2D/3D, cuTexObject* and cuSurfObject* calls.
 *
 * What the runtime adds: channel format descriptors (bits per channel and a kind) become the
 * driver's format and channel count and back; read modes and coordinate flags become the
 * driver's CU_TRSF_* flags; copies name their non-array side by the copy kind; and the
 * runtime's own argument errors recorded on an H100 (tests/cuda/textures.cu): a linear
 * filter over integers read as integers is cudaErrorInvalidFilterSetting, a resource whose
 * channel descriptor is not a format is cudaErrorInvalidChannelDescriptor.
 */
#include <string.h>
#include "runtime/cudart/cudart_internal.h"

#define D(p) ((CUdeviceptr)(uintptr_t)(p))
#define RT_DRIVER(expr)                                                   \
    do {                                                                  \
        RT_ENTER();                                                       \
        return rt_ret(rt_err(expr));                                      \
    } while (0)

/* ---- channel descriptors ---- */

static int chan_to_format(const struct cudaChannelFormatDesc *d, CUarray_format *f, unsigned *n)
{
    int b = d->x;
    *n = (d->x > 0) + (d->y > 0) + (d->z > 0) + (d->w > 0);
    if (!*n || (d->y && d->y != b) || (d->z && d->z != b) || (d->w && d->w != b) || *n == 3) return -1;
    switch (d->f) {
    case cudaChannelFormatKindUnsigned:
        *f = b == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : b == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
        return b == 8 || b == 16 || b == 32 ? 0 : -1;
    case cudaChannelFormatKindSigned:
        *f = b == 8 ? CU_AD_FORMAT_SIGNED_INT8 : b == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
        return b == 8 || b == 16 || b == 32 ? 0 : -1;
    case cudaChannelFormatKindFloat:
        *f = b == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
        return b == 16 || b == 32 ? 0 : -1;
    default:
        return -1;
    }
}

static struct cudaChannelFormatDesc format_to_chan(CUarray_format f, unsigned n)
{
    int bits = 32;
    enum cudaChannelFormatKind k = cudaChannelFormatKindUnsigned;
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; break;
    case CU_AD_FORMAT_SIGNED_INT8: bits = 8; k = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT16: bits = 16; k = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT32: k = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF: bits = 16; k = cudaChannelFormatKindFloat; break;
    case CU_AD_FORMAT_FLOAT: k = cudaChannelFormatKindFloat; break;
    default: break;
    }
    struct cudaChannelFormatDesc d = { bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 3 ? bits : 0, k };
    return d;
}

/* ---- arrays ---- */

static cudaError_t make_array(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
                              size_t w, size_t h, size_t d, unsigned flags)
{
    if (!out || !desc) return cudaErrorInvalidValue;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    if (chan_to_format(desc, &ad.Format, &ad.NumChannels)) return cudaErrorInvalidChannelDescriptor;
    ad.Width = w;
    ad.Height = h;
    ad.Depth = d;
    ad.Flags = flags;
    CUarray a;
    CUresult e = cuArray3DCreate(&a, &ad);
    if (e == CUDA_SUCCESS) *out = (cudaArray_t)a;
    return rt_err(e);
}

cudaError_t CUDARTAPI cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags)
{
    RT_ENTER();
    return rt_ret(make_array(array, desc, width, height, 0, flags));
}

cudaError_t CUDARTAPI cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                        struct cudaExtent extent, unsigned int flags)
{
    RT_ENTER();
    return rt_ret(make_array(array, desc, extent.width, extent.height, extent.depth, flags));
}

cudaError_t CUDARTAPI cudaFreeArray(cudaArray_t array)
{
    RT_ENTER();
    if (!array) return cudaSuccess;
    return rt_ret(rt_err(cuArrayDestroy((CUarray)array)));
}

cudaError_t CUDARTAPI cudaMallocMipmappedArray(cudaMipmappedArray_t *m, const struct cudaChannelFormatDesc *desc,
                                               struct cudaExtent extent, unsigned int numLevels,
                                               unsigned int flags)
{
    RT_ENTER();
    if (!m || !desc) return rt_ret(cudaErrorInvalidValue);
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    if (chan_to_format(desc, &ad.Format, &ad.NumChannels)) return rt_ret(cudaErrorInvalidChannelDescriptor);
    ad.Width = extent.width;
    ad.Height = extent.height;
    ad.Depth = extent.depth;
    ad.Flags = flags;
    CUmipmappedArray h;
    CUresult e = cuMipmappedArrayCreate(&h, &ad, numLevels);
    if (e == CUDA_SUCCESS) *m = (cudaMipmappedArray_t)h;
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaGetMipmappedArrayLevel(cudaArray_t *levelArray, cudaMipmappedArray_const_t m,
                                                 unsigned int level)
{
    RT_DRIVER(cuMipmappedArrayGetLevel((CUarray *)levelArray, (CUmipmappedArray)m, level));
}

cudaError_t CUDARTAPI cudaFreeMipmappedArray(cudaMipmappedArray_t m)
{
    RT_ENTER();
    if (!m) return cudaSuccess;
    return rt_ret(rt_err(cuMipmappedArrayDestroy((CUmipmappedArray)m)));
}

cudaError_t CUDARTAPI cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                       unsigned int *flags, cudaArray_t array)
{
    RT_ENTER();
    CUDA_ARRAY3D_DESCRIPTOR ad;
    CUresult e = cuArray3DGetDescriptor(&ad, (CUarray)array);
    if (e != CUDA_SUCCESS) return rt_ret(rt_err(e));
    if (desc) *desc = format_to_chan(ad.Format, ad.NumChannels);
    if (extent) { extent->width = ad.Width; extent->height = ad.Height; extent->depth = ad.Depth; }
    if (flags) *flags = ad.Flags;
    return rt_ret(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    RT_ENTER();
    if (!desc) return rt_ret(cudaErrorInvalidValue);
    CUDA_ARRAY3D_DESCRIPTOR ad;
    CUresult e = cuArray3DGetDescriptor(&ad, (CUarray)array);
    if (e == CUDA_SUCCESS) *desc = format_to_chan(ad.Format, ad.NumChannels);
    return rt_ret(rt_err(e));
}

/* ---- copies ---- */

/* The memory type of a copy's non-array side. */
static CUmemorytype side_type(enum cudaMemcpyKind kind, int is_dst)
{
    if (kind == cudaMemcpyDefault) return CU_MEMORYTYPE_UNIFIED;
    int dev = is_dst ? kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice
                     : kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    return dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
}

static cudaError_t copy2d(CUDA_MEMCPY2D *p, enum cudaMemcpyKind kind, cudaStream_t s, int async)
{
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    if (!p->WidthInBytes || !p->Height) return cudaSuccess;
    return rt_err(async ? cuMemcpy2DAsync(p, s) : cuMemcpy2D(p));
}

static cudaError_t to_array(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                            size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                            cudaStream_t s, int async)
{
    if (spitch < width) return cudaErrorInvalidPitchValue;
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    p.dstArray = (CUarray)dst;
    p.dstXInBytes = wOffset;
    p.dstY = hOffset;
    p.srcMemoryType = side_type(kind, 0);
    p.srcHost = src;
    p.srcDevice = D(src);
    p.srcPitch = spitch;
    p.WidthInBytes = width;
    p.Height = height;
    return copy2d(&p, kind, s, async);
}

static cudaError_t from_array(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                              size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t s, int async)
{
    if (dpitch < width) return cudaErrorInvalidPitchValue;
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    p.srcArray = (CUarray)src;
    p.srcXInBytes = wOffset;
    p.srcY = hOffset;
    p.dstMemoryType = side_type(kind, 1);
    p.dstHost = dst;
    p.dstDevice = D(dst);
    p.dstPitch = dpitch;
    p.WidthInBytes = width;
    p.Height = height;
    return copy2d(&p, kind, s, async);
}

cudaError_t CUDARTAPI cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                          size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    return rt_ret(to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                               size_t spitch, size_t width, size_t height,
                                               enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(to_array(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, 1));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                            size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    return rt_ret(from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                                 size_t hOffset, size_t width, size_t height,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(from_array(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, 1));
}

cudaError_t CUDARTAPI cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                               cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                               size_t width, size_t height, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    p.srcArray = (CUarray)src;
    p.dstArray = (CUarray)dst;
    p.srcXInBytes = wOffsetSrc;
    p.srcY = hOffsetSrc;
    p.dstXInBytes = wOffsetDst;
    p.dstY = hOffsetDst;
    p.WidthInBytes = width;
    p.Height = height;
    return rt_ret(copy2d(&p, kind, NULL, 0));
}

RT_TWIN(cudaError_t, cudaMemcpy2DToArray_ptds, cudaMemcpy2DToArray,
        (cudaArray_t d, size_t x, size_t y, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k),
        (d, x, y, s, sp, w, h, k))
RT_TWIN(cudaError_t, cudaMemcpy2DFromArray_ptds, cudaMemcpy2DFromArray,
        (void *d, size_t dp, cudaArray_const_t s, size_t x, size_t y, size_t w, size_t h, enum cudaMemcpyKind k),
        (d, dp, s, x, y, w, h, k))
RT_TWIN(cudaError_t, cudaMemcpy2DToArrayAsync_ptsz, cudaMemcpy2DToArrayAsync,
        (cudaArray_t d, size_t x, size_t y, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k,
         cudaStream_t st), (d, x, y, s, sp, w, h, k, st))
RT_TWIN(cudaError_t, cudaMemcpy2DFromArrayAsync_ptsz, cudaMemcpy2DFromArrayAsync,
        (void *d, size_t dp, cudaArray_const_t s, size_t x, size_t y, size_t w, size_t h, enum cudaMemcpyKind k,
         cudaStream_t st), (d, dp, s, x, y, w, h, k, st))
RT_TWIN(cudaError_t, cudaMemcpy2DArrayToArray_ptds, cudaMemcpy2DArrayToArray,
        (cudaArray_t d, size_t dx, size_t dy, cudaArray_const_t s, size_t sx, size_t sy, size_t w, size_t h,
         enum cudaMemcpyKind k), (d, dx, dy, s, sx, sy, w, h, k))

/* Bytes per element of an array (positions and extents of array copies count elements). */
static size_t elem_size(cudaArray_const_t a)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    if (cuArray3DGetDescriptor(&ad, (CUarray)a) != CUDA_SUCCESS) return 0;
    struct cudaChannelFormatDesc c = format_to_chan(ad.Format, ad.NumChannels);
    return (size_t)(c.x + c.y + c.z + c.w) / 8;
}

static cudaError_t copy3d(const struct cudaMemcpy3DParms *q, cudaStream_t s, int async)
{
    if (!q) return cudaErrorInvalidValue;
    if ((unsigned)q->kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    size_t es = 1;
    if (q->srcArray) es = elem_size(q->srcArray);
    else if (q->dstArray) es = elem_size(q->dstArray);
    if (!es) return cudaErrorInvalidResourceHandle;
    if (q->srcArray) {
        p.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        p.srcArray = (CUarray)q->srcArray;
        p.srcXInBytes = q->srcPos.x * es;
    } else {
        p.srcMemoryType = side_type(q->kind, 0);
        p.srcHost = q->srcPtr.ptr;
        p.srcDevice = D(q->srcPtr.ptr);
        p.srcPitch = q->srcPtr.pitch;
        p.srcHeight = q->srcPtr.ysize;
        p.srcXInBytes = q->srcPos.x;
    }
    p.srcY = q->srcPos.y;
    p.srcZ = q->srcPos.z;
    if (q->dstArray) {
        p.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        p.dstArray = (CUarray)q->dstArray;
        p.dstXInBytes = q->dstPos.x * es;
    } else {
        p.dstMemoryType = side_type(q->kind, 1);
        p.dstHost = q->dstPtr.ptr;
        p.dstDevice = D(q->dstPtr.ptr);
        p.dstPitch = q->dstPtr.pitch;
        p.dstHeight = q->dstPtr.ysize;
        p.dstXInBytes = q->dstPos.x;
    }
    p.dstY = q->dstPos.y;
    p.dstZ = q->dstPos.z;
    p.WidthInBytes = q->extent.width * (q->srcArray || q->dstArray ? es : 1);
    p.Height = q->extent.height ? q->extent.height : 1;
    p.Depth = q->extent.depth ? q->extent.depth : 1;
    return rt_err(async ? cuMemcpy3DAsync(&p, s) : cuMemcpy3D(&p));
}

/* The twins below call these deprecated functions. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- the deprecated 1D array copies: count bytes from byte wOffset of row hOffset on,
 * continuing at the start of the next row, as one row-long 2D copy per piece. As NVIDIA's
 * runtime does (measured: its static runtime over ptxemu), an offset past the row's end goes
 * on in the next rows, and a copy that leaves the array fails at the piece that does, the
 * pieces before it done. ---- */

/* One side of such a copy: an array (its row length in bytes and its rows), or linear memory
 * (never wraps). */
typedef struct Run { cudaArray_const_t a; const char *p; size_t x, y, w; } Run;

static cudaError_t run_array(Run *r, cudaArray_const_t a, size_t x, size_t y)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    size_t es = a ? elem_size(a) : 0;
    if (!es || cuArray3DGetDescriptor(&ad, (CUarray)a) != CUDA_SUCCESS || !ad.Width)
        return cudaErrorInvalidResourceHandle;
    size_t w = ad.Width * es;
    *r = (Run){ .a = a, .x = x % w, .y = y + x / w, .w = w };
    return cudaSuccess;
}

static Run run_linear(const void *p)
{
    return (Run){ .p = p, .w = SIZE_MAX };
}

static void run_side(const Run *r, enum cudaMemcpyKind kind, int is_dst, CUDA_MEMCPY2D *p)
{
    CUmemorytype t = r->a ? CU_MEMORYTYPE_ARRAY : side_type(kind, is_dst);
    CUdeviceptr d = D(r->p);
    if (is_dst) {
        p->dstMemoryType = t; p->dstArray = (CUarray)r->a; p->dstHost = (void *)r->p;
        p->dstDevice = d; p->dstXInBytes = r->x; p->dstY = r->y; p->dstPitch = p->WidthInBytes;
    } else {
        p->srcMemoryType = t; p->srcArray = (CUarray)r->a; p->srcHost = r->p;
        p->srcDevice = d; p->srcXInBytes = r->x; p->srcY = r->y; p->srcPitch = p->WidthInBytes;
    }
}

static void run_advance(Run *r, size_t n)
{
    if (!r->a) { r->p += n; return; }
    r->x += n;
    if (r->x == r->w) { r->x = 0; r->y++; }
}

static cudaError_t copy1d(Run d, Run s, size_t count, enum cudaMemcpyKind kind, cudaStream_t st,
                          int async)
{
    if ((unsigned)kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    while (count) {
        size_t n = count;
        if (d.w - d.x < n) n = d.w - d.x;
        if (s.w - s.x < n) n = s.w - s.x;
        CUDA_MEMCPY2D p;
        memset(&p, 0, sizeof p);
        p.WidthInBytes = n;
        p.Height = 1;
        run_side(&d, kind, 1, &p);
        run_side(&s, kind, 0, &p);
        cudaError_t e = copy2d(&p, kind, st, async);
        if (e != cudaSuccess) return e;
        run_advance(&d, n);
        run_advance(&s, n);
        count -= n;
    }
    return cudaSuccess;
}

static cudaError_t to_array1d(cudaArray_t dst, size_t x, size_t y, const void *src, size_t count,
                              enum cudaMemcpyKind kind, cudaStream_t s, int async)
{
    Run d;
    cudaError_t e = run_array(&d, dst, x, y);
    return e == cudaSuccess ? copy1d(d, run_linear(src), count, kind, s, async) : e;
}

static cudaError_t from_array1d(void *dst, cudaArray_const_t src, size_t x, size_t y, size_t count,
                                enum cudaMemcpyKind kind, cudaStream_t s, int async)
{
    Run r;
    cudaError_t e = run_array(&r, src, x, y);
    return e == cudaSuccess ? copy1d(run_linear(dst), r, count, kind, s, async) : e;
}

cudaError_t CUDARTAPI cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                        size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    return rt_ret(to_array1d(dst, wOffset, hOffset, src, count, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                             size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(to_array1d(dst, wOffset, hOffset, src, count, kind, stream, 1));
}

cudaError_t CUDARTAPI cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                          size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    return rt_ret(from_array1d(dst, src, wOffset, hOffset, count, kind, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                               size_t hOffset, size_t count, enum cudaMemcpyKind kind,
                                               cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(from_array1d(dst, src, wOffset, hOffset, count, kind, stream, 1));
}

cudaError_t CUDARTAPI cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                             cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                             size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER();
    Run d, s;
    cudaError_t e = run_array(&d, dst, wOffsetDst, hOffsetDst);
    if (e == cudaSuccess) e = run_array(&s, src, wOffsetSrc, hOffsetSrc);
    return rt_ret(e == cudaSuccess ? copy1d(d, s, count, kind, NULL, 0) : e);
}

RT_TWIN(cudaError_t, cudaMemcpyToArray_ptds, cudaMemcpyToArray,
        (cudaArray_t d, size_t x, size_t y, const void *s, size_t n, enum cudaMemcpyKind k),
        (d, x, y, s, n, k))
RT_TWIN(cudaError_t, cudaMemcpyToArrayAsync_ptsz, cudaMemcpyToArrayAsync,
        (cudaArray_t d, size_t x, size_t y, const void *s, size_t n, enum cudaMemcpyKind k,
         cudaStream_t st), (d, x, y, s, n, k, st))
RT_TWIN(cudaError_t, cudaMemcpyFromArray_ptds, cudaMemcpyFromArray,
        (void *d, cudaArray_const_t s, size_t x, size_t y, size_t n, enum cudaMemcpyKind k),
        (d, s, x, y, n, k))
RT_TWIN(cudaError_t, cudaMemcpyFromArrayAsync_ptsz, cudaMemcpyFromArrayAsync,
        (void *d, cudaArray_const_t s, size_t x, size_t y, size_t n, enum cudaMemcpyKind k,
         cudaStream_t st), (d, s, x, y, n, k, st))
RT_TWIN(cudaError_t, cudaMemcpyArrayToArray_ptds, cudaMemcpyArrayToArray,
        (cudaArray_t d, size_t dx, size_t dy, cudaArray_const_t s, size_t sx, size_t sy, size_t n,
         enum cudaMemcpyKind k), (d, dx, dy, s, sx, sy, n, k))

cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    RT_ENTER();
    return rt_ret(copy3d(p, NULL, 0));
}

cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    RT_ENTER();
    return rt_ret(copy3d(p, stream, 1));
}
RT_TWIN(cudaError_t, cudaMemcpy3D_ptds, cudaMemcpy3D, (const struct cudaMemcpy3DParms *p), (p))
RT_TWIN(cudaError_t, cudaMemcpy3DAsync_ptsz, cudaMemcpy3DAsync,
        (const struct cudaMemcpy3DParms *p, cudaStream_t s), (p, s))

/* ---- texture and surface objects ---- */

static cudaError_t res_to_driver(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *o)
{
    memset(o, 0, sizeof *o);
    switch (r->resType) {
    case cudaResourceTypeArray:
        o->resType = CU_RESOURCE_TYPE_ARRAY;
        o->res.array.hArray = (CUarray)r->res.array.array;
        return cudaSuccess;
    case cudaResourceTypeMipmappedArray:
        o->resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        o->res.mipmap.hMipmappedArray = (CUmipmappedArray)r->res.mipmap.mipmap;
        return cudaSuccess;
    case cudaResourceTypeLinear:
        o->resType = CU_RESOURCE_TYPE_LINEAR;
        o->res.linear.devPtr = D(r->res.linear.devPtr);
        o->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        return chan_to_format(&r->res.linear.desc, &o->res.linear.format, &o->res.linear.numChannels)
                   ? cudaErrorInvalidChannelDescriptor : cudaSuccess;
    case cudaResourceTypePitch2D:
        o->resType = CU_RESOURCE_TYPE_PITCH2D;
        o->res.pitch2D.devPtr = D(r->res.pitch2D.devPtr);
        o->res.pitch2D.width = r->res.pitch2D.width;
        o->res.pitch2D.height = r->res.pitch2D.height;
        o->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        return chan_to_format(&r->res.pitch2D.desc, &o->res.pitch2D.format, &o->res.pitch2D.numChannels)
                   ? cudaErrorInvalidChannelDescriptor : cudaSuccess;
    default:
        return cudaErrorInvalidValue;
    }
}

static void res_from_driver(const CUDA_RESOURCE_DESC *r, struct cudaResourceDesc *o)
{
    memset(o, 0, sizeof *o);
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        o->resType = cudaResourceTypeArray;
        o->res.array.array = (cudaArray_t)r->res.array.hArray;
        break;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        o->resType = cudaResourceTypeMipmappedArray;
        o->res.mipmap.mipmap = (cudaMipmappedArray_t)r->res.mipmap.hMipmappedArray;
        break;
    case CU_RESOURCE_TYPE_LINEAR:
        o->resType = cudaResourceTypeLinear;
        o->res.linear.devPtr = (void *)(uintptr_t)r->res.linear.devPtr;
        o->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        o->res.linear.desc = format_to_chan(r->res.linear.format, r->res.linear.numChannels);
        break;
    default:
        o->resType = cudaResourceTypePitch2D;
        o->res.pitch2D.devPtr = (void *)(uintptr_t)r->res.pitch2D.devPtr;
        o->res.pitch2D.width = r->res.pitch2D.width;
        o->res.pitch2D.height = r->res.pitch2D.height;
        o->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        o->res.pitch2D.desc = format_to_chan(r->res.pitch2D.format, r->res.pitch2D.numChannels);
        break;
    }
}

/* The channel format behind a resource, to check the read mode against. */
static int res_is_integer(const CUDA_RESOURCE_DESC *r)
{
    CUarray_format f;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_LINEAR: f = r->res.linear.format; break;
    case CU_RESOURCE_TYPE_PITCH2D: f = r->res.pitch2D.format; break;
    case CU_RESOURCE_TYPE_ARRAY:
        if (cuArray3DGetDescriptor(&ad, r->res.array.hArray) != CUDA_SUCCESS) return 0;
        f = ad.Format;
        break;
    default: {
        CUarray l0;
        if (cuMipmappedArrayGetLevel(&l0, r->res.mipmap.hMipmappedArray, 0) != CUDA_SUCCESS ||
            cuArray3DGetDescriptor(&ad, l0) != CUDA_SUCCESS)
            return 0;
        f = ad.Format;
    }
    }
    return f != CU_AD_FORMAT_HALF && f != CU_AD_FORMAT_FLOAT;
}

cudaError_t CUDARTAPI cudaCreateTextureObject(cudaTextureObject_t *pTexObject, const struct cudaResourceDesc *pResDesc,
                                              const struct cudaTextureDesc *pTexDesc,
                                              const struct cudaResourceViewDesc *pResViewDesc)
{
    RT_ENTER();
    if (!pTexObject || !pResDesc || !pTexDesc) return rt_ret(cudaErrorInvalidValue);
    if (pResViewDesc) return rt_ret(cudaErrorNotSupported);   /* the driver says why */
    CUDA_RESOURCE_DESC r;
    cudaError_t e = res_to_driver(pResDesc, &r);
    if (e != cudaSuccess) return rt_ret(e);
    if (pTexDesc->filterMode == cudaFilterModeLinear && pTexDesc->readMode == cudaReadModeElementType &&
        res_is_integer(&r))
        return rt_ret(cudaErrorInvalidFilterSetting);
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; i++) t.addressMode[i] = (CUaddress_mode)pTexDesc->addressMode[i];
    t.filterMode = (CUfilter_mode)pTexDesc->filterMode;
    t.mipmapFilterMode = (CUfilter_mode)pTexDesc->mipmapFilterMode;
    t.flags = (pTexDesc->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
              (pTexDesc->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
              (pTexDesc->sRGB ? CU_TRSF_SRGB : 0) |
              (pTexDesc->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    t.maxAnisotropy = pTexDesc->maxAnisotropy;
    t.mipmapLevelBias = pTexDesc->mipmapLevelBias;
    t.minMipmapLevelClamp = pTexDesc->minMipmapLevelClamp;
    t.maxMipmapLevelClamp = pTexDesc->maxMipmapLevelClamp;
    memcpy(t.borderColor, pTexDesc->borderColor, sizeof t.borderColor);
    CUtexObject h;
    CUresult ce = cuTexObjectCreate(&h, &r, &t, NULL);
    if (ce == CUDA_SUCCESS) *pTexObject = h;
    return rt_ret(rt_err(ce));
}

cudaError_t CUDARTAPI cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    RT_DRIVER(cuTexObjectDestroy(texObject));
}

cudaError_t CUDARTAPI cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                       cudaTextureObject_t texObject)
{
    RT_ENTER();
    if (!pResDesc) return rt_ret(cudaErrorInvalidValue);
    CUDA_RESOURCE_DESC r;
    CUresult e = cuTexObjectGetResourceDesc(&r, texObject);
    if (e == CUDA_SUCCESS) res_from_driver(&r, pResDesc);
    return rt_ret(rt_err(e));
}

cudaError_t CUDARTAPI cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                      cudaTextureObject_t texObject)
{
    RT_ENTER();
    if (!pTexDesc) return rt_ret(cudaErrorInvalidValue);
    CUDA_TEXTURE_DESC t;
    CUresult e = cuTexObjectGetTextureDesc(&t, texObject);
    if (e != CUDA_SUCCESS) return rt_ret(rt_err(e));
    memset(pTexDesc, 0, sizeof *pTexDesc);
    for (int i = 0; i < 3; i++) pTexDesc->addressMode[i] = (enum cudaTextureAddressMode)t.addressMode[i];
    pTexDesc->filterMode = (enum cudaTextureFilterMode)t.filterMode;
    pTexDesc->mipmapFilterMode = (enum cudaTextureFilterMode)t.mipmapFilterMode;
    pTexDesc->readMode = t.flags & CU_TRSF_READ_AS_INTEGER ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    pTexDesc->normalizedCoords = (t.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    pTexDesc->sRGB = (t.flags & CU_TRSF_SRGB) != 0;
    pTexDesc->seamlessCubemap = (t.flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
    pTexDesc->maxAnisotropy = t.maxAnisotropy;
    pTexDesc->mipmapLevelBias = t.mipmapLevelBias;
    pTexDesc->minMipmapLevelClamp = t.minMipmapLevelClamp;
    pTexDesc->maxMipmapLevelClamp = t.maxMipmapLevelClamp;
    memcpy(pTexDesc->borderColor, t.borderColor, sizeof t.borderColor);
    return rt_ret(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                           cudaTextureObject_t texObject)
{
    RT_ENTER();
    if (!pResViewDesc) return rt_ret(cudaErrorInvalidValue);
    CUDA_RESOURCE_VIEW_DESC v;
    return rt_ret(rt_err(cuTexObjectGetResourceViewDesc(&v, texObject)));   /* no views exist */
}

cudaError_t CUDARTAPI cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject, const struct cudaResourceDesc *pResDesc)
{
    RT_ENTER();
    if (!pSurfObject || !pResDesc) return rt_ret(cudaErrorInvalidValue);
    CUDA_RESOURCE_DESC r;
    cudaError_t e = res_to_driver(pResDesc, &r);
    if (e != cudaSuccess) return rt_ret(e);
    CUsurfObject h;
    CUresult ce = cuSurfObjectCreate(&h, &r);
    if (ce == CUDA_SUCCESS) *pSurfObject = h;
    return rt_ret(rt_err(ce));
}

cudaError_t CUDARTAPI cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    RT_DRIVER(cuSurfObjectDestroy(surfObject));
}

cudaError_t CUDARTAPI cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                       cudaSurfaceObject_t surfObject)
{
    RT_ENTER();
    if (!pResDesc) return rt_ret(cudaErrorInvalidValue);
    CUDA_RESOURCE_DESC r;
    CUresult e = cuSurfObjectGetResourceDesc(&r, surfObject);
    if (e == CUDA_SUCCESS) res_from_driver(&r, pResDesc);
    return rt_ret(rt_err(e));
}
