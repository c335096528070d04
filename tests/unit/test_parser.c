/* test_parser.c - unit tests of the PTX lexer/parser (frontend/parser.c) on nvcc output and
 * on hand-written good and malformed snippets.
 *
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra -Ifrontend tests/unit/test_parser.c \
 *            frontend/parser.c frontend/lexer.c frontend/ptx_names.c -o test_parser
 * Run:   ./test_parser [corpus-dir]        (default tests/ptx-corpus)
 *        ./test_parser --dump file.ptx     (print the parsed tree, for debugging)
 */
#include "../../frontend/ptx_ast.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int npass, nfail;

static void check(int ok, const char *fmt, ...)
{
    if (ok) { npass++; return; }
    nfail++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) { b[n] = 0; *len = (size_t)n; }
    return b;
}

static PtxModule *parse_str(const char *text, char *err, size_t errlen, int *verr)
{
    return ptx_parse(text, strlen(text), "t.ptx", err, errlen, verr);
}

/* ------------------------------------------------------------------ dump */

static void dump_opd(const PtxOperand *o)
{
    if (o->neg) printf("!");
    switch (o->kind) {
    case OPD_REG: printf("R:%s", o->name); break;
    case OPD_SYM: printf("S:%s", o->name); if (o->ival) printf("%+lld", (long long)o->ival); break;
    case OPD_IMM_INT: printf("I:%lld", (long long)o->ival); break;
    case OPD_IMM_F32: printf("F:0x%08llx", (unsigned long long)o->ival); break;
    case OPD_IMM_F64: printf("D:0x%016llx", (unsigned long long)o->ival); break;
    case OPD_IMM_DEC: printf("DEC:%g", o->fval); break;
    case OPD_ADDR: printf("[%s%+lld", o->name ? o->name : "", (long long)o->ival); break;
    case OPD_VEC: printf("{"); break;
    case OPD_PAIR: printf("PAIR("); break;
    case OPD_SINK: printf("_"); break;
    case OPD_LIST: printf("("); break;
    }
    if (o->kind == OPD_VEC || o->kind == OPD_PAIR || o->kind == OPD_LIST || o->nelems) {
        for (int i = 0; i < o->nelems; i++) {
            printf(i ? ", " : (o->kind == OPD_ADDR ? ", " : ""));
            dump_opd(&o->elems[i]);
        }
    }
    if (o->kind == OPD_VEC) printf("}");
    if (o->kind == OPD_PAIR || o->kind == OPD_LIST) printf(")");
    if (o->kind == OPD_ADDR) printf("]");
}

static void dump_var(const char *what, const PtxVar *v)
{
    printf("  %s sp=%d ty=%s align=%d vec=%d %s", what, v->space, ptx_type_name(v->type), v->align,
           v->vec, v->name);
    if (v->nrange) printf("<%d>", v->nrange);
    if (v->is_array) printf("[%lld]", (long long)v->array_len);
    if (v->is_ptr) printf(" ptr(sp=%d align=%d)", v->ptr_space, v->ptr_align);
    if (v->is_extern || v->is_visible || v->is_weak)
        printf(" link=%d%d%d", v->is_extern, v->is_visible, v->is_weak);
    if (v->ninit) {
        printf(" = {");
        for (int i = 0; i < v->ninit; i++) {
            const struct PtxInit *e = &v->init[i];
            if (i) printf(",");
            if (e->kind == 0) printf("%lld", (long long)e->ival);
            else if (e->kind == 1) {
                if (e->is_float_literal) printf("%g", e->fval);
                else printf("0x%llx", (unsigned long long)e->ival);
            } else printf("%s%s%+lld", e->kind == 3 ? "generic:" : "&", e->sym, (long long)e->ival);
        }
        printf("}");
    }
    printf("\n");
}

static void dump_module(const PtxModule *m)
{
    printf("version %d.%d target %s address_size %d\n", m->version_major, m->version_minor,
           m->target, m->address_size);
    for (int i = 0; i < m->nfiles; i++) printf("file %d %s\n", m->files[i].index, m->files[i].path);
    for (int i = 0; i < m->nglobals; i++) dump_var("global", &m->globals[i]);
    for (int i = 0; i < m->nfuncs; i++) {
        const PtxFunc *f = &m->funcs[i];
        printf("%s %s entry=%d ext=%d vis=%d weak=%d body=%d noret=%d maxntid=%d,%d,%d "
               "reqntid=%d,%d,%d minncta=%d maxnreg=%d cluster=%d,%d,%d expl=%d rank=%d\n",
               f->is_entry ? ".entry" : ".func", f->name, f->is_entry, f->is_extern, f->is_visible,
               f->is_weak, f->has_body, f->noreturn, f->maxntid[0], f->maxntid[1], f->maxntid[2],
               f->reqntid[0], f->reqntid[1], f->reqntid[2], f->minnctapersm, f->maxnreg,
               f->reqnctapercluster[0], f->reqnctapercluster[1], f->reqnctapercluster[2],
               f->explicitcluster, f->maxclusterrank);
        for (int k = 0; k < f->nrets; k++) dump_var("ret", &f->rets[k]);
        for (int k = 0; k < f->nparams; k++) dump_var("param", &f->params[k]);
        for (int k = 0; k < f->nvars; k++) dump_var("var", &f->vars[k]);
        for (int k = 0; k < f->nlabels; k++)
            printf("  label %s -> %d\n", f->labels[k].name, f->labels[k].inst_index);
        for (int k = 0; k < f->ninsts; k++) {
            const PtxInst *in = &f->insts[k];
            printf("  %4d L%d:%d loc=%d:%d %s", k, in->line, in->col, in->loc_file, in->loc_line,
                   in->label ? in->label : "");
            if (in->guard) printf(" @%s%s", in->guard_neg ? "!" : "", in->guard);
            printf(" %s", in->opcode);
            for (int j = 0; j < in->nmods; j++) printf(".%s", in->mods[j]);
            for (int j = 0; j < in->nopds; j++) { printf(j ? ", " : " "); dump_opd(&in->opds[j]); }
            printf("\n");
        }
    }
}

