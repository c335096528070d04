/* parser.c - PTX text -> PtxModule (ptx_ast.h): recursive descent over lexer.c tokens.
 *
 * The parser checks syntax only; opcodes and most names are resolved by translation. Three
 * things are settled here because only the parser sees the block structure of a body:
 *
 * 1. Scoped names. PTX lets `{ }` blocks declare registers and .param variables (every call
 *    block declares its own param0/retval0; every inline-asm block may declare `.reg .pred p`).
 *    The AST has no blocks, so a declaration whose name was already declared earlier in the
 *    same function (or that overlaps an earlier %r<N> range: %r1 vs %r<4>) is renamed
 *    "name#K" (K counts per function; '#' cannot occur in PTX names), and every use inside
 *    its scope gets the new name. A renamed %r<N> range gets the
 *    prefix "%r#K_", so its registers read "%r#K_0".."%r#K_(N-1)". After parsing, every
 *    name in PtxFunc.params/rets/vars is unique within the function.
 *    Labels defined inside a nested block are always renamed "L#K" and the block's uses
 *    patched when the block closes (branches may jump forward).
 * 2. Operand kinds. A name declared by `.reg` (a single name, a member of a %r<N> range, or
 *    a vector register with a .x/.y/.z/.w/.r/.g/.b/.a suffix) becomes OPD_REG; every other
 *    name (variables, params, labels, functions, special registers such as "%tid.x",
 *    undeclared names) becomes OPD_SYM. OPD_SYM may carry a constant offset in ival for
 *    `sym+4` (0 otherwise).
 * 3. Calls. `call[.uni] (rets), func, (args)[, proto-or-targets]` always yields
 *        opds[0] = OPD_LIST of return params (0 elems when none were written),
 *        opds[1] = the callee (OPD_SYM for a function name, OPD_REG for an indirect call),
 *        opds[2] = OPD_LIST of arguments (0 elems when none were written),
 *        opds[3] = optional: the .callprototype or .calltargets name (OPD_SYM).
 *    So `call f;` gives [LIST(), SYM f, LIST()].
 *
 * Other encodings beyond ptx_ast.h's comments:
 *  - OPD_ADDR with a list after the address (`[tex, {%f1, %f2}]`, `[tmap, {%r1, %r2}]`)
 *    keeps the extra operands in elems.
 *  - `name: .branchtargets L1, L2;`, `name: .calltargets f, g;` and
 *    `name: .callprototype ...;` become PtxFunc.vars entries with space SP_NONE and type
 *    TY_NONE; the target lists are in init[] as kind 2 (address of symbol) entries, and a
 *    .callprototype has ninit 0. Their position in vars keeps the declaration order.
 *  - Initializers: integer literals are kind 0 whatever the variable's type; 0f/0d literals
 *    are kind 1 with bits of the variable's width (converted when 0f meets .f64 or 0d .f32);
 *    decimal literals are kind 1 with is_float_literal and fval. Nested braces are flattened
 *    with each inner list padded with zeros to its full size; the `.vN` of a vector variable
 *    counts as the innermost dimension. array_len is the flattened element count (vectors
 *    count once); for `[]` with an initializer it is inferred from the initializer.
 *  - `.address_size` absent means 32, as the PTX ISA says.
 *  - Accepted and ignored: .pragma, .section (debug sections), .attribute(...) on variables,
 *    .abi_preserve/.abi_preserve_control, .maxnctapersm (deprecated hint), the .loc
 *    function_name/inlined_at extension (the instruction gets the .loc's own file and line).
 *
 * Errors: "source:line:col: message" + "\n  " + the source line + "\n  " + a caret line; the
 * first error ends the parse (longjmp to ptx_parse, which frees everything).
 */
#include "ptx_ast.h"
#include "lexer.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_DEPTH = 256,          /* nested { } blocks in a body */
    MAX_MODS = 32,            /* modifiers on one instruction */
    MAX_LIST = 1024,          /* operands in one instruction / vector / call list */
    MAX_DIMS = 8,             /* array dimensions (+1 for .vN) */
    MAX_NAME = 65536,         /* bytes in one name; mangled C++ names run to a few KB */
    MAX_INIT = 1 << 28,       /* initializer elements */
};

/* ---------------------------------------------------------------- arena */

typedef struct Chunk { struct Chunk *next; size_t cap, used; } Chunk;
#define CHUNK_HDR ((sizeof(Chunk) + 15) & ~(size_t)15)

typedef struct Arena { Chunk *head; size_t next_size; } Arena;

static void *arena_alloc(Arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    Chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = a->next_size;
        if (cap < n) cap = n;
        c = malloc(CHUNK_HDR + cap);
        if (!c) return NULL;
        c->cap = cap;
        c->used = 0;
        if (a->head && n > a->next_size) {
            /* a big block gets its own chunk behind the current one, which stays open */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
            if (a->next_size < (1u << 20)) a->next_size *= 2;
        }
    }
    void *p = (char *)c + CHUNK_HDR + c->used;
    c->used += n;
    return p;
}

