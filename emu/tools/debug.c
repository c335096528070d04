/* debug.c - the step debugger (`ptxemu debug`) and the instruction trace (`--trace`).
 *
 * The debugger lives inside the interpreter: debug_before sees every instruction a warp is
 * about to run and decides whether to stop there (the first instruction of the first
 * launch, a breakpoint, the end of a step). A stop reads commands until one resumes the
 * machine; because deterministic mode runs every warp on this one thread, nothing moves
 * meanwhile, and the same seed reaches the same stop again. Breakpoints and steps count
 * *entries* into a line: a warp enters a line when the instruction it runs has a different
 * line from the one it ran before, or it got there by a jump.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tools.h"
#include "debuginfo.h"

enum { DBG_OFF = 0, DBG_INTERACTIVE = 1, DBG_TRACE = 2 };
static int debug_on;
static int slot;   /* Warp.tool[slot]: pc + 1 of the last instruction the warp ran, 0 none */

enum { BP_SRC = 1, BP_PTX, BP_KERNEL };
enum { M_RUN, M_STEPI, M_STEP, M_NEXT, M_FINISH, M_STOP_ANY };
#define MAXBP 64
#define MAXMB 512
#define MAXTEXT 32

typedef struct Key { uint64_t seq; uint32_t cta, warp; } Key;

/* Where a stop or a trace applies: any block/warp/lane unless set (-1 = any). */
typedef struct Filter { int block[3], thread[3], warp, lane; } Filter;

typedef struct Bp {
    int id, kind;
    char file[256];             /* BP_SRC: a path or its last components; "" any file      */
    char kernel[256];           /* BP_KERNEL: part of the (mangled) kernel name             */
    uint32_t line;
    Filter f;
    uint32_t hits;
    uint64_t last_seq;          /* BP_KERNEL: the launch it stopped in                      */
} Bp;

typedef struct Text { const void *key; char *buf; uint32_t *off; uint32_t n; } Text;

static struct {
    FILE *in, *out;
    int echo;                   /* commands come from a file or pipe: show them             */
    char *pending, *pend_at;    /* -c commands not yet run, one a line                      */
    Bp bp[MAXBP];
    int nbp, next_id;
    int mode;                   /* M_*                                                       */
    uint32_t count;             /* entries left in a step                                    */
    int ran;                    /* the focused warp ran since the step began                 */
    Key focus;
    int has_focus, lane;
    uint32_t from_file, from_line;   /* the source line a step started on                    */
    uint16_t depth;             /* next: the call depth it started at; finish: the one to leave */
    int started;
    int skip_first;             /* only -b breakpoints were given: no stop before them        */
    char last[256];             /* the command an empty line repeats                         */
    Warp *cur, *fw;             /* the warp stopped here, and the one commands look at       */
    /* the trace */
    FILE *tout;
    char tkernel[256], tfile[256];
    uint32_t tline;
    int tline_kind;             /* 0 none, BP_SRC or BP_PTX                                  */
    Filter tf;
    /* mbarriers initialised, to list them */
    struct { uint64_t seq; uint32_t cta, off; } mb[MAXMB];
    int nmb;
    Text texts[MAXTEXT];
    int ntexts;
} D;

/* ---- texts: CUDA sources read from disk, the PTX the module kept ---- */

static Text *text_index(const void *key, char *buf)
{
    if (D.ntexts == MAXTEXT) { free(buf); return NULL; }
    Text *t = &D.texts[D.ntexts++];
    t->key = key;
    t->buf = buf;
    if (!buf) return t;
    uint32_t cap = 1024;
    t->off = malloc(cap * sizeof *t->off);
    for (char *c = buf; t->off; ) {
        if (t->n == cap) {
            uint32_t *o = realloc(t->off, (cap *= 2) * sizeof *o);
            if (!o) break;
            t->off = o;
        }
        t->off[t->n++] = (uint32_t)(c - buf);
        char *nl = strchr(c, '\n');
        if (!nl) break;
        *nl = 0;
        c = nl + 1;
    }
    return t;
}

static const Text *text_find(const void *key)
{
    for (int i = 0; i < D.ntexts; i++)
        if (D.texts[i].key == key) return &D.texts[i];
    return NULL;
}

static const Text *file_text(const char *path)
{
    const Text *t = text_find(path);
    if (t) return t;
    FILE *f = path ? fopen(path, "r") : NULL;
    char *buf = NULL;
    if (f) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = n >= 0 && n < (64l << 20) ? malloc((size_t)n + 1) : NULL;
        if (buf) buf[fread(buf, 1, (size_t)n, f)] = 0;
        fclose(f);
    }
    return text_index(path, buf);   /* an unreadable file is remembered as such */
}

static const Text *ptx_text(const Program *p)
{
    if (!p->ptx_text) return NULL;
    const Text *t = text_find(p->ptx_text);
    return t ? t : text_index(p->ptx_text, strdup(p->ptx_text));
}

