/* peer.c - peer access: which contexts may touch memory of other devices (cuCtxEnablePeerAccess).
 *
 * Access is enabled from a context to a peer context on another device, and it is what lets
 * a kernel of the first reach allocations of the second's device: the set of pairs gives each
 * launch its device mask (drv_peer_mask, applied by launch.c through mem_set_access). Copies
 * never need it (unified addressing). A pair goes when either context does. Errors as the
 * H100 answered them with one device (tests/cuda/device_driver.cu): a context of the same
 * device, itself included, is CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, flags other than 0 are
 * CUDA_ERROR_INVALID_VALUE before that, a null peer is CUDA_ERROR_INVALID_CONTEXT.
 */
#include <stdlib.h>
#include "runtime/driver/drv.h"

typedef struct Peer { CUcontext from, to; } Peer;
static Peer *peers;
static size_t npeers, cpeers;

/* Index of the pair (from, to), or -1; caller holds the lock. */
static long peer_find(CUcontext from, CUcontext to)
{
    for (size_t i = 0; i < npeers; i++)
        if (peers[i].from == from && peers[i].to == to) return (long)i;
    return -1;
}

static CUresult peer_add(CUcontext from, CUcontext to)
{
    if (npeers == cpeers) {
        size_t nc = cpeers ? cpeers * 2 : 16;
        Peer *np = realloc(peers, nc * sizeof *np);
        if (!np) return CUDA_ERROR_OUT_OF_MEMORY;
        peers = np;
        cpeers = nc;
    }
    peers[npeers++] = (Peer){ from, to };
    return CUDA_SUCCESS;
}

/* The current context and the peer it names, both usable; caller holds no lock. */
static CUresult peer_enter(CUcontext peer, CUcontext *cur)
{
    CUresult e = drv_ctx_enter(cur);
    if (e != CUDA_SUCCESS) return e;
    if (!peer) return CUDA_ERROR_INVALID_CONTEXT;
    return drv_ctx_check(peer);
}

CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    CUcontext c;
    CUresult e = peer_enter(peerContext, &c);
    if (e != CUDA_SUCCESS) return e;
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;   /* reserved */
    if (peerContext->device == c->device) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    drv_lock();
    e = peer_find(c, peerContext) >= 0 ? CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
                                       : peer_add(c, peerContext);
    drv_unlock();
    return e;
}

CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    CUcontext c;
    CUresult e = peer_enter(peerContext, &c);
    if (e != CUDA_SUCCESS) return e;
    drv_lock();
    long i = peer_find(c, peerContext);
    if (i >= 0) peers[i] = peers[--npeers];
    drv_unlock();
    return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

uint32_t drv_peer_mask(CUcontext c)
{
    uint32_t m = 1u << c->device;
    drv_lock();
    for (size_t i = 0; i < npeers; i++)
        if (peers[i].from == c) m |= 1u << peers[i].to->device;
    drv_unlock();
    return m;
}

void drv_peer_forget(CUcontext c)
{
    drv_lock();
    for (size_t i = 0; i < npeers;)
        if (peers[i].from == c || peers[i].to == c) peers[i] = peers[--npeers];
        else i++;
    drv_unlock();
}