static void arena_free(Arena *a)
{
    if (!a) return;
    for (Chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

/* ---------------------------------------------------------------- parser state */

typedef struct Vec { void *a; int n, cap; } Vec;

/* An interned name. `decl` is the innermost visible declaration in the current function
 * (-1 none); `gen`/`label_gen` record the last function that declared it / used it as a
 * top-level label, so renaming and duplicate checks need no per-function clearing. */
typedef struct Sym {
    const char *s;
    uint32_t len, hash;
    int decl, gen, label_gen;
    int range_gen, range_max;     /* largest %name<N> declared with this prefix in range_gen */
} Sym;

typedef struct Decl { int sym; const char *name; int is_reg, nrange, prev, depth; } Decl;
typedef struct Block { int decl_start, inst_start, var_start, fix_start, serial; } Block;
typedef struct LabelFix { const char *from, *to; } LabelFix;
typedef struct Linkage { int ext, vis, weak; } Linkage;

#define INL_SLOTS 4096

typedef struct Parser {
    PtxLexer lx;
    PtxToken la[4];           /* lookahead ring */
    int la_head, la_n;
    const char *src_name;
    char *err;
    size_t errlen;
    int version_error;
    jmp_buf jb;
    Arena *arena;
    PtxModule *m;
    /* interning */
    Sym *syms;
    int nsyms, capsyms;
    int *slots;
    uint32_t nslots;
    /* module scratch */
    Vec globals, funcs, files;
    /* function scratch */
    Vec params, rets, vars, insts, labels, decls, fixes;
    Vec ostk;                 /* operand stack for nested lists */
    Vec inits;                /* initializer elements of the variable being parsed */
    Vec proto;                /* parameters of a .callprototype, checked and dropped */
    Vec digit_singles;        /* syms of single names ending in a digit, this function */
    Block blocks[MAX_DEPTH + 1];
    int depth;
    int block_serial;         /* numbers the blocks of a module: PtxVar.block */
    int fn_gen, renames;
    const char *fn_name;
    const char *pending_label;
    int loc_file, loc_line;
    int outer_file, outer_line;     /* the end of the current .loc's inlined_at chain           */
    /* inlined .locs seen, by (file, line, col) -> the place they were inlined at */
    struct Inlined { int used, file, line, col, pfile, pline, pcol; } inl[INL_SLOTS];
    int ninl;
    int have_version, have_target;
} Parser;

#define NORETURN __attribute__((noreturn))
#define PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---------------------------------------------------------------- errors */

/* Writes the offending line (a window around `pos` when it is long) and a caret under it. */
static size_t show_line(const Parser *P, const char *pos, char *out, size_t n)
{
    const char *src = P->lx.src, *end = P->lx.end;
    if (pos < src) pos = src;
    if (pos > end) pos = end;
    const char *ls = pos, *le = pos;
    while (ls > src && ls[-1] != '\n') ls--;
    while (le < end && *le != '\n') le++;
    const char *from = ls, *to = le;
    int pre = 0, post = 0;
    if (pos - ls > 100) { from = pos - 60; pre = 1; }
    if (to - from > 160) { to = from + 160; post = 1; }
    if (pos > to) pos = to;
    char text[200], caret[200];
    size_t t = 0, c = 0;
    if (pre) { memcpy(text, "...", 3); memcpy(caret, "   ", 3); t = c = 3; }
    for (const char *q = from; q < to; q++) {
        unsigned char ch = (unsigned char)*q;
        if (ch == '\r' && q + 1 == to) break;
        text[t++] = (ch == '\t' || (ch >= 32 && ch < 127)) ? (char)ch : '?';
        if (q < pos) caret[c++] = ch == '\t' ? '\t' : ' ';
    }
    if (post) { memcpy(text + t, "...", 3); t += 3; }
    text[t] = 0;
    caret[c++] = '^';
    caret[c] = 0;
    int k = snprintf(out, n, "\n  %s\n  %s", text, caret);
    return k < 0 ? 0 : (size_t)k;
}

static NORETURN void fail_pos(Parser *P, int line, int col, const char *pos, const char *msg)
{
    if (P->err && P->errlen) {
        int k = snprintf(P->err, P->errlen, "%s:%d:%d: %s", P->src_name, line, col, msg);
        if (k >= 0 && (size_t)k < P->errlen)
            show_line(P, pos, P->err + k, P->errlen - (size_t)k);
    }
    longjmp(P->jb, 1);
}

static NORETURN PRINTF(3, 4) void fail_tok(Parser *P, const PtxToken *t, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *pos = t->kind == PTK_STRING ? t->p - 1 : t->p;
    fail_pos(P, t->line, t->col, pos, msg);
}

static NORETURN void fail_version(Parser *P, const PtxToken *t, const char *fmt, const char *arg)
{
    P->version_error = 1;
    fail_tok(P, t, fmt, arg);
}

static NORETURN void out_of_memory(Parser *P)
{
    if (P->err && P->errlen) snprintf(P->err, P->errlen, "%s: out of memory while parsing PTX",
                                      P->src_name);
    longjmp(P->jb, 1);
}

/* A short quoted rendering of a token for messages. */
static const char *tok_desc(const PtxToken *t, char *buf, size_t n)
{
    if (t->kind == PTK_EOF) return "end of input";
    if (t->kind == PTK_STRING) {
        snprintf(buf, n, "string \"%.*s%s\"", t->len > 24 ? 24 : (int)t->len, t->p,
                 t->len > 24 ? "..." : "");
        return buf;
    }
    int len = t->len > 40 ? 40 : (int)t->len;
    snprintf(buf, n, "'%.*s%s'", len, t->p, t->len > 40 ? "..." : "");
    return buf;
}

/* ---------------------------------------------------------------- memory helpers */

static void *palloc(Parser *P, size_t n)
{
    void *p = arena_alloc(P->arena, n ? n : 1);
    if (!p) out_of_memory(P);
    return p;
}

static void *pdup(Parser *P, const void *src, size_t n)
{
    if (n == 0) return NULL;
    void *p = palloc(P, n);
    memcpy(p, src, n);
    return p;
}

/* Appends a zeroed element of size sz to v and returns it. */
static void *vec_push(Parser *P, Vec *v, size_t sz)
{
    if (v->n == v->cap) {
        int cap = v->cap ? v->cap * 2 : 16;
        if (cap > INT_MAX / 2) out_of_memory(P);
        void *a = realloc(v->a, (size_t)cap * sz);
        if (!a) out_of_memory(P);
        v->a = a;
        v->cap = cap;
    }
    void *e = (char *)v->a + (size_t)v->n++ * sz;
    memset(e, 0, sz);
    return e;
}

#define VEC_AT(v, T, i) (((T *)(v).a)[i])

/* ---------------------------------------------------------------- interning */

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static int sym_lookup(const Parser *P, const char *s, size_t n, uint32_t h, uint32_t *slot)
{
    uint32_t mask = P->nslots - 1, i = h & mask;
    for (;; i = (i + 1) & mask) {
        int k = P->slots[i];
        if (k < 0) { *slot = i; return -1; }
        const Sym *y = &P->syms[k];
        if (y->hash == h && y->len == n && memcmp(y->s, s, n) == 0) return k;
    }
}

static void sym_rehash(Parser *P)
{
    uint32_t ns = P->nslots ? P->nslots * 2 : 4096;
    int *slots = malloc(ns * sizeof *slots);
    if (!slots) out_of_memory(P);
    memset(slots, -1, ns * sizeof *slots);
    for (int k = 0; k < P->nsyms; k++) {
        uint32_t i = P->syms[k].hash & (ns - 1);
        while (slots[i] >= 0) i = (i + 1) & (ns - 1);
        slots[i] = k;
    }
    free(P->slots);
    P->slots = slots;
    P->nslots = ns;
}

static int intern(Parser *P, const char *s, size_t n)
{
    if ((uint32_t)(P->nsyms + 1) * 2 > P->nslots) sym_rehash(P);
    uint32_t h = hash_bytes(s, n), slot;
    int k = sym_lookup(P, s, n, h, &slot);
    if (k >= 0) return k;
    if (P->nsyms == P->capsyms) {
        int cap = P->capsyms ? P->capsyms * 2 : 1024;
        Sym *a = realloc(P->syms, (size_t)cap * sizeof *a);
        if (!a) out_of_memory(P);
        P->syms = a;
        P->capsyms = cap;
    }
    char *copy = palloc(P, n + 1);
    memcpy(copy, s, n);
    copy[n] = 0;
    k = P->nsyms++;
    P->syms[k] = (Sym){copy, (uint32_t)n, h, -1, 0, 0, 0, 0};
    P->slots[slot] = k;
    return k;
}

static int sym_find(const Parser *P, const char *s, size_t n)
{
    uint32_t slot;
    return sym_lookup(P, s, n, hash_bytes(s, n), &slot);
}

static const char *istr(Parser *P, const char *s, size_t n)
{
    int k = intern(P, s, n);      /* before reading P->syms: interning may move it */
    return P->syms[k].s;
}

/* ---------------------------------------------------------------- tokens */

static PtxToken *peek(Parser *P, int k)
{
    while (P->la_n <= k) {
        PtxToken *t = &P->la[(P->la_head + P->la_n) & 3];
        if (ptx_lex_next(&P->lx, t) == PTK_ERROR) fail_tok(P, t, "%s", P->lx.msg);
        P->la_n++;
    }
    return &P->la[(P->la_head + k) & 3];
}

static PtxToken next(Parser *P)
{
    PtxToken t = *peek(P, 0);
    P->la_head = (P->la_head + 1) & 3;
    P->la_n--;
    return t;
}

static int is_punct(const PtxToken *t, int c) { return t->kind == PTK_PUNCT && t->ch == c; }

static int tok_is(const PtxToken *t, const char *s)
{
    size_t n = strlen(s);
    return t->len == n && memcmp(t->p, s, n) == 0;
}

static int accept_punct(Parser *P, int c)
{
    if (!is_punct(peek(P, 0), c)) return 0;
    next(P);
    return 1;
}

static NORETURN void fail_expected(Parser *P, const PtxToken *t, const char *what)
{
    char b[96];
    fail_tok(P, t, "expected %s, found %s", what, tok_desc(t, b, sizeof b));
}

static PtxToken expect_punct(Parser *P, int c, const char *what)
{
    PtxToken t = next(P);
    if (!is_punct(&t, c)) fail_expected(P, &t, what);
    return t;
}

static PtxToken expect_ident(Parser *P, const char *what)
{
    PtxToken t = next(P);
    if (t.kind != PTK_IDENT) fail_expected(P, &t, what);
    if (t.len > MAX_NAME) fail_tok(P, &t, "name longer than %d bytes", MAX_NAME);
    return t;
}

/* An integer directive argument in [lo, hi]. */
static int64_t expect_int(Parser *P, const char *what, int64_t lo, int64_t hi)
{
    PtxToken t = next(P);
    if (t.kind != PTK_INT) fail_expected(P, &t, what);
    if (t.u > (uint64_t)hi || (int64_t)t.u < lo)
        fail_tok(P, &t, "%s out of range (%lld..%lld)", what, (long long)lo, (long long)hi);
    return (int64_t)t.u;
}

/* The TY_* / SP_* named by a directive token, or TY_NONE / SP_NONE. */
static int dir_type(const PtxToken *t)
{
    char b[24];
    if (t->kind != PTK_DIR || t->len >= sizeof b) return TY_NONE;
    memcpy(b, t->p + 1, t->len - 1);
    b[t->len - 1] = 0;
    return ptx_type_from_name(b);
}

static int dir_space(const PtxToken *t)
{
    char b[24];
    if (t->kind != PTK_DIR || t->len >= sizeof b) return SP_NONE;
    memcpy(b, t->p + 1, t->len - 1);
    b[t->len - 1] = 0;
    return ptx_space_from_name(b);
}

static int dir_vec(const PtxToken *t)
{
    if (tok_is(t, ".v2")) return 2;
    if (tok_is(t, ".v4")) return 4;
    if (tok_is(t, ".v8")) return 8;
    return 0;
}

/* ---------------------------------------------------------------- scopes */

static void push_block(Parser *P, const PtxToken *t)
{
    if (P->depth >= MAX_DEPTH) fail_tok(P, t, "blocks nested deeper than %d levels", MAX_DEPTH);
    P->depth++;
    P->blocks[P->depth] = (Block){P->decls.n, P->insts.n, P->vars.n, P->fixes.n,
                                  ++P->block_serial};
}

/* Renames uses of the block's own labels (see the file comment), then forgets its names. */
static void pop_block(Parser *P)
{
    Block *b = &P->blocks[P->depth];
    for (int f = b->fix_start; f < P->fixes.n; f++) {
        LabelFix fx = VEC_AT(P->fixes, LabelFix, f);
        for (int i = b->inst_start; i < P->insts.n; i++) {
            PtxInst *in = &VEC_AT(P->insts, PtxInst, i);
            for (int o = 0; o < in->nopds; o++) {
                PtxOperand *op = &in->opds[o];
                if (op->kind == OPD_SYM && op->name == fx.from) op->name = fx.to;
                if (op->kind == OPD_LIST || op->kind == OPD_VEC)
                    for (int e = 0; e < op->nelems; e++)
                        if (op->elems[e].kind == OPD_SYM && op->elems[e].name == fx.from)
                            op->elems[e].name = fx.to;
            }
        }
        for (int v = b->var_start; v < P->vars.n; v++) {
            PtxVar *var = &VEC_AT(P->vars, PtxVar, v);
            for (int e = 0; e < var->ninit; e++)
                if (var->init[e].sym == fx.from) var->init[e].sym = fx.to;
        }
    }
    P->fixes.n = b->fix_start;
    for (int d = P->decls.n - 1; d >= b->decl_start; d--) {
        Decl *dc = &VEC_AT(P->decls, Decl, d);
        P->syms[dc->sym].decl = dc->prev;
    }
    P->decls.n = b->decl_start;
    P->depth--;
}

/* Whether `s` (a single name such as %r1) is a member of a range (%r<4>) declared earlier
 * in this function. */
static int in_earlier_range(const Parser *P, const Sym *s)
{
    size_t p = s->len;
    while (p > 0 && s->s[p - 1] >= '0' && s->s[p - 1] <= '9') p--;
    if (p == 0 || p == s->len || s->len - p > 9 || (s->s[p] == '0' && s->len - p > 1)) return 0;
    int pk = sym_find(P, s->s, p);
    return pk >= 0 && P->syms[pk].range_gen == P->fn_gen &&
           strtol(s->s + p, NULL, 10) < P->syms[pk].range_max;
}

/* Whether a range prefix<n> would cover a single name declared earlier in this function. */
static int covers_earlier_single(const Parser *P, const Sym *s, int n)
{
    for (int i = 0; i < P->digit_singles.n; i++) {
        const Sym *y = &P->syms[VEC_AT(P->digit_singles, int, i)];
        if (y->len > s->len && memcmp(y->s, s->s, s->len) == 0) {
            const char *d = y->s + s->len;
            if ((d[0] != '0' || d[1] == 0) && strspn(d, "0123456789") == strlen(d) &&
                strlen(d) <= 9 && strtol(d, NULL, 10) < n)
                return 1;
        }
    }
    return 0;
}

/* Declares a name in the current block and returns the name the AST will use: the name
 * itself, or "name#K" when it (or a register it overlaps through a %r<N> range) was
 * declared before in this function. */
static const char *declare(Parser *P, const PtxToken *t, int sym, int is_reg, int nrange)
{
    Sym *s = &P->syms[sym];
    if (s->decl >= 0 && VEC_AT(P->decls, Decl, s->decl).depth == P->depth)
        fail_tok(P, t, "'%s' is already declared in this scope", s->s);
    const char *name = s->s;
    int clash = s->gen == P->fn_gen ||
                (nrange ? covers_earlier_single(P, s, nrange) : in_earlier_range(P, s));
    if (clash) {
        char buf[64];
        int k = snprintf(buf, sizeof buf, nrange ? "#%d_" : "#%d", ++P->renames);
        char *tmp = malloc(s->len + (size_t)k + 1);
        if (!tmp) out_of_memory(P);
        memcpy(tmp, s->s, s->len);
        memcpy(tmp + s->len, buf, (size_t)k + 1);
        name = istr(P, tmp, s->len + (size_t)k);
        free(tmp);
        s = &P->syms[sym];    /* interning may have moved the table */
    }
    if (nrange) {
        if (s->range_gen != P->fn_gen) s->range_max = 0;
        s->range_gen = P->fn_gen;
        if (nrange > s->range_max) s->range_max = nrange;
    } else if (s->len && s->s[s->len - 1] >= '0' && s->s[s->len - 1] <= '9' &&
               s->gen != P->fn_gen) {
        *(int *)vec_push(P, &P->digit_singles, sizeof(int)) = sym;
    }
    s->gen = P->fn_gen;
    Decl *d = vec_push(P, &P->decls, sizeof(Decl));
    *d = (Decl){sym, name, is_reg, nrange, s->decl, P->depth};
    s->decl = P->decls.n - 1;
    return name;
}

/* Looks a name up in the open scopes: sets o->kind (OPD_REG/OPD_SYM) and o->name. */
/* The visible range declaration (%r<N>) that has `name` as a member, or -1. Ranges are
 * searched innermost first, and an inner %r<2> hides only %r0 and %r1 of an outer %r<4>
 * (as ptxas does). *digits is where the index starts in name. */
static int range_decl(const Parser *P, const char *s, size_t n, size_t *digits)
{
    size_t p = n;
    while (p > 0 && s[p - 1] >= '0' && s[p - 1] <= '9') p--;
    if (p == 0 || p == n || n - p > 9 || (s[p] == '0' && n - p > 1)) return -1;
    int pk = sym_find(P, s, p);
    if (pk < 0) return -1;
    long idx = strtol(s + p, NULL, 10);
    *digits = p;
    for (int di = P->syms[pk].decl; di >= 0; di = VEC_AT(P->decls, Decl, di).prev)
        if (VEC_AT(P->decls, Decl, di).nrange > idx) return di;
    return -1;
}

/* Looks a name up in the open scopes: sets o->kind (OPD_REG/OPD_SYM) and o->name. The
 * innermost declaration wins; visible declarations sit on a stack, so that is the one
 * with the larger index. */
static void resolve(Parser *P, PtxOperand *o, const char *s, size_t n)
{
    int k = intern(P, s, n);
    const Sym *y = &P->syms[k];
    o->kind = OPD_SYM;
    o->name = y->s;
    size_t p = 0;
    int direct = y->decl, range = range_decl(P, s, n, &p);
    if (direct > range) {
        const Decl *d = &VEC_AT(P->decls, Decl, direct);
        if (d->nrange == 0) {     /* a bare range name (%r of %r<4>) stays a symbol */
            o->kind = d->is_reg ? OPD_REG : OPD_SYM;
            o->name = d->name;
        }
        return;
    }
    if (range < 0) return;
    const Decl *d = &VEC_AT(P->decls, Decl, range);
    o->kind = OPD_REG;
    if (strlen(d->name) != p || memcmp(d->name, s, p) != 0) {   /* renamed range */
        size_t dl = strlen(d->name);
        char *buf = malloc(dl + (n - p));
        if (!buf) out_of_memory(P);
        memcpy(buf, d->name, dl);
        memcpy(buf + dl, s + p, n - p);
        o->name = istr(P, buf, dl + (n - p));
        free(buf);
    }
}

/* ---------------------------------------------------------------- operands */

static int64_t negate(Parser *P, const PtxToken *t)
{
    if (t->u > (uint64_t)INT64_MAX + 1) fail_tok(P, t, "integer constant out of range");
    return (int64_t)(0 - t->u);
}

static PtxOperand parse_operand(Parser *P, int nested);

/* Parses operands up to the closing character and returns them in arena memory. */
static PtxOperand *parse_list(Parser *P, int close, int nested, int *count)
{
    int start = P->ostk.n;
    if (!is_punct(peek(P, 0), close)) {
        for (;;) {
            PtxToken *t = peek(P, 0);
            if (P->ostk.n - start >= MAX_LIST) fail_tok(P, t, "more than %d operands", MAX_LIST);
            PtxOperand o = parse_operand(P, nested);
            *(PtxOperand *)vec_push(P, &P->ostk, sizeof o) = o;
            if (!accept_punct(P, ',')) break;
        }
    }
    char what[32];
    snprintf(what, sizeof what, "',' or '%c'", close);
    expect_punct(P, close, what);
    *count = P->ostk.n - start;
    if (!*count) return NULL;   /* an empty list: the stack may have no storage yet */
    PtxOperand *e = pdup(P, &VEC_AT(P->ostk, PtxOperand, start), (size_t)*count * sizeof *e);
    P->ostk.n = start;
    return e;
}

/* [base], [base+off], [base+-off], [base-off], [number], optionally [base, {..}] */
static void parse_address(Parser *P, PtxOperand *o)
{
    o->kind = OPD_ADDR;
    PtxToken t = next(P);
    if (t.kind == PTK_IDENT) {
        PtxOperand r = {0};
        resolve(P, &r, t.p, t.len);
        o->name = r.name;
        PtxToken *s = peek(P, 0);
        if (is_punct(s, '+') || is_punct(s, '-')) {
            int neg = next(P).ch == '-';
            if (!neg && accept_punct(P, '-')) neg = 1;
            PtxToken n = next(P);
            if (n.kind != PTK_INT) fail_expected(P, &n, "an integer offset");
            o->ival = neg ? negate(P, &n) : (int64_t)n.u;
        }
    } else if (t.kind == PTK_INT) {
        o->ival = (int64_t)t.u;
    } else {
        fail_expected(P, &t, "a register, variable or constant address after '['");
    }
    if (accept_punct(P, ',')) {
        o->elems = parse_list(P, ']', 1, &o->nelems);
        return;
    }
    expect_punct(P, ']', "']' to close the address");
}

/* A name operand: register, symbol, %special.x, pair a|b, sym+off, or the sink `_`. */
static void parse_name_operand(Parser *P, PtxOperand *o, const PtxToken *t, int nested)
{
    if (tok_is(t, "_")) { o->kind = OPD_SINK; return; }
    if (t->len > MAX_NAME) fail_tok(P, t, "name longer than %d bytes", MAX_NAME);
    PtxToken *d = peek(P, 0);
    if (d->kind == PTK_DIR && d->adjacent) {
        /* %tid.x, %v.x: the base and suffix are contiguous in the source */
        if (t->p[0] != '%') fail_tok(P, d, "unexpected '%.*s' after a name", (int)d->len, d->p);
        next(P);
        PtxOperand base = {0};
        resolve(P, &base, t->p, t->len);
        if (base.kind == OPD_REG) {
            char buf[128];
            size_t bl = strlen(base.name);
            if (bl + d->len >= sizeof buf) fail_tok(P, t, "register name too long");
            memcpy(buf, base.name, bl);
            memcpy(buf + bl, d->p, d->len);
            o->kind = OPD_REG;
            o->name = istr(P, buf, bl + d->len);
        } else {
            o->kind = OPD_SYM;
            o->name = istr(P, t->p, (size_t)(d->p + d->len - t->p));
        }
        return;
    }
    resolve(P, o, t->p, t->len);
    PtxToken *s = peek(P, 0);
    if (is_punct(s, '|') && !nested) {
        next(P);
        PtxToken b = expect_ident(P, "a predicate after '|'");
        PtxOperand *e = palloc(P, 2 * sizeof *e);
        e[0] = *o;
        memset(&e[1], 0, sizeof e[1]);
        e[1].line = b.line;
        e[1].col = b.col;
        if (tok_is(&b, "_")) e[1].kind = OPD_SINK;
        else resolve(P, &e[1], b.p, b.len);
        o->kind = OPD_PAIR;
        o->name = NULL;
        o->elems = e;
        o->nelems = 2;
        return;
    }
    if (o->kind == OPD_SYM && (is_punct(s, '+') || is_punct(s, '-'))) {
        int neg = next(P).ch == '-';
        if (!neg && accept_punct(P, '-')) neg = 1;
        PtxToken n = next(P);
        if (n.kind != PTK_INT) fail_expected(P, &n, "an integer offset");
        o->ival = neg ? negate(P, &n) : (int64_t)n.u;
    }
}

static PtxOperand parse_operand(Parser *P, int nested)
{
    PtxToken t = next(P);
    PtxOperand o = {0};
    o.line = t.line;
    o.col = t.col;
    char b[96];
    switch (t.kind) {
    case PTK_IDENT:
        parse_name_operand(P, &o, &t, nested);
        return o;
    case PTK_INT:
        o.kind = OPD_IMM_INT;
        o.ival = (int64_t)t.u;
        return o;
    case PTK_F32:
        o.kind = OPD_IMM_F32;
        o.ival = (int64_t)t.u;
        return o;
    case PTK_F64:
        o.kind = OPD_IMM_F64;
        o.ival = (int64_t)t.u;
        return o;
    case PTK_FLOAT:
        o.kind = OPD_IMM_DEC;
        o.fval = t.d;
        return o;
    case PTK_PUNCT:
        break;
    default:
        fail_tok(P, &t, "expected an operand, found %s", tok_desc(&t, b, sizeof b));
    }
    switch (t.ch) {
    case '!': {
        PtxToken n = expect_ident(P, "a predicate after '!'");
        resolve(P, &o, n.p, n.len);
        o.neg = 1;
        return o;
    }
    case '-': {
        PtxToken n = next(P);
        if (n.kind == PTK_INT) { o.kind = OPD_IMM_INT; o.ival = negate(P, &n); return o; }
        if (n.kind == PTK_FLOAT) { o.kind = OPD_IMM_DEC; o.fval = -n.d; return o; }
        fail_expected(P, &n, "an integer or decimal constant after '-'");
    }
    case '[':
        if (nested) break;
        parse_address(P, &o);
        return o;
    case '{':
        if (nested > 1) break;
        o.kind = OPD_VEC;
        o.elems = parse_list(P, '}', 2, &o.nelems);
        if (o.nelems == 0) fail_tok(P, &t, "empty vector operand");
        return o;
    case '(':
        if (nested) break;
        o.kind = OPD_LIST;
        o.elems = parse_list(P, ')', 2, &o.nelems);
        return o;
    default:
        break;
    }
    fail_tok(P, &t, "expected an operand, found %s", tok_desc(&t, b, sizeof b));
}

/* ---------------------------------------------------------------- instructions */

/* Brings call operands into the fixed shape described at the top of this file. */
static void normalize_call(Parser *P, const PtxToken *at, PtxOperand **opds, int *n)
{
    PtxOperand *o = *opds;
    int k = *n, i = 0;
    PtxOperand out[8];
    memset(out, 0, sizeof out);
    if (k > 6) fail_tok(P, at, "too many operands for call");
    out[0].kind = OPD_LIST;
    out[0].line = at->line;
    out[0].col = at->col;
    if (i < k && o[i].kind == OPD_LIST) out[0] = o[i++];
    if (i >= k || o[i].kind == OPD_LIST || (o[i].kind != OPD_SYM && o[i].kind != OPD_REG))
        fail_tok(P, at, "call needs a function name or register after the return list");
    out[1] = o[i++];
    out[2].kind = OPD_LIST;
    out[2].line = out[1].line;
    out[2].col = out[1].col;
    if (i < k && o[i].kind == OPD_LIST) out[2] = o[i++];
    int m = 3;
    for (; i < k; i++) {
        if (o[i].kind != OPD_SYM)
            fail_tok(P, at, "call: unexpected operand after the argument list");
        out[m++] = o[i];
    }
    *opds = pdup(P, out, (size_t)m * sizeof *out);
    *n = m;
}

static void parse_instruction(Parser *P)
{
    PtxInst in;
    memset(&in, 0, sizeof in);
    PtxToken first = *peek(P, 0);
    in.line = first.line;
    in.col = first.col;
    if (accept_punct(P, '@')) {
        if (accept_punct(P, '!')) in.guard_neg = 1;
        PtxToken g = expect_ident(P, "a predicate after '@'");
        PtxOperand r = {0};
        resolve(P, &r, g.p, g.len);
        in.guard = r.name;
    }
    PtxToken op = next(P);
    if (op.kind != PTK_IDENT || op.p[0] == '%' || op.p[0] == '$' || tok_is(&op, "_"))
        fail_expected(P, &op, "an instruction");
    in.opcode = istr(P, op.p, op.len);
    const char *mods[MAX_MODS];
    while (peek(P, 0)->kind == PTK_DIR && peek(P, 0)->adjacent) {
        PtxToken d = next(P);
        if (in.nmods == MAX_MODS) fail_tok(P, &d, "more than %d modifiers", MAX_MODS);
        mods[in.nmods++] = istr(P, d.p + 1, d.len - 1);
    }
    in.mods = pdup(P, mods, (size_t)in.nmods * sizeof *mods);
    if (!is_punct(peek(P, 0), ';')) {
        int start = P->ostk.n;
        for (;;) {
            PtxToken *t = peek(P, 0);
            if (P->ostk.n - start >= MAX_LIST) fail_tok(P, t, "more than %d operands", MAX_LIST);
            PtxOperand o = parse_operand(P, 0);
            *(PtxOperand *)vec_push(P, &P->ostk, sizeof o) = o;
            if (!accept_punct(P, ',')) break;
        }
        in.nopds = P->ostk.n - start;
        in.opds = pdup(P, &VEC_AT(P->ostk, PtxOperand, start), (size_t)in.nopds * sizeof *in.opds);
        P->ostk.n = start;
    }
    PtxToken *end = peek(P, 0);
    if (!is_punct(end, ';')) {
        char b[96];
        fail_tok(P, end, "expected ',' or ';' after operand, found %s", tok_desc(end, b, sizeof b));
    }
    next(P);
    if (strcmp(in.opcode, "call") == 0) normalize_call(P, &op, &in.opds, &in.nopds);
    in.loc_file = P->loc_file;
    in.loc_line = P->loc_line;
    in.outer_file = P->outer_file;
    in.outer_line = P->outer_line;
    in.label = P->pending_label;
    P->pending_label = NULL;
    *(PtxInst *)vec_push(P, &P->insts, sizeof in) = in;
}

/* ---------------------------------------------------------------- declarations */

static int64_t dims_product(const int64_t *dims, int from, int n)
{
    int64_t p = 1;
    for (int i = from; i < n; i++) p *= dims[i];
    return p;
}

static void push_init(Parser *P, const PtxToken *t, struct PtxInit e)
{
    if (P->inits.n >= MAX_INIT) fail_tok(P, t, "initializer has too many elements");
    *(struct PtxInit *)vec_push(P, &P->inits, sizeof e) = e;
}

/* Float bits as the variable's width wants them. */
static int64_t float_bits(const PtxToken *t, int type)
{
    if (t->kind == PTK_F32 && type == TY_F64) {
        float f; double d; uint64_t u; uint32_t w = (uint32_t)t->u;
        memcpy(&f, &w, 4); d = f; memcpy(&u, &d, 8);
        return (int64_t)u;
    }
    if (t->kind == PTK_F64 && type == TY_F32) {
        double d; float f; uint32_t w; uint64_t u = t->u;
        memcpy(&d, &u, 8); f = (float)d; memcpy(&w, &f, 4);
        return (int64_t)w;
    }
    return (int64_t)t->u;
}

static void parse_init_value(Parser *P, const PtxVar *v)
{
    PtxToken t = next(P);
    struct PtxInit e;
    memset(&e, 0, sizeof e);
    int neg = 0;
    if (is_punct(&t, '-')) { neg = 1; t = next(P); }
    if (t.kind == PTK_INT) {
        e.ival = neg ? negate(P, &t) : (int64_t)t.u;
    } else if (t.kind == PTK_FLOAT) {
        e.kind = 1;
        e.is_float_literal = 1;
        e.fval = neg ? -t.d : t.d;
    } else if (!neg && (t.kind == PTK_F32 || t.kind == PTK_F64)) {
        e.kind = 1;
        e.ival = float_bits(&t, v->type);
    } else if (!neg && t.kind == PTK_IDENT) {
        PtxToken s = t;
        e.kind = 2;
        if (tok_is(&t, "generic") && is_punct(peek(P, 0), '(')) {
            next(P);
            s = expect_ident(P, "a variable name inside generic()");
            expect_punct(P, ')', "')' after generic(name");
            e.kind = 3;
        }
        e.sym = istr(P, s.p, s.len);
        PtxToken *op = peek(P, 0);
        if (is_punct(op, '+') || is_punct(op, '-')) {
            int minus = next(P).ch == '-';
            if (!minus && accept_punct(P, '-')) minus = 1;
            PtxToken n = next(P);
            if (n.kind != PTK_INT) fail_expected(P, &n, "an integer offset");
            e.ival = minus ? negate(P, &n) : (int64_t)n.u;
        }
    } else {
        char b[96];
        fail_tok(P, &t, "unsupported initializer element %s", tok_desc(&t, b, sizeof b));
    }
    push_init(P, &t, e);
}

/* '{' already consumed. Elements of list level `lv` fill at most dims[lv..] elements; an
 * inner list is padded with zeros to its full size. */
static void parse_init_list(Parser *P, const PtxVar *v, const int64_t *dims, int nd, int lv,
                            const PtxToken *open)
{
    int64_t start = P->inits.n;
    int64_t cap = dims[lv] < 0 ? -1 : dims_product(dims, lv, nd);
    if (!is_punct(peek(P, 0), '}')) {
        for (;;) {
            PtxToken *t = peek(P, 0);
            if (is_punct(t, '{')) {
                PtxToken o = next(P);
                if (lv + 1 >= nd) fail_tok(P, &o, "too many braces in initializer");
                int64_t s = P->inits.n, size = dims_product(dims, lv + 1, nd);
                parse_init_list(P, v, dims, nd, lv + 1, &o);
                while (P->inits.n < s + size) push_init(P, &o, (struct PtxInit){0});
            } else {
                parse_init_value(P, v);
            }
            if (!accept_punct(P, ',')) break;
        }
    }
    PtxToken *c = peek(P, 0);
    if (!is_punct(c, '}')) fail_expected(P, c, "',' or '}' in initializer");
    if (cap >= 0 && P->inits.n - start > cap)
        fail_tok(P, open, "too many initializers (%lld elements for %lld)",
                 (long long)(P->inits.n - start), (long long)cap);
    next(P);
}

static void parse_initializer(Parser *P, PtxVar *v, const int64_t *adims, int nadims)
{
    int64_t dims[MAX_DIMS + 1];
    int nd = 0;
    for (int i = 0; i < nadims; i++) dims[nd++] = adims[i];
    if (v->vec > 1) dims[nd++] = v->vec;
    P->inits.n = 0;
    PtxToken *t = peek(P, 0);
    if (is_punct(t, '{')) {
        PtxToken o = next(P);
        if (nd == 0) fail_tok(P, &o, "braces around the initializer of a scalar variable");
        parse_init_list(P, v, dims, nd, 0, &o);
        if (v->is_array && v->array_len < 0) {
            int64_t inner = dims_product(dims, 1, nd) / (v->vec > 1 ? v->vec : 1);
            int64_t per = dims_product(dims, 1, nd);
            v->array_len = (P->inits.n + per - 1) / per * inner;
        }
    } else {
        if (nd) fail_tok(P, t, "an array or vector initializer needs braces");
        parse_init_value(P, v);
    }
    v->ninit = P->inits.n;
    v->init = pdup(P, P->inits.a, (size_t)P->inits.n * sizeof *v->init);
}

/* `[N]`, `[]`, `[N][M]`: fills dims; returns how many. */
static int parse_dims(Parser *P, PtxVar *v, int64_t *dims)
{
    int nd = 0;
    while (is_punct(peek(P, 0), '[')) {
        PtxToken o = next(P);
        if (nd == MAX_DIMS) fail_tok(P, &o, "more than %d array dimensions", MAX_DIMS);
        if (is_punct(peek(P, 0), ']')) {
            if (nd) fail_tok(P, &o, "only the first array dimension may be left empty");
            dims[nd++] = -1;
        } else {
            dims[nd++] = expect_int(P, "an array size", 0, (int64_t)1 << 40);
        }
        expect_punct(P, ']', "']' after the array size");
    }
    if (nd) {
        v->is_array = 1;
        int64_t len = 1;
        for (int i = 0; i < nd; i++) {
            if (dims[i] < 0) { len = -1; break; }
            if (dims[i] && len > ((int64_t)1 << 40) / dims[i])
                fail_tok(P, peek(P, 0), "array too large");
            len *= dims[i];
        }
        v->array_len = len;
    }
    return nd;
}

/* .align N / .vN / .attribute(...) / type, in any order; stops at the first other token. */
static void parse_var_attrs(Parser *P, PtxVar *v)
{
    for (;;) {
        PtxToken *t = peek(P, 0);
        if (t->kind != PTK_DIR) return;
        int ty = dir_type(t), vec = dir_vec(t);
        if (ty != TY_NONE) {
            if (v->type != TY_NONE) fail_tok(P, t, "more than one type in a declaration");
            v->type = ty;
            next(P);
        } else if (vec) {
            v->vec = vec;
            next(P);
        } else if (tok_is(t, ".align")) {
            next(P);
            PtxToken n = *peek(P, 0);
            v->align = (int)expect_int(P, "an alignment", 1, 1 << 20);
            if (v->align & (v->align - 1)) fail_tok(P, &n, "alignment must be a power of two");
        } else if (tok_is(t, ".attribute")) {
            next(P);
            PtxToken o = expect_punct(P, '(', "'(' after .attribute");
            int nest = 1;
            while (nest) {   /* .managed, .unified(uuid): no effect on device code */
                PtxToken x = next(P);
                if (x.kind == PTK_EOF) fail_tok(P, &o, "unterminated .attribute(");
                if (is_punct(&x, '(')) nest++;
                if (is_punct(&x, ')')) nest--;
                if (nest > 16) fail_tok(P, &x, "too many nested parentheses");
            }
        } else {
            return;
        }
    }
}

/* After the state-space word: attributes, then declarators, then ';'. */
static void parse_var_decl(Parser *P, const PtxToken *sp, int space, Linkage lk, Vec *out,
                           int scoped)
{
    PtxVar base;
    memset(&base, 0, sizeof base);
    base.space = space;
    base.vec = 1;
    base.is_extern = lk.ext;
    base.is_visible = lk.vis;
    base.is_weak = lk.weak;
    parse_var_attrs(P, &base);
    if (base.type == TY_NONE) {
        char b[96];
        PtxToken *t = peek(P, 0);
        fail_tok(P, t, "expected a type after '%.*s', found %s", (int)sp->len, sp->p,
                 tok_desc(t, b, sizeof b));
    }
    for (;;) {
        PtxToken n = expect_ident(P, "a variable name");
        PtxVar v = base;
        v.line = n.line;
        v.col = n.col;
        if (accept_punct(P, '<')) {
            if (space != SP_REG) fail_tok(P, &n, "a %%name<N> range is only allowed for .reg");
            v.nrange = (int)expect_int(P, "a register count", 1, 1 << 24);
            expect_punct(P, '>', "'>' after the register count");
        }
        int64_t dims[MAX_DIMS];
        int nd = parse_dims(P, &v, dims);
        if (nd && space == SP_REG) fail_tok(P, &n, "registers cannot be arrays");
        if (accept_punct(P, '=')) {
            if (space == SP_REG || space == SP_PARAM)
                fail_tok(P, &n, "this variable cannot have an initializer");
            parse_initializer(P, &v, dims, nd);
        }
        if (v.is_array && v.array_len < 0 && !v.is_extern && !v.ninit && space != SP_SHARED)
            fail_tok(P, &n, "array '%.*s' needs a size", (int)n.len, n.p);
        int sym = intern(P, n.p, n.len);
        v.name = scoped ? declare(P, &n, sym, space == SP_REG, v.nrange) : P->syms[sym].s;
        if (scoped) { v.depth = P->depth; v.block = P->blocks[P->depth].serial; }
        *(PtxVar *)vec_push(P, out, sizeof v) = v;
        if (!accept_punct(P, ',')) break;
    }
    expect_punct(P, ';', "';' after the declaration");
}

/* One entry of a parameter list: .param/.reg, attributes, type, name, dimensions. */
static void parse_param(Parser *P, Vec *out, int declare_it)
{
    PtxToken sp = next(P);
    int space = sp.kind == PTK_DIR ? dir_space(&sp) : SP_NONE;
    if (space != SP_PARAM && space != SP_REG) fail_expected(P, &sp, "'.param' or '.reg'");
    PtxVar v;
    memset(&v, 0, sizeof v);
    v.space = space;
    v.vec = 1;
    for (;;) {
        PtxToken *t = peek(P, 0);
        if (t->kind != PTK_DIR) break;
        int ty = dir_type(t), vec = dir_vec(t), ps = dir_space(t);
        if (tok_is(t, ".align")) {
            next(P);
            PtxToken n = *peek(P, 0);
            int a = (int)expect_int(P, "an alignment", 1, 1 << 20);
            if (a & (a - 1)) fail_tok(P, &n, "alignment must be a power of two");
            if (v.is_ptr) v.ptr_align = a;
            else v.align = a;
        } else if (tok_is(t, ".ptr")) {
            v.is_ptr = 1;
            next(P);
        } else if (ps != SP_NONE && v.is_ptr) {
            v.ptr_space = ps;
            next(P);
        } else if (ty != TY_NONE) {
            if (v.type != TY_NONE) fail_tok(P, t, "more than one type in a parameter");
            v.type = ty;
            next(P);
        } else if (vec) {
            v.vec = vec;
            next(P);
        } else {
            fail_tok(P, t, "unexpected '%.*s' in a parameter declaration", (int)t->len, t->p);
        }
    }
    if (v.type == TY_NONE) fail_expected(P, peek(P, 0), "a parameter type");
    PtxToken n = expect_ident(P, "a parameter name");
    v.line = n.line;
    v.col = n.col;
    int64_t dims[MAX_DIMS];
    parse_dims(P, &v, dims);
    int sym = intern(P, n.p, n.len);
    v.name = declare_it ? declare(P, &n, sym, space == SP_REG, 0) : P->syms[sym].s;
    *(PtxVar *)vec_push(P, out, sizeof v) = v;
}

static void parse_param_list(Parser *P, Vec *out, int declare_it)
{
    expect_punct(P, '(', "'('");
    if (accept_punct(P, ')')) return;
    for (;;) {
        parse_param(P, out, declare_it);
        if (accept_punct(P, ')')) return;
        expect_punct(P, ',', "',' or ')' in the parameter list");
    }
}

/* name: .branchtargets / .calltargets / .callprototype (see the file comment). */
static void parse_label_decl(Parser *P, const PtxToken *name)
{
    PtxToken kw = next(P);
    PtxVar v;
    memset(&v, 0, sizeof v);
    v.vec = 1;
    v.line = name->line;
    v.col = name->col;
    if (tok_is(&kw, ".callprototype")) {
        /* parameter names are placeholders (`_`); only the syntax is checked */
        if (is_punct(peek(P, 0), '(')) parse_param_list(P, &P->proto, 0);
        expect_ident(P, "'_' in .callprototype");
        if (is_punct(peek(P, 0), '(')) parse_param_list(P, &P->proto, 0);
        P->proto.n = 0;
        if (peek(P, 0)->kind == PTK_DIR && tok_is(peek(P, 0), ".noreturn")) next(P);
    } else {
        P->inits.n = 0;
        for (;;) {
            PtxToken t = expect_ident(P, "a label or function name");
            struct PtxInit e;
            memset(&e, 0, sizeof e);
            e.kind = 2;
            e.sym = istr(P, t.p, t.len);
            push_init(P, &t, e);
            if (!accept_punct(P, ',')) break;
        }
        v.is_array = 1;
        v.array_len = v.ninit = P->inits.n;
        v.init = pdup(P, P->inits.a, (size_t)P->inits.n * sizeof *v.init);
    }
    expect_punct(P, ';', "';'");
    v.name = declare(P, name, intern(P, name->p, name->len), 0, 0);
    *(PtxVar *)vec_push(P, &P->vars, sizeof v) = v;
}

/* ---------------------------------------------------------------- directives */

/* The slot of (file, line, col) in the table of inlined .locs: its own or an empty one. */
static struct Inlined *inlined_slot(Parser *P, int file, int line, int col)
{
    unsigned h = ((unsigned)file * 2654435761u ^ (unsigned)line * 40503u ^ (unsigned)col) % INL_SLOTS;
    for (;; h = (h + 1) % INL_SLOTS) {
        struct Inlined *q = &P->inl[h];
        if (!q->used || (q->file == file && q->line == line && q->col == col)) return q;
    }
}

/* .loc file line col [, function_name label[+off]] [, inlined_at file line col] */
static void parse_loc(Parser *P)
{
    int file = (int)expect_int(P, "a file number", 0, INT_MAX);
    int line = (int)expect_int(P, "a line number", 0, INT_MAX);
    int col = (int)expect_int(P, "a column number", 0, INT_MAX);
    int at[3] = { 0, 0, 0 }, inlined = 0;
    while (accept_punct(P, ',')) {
        PtxToken k = expect_ident(P, "'function_name' or 'inlined_at'");
        if (tok_is(&k, "function_name")) {
            expect_ident(P, "a label");
            if (accept_punct(P, '+')) expect_int(P, "an offset", 0, INT64_MAX);
        } else if (tok_is(&k, "inlined_at")) {
            for (int i = 0; i < 3; i++) at[i] = (int)expect_int(P, "a number", 0, INT_MAX);
            inlined = 1;
        } else {
            fail_tok(P, &k, "unknown .loc attribute '%.*s'", (int)k.len, k.p);
        }
    }
    P->loc_file = file;
    P->loc_line = line;
    P->outer_file = file;
    P->outer_line = line;
    if (!inlined) return;
    /* remember this inlined location (the newest one wins), then follow the chain of
     * callers: each inlined_at names an earlier .loc, itself maybe inlined */
    if (P->ninl > INL_SLOTS * 3 / 4) { memset(P->inl, 0, sizeof P->inl); P->ninl = 0; }
    struct Inlined *e = inlined_slot(P, file, line, col);
    if (!e->used) P->ninl++;
    *e = (struct Inlined){ 1, file, line, col, at[0], at[1], at[2] };
    int chain_f[66] = { file, at[0] }, chain_l[66] = { line, at[1] }, n = 2;
    int f = at[0], l = at[1], c = at[2];
    for (; n < 66; n++) {
        const struct Inlined *q = inlined_slot(P, f, l, c);
        if (!q->used) break;
        f = q->pfile; l = q->pline; c = q->pcol;
        chain_f[n] = f;
        chain_l[n] = l;
    }
    /* the innermost place in the kernel's own file: a helper in that file keeps its own
     * line, code from a header gets the line of the file that called it */
    int k = 0;
    while (chain_f[k] != chain_f[n - 1]) k++;
    P->outer_file = chain_f[k];
    P->outer_line = chain_l[k];
}

static void parse_pragma(Parser *P)
{
    for (;;) {
        PtxToken s = next(P);
        if (s.kind != PTK_STRING) fail_expected(P, &s, "a string after .pragma");
        if (!accept_punct(P, ',')) break;
    }
    expect_punct(P, ';', "';' after .pragma");
}

/* Performance directives between a function's parameters and its body. */
static void parse_func_directives(Parser *P, PtxFunc *f)
{
    for (;;) {
        PtxToken *t = peek(P, 0);
        if (t->kind != PTK_DIR) return;
        PtxToken d = next(P);
        int *dim3 = tok_is(&d, ".maxntid") ? f->maxntid
                  : tok_is(&d, ".reqntid") ? f->reqntid
                  : tok_is(&d, ".reqnctapercluster") ? f->reqnctapercluster : NULL;
        if (dim3) {
            dim3[0] = dim3[1] = dim3[2] = 1;
            for (int i = 0; i < 3; i++) {
                dim3[i] = (int)expect_int(P, "a dimension", 1, INT_MAX);
                if (!accept_punct(P, ',')) break;
            }
        } else if (tok_is(&d, ".minnctapersm")) {
            f->minnctapersm = (int)expect_int(P, "a CTA count", 0, INT_MAX);
        } else if (tok_is(&d, ".maxnreg")) {
            f->maxnreg = (int)expect_int(P, "a register count", 0, INT_MAX);
        } else if (tok_is(&d, ".maxclusterrank")) {
            f->maxclusterrank = (int)expect_int(P, "a cluster rank", 0, INT_MAX);
        } else if (tok_is(&d, ".maxnctapersm") || tok_is(&d, ".abi_preserve") ||
                   tok_is(&d, ".abi_preserve_control")) {
            expect_int(P, "a number", 0, INT_MAX);          /* hints without effect here */
        } else if (tok_is(&d, ".explicitcluster")) {
            f->explicitcluster = 1;
        } else if (tok_is(&d, ".noreturn")) {
            f->noreturn = 1;
        } else if (tok_is(&d, ".pragma")) {
            parse_pragma(P);
        } else {
            fail_tok(P, &d, "unsupported directive '%.*s' in a function header", (int)d.len, d.p);
        }
    }
}

static void define_label(Parser *P, const PtxToken *t)
{
    if (t->p[0] == '%') fail_tok(P, t, "a label name cannot start with '%%'");
    int k = intern(P, t->p, t->len);
    const char *name = P->syms[k].s;
    if (P->depth > 1) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "#%d", ++P->renames);
        char *tmp = malloc(t->len + (size_t)n + 1);
        if (!tmp) out_of_memory(P);
        memcpy(tmp, t->p, t->len);
        memcpy(tmp + t->len, buf, (size_t)n);
        const char *to = istr(P, tmp, t->len + (size_t)n);
        free(tmp);
        *(LabelFix *)vec_push(P, &P->fixes, sizeof(LabelFix)) = (LabelFix){name, to};
        name = to;
    } else {
        if (P->syms[k].label_gen == P->fn_gen)
            fail_tok(P, t, "label '%s' is defined twice in '%s'", name, P->fn_name);
        P->syms[k].label_gen = P->fn_gen;
    }
    PtxLabel *l = vec_push(P, &P->labels, sizeof *l);
    *l = (PtxLabel){name, P->insts.n, t->line};
    P->pending_label = name;
}