/* Line `line` (1-based) of t without leading blanks, "" when there is none. */
static const char *text_line(const Text *t, uint32_t line)
{
    if (!t || !t->buf || line < 1 || line > t->n) return "";
    const char *s = t->buf + t->off[line - 1];
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* ---- places ---- */

static Key key_of(const Warp *w) { return (Key){ w->launch->seq, w->cta->linear, w->id }; }

static int is_focus(const Warp *w)
{
    return D.has_focus && w->launch->seq == D.focus.seq && w->cta->linear == D.focus.cta &&
           w->id == D.focus.warp;
}

/* The CUDA file and line of in, in the kernel's own source (machine.h src_lines); 0 without
 * line info. */
static int src_of(const Program *p, const Inst *in, const char **file, uint32_t *line)
{
    const char *ifile;
    uint32_t iline;
    return src_lines(p, in, file, line, &ifile, &iline);
}

/* The header line of inlined code; 0 when in is not inlined. */
static int inner_of(const Program *p, const Inst *in, const char **file, uint32_t *line)
{
    const char *of;
    uint32_t ol;
    return src_lines(p, in, &of, &ol, file, line) && *file;
}

static int same_src(const Program *p, const Inst *a, const Inst *b)
{
    if (!a->loc || !b->loc || a->loc >= p->nlocs || b->loc >= p->nlocs) return a->loc == b->loc;
    return p->locs[a->loc].ofile == p->locs[b->loc].ofile && p->locs[a->loc].oline == p->locs[b->loc].oline;
}

/* Where a warp stands: the running group's pc, else the first live lane's. */
static uint32_t warp_pc(const Warp *w)
{
    if (w->active) return w->pc;
    for (uint32_t m = w->alive; m; m &= m - 1) return w->lane_pc[__builtin_ctz(m)];
    return w->pc;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* A breakpoint's file names `path` when it is the path or its last components. */
static int file_matches(const char *want, const char *path)
{
    if (!*want) return 1;
    size_t a = strlen(want), b = strlen(path);
    return a <= b && !strcmp(path + b - a, want) && (a == b || path[b - a - 1] == '/');
}

static void thread_of(const Warp *w, int lane, uint32_t t[3])
{
    const Launch *L = w->launch;
    uint32_t i = w->id * WARP_SIZE + (uint32_t)lane, bx = L->block[0], by = L->block[1];
    t[0] = i % bx; t[1] = i / bx % by; t[2] = i / (bx * by);
}

static int filter_matches(const Filter *f, const Warp *w, uint32_t lanes)
{
    const Cta *c = w->cta;
    for (int k = 0; k < 3; k++)
        if (f->block[k] >= 0 && (uint32_t)f->block[k] != c->ctaid[k]) return 0;
    if (f->warp >= 0 && (uint32_t)f->warp != w->id) return 0;
    if (f->lane >= 0 && !(lanes >> f->lane & 1)) return 0;
    if (f->thread[0] >= 0) {
        const Launch *L = w->launch;
        uint32_t t = (uint32_t)f->thread[0] + (uint32_t)(f->thread[1] > 0 ? f->thread[1] : 0) * L->block[0] +
                     (uint32_t)(f->thread[2] > 0 ? f->thread[2] : 0) * L->block[0] * L->block[1];
        if (t / WARP_SIZE != w->id || !(lanes >> (t % WARP_SIZE) & 1)) return 0;
    }
    return 1;
}

/* The lane a filter names in w, else the first of lanes. */
static int filter_lane(const Filter *f, const Warp *w, uint32_t lanes)
{
    if (f && f->lane >= 0) return f->lane;
    if (f && f->thread[0] >= 0) {
        const Launch *L = w->launch;
        uint32_t t = (uint32_t)f->thread[0] + (uint32_t)(f->thread[1] > 0 ? f->thread[1] : 0) * L->block[0] +
                     (uint32_t)(f->thread[2] > 0 ? f->thread[2] : 0) * L->block[0] * L->block[1];
        return (int)(t % WARP_SIZE);
    }
    return lanes ? __builtin_ctz(lanes) : 0;
}

static void print_place(const Warp *w)
{
    const Program *p = w->prog;
    uint32_t pc = warp_pc(w);
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    const Cta *c = w->cta;
    const Launch *L = w->launch;
    uint32_t t[3];
    thread_of(w, 0, t);
    fprintf(D.out, "  kernel %s, block (%u,%u,%u) of (%u,%u,%u), warp %u (threads from (%u,%u,%u)), "
            "lanes 0x%08x run (%d of %d alive); lane %d\n", p->dname, c->ctaid[0], c->ctaid[1],
            c->ctaid[2], L->grid[0], L->grid[1], L->grid[2], w->id, t[0], t[1], t[2], w->active,
            __builtin_popcount(w->active), __builtin_popcount(w->alive), D.lane);
    const char *file;
    uint32_t line;
    if (src_of(p, in, &file, &line)) {
        fprintf(D.out, "  %s:%u  | %s\n", file, line, text_line(file_text(file), line));
        if (inner_of(p, in, &file, &line)) fprintf(D.out, "    (inlined from %s:%u)\n", file, line);
    } else
        fprintf(D.out, "  (no CUDA source line here%s)\n", p->nlocs <= 1 ? ": rebuild with -lineinfo" : "");
    fprintf(D.out, "  PTX %s:%u  | %s\n", p->ptx_name ? p->ptx_name : "ptx", in->line,
            text_line(ptx_text(p), in->line));
    if (!w->active && w->alive)
        fprintf(D.out, "  (this warp is not running: %s)\n", sched_warp_state(w, __builtin_ctz(w->alive)));
}

/* ---- registers ---- */

static const RegName *reg_find(const Program *p, const char *name, uint32_t pc)
{
    const RegName *any = NULL;
    for (uint32_t i = 0; i < p->nregnames; i++) {
        const RegName *r = &p->regnames[i];
        if (strcmp(r->name, name)) continue;
        if (pc >= r->pc_lo && pc < r->pc_hi) return r;
        if (!any) any = r;
    }
    return any;
}

static float half_to_float(uint16_t h, int bf)
{
    if (bf) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
    uint32_t s = (uint32_t)(h >> 15) << 31, e = h >> 10 & 31, m = h & 1023, u;
    if (e == 31) u = s | 0x7f800000u | m << 13;
    else if (e) u = s | (e + 112) << 23 | m << 13;
    else if (!m) u = s;
    else { e = 113; while (!(m & 1024)) { m <<= 1; e--; } u = s | e << 23 | (m & 1023) << 13; }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void fmt_value(int type, uint64_t v, char *buf, size_t n)
{
    switch (type) {
    case TY_F32: { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); snprintf(buf, n, "%.9g", f); break; }
    case TY_F64: { double d; memcpy(&d, &v, 8); snprintf(buf, n, "%.17g", d); break; }
    case TY_F16: case TY_BF16: snprintf(buf, n, "%g (0x%04x)", half_to_float((uint16_t)v, type == TY_BF16), (unsigned)(v & 0xffff)); break;
    case TY_S8: snprintf(buf, n, "%d", (int8_t)v); break;
    case TY_S16: snprintf(buf, n, "%d", (int16_t)v); break;
    case TY_S32: snprintf(buf, n, "%d", (int32_t)v); break;
    case TY_S64: snprintf(buf, n, "%lld", (long long)v); break;
    case TY_U8: case TY_U16: case TY_U32: snprintf(buf, n, "%u", (unsigned)v); break;
    case TY_U64: snprintf(buf, n, v >> 32 ? "0x%llx" : "%llu", (unsigned long long)v); break;
    case TY_B8: case TY_B16: case TY_B32: snprintf(buf, n, "0x%x (%d)", (unsigned)v, (int32_t)v); break;
    default: snprintf(buf, n, "0x%llx", (unsigned long long)v); break;
    }
}

static void reg_value(const Warp *w, const RegName *r, int lane, char *buf, size_t n)
{
    if (r->is_pred) snprintf(buf, n, "%s", w->P[r->slot] >> lane & 1 ? "true" : "false");
    else fmt_value(r->type, ROW(w, r->slot)[lane], buf, n);
}

/* threadIdx, blockIdx, blockDim, gridDim, warpSize of a lane, and their .x/.y/.z: 1 when
 * `name` is one of them. */
static int builtin_value(const Warp *w, const char *name, int lane, char *buf, size_t n)
{
    const Launch *L = w->launch;
    uint32_t v[3], len = (uint32_t)strcspn(name, ".");
    if (!strncmp(name, "threadIdx", len) && len == 9) thread_of(w, lane, v);
    else if (!strncmp(name, "blockIdx", len) && len == 8) memcpy(v, w->cta->ctaid, sizeof v);
    else if (!strncmp(name, "blockDim", len) && len == 8) memcpy(v, L->block, sizeof v);
    else if (!strncmp(name, "gridDim", len) && len == 7) memcpy(v, L->grid, sizeof v);
    else if (!strcmp(name, "warpSize")) { snprintf(buf, n, "32"); return 1; }
    else return 0;
    const char *f = name + len;
    if (!*f) snprintf(buf, n, "{x = %u, y = %u, z = %u}", v[0], v[1], v[2]);
    else if (!strcmp(f, ".x") || !strcmp(f, ".y") || !strcmp(f, ".z")) snprintf(buf, n, "%u", v[f[1] - 'x']);
    else return 0;
    return 1;
}

/* A source variable's value in a lane (nvcc -G's DWARF, debuginfo.c); 0 with why in buf when
 * there is none to show. */
static int var_value(const Warp *w, const DebugInfo *di, const DiVar *v, int lane, char *buf, size_t n)
{
    const Program *p = w->prog;
    uint32_t pc = warp_pc(w);
    DiWhere at = debuginfo_where(di, v, pc);
    uint8_t bytes[512];
    size_t size = debuginfo_size(di, v);
    switch (at.kind) {
    case DL_REG: {
        const RegName *r = reg_find(p, at.reg, pc);
        if (!r) { snprintf(buf, n, "<in %s, which this function does not declare>", at.reg); return 0; }
        uint64_t x = r->is_pred ? (w->P[r->slot] >> lane & 1) : ROW(w, r->slot)[lane];
        memcpy(bytes, &x, 8);
        debuginfo_format(di, v, bytes, 8, buf, n);
        return 1;
    }
    case DL_PARAM: {
        const Launch *L = w->launch;
        if (at.param < 0 || (uint32_t)at.param >= p->nparams || !L->params) break;
        size_t sz = p->param_size_of[at.param] < sizeof bytes ? p->param_size_of[at.param] : sizeof bytes;
        memcpy(bytes, L->params + p->param_offset[at.param], sz);
        debuginfo_format(di, v, bytes, sz, buf, n);
        return 1;
    }
    case DL_SHARED:
        for (uint32_t i = 0; i < p->nshared_names; i++) {
            const SharedName *s = &p->shared_names[i];
            if (strcmp(s->name, at.symbol)) continue;
            size_t sz = size < s->size ? size : s->size;
            if (sz > sizeof bytes) sz = sizeof bytes;
            if (s->offset + sz > w->cta->shared_size) break;
            memcpy(bytes, w->cta->shared + s->offset, sz);
            debuginfo_format(di, v, bytes, sz, buf, n);
            return 1;
        }
        snprintf(buf, n, "<in shared memory, where the debugger cannot find it>");
        return 0;
    case DL_MEMORY:
        snprintf(buf, n, "<in local memory: not shown yet>");
        return 0;
    }
    snprintf(buf, n, "<not available at this point: optimized out, or not yet set>");
    return 0;
}

static const char *var_type(const DebugInfo *di, const DiVar *v, char *buf, size_t n)
{
    debuginfo_type_name(di, v, buf, n);
    return buf;
}

/* print NAME [lane N | all]: a source variable, threadIdx and its kin, or a PTX register */
static void cmd_print(char **arg, int narg)
{
    Warp *w = D.fw;
    if (narg < 1) { fprintf(D.out, "print: what? (print VARIABLE | threadIdx.x | %%r5 [lane N | all])\n"); return; }
    int all = narg >= 2 && !strcmp(arg[1], "all");
    int lane = narg >= 3 && !strcmp(arg[1], "lane") ? atoi(arg[2]) : D.lane;
    if (lane < 0 || lane >= WARP_SIZE) { fprintf(D.out, "print: lane %d is not 0..31\n", lane); return; }
    char v[1024], ty[200];
    if (arg[0][0] != '%' && builtin_value(w, arg[0], lane, v, sizeof v)) {
        if (!all) { fprintf(D.out, "%s of lane %d = %s\n", arg[0], lane, v); return; }
        fprintf(D.out, "%s, every lane ('-' exited):\n", arg[0]);
        for (int l = 0; l < WARP_SIZE; l++) {
            if (w->valid >> l & 1) builtin_value(w, arg[0], l, v, sizeof v); else snprintf(v, sizeof v, "-");
            fprintf(D.out, "%s[%2d] %-14s", l % 4 ? "" : "  ", l, v);
            if (l % 4 == 3) fputc('\n', D.out);
        }
        return;
    }
    const DebugInfo *di = arg[0][0] != '%' ? debuginfo_of(w->prog) : NULL;
    const DiVar *var = di ? debuginfo_find(di, warp_pc(w), arg[0]) : NULL;
    if (var) {
        var_type(di, var, ty, sizeof ty);
        if (!all) {
            var_value(w, di, var, lane, v, sizeof v);
            fprintf(D.out, "%s (%s) of lane %d = %s%s\n", arg[0], ty, lane, v,
                    w->alive >> lane & 1 ? "" : " (the lane has exited)");
            return;
        }
        fprintf(D.out, "%s (%s), every lane ('-' exited):\n", arg[0], ty);
        for (int l = 0; l < WARP_SIZE; l++) {
            if (w->alive >> l & 1) var_value(w, di, var, l, v, sizeof v); else snprintf(v, sizeof v, "-");
            fprintf(D.out, "%s[%2d] %-14s", l % 4 ? "" : "  ", l, v);
            if (l % 4 == 3) fputc('\n', D.out);
        }
        return;
    }
    char name[128];
    snprintf(name, sizeof name, "%s%s", arg[0][0] == '%' ? "" : "%", arg[0]);
    const RegName *r = reg_find(w->prog, name, warp_pc(w));
    if (!r) {
        if (arg[0][0] == '%') fprintf(D.out, "print: kernel %s has no register %s\n", w->prog->dname, name);
        else if (!debuginfo_of(w->prog))
            fprintf(D.out, "print: no variable '%s' here: kernel %s has no source variables (build "
                    "with nvcc -G to see them; -lineinfo gives source lines only); threadIdx, blockIdx, "
                    "blockDim, gridDim and PTX registers (%%r5) are always there\n", arg[0], w->prog->dname);
        else fprintf(D.out, "print: no variable '%s' in scope here (info locals lists them)\n", arg[0]);
        return;
    }
    if (all) {
        fprintf(D.out, "%s (%s), every lane ('-' exited):\n", name, ptx_type_name(r->type));
        for (int l = 0; l < WARP_SIZE; l++) {
            if (w->alive >> l & 1) reg_value(w, r, l, v, sizeof v); else snprintf(v, sizeof v, "-");
            fprintf(D.out, "%s[%2d] %-14s", l % 4 ? "" : "  ", l, v);
            if (l % 4 == 3) fputc('\n', D.out);
        }
        return;
    }
    reg_value(w, r, lane, v, sizeof v);
    fprintf(D.out, "%s (%s) of lane %d = %s%s\n", name, ptx_type_name(r->type), lane, v,
            w->alive >> lane & 1 ? "" : " (the lane has exited)");
}

/* info locals / info args: the source variables in scope and their values in the lane */
static void cmd_locals(int args)
{
    Warp *w = D.fw;
    const DebugInfo *di = debuginfo_of(w->prog);
    if (!di) {
        fprintf(D.out, "no source variables: kernel %s was built without -G (-lineinfo gives lines only)\n",
                w->prog->dname);
        return;
    }
    const DiVar *vars[128];
    size_t n = debuginfo_scope(di, warp_pc(w), vars, 128);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (debuginfo_is_param(vars[i]) != args) continue;
        char v[1024], ty[200];
        var_value(w, di, vars[i], D.lane, v, sizeof v);
        fprintf(D.out, "  %s (%s) = %s\n", debuginfo_name(vars[i]), var_type(di, vars[i], ty, sizeof ty), v);
        any = 1;
    }
    if (!any) fprintf(D.out, "no %s here\n", args ? "arguments" : "local variables");
    else fprintf(D.out, "  (lane %d; print NAME all shows every lane)\n", D.lane);
}

static void cmd_regs(char **arg, int narg)
{
    Warp *w = D.fw;
    int lane = narg >= 2 && !strcmp(arg[0], "lane") ? atoi(arg[1]) : D.lane;
    if (lane < 0 || lane >= WARP_SIZE) { fprintf(D.out, "regs: lane %d is not 0..31\n", lane); return; }
    uint32_t pc = warp_pc(w);
    fprintf(D.out, "registers of lane %d:\n", lane);
    int col = 0;
    for (uint32_t i = 0; i < w->prog->nregnames; i++) {
        const RegName *r = &w->prog->regnames[i];
        if (pc < r->pc_lo || pc >= r->pc_hi) continue;
        char v[96], cell[160];
        reg_value(w, r, lane, v, sizeof v);
        snprintf(cell, sizeof cell, "%s=%s", r->name, v);
        fprintf(D.out, "%s%-26s", col ? "" : "  ", cell);
        if (++col == 3) { fputc('\n', D.out); col = 0; }
    }
    if (col) fputc('\n', D.out);
}

/* ---- memory ---- */

/* A number, or a register's value in the focused lane. */
static int value_of(const char *s, uint64_t *v)
{
    if (s[0] == '%') {
        const RegName *r = reg_find(D.fw->prog, s, warp_pc(D.fw));
        if (!r || r->is_pred) { fprintf(D.out, "no register %s\n", s); return 0; }
        *v = ROW(D.fw, r->slot)[D.lane];
        return 1;
    }
    char *end;
    *v = strtoull(s, &end, 0);
    if (*end) { fprintf(D.out, "not a number or register: %s\n", s); return 0; }
    return 1;
}

static void dump_words(const uint8_t *p, uint64_t addr, uint32_t count, const char *space)
{
    for (uint32_t i = 0; i < count; i++) {
        uint32_t u;
        float f;
        memcpy(&u, p + 4 * i, 4);
        memcpy(&f, &u, 4);
        fprintf(D.out, "  %s 0x%llx: 0x%08x  %11d  %.9g\n", space, (unsigned long long)(addr + 4 * i),
                u, (int32_t)u, f);
    }
}

static void cmd_shared(char **arg, int narg, int generic)
{
    uint64_t a, n = 8;
    if (narg < 1) { fprintf(D.out, "%s: give an address (a number or a register)\n", generic ? "x" : "shared"); return; }
    if (!value_of(arg[0], &a) || (narg >= 2 && !value_of(arg[1], &n))) return;
    if (n < 1 || n > 4096) n = 8;
    Cta *c = D.fw->cta;
    int shared = !generic || (a >= SHARED_WINDOW && a < SHARED_WINDOW + WINDOW_SIZE);
    if (shared) {
        uint64_t off = a >= SHARED_WINDOW ? a - SHARED_WINDOW : a;
        if (off >> CLUSTER_RANK_SHIFT) {   /* another CTA's shared memory (mapa) */
            uint32_t rank = (uint32_t)(off >> CLUSTER_RANK_SHIFT) - 1;
            if (rank >= c->cluster->n) { fprintf(D.out, "no CTA of rank %u in this cluster\n", rank); return; }
            c = c->cluster->ctas[rank];
            off &= (1u << CLUSTER_RANK_SHIFT) - 1;
        }
        if (off + 4 * n > c->shared_size) {
            fprintf(D.out, "shared offset 0x%llx + %llu words is outside the block's %u bytes of shared memory\n",
                    (unsigned long long)off, (unsigned long long)n, c->shared_size);
            return;
        }
        dump_words(c->shared + off, off, (uint32_t)n, "shared");
        return;
    }
    const uint8_t *p = mem_host(a, 4 * n);
    if (!p) { fprintf(D.out, "0x%llx .. +%llu bytes is not inside one live device allocation\n", (unsigned long long)a, (unsigned long long)(4 * n)); return; }
    dump_words(p, a, (uint32_t)n, "global");
}

static void cmd_mbarriers(void)
{
    Warp *w = D.fw;
    Cta *c = w->cta;
    int any = 0;
    for (int i = 0; i < D.nmb; i++) {
        if (D.mb[i].seq != w->launch->seq || D.mb[i].cta != c->linear) continue;
        const uint64_t *m = (const uint64_t *)(c->shared + D.mb[i].off);
        uint64_t v = *m;
        any = 1;
        QueryMbar q = query_mbar(v);
        if (!q.valid) { fprintf(D.out, "  mbarrier at shared 0x%x: invalidated\n", D.mb[i].off); continue; }
        fprintf(D.out, "  mbarrier at shared 0x%x: phase of parity %u in progress (%s), %u of %u arrivals "
                "pending, %d transaction bytes pending\n", D.mb[i].off, (unsigned)q.phase,
                q.done ? "earlier phases completed" : "no phase completed yet", q.pending,
                q.expected, q.tx);
        for (uint32_t k = 0; k < c->nwarps; k++) {
            if (!c->warps[k].spin || c->warps[k].spin_mbar != m) continue;
            if (c->warps[k].spin_parity < 2)
                fprintf(D.out, "      warp %u polls it for parity %u\n", k, c->warps[k].spin_parity);
            else
                fprintf(D.out, "      warp %u polls it for the phase of the state it holds\n", k);
        }
    }
    if (!any) fprintf(D.out, "no mbarrier initialised in this block yet\n");
}

static void cmd_async(void)
{
    Cluster *cl = D.fw->cta->cluster;
    uint32_t n = async_count(cl), shown = 0;
    for (uint32_t i = 0; i < n; i++) {
        QueryAsync q;
        const QueryAsync *op = &q;
        if (query_async(cl, i, &q) || op->done) continue;
        if (++shown > 16) continue;   /* counted, not shown */
        const Warp *w = op->w;
        const Program *p = w->prog;
        const Inst *in = &p->code[op->pc < p->ncode ? op->pc : 0];
        const char *file = NULL;
        uint32_t line = 0;
        char src[300] = "", dst[80];
        if (src_of(p, in, &file, &line)) snprintf(src, sizeof src, "%s:%u, ", file, line);
        const uint8_t *sh = w->cta->shared;
        if (op->dst >= sh && op->dst < sh + w->cta->shared_size)
            snprintf(dst, sizeof dst, "shared 0x%x", (unsigned)(op->dst - sh));
        else
            snprintf(dst, sizeof dst, "0x%llx", (unsigned long long)(uintptr_t)op->dst);
        fprintf(D.out, "  %s of %u bytes to %s, issued by block rank %u warp %u lane %u at %sPTX line %u",
                op->what, op->size, dst, w->cta->rank, w->id, op->lane, src, in->line);
        if (op->mbar && (const uint8_t *)op->mbar >= sh && (const uint8_t *)op->mbar < sh + w->cta->shared_size)
            fprintf(D.out, "; completes on the mbarrier at shared 0x%x", (unsigned)((const uint8_t *)op->mbar - sh));
        else if (op->group_kind)
            fprintf(D.out, "; in %s group %u", op->group_kind == 1 ? "cp.async" : "bulk", op->group);
        fputc('\n', D.out);
    }
    if (shown > 16) fprintf(D.out, "  ... and %u more (%u in flight)\n", shown - 16, shown);
    if (!shown) fprintf(D.out, "no asynchronous copy in flight in this %s\n", cl->n > 1 ? "cluster" : "block");
}

/* ---- warps and lanes ---- */

static void line_words(const Program *p, uint32_t pc, char *buf, size_t n)
{
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    const char *file;
    uint32_t line;
    if (src_of(p, in, &file, &line)) snprintf(buf, n, "PTX line %u (%s:%u)", in->line, base_name(file), line);
    else snprintf(buf, n, "PTX line %u", in->line);
}

static void cmd_warps(void)
{
    Cta *c = D.fw->cta;
    for (uint32_t i = 0; i < c->nwarps; i++) {
        Warp *w = &c->warps[i];
        char at[300];
        line_words(w->prog, warp_pc(w), at, sizeof at);
        const char *state = w->alive ? sched_warp_state(w, __builtin_ctz(w->alive & w->waiting ? w->alive & w->waiting : w->alive)) : "exited";
        fprintf(D.out, "%c warp %2u  %-34s lanes 0x%08x run  %s\n", w == D.fw ? '*' : ' ', i,
                w->alive ? at : "-", w->active, state);
    }
}

static void cmd_lanes(void)
{
    Warp *w = D.fw;
    const Program *p = w->prog;
    char at[300];
    line_words(p, warp_pc(w), at, sizeof at);
    fprintf(D.out, "  running:  0x%08x (%d lanes) at %s\n", w->active, __builtin_popcount(w->active), at);
    fprintf(D.out, "  alive:    0x%08x; exited 0x%08x\n", w->alive, w->valid & ~w->alive);
    if (w->bar_wait & w->alive) fprintf(D.out, "  at a barrier:   0x%08x\n", w->bar_wait & w->alive);
    if (w->sync_wait & w->alive) fprintf(D.out, "  at a warp sync: 0x%08x\n", w->sync_wait & w->alive);
    uint32_t rest = w->alive & ~w->active & ~w->waiting;
    while (rest) {   /* the other paths, grouped by where they stand */
        uint32_t pc = w->lane_pc[__builtin_ctz(rest)], group = 0;
        for (uint32_t m = rest; m; m &= m - 1)
            if (w->lane_pc[__builtin_ctz(m)] == pc) group |= 1u << __builtin_ctz(m);
        line_words(p, pc, at, sizeof at);
        fprintf(D.out, "  waiting to run: 0x%08x at %s\n", group, at);
        rest &= ~group;
    }
    if (!w->sp) { fprintf(D.out, "  converged: no open divergence region\n"); return; }
    fprintf(D.out, "  divergence regions, innermost last:\n");
    for (uint32_t i = 0; i < w->sp; i++) {
        const struct DivEntry *e = &w->stk[i];
        if (e->rpc == RPC_EXIT) snprintf(at, sizeof at, "the function's exit");
        else line_words(p, e->rpc, at, sizeof at);
        fprintf(D.out, "    lanes 0x%08x split; they rejoin at %s\n", e->mask, at);
    }
}

static void list_text(const Text *t, uint32_t line, const char *what)
{
    if (!t || !t->buf) { fprintf(D.out, "cannot read %s here\n", what); return; }
    uint32_t lo = line > 5 ? line - 5 : 1, hi = line + 5 < t->n ? line + 5 : t->n;
    for (uint32_t l = lo; l <= hi; l++)
        fprintf(D.out, "%c%5u  %s\n", l == line ? '>' : ' ', l, t->buf + t->off[l - 1]);
}

static void cmd_list(int ptx)
{
    const Program *p = D.fw->prog;
    uint32_t pc = warp_pc(D.fw);
    const Inst *in = &p->code[pc < p->ncode ? pc : 0];
    const char *file;
    uint32_t line;
    if (ptx) { list_text(ptx_text(p), in->line, "the PTX (the module was loaded before the debugger started)"); return; }
    if (!src_of(p, in, &file, &line)) {
        fprintf(D.out, "no CUDA source line here (rebuild with -lineinfo); `ptx` lists the PTX\n");
        return;
    }
    char what[400];
    snprintf(what, sizeof what, "%s; `ptx` lists the PTX", file);
    list_text(file_text(file), line, what);
}

/* ---- breakpoints ---- */

static int parse_ints(const char *s, int *v, int n)
{
    for (int k = 0; k < n; k++) v[k] = -1;
    for (int k = 0; k < n && *s; k++) {
        char *end;
        long x = strtol(s, &end, 0);
        if (end == s || x < 0) return 0;
        v[k] = (int)x;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return 1;
}

/* "block X[,Y[,Z]] warp N lane N thread X[,Y[,Z]]" from arg[0..narg) */
static int parse_filter(char **arg, int narg, Filter *f)
{
    for (int k = 0; k < 3; k++) f->block[k] = f->thread[k] = -1;
    f->warp = f->lane = -1;
    for (int i = 0; i + 1 < narg; i += 2) {
        int ok = 1, v[3];
        if (!strcmp(arg[i], "block")) { ok = parse_ints(arg[i + 1], f->block, 3); for (int k = 1; k < 3; k++) if (f->block[0] >= 0 && f->block[k] < 0) f->block[k] = 0; }
        else if (!strcmp(arg[i], "thread")) ok = parse_ints(arg[i + 1], f->thread, 3);
        else if (!strcmp(arg[i], "warp")) { ok = parse_ints(arg[i + 1], v, 1); f->warp = v[0]; }
        else if (!strcmp(arg[i], "lane")) { ok = parse_ints(arg[i + 1], v, 1); f->lane = v[0]; ok &= v[0] < WARP_SIZE; }
        else ok = 0;
        if (!ok) { fprintf(D.out, "cannot read '%s %s' (block X[,Y[,Z]] | warp N | lane N | thread X[,Y[,Z]])\n", arg[i], arg[i + 1]); return 0; }
    }
    if (narg % 2) { fprintf(D.out, "'%s' needs a value\n", arg[narg - 1]); return 0; }
    return 1;
}

/* "file.cu:LINE", "LINE", "ptx:LINE" or a kernel name. */
static int parse_loc(const char *s, int *kind, char *file, size_t fn, uint32_t *line)
{
    const char *colon = strrchr(s, ':');
    const char *num = colon ? colon + 1 : s;
    int digits = *num != 0;
    for (const char *c = num; *c; c++) digits &= isdigit((unsigned char)*c) != 0;
    if (digits) {
        *line = (uint32_t)strtoul(num, NULL, 10);
        *kind = colon && !strncmp(s, "ptx:", 4) ? BP_PTX : BP_SRC;
        snprintf(file, fn, "%.*s", colon && *kind == BP_SRC ? (int)(colon - s) : 0, s);
        return 1;
    }
    *kind = BP_KERNEL;
    snprintf(file, fn, "%s", s);
    return 1;
}

static void describe_bp(const Bp *b, char *buf, size_t n)
{
    int k = 0;
    if (b->kind == BP_KERNEL) k = snprintf(buf, n, "kernel %s", b->kernel);
    else if (b->kind == BP_PTX) k = snprintf(buf, n, "PTX line %u", b->line);
    else k = snprintf(buf, n, "%s%s%u", b->file, *b->file ? ":" : "line ", b->line);
    const Filter *f = &b->f;
    if (f->block[0] >= 0 && k < (int)n) k += snprintf(buf + k, n - k, " block (%d,%d,%d)", f->block[0], f->block[1], f->block[2]);
    if (f->warp >= 0 && k < (int)n) k += snprintf(buf + k, n - k, " warp %d", f->warp);
    if (f->lane >= 0 && k < (int)n) k += snprintf(buf + k, n - k, " lane %d", f->lane);
    if (f->thread[0] >= 0 && k < (int)n)
        snprintf(buf + k, n - k, " thread (%d,%d,%d)", f->thread[0], f->thread[1] < 0 ? 0 : f->thread[1], f->thread[2] < 0 ? 0 : f->thread[2]);
}

/* Does any instruction of p stand on the breakpoint's line? */
static int bp_has_code(const Bp *b, const Program *p)
{
    for (uint32_t pc = 0; pc < p->ncode; pc++) {
        const char *file;
        uint32_t line;
        if (b->kind == BP_PTX && p->code[pc].line == b->line) return 1;
        if (b->kind == BP_SRC && src_of(p, &p->code[pc], &file, &line) && line == b->line &&
            file_matches(b->file, file)) return 1;
        if (b->kind == BP_SRC && inner_of(p, &p->code[pc], &file, &line) && line == b->line &&
            file_matches(b->file, file)) return 1;
    }
    return 0;
}

static void cmd_break(char **arg, int narg)
{
    if (narg < 1) { fprintf(D.out, "break: where? (break FILE:LINE | LINE | ptx:LINE | KERNEL [block X,Y,Z] [warp N] [lane N] [thread X,Y,Z])\n"); return; }
    if (D.nbp == MAXBP) { fprintf(D.out, "break: %d breakpoints is the most\n", MAXBP); return; }
    Bp b = { .id = ++D.next_id };
    if (!parse_loc(arg[0], &b.kind, b.file, sizeof b.file, &b.line) || !parse_filter(arg + 1, narg - 1, &b.f)) { D.next_id--; return; }
    if (b.kind == BP_KERNEL) { snprintf(b.kernel, sizeof b.kernel, "%s", b.file); b.file[0] = 0; }
    D.bp[D.nbp++] = b;
    char d[400];
    describe_bp(&b, d, sizeof d);
    fprintf(D.out, "breakpoint %d at %s\n", b.id, d);
    if (D.fw && b.kind != BP_KERNEL && !bp_has_code(&b, D.fw->prog))
        fprintf(D.out, "  (kernel %s has no code there; it may stop in another kernel)\n", D.fw->prog->dname);
}

static void cmd_delete(char **arg, int narg)
{
    if (narg < 1) { D.nbp = 0; fprintf(D.out, "deleted every breakpoint\n"); return; }
    int id = atoi(arg[0]);
    for (int i = 0; i < D.nbp; i++)
        if (D.bp[i].id == id) {
            memmove(&D.bp[i], &D.bp[i + 1], (size_t)(D.nbp - i - 1) * sizeof D.bp[0]);
            D.nbp--;
            fprintf(D.out, "deleted breakpoint %d\n", id);
            return;
        }
    fprintf(D.out, "delete: no breakpoint %d\n", id);
}

static void cmd_breaks(void)
{
    if (!D.nbp) { fprintf(D.out, "no breakpoints\n"); return; }
    for (int i = 0; i < D.nbp; i++) {
        char d[400];
        describe_bp(&D.bp[i], d, sizeof d);
        fprintf(D.out, "  %d: %s (hit %u time%s)\n", D.bp[i].id, d, D.bp[i].hits, D.bp[i].hits == 1 ? "" : "s");
    }
}

static int bp_hits(Bp *b, const Warp *w, const Inst *in, uint32_t pc, int new_ptx, int new_src)
{
    const Program *p = w->prog;
    if (b->kind == BP_KERNEL) {
        if (pc != 0 || w->tool[slot] || b->last_seq == w->launch->seq + 1 ||
            (!strstr(p->name, b->kernel) && !strstr(p->dname, b->kernel))) return 0;
    } else if (b->kind == BP_PTX) {
        if (!new_ptx || in->line != b->line) return 0;
    } else {
        const char *file, *ifile;
        uint32_t line, iline;
        if (!new_src || !src_of(p, in, &file, &line)) return 0;
        int at = line == b->line && file_matches(b->file, file);
        if (!at && inner_of(p, in, &ifile, &iline)) at = iline == b->line && file_matches(b->file, ifile);
        if (!at) return 0;
    }
    if (!filter_matches(&b->f, w, w->active)) return 0;
    if (b->kind == BP_KERNEL) b->last_seq = w->launch->seq + 1;
    b->hits++;
    return 1;
}

/* ---- the command loop ---- */

static const char help_text[] =
    "Stopping:\n"
    "  break LOC [block X,Y,Z] [warp N] [lane N] [thread X,Y,Z]   LOC: FILE:LINE, LINE, ptx:LINE or a kernel name\n"
    "  delete [N]           delete breakpoint N (every one without N)\n"
    "  info breakpoints     list the breakpoints (also: breaks)\n"
    "Running (other warps run as the seed's schedule says, until the focused warp gets there):\n"
    "  continue | c         run to the next breakpoint\n"
    "  next | n [N]         run the focused warp to its next CUDA source line, over calls (N times)\n"
    "  step | s [N]         the same, into the device functions it calls\n"
    "  finish               run until the focused lane returns from the current device function\n"
    "  stepi | si [N]       run the focused warp one PTX instruction (N of them)\n"
    "  detach               stop debugging and let the program finish\n"
    "  kill | quit | q      end the program now (exit status 1)\n"
    "Looking (at the focused warp and lane):\n"
    "  where | backtrace    where the focused warp stands\n"
    "  list | ptx           the CUDA source / the PTX around it\n"
    "  warps                every warp of the block: where it stands and what it waits for\n"
    "  cuda warp N | cuda lane N   focus on another warp of this block / another lane (also: warp N, lane N)\n"
    "  info cuda warps      every warp of the block (also: warps)\n"
    "  info cuda lanes      active mask, exited and parked lanes, divergence regions (also: lanes)\n"
    "  print | p NAME [lane N | all]   a source variable (built with nvcc -G), threadIdx, blockIdx,\n"
    "                       blockDim, gridDim (.x .y .z), or a PTX register (%r5, %f2, %p1, %tid.x)\n"
    "  info locals | info args   the source variables in scope and the function's arguments\n"
    "  regs [lane N]        every register of the current function\n"
    "  shared ADDR [N]      N 4-byte words of the block's shared memory (ADDR: offset or register)\n"
    "  x ADDR [N]           the same for a generic or global address\n"
    "  mbarriers            the block's mbarriers: phase, pending arrivals and transaction bytes\n"
    "  async                asynchronous copies in flight in the block or cluster\n"
    "An empty line repeats step, stepi or continue.\n";

static int split(char *line, char **arg, int max)
{
    int n = 0;
    for (char *s = strtok(line, " \t\r\n"); s && n < max; s = strtok(NULL, " \t\r\n")) arg[n++] = s;
    return n;
}

/* The next command: -c commands first, then the input; NULL at its end. */
static char *read_command(char *buf, size_t n)
{
    if (D.pend_at && *D.pend_at) {
        char *nl = strchr(D.pend_at, '\n');
        size_t len = nl ? (size_t)(nl - D.pend_at) : strlen(D.pend_at);
        snprintf(buf, n, "%.*s", (int)len, D.pend_at);
        D.pend_at += len + (nl != NULL);
        fprintf(D.out, "(ptxemu) %s\n", buf);
        return buf;
    }
    fprintf(D.out, "(ptxemu) ");
    fflush(D.out);
    if (!D.in || !fgets(buf, (int)n, D.in)) { fputc('\n', D.out); return NULL; }
    if (D.echo) fputs(buf, D.out);
    return buf;
}

static void resume(int mode, char **arg, int narg)
{
    D.mode = mode;
    D.count = narg >= 1 && atoi(arg[0]) > 0 ? (uint32_t)atoi(arg[0]) : 1;
    D.ran = 0;
    if (mode == M_RUN) return;
    D.focus = key_of(D.fw);
    D.has_focus = 1;
    const char *file;
    const Inst *in = &D.fw->prog->code[warp_pc(D.fw)];
    D.from_line = src_of(D.fw->prog, in, &file, &D.from_line) ? D.from_line : 0;
    D.from_file = in->loc < D.fw->prog->nlocs ? D.fw->prog->locs[in->loc].ofile : 0;
    D.depth = D.fw->depth[D.lane];
}

/* Runs commands until one resumes the machine. */
static void command_loop(void)
{
    char line[512], copy[512], *args[16], **arg;
    for (;;) {
        if (!read_command(line, sizeof line)) {
            fprintf(D.out, "ptxemu debug: end of commands; the program runs on without stopping\n");
            debug_on = DBG_OFF;
            return;
        }
        arg = args;
        int narg = split(strcpy(copy, line), arg, 16);
        if (!narg) {   /* repeat a step or continue */
            if (!D.last[0]) continue;
            narg = split(strcpy(copy, D.last), arg, 16);
        }
        const char *c = arg[0];
        int isstep = !strcmp(c, "step") || !strcmp(c, "s");
        int isnext = !strcmp(c, "next") || !strcmp(c, "n");
        int isstepi = !strcmp(c, "stepi") || !strcmp(c, "si") || !strcmp(c, "nexti") || !strcmp(c, "ni");
        int iscont = !strcmp(c, "continue") || !strcmp(c, "c") || !strcmp(c, "cont");
        int isfinish = !strcmp(c, "finish") || !strcmp(c, "fin");
        D.last[0] = 0;
        if (isfinish && !D.fw->depth[D.lane]) {
            fprintf(D.out, "finish: lane %d is in the kernel's own code, not in a device function it "
                    "called (continue runs on)\n", D.lane);
            continue;
        }
        if (isstep || isnext || isstepi || iscont || isfinish) {
            snprintf(D.last, sizeof D.last, "%s", c);
            resume(iscont ? M_RUN : isstep ? M_STEP : isnext ? M_NEXT : isfinish ? M_FINISH : M_STEPI,
                   arg + 1, narg - 1);
            return;
        }
        /* cuda-gdb's names: info cuda lanes/warps, cuda lane/warp N */
        if (!strcmp(c, "info") && narg > 2 && !strcmp(arg[1], "cuda")) { c = arg[2]; arg += 2; narg -= 2; }
        else if (!strcmp(c, "cuda") && narg > 2) { c = arg[1]; arg += 1; narg -= 1; }
        else if (!strcmp(c, "info") && narg > 1) {
            const char *what = arg[1];
            if (!strncmp(what, "locals", strlen(what))) { cmd_locals(0); continue; }
            if (!strncmp(what, "args", strlen(what))) { cmd_locals(1); continue; }
            if (!strncmp(what, "lanes", strlen(what))) { cmd_lanes(); continue; }
            if (!strncmp(what, "warps", strlen(what))) { cmd_warps(); continue; }
            if (!strncmp(what, "registers", strlen(what))) { cmd_regs(arg + 2, narg - 2); continue; }
            if (!strncmp(what, "line", strlen(what))) { print_place(D.fw); continue; }
        }
        if (!strcmp(c, "help") || !strcmp(c, "h")) fputs(help_text, D.out);
        else if (!strcmp(c, "break") || !strcmp(c, "b")) cmd_break(arg + 1, narg - 1);
        else if (!strcmp(c, "delete") || !strcmp(c, "d")) cmd_delete(arg + 1, narg - 1);
        else if (!strcmp(c, "breaks") || (!strcmp(c, "info") && narg > 1 && arg[1][0] == 'b')) cmd_breaks();
        else if (!strcmp(c, "where") || !strcmp(c, "bt") || !strcmp(c, "w") || !strcmp(c, "backtrace")) print_place(D.fw);
        else if (!strcmp(c, "list") || !strcmp(c, "l")) cmd_list(0);
        else if (!strcmp(c, "ptx")) cmd_list(1);
        else if (!strcmp(c, "warps")) cmd_warps();
        else if (!strcmp(c, "lanes") || !strcmp(c, "mask")) cmd_lanes();
        else if (!strcmp(c, "print") || !strcmp(c, "p")) cmd_print(arg + 1, narg - 1);
        else if (!strcmp(c, "regs") || !strcmp(c, "registers")) cmd_regs(arg + 1, narg - 1);
        else if (!strcmp(c, "shared")) cmd_shared(arg + 1, narg - 1, 0);
        else if (!strcmp(c, "x")) cmd_shared(arg + 1, narg - 1, 1);
        else if (!strcmp(c, "mbarriers") || !strcmp(c, "mbarrier")) cmd_mbarriers();
        else if (!strcmp(c, "async")) cmd_async();
        else if (!strcmp(c, "warp") && narg > 1) {
            uint32_t k = (uint32_t)atoi(arg[1]);
            if (k >= D.fw->cta->nwarps) fprintf(D.out, "warp: this block has warps 0..%u\n", D.fw->cta->nwarps - 1);
            else { D.fw = &D.fw->cta->warps[k]; D.lane = D.fw->active ? __builtin_ctz(D.fw->active) : 0; print_place(D.fw); }
        } else if (!strcmp(c, "lane") && narg > 1) {
            int l = atoi(arg[1]);
            if (l < 0 || l >= WARP_SIZE) fprintf(D.out, "lane: 0..31\n");
            else { D.lane = l; fprintf(D.out, "lane %d%s\n", l, D.fw->active >> l & 1 ? "" : " (not in the running group)"); }
        } else if (!strcmp(c, "detach")) {
            fprintf(D.out, "ptxemu debug: detached; the program runs on without stopping\n");
            debug_on = DBG_OFF;
            return;
        } else if (!strcmp(c, "kill") || !strcmp(c, "quit") || !strcmp(c, "q")) {
            fprintf(D.out, "ptxemu debug: program ended by the debugger\n");
            fflush(NULL);
            _exit(1);
        } else fprintf(D.out, "unknown command '%s' (try help)\n", c);
    }
}

static void stop(Warp *w, const Inst *in, const char *why, const Filter *f)
{
    if (f || !is_focus(w) || !(w->alive >> D.lane & 1)) D.lane = filter_lane(f, w, w->active);
    D.cur = D.fw = w;
    D.focus = key_of(w);
    D.has_focus = 1;
    D.mode = M_RUN;
    (void)in;
    fprintf(D.out, "ptxemu debug: %s\n", why);
    print_place(w);
    command_loop();
    D.cur = NULL;
    fflush(D.out);
}

static void debug_before(Warp *w, const Inst *in, uint32_t mask)
{
    if (debug_on != DBG_INTERACTIVE) return;
    const Program *p = w->prog;
    uint32_t pc = (uint32_t)(in - p->code);
    const Inst *prev = w->tool[slot] ? &p->code[w->tool[slot] - 1] : NULL;
    int seq = prev && w->tool[slot] == pc;
    int new_ptx = !seq || prev->line != in->line;
    int new_src = in->loc && (!seq || !same_src(p, prev, in));
    /* coming back from a call into the middle of the caller's line is no new entry into it
     * (a breakpoint on that line stopped before the call) */
    if (prev && prev->op == OP_ret && pc > 0 && p->code[pc - 1].op == OP_call) new_ptx = new_src = 0;
    (void)mask;
    char why[400];
    why[0] = 0;
    if (!D.started && D.skip_first) {   /* -b only: set them, and run to the first */
        D.started = 1;
        D.fw = w;
        char line[512], *arg[16];
        while (D.pend_at && *D.pend_at) {
            char *nl = strchr(D.pend_at, '\n');
            size_t len = nl ? (size_t)(nl - D.pend_at) : strlen(D.pend_at);
            snprintf(line, sizeof line, "%.*s", (int)len, D.pend_at);
            D.pend_at += len + (nl != NULL);
            int narg = split(line, arg, 16);
            if (narg) cmd_break(arg + 1, narg - 1);
        }
        D.fw = NULL;
    } else if (!D.started && pc == 0 && w->cta->linear == 0 && w->id == 0) {
        /* the first stop: where a student looks first, thread (0,0,0) of block 0 */
        D.started = 1;
        const Launch *L = w->launch;
        snprintf(why, sizeof why, "stopped before the first instruction of kernel %s, grid (%u,%u,%u), "
                 "block (%u,%u,%u); `help` lists the commands", p->dname, L->grid[0], L->grid[1],
                 L->grid[2], L->block[0], L->block[1], L->block[2]);
    } else if (!D.started) {
        /* other warps run until block 0's warp 0 starts (breakpoints still stop them) */
    } else if (D.mode == M_FINISH && D.ran && is_focus(w)) {
        if (w->depth[D.lane] < D.depth) snprintf(why, sizeof why, "finish: returned from the device function");
    } else if (D.mode == M_STOP_ANY) {
        snprintf(why, sizeof why, "the focused warp has exited; stopped at the next warp to run");
    } else if (D.mode != M_RUN && D.ran && is_focus(w)) {
        const char *file;
        uint32_t line = 0;
        int has = src_of(p, in, &file, &line);
        int entered = D.mode == M_STEPI ? new_ptx
                    : new_src && has && (line != D.from_line || p->locs[in->loc].ofile != D.from_file);
        if (D.mode == M_NEXT && w->depth[D.lane] > D.depth) entered = 0;   /* inside a call: over it */
        if (entered && --D.count == 0)
            snprintf(why, sizeof why, "%s done", D.mode == M_STEPI ? "stepi" : D.mode == M_NEXT ? "next" : "step");
        else if (entered && D.mode != M_STEPI) {
            D.from_line = line;
            D.from_file = p->locs[in->loc].ofile;
            if (w->depth[D.lane] < D.depth) D.depth = w->depth[D.lane];   /* returned: next goes on from there */
        }
    }
    const Filter *f = NULL;
    for (int i = 0; i < D.nbp; i++)
        if (bp_hits(&D.bp[i], w, in, pc, new_ptx, new_src) && !why[0]) {
            char d[300];
            describe_bp(&D.bp[i], d, sizeof d);
            snprintf(why, sizeof why, "breakpoint %d (%s)", D.bp[i].id, d);
            f = &D.bp[i].f;
        }
    if (why[0]) stop(w, in, why, f);
}

/* ---- the trace ---- */

static int trace_matches(const Warp *w, const Inst *in, uint32_t mask)
{
    const Program *p = w->prog;
    if (D.tkernel[0] && !strstr(p->name, D.tkernel) && !strstr(p->dname, D.tkernel)) return 0;
    if (!filter_matches(&D.tf, w, mask | w->active)) return 0;
    if (D.tline_kind == BP_PTX) return in->line == D.tline;
    if (D.tline_kind == BP_SRC) {
        const char *file;
        uint32_t line;
        return src_of(p, in, &file, &line) && line == D.tline && file_matches(D.tfile, file);
    }
    return 1;
}

/* The registers an instruction's text writes: its first operand, unless that is an address
 * ([..]), a number or a label; a {..} vector or a p|q pair counts each name. */
static void trace_dests(const Warp *w, const char *text, uint32_t pc, int lane, char *buf, size_t n)
{
    *buf = 0;
    const char *s = text;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '@') while (*s && *s != ' ' && *s != '\t') s++;   /* the guard */
    while (*s == ' ' || *s == '\t') s++;
    while (*s && *s != ' ' && *s != '\t' && *s != ';') s++;       /* the opcode */
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '[') return;
    int brace = *s == '{';
    if (brace) s++;
    size_t k = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '|') s++;
        if (*s != '%') break;
        char name[128];
        size_t len = strcspn(s, " \t,;|}[");
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        s += len;
        const RegName *r = reg_find(w->prog, name, pc);
        if (r && k < n) {
            char v[96];
            reg_value(w, r, lane, v, sizeof v);
            k += (size_t)snprintf(buf + k, n - k, "%s%s=%s", k ? " " : "", name, v);
        }
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '|') continue;
        if (!brace || *s != ',') break;
        s++;
    }
}

