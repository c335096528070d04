/* machine.h - the running machine: translated programs, launches, CTAs and warps.
 *
 * Contract: a Program is immutable after translation and shared by all launches. A Launch
 * owns one kernel run; a worker thread takes CTAs of it one at a time and runs their warps
 * (warps are data, see engine.c); the first fault of a launch wins and aborts it.
 * Registers of a warp are lane-contiguous rows: row r of lane l is w->R[r * 32 + l].
 */
#ifndef PTXEMU_MACHINE_H
#define PTXEMU_MACHINE_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <pthread.h>
#include "inst.h"
#include "idle.h"

#define WARP_SIZE 32
#define DIV_MAX 64        /* nested divergence regions a warp tracks (deeper ones merge) */
#define FULL_MASK 0xffffffffu
#define OBS_MAX_TOOLS 8   /* tools attached at once (observe.h): each has a slot in tool[] */

/* Special registers that are constant for a warp become rows filled at warp start. */
enum {
    SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
    SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
    SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID,
    SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE,
    SR_DYN_SMEM, SR_TOTAL_SMEM, SR_PARAMBASE,
    SR_CLUSTERID_X, SR_CLUSTERID_Y, SR_CLUSTERID_Z, SR_NCLUSTERID_X, SR_NCLUSTERID_Y,
    SR_NCLUSTERID_Z, SR_CLUSTER_CTAID_X, SR_CLUSTER_CTAID_Y, SR_CLUSTER_CTAID_Z,
    SR_CLUSTER_NCTAID_X, SR_CLUSTER_NCTAID_Y, SR_CLUSTER_NCTAID_Z, SR_CLUSTER_CTARANK,
    SR_CLUSTER_NCTARANK, SR_IS_EXPLICIT_CLUSTER,
    SR_AGGR_SMEM, SR_RESERVED_SMEM_BEGIN, SR_RESERVED_SMEM_END, SR_RESERVED_SMEM_CAP,
    SR_CURRENT_GRAPH_EXEC,
    SR_ENVREG0, SR_ENVREG31 = SR_ENVREG0 + 31,
    SR_PM0, SR_PM7 = SR_PM0 + 7, SR_PM0_64, SR_PM7_64 = SR_PM0_64 + 7,
    SR_COUNT_STATIC,
    /* time-varying ones, read by the <sreg> op (Inst.imm holds the id) */
    SR_CLOCK = SR_COUNT_STATIC, SR_CLOCK_HI, SR_CLOCK64, SR_GLOBALTIMER, SR_GLOBALTIMER_LO,
    SR_GLOBALTIMER_HI,
    SR_COUNT
};

/* A source location of CUDA code, from .loc; code inlined from a header also has the line
 * of the kernel's own source it was inlined into (the end of the inlined_at chain). */
typedef struct SrcLoc { uint32_t file, line, ofile, oline; } SrcLoc;

/* Extern host functions called through libffi (exec_call.c). */
typedef struct CallDesc CallDesc;

/* A constant row whose value comes from the kernel parameters of each launch. */
typedef struct KparamRow { uint32_t row, offset; uint8_t size, is_signed; } KparamRow;

/* A PTX register's name and where it lives, for the step debugger (emu/debug.c): a row of
 * GPRs or a predicate index, valid in code [pc_lo, pc_hi) (the function declaring it). */
typedef struct RegName {
    const char *name;           /* "%r5", "%tid.x"                                          */
    uint32_t slot;              /* row, or predicate index when is_pred                      */
    uint32_t pc_lo, pc_hi;
    uint8_t type;               /* TY_* as declared                                          */
    uint8_t is_pred;
} RegName;

/* A static .shared variable's PTX name and place in the block's shared memory. */
typedef struct SharedName { char *name; uint32_t offset, size; } SharedName;

