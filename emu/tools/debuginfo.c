/* debuginfo.c - the DWARF nvcc -G writes into the PTX, for the step debugger (debuginfo.h).
 *
 * The sections (.debug_abbrev, .debug_info, .debug_loc, .debug_str) are PTX directives:
 * `.b8 1,2,3`, `.b32 .debug_abbrev`, `.b64 $L__tmp4` - numbers, and names where the
 * assembler puts an offset or an address. They are read back into bytes with the names kept
 * beside them; an address is a label of the function's code. A scope or a location-list
 * range is kept as the PTX lines between its two labels: a function's text is one piece of
 * the PTX, while the Program may place a function's code after the kernel's. nvcc's location
 * expressions name PTX registers by their characters: DW_OP_regx of 0x25723130 is "%r10".
 * Kernel parameters (DW_OP_addr in the parameter space) are taken in their order, shared
 * variables by their PTX name. What this reads is what nvcc 13 writes (DWARF 2); anything
 * else is skipped, not guessed at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "debuginfo.h"

enum { T_BASE = 1, T_POINTER, T_QUAL, T_TYPEDEF, T_ARRAY, T_STRUCT, T_OTHER };

typedef struct Reloc { size_t at; char sym[96]; uint64_t addend; } Reloc;
typedef struct Label { char name[96]; size_t at; } Label;
typedef struct Sec {
    uint8_t *b; size_t n, cap;
    Reloc *r; size_t nr, capr;
    Label *l; size_t nl, capl;
} Sec;

typedef struct DiType {
    uint32_t off;               /* its DIE's offset in .debug_info                          */
    int kind;
    char name[64];
    uint32_t size, target;      /* bytes; the type it points to / qualifies / holds         */
    int enc;                    /* DW_ATE_* of a base type                                  */
    uint64_t count;             /* elements of an array                                     */
    int qual;                   /* T_QUAL: 1 const, 2 volatile                              */
    uint32_t first_member, nmembers;
} DiType;

typedef struct DiMember { char name[64]; uint32_t type, offset; } DiMember;
typedef struct DiLoc { uint32_t list, pc_lo, pc_hi; char reg[32]; } DiLoc;   /* pc_*: PTX lines */

struct DiVar {
    char name[64];
    uint32_t type;
    uint32_t pc_lo, pc_hi;      /* the scope it is visible in: PTX lines between its labels  */
    int is_param, param;
    int loc;                    /* DL_* ; DL_REG with list >= 0: a location list           */
    char reg[32];
    long list;                  /* offset in .debug_loc, or -1                              */
    char symbol[160];
};

struct DebugInfo {
    const Program *p;
    DiVar *v; size_t nv;
    DiType *t; size_t nt;
    DiMember *m; size_t nm;
    DiLoc *loc; size_t nloc;
    Label *code_labels; size_t ncode_labels;                 /* labels of the code, by line */
};

/* ---- growing arrays ---- */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* ---- the sections, out of the PTX text ---- */

static void sec_value(Sec *s, const char *v, int width)
{
    while (*v == ' ' || *v == '\t') v++;
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    if (grow((void **)&s->b, &s->cap, s->n + (size_t)width, 1)) return;
    if (end == v) {   /* a name: the assembler's offset or address */
        if (!grow((void **)&s->r, &s->capr, s->nr + 1, sizeof *s->r)) {
            Reloc *r = &s->r[s->nr++];
            size_t len = strcspn(v, "+ \t,");
            snprintf(r->sym, sizeof r->sym, "%.*s", (int)len, v);
            r->at = s->n;
            r->addend = v[len] == '+' ? strtoull(v + len + 1, NULL, 0) : 0;
        }
        x = 0;
    }
    for (int k = 0; k < width; k++) s->b[s->n++] = (uint8_t)(x >> (8 * k));
}

static void sec_line(Sec *s, const char *line)
{
    while (*line == ' ' || *line == '\t') line++;
    int width = 0;
    if (!strncmp(line, ".b8", 3)) width = 1;
    else if (!strncmp(line, ".b16", 4)) width = 2;
    else if (!strncmp(line, ".b32", 4)) width = 4;
    else if (!strncmp(line, ".b64", 4)) width = 8;
    if (width) {
        const char *v = line + (width == 1 ? 3 : 4);
        for (;;) {
            sec_value(s, v, width);
            const char *comma = strchr(v, ',');
            if (!comma) break;
            v = comma + 1;
        }
        return;
    }
    size_t len = strcspn(line, ":");
    if (line[len] == ':' && len && !grow((void **)&s->l, &s->capl, s->nl + 1, sizeof *s->l)) {
        snprintf(s->l[s->nl].name, sizeof s->l[s->nl].name, "%.*s", (int)len, line);
        s->l[s->nl++].at = s->n;
    }
}

