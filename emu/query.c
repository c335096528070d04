/* query.c - the read-only views tools see the machine through (query.h). */
#include "query.h"
#include "memory.h"
#include "scheduler.h"
#include "async.h"
#include "asyncop.h"

int query_is_global(uint64_t addr)
{
    return mem_is_global(addr);
}

static const char *op_name(int kind)
{
    switch (kind) {
    case AOP_CPASYNC: return "cp.async";
    case AOP_CPASYNC_ARRIVE: return "cp.async.mbarrier.arrive";
    case AOP_BULK: return "cp.async.bulk";
    case AOP_BULK_REDUCE: return "cp.reduce.async.bulk";
    case AOP_TENSOR: return "cp.async.bulk.tensor";
    case AOP_ST_ASYNC: return "st.async";
    case AOP_RED_ASYNC: return "red.async";
    default: return "async operation";
    }
}

int query_async(const Cluster *cl, uint32_t i, QueryAsync *out)
{
    const AsyncOp *op = async_op_at(cl, i);
    if (!op) return -1;
    *out = (QueryAsync){ op_name(op->kind), op->w, op->lane, op->pc, op->dst, op->size, op->mbar,
                         op->group_kind == GROUP_CPASYNC ? 1 : op->group_kind == GROUP_BULK ? 2 : 0,
                         op->group, op->done };
    return 0;
}

QueryMbar query_mbar(uint64_t v)
{
    return (QueryMbar){ (v & MB_VALID) != 0, (int)(v >> 62 & 1), (v & MB_DONE) != 0, MB_PENDING(v),
                        MB_EXPECTED(v), mbar_tx(v) };
}