/* ------------------------------------------------------------------ corpus */

/* Invariants every parsed module must satisfy. */
static void check_module(const char *name, const PtxModule *m)
{
    check(m->version_major == 9 && m->version_minor == 0, "%s: version", name);
    check(strncmp(m->target, "sm_90", 5) == 0, "%s: target %s", name, m->target);
    check(m->address_size == 64, "%s: address size", name);
    for (int i = 0; i < m->nfuncs; i++) {
        const PtxFunc *f = &m->funcs[i];
        check(f->name && *f->name, "%s: func name", name);
        if (f->has_body) check(f->ninsts > 0, "%s: %s has no instructions", name, f->name);
        for (int k = 0; k < f->nlabels; k++)
            check(f->labels[k].inst_index >= 0 && f->labels[k].inst_index <= f->ninsts,
                  "%s: label %s index", name, f->labels[k].name);
        /* declared names are unique within a function (call blocks renamed) */
        for (int a = 0; a < f->nvars; a++)
            for (int b = a + 1; b < f->nvars; b++)
                if (strcmp(f->vars[a].name, f->vars[b].name) == 0) {
                    check(0, "%s: %s declares %s twice", name, f->name, f->vars[a].name);
                    a = f->nvars;
                    break;
                }
        for (int k = 0; k < f->ninsts; k++) {
            const PtxInst *in = &f->insts[k];
            check(in->opcode && in->line > 0 && in->col > 0, "%s: inst %d", name, k);
            if (strcmp(in->opcode, "call") == 0)
                check(in->nopds >= 3 && in->opds[0].kind == OPD_LIST &&
                      (in->opds[1].kind == OPD_SYM || in->opds[1].kind == OPD_REG) &&
                      in->opds[2].kind == OPD_LIST, "%s: call shape at line %d", name, in->line);
        }
    }
}

static int count_opcode(const PtxModule *m, const char *op)
{
    int n = 0;
    for (int i = 0; i < m->nfuncs; i++)
        for (int k = 0; k < m->funcs[i].ninsts; k++)
            n += strcmp(m->funcs[i].insts[k].opcode, op) == 0;
    return n;
}

static const PtxFunc *find_func(const PtxModule *m, const char *name, int body)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (strcmp(m->funcs[i].name, name) == 0 && m->funcs[i].has_body == body)
            return &m->funcs[i];
    return NULL;
}

static int total_insts(const PtxModule *m)
{
    int n = 0;
    for (int i = 0; i < m->nfuncs; i++) n += m->funcs[i].ninsts;
    return n;
}

static PtxModule *parse_corpus_file(const char *dir, const char *file, char **textp)
{
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *text = read_file(path, &len);
    check(text != NULL, "cannot read %s", path);
    if (!text) return NULL;
    int verr = 0;
    PtxModule *m = ptx_parse(text, len, file, err, sizeof err, &verr);
    check(m != NULL, "%s does not parse:\n%s", file, err);
    if (m) check_module(file, m);
    if (textp) *textp = text;
    else free(text);
    return m;
}

static void test_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    check(d != NULL, "cannot open corpus dir %s", dir);
    if (!d) return;
    int nfiles = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".ptx") != 0) continue;
        PtxModule *m = parse_corpus_file(dir, e->d_name, NULL);
        ptx_module_free(m);
        nfiles++;
    }
    closedir(d);
    check(nfiles >= 5, "corpus has only %d files", nfiles);
}