static void sec_free(Sec *s)
{
    free(s->b);
    free(s->r);
    free(s->l);
}

static const Reloc *reloc_at(const Sec *s, size_t at)
{
    for (size_t i = 0; i < s->nr; i++)
        if (s->r[i].at == at) return &s->r[i];
    return NULL;
}

/* ---- code labels and pcs ---- */

/* The PTX line of a label of the code; 0 when there is none. */
static uint32_t label_line(const DebugInfo *d, const char *sym, int *found)
{
    *found = 0;
    for (size_t i = 0; i < d->ncode_labels; i++)
        if (!strcmp(d->code_labels[i].name, sym)) {
            *found = 1;
            return (uint32_t)d->code_labels[i].at;
        }
    return 0;
}

static int index_code(DebugInfo *d, const char *text)
{
    /* labels of the code: "NAME:" on a line of its own, outside the debug sections */
    size_t cap = 0;
    uint32_t line = 1;
    int in_section = 0;
    for (const char *s = text; *s; line++) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const char *t = s;
        while (t < s + len && (*t == ' ' || *t == '\t')) t++;
        if (!strncmp(t, ".section", 8)) in_section = 1;
        else if (in_section && *t == '}') in_section = 0;
        else if (!in_section && (*t == '$' || *t == '_' || (*t >= 'A' && *t <= 'z'))) {
            size_t n = strcspn(t, ": \t\r");
            if (t + n < s + len && t[n] == ':' &&
                !grow((void **)&d->code_labels, &cap, d->ncode_labels + 1, sizeof *d->code_labels)) {
                snprintf(d->code_labels[d->ncode_labels].name, sizeof d->code_labels[0].name, "%.*s", (int)n, t);
                d->code_labels[d->ncode_labels++].at = line;
            }
        }
        s += len + (e != NULL);
        if (!e) break;
    }
    return 0;
}

/* ---- DWARF ---- */

static uint64_t uleb(const uint8_t *b, size_t n, size_t *i)
{
    uint64_t r = 0;
    for (int sh = 0; *i < n && sh < 64; sh += 7) {
        uint8_t c = b[(*i)++];
        r |= (uint64_t)(c & 0x7f) << sh;
        if (!(c & 0x80)) break;
    }
    return r;
}

static uint64_t fixed(const uint8_t *b, size_t n, size_t *i, int w)
{
    uint64_t r = 0;
    for (int k = 0; k < w && *i < n; k++) r |= (uint64_t)b[(*i)++] << (8 * k);
    return r;
}

typedef struct Abbrev { uint64_t code, tag; int children; uint32_t first, n; } Abbrev;
typedef struct Attr { uint64_t at, form; } Attr;

/* A value of an attribute: a number, bytes (a block or a string) and the name the assembler
 * fills in (an address or an offset into another section). */
typedef struct Val { uint64_t u; const uint8_t *p; size_t len; const Reloc *r; int is_str; } Val;

static int read_val(const Sec *s, size_t *i, uint64_t form, Val *v)
{
    const uint8_t *b = s->b;
    size_t n = s->n;
    memset(v, 0, sizeof *v);
    v->r = reloc_at(s, *i);
    switch (form) {
    case 0x01: v->u = fixed(b, n, i, 8); break;                       /* addr */
    case 0x0b: case 0x11: v->u = fixed(b, n, i, 1); break;            /* data1, ref1 */
    case 0x05: case 0x12: v->u = fixed(b, n, i, 2); break;            /* data2, ref2 */
    case 0x06: case 0x13: case 0x10: case 0x17: case 0x0e:            /* data4, ref4, ref_addr, sec_offset, strp */
        v->u = fixed(b, n, i, 4); break;
    case 0x07: case 0x14: v->u = fixed(b, n, i, 8); break;            /* data8, ref8 */
    case 0x0c: v->u = fixed(b, n, i, 1); break;                       /* flag */
    case 0x19: v->u = 1; break;                                       /* flag_present */
    case 0x0d: case 0x0f: case 0x15: v->u = uleb(b, n, i); break;     /* sdata (as read), udata, ref_udata */
    case 0x08: {                                                      /* string */
        v->p = b + *i;
        while (*i < n && b[*i]) (*i)++;
        v->len = (size_t)(b + *i - v->p);
        v->is_str = 1;
        if (*i < n) (*i)++;
        break;
    }
    case 0x0a: case 0x03: case 0x04: case 0x09: case 0x18: {          /* blocks, exprloc */
        size_t len = form == 0x0a ? fixed(b, n, i, 1) : form == 0x03 ? fixed(b, n, i, 2)
                   : form == 0x04 ? fixed(b, n, i, 4) : uleb(b, n, i);
        if (*i + len > n) return -1;
        v->p = b + *i;
        v->len = len;
        *i += len;
        break;
    }
    default: return -1;   /* a form nvcc does not write: give up on the section */
    }
    return 0;
}