typedef struct Program {
    char *name;                 /* kernel name (mangled): JSON, the debugger's kernel filters */
    char *dname;                /* the same demangled, for messages people read             */
    Inst *code;                 /* the kernel body first, then every .func it can reach      */
    uint32_t ncode;
    uint32_t nrows;             /* GPR rows per warp                                        */
    uint32_t npreds;            /* predicates per warp                                       */
    uint64_t *row_init;         /* nrows values: rows < first_var_row are constants          */
    uint32_t first_var_row;     /* rows below this are constants, copied at warp start       */
    int32_t sreg_row[SR_COUNT_STATIC]; /* row holding each static special register, -1 none */
    uint32_t shared_static;     /* bytes of static .shared, dynamic shared starts after it   */
    uint32_t dyn_shared_align;  /* alignment of the extern .shared array                     */
    uint32_t frame_size;        /* local bytes the kernel's own frame needs                  */
    uint32_t uses_local;        /* kernel touches local memory or calls functions            */
    uint32_t reads_clock;       /* kernel reads %clock/%clock64 (the estimate keeps to that clock) */
    uint32_t param_size;        /* bytes of kernel parameters                                */
    uint32_t nparams;
    uint32_t *param_offset, *param_size_of; /* layout of each kernel parameter              */
    int reqntid[3], maxntid[3];
    int reqncta[3];             /* .reqnctapercluster, 0s if none                            */
    int explicit_cluster;       /* .explicitcluster                                          */
    uint32_t obs;               /* the groups of observed events it was bound for (observe.h) */
    const char *const *files;   /* .file paths by index (owned by the Module)               */
    uint32_t nfiles;
    SrcLoc *locs; uint32_t nlocs;
    KparamRow *kparams; uint32_t nkparams; /* rows filled from the launch's parameters   */
    struct FnDesc *fdesc;       /* by module function index: callees of indirect calls       */
    uint32_t nfdesc;
    const char *ptx_name;       /* source name of the PTX, for messages                      */
    struct SharedName *shared_names;   /* every static shared variable with its offset, for */
    uint32_t nshared_names;            /*   the step debugger's source variables            */
    RegName *regnames;          /* every declared register and used special register, by     */
    uint32_t nregnames;         /*   function; names live in the same allocation             */
    const char *ptx_text;       /* the PTX, when the debugger keeps it (owned by the module) */
    /* the compiled tier (jit/compile.c), the only fields that change after translation: */
    void *native;               /* its NativeFn (native.h) once built; warp_run uses it      */
    void *native_lib;           /* the shared object that holds it                           */
    int native_state;           /* the compiled tier's own bookkeeping                        */
    /* every worker adds to it at every block's end: alone on its cache line, or each add
     * makes the next warp's read of `native` miss (false sharing) */
    char hot_pad0[64];
    uint64_t hot;               /* thread instructions run so far (atomic)                    */
    char hot_pad1[64];
} Program;

typedef struct Launch Launch;
typedef struct Cta Cta;
typedef struct Cluster Cluster;
typedef struct AsyncQueue AsyncQueue;

#define MAX_CLUSTER 16
/* shared::cluster addresses: (rank + 1) << CLUSTER_RANK_SHIFT | offset names the shared
 * memory of another CTA of the cluster (what mapa returns); without rank bits an address is
 * the own CTA's, as the shared::cta window lies inside the shared::cluster window. */
#define CLUSTER_RANK_SHIFT 27