/* Counts and specific operands checked against the generated PTX. */
static void test_corpus_details(const char *dir)
{
    PtxModule *m = parse_corpus_file(dir, "vecadd.sm90.ptx", NULL);
    if (m) {
        check(m->nfuncs == 1 && m->funcs[0].is_entry && m->funcs[0].is_visible, "vecadd funcs");
        const PtxFunc *f = &m->funcs[0];
        check(f->nparams == 4 && f->params[3].type == TY_U32, "vecadd params");
        check(f->ninsts == 22, "vecadd ninsts %d", f->ninsts);
        check(f->nlabels == 1 && f->labels[0].inst_index == f->ninsts - 1, "vecadd label");
        check(f->nvars == 4 && f->vars[0].type == TY_PRED && f->vars[0].nrange == 2, "vecadd regs");
        int found = 0;
        for (int k = 0; k < f->ninsts; k++) {
            const PtxInst *in = &f->insts[k];
            if (!strcmp(in->opcode, "mov") && in->nopds == 2 && in->opds[1].kind == OPD_SYM &&
                !strcmp(in->opds[1].name, "%ctaid.x"))
                found++;
            if (!strcmp(in->opcode, "bra"))
                check(in->guard && in->opds[0].kind == OPD_SYM &&
                      !strcmp(in->opds[0].name, f->labels[0].name), "vecadd bra");
        }
        check(found == 1, "vecadd %%ctaid.x operand");
        ptx_module_free(m);
    }

    m = parse_corpus_file(dir, "misc.sm90.ptx", NULL);
    if (m) {
        const PtxFunc *pf = find_func(m, "_Z8k_printfi", 1);
        check(pf != NULL, "misc: k_printf");
        if (pf) {
            int calls = 0;
            for (int k = 0; k < pf->ninsts; k++) {
                const PtxInst *in = &pf->insts[k];
                if (strcmp(in->opcode, "call")) continue;
                calls++;
                check(in->nmods == 1 && !strcmp(in->mods[0], "uni"), "printf call.uni");
                check(in->opds[0].nelems == 1 && !strcmp(in->opds[1].name, "vprintf") &&
                      in->opds[2].nelems == 2 && in->opds[2].elems[1].kind == OPD_SYM,
                      "printf call operands");
            }
            check(calls == 1, "printf: one call");
            /* the call block's .param declarations are in vars, in order */
            int np = 0;
            for (int k = 0; k < pf->nvars; k++) np += pf->vars[k].space == SP_PARAM;
            check(np == 3, "printf: 3 call-block params, got %d", np);
        }
        const PtxFunc *vp = find_func(m, "vprintf", 0);
        check(vp && vp->is_extern && vp->nrets == 1 && vp->nparams == 2, "misc: extern vprintf");
        const PtxFunc *st = find_func(m, "_Z8k_struct1SPf", 1);
        if (st) {
            /* three call blocks each declare param0/retval0: renamed apart */
            int renamed = 0;
            for (int k = 0; k < st->nvars; k++) renamed += strchr(st->vars[k].name, '#') != NULL;
            check(renamed >= 4, "k_struct: renamed call-block params (%d)", renamed);
            check(st->params[0].align == 8 && st->params[0].is_array &&
                  st->params[0].array_len == 16 && st->params[0].type == TY_B8, "k_struct param0");
        }
        const PtxFunc *mk = find_func(m, "_Z4makei", 1);
        check(mk && mk->nrets == 1 && mk->rets[0].array_len == 16, "make: struct return");
        const PtxFunc *kb = find_func(m, "_Z8k_boundsPf", 1);
        check(kb && kb->maxntid[0] == 256 && kb->maxntid[1] == 1 && kb->minnctapersm == 2,
              "k_bounds directives");
        const PtxFunc *kc = find_func(m, "_Z9k_clusterPf", 1);
        check(kc && kc->explicitcluster && kc->reqnctapercluster[0] == 2, "k_cluster directives");
        const PtxFunc *ki = find_func(m, "_Z10k_indirectPf1S", 1);
        if (ki) {
            int ok = 0;
            for (int k = 0; k < ki->ninsts; k++) {
                const PtxInst *in = &ki->insts[k];
                if (!strcmp(in->opcode, "call"))
                    ok = in->nopds == 4 && in->opds[1].kind == OPD_REG &&
                         in->opds[3].kind == OPD_SYM && !strcmp(in->opds[3].name, "prototype_5");
            }
            check(ok, "indirect call through prototype");
        }
        int gp = 0;
        for (int i = 0; i < m->nglobals; i++) {
            const PtxVar *v = &m->globals[i];
            if (!strcmp(v->name, "gptrs"))
                gp = v->ninit == 2 && v->init[0].kind == 3 && !strcmp(v->init[0].sym, "garr") &&
                     v->init[1].kind == 3 && v->init[1].ival == 8;
            if (!strcmp(v->name, "dyn"))
                check(v->is_extern && v->space == SP_SHARED && v->array_len == -1 && v->align == 16,
                      "extern shared dyn");
            if (!strcmp(v->name, "fptr"))
                check(v->ninit == 1 && v->init[0].kind == 2 && !strcmp(v->init[0].sym, "_Z5takes1S"),
                      "fptr initializer");
            if (!strcmp(v->name, "ctab"))
                check(v->space == SP_CONST && v->ninit == 16 && v->init[3].ival == 63, "ctab");
        }
        check(gp, "gptrs initializer");
        check(count_opcode(m, "shfl") == 7, "shfl count %d", count_opcode(m, "shfl"));
        ptx_module_free(m);
    }

    /* inline asm pasted twice declares the same .reg and labels in two blocks */
    m = parse_corpus_file(dir, "asm90a.sm90a.ptx", NULL);
    if (m) {
        const PtxFunc *f = find_func(m, "_Z5k_tmamPi", 1);
        check(f != NULL, "asm90a: k_tma");
        int waits = 0, tensor = 0;
        for (int k = 0; f && k < f->nlabels; k++)
            waits += !strncmp(f->labels[k].name, "LAB_WAIT#", 9);
        for (int k = 0; f && k < f->ninsts; k++) {
            const PtxInst *in = &f->insts[k];
            if (!strcmp(in->opcode, "cp") && in->nmods == 7 &&
                !strcmp(in->mods[6], "mbarrier::complete_tx::bytes"))
                tensor = in->opds[1].kind == OPD_ADDR && in->opds[1].nelems == 1 &&
                         in->opds[1].elems[0].kind == OPD_VEC && in->opds[1].elems[0].nelems == 2;
        }
        check(waits == 2, "asm90a: LAB_WAIT renamed apart (%d)", waits);
        check(tensor, "asm90a: tensor address [tmap, {x, y}]");
        check(count_opcode(m, "wgmma") == 4, "asm90a: wgmma count");
        ptx_module_free(m);
    }

    m = parse_corpus_file(dir, "misc.G.ptx", NULL);
    if (m) {
        check(m->nfiles > 5 && m->files[0].index == 1, "debug: .file entries");
        int withloc = 0, tot = total_insts(m);
        for (int i = 0; i < m->nfuncs; i++)
            for (int k = 0; k < m->funcs[i].ninsts; k++)
                withloc += m->funcs[i].insts[k].loc_line > 0;
        check(withloc > tot / 2, "debug: .loc recorded (%d of %d)", withloc, tot);
        ptx_module_free(m);
    }
}

/* ------------------------------------------------------------------ snippets */

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

static PtxModule *must_parse(const char *what, const char *text)
{
    char err[1024];
    PtxModule *m = parse_str(text, err, sizeof err, NULL);
    check(m != NULL, "%s should parse:\n%s", what, err);
    return m;
}

static const PtxInst *inst_at(const PtxModule *m, int fn, int k)
{
    if (!m || fn >= m->nfuncs || k >= m->funcs[fn].ninsts) return NULL;
    return &m->funcs[fn].insts[k];
}