static void parse_body_directive(Parser *P)
{
    PtxToken d = next(P);
    int sp = dir_space(&d);
    Linkage none = {0, 0, 0};
    if (sp == SP_REG || sp == SP_LOCAL || sp == SP_SHARED || sp == SP_PARAM) {
        if (tok_is(&d, ".param") || tok_is(&d, ".reg") || tok_is(&d, ".local") ||
            tok_is(&d, ".shared")) {
            parse_var_decl(P, &d, sp, none, &P->vars, 1);
            return;
        }
    }
    if (tok_is(&d, ".loc")) { parse_loc(P); return; }
    if (tok_is(&d, ".pragma")) { parse_pragma(P); return; }
    fail_tok(P, &d, "unexpected directive '%.*s' in a function body", (int)d.len, d.p);
}

static void parse_body(Parser *P, const PtxToken *open)
{
    push_block(P, open);
    for (;;) {
        PtxToken *t = peek(P, 0);
        if (t->kind == PTK_EOF)
            fail_tok(P, t, "unexpected end of input: missing '}' of function '%s' "
                     "(opened at line %d)", P->fn_name, open->line);
        if (is_punct(t, '}')) {
            next(P);
            pop_block(P);
            if (P->depth == 0) return;
        } else if (is_punct(t, '{')) {
            PtxToken o = next(P);
            push_block(P, &o);
        } else if (t->kind == PTK_DIR) {
            parse_body_directive(P);
        } else if (t->kind == PTK_IDENT && is_punct(peek(P, 1), ':')) {
            PtxToken name = next(P);
            next(P);
            PtxToken *k = peek(P, 0);
            if (k->kind == PTK_DIR && (tok_is(k, ".branchtargets") || tok_is(k, ".calltargets") ||
                                       tok_is(k, ".callprototype")))
                parse_label_decl(P, &name);
            else
                define_label(P, &name);
        } else if (t->kind == PTK_IDENT || is_punct(t, '@')) {
            parse_instruction(P);
        } else {
            char b[96];
            fail_tok(P, t, "expected an instruction, label or directive, found %s",
                     tok_desc(t, b, sizeof b));
        }
    }
}