static void trace_record(Warp *w, const Inst *in, uint32_t mask)
{
    const Program *p = w->prog;
    uint32_t pc = (uint32_t)(in - p->code);
    const Cta *c = w->cta;
    const char *file;
    uint32_t line;
    char src[300] = "", dest[400] = "";
    if (src_of(p, in, &file, &line)) snprintf(src, sizeof src, " %s:%u", base_name(file), line);
    const char *text = text_line(ptx_text(p), in->line);
    char op[200];
    if (!*text) { snprintf(op, sizeof op, "%s", op_info[in->op].name); text = op; }
    int lane = filter_lane(&D.tf, w, mask);
    if (mask) trace_dests(w, text, pc, lane, dest, sizeof dest);
    fprintf(D.tout, "trace: %s block (%u,%u,%u) warp %u lanes 0x%08x PTX %u%s | %s", p->dname,
            c->ctaid[0], c->ctaid[1], c->ctaid[2], w->id, mask, in->line, src, text);
    if (!mask) fprintf(D.tout, " | no lane ran (guard false)");
    else if (dest[0]) fprintf(D.tout, " | lane %d: %s", lane, dest);
    fputc('\n', D.tout);
}

static void debug_after(Warp *w, const Inst *in, uint32_t mask)
{
    const Program *p = w->prog;
    uint32_t pc = (uint32_t)(in - p->code);
    w->tool[slot] = pc + 1;
    if (debug_on == DBG_TRACE) {
        /* one record a PTX instruction: after the last decoded instruction of its line */
        int last = pc + 1 >= p->ncode || p->code[pc + 1].line != in->line || w->pc != pc;
        if (last && trace_matches(w, in, mask)) trace_record(w, in, mask);
        return;
    }
    if (is_focus(w) && D.mode != M_RUN) {
        D.ran = 1;
        if (!w->alive && D.mode != M_STOP_ANY) D.mode = M_STOP_ANY;
    }
}