struct Warp {
    uint64_t *R;                /* nrows * 32                                              */
    uint32_t *P;                /* npreds bit masks, one bit a lane                          */
    uint32_t pc;                /* pc of the running group                                   */
    uint32_t active;            /* lanes of the running group                                */
    uint32_t alive;             /* lanes that have not exited                                */
    uint32_t waiting;           /* lanes parked at a barrier or a warp sync                  */
    uint32_t merge_pc;          /* lowest pc among other runnable lanes, UINT32_MAX if none  */
    uint32_t lane_pc[WARP_SIZE];/* pc of lanes outside the running group                     */
    uint32_t fp[WARP_SIZE];     /* frame pointer (local-space offset) of each lane           */
    uint16_t depth[WARP_SIZE];  /* call depth of each lane                                   */
    uint32_t sync_wait;         /* lanes of `waiting` parked at a warp-synchronous instruction */
    uint32_t sync_go;           /* lanes a completed warp sync released: they run theirs at once */
    uint32_t sync_join;         /* running a warp sync for lanes of several sites (warp.c)    */
    uint32_t bar_wait;          /* lanes of `waiting` parked at a CTA barrier                */
    uint8_t bar_id[WARP_SIZE];  /* which barrier each of those lanes waits on: 0..15, or    */
#define CLUSTER_BARRIER_ID 16   /*   barrier.cluster                                        */
#define WGMMA_GATE_ID 17        /*   its warpgroup's wgmma gate (exec_wgmma.c)              */
    uint8_t cl_phase[WARP_SIZE];/* cluster-barrier phase each lane last arrived in (parity)   */
    int spin;                   /* the last try_wait failed: let other warps run             */
    int spin_resume;            /* deterministic mode: this turn resumes such a polling loop */
    const uint64_t *spin_mbar;  /* the mbarrier the last failing try_wait/test_wait polled,  */
    uint32_t spin_parity;       /* the parity it waited for (2: a state's phase)            */
    uint32_t spin_pc;           /* and that wait's pc                                        */
    const uint64_t *fresh_mbar; /* first mbarrier a parity-1 wait passed at once while fresh */
    uint32_t fresh_pc;          /* and that wait's pc                                        */
    uint64_t prio;              /* deterministic mode: PCT priority (higher runs first)      */
    uint32_t sp;                /* open divergence regions (stk entries)                     */
    uint32_t cpa_group[WARP_SIZE];  /* cp.async groups each lane has committed               */
    uint32_t bulk_group[WARP_SIZE]; /* bulk async-groups each lane has committed             */
    uint32_t id;                /* warp index within the CTA                                 */
    uint32_t valid;             /* lanes that exist (last warp of a CTA may be partial)      */
    uint32_t cc;                /* carry flag CC.CF of each lane (add.cc, addc, mad.cc, ...) */
    int blocked;                /* 0 runnable; else waiting on barrier id+1                  */
    int bar_left;               /* a CTA barrier released lanes of it: its next turn is short */
    int bar_whole;              /* id+1 of the CTA barrier all 32 lanes reached together,   */
                                /*   parked at one pc with no region open (sched.c), else 0 */
    int short_turn;             /* this turn is that short one, in compiled code (sched.c)   */
    int done;
    uint64_t steps;             /* warp-instructions executed                                */
    uint64_t lane_steps;        /* thread-instructions executed (lanes that ran)             */
    uint64_t slots;             /* issue slots of those (Inst.cost: the units' rates)        */
    uint64_t idle_steps;        /* of steps, those no lane executed (guard false in all)      */
    uint32_t wg_target;         /* waiting at a wgmma for its warpgroup's gate generation    */
    uint32_t wg_commits;        /* wgmma.commit_group executed                               */
    uint32_t wg_inflight;       /* this warp's wgmma operations not yet complete             */
    uint32_t wg_issued;         /* the warp that opened the gate issued this warp's wgmma    */
    uint64_t span_since;        /* spans (OBS_SPAN): start of the running or waiting interval */
    /* deterministic mode: a loop that spins on memory without progress (engine.c) */
    uint32_t back_jumps;        /* backward jumps taken                                      */
    uint32_t loop_pc;           /* the backward branch seen at the last check                */
    uint64_t loop_hash;         /* the warp's registers, predicates and lanes at that check  */
    uint8_t wrote;              /* wrote memory (or synchronised) since that check           */
    uint8_t mem_spin;           /* the last check found the state unchanged and nothing written */
    uint64_t poll_hash[4];      /* the state (warp_state_hash) at its last four failed polls  */
    uint32_t m_sect, m_wave;    /* --clock model: global sectors and shared wavefronts it moved */
    uint8_t span_wait, span_reason; /* spans: waiting (EVW_* reason) rather than running     */
    uintptr_t tool[OBS_MAX_TOOLS]; /* a word each attached tool keeps with the warp (observe.h) */
    Cta *cta;
    Launch *launch;
    const Program *prog;
    /* Divergence regions, innermost last: the lanes that split at a branch and the pc where
     * they meet again. Not cleared at warp start: sp says how many are valid. `at`: lanes of
     * the region that a branch sent straight to its join (an `if` without else) and that
     * wait there, not running, until it closes (warp.c: the join needs no lane scan). */
    struct DivEntry { uint32_t rpc, mask, depth, at; } stk[DIV_MAX];
    uint8_t *local;             /* local memory of lane 0; lane l at local + l * local_stride */
    uint32_t local_stride;
};

#define ROW(w, r) ((w)->R + (size_t)(r) * WARP_SIZE)

/* The CUDA source place of `in` for messages: "file:line" in the kernel's own source, then
 * " (inlined from header:line)" for code inlined from a header (an atomic, cooperative
 * groups, cuda::barrier), so that a student sees the line they wrote. base: file names
 * without their directories. Writes "" and returns 0 without line info. */