static void *vec_to_arena(Parser *P, Vec *v, size_t sz, int *count)
{
    *count = v->n;
    void *a = pdup(P, v->a, (size_t)v->n * sz);
    v->n = 0;
    return a;
}

static void parse_function(Parser *P, const PtxToken *kw, Linkage lk)
{
    PtxFunc f;
    memset(&f, 0, sizeof f);
    f.is_entry = tok_is(kw, ".entry");
    f.is_extern = lk.ext;
    f.is_visible = lk.vis;
    f.is_weak = lk.weak;
    f.line = kw->line;
    f.col = kw->col;
    P->fn_gen++;
    P->renames = 0;
    P->digit_singles.n = 0;
    P->depth = 0;
    P->blocks[0] = (Block){0, 0, 0, 0, 0};
    P->pending_label = NULL;
    P->fn_name = "?";
    P->loc_file = P->loc_line = 0;        /* a .loc does not carry over into the next function */
    P->outer_file = P->outer_line = 0;
    if (!f.is_entry && is_punct(peek(P, 0), '(')) parse_param_list(P, &P->rets, 1);
    PtxToken name = expect_ident(P, "a function name");
    f.name = istr(P, name.p, name.len);
    P->fn_name = f.name;
    if (is_punct(peek(P, 0), '(')) parse_param_list(P, &P->params, 1);
    parse_func_directives(P, &f);
    PtxToken t = next(P);
    if (is_punct(&t, '{')) {
        if (f.is_extern) fail_tok(P, &t, "an .extern function cannot have a body");
        f.has_body = 1;
        parse_body(P, &t);
    } else if (!is_punct(&t, ';')) {
        fail_expected(P, &t, "'{' or ';' after the function header");
    }
    /* forget the parameters' scope */
    for (int d = P->decls.n - 1; d >= 0; d--) {
        Decl *dc = &VEC_AT(P->decls, Decl, d);
        P->syms[dc->sym].decl = dc->prev;
    }
    P->decls.n = 0;
    P->fixes.n = 0;
    f.params = vec_to_arena(P, &P->params, sizeof(PtxVar), &f.nparams);
    f.rets = vec_to_arena(P, &P->rets, sizeof(PtxVar), &f.nrets);
    f.vars = vec_to_arena(P, &P->vars, sizeof(PtxVar), &f.nvars);
    f.insts = vec_to_arena(P, &P->insts, sizeof(PtxInst), &f.ninsts);
    f.labels = vec_to_arena(P, &P->labels, sizeof(PtxLabel), &f.nlabels);
    *(PtxFunc *)vec_push(P, &P->funcs, sizeof f) = f;
}

