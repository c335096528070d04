/* async.h - the asynchronous engine: copies and stores that complete after they are issued.
 *
 * Contract: cp.async, cp.async.bulk(.tensor), cp.reduce.async.bulk(.tensor), st.async and
 * red.async only *queue* an operation when a thread issues them (checking its operands
 * then, so misuse faults at the issuing instruction). The data moves when the operation
 * completes, and only then does its completion mechanism fire: the thread's cp.async
 * group, its bulk async-group, or complete-tx on an mbarrier. When operations complete is
 * decided here, between the turns the scheduler gives warps (async_round), and by waits
 * that need them (wait_group, an mbarrier wait that would fail). PTXEMU_ASYNC=late
 * completes each operation only when a wait needs it (or the cluster ends), which exposes
 * a missing wait as stale data.
 */
#ifndef PTXEMU_ASYNC_H
#define PTXEMU_ASYNC_H

#include "machine.h"

AsyncQueue *async_queue_new(void);
void async_queue_reset(AsyncQueue *q);
void async_queue_free(AsyncQueue *q);

/* The scheduler's decision point after a warp's turn: completes operations according to
 * the policy. Returns -1 when completing one faulted (the launch is aborted). */
int async_round(Cluster *cl);
/* Complete everything still in flight (the cluster has finished). */
int async_drain(Cluster *cl);
int async_pending(const Cluster *cl);
uint32_t async_count(const Cluster *cl);
/* Deterministic mode: complete the k-th operation in flight (k modulo their number). */
int async_complete_index(Cluster *cl, uint32_t k);

/* mbarrier objects (64-bit words in shared memory), shared by mbarrier.* and the engine. */
void mbar_complete_tx(uint64_t *mbar, uint32_t bytes);
void mbar_arrive_async(uint64_t *mbar);

#endif