static void copy_str(char *dst, size_t n, const Val *v, const Sec *str)
{
    if (v->is_str) { snprintf(dst, n, "%.*s", (int)v->len, (const char *)v->p); return; }
    /* strp: an offset into .debug_str (a label there, or a number) */
    size_t at = (size_t)v->u;
    if (v->r && str) {
        at = 0;
        for (size_t k = 0; k < str->nl; k++)
            if (!strcmp(str->l[k].name, v->r->sym)) at = str->l[k].at;
        at += (size_t)v->r->addend;
    }
    if (str && at < str->n) snprintf(dst, n, "%.*s", (int)strnlen((const char *)str->b + at, str->n - at), (const char *)str->b + at);
    else dst[0] = 0;
}

/* "%r10" out of DW_OP_regx's number: the register's characters, the first the highest. */
static void reg_name(uint64_t x, char *buf, size_t n)
{
    char tmp[16];
    int k = 0;
    for (; x && k < 15; x >>= 8) tmp[k++] = (char)(x & 0xff);
    size_t j = 0;
    while (k > 0 && j + 1 < n) buf[j++] = tmp[--k];
    buf[j] = 0;
}

/* A location expression: a register (DW_OP_regx), or an address (DW_OP_addr: a parameter,
 * a shared or local variable). */
static int expr_where(const uint8_t *p, size_t len, char *reg, size_t rn)
{
    if (len >= 2 && p[0] == 0x90) {
        size_t i = 1;
        reg_name(uleb(p, len, &i), reg, rn);
        return DL_REG;
    }
    if (len >= 1 && p[0] == 0x03) return DL_MEMORY;
    return DL_NONE;
}

static DiType *type_at(const DebugInfo *d, uint32_t off)
{
    for (size_t i = 0; i < d->nt; i++)
        if (d->t[i].off == off) return &d->t[i];
    return NULL;
}

/* .debug_loc: lists of (begin label, end label, expression), each ended by two zeros; an
 * entry remembers where its list starts (what a variable's DW_AT_location names). */
static void read_locs(DebugInfo *d, const Sec *s)
{
    size_t cap = 0, list = 0;
    for (size_t i = 0; i + 16 <= s->n;) {
        const Reloc *ra = reloc_at(s, i);
        fixed(s->b, s->n, &i, 8);
        const Reloc *rb = reloc_at(s, i);
        fixed(s->b, s->n, &i, 8);
        if (!ra && !rb) { list = i; continue; }   /* the end of a list */
        size_t len = fixed(s->b, s->n, &i, 2);
        if (i + len > s->n) break;
        DiLoc l = { .list = (uint32_t)list };
        int f1 = 0, f2 = 0;
        l.pc_lo = ra ? label_line(d, ra->sym, &f1) : 0;
        l.pc_hi = rb ? label_line(d, rb->sym, &f2) : 0;
        if (expr_where(s->b + i, len, l.reg, sizeof l.reg) == DL_REG && f1 && f2 &&
            !grow((void **)&d->loc, &cap, d->nloc + 1, sizeof *d->loc))
            d->loc[d->nloc++] = l;
        i += len;
    }
}

