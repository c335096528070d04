/* lexer.c - PTX tokenizer: one pass over the bytes, table-driven character classes. */
#include "lexer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_ID = 1, C_IDSTART = 2, C_DIGIT = 4, C_HEX = 8, C_SPACE = 16 };

static unsigned char cls[256];

static void init_classes(void)
{
    if (cls['a']) return;
    for (int c = 0; c < 256; c++) {
        unsigned char k = 0;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$')
            k |= C_ID | C_IDSTART;
        if (c >= '0' && c <= '9') k |= C_ID | C_DIGIT | C_HEX;
        if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) k |= C_HEX;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v')
            k |= C_SPACE;
        cls[c] = k;
    }
}

#define IS(c, k) (cls[(unsigned char)(c)] & (k))

void ptx_lex_init(PtxLexer *lx, const char *text, size_t len)
{
    init_classes();
    lx->src = lx->cur = lx->line_start = text;
    lx->end = text + len;
    lx->line = 1;
    lx->failed = 0;
    lx->msg[0] = 0;
}

static PtxTokKind lex_error(PtxLexer *lx, PtxToken *t, const char *at, const char *msg)
{
    snprintf(lx->msg, sizeof lx->msg, "%s", msg);
    t->kind = PTK_ERROR;
    t->p = at;
    t->len = 1;
    /* `at` is on the current line except for an unterminated comment, whose start the
     * caller already placed in t->line/col. */
    if (at >= lx->line_start) {
        t->line = lx->line;
        t->col = (int)(at - lx->line_start) + 1;
    }
    lx->failed = 1;
    lx->cur = lx->end;
    return PTK_ERROR;
}

/* Skips spaces and comments; returns NULL on success or the start of an unterminated
 * block comment (its position goes to cline and ccol). */
static const char *skip_space(PtxLexer *lx, int *cline, int *ccol)
{
    const char *p = lx->cur, *e = lx->end;
    for (;;) {
        while (p < e && IS(*p, C_SPACE)) {
            if (*p == '\n') { lx->line++; lx->line_start = p + 1; }
            p++;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '/') {
            p = memchr(p, '\n', (size_t)(e - p));
            if (!p) p = e;
            continue;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '*') {
            const char *start = p;
            *cline = lx->line;
            *ccol = (int)(p - lx->line_start) + 1;
            p += 2;
            for (;;) {
                if (p + 1 >= e) { lx->cur = e; return start; }
                if (p[0] == '*' && p[1] == '/') { p += 2; break; }
                if (*p == '\n') { lx->line++; lx->line_start = p + 1; }
                p++;
            }
            continue;
        }
        break;
    }
    lx->cur = p;
    return NULL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return c - 'A' + 10;
}

/* 0f / 0d literals: exactly `ndig` hex digits of IEEE bits. */
static PtxTokKind lex_float_bits(PtxLexer *lx, PtxToken *t, const char *p, int ndig)
{
    const char *q = p + 2;
    uint64_t v = 0;
    int n = 0;
    while (q < lx->end && IS(*q, C_HEX)) {
        if (n < 16) v = (v << 4) | (uint64_t)hexval(*q);
        n++;
        q++;
    }
    if (n != ndig) {
        char m[96];
        snprintf(m, sizeof m, "a %s constant needs exactly %d hex digits, found %d",
                 ndig == 8 ? "0f (float)" : "0d (double)", ndig, n);
        return lex_error(lx, t, p, m);
    }
    if (q < lx->end && IS(*q, C_ID))
        return lex_error(lx, t, q, "invalid character in floating-point constant");
    t->kind = ndig == 8 ? PTK_F32 : PTK_F64;
    t->u = v;
    lx->cur = q;
    return t->kind;
}

