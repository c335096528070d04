/* call.h - how calls are described: PTX .func calls through each thread's local frame, and
 * calls of extern functions implemented on the host (vprintf, malloc, free, __assertfail)
 * made through libffi from the .param signature.
 *
 * Frame layout of a called function (offsets from the lane's frame pointer, local space):
 *   [0,4) return pc   [4,8) caller's frame pointer   then params, return params, the .param
 *   variables of its call blocks, its .local variables, and, for functions on a call-graph
 *   cycle, the save area for their registers (restored on ret so recursion keeps its values).
 */
#ifndef PTXEMU_CALL_H
#define PTXEMU_CALL_H

#include <stdint.h>
#include <ffi.h>
#include "machine.h"

enum { CA_FRAME = 0, CA_ROW = 1 };

/* One value moved by a call or a return: from src to dst, each either a frame offset
 * (a .param variable, in the caller's frame for src of an argument / dst of a result and
 * in the callee's frame otherwise) or a register row (.reg parameters, register operands). */
typedef struct CallArg {
    uint8_t kind;          /* how src is given: CA_FRAME or CA_ROW                    */
    uint8_t dkind;         /* how dst is given                                        */
    uint32_t src, dst;
    uint32_t size;
} CallArg;

/* A function as a callee: where its code starts and where it keeps its parameters and
 * results (indirect calls learn the callee only at run time). */
typedef struct FnDesc {
    uint32_t pc, frame;        /* entry pc (UINT32_MAX: not in this kernel), frame size   */
    uint32_t nparams, nrets;
    uint8_t pkind[16], rkind[16];  /* CA_FRAME / CA_ROW                                    */
    uint32_t pslot[16], psize[16], rslot[16], rsize[16];
    int recursive;
    uint32_t save_off, row_lo, row_hi, pred_lo, pred_hi;
} FnDesc;

/* Device function pointers: a distinct value per module function, outside every memory
 * window so that using one as an address faults. */
#define FUNC_PTR_BASE 0x0000050000000000ull
#define FUNC_PTR_STEP 16

struct CallDesc {
    int is_extern;
    int indirect;              /* call through a register: callee_row holds the pointer  */
    uint32_t callee_row;
    const char *name;
    uint32_t caller_frame;     /* caller's frame size: the callee frame starts there      */
    uint32_t callee_frame;     /* callee's frame size                                     */
    uint32_t nargs, nrets;
    CallArg *args, *rets;
    /* registers saved on call and restored on ret (recursive callees only) */
    int recursive;
    uint32_t save_off, row_lo, row_hi, pred_lo, pred_hi;
    /* extern calls: the host function and its libffi description */
    void *host_fn;
    ffi_cif cif;
    ffi_type *atypes[16];
    ffi_type *rtype;
};

/* Bind an extern .func (by name and prototype) to its host implementation. Fills the
 * extern part of cd. Returns NULL or an error message. */
const char *call_bind_extern(CallDesc *cd, const PtxFunc *proto);

/* The extern function `name` is one of those (the linker lets it stay undefined). */
int call_host_provided(const char *name);
/* The device runtime's cooperative-groups entry points are PTX, not host functions
 * (devrt_cg.c): whether name is one, and their text, which the JIT links into a module that
 * calls them and defines none of them. */
int devrt_cg_provides(const char *name);
const char *devrt_cg_ptx(size_t *len);

/* Host functions learn which thread called them from this per-worker context. */
void exec_call_context(Warp *w, int lane);
/* The last host call recorded a fault: CALL_FAULTED stops the warp at once; CALL_ASSERTED (a
 * failed assert) lets the other lanes of the call run first, as each failing thread of a
 * warp reports its assert on the GPU. */
enum { CALL_FAULTED = 1, CALL_ASSERTED = 2 };
int exec_call_faulted(void);

#define FRAME_HEADER 8

#endif
