/* link.c - links several parsed PTX modules into one, as the driver's JIT linker does for
 * cuLinkAddData/cuLinkComplete and for programs built with -rdc=true.
 *
 * The result is one PtxModule whose functions and variables are those of all parts:
 *   - an .extern declaration is satisfied by the definition in another part, and dropped;
 *     one that nothing defines is an error (except functions the host provides, such as
 *     vprintf, which stay prototypes);
 *   - two strong definitions of a visible name are an error; .weak (and .common)
 *     definitions give way to a strong one or to the first weak one;
 *   - names with internal linkage ($str, static functions and variables) that collide with
 *     a name of another part are renamed in their part, references included;
 *   - .file indices are renumbered so every instruction keeps its source file.
 * The parts stay alive (their arenas hold the names and instructions) and are freed with the
 * linked module.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frontend/ptx_ast.h"

typedef struct Def { const char *name; int part; int weak; int visible; } Def;

typedef struct Linker {
    PtxModule **parts;
    int nparts;
    Def *defs;               /* every definition of a module-scope name, in part order */
    int ndefs, capdefs;
    char *err;
    size_t errlen;
    char **owned;            /* renamed names, freed with the module */
    int nowned, capowned;
    /* Functions the emulator implements on the host (vprintf, malloc, the device runtime's
     * __cudaCDP2* entry points...) are declared, never defined, in device code. */
    int (*host_provided)(const char *name);
} Linker;

static int add_def(Linker *L, const char *name, int part, int weak, int visible)
{
    if (L->ndefs == L->capdefs) {
        int nc = L->capdefs ? L->capdefs * 2 : 64;
        Def *d = realloc(L->defs, (size_t)nc * sizeof *d);
        if (!d) return -1;
        L->defs = d;
        L->capdefs = nc;
    }
    L->defs[L->ndefs++] = (Def){ name, part, weak, visible };
    return 0;
}

/* The definition a reference to `name` from part p binds to: the part's own internal one,
 * else the first strong visible one, else the first weak one. */
static const Def *find_def(const Linker *L, const char *name, int p)
{
    const Def *weak = NULL, *strong = NULL;
    for (int i = 0; i < L->ndefs; i++) {
        const Def *d = &L->defs[i];
        if (strcmp(d->name, name)) continue;
        if (!d->visible && !d->weak) {
            if (d->part == p) return d;
            continue;
        }
        if (d->weak) { if (!weak) weak = d; }
        else if (!strong) strong = d;
    }
    return strong ? strong : weak;
}

static int collect_defs(Linker *L)
{
    for (int p = 0; p < L->nparts; p++) {
        const PtxModule *m = L->parts[p];
        for (int i = 0; i < m->nglobals; i++) {
            const PtxVar *v = &m->globals[i];
            if (v->is_extern) continue;
            if (add_def(L, v->name, p, v->is_weak, v->is_visible)) return -1;
        }
        for (int i = 0; i < m->nfuncs; i++) {
            const PtxFunc *f = &m->funcs[i];
            if (!f->has_body) continue;
            if (add_def(L, f->name, p, f->is_weak, f->is_visible || f->is_entry)) return -1;
        }
    }
    for (int i = 0; i < L->ndefs; i++)
        for (int j = i + 1; j < L->ndefs; j++) {
            const Def *a = &L->defs[i], *b = &L->defs[j];
            if (strcmp(a->name, b->name) || a->weak || b->weak) continue;
            if (a->visible && b->visible && a->part != b->part) {
                snprintf(L->err, L->errlen, "link error: '%s' is defined in %s and in %s",
                         a->name, L->parts[a->part]->source_name, L->parts[b->part]->source_name);
                return -1;
            }
        }
    return 0;
}

/* ---- renaming internal names that collide ---- */

typedef struct Rename { const char *from, *to; } Rename;
typedef struct RenameMap { Rename *r; int n, cap; } RenameMap;

static const char *lookup_rename(const RenameMap *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (m->r[i].from == name || !strcmp(m->r[i].from, name)) return m->r[i].to;
    return name;
}

static int own(Linker *L, char *s)
{
    if (L->nowned == L->capowned) {
        int nc = L->capowned ? L->capowned * 2 : 16;
        char **o = realloc(L->owned, (size_t)nc * sizeof *o);
        if (!o) return -1;
        L->owned = o;
        L->capowned = nc;
    }
    L->owned[L->nowned++] = s;
    return 0;
}