static inline int src_place(const Program *p, const Inst *in, char *buf, size_t n, int base)
{
    *buf = 0;
    if (!in->loc || in->loc >= p->nlocs) return 0;
    const SrcLoc *s = &p->locs[in->loc];
    const char *of = s->ofile < p->nfiles && p->files[s->ofile] ? p->files[s->ofile] : "?";
    const char *f = s->file < p->nfiles && p->files[s->file] ? p->files[s->file] : "?";
    if (base) {
        for (const char *c = of; *c; c++) if (*c == '/') of = c + 1;
        for (const char *c = f; *c; c++) if (*c == '/') f = c + 1;
    }
    int k = snprintf(buf, n, "%s:%u", of, s->oline);
    if ((s->file != s->ofile || s->line != s->oline) && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " (inlined from %s:%u)", f, s->line);
    return 1;
}

/* The kernel-source file and line of `in` (code inlined from a header counts as the line it
 * was inlined into), and the header's when it is inlined; 0 without line info. */
static inline int src_lines(const Program *p, const Inst *in, const char **file, uint32_t *line,
                            const char **ifile, uint32_t *iline)
{
    if (!in->loc || in->loc >= p->nlocs) return 0;
    const SrcLoc *s = &p->locs[in->loc];
    *file = s->ofile < p->nfiles && p->files[s->ofile] ? p->files[s->ofile] : "?";
    *line = s->oline;
    *ifile = NULL;
    *iline = 0;
    if (s->file != s->ofile || s->line != s->oline) {
        *ifile = s->file < p->nfiles && p->files[s->file] ? p->files[s->file] : "?";
        *iline = s->line;
    }
    return 1;
}

struct Cta {
    uint32_t ctaid[3];
    uint32_t linear;            /* linear CTA index in the grid                               */
    uint8_t *shared;            /* static + dynamic shared memory                             */
    uint32_t shared_size;
    Warp *warps; uint32_t nwarps;
    uint32_t nthreads;
    /* barriers 0..15: arrived thread count and expected count (0 = all threads) */
    uint32_t bar_arrived[16], bar_expected[16];
    uint32_t bar_red[16];       /* bar.red accumulators: popc count / and / or               */
    int bar_red_op[16];
    uint32_t exited_threads;
    Launch *launch;
    Cluster *cluster;
    uint32_t rank;              /* %cluster_ctarank                                          */
    uint32_t cl_ctaid[3];       /* %cluster_ctaid                                            */
    uint8_t wg_arrived[8];      /* warps of each warpgroup arrived at the current wgmma      */
    uint32_t wg_gen[8];         /* wgmma gates each warpgroup has passed                     */
    struct WgQueue *wgq;        /* wgmma.mma_async operations in flight (exec_wgmma.c)       */
    uint32_t cdp_issued;        /* device-side launches and copies this CTA has issued (cdp.c) */
    uint64_t span_t0;           /* spans: when the CTA became resident                        */
    void *tool[OBS_MAX_TOOLS];  /* each attached tool's state for the block (observe.h)       */
};

/* The CTAs that run together (a CTA alone when the launch has no clusters). */
struct Cluster {
    Cta *ctas[MAX_CLUSTER];
    uint32_t n;
    uint32_t id[3];             /* %clusterid                                                */
    uint32_t nthreads, exited_threads;
    uint32_t bar_arrived;       /* barrier.cluster: threads arrived in the current phase     */
    uint8_t bar_phase;          /* parity of the current barrier.cluster phase               */
    AsyncQueue *aq;             /* asynchronous operations in flight (async.c)              */
    void *tool[OBS_MAX_TOOLS];  /* each attached tool's state for the cluster (observe.h)     */
    uint32_t still_rounds;      /* rounds in which every warp polled with its state unchanged */
    Launch *launch;
};

typedef struct Fault {
    int code;                   /* cudaError_t value to report                               */
    char msg[2048];             /* the one-line diagnostic                                   */
} Fault;