static void test_operands(void)
{
    PtxModule *m = must_parse("operands", HDR
        ".visible .entry k(.param .u64 .ptr.global.align 16 p, .param .align 8 .b8 s[16])\n"
        "{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<10>; .reg .b64 %rd<4>; .reg .f32 %f<5>;\n"
        "  .reg .v4 .f32 %v; .reg .f64 %fd1;\n"
        "  ld.global.nc.L1::no_allocate.v4.f32 {%f1, %f2, _, %f4}, [%rd1+-8];\n"  /* 0 */
        "  mov.u32 %r1, %tid.x;\n"                                               /* 1 */
        "  shfl.sync.down.b32 %r2|%p1, %r1, 1, 31, -1;\n"                       /* 2 */
        "  @!%p1 bra $L1;\n"                                                     /* 3 */
        "$L1: $L2:\n"
        "  mov.b32 %r3, 0x7fffffff; mov.b32 %r4, 077; mov.b32 %r5, 0b101;\n"    /* 4 5 6 */
        "  mov.u32 %r6, 42U; mov.f32 %f1, 0f3F800000; mov.f64 %fd1, 0D3FF0000000000000;\n"
        "  mov.f32 %f2, 1.5; mov.f64 %fd1, -2.5e-3; mov.s64 %rd2, -9223372036854775808;\n"
        "  selp.b32 %r7, 1, 2, !%p2;\n"                                          /* 13 */
        "  ld.param.u64 %rd1, [p]; ld.param.u32 %r8, [s+4]; ld.global.u32 %r9, [0x10];\n"
        "  st.shared::cta.u32 [%r1], %r2; mov.f32 %f3, %v.y; mov.u64 %rd3, s+8;\n" /* 17..19 */
        "  mul.wide.s32 %rd2, %r1, 4; setp.lt.and.s32 %p2, %r1, %r2, %p1;\n"
        "  cvt.rn.f32.s32 %f4, %r1; mov.u32 %r1, %laneid; mov.u64 %rd1, %clock64;\n"
        "  ld.u64 %rd1, [%rd2+8]; ret;\n"
        "}\n");
    const PtxInst *in;
    if (!m) return;
    const PtxFunc *f = &m->funcs[0];
    check(f->params[0].is_ptr && f->params[0].ptr_space == SP_GLOBAL && f->params[0].ptr_align == 16,
          ".ptr.global.align");
    check(f->params[1].align == 8 && f->params[1].array_len == 16, ".param .align 8 .b8 s[16]");
    check(f->vars[4].vec == 4 && f->vars[4].type == TY_F32, ".reg .v4 .f32");
    in = inst_at(m, 0, 0);
    check(in && !strcmp(in->opcode, "ld") && in->nmods == 5 && !strcmp(in->mods[2], "L1::no_allocate")
          && !strcmp(in->mods[4], "f32"), "ld mods");
    check(in && in->opds[0].kind == OPD_VEC && in->opds[0].nelems == 4 &&
          in->opds[0].elems[2].kind == OPD_SINK && in->opds[0].elems[3].kind == OPD_REG,
          "vector operand with sink");
    check(in && in->opds[1].kind == OPD_ADDR && !strcmp(in->opds[1].name, "%rd1") &&
          in->opds[1].ival == -8, "[%%rd1+-8]");
    in = inst_at(m, 0, 1);
    check(in && in->opds[1].kind == OPD_SYM && !strcmp(in->opds[1].name, "%tid.x"), "%%tid.x");
    in = inst_at(m, 0, 2);
    check(in && in->opds[0].kind == OPD_PAIR && in->opds[0].elems[1].kind == OPD_REG &&
          !strcmp(in->opds[0].elems[1].name, "%p1") && in->opds[4].ival == -1, "pair and -1");
    in = inst_at(m, 0, 3);
    check(in && in->guard && !strcmp(in->guard, "%p1") && in->guard_neg, "@!%%p1");
    check(f->nlabels == 2 && f->labels[0].inst_index == 4 && f->labels[1].inst_index == 4,
          "two labels in a row");
    in = inst_at(m, 0, 4);
    check(in && in->label && in->opds[1].ival == 0x7fffffff, "hex imm, label on inst");
    in = inst_at(m, 0, 5);
    check(in && in->opds[1].ival == 077, "octal");
    in = inst_at(m, 0, 6);
    check(in && in->opds[1].ival == 5, "binary");
    in = inst_at(m, 0, 7);
    check(in && in->opds[1].kind == OPD_IMM_INT && in->opds[1].ival == 42, "U suffix");
    in = inst_at(m, 0, 8);
    check(in && in->opds[1].kind == OPD_IMM_F32 && in->opds[1].ival == 0x3F800000, "0f");
    in = inst_at(m, 0, 9);
    check(in && in->opds[1].kind == OPD_IMM_F64 && in->opds[1].ival == 0x3FF0000000000000LL, "0D");
    in = inst_at(m, 0, 10);
    check(in && in->opds[1].kind == OPD_IMM_DEC && in->opds[1].fval == 1.5, "1.5");
    in = inst_at(m, 0, 11);
    check(in && in->opds[1].kind == OPD_IMM_DEC && in->opds[1].fval == -2.5e-3, "-2.5e-3");
    in = inst_at(m, 0, 12);
    check(in && in->opds[1].ival == INT64_MIN, "INT64_MIN");
    in = inst_at(m, 0, 13);
    check(in && in->opds[3].neg && in->opds[3].kind == OPD_REG, "!%%p2 operand");
    in = inst_at(m, 0, 14);
    check(in && in->opds[1].kind == OPD_ADDR && !strcmp(in->opds[1].name, "p"), "[p]");
    in = inst_at(m, 0, 15);
    check(in && in->opds[1].ival == 4 && !strcmp(in->opds[1].name, "s"), "[s+4]");
    in = inst_at(m, 0, 16);
    check(in && in->opds[1].name == NULL && in->opds[1].ival == 16, "[0x10]");
    in = inst_at(m, 0, 17);
    check(in && in->nmods == 2 && !strcmp(in->mods[0], "shared::cta"), "st.shared::cta");
    in = inst_at(m, 0, 18);
    check(in && in->opds[1].kind == OPD_REG && !strcmp(in->opds[1].name, "%v.y"), "%%v.y");
    in = inst_at(m, 0, 19);
    check(in && in->opds[1].kind == OPD_SYM && in->opds[1].ival == 8, "s+8");
    in = inst_at(m, 0, 21);
    check(in && in->nmods == 3 && !strcmp(in->mods[0], "lt") && !strcmp(in->mods[1], "and") &&
          in->nopds == 4, "setp.lt.and");
    in = inst_at(m, 0, 23);
    check(in && in->opds[1].kind == OPD_SYM && !strcmp(in->opds[1].name, "%laneid"), "%%laneid");
    in = inst_at(m, 0, 25);
    check(in && in->opds[1].ival == 8, "[%%rd2+8]");
    check(f->ninsts == 27, "operand test ninsts %d", f->ninsts);
    ptx_module_free(m);
}