/* An internal name of part p that another part also defines gets the suffix "$lnkP". */
static int plan_renames(Linker *L, int p, RenameMap *map)
{
    for (int i = 0; i < L->ndefs; i++) {
        const Def *d = &L->defs[i];
        if (d->part != p || d->visible || d->weak) continue;
        int clash = 0;
        for (int j = 0; j < L->ndefs && !clash; j++)
            clash = L->defs[j].part != p && !strcmp(L->defs[j].name, d->name);
        if (!clash) continue;
        size_t n = strlen(d->name) + 16;
        char *to = malloc(n);
        if (!to || own(L, to)) { free(to); return -1; }
        snprintf(to, n, "%s$lnk%d", d->name, p);
        if (map->n == map->cap) {
            int nc = map->cap ? map->cap * 2 : 8;
            Rename *r = realloc(map->r, (size_t)nc * sizeof *r);
            if (!r) return -1;
            map->r = r;
            map->cap = nc;
        }
        map->r[map->n++] = (Rename){ d->name, to };
    }
    return 0;
}

static void rename_operand(PtxOperand *o, const RenameMap *map)
{
    if ((o->kind == OPD_SYM || o->kind == OPD_ADDR) && o->name) o->name = lookup_rename(map, o->name);
    for (int i = 0; i < o->nelems; i++) rename_operand(&o->elems[i], map);
}

static void rename_inits(PtxVar *v, const RenameMap *map)
{
    for (int k = 0; k < v->ninit; k++)
        if (v->init[k].sym) v->init[k].sym = lookup_rename(map, v->init[k].sym);
}

/* Rewrites the part in place: its arena is the linked module's now. */
static void apply_renames(PtxModule *m, const RenameMap *map)
{
    if (!map->n) return;
    for (int i = 0; i < m->nglobals; i++) {
        m->globals[i].name = lookup_rename(map, m->globals[i].name);
        rename_inits(&m->globals[i], map);
    }
    for (int i = 0; i < m->nfuncs; i++) {
        PtxFunc *f = &m->funcs[i];
        f->name = lookup_rename(map, f->name);
        for (int k = 0; k < f->nvars; k++) rename_inits(&f->vars[k], map);
        for (int k = 0; k < f->ninsts; k++)
            for (int o = 0; o < f->insts[k].nopds; o++) rename_operand(&f->insts[k].opds[o], map);
    }
}

/* ---- assembling the linked module ---- */

/* Does the linked module already hold a variable of this name (shared dynamic arrays and
 * repeated prototypes are declared by every part that uses them)? */
static int have_var(const PtxModule *out, const char *name)
{
    for (int i = 0; i < out->nglobals; i++)
        if (!strcmp(out->globals[i].name, name)) return 1;
    return 0;
}

static int have_func(const PtxModule *out, const char *name)
{
    for (int i = 0; i < out->nfuncs; i++)
        if (!strcmp(out->funcs[i].name, name)) return 1;
    return 0;
}

static int take_vars(Linker *L, int p, PtxModule *out)
{
    const PtxModule *m = L->parts[p];
    for (int i = 0; i < m->nglobals; i++) {
        const PtxVar *v = &m->globals[i];
        if (v->is_extern && v->space == SP_SHARED) {          /* the dynamic shared array */
            if (!have_var(out, v->name)) out->globals[out->nglobals++] = *v;
            continue;
        }
        if (v->is_extern) {
            if (!find_def(L, v->name, p)) {
                snprintf(L->err, L->errlen, "%s:%d:%d: link error: extern variable '%s' is not "
                         "defined in any module", m->source_name, v->line, v->col, v->name);
                return -1;
            }
            continue;
        }
        const Def *d = find_def(L, v->name, p);
        if ((v->is_visible || v->is_weak) && d && d->part != p) continue;  /* another wins */
        if ((v->is_visible || v->is_weak) && have_var(out, v->name)) continue;
        out->globals[out->nglobals++] = *v;
    }
    return 0;
}

static int take_funcs(Linker *L, int p, PtxModule *out, int file_base)
{
    PtxModule *m = L->parts[p];
    for (int i = 0; i < m->nfuncs; i++) {
        PtxFunc *f = &m->funcs[i];
        if (!f->has_body) {
            const Def *d = find_def(L, f->name, p);
            if (d) continue;                                   /* bound to a definition   */
            if (!(L->host_provided && L->host_provided(f->name)) && f->is_extern) {
                snprintf(L->err, L->errlen, "%s:%d:%d: link error: extern function '%s' is not "
                         "defined in any module", m->source_name, f->line, f->col, f->name);
                return -1;
            }
            if (!have_func(out, f->name)) out->funcs[out->nfuncs++] = *f;
            continue;
        }
        const Def *d = find_def(L, f->name, p);
        if ((f->is_visible || f->is_weak || f->is_entry) && d && d->part != p) continue;
        if ((f->is_visible || f->is_weak) && have_func(out, f->name)) continue;
        for (int k = 0; k < f->ninsts; k++)
            if (f->insts[k].loc_file) {
                f->insts[k].loc_file += file_base;
                f->insts[k].outer_file += file_base;
            }
        out->funcs[out->nfuncs++] = *f;
    }
    return 0;
}

