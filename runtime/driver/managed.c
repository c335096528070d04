/* managed.c - what cuMemAdvise and cuMemPrefetchAsync said about managed memory, for
 * cuMemRangeGetAttribute(s).
 *
 * Managed memory is host memory that kernels reach directly here, so the hints change
 * nothing; they are remembered per byte range, as the GPU keeps them per page: a sorted list
 * of disjoint spans, each with the hints of its bytes. Bytes outside every span have none.
 * An advice or prefetch splits the spans at its range's ends; a query combines the spans (and
 * the gaps) its range covers as cuda.h describes. memory.c checks that ranges are managed
 * memory and takes the lock.
 */
#include <stdlib.h>
#include <string.h>
#include "runtime/driver/drv.h"

#define HOST_BIT (1u << DRV_MAX_DEVICES)   /* accessed-by mask: the host after the devices */

typedef struct Span {
    uint64_t start, end;          /* [start, end) */
    int read_mostly;
    CUmemLocation preferred;      /* type CU_MEM_LOCATION_TYPE_INVALID: none */
    CUmemLocation prefetched;     /* the last prefetch's destination, likewise */
    uint32_t accessed_by;         /* bit d: device d; HOST_BIT: the host */
} Span;

static Span *spans;
static size_t nspans, capspans;