static int read_info(DebugInfo *d, const Sec *abbrev, const Sec *info, const Sec *str)
{
    /* the abbreviations */
    Abbrev *ab = NULL;
    Attr *at = NULL;
    size_t nab = 0, capab = 0, nat = 0, capat = 0;
    for (size_t i = 0; i < abbrev->n;) {
        uint64_t code = uleb(abbrev->b, abbrev->n, &i);
        if (!code) break;
        if (grow((void **)&ab, &capab, nab + 1, sizeof *ab)) break;
        Abbrev *a = &ab[nab++];
        a->code = code;
        a->tag = uleb(abbrev->b, abbrev->n, &i);
        a->children = i < abbrev->n ? abbrev->b[i++] : 0;
        a->first = (uint32_t)nat;
        for (;;) {
            uint64_t x = uleb(abbrev->b, abbrev->n, &i), f = uleb(abbrev->b, abbrev->n, &i);
            if (!x && !f) break;
            if (grow((void **)&at, &capat, nat + 1, sizeof *at)) break;
            at[nat++] = (Attr){ x, f };
        }
        a->n = (uint32_t)nat - a->first;
    }
    /* the DIEs: scopes on a stack, each with its pc range */
    struct { uint32_t lo, hi; int is_sub; int nparams; uint32_t type; long die; int kernel; } st[64];
    int depth = 0;
    size_t capv = 0, capt = 0, capm = 0;
    long cur_struct = -1;
    st[0].lo = 0; st[0].hi = UINT32_MAX; st[0].is_sub = 0; st[0].nparams = 0; st[0].die = -1;
    st[0].kernel = 0;
    for (size_t i = 11; i < info->n;) {
        size_t off = i;
        uint64_t code = uleb(info->b, info->n, &i);
        if (!code) {
            if (depth > 0) {
                if (st[depth].die >= 0 && st[depth].die == cur_struct) cur_struct = -1;
                depth--;
            }
            continue;
        }
        const Abbrev *a = NULL;
        for (size_t k = 0; k < nab; k++) if (ab[k].code == code) a = &ab[k];
        if (!a) break;
        char name[160] = "", linkage[160] = "";
        uint32_t type = 0, size = 0, lo = 0, hi = 0;
        int has_lo = 0, has_hi = 0, enc = 0, where = DL_NONE, aclass = -1;
        uint64_t count = 0, member_off = 0;
        long list = -1;
        char reg[32] = "";
        for (uint32_t k = 0; k < a->n; k++) {
            Val v;
            if (read_val(info, &i, at[a->first + k].form, &v)) goto out;
            switch (at[a->first + k].at) {
            case 0x03: copy_str(name, sizeof name, &v, str); break;
            case 0x2007: case 0x6e: copy_str(linkage, sizeof linkage, &v, str); break;
            case 0x49: type = (uint32_t)v.u; break;
            case 0x0b: size = (uint32_t)v.u; break;
            case 0x3e: enc = (int)v.u; break;
            case 0x37: count = v.u; break;
            case 0x2f: count = v.u + 1; break;
            case 0x33: aclass = (int)v.u; break;
            case 0x11: if (v.r) { int f; lo = label_line(d, v.r->sym, &f); has_lo = f; } break;
            case 0x12: if (v.r) { int f; hi = label_line(d, v.r->sym, &f); has_hi = f; } break;
            case 0x38: if (v.p && v.len >= 2 && v.p[0] == 0x23) { size_t j = 1; member_off = uleb(v.p, v.len, &j); } else member_off = v.u; break;
            case 0x02:
                if (v.p) where = expr_where(v.p, v.len, reg, sizeof reg);
                else { where = DL_REG; list = (long)(v.u + (v.r ? v.r->addend : 0)); }
                break;
            }
        }
        switch (a->tag) {
        case 0x24: case 0x0f: case 0x26: case 0x35: case 0x16: case 0x01: case 0x13: case 0x17: case 0x3b:
        case 0x04: {   /* base, pointer, const, volatile, typedef, array, struct, union, void, enum */
            if (grow((void **)&d->t, &capt, d->nt + 1, sizeof *d->t)) break;
            DiType *t = &d->t[d->nt++];
            memset(t, 0, sizeof *t);
            t->off = (uint32_t)off;
            t->kind = a->tag == 0x24 ? T_BASE : a->tag == 0x0f ? T_POINTER
                    : a->tag == 0x26 || a->tag == 0x35 ? T_QUAL : a->tag == 0x16 ? T_TYPEDEF
                    : a->tag == 0x01 ? T_ARRAY : a->tag == 0x13 || a->tag == 0x17 ? T_STRUCT : T_OTHER;
            t->qual = a->tag == 0x26 ? 1 : a->tag == 0x35 ? 2 : 0;
            snprintf(t->name, sizeof t->name, "%s", name[0] ? name : a->tag == 0x3b ? "void" : "");
            t->size = a->tag == 0x0f ? 8 : size;
            t->enc = enc;
            t->target = type;
            t->first_member = (uint32_t)d->nm;
            if (t->kind == T_STRUCT && a->children) cur_struct = (long)off;
            break;
        }
        case 0x21: {   /* an array's subrange: its element count */
            if (d->nt && d->t[d->nt - 1].kind == T_ARRAY) d->t[d->nt - 1].count = count;
            break;
        }
        case 0x0d: {   /* a struct's member */
            DiType *s = cur_struct >= 0 ? type_at(d, (uint32_t)cur_struct) : NULL;
            if (!s || grow((void **)&d->m, &capm, d->nm + 1, sizeof *d->m)) break;
            DiMember *m = &d->m[d->nm++];
            snprintf(m->name, sizeof m->name, "%s", name);
            m->type = type;
            m->offset = (uint32_t)member_off;
            s = type_at(d, (uint32_t)cur_struct);   /* d->t may not move, but be safe */
            if (s) s->nmembers++;
            break;
        }
        case 0x34: case 0x05: {   /* a variable, a parameter */
            if (!name[0] || grow((void **)&d->v, &capv, d->nv + 1, sizeof *d->v)) break;
            DiVar *x = &d->v[d->nv++];
            memset(x, 0, sizeof *x);
            snprintf(x->name, sizeof x->name, "%s", name);
            x->type = type;
            x->pc_lo = st[depth].lo;
            x->pc_hi = st[depth].hi;
            x->list = list;
            x->is_param = a->tag == 0x05;
            x->param = x->is_param ? st[depth].nparams++ : -1;
            x->loc = where;
            snprintf(x->reg, sizeof x->reg, "%s", reg);
            if (where == DL_MEMORY) {   /* the kernel's parameters, in their order */
                if (x->is_param && aclass != 8 && st[depth].kernel) x->loc = DL_PARAM;
                else if (aclass == 8 && linkage[0]) { x->loc = DL_SHARED; snprintf(x->symbol, sizeof x->symbol, "%s", linkage); }
            }
            break;
        }
        }
        if (a->children) {
            if (depth + 1 >= (int)(sizeof st / sizeof st[0])) break;
            depth++;
            st[depth] = st[depth - 1];
            st[depth].die = (long)off;
            if (a->tag == 0x2e || a->tag == 0x0b) {   /* a function, a block: its pcs */
                if (has_lo) st[depth].lo = lo;
                if (has_hi) st[depth].hi = hi > lo ? hi : UINT32_MAX;
            }
            if (a->tag == 0x2e) {
                st[depth].nparams = 0;
                st[depth].kernel = !strcmp(linkage[0] ? linkage : name, d->p->name);
            }
        }
    }
out:
    free(ab);
    free(at);
    return 0;
}