static int take_files(const PtxModule *m, PtxModule *out, int base)
{
    for (int i = 0; i < m->nfiles; i++) {
        out->files[out->nfiles] = m->files[i];
        out->files[out->nfiles++].index += base;
    }
    return 0;
}

static int max_file_index(const PtxModule *m)
{
    int mx = 0;
    for (int i = 0; i < m->nfiles; i++) if (m->files[i].index > mx) mx = m->files[i].index;
    return mx;
}

static void free_linker(Linker *L)
{
    free(L->defs);
    L->defs = NULL;
}

static PtxModule *alloc_linked(Linker *L)
{
    size_t ng = 0, nf = 0, nfiles = 0;
    for (int p = 0; p < L->nparts; p++) {
        ng += (size_t)L->parts[p]->nglobals;
        nf += (size_t)L->parts[p]->nfuncs;
        nfiles += (size_t)L->parts[p]->nfiles;
    }
    PtxModule *out = calloc(1, sizeof *out);
    if (!out) return NULL;
    out->globals = calloc(ng + 1, sizeof *out->globals);
    out->funcs = calloc(nf + 1, sizeof *out->funcs);
    out->files = calloc(nfiles + 1, sizeof *out->files);
    out->parts = calloc((size_t)L->nparts, sizeof *out->parts);
    if (!out->globals || !out->funcs || !out->files || !out->parts) {
        free(out->globals); free(out->funcs); free(out->files); free(out->parts); free(out);
        return NULL;
    }
    return out;
}

/* The linked module's header: the newest .version, the most specific .target. */
static int link_header(Linker *L, PtxModule *out)
{
    for (int p = 0; p < L->nparts; p++) {
        const PtxModule *m = L->parts[p];
        if (p && m->address_size != out->address_size) {
            snprintf(L->err, L->errlen, "link error: %s has .address_size %d, %s has %d",
                     m->source_name, m->address_size, L->parts[0]->source_name, out->address_size);
            return -1;
        }
        out->address_size = m->address_size;
        if (m->version_major > out->version_major ||
            (m->version_major == out->version_major && m->version_minor > out->version_minor)) {
            out->version_major = m->version_major;
            out->version_minor = m->version_minor;
        }
        int sm = 0, cur = 0;
        sscanf(m->target, "sm_%d", &sm);
        sscanf(out->target, "sm_%d", &cur);
        if (sm > cur || (sm == cur && strchr(m->target, 'a') && !strchr(out->target, 'a')))
            snprintf(out->target, sizeof out->target, "%s", m->target);
    }
    return 0;
}

PtxModule *ptx_link(PtxModule **parts, int nparts, int (*host_provided)(const char *name),
                    char *err, size_t errlen)
{
    Linker L = { parts, nparts, NULL, 0, 0, err, errlen, NULL, 0, 0, host_provided };
    if (err && errlen) err[0] = 0;
    if (nparts < 1) {
        snprintf(err, errlen, "link error: nothing to link");
        return NULL;
    }
    PtxModule *out = NULL;
    if (collect_defs(&L) < 0) goto fail;
    for (int p = 0; p < nparts; p++) {
        RenameMap map = { NULL, 0, 0 };
        int rc = plan_renames(&L, p, &map);
        if (rc == 0) apply_renames(parts[p], &map);
        free(map.r);
        if (rc < 0) { snprintf(err, errlen, "out of memory while linking"); goto fail; }
    }
    /* the renames changed names: record the definitions again */
    L.ndefs = 0;
    if (collect_defs(&L) < 0) goto fail;
    if (!(out = alloc_linked(&L))) { snprintf(err, errlen, "out of memory while linking"); goto fail; }
    if (link_header(&L, out) < 0) goto fail;
    int file_base = 0;
    for (int p = 0; p < nparts; p++) {
        if (take_vars(&L, p, out) < 0 || take_funcs(&L, p, out, file_base) < 0) goto fail;
        take_files(parts[p], out, file_base);
        file_base += max_file_index(parts[p]);
    }
    out->source_name = parts[0]->source_name;
    for (int i = 0; i < nparts; i++) out->no_contract |= parts[i]->no_contract;
    for (int p = 0; p < nparts; p++) out->parts[p] = parts[p];
    out->nparts = nparts;
    out->owned = L.owned;
    out->nowned = L.nowned;
    free_linker(&L);
    return out;
fail:
    free_linker(&L);
    for (int i = 0; i < L.nowned; i++) free(L.owned[i]);
    free(L.owned);
    if (out) {
        free(out->globals); free(out->funcs); free(out->files); free(out->parts); free(out);
    }
    return NULL;
}