/* The index of the first span that ends after p. */
static size_t first_after(uint64_t p)
{
    size_t lo = 0, hi = nspans;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (spans[mid].end <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int insert_at(size_t i, Span s)
{
    if (nspans == capspans) {
        size_t nc = capspans ? capspans * 2 : 32;
        Span *n = realloc(spans, nc * sizeof *n);
        if (!n) return -1;
        spans = n;
        capspans = nc;
    }
    memmove(spans + i + 1, spans + i, (nspans - i) * sizeof *spans);
    spans[i] = s;
    nspans++;
    return 0;
}

/* Make a span boundary at p (a span across p becomes two). */
static int split_at(uint64_t p)
{
    size_t i = first_after(p);
    if (i == nspans || spans[i].start >= p) return 0;
    Span right = spans[i];
    right.start = p;
    spans[i].end = p;
    return insert_at(i + 1, right);
}

/* Spans covering [p, e) exactly, gaps filled with spans without hints; the index of the
 * first in *first and how many in *n. */
static CUresult cover(uint64_t p, uint64_t e, size_t *first, size_t *n)
{
    if (split_at(p) || split_at(e)) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t i = first_after(p);
    *first = i;
    for (uint64_t at = p; at < e; i++) {
        if (i == nspans || spans[i].start > at) {
            uint64_t to = i == nspans || spans[i].start > e ? e : spans[i].start;
            if (insert_at(i, (Span){ .start = at, .end = to })) return CUDA_ERROR_OUT_OF_MEMORY;
        }
        at = spans[i].end;
    }
    *n = i - *first;
    return CUDA_SUCCESS;
}

/* Locations as they are kept: the current host NUMA node is node 0 here. */
static CUmemLocation normal(CUmemLocation l)
{
    if (l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT) l.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    if (l.type == CU_MEM_LOCATION_TYPE_HOST) l.id = 0;   /* the id means nothing there */
    return l;
}

static uint32_t location_bit(CUmemLocation l)
{
    return l.type == CU_MEM_LOCATION_TYPE_DEVICE ? 1u << l.id : HOST_BIT;
}

static void apply(Span *s, CUmem_advise advice, CUmemLocation loc)
{
    switch (advice) {
    case CU_MEM_ADVISE_SET_READ_MOSTLY: s->read_mostly = 1; break;
    case CU_MEM_ADVISE_UNSET_READ_MOSTLY: s->read_mostly = 0; break;
    case CU_MEM_ADVISE_SET_PREFERRED_LOCATION: s->preferred = normal(loc); break;
    case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
        memset(&s->preferred, 0, sizeof s->preferred);
        break;
    case CU_MEM_ADVISE_SET_ACCESSED_BY: s->accessed_by |= location_bit(loc); break;
    case CU_MEM_ADVISE_UNSET_ACCESSED_BY: s->accessed_by &= ~location_bit(loc); break;
    default: break;
    }
}

CUresult drv_managed_advise(uint64_t p, size_t n, CUmem_advise advice, CUmemLocation loc)
{
    size_t first, count;
    CUresult e = cover(p, p + n, &first, &count);
    for (size_t i = first; e == CUDA_SUCCESS && i < first + count; i++) apply(&spans[i], advice, loc);
    return e;
}

/* Out of memory only loses the record of a hint, which changes nothing here. */
void drv_managed_prefetched(uint64_t p, size_t n, CUmemLocation loc)
{
    size_t first, count;
    if (cover(p, p + n, &first, &count) != CUDA_SUCCESS) return;
    for (size_t i = first; i < first + count; i++) spans[i].prefetched = normal(loc);
}

void drv_managed_forget(uint64_t p, size_t n)
{
    size_t first, count;
    if (cover(p, p + n, &first, &count) != CUDA_SUCCESS) return;
    memmove(spans + first, spans + first + count, (nspans - first - count) * sizeof *spans);
    nspans -= count;
}

/* ---- queries ---- */

/* What the range has in common: read-mostly everywhere, one preferred and one prefetch
 * location (type INVALID where they differ or some byte has none), the accessors of every
 * byte. A gap (never hinted) has nothing. */
static void combine(uint64_t p, uint64_t e, Span *out)
{
    size_t i = first_after(p);
    int gap = i == nspans || spans[i].start > p;
    Span c = i < nspans && !gap ? spans[i] : (Span){ 0 };
    for (uint64_t at = p; at < e && !gap; i++) {
        if (i == nspans || spans[i].start > at) { gap = 1; break; }
        const Span *s = &spans[i];
        c.read_mostly &= s->read_mostly;
        c.accessed_by &= s->accessed_by;
        if (memcmp(&c.preferred, &s->preferred, sizeof c.preferred)) memset(&c.preferred, 0, sizeof c.preferred);
        if (memcmp(&c.prefetched, &s->prefetched, sizeof c.prefetched)) memset(&c.prefetched, 0, sizeof c.prefetched);
        at = s->end;
    }
    if (gap) c = (Span){ 0 };
    *out = c;
}

/* The CUDA 12 form of a location: a device ordinal, CU_DEVICE_CPU for the host, else
 * CU_DEVICE_INVALID. */
static int legacy_id(CUmemLocation l)
{
    switch (l.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE: return l.id;
    case CU_MEM_LOCATION_TYPE_HOST: case CU_MEM_LOCATION_TYPE_HOST_NUMA: return CU_DEVICE_CPU;
    default: return CU_DEVICE_INVALID;
    }
}

/* The accessors, devices in order then the host, CU_DEVICE_INVALID in the rest. */
static void accessors(uint32_t mask, int *out, size_t n)
{
    size_t k = 0;
    for (int d = 0; d < DRV_MAX_DEVICES && k < n; d++)
        if (mask & (1u << d)) out[k++] = d;
    if ((mask & HOST_BIT) && k < n) out[k++] = CU_DEVICE_CPU;
    while (k < n) out[k++] = CU_DEVICE_INVALID;
}

CUresult drv_managed_attr(void *data, size_t size, CUmem_range_attribute attr, uint64_t p, size_t n)
{
    Span c;
    combine(p, p + n, &c);
    if (attr == CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        if (!size || size % 4) return CUDA_ERROR_INVALID_VALUE;
        accessors(c.accessed_by, data, size / 4);
        return CUDA_SUCCESS;
    }
    if (size != 4) return CUDA_ERROR_INVALID_VALUE;
    int *v = data;
    switch (attr) {
    case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: *v = c.read_mostly; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: *v = legacy_id(c.preferred); break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: *v = legacy_id(c.prefetched); break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: *v = (int)c.preferred.type; break;
    case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID: *v = c.preferred.id; break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: *v = (int)c.prefetched.type; break;
    case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID: *v = c.prefetched.id; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
