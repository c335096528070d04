/* devrt_cg.c - the device runtime's cooperative-groups entry points (libcudadevrt's
 * cudaCGGetIntrinsicHandle, cudaCGSynchronize, cudaCGGetSize, cudaCGGetRank), which Numba's
 * cg.this_grid().sync() calls and nvcc programs may. They are device code that waits for
 * other blocks, which a host function (exec_call.c) cannot do, so they are PTX: ptxemu's own,
 * linked into a module that calls them and defines none of them (jit_module_link).
 *
 * What they do, recorded on an H200 with driver 580 (tests/expected/driver/cg_devrt.txt):
 * in a cooperative launch the handle is nonzero and every block waits at each
 * cudaCGSynchronize until all have arrived, which returns 0; in a plain launch the handle is
 * 0 and every call returns 999 (cudaErrorUnknown) at once. The GPU's handle is no address a
 * program may read (reading it faults); here it is the address of the barrier's two words in
 * the launch's grid workspace (%envreg1:%envreg2, 16 bytes: its size and nvcc's grid.sync()
 * counter first, then these) with the top bit flipped, so that a read faults too: a counter of
 * arrived blocks and a generation that the last block to arrive advances.
 */
#include <string.h>
#include "call.h"

static const char cg_ptx[] =
    "//\n// ptxemu: the device runtime's cooperative-groups entry points (emu/devrt_cg.c)\n//\n"
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".visible .func (.param .b64 handle) cudaCGGetIntrinsicHandle(.param .b32 scope)\n"
    "{\n"
    "\t.reg .pred %p<3>;\n"
    "\t.reg .b32 %r<4>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.b32 %r1, [scope];\n"
    "\tmov.u32 %r2, %envreg1;\n"
    "\tmov.u32 %r3, %envreg2;\n"
    "\tmov.b64 %rd1, {%r3, %r2};\n"
    "\tsetp.eq.u64 %p1, %rd1, 0;\n"
    "\tsetp.ne.u32 %p2, %r1, 1;\n"           /* cudaCGScopeGrid */
    "\tor.pred %p1, %p1, %p2;\n"
    "\tadd.u64 %rd2, %rd1, 8;\n"
    "\txor.b64 %rd2, %rd2, -9223372036854775808;\n"   /* the tag: no address */
    "\tselp.b64 %rd2, 0, %rd2, %p1;\n"
    "\tst.param.b64 [handle], %rd2;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .func (.param .b32 status) cudaCGSynchronize(.param .b64 handle, .param .b32 flags)\n"
    "{\n"
    "\t.reg .pred %p<4>;\n"
    "\t.reg .b32 %r<12>;\n"
    "\t.reg .b64 %rd<3>;\n"
    "\tld.param.b64 %rd1, [handle];\n"
    "\tsetp.eq.u64 %p1, %rd1, 0;\n"
    "\t@%p1 bra NOGRID;\n"
    "\txor.b64 %rd1, %rd1, -9223372036854775808;\n"
    "\tbar.sync 0;\n"
    /* one thread a block arrives: thread (0,0,0) */
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmov.u32 %r2, %tid.y;\n"
    "\tor.b32 %r1, %r1, %r2;\n"
    "\tmov.u32 %r2, %tid.z;\n"
    "\tor.b32 %r1, %r1, %r2;\n"
    "\tsetp.ne.u32 %p2, %r1, 0;\n"
    "\t@%p2 bra LEAVE;\n"
    "\tmov.u32 %r3, %nctaid.x;\n"
    "\tmov.u32 %r4, %nctaid.y;\n"
    "\tmul.lo.u32 %r3, %r3, %r4;\n"
    "\tmov.u32 %r4, %nctaid.z;\n"
    "\tmul.lo.u32 %r3, %r3, %r4;\n"
    "\tadd.u64 %rd2, %rd1, 4;\n"
    /* the generation cannot move before this block has arrived */
    "\tld.acquire.gpu.u32 %r5, [%rd2];\n"
    "\tatom.acq_rel.gpu.add.u32 %r6, [%rd1], 1;\n"
    "\tadd.u32 %r6, %r6, 1;\n"
    "\tsetp.ne.u32 %p3, %r6, %r3;\n"
    "\t@%p3 bra WAIT;\n"
    /* the last to arrive: the counter starts again, then the others may go */
    "\tst.relaxed.gpu.u32 [%rd1], 0;\n"
    "\tadd.u32 %r7, %r5, 1;\n"
    "\tst.release.gpu.u32 [%rd2], %r7;\n"
    "\tbra LEAVE;\n"
    "WAIT:\n"
    "\tld.acquire.gpu.u32 %r8, [%rd2];\n"
    "\tsetp.eq.u32 %p3, %r8, %r5;\n"
    "\t@%p3 bra WAIT;\n"
    "LEAVE:\n"
    "\tbar.sync 0;\n"
    "\tmov.u32 %r9, 0;\n"
    "\tst.param.b32 [status], %r9;\n"
    "\tret;\n"
    "NOGRID:\n"
    "\tmov.u32 %r9, 999;\n"                   /* cudaErrorUnknown, as recorded */
    "\tst.param.b32 [status], %r9;\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .func (.param .b32 status) cudaCGGetSize(.param .b64 nthreads, .param .b64 ngrids,\n"
    "\t.param .b64 handle)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<8>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.b64 %rd1, [nthreads];\n"
    "\tld.param.b64 %rd2, [ngrids];\n"
    "\tld.param.b64 %rd3, [handle];\n"
    "\tsetp.eq.u64 %p1, %rd3, 0;\n"
    "\t@%p1 bra NOGRID;\n"
    "\tmov.u32 %r1, %ntid.x;\n"
    "\tmov.u32 %r2, %ntid.y;\n"
    "\tmul.lo.u32 %r1, %r1, %r2;\n"
    "\tmov.u32 %r2, %ntid.z;\n"
    "\tmul.lo.u32 %r1, %r1, %r2;\n"
    "\tmov.u32 %r2, %nctaid.x;\n"
    "\tmul.lo.u32 %r1, %r1, %r2;\n"
    "\tmov.u32 %r2, %nctaid.y;\n"
    "\tmul.lo.u32 %r1, %r1, %r2;\n"
    "\tmov.u32 %r2, %nctaid.z;\n"
    "\tmul.lo.u32 %r1, %r1, %r2;\n"
    "\tst.u32 [%rd1], %r1;\n"
    "\tmov.u32 %r3, 1;\n"
    "\tst.u32 [%rd2], %r3;\n"
    "\tmov.u32 %r4, 0;\n"
    "\tst.param.b32 [status], %r4;\n"
    "\tret;\n"
    "NOGRID:\n"
    "\tmov.u32 %r4, 999;\n"
    "\tst.param.b32 [status], %r4;\n"
    "\tret;\n"
    "}\n"
    "\n"
    /* the thread's rank in the grid (x fastest, blocks likewise); the grid's rank, 1 in a
     * one-device cooperative launch as recorded */
    ".visible .func (.param .b32 status) cudaCGGetRank(.param .b64 trank, .param .b64 grank,\n"
    "\t.param .b64 handle)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<12>;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tld.param.b64 %rd1, [trank];\n"
    "\tld.param.b64 %rd2, [grank];\n"
    "\tld.param.b64 %rd3, [handle];\n"
    "\tsetp.eq.u64 %p1, %rd3, 0;\n"
    "\t@%p1 bra NOGRID;\n"
    "\tmov.u32 %r1, %ctaid.z;\n"           /* block rank */
    "\tmov.u32 %r2, %nctaid.y;\n"
    "\tmov.u32 %r3, %ctaid.y;\n"
    "\tmad.lo.u32 %r1, %r1, %r2, %r3;\n"
    "\tmov.u32 %r2, %nctaid.x;\n"
    "\tmov.u32 %r3, %ctaid.x;\n"
    "\tmad.lo.u32 %r1, %r1, %r2, %r3;\n"
    "\tmov.u32 %r4, %tid.z;\n"             /* thread rank in the block */
    "\tmov.u32 %r5, %ntid.y;\n"
    "\tmov.u32 %r6, %tid.y;\n"
    "\tmad.lo.u32 %r4, %r4, %r5, %r6;\n"
    "\tmov.u32 %r5, %ntid.x;\n"
    "\tmov.u32 %r6, %tid.x;\n"
    "\tmad.lo.u32 %r4, %r4, %r5, %r6;\n"
    "\tmov.u32 %r7, %ntid.x;\n"            /* block size */
    "\tmov.u32 %r8, %ntid.y;\n"
    "\tmul.lo.u32 %r7, %r7, %r8;\n"
    "\tmov.u32 %r8, %ntid.z;\n"
    "\tmul.lo.u32 %r7, %r7, %r8;\n"
    "\tmad.lo.u32 %r9, %r1, %r7, %r4;\n"
    "\tst.u32 [%rd1], %r9;\n"
    "\tmov.u32 %r10, 1;\n"
    "\tst.u32 [%rd2], %r10;\n"
    "\tmov.u32 %r11, 0;\n"
    "\tst.param.b32 [status], %r11;\n"
    "\tret;\n"
    "NOGRID:\n"
    "\tmov.u32 %r11, 999;\n"
    "\tst.param.b32 [status], %r11;\n"
    "\tret;\n"
    "}\n";

static const char *const cg_names[] = { "cudaCGGetIntrinsicHandle", "cudaCGSynchronize",
                                        "cudaCGGetSize", "cudaCGGetRank" };

int devrt_cg_provides(const char *name)
{
    for (size_t i = 0; i < sizeof cg_names / sizeof cg_names[0]; i++)
        if (!strcmp(cg_names[i], name)) return 1;
    return 0;
}

const char *devrt_cg_ptx(size_t *len)
{
    *len = sizeof cg_ptx - 1;
    return cg_ptx;
}