/* .version MAJOR.MINOR: anything up to 9.0 is accepted. */
static void parse_version(Parser *P, const PtxToken *d)
{
    if (P->have_version) fail_tok(P, d, "duplicate .version directive");
    PtxToken t = next(P);
    int major = 0, minor = 0, i = 0, nmaj = 0, nmin = 0;
    if (t.kind == PTK_FLOAT) {
        for (; i < (int)t.len && t.p[i] >= '0' && t.p[i] <= '9' && nmaj < 6; i++, nmaj++)
            major = major * 10 + (t.p[i] - '0');
        if (i < (int)t.len && t.p[i] == '.') i++;
        for (; i < (int)t.len && t.p[i] >= '0' && t.p[i] <= '9' && nmin < 6; i++, nmin++)
            minor = minor * 10 + (t.p[i] - '0');
    }
    if (!nmaj || !nmin || i != (int)t.len) fail_expected(P, &t, "a version number MAJOR.MINOR");
    if (major > 9 || (major == 9 && minor > 0)) {
        char v[32];
        snprintf(v, sizeof v, "%d.%d", major, minor);
        fail_version(P, &t, "PTX ISA version %s is not supported (ptxemu accepts up to 9.0)", v);
    }
    P->m->version_major = major;
    P->m->version_minor = minor;
    P->have_version = 1;
}