/* ---- the tool's cache: one DebugInfo a Program ---- */

typedef struct Cached { const Program *p; DebugInfo *d; } Cached;
static Cached cache[64];
static int ncache;

static void read_sections(const char *text, Sec *abbrev, Sec *info, Sec *loc, Sec *str)
{
    Sec *cur = NULL;
    int open = 0;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), s);
        const char *t = line;
        while (*t == ' ' || *t == '\t') t++;
        if (!strncmp(t, ".section", 8)) {
            const char *n = t + 8;
            while (*n == ' ' || *n == '\t') n++;
            cur = !strncmp(n, ".debug_abbrev", 13) ? abbrev : !strncmp(n, ".debug_info", 11) ? info
                : !strncmp(n, ".debug_loc", 10) ? loc : !strncmp(n, ".debug_str", 10) ? str : NULL;
            open = 0;
        } else if (cur && !open && *t == '{') {
            open = 1;
        } else if (cur && open && *t == '}') {
            cur = NULL;
        } else if (cur && open) {
            sec_line(cur, t);
        }
        s += len + (e != NULL);
        if (!e) break;
    }
}

DebugInfo *debuginfo_of(const Program *p)
{
    for (int i = 0; i < ncache; i++) if (cache[i].p == p) return cache[i].d;
    DebugInfo *d = NULL;
    if (p->ptx_text && strstr(p->ptx_text, ".debug_info")) {
        Sec abbrev = { 0 }, info = { 0 }, loc = { 0 }, str = { 0 };
        read_sections(p->ptx_text, &abbrev, &info, &loc, &str);
        d = calloc(1, sizeof *d);
        if (d) {
            d->p = p;
            if (index_code(d, p->ptx_text) == 0 && info.n > 11) {
                read_locs(d, &loc);
                read_info(d, &abbrev, &info, &str);
            }
            if (!d->nv) { free(d->v); free(d->t); free(d->m); free(d->loc); free(d->code_labels); free(d); d = NULL; }
        }
        sec_free(&abbrev); sec_free(&info); sec_free(&loc); sec_free(&str);
    }
    if (ncache < (int)(sizeof cache / sizeof cache[0])) cache[ncache++] = (Cached){ p, d };
    return d;
}