static void test_calls_and_blocks(void)
{
    PtxModule *m = must_parse("calls", HDR
        ".extern .func (.param .b32 r) ext(.param .b64 a);\n"
        ".func f() .noreturn;\n"
        ".func (.param .b32 func_retval0) g(.param .b32 x)\n{\n"
        "  .reg .b32 %r<3>;\n"
        "  ld.param.b32 %r1, [x];\n"
        "  { .reg .pred p; setp.ne.u32 p, %r1, 0; @p bra L; L: }\n"
        "  { .reg .pred p; .reg .b32 %r<2>; setp.eq.u32 p, %r1, 0; mov.b32 %r1, %r2;"
        " @!p bra L; L: }\n"
        "  { // callseq 0, 0\n"
        "  .param .b64 param0;\n  st.param.b64 [param0+0], 1;\n  .param .b32 retval0;\n"
        "  call.uni (retval0), ext, (param0);\n  ld.param.b32 %r2, [retval0+0];\n  }\n"
        "  { .param .b64 param0; call ext, (param0); }\n"
        "  call f;\n  call (%r2), g, (%r1);\n"
        "  ts: .branchtargets T0, T1;\n"
        "  brx.idx %r1, ts;\n"
        "T0: T1:\n"
        "  st.param.b32 [func_retval0+0], %r2;\n  ret;\n}\n");
    if (!m) return;
    check(m->nfuncs == 3, "calls: nfuncs");
    const PtxFunc *f = &m->funcs[1];
    check(f->noreturn && !f->has_body, ".noreturn prototype");
    f = &m->funcs[2];
    const PtxInst *in;
    if (f->ninsts != 15) { check(0, "calls ninsts %d", f->ninsts); ptx_module_free(m); return; }
    /* block 1: p and L keep the names (first declaration), L renamed as a nested label */
    in = &f->insts[1];
    check(in->opds[0].kind == OPD_REG && !strcmp(in->opds[0].name, "p"), "block reg p");
    const char *l1 = f->insts[2].opds[0].name;
    const char *l2 = f->insts[5].opds[0].name;
    check(l1 && l2 && strcmp(l1, l2) != 0 && strchr(l1, '#'), "nested labels renamed apart");
    int ok1 = 0, ok2 = 0;
    for (int k = 0; k < f->nlabels; k++) {
        ok1 |= !strcmp(f->labels[k].name, l1) && f->labels[k].inst_index == 3;
        ok2 |= !strcmp(f->labels[k].name, l2) && f->labels[k].inst_index == 6;
    }
    check(ok1 && ok2, "nested label indices");
    in = &f->insts[3];   /* setp.eq in block 2: p renamed */
    check(in->opds[0].kind == OPD_REG && strcmp(in->opds[0].name, "p") != 0 &&
          !strncmp(in->opds[0].name, "p#", 2), "shadowing p renamed (%s)", in->opds[0].name);
    check(f->insts[5].guard && !strcmp(f->insts[5].guard, in->opds[0].name), "guard renamed");
    in = &f->insts[4];   /* mov.b32 %r1 in block 2: inner %r<2> range shadows %r1 */
    check(in->opds[0].kind == OPD_REG && !strncmp(in->opds[0].name, "%r#", 3) &&
          in->opds[1].kind == OPD_REG && !strcmp(in->opds[1].name, "%r2"),
          "range member renamed (%s), outer %%r2 still visible", in->opds[0].name);
    in = &f->insts[7];
    check(!strcmp(in->opcode, "call") && in->nopds == 3 && in->opds[0].nelems == 1 &&
          !strcmp(in->opds[0].elems[0].name, "retval0") && in->opds[2].nelems == 1, "call.uni");
    in = &f->insts[9];
    check(!strcmp(in->opcode, "call") && in->nopds == 3 && in->opds[0].kind == OPD_LIST &&
          in->opds[0].nelems == 0 && !strncmp(in->opds[2].elems[0].name, "param0#", 7),
          "call f, (a) + renamed param (%s)", in->opds[2].elems[0].name);
    in = &f->insts[10];
    check(in->nopds == 3 && in->opds[0].nelems == 0 && in->opds[2].nelems == 0 &&
          !strcmp(in->opds[1].name, "f"), "call f;");
    in = &f->insts[11];
    check(in->nopds == 3 && in->opds[0].nelems == 1 && in->opds[0].elems[0].kind == OPD_REG,
          "call (%%r2), g, (%%r1)");
    const PtxVar *ts = NULL;
    for (int k = 0; k < f->nvars; k++)
        if (!strcmp(f->vars[k].name, "ts")) ts = &f->vars[k];
    check(ts && ts->space == SP_NONE && ts->ninit == 2 && !strcmp(ts->init[1].sym, "T1"),
          ".branchtargets");
    in = &f->insts[12];
    check(!strcmp(in->opcode, "brx") && in->opds[1].kind == OPD_SYM, "brx.idx");
    check(f->ninsts == 15, "calls ninsts %d", f->ninsts);
    ptx_module_free(m);

    /* a block's single %r1 overlaps the outer %r<4>; a block's %q<3> overlaps the outer %q1 */
    m = must_parse("range overlap", HDR ".entry k() {\n .reg .b32 %r<4>; .reg .b32 %q1;\n"
        " { .reg .b32 %r1; .reg .b32 %q<3>; mov.b32 %r1, %q1; mov.b32 %r2, %r3; }\n"
        " mov.b32 %r1, %q1;\n ret;\n}\n");
    if (m && m->funcs[0].ninsts == 4) {
        const PtxInst *i0 = &m->funcs[0].insts[0], *i1 = &m->funcs[0].insts[1];
        const PtxInst *i2 = &m->funcs[0].insts[2];
        check(!strncmp(i0->opds[0].name, "%r1#", 4) && !strncmp(i0->opds[1].name, "%q#", 3) &&
              !strcmp(i1->opds[0].name, "%r2") && !strcmp(i2->opds[0].name, "%r1") &&
              !strcmp(i2->opds[1].name, "%q1"), "overlapping ranges renamed apart");
        ptx_module_free(m);
    } else {
        check(0, "range overlap");
        ptx_module_free(m);
    }

    m = must_parse("prototype", HDR
        ".entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>; .reg .b32 %r<2>;\n"
        " { // callseq 5, 0\n .param .b64 param0;\n .param .b32 retval0;\n"
        " prototype_5 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
        " call (retval0), \n %rd2, \n (\n param0\n )\n , prototype_5;\n } // callseq 5\n ret;\n}\n");
    if (m) {
        const PtxInst *c = &m->funcs[0].insts[0];
        check(c->nopds == 4 && c->opds[1].kind == OPD_REG && !strcmp(c->opds[3].name, "prototype_5"),
              "indirect call operands");
        ptx_module_free(m);
    }
}