struct Launch {
    const Program *prog;
    uint32_t grid[3], block[3];
    uint32_t cluster[3];        /* CTAs per cluster in each dimension (1,1,1 = none)         */
    uint32_t cluster_size;
    int explicit_cluster;       /* %is_explicit_cluster                                      */
    int cooperative;            /* every CTA resident at once (grid-wide sync)               */
    uint32_t coop_workers;      /* workers sharing a cooperative launch's clusters           */
    uint64_t grid_ws;           /* cooperative grid workspace (%envreg1:%envreg2), else 0    */
    uint64_t graph_exec;        /* %current_graph_exec: the graph exec running it, else 0    */
    uint32_t dyn_shared;
    uint64_t param_addr;        /* device address of the parameter buffer (in the arena)     */
    uint8_t *params;            /* host view of it                                           */
    uint32_t shared_total;      /* static + dynamic shared bytes of each CTA                 */
    size_t local_stride;        /* local bytes per thread (0 = the kernel uses none)         */
    uint64_t *const_rows;       /* constant rows broadcast to 32 lanes, copied at warp start */
    uint64_t seq;               /* launch number, unique in the process                      */
    int det;                    /* deterministic mode: every choice from `seed` (sched.c)    */
    uint32_t obs;               /* the groups of events its tools subscribe to (observe.h)   */
    void *tool[OBS_MAX_TOOLS];  /* each attached tool's state for the launch (observe.h)      */
    uint64_t span_t0, span_t1;  /* spans: when it began and ended on the emulated clock       */
    uint64_t seed;
    uint64_t det_steps;         /* scheduling steps taken (the virtual %globaltimer)         */
    uint64_t ncta;
    IdleRule idle;              /* blocks whose threads all leave at once (idle.h)           */
    /* What every worker writes, alone on its cache lines (the pads keep the read-mostly
     * fields around it, read by every worker at every CTA and warp, off those lines). */
    char hot_pad0[64];
    uint64_t next_cta;          /* atomic: next CTA to hand out                              */
    uint64_t thread_insts;      /* counter: sum over warps of popcount(mask) per instruction */
    uint64_t warp_insts;        /* warp instructions some lane executed (the profile's count) */
    uint64_t warp_slots;        /* issue slots of all issued, those no lane executed too (a   */
                                /*   branch no lane takes): the time estimate counts them     */        /* counter: their issue slots (Inst.cost), for the time model */
    char hot_pad1[64];
    volatile int aborted;       /* set when a fault is recorded                              */
    uint64_t deadline_ns;       /* PTXEMU_TIMEOUT: monotonic time the launch must end by, 0 none */
    char *limit_js;             /* past the time limit: every cluster's warps as JSON objects, */
    size_t limit_len;           /*   for the launch's one "timeout" record (sched_report_limit) */
    int limit_stop;             /* it ended because the run is being stopped (stop.c)        */
    int may_park;               /* the driver lets a launch that waits for the host park (sched.c) */
    void *park_buf;             /*   the parked cluster's worker buffer, NULL while not parked   */
    uint64_t park_t0, park_hash;/*   when the spin checks began, and the state the last one saw  */
    Fault fault;
    pthread_mutex_t lock;       /* guards fault and printf buffer                            */
    char *out; size_t out_len, out_cap; /* device printf output, flushed at launch end   */
    uint64_t printf_cap;        /* printf records the FIFO holds (devprintf.c; 0 no limit), */
    uint64_t printf_n, printf_dropped;   /*   written and dropped for want of room           */
    uint32_t warned_pc[16], nwarned;    /* instructions that already printed a warning   */
    void *kernel;               /* the EmuKernel running (device-side launches name others) */
    uint32_t cdp_depth;         /* nesting depth: 0 launched by the host                     */
    struct CdpState *cdp;       /* work the grid launched from the device (cdp.c), or NULL   */
    struct Profile {            /* what the timing model reads (model.c): traffic and waits the
                                 * profile tool counts, the model's setup of the launch       */
        uint64_t gld_req, gld_sec, gst_req, gst_sec;     /* global loads / stores, sectors    */
        uint64_t sld_req, sld_wave, sst_req, sst_wave;   /* shared loads / stores, wavefronts */
        uint64_t wait_ns, run_ns;                        /* warps waiting / running (emulated) */
        uint64_t bar_arrivals;                           /* warps arriving at bar.sync/arrive  */
        double model_start_ns;   /* --clock model: when the launch starts on the model's timeline */
        double model_warps;      /*   and how many warps share an SM with each of its warps      */
        uint64_t clock_cpi;      /* %clock's cycles a warp instruction: its share of the SM's issue */
        uint64_t span_max;       /* the most cycles a warp's own clock counted (profile_warp_done) */
        void *atoms;             /* global atomics: updates by address and by 4 KiB region (profile.c) */
        double atom_ns;          /*   the time they serialise, once counted (-1: not yet)       */
        uint64_t atom_ret_sec;   /* sectors of atomics that return their old value (atom, not red) */
    } prof;
};
typedef struct Profile Profile;