/* ---- lookups ---- */

static uint32_t line_of(const DebugInfo *d, uint32_t pc)
{
    return pc < d->p->ncode ? d->p->code[pc].line : 0;
}

static int in_scope(const DebugInfo *d, const DiVar *v, uint32_t pc)
{
    uint32_t line = line_of(d, pc);
    return line > v->pc_lo && line < v->pc_hi;
}

const DiVar *debuginfo_find(const DebugInfo *d, uint32_t pc, const char *name)
{
    const DiVar *best = NULL;
    for (size_t i = 0; d && i < d->nv; i++) {
        const DiVar *v = &d->v[i];
        if (strcmp(v->name, name) || !in_scope(d, v, pc)) continue;
        if (!best || v->pc_hi - v->pc_lo < best->pc_hi - best->pc_lo) best = v;   /* innermost */
    }
    return best;
}

size_t debuginfo_scope(const DebugInfo *d, uint32_t pc, const DiVar **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; d && i < d->nv; i++) {
        const DiVar *v = &d->v[i];
        if (!in_scope(d, v, pc) || debuginfo_find(d, pc, v->name) != v) continue;   /* hidden */
        if (n < max) out[n++] = v;
    }
    for (size_t i = 1; i < n; i++)   /* innermost scope first, declaration order within */
        for (size_t j = i; j > 0 && out[j]->pc_hi - out[j]->pc_lo < out[j - 1]->pc_hi - out[j - 1]->pc_lo; j--) {
            const DiVar *t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
        }
    return n;
}

const char *debuginfo_name(const DiVar *v) { return v->name; }
int debuginfo_is_param(const DiVar *v) { return v->is_param; }

DiWhere debuginfo_where(const DebugInfo *d, const DiVar *v, uint32_t pc)
{
    DiWhere w = { .kind = v->loc, .param = v->param };
    if (v->loc == DL_REG && v->list >= 0) {   /* a location list: the range holding pc */
        w.kind = DL_NONE;
        for (size_t i = 0; i < d->nloc; i++)
            if (d->loc[i].list == (uint32_t)v->list && line_of(d, pc) > d->loc[i].pc_lo &&
                line_of(d, pc) < d->loc[i].pc_hi) {
                w.kind = DL_REG;
                snprintf(w.reg, sizeof w.reg, "%s", d->loc[i].reg);
                break;
            }
        return w;
    }
    snprintf(w.reg, sizeof w.reg, "%s", v->reg);
    snprintf(w.symbol, sizeof w.symbol, "%s", v->symbol);
    return w;
}

/* The type after typedefs and qualifiers. */
static const DiType *strip(const DebugInfo *d, uint32_t off)
{
    const DiType *t = type_at(d, off);
    for (int k = 0; t && (t->kind == T_QUAL || t->kind == T_TYPEDEF) && k < 16; k++) t = type_at(d, t->target);
    return t;
}

static size_t type_size(const DebugInfo *d, uint32_t off)
{
    const DiType *t = strip(d, off);
    if (!t) return 0;
    if (t->kind == T_ARRAY) return (size_t)t->count * type_size(d, t->target);
    return t->size;
}

size_t debuginfo_size(const DebugInfo *d, const DiVar *v) { return type_size(d, v->type); }