static void test_globals(void)
{
    PtxModule *m = must_parse("globals", HDR
        ".global .align 4 .u32 a2[2][3] = {{1, 2}, {4, 5, 6}};\n"
        ".const .f32 cf[3] = {0f3F800000, 1.5, 0d4000000000000000};\n"
        ".global .f64 gd = 0f3F800000;\n"
        ".global .u32 flat[] = {1, 2, 3};\n"
        ".global .v2 .u32 vv[2] = {{1, 2}, {3}};\n"
        ".global .align 8 .u64 gp[3] = {generic(a2), a2+8, flat};\n"
        ".visible .global .s32 neg = -5, other;\n"
        ".weak .shared .align 16 .b8 sh[64];\n"
        ".global .attribute(.managed) .align 4 .u32 mg;\n"
        ".common .global .u32 cm;\n"
        ".file 1 \"/tmp/x.cu\", 1700000000, 1234\n"
        ".file 2 \"y.h\"\n"
        ".pragma \"nounroll\";\n"
        ".section .debug_str { $L__info_string0:\n.b8 95,0\n }\n");
    if (!m) return;
    const PtxVar *v = m->globals;
    check(m->nglobals == 11, "nglobals %d", m->nglobals);
    check(v[0].array_len == 6 && v[0].ninit == 6 && v[0].init[1].ival == 2 && v[0].init[2].ival == 0 &&
          v[0].init[3].ival == 4, "nested init padded");
    check(v[1].ninit == 3 && v[1].init[0].kind == 1 && v[1].init[0].ival == 0x3F800000 &&
          v[1].init[1].is_float_literal && v[1].init[1].fval == 1.5 &&
          v[1].init[2].ival == 0x40000000, "float inits");
    check(v[2].ninit == 1 && v[2].init[0].ival == 0x3FF0000000000000LL, "0f widened to f64");
    check(v[3].array_len == 3 && v[3].ninit == 3, "[] inferred");
    check(v[4].array_len == 2 && v[4].ninit == 4 && v[4].init[3].ival == 0, "vector array init");
    check(v[5].init[0].kind == 3 && v[5].init[1].kind == 2 && v[5].init[1].ival == 8 &&
          !strcmp(v[5].init[2].sym, "flat"), "address inits");
    check(v[6].is_visible && v[6].init[0].ival == -5 && v[7].is_visible && !strcmp(v[7].name, "other"),
          "two declarators");
    check(v[8].is_weak && v[8].space == SP_SHARED && v[8].align == 16, "weak shared");
    check(v[9].space == SP_GLOBAL && v[9].align == 4, ".attribute(.managed)");
    check(v[10].is_weak, ".common");
    check(m->nfiles == 2 && m->files[0].index == 1 && !strcmp(m->files[0].path, "/tmp/x.cu"),
          ".file with timestamp");
    ptx_module_free(m);

    m = must_parse("loc", HDR
        ".file 1 \"a.cu\"\n"
        ".entry k()\n.reqntid 32, 2\n.maxnreg 64\n{\n"
        "\t.loc 1 5 3\n\tret;\n"
        "\t.loc 1 7 2, function_name $L__info_string0, inlined_at 1 20 3\n"
        "\t.pragma \"nounroll\";\n\texit;\n}\n"
        ".func h() { .loc 1 9 1\n ret; }\n"
        ".func q() { ret; }\n");
    if (m) {
        const PtxFunc *f = &m->funcs[0];
        check(f->reqntid[0] == 32 && f->reqntid[1] == 2 && f->reqntid[2] == 1 && f->maxnreg == 64,
              ".reqntid/.maxnreg");
        check(f->insts[0].loc_file == 1 && f->insts[0].loc_line == 5, ".loc");
        check(f->insts[1].loc_line == 7 && f->insts[1].line == 13, ".loc inlined_at");
        check(m->funcs[1].insts[0].loc_line == 9, "loc in h");
        check(m->funcs[2].insts[0].loc_line == 0, "loc does not leak across functions");
        ptx_module_free(m);
    }

    m = must_parse("misc syntax", HDR
        "/* block\n comment */ .visible .entry k(\n.param .u32 n\n)\n{\n"
        "  .reg .b32 a, b; .reg.b32 c;\n"
        "  .local .align 8 .b8 __local_depot0[16];\n"
        "  .shared .align 4 .b8 tile[1024];\n"
        "  tex.2d.v4.f32.f32 {a, b, c, a}, [t, {a, b}];\n"
        "  mov.b64 %rd, {a, b};\n"
        "  ret;\n}\n");
    if (m) {
        const PtxInst *in = &m->funcs[0].insts[0];
        check(in->opds[1].kind == OPD_ADDR && in->opds[1].nelems == 1 &&
              in->opds[1].elems[0].kind == OPD_VEC && in->opds[1].elems[0].nelems == 2, "tex address");
        check(in->opds[0].elems[0].kind == OPD_REG, "plain-named register");
        check(m->funcs[0].nvars == 5, "body vars %d", m->funcs[0].nvars);
        ptx_module_free(m);
    }
}