/* Decimal floating-point literal starting at p (digits, optional fraction and exponent). */
static PtxTokKind lex_decimal_float(PtxLexer *lx, PtxToken *t, const char *p)
{
    const char *q = p, *e = lx->end;
    while (q < e && IS(*q, C_DIGIT)) q++;
    if (q < e && *q == '.') {
        q++;
        while (q < e && IS(*q, C_DIGIT)) q++;
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        const char *x = q + 1;
        if (x < e && (*x == '+' || *x == '-')) x++;
        if (x >= e || !IS(*x, C_DIGIT))
            return lex_error(lx, t, q, "malformed exponent in floating-point constant");
        while (x < e && IS(*x, C_DIGIT)) x++;
        q = x;
    }
    if (q < e && IS(*q, C_ID))
        return lex_error(lx, t, q, "invalid character in floating-point constant");
    char buf[128];
    size_t n = (size_t)(q - p);
    if (n >= sizeof buf) return lex_error(lx, t, p, "floating-point constant too long");
    memcpy(buf, p, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    if (isinf(d)) return lex_error(lx, t, p, "floating-point constant out of range");
    t->kind = PTK_FLOAT;
    t->d = d;
    lx->cur = q;
    return PTK_FLOAT;
}

/* Integer literal: hex 0x, binary 0b, octal 0..., decimal; optional U suffix. */
static PtxTokKind lex_number(PtxLexer *lx, PtxToken *t, const char *p)
{
    const char *q = p, *e = lx->end;
    if (q + 1 < e && q[0] == '0') {
        char c = q[1];
        if (c == 'f' || c == 'F') return lex_float_bits(lx, t, p, 8);
        if (c == 'd' || c == 'D') return lex_float_bits(lx, t, p, 16);
    }
    /* a '.' or an exponent after the leading digits makes it a decimal float */
    const char *r = q;
    while (r < e && IS(*r, C_DIGIT)) r++;
    if (r < e && *r == '.') return lex_decimal_float(lx, t, p);
    if (r + 1 < e && (*r == 'e' || *r == 'E') && (IS(r[1], C_DIGIT) || r[1] == '+' || r[1] == '-'))
        return lex_decimal_float(lx, t, p);

    int base = 10;
    if (q + 1 < e && q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) { base = 16; q += 2; }
    else if (q + 1 < e && q[0] == '0' && (q[1] == 'b' || q[1] == 'B')) { base = 2; q += 2; }
    else if (q[0] == '0') base = 8;
    uint64_t v = 0;
    int ndig = 0, overflow = 0;
    for (; q < e && IS(*q, C_HEX); q++) {
        int dv = hexval(*q);
        if (dv >= base) {
            if (base == 10 || base == 16) break;   /* a suffix letter follows */
            return lex_error(lx, t, q, base == 8 ? "invalid digit in octal constant"
                                                 : "invalid digit in binary constant");
        }
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base) overflow = 1;
        v = v * (uint64_t)base + (uint64_t)dv;
        ndig++;
    }
    if (ndig == 0) return lex_error(lx, t, p, "missing digits in integer constant");
    if (overflow) return lex_error(lx, t, p, "integer constant does not fit in 64 bits");
    if (q < e && (*q == 'U' || *q == 'u')) q++;
    if (q < e && IS(*q, C_ID)) return lex_error(lx, t, q, "invalid character in integer constant");
    t->kind = PTK_INT;
    t->u = v;
    lx->cur = q;
    return PTK_INT;
}

static PtxTokKind lex_string(PtxLexer *lx, PtxToken *t, const char *p)
{
    const char *q = p + 1, *e = lx->end;
    while (q < e && *q != '"') {
        if (*q == '\n' || *q == 0) break;
        if (*q == '\\' && q + 1 < e && q[1] != '\n') q++;
        q++;
    }
    if (q >= e || *q != '"') return lex_error(lx, t, p, "unterminated string");
    t->kind = PTK_STRING;
    t->p = p + 1;
    t->len = (uint32_t)(q - p - 1);
    lx->cur = q + 1;
    return PTK_STRING;
}

/* .name, .name::sub, .2d: a directive or modifier word. */
static PtxTokKind lex_dir(PtxLexer *lx, PtxToken *t, const char *p)
{
    const char *q = p + 1, *e = lx->end;
    for (;;) {
        while (q < e && IS(*q, C_ID)) q++;
        if (q + 2 < e && q[0] == ':' && q[1] == ':' && IS(q[2], C_ID)) { q += 2; continue; }
        break;
    }
    if (q == p + 1) {            /* a lone '.' */
        t->kind = PTK_PUNCT;
        t->ch = '.';
        lx->cur = q;
        return PTK_PUNCT;
    }
    t->kind = PTK_DIR;
    lx->cur = q;
    return PTK_DIR;
}

PtxTokKind ptx_lex_next(PtxLexer *lx, PtxToken *t)
{
    memset(t, 0, sizeof *t);
    if (lx->failed) {
        t->kind = PTK_ERROR;
        t->p = lx->end;
        t->line = lx->line;
        return PTK_ERROR;
    }
    const char *before = lx->cur;
    int cline = 0, ccol = 0;
    const char *bad = skip_space(lx, &cline, &ccol);
    if (bad) {
        t->line = cline;
        t->col = ccol;
        return lex_error(lx, t, bad, "unterminated /* comment");
    }
    const char *p = lx->cur, *e = lx->end;
    t->adjacent = p == before;
    t->p = p;
    t->line = lx->line;
    t->col = (int)(p - lx->line_start) + 1;
    if (p >= e) {
        t->kind = PTK_EOF;
        return PTK_EOF;
    }
    unsigned char c = (unsigned char)*p;
    PtxTokKind k;
    if (IS(c, C_IDSTART) || (c == '%' && p + 1 < e && IS(p[1], C_IDSTART))) {
        const char *q = p + 1;
        while (q < e && IS(*q, C_ID)) q++;
        lx->cur = q;
        k = t->kind = PTK_IDENT;
    } else if (IS(c, C_DIGIT)) {
        k = lex_number(lx, t, p);
    } else if (c == '.') {
        k = lex_dir(lx, t, p);
    } else if (c == '"') {
        k = lex_string(lx, t, p);
        if (k == PTK_STRING) return k;     /* p/len already cover the contents */
    } else if (c == 0) {
        return lex_error(lx, t, p, "unexpected NUL byte");
    } else if (c < 32 || c >= 127) {
        char m[64];
        snprintf(m, sizeof m, "unexpected byte 0x%02X", c);
        return lex_error(lx, t, p, m);
    } else {
        t->kind = k = PTK_PUNCT;
        t->ch = c;
        lx->cur = p + 1;
    }
    if (k != PTK_ERROR) t->len = (uint32_t)(lx->cur - p);
    return k;
}