static void debug_mbar_init(Warp *w, const uint64_t *m)
{
    Cluster *cl = w->cta->cluster;
    for (uint32_t r = 0; r < (cl ? cl->n : 1); r++) {
        Cta *c = cl ? cl->ctas[r] : w->cta;
        const uint8_t *b = (const uint8_t *)m;
        if (b < c->shared || b >= c->shared + c->shared_size) continue;
        uint32_t off = (uint32_t)(b - c->shared);
        for (int i = 0; i < D.nmb; i++)
            if (D.mb[i].seq == w->launch->seq && D.mb[i].cta == c->linear && D.mb[i].off == off) return;
        if (D.nmb == MAXMB) memmove(&D.mb[0], &D.mb[1], (MAXMB - 1) * sizeof D.mb[0]), D.nmb--;
        D.mb[D.nmb].seq = w->launch->seq;
        D.mb[D.nmb].cta = c->linear;
        D.mb[D.nmb++].off = off;
        return;
    }
}


/* ---- setup ---- */

static void trace_setup(void)
{
    const char *e;
    D.tout = stderr;
    if ((e = getenv("PTXEMU_TRACE_FILE")) && *e && !(D.tout = fopen(e, "w"))) {
        fprintf(stderr, "ptxemu: PTXEMU_TRACE_FILE=%s: cannot write it; tracing to stderr\n", e);
        D.tout = stderr;
    }
    if ((e = getenv("PTXEMU_TRACE_KERNEL"))) snprintf(D.tkernel, sizeof D.tkernel, "%s", e);
    char *arg[8], buf[256];
    int n = 0;
    const char *keys[] = { "block", "warp", "lane", "thread" };
    const char *vars[] = { "PTXEMU_TRACE_BLOCK", "PTXEMU_TRACE_WARP", "PTXEMU_TRACE_LANE", "PTXEMU_TRACE_THREAD" };
    char vals[4][64];
    for (int k = 0; k < 4; k++)
        if ((e = getenv(vars[k])) && *e) {
            snprintf(vals[k], sizeof vals[k], "%s", e);
            arg[n++] = (char *)keys[k];
            arg[n++] = vals[k];
        }
    if (!parse_filter(arg, n, &D.tf)) fprintf(stderr, "ptxemu: the trace filter above is ignored\n");
    if ((e = getenv("PTXEMU_TRACE_LINE")) && *e) {
        snprintf(buf, sizeof buf, "%s", e);
        parse_loc(buf, &D.tline_kind, D.tfile, sizeof D.tfile, &D.tline);
        if (D.tline_kind == BP_KERNEL) {
            fprintf(stderr, "ptxemu: PTXEMU_TRACE_LINE=%s: expected FILE:LINE, LINE or ptx:LINE\n", e);
            D.tline_kind = 0;
        }
    }
}