/* Each malformed input must fail with exactly this "t.ptx:LINE:COL: " prefix and text. */
static void test_errors(void)
{
    static const struct { const char *text, *want; int verr; } cases[] = {
        {"", "t.ptx:1:1: empty PTX: missing .version directive", 0},
        {".version 9.1\n.target sm_90\n", "t.ptx:1:10: PTX ISA version 9.1 is not supported", 1},
        {".version 10.0\n", "t.ptx:1:10: PTX ISA version 10.0 is not supported", 1},
        {".version 9.0\n.target gfx90a\n", "t.ptx:2:9: unsupported .target 'gfx90a'", 1},
        {".version 9.0\n.target sm_90, fast\n", "t.ptx:2:16: unsupported .target option", 1},
        {".version 8.7\n.target sm_90, debug\n.address_size 64\n", NULL, 0},
        {".version 9\n", "t.ptx:1:10: expected a version number MAJOR.MINOR, found '9'", 0},
        {".target sm_90\n", "t.ptx:1:1: the module must start with a .version directive", 0},
        {".version 9.0\n.address_size 64\n",
         "t.ptx:2:1: a .target directive must follow .version", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, \"s;\n}\n", "t.ptx:5:16: unterminated string", 0},
        {HDR "/* never closed\n\n", "t.ptx:4:1: unterminated /* comment", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, 99999999999999999999;\n}\n",
         "t.ptx:5:16: integer constant does not fit in 64 bits", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, -9223372036854775809;\n}\n",
         "t.ptx:5:17: integer constant out of range", 0},
        {HDR ".entry k() {\n  mov.f32 %f1, 0f3F80;\n}\n",
         "t.ptx:5:16: a 0f (float) constant needs exactly 8 hex digits, found 4", 0},
        {HDR ".entry k() {\n  mov.f64 %f1, 1e999;\n}\n",
         "t.ptx:5:16: floating-point constant out of range", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, 089;\n}\n",
         "t.ptx:5:17: invalid digit in octal constant", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, 12ab;\n}\n",
         "t.ptx:5:18: invalid character in integer constant", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, %r2\n  ret;\n}\n",
         "t.ptx:6:3: expected ',' or ';' after operand, found 'ret'", 0},
        {HDR ".entry k() {\n  ret;\n",
         "t.ptx:6:1: unexpected end of input: missing '}' of function 'k'", 0},
        {HDR ".entry k() {\n  ld.global.u32 %r1, [%rd1+];\n}\n",
         "t.ptx:5:28: expected an integer offset, found ']'", 0},
        {HDR ".entry k() {\n  ld.global.u32 %r1, [%rd1;\n}\n",
         "t.ptx:5:27: expected ']' to close the address, found ';'", 0},
        {HDR ".entry k() {\n  add.s32 %r1, , %r2;\n}\n",
         "t.ptx:5:16: expected an operand, found ','", 0},
        {HDR ".entry k() {\n  .reg .b32 %r<4>;\n  .reg .b32 %r<2>;\n}\n",
         "t.ptx:6:13: '%r' is already declared in this scope", 0},
        {HDR ".entry k() {\n  .reg %r1;\n}\n",
         "t.ptx:5:8: expected a type after '.reg', found '%r1'", 0},
        {HDR ".entry k() {\nL: ret;\nL: ret;\n}\n",
         "t.ptx:6:1: label 'L' is defined twice in 'k'", 0},
        {HDR ".entry k() {\n  .global .u32 x;\n}\n",
         "t.ptx:5:3: unexpected directive '.global' in a function body", 0},
        {HDR ".global .u32 a[2] = {1, 2, 3};\n",
         "t.ptx:4:21: too many initializers (3 elements for 2)", 0},
        {HDR ".global .u32 a[2] = {{1}, {2}};\n", "t.ptx:4:22: too many braces in initializer", 0},
        {HDR ".global .u32 a;\n.bogus\n",
         "t.ptx:5:1: unexpected directive '.bogus' at module scope", 0},
        {HDR ".entry k() .maxntid 0 { ret; }\n",
         "t.ptx:4:21: a dimension out of range (1..2147483647)", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, 1;\x01\n}\n", "t.ptx:5:18: unexpected byte 0x01", 0},
        {HDR ".entry k() {\n  mov.u32 %r1, #;\n}\n",
         "t.ptx:5:16: expected an operand, found '#'", 0},
        {HDR ".entry k() {\n  @%p1 %r1;\n}\n",
         "t.ptx:5:8: expected an instruction, found '%r1'", 0},
        {HDR ".entry k(.param .u32 a b) { ret; }\n",
         "t.ptx:4:24: expected ',' or ')' in the parameter list, found 'b'", 0},
        {HDR ".func (.param .b32 r) f(.param .b32 x) .blocksareclusters { ret; }\n",
         "t.ptx:4:40: unsupported directive '.blocksareclusters' in a function header", 0},
        {HDR ".alias a, b;\n", "t.ptx:4:1: '.alias' is not supported", 0},
        {HDR ".entry k() {\n\tbra\t$L1\n}\n",
         "t.ptx:6:1: expected ',' or ';' after operand, found '}'", 0},
        {HDR ".entry k() {\n  call (r), (a);\n}\n",
         "t.ptx:5:3: call needs a function name or register after the return list", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024] = "";
        int verr = -1;
        PtxModule *m = parse_str(cases[i].text, err, sizeof err, &verr);
        if (!cases[i].want) {
            check(m != NULL, "error case %zu should parse: %s", i, err);
            ptx_module_free(m);
            continue;
        }
        check(m == NULL, "error case %zu should fail (%s)", i, cases[i].want);
        ptx_module_free(m);
        check(strncmp(err, cases[i].want, strlen(cases[i].want)) == 0,
              "error case %zu:\n  want: %s\n  got:  %s", i, cases[i].want, err);
        check(verr == cases[i].verr, "error case %zu: is_version_error %d", i, verr);
        check(strstr(err, "\n  ") != NULL, "error case %zu: no source line in message", i);
    }
    /* the message quotes the line and puts a caret under the column */
    char err[512];
    PtxModule *m = parse_str(HDR ".entry k() {\n\tadd.s32\t%r1, ,;\n}\n", err, sizeof err, NULL);
    check(!m && !strcmp(err, "t.ptx:5:15: expected an operand, found ','\n"
                             "  \tadd.s32\t%r1, ,;\n  \t       \t     ^"), "caret line:\n%s", err);
    /* a tiny buffer truncates without overflowing */
    char small[8];
    m = parse_str("garbage", small, sizeof small, NULL);
    check(!m && strlen(small) == 7, "small error buffer");
    m = ptx_parse(NULL, 0, NULL, NULL, 0, NULL);
    check(m == NULL, "NULL text");
}