/* Generic addresses of shared and local memory are windows no host mapping uses. */
#define SHARED_WINDOW 0x0000020000000000ull   /* generic = SHARED_WINDOW + shared offset  */
#define LOCAL_WINDOW  0x0000030000000000ull   /* generic = LOCAL_WINDOW + local offset    */
#define WINDOW_SIZE   0x0000000100000000ull   /* each window spans 4 GiB                   */

/* Kinds of device memory (mem_alloc), and how an instruction accesses memory. */
enum { MEM_DEVICE = 0, MEM_HOST_PINNED, MEM_MANAGED, MEM_MODULE, MEM_PARAM, MEM_HEAP,
       MEM_CONST /* module .const variables: not in the generic .global window */,
       MEM_REGISTERED /* the program's own memory, registered: outside the arena */,
       MEM_REGISTERED_RO /* the same, registered read-only: device writes fault */,
       MEM_VMM /* physical memory mapped into a reserved range (cuMemMap), accessible */,
       MEM_IPC /* another process's allocation, opened with cuIpcOpenMemHandle */ };

enum { ACC_READ = 0, ACC_WRITE = 1, ACC_ATOMIC = 2 };

/* Record a fault for the lane and abort the launch. The message names the kernel, the PTX
 * line and CUDA file:line of the current instruction, the block, the thread and whatever the
 * caller formats. Returns STEP_FAULT so handlers can `return warp_fault(...)`. */
int warp_fault(Warp *w, int lane, int cuda_err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "kernel K, file:line, PTX name:line, block (..), thread (..)" of lane `lane` at w's pc. */
void warp_where(Warp *w, int lane, char *buf, size_t n);

/* Population count without relying on the popcnt instruction (baseline x86-64 lacks it
 * and the libgcc call cost 3% of the run loop). */
static inline uint32_t popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* Lane loops: the full-warp form is a plain loop the compiler can vectorize. */
/* Undefined behaviour the H100 does not fault on: one warning line on stderr per
 * instruction and launch; the kernel goes on as the hardware does. */
void warp_warn(Warp *w, int lane, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same, with its own JSON kind: "out-of-bounds" (an access the H100's pages tolerate,
 * which --report-json counts as an error). */
void warp_warn_kind(Warp *w, int lane, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Undefined behaviour reported as an error ("ptxemu: undefined behaviour: ..." and a JSON
 * line of kind "undefined"), once per instruction and launch; the kernel goes on as the
 * GPU does. */
void warp_undefined(Warp *w, int lane, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Run the body for each lane of `mask` (a variable of that name in scope), `l` being the
 * lane. The full-warp case is a plain counted loop so that gcc -O2 vectorizes the simple
 * ones: rows are either the same row or disjoint, so lane l only touches index l of each
 * row and no dependence crosses iterations, which ivdep tells gcc (without it -O2 adds no
 * alias checks and keeps every loop scalar: 70 handler loops vectorize with it). */
#define LANES(l, ...)                                                         \
    do {                                                                      \
        if (mask == FULL_MASK) {                                              \
            _Pragma("GCC ivdep") _Pragma("GCC unroll 8")                     \
            for (int l = 0; l < WARP_SIZE; l++) { __VA_ARGS__; }              \
        } else {                                                              \
            FOR_LANES(mask, l) { __VA_ARGS__; }                               \
        }                                                                     \
    } while (0)

#define FOR_LANES(mask, l) \
    for (int l = 0; l < WARP_SIZE; l++) if (((mask) >> l) & 1u)

/* The order in which one st instruction's lanes reach memory, as the H200 does it when several
 * lanes store to one address (tests/cuda/store_conflict.cu): lanes go in passes of 128 bytes
 * (all 32 lanes for elements of up to 4 bytes, 16 for 8-byte, 8 for 16-byte accesses), the
 * passes in lane order, and within a pass the lowest lane's value stays - so the lanes of a
 * pass store from the highest down. SIZE: the bytes one lane stores. */
#define ST_PASS(size) ((size) <= 4 ? WARP_SIZE : 128 / (int)(size))
#define FOR_LANES_ST(mask, size, l)                                                   \
    for (int l##_pass = 0; l##_pass < WARP_SIZE; l##_pass += ST_PASS(size))           \
        for (int l = l##_pass + ST_PASS(size) - 1; l >= l##_pass; l--) if (((mask) >> l) & 1u)

#endif