static int debug_init(void)
{
    const char *e = getenv("PTXEMU_DEBUG");
    if (!e || !*e || !strcmp(e, "0")) return 0;
    D.out = stderr;
    if (!strcmp(e, "trace")) {
        debug_on = DBG_TRACE;
        trace_setup();
        return 1;
    }
    debug_on = DBG_INTERACTIVE;
    const char *cmds = getenv("PTXEMU_DEBUG_COMMANDS"), *ex = getenv("PTXEMU_DEBUG_EX");
    if (ex && *ex) D.pending = D.pend_at = strdup(ex);
    if (D.pending) {   /* only -b breakpoints: the first stop is the first of them */
        int only = 1;
        for (const char *s = D.pending; *s; ) {
            only &= !strncmp(s, "break ", 6);
            const char *nl = strchr(s, '\n');
            if (!nl) break;
            s = nl + 1;
        }
        D.skip_first = only;
    }
    if (cmds && *cmds) {
        if (!(D.in = fopen(cmds, "r"))) fprintf(stderr, "ptxemu debug: cannot read %s\n", cmds);
        D.echo = 1;
    } else if (isatty(0)) {
        D.in = stdin;
    } else if ((D.in = fopen("/dev/tty", "r"))) {
        D.echo = 0;
    } else {
        D.in = stdin;   /* commands piped in */
        D.echo = 1;
    }
    return 1;
}

static const Observer debugger = {
    .tool_name = "debug", .events = OBS_STEP | OBS_SYNC,
    .needs = OBS_NEEDS_DETERMINISTIC | OBS_NEEDS_PTX_TEXT,
    .step_before = debug_before, .step_after = debug_after, .mbar_init = debug_mbar_init,
};

int debug_attach(void)
{
    if (!debug_init()) return 0;
    if ((slot = obs_attach(&debugger)) < 0) return -1;
    return 1;
}