static void name_of(const DebugInfo *d, uint32_t off, char *buf, size_t n, int depth)
{
    const DiType *t = type_at(d, off);
    if (!t || depth > 8) { snprintf(buf, n, "void"); return; }
    char inner[200];
    switch (t->kind) {
    case T_POINTER: name_of(d, t->target, inner, sizeof inner, depth + 1); snprintf(buf, n, "%s *", inner); break;
    case T_QUAL: name_of(d, t->target, inner, sizeof inner, depth + 1);
        snprintf(buf, n, "%s %s", t->qual == 1 ? "const" : "volatile", inner); break;
    case T_ARRAY: name_of(d, t->target, inner, sizeof inner, depth + 1);
        snprintf(buf, n, "%s [%llu]", inner, (unsigned long long)t->count); break;
    case T_STRUCT: snprintf(buf, n, "struct %s", t->name[0] ? t->name : "(anonymous)"); break;
    default: snprintf(buf, n, "%s", t->name[0] ? t->name : "?"); break;
    }
}

void debuginfo_type_name(const DebugInfo *d, const DiVar *v, char *buf, size_t n)
{
    name_of(d, v->type, buf, n, 0);
}

static void fmt(const DebugInfo *d, uint32_t off, const uint8_t *b, size_t size, char *buf, size_t n, int depth)
{
    const DiType *t = strip(d, off);
    if (!n) return;
    buf[0] = 0;
    if (!t || depth > 4) { snprintf(buf, n, "?"); return; }
    if (t->kind == T_POINTER) {
        uint64_t x = 0;
        memcpy(&x, b, size < 8 ? size : 8);
        snprintf(buf, n, "0x%llx", (unsigned long long)x);
        return;
    }
    if (t->kind == T_BASE) {
        uint64_t x = 0;
        memcpy(&x, b, t->size < size ? t->size : size);
        int s = t->size;
        if (t->enc == 4) {   /* float */
            if (s == 4) { float f; memcpy(&f, &x, 4); snprintf(buf, n, "%.9g", f); }
            else { double f; memcpy(&f, &x, 8); snprintf(buf, n, "%.17g", f); }
        } else if (t->enc == 2) snprintf(buf, n, "%s", x & 0xff ? "true" : "false");
        else if (t->enc == 5 || t->enc == 6) {   /* signed */
            int64_t v = s == 1 ? (int8_t)x : s == 2 ? (int16_t)x : s == 4 ? (int32_t)x : (int64_t)x;
            if (t->enc == 6 && s == 1 && v >= 32 && v < 127) snprintf(buf, n, "%lld '%c'", (long long)v, (int)v);
            else snprintf(buf, n, "%lld", (long long)v);
        } else {
            uint64_t v = s == 1 ? (uint8_t)x : s == 2 ? (uint16_t)x : s == 4 ? (uint32_t)x : x;
            snprintf(buf, n, "%llu", (unsigned long long)v);
        }
        return;
    }
    if (t->kind == T_ARRAY || t->kind == T_STRUCT) {
        size_t k = (size_t)snprintf(buf, n, "{");
        size_t es = t->kind == T_ARRAY ? type_size(d, t->target) : 0;
        uint32_t items = t->kind == T_ARRAY ? (uint32_t)t->count : t->nmembers;
        for (uint32_t i = 0; i < items && k + 8 < n; i++) {
            size_t at = t->kind == T_ARRAY ? i * es : d->m[t->first_member + i].offset;
            uint32_t et = t->kind == T_ARRAY ? t->target : d->m[t->first_member + i].type;
            size_t need = t->kind == T_ARRAY ? es : type_size(d, et);
            if (at + need > size) { k += (size_t)snprintf(buf + k, n - k, "%s...", i ? ", " : ""); break; }
            if (t->kind == T_ARRAY && i == 16) { k += (size_t)snprintf(buf + k, n - k, ", ..."); break; }
            char one[256];
            fmt(d, et, b + at, need, one, sizeof one, depth + 1);
            if (t->kind == T_STRUCT)
                k += (size_t)snprintf(buf + k, n - k, "%s%s = %s", i ? ", " : "", d->m[t->first_member + i].name, one);
            else
                k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", one);
        }
        if (k + 2 < n) snprintf(buf + k, n - k, "}");
        return;
    }
    snprintf(buf, n, "(a value of a type the debugger does not show)");
}

void debuginfo_format(const DebugInfo *d, const DiVar *v, const uint8_t *bytes, size_t size,
                      char *buf, size_t n)
{
    fmt(d, v->type, bytes, size, buf, n, 0);
}