static int valid_arch(const PtxToken *t)
{
    size_t i;
    if (t->len > 3 && memcmp(t->p, "sm_", 3) == 0) i = 3;
    else if (t->len > 8 && memcmp(t->p, "compute_", 8) == 0) i = 8;
    else return 0;
    size_t d = i;
    while (i < t->len && t->p[i] >= '0' && t->p[i] <= '9') i++;
    if (i == d) return 0;
    if (i < t->len && t->p[i] >= 'a' && t->p[i] <= 'z') i++;   /* sm_90a, sm_100f */
    return i == t->len && t->len < 32;
}

static void parse_target(Parser *P, const PtxToken *d)
{
    if (!P->have_version) fail_tok(P, d, ".target must follow .version");
    if (P->have_target) fail_tok(P, d, "duplicate .target directive");
    PtxToken t = next(P);
    char b[96];
    if (t.kind != PTK_IDENT || !valid_arch(&t))
        fail_version(P, &t, "unsupported .target %s (expected sm_XX or compute_XX)",
                     tok_desc(&t, b, sizeof b));
    memcpy(P->m->target, t.p, t.len);
    P->m->target[t.len] = 0;
    while (accept_punct(P, ',')) {
        PtxToken o = next(P);
        if (o.kind != PTK_IDENT || !(tok_is(&o, "debug") || tok_is(&o, "texmode_unified") ||
                                     tok_is(&o, "texmode_independent") ||
                                     tok_is(&o, "map_f64_to_f32")))
            fail_version(P, &o, "unsupported .target option %s", tok_desc(&o, b, sizeof b));
    }
    P->have_target = 1;
}

