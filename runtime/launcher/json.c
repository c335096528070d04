/* json.c - the small JSON reader of json.h: recursive descent over the whole text, with a
 * depth limit so a hostile file cannot exhaust the stack. */
#include "json.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct { const char *s, *p; char *err; size_t errlen; int failed; } P;

static void fail(P *p, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = 1;
    int k = snprintf(p->err, p->errlen, "offset %zu: ", (size_t)(p->p - p->s));
    if (k < 0 || (size_t)k >= p->errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + k, p->errlen - k, fmt, ap);
    va_end(ap);
}

static void ws(P *p)
{
    while (*p->p == ' ' || *p->p == '\t' || *p->p == '\n' || *p->p == '\r') p->p++;
}

static Json *node(P *p, JsonKind k)
{
    Json *j = calloc(1, sizeof *j);
    if (!j) fail(p, "out of memory");
    else j->kind = k;
    return j;
}

static int hex4(const char *s, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (d > 15) return 0;
        *v = *v * 16 + d;
    }
    return 1;
}

static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xc0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | c >> 12); o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | c >> 18); o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f));
    return 4;
}

/* At the opening quote; returns the decoded string (never longer than the quoted text). */
static char *string(P *p)
{
    const char *q = ++p->p;
    while (*q && *q != '"') q += *q == '\\' && q[1] ? 2 : 1;
    if (*q != '"') { fail(p, "unterminated string"); return NULL; }
    char *out = malloc((size_t)(q - p->p) + 1), *o = out;
    if (!out) { fail(p, "out of memory"); return NULL; }
    while (p->p < q) {
        char c = *p->p++;
        if ((unsigned char)c < 0x20) { fail(p, "control character in a string"); break; }
        if (c != '\\') { *o++ = c; continue; }
        c = *p->p++;
        switch (c) {
        case '"': case '\\': case '/': *o++ = c; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned v, lo;
            if (q - p->p < 4 || !hex4(p->p, &v)) { fail(p, "bad \\u escape"); goto done; }
            p->p += 4;
            if (v >= 0xd800 && v < 0xdc00 && q - p->p >= 6 && p->p[0] == '\\' && p->p[1] == 'u' &&
                hex4(p->p + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
                p->p += 6;
            }
            /* 6 escaped bytes ("\uXXXX") give at most 3; a pair's 12 give 4 */
            o += put_utf8(o, v);
            break;
        }
        default: fail(p, "bad escape \\%c", c); goto done;
        }
    }
done:
    *o = 0;
    p->p = q + 1;
    if (p->failed) { free(out); return NULL; }
    return out;
}

static Json *value(P *p, int depth);

static int append(P *p, Json *j, Json *item, char *key)
{
    Json **items = realloc(j->items, (j->n + 1) * sizeof *items);
    if (items) j->items = items;
    char **keys = j->kind == J_OBJ ? realloc(j->keys, (j->n + 1) * sizeof *keys) : NULL;
    if (keys) j->keys = keys;
    if (!items || (j->kind == J_OBJ && !keys)) { fail(p, "out of memory"); return 0; }
    j->items[j->n] = item;
    if (j->kind == J_OBJ) j->keys[j->n] = key;
    j->n++;
    return 1;
}

static Json *container(P *p, int depth, JsonKind kind)
{
    char close = kind == J_ARR ? ']' : '}';
    Json *j = node(p, kind);
    if (!j) return NULL;
    p->p++;
    ws(p);
    if (*p->p == close) { p->p++; return j; }
    for (;;) {
        char *key = NULL;
        ws(p);
        if (kind == J_OBJ) {
            if (*p->p != '"') { fail(p, "expected a key"); break; }
            if (!(key = string(p))) break;
            ws(p);
            if (*p->p != ':') { fail(p, "expected ':'"); free(key); break; }
            p->p++;
        }
        Json *item = value(p, depth + 1);
        if (!item || !append(p, j, item, key)) { free(key); json_free(item); break; }
        ws(p);
        if (*p->p == ',') { p->p++; continue; }
        if (*p->p == close) { p->p++; return j; }
        fail(p, "expected ',' or '%c'", close);
        break;
    }
    json_free(j);
    return NULL;
}

static Json *value(P *p, int depth)
{
    ws(p);
    if (depth > MAX_DEPTH) { fail(p, "nested too deeply"); return NULL; }
    char c = *p->p;
    if (c == '{') return container(p, depth, J_OBJ);
    if (c == '[') return container(p, depth, J_ARR);
    if (c == '"') {
        char *s = string(p);
        Json *j = s ? node(p, J_STR) : NULL;
        if (j) j->str = s;
        else free(s);
        return j;
    }
    static const struct { const char *word; JsonKind k; double v; } words[] = {
        { "null", J_NULL, 0 }, { "true", J_BOOL, 1 }, { "false", J_BOOL, 0 } };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t len = strlen(words[i].word);
        if (!strncmp(p->p, words[i].word, len)) {
            p->p += len;
            Json *j = node(p, words[i].k);
            if (j) j->num = words[i].v;
            return j;
        }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double v = strtod(p->p, &end);
        if (end == p->p) { fail(p, "bad number"); return NULL; }
        p->p = end;
        Json *j = node(p, J_NUM);
        if (j) j->num = v;
        return j;
    }
    fail(p, c ? "unexpected '%c'" : "unexpected end of text", c);
    return NULL;
}

Json *json_parse(const char *text, char *err, size_t errlen)
{
    P p = { text, text, err, errlen, 0 };
    if (errlen) err[0] = 0;
    Json *j = value(&p, 0);
    if (j) {
        ws(&p);
        if (*p.p) { fail(&p, "text after the document"); json_free(j); j = NULL; }
    }
    return j;
}

void json_free(Json *j)
{
    if (!j) return;
    for (size_t i = 0; i < j->n; i++) {
        json_free(j->items[i]);
        if (j->keys) free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
    free(j);
}

const Json *json_get(const Json *j, const char *key)
{
    if (!j || j->kind != J_OBJ) return NULL;
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key)) return j->items[i];
    return NULL;
}

const char *json_str(const Json *j)
{
    return j && j->kind == J_STR ? j->str : NULL;
}

double json_num(const Json *j, double dflt)
{
    return j && (j->kind == J_NUM || j->kind == J_BOOL) ? j->num : dflt;
}