/* ------------------------------------------------------------------ robustness and speed */

static uint64_t rng = 88172645463325252ULL;
static uint64_t xorshift(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_robustness(const char *dir)
{
    char *text = NULL;
    PtxModule *m = parse_corpus_file(dir, "misc.sm90.ptx", &text);
    ptx_module_free(m);
    if (!text) return;
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    char err[512];
    static const char junk[] = "{}[]()<>;:,.%@!|+-_\"/*0x9fe\n\t\0#";
    int parsed = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(buf, text, len);
        size_t n = len;
        int edits = 1 + (int)(xorshift() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = xorshift() % n;
            switch (xorshift() % 3) {
            case 0: buf[at] = junk[xorshift() % (sizeof junk - 1)]; break;
            case 1: buf[at] = (char)(xorshift() & 0xff); break;
            default: n = at + 1; break;              /* truncate */
            }
        }
        m = ptx_parse(buf, n, "fuzz", err, sizeof err, NULL);
        parsed += m != NULL;
        ptx_module_free(m);
    }
    check(1, "fuzz");
    printf("fuzz: 3000 mutants, %d still parse\n", parsed);
    /* deep braces, long lines, huge names, NUL bytes */
    size_t big = 200000;
    char *deep = malloc(big + 200);
    int k = snprintf(deep, 200, HDR ".entry k() ");
    memset(deep + k, '{', big);
    m = ptx_parse(deep, (size_t)k + big, "deep", err, sizeof err, NULL);
    check(!m && strstr(err, "nested deeper"), "deep braces: %s", err);
    k = snprintf(deep, 200, HDR ".entry ");
    memset(deep + k, 'a', big);
    m = ptx_parse(deep, (size_t)k + big, "longname", err, sizeof err, NULL);
    check(!m && strstr(err, "name longer than"), "huge name: %.80s", err);
    k = snprintf(deep, 200, HDR ".global .u32 x[4] = {1, 2");
    memset(deep + k, 0, 10);
    m = ptx_parse(deep, (size_t)k + 10, "nul", err, sizeof err, NULL);
    check(!m && strstr(err, "NUL byte"), "NUL byte: %s", err);
    free(deep);
    free(buf);
    free(text);
}

static void test_speed(const char *dir)
{
    char *text = NULL;
    PtxModule *m = parse_corpus_file(dir, "misc.sm90.ptx", &text);
    ptx_module_free(m);
    if (!text) return;
    /* one module with the function bodies repeated: rename each copy's functions */
    const char *first = strstr(text, "\n.func");
    if (!first) { free(text); return; }
    size_t hlen = (size_t)(first - text), blen = strlen(first);
    int copies = 160;
    char *big = malloc(hlen + (blen + 1) * (size_t)copies + 1);
    memcpy(big, text, hlen);
    size_t n = hlen;
    for (int c = 0; c < copies; c++) {
        memcpy(big + n, first, blen);
        n += blen;
    }
    big[n] = 0;
    char err[512];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    m = ptx_parse(big, n, "big", err, sizeof err, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    check(m != NULL, "big module parses: %s", err);
    printf("speed: %.1f MB in %.3f s (%.1f MB/s), %d instructions\n", (double)n / 1e6, s,
           (double)n / 1e6 / s, m ? total_insts(m) : 0);
    /* valgrind and sanitizers are slower: PTX_TEST_NO_TIMING=1 skips the bound */
    if (!getenv("PTX_TEST_NO_TIMING"))
        check(s < 3.0, "parsing %.1f MB took %.2f s", (double)n / 1e6, s);
    ptx_module_free(m);
    free(big);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump")) {
        size_t len;
        char *t = read_file(argv[2], &len);
        char err[1024];
        if (!t) { fprintf(stderr, "cannot read %s\n", argv[2]); return 2; }
        PtxModule *m = ptx_parse(t, len, argv[2], err, sizeof err, NULL);
        if (!m) { fprintf(stderr, "%s\n", err); free(t); return 1; }
        dump_module(m);
        ptx_module_free(m);
        free(t);
        return 0;
    }
    /* make check runs tests from the build directory: find the corpus in the source tree */
    static char corpus[4096];
    const char *top = getenv("abs_top_srcdir");
    if (!top) top = getenv("top_srcdir");
    snprintf(corpus, sizeof corpus, "%s/tests/ptx-corpus", top ? top : ".");
    const char *dir = argc > 1 ? argv[1] : corpus;
    test_corpus(dir);
    test_corpus_details(dir);
    test_operands();
    test_calls_and_blocks();
    test_globals();
    test_errors();
    test_robustness(dir);
    test_speed(dir);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