/* .section .debug_xxx { ... }: DWARF data for debuggers, skipped token by token. */
static void skip_section(Parser *P)
{
    PtxToken n = next(P);
    if (n.kind != PTK_DIR) fail_expected(P, &n, "a section name");
    PtxToken o = expect_punct(P, '{', "'{' after the section name");
    int nest = 1;
    while (nest) {
        PtxToken t = next(P);
        if (t.kind == PTK_EOF) fail_tok(P, &o, "unterminated .section block");
        if (is_punct(&t, '{') && ++nest > MAX_DEPTH) fail_tok(P, &t, "braces nested too deeply");
        if (is_punct(&t, '}')) nest--;
    }
}

static void parse_file(Parser *P)
{
    int idx = (int)expect_int(P, "a file number", 0, INT_MAX);
    PtxToken s = next(P);
    if (s.kind != PTK_STRING) fail_expected(P, &s, "a file name string");
    if (accept_punct(P, ',')) {          /* timestamp, size */
        expect_int(P, "a timestamp", 0, INT64_MAX);
        expect_punct(P, ',', "',' before the file size");
        expect_int(P, "a file size", 0, INT64_MAX);
    }
    PtxFile *f = vec_push(P, &P->files, sizeof *f);
    f->index = idx;
    f->path = istr(P, s.p, s.len);
}

static void parse_module_directive(Parser *P)
{
    PtxToken d = next(P);
    char b[96];
    if (d.kind != PTK_DIR)
        fail_tok(P, &d, "expected a directive, found %s", tok_desc(&d, b, sizeof b));
    if (tok_is(&d, ".version")) { parse_version(P, &d); return; }
    if (!P->have_version) fail_tok(P, &d, "the module must start with a .version directive");
    if (tok_is(&d, ".target")) { parse_target(P, &d); return; }
    if (!P->have_target) fail_tok(P, &d, "a .target directive must follow .version");
    if (tok_is(&d, ".address_size")) {
        PtxToken n = *peek(P, 0);
        int a = (int)expect_int(P, "an address size", 0, 64);
        if (a != 32 && a != 64) fail_tok(P, &n, ".address_size must be 32 or 64");
        P->m->address_size = a;
        return;
    }
    if (tok_is(&d, ".file")) { parse_file(P); return; }
    if (tok_is(&d, ".loc")) { parse_loc(P); return; }
    if (tok_is(&d, ".pragma")) { parse_pragma(P); return; }
    if (tok_is(&d, ".section")) { skip_section(P); return; }
    Linkage lk = {0, 0, 0};
    for (;;) {
        if (tok_is(&d, ".extern")) lk.ext = 1;
        else if (tok_is(&d, ".visible")) lk.vis = 1;
        else if (tok_is(&d, ".weak") || tok_is(&d, ".common")) lk.weak = 1;
        else break;
        d = next(P);
        if (d.kind != PTK_DIR) fail_expected(P, &d, "a declaration after the linkage directive");
    }
    if (tok_is(&d, ".entry") || tok_is(&d, ".func")) { parse_function(P, &d, lk); return; }
    int sp = dir_space(&d);
    if (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_LOCAL ||
        (sp == SP_SHARED && tok_is(&d, ".shared"))) {
        parse_var_decl(P, &d, sp, lk, &P->globals, 0);
        return;
    }
    if (tok_is(&d, ".alias"))
        fail_tok(P, &d, "'.alias' is not supported");
    fail_tok(P, &d, "unexpected directive '%.*s' at module scope", (int)d.len, d.p);
}

static void free_scratch(Parser *P)
{
    Vec *vs[] = {&P->globals, &P->funcs, &P->files, &P->params, &P->rets, &P->vars,
                 &P->insts, &P->labels, &P->decls, &P->fixes, &P->ostk, &P->inits, &P->proto,
                 &P->digit_singles};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        free(vs[i]->a);
        vs[i]->a = NULL;
    }
    free(P->syms);
    free(P->slots);
    P->syms = NULL;
    P->slots = NULL;
}

/* The error path: every failure longjmps back here; the caller frees what is left. */
static PtxModule *parse_guarded(Parser *P)
{
    if (setjmp(P->jb)) return NULL;
    P->m = palloc(P, sizeof *P->m);
    memset(P->m, 0, sizeof *P->m);
    P->m->address_size = 32;
    while (peek(P, 0)->kind != PTK_EOF) parse_module_directive(P);
    PtxToken *end = peek(P, 0);
    if (!P->have_version) fail_tok(P, end, "empty PTX: missing .version directive");
    if (!P->have_target) fail_tok(P, end, "missing .target directive");
    PtxModule *m = P->m;
    m->globals = vec_to_arena(P, &P->globals, sizeof(PtxVar), &m->nglobals);
    m->funcs = vec_to_arena(P, &P->funcs, sizeof(PtxFunc), &m->nfuncs);
    m->files = vec_to_arena(P, &P->files, sizeof(PtxFile), &m->nfiles);
    m->source_name = istr(P, P->src_name, strlen(P->src_name));
    m->arena = P->arena;
    return m;
}

/* Whether the ptxas options on the text's last line (PTX_OPTIONS_MARK) turn fusion of mul
 * and add off. Measured on the H100 (tests/cuda/fma_contract_*): -fmad=false (recorded as
 * "--fmad false"), -Xptxas -O0 ("-O0") and -G ("-g ...") fuse nothing. */
static int options_forbid_contraction(const char *text, size_t len)
{
    if (!text) return 0;
    size_t from = len > 512 ? len - 512 : 0;
    const char *opts = NULL;
    for (size_t i = from; i + strlen(PTX_OPTIONS_MARK) <= len; i++)
        if (!strncmp(text + i, PTX_OPTIONS_MARK, strlen(PTX_OPTIONS_MARK))) opts = text + i + strlen(PTX_OPTIONS_MARK);
    if (!opts) return 0;
    char buf[512];
    size_t n = 0;
    while (opts + n < text + len && opts[n] != '\n' && n + 1 < sizeof buf) { buf[n] = opts[n]; n++; }
    buf[n] = 0;
    static const char *const off[] = { "fmad false", "fmad=false", "-O0", "-O 0", "-g", NULL };
    for (int k = 0; off[k]; k++)
        for (const char *p = strstr(buf, off[k]); p; p = strstr(p + 1, off[k])) {
            char after = p[strlen(off[k])];
            if (after == 0 || after == ' ') return 1;
        }
    return 0;
}

PtxModule *ptx_parse(const char *text, size_t len, const char *source_name, char *err,
                     size_t errlen, int *is_version_error)
{
    if (is_version_error) *is_version_error = 0;
    if (err && errlen) err[0] = 0;
    Parser *P = calloc(1, sizeof *P);
    Arena *a = calloc(1, sizeof *a);
    if (!P || !a) {
        if (err && errlen) snprintf(err, errlen, "out of memory while parsing PTX");
        free(P);
        free(a);
        return NULL;
    }
    a->next_size = 64 * 1024;
    P->arena = a;
    P->src_name = source_name ? source_name : "<ptx>";
    P->err = err;
    P->errlen = errlen;
    if (!text) len = 0;
    ptx_lex_init(&P->lx, text ? text : "", len);
    PtxModule *m = parse_guarded(P);
    if (!m) {
        if (is_version_error) *is_version_error = P->version_error;
        arena_free(P->arena);
    } else {
        m->no_contract = options_forbid_contraction(text, len);
    }
    free_scratch(P);
    free(P);
    return m;
}

void ptx_module_free(PtxModule *m)
{
    if (!m) return;
    if (!m->parts) {
        arena_free(m->arena);
        return;
    }
    for (int i = 0; i < m->nparts; i++) ptx_module_free(m->parts[i]);
    for (int i = 0; i < m->nowned; i++) free(m->owned[i]);
    free(m->owned);
    free(m->parts);
    free(m->globals);
    free(m->funcs);
    free(m->files);
    free(m);
}
