/* devprintf.c - device-side printf: formats one thread's vprintf call like the GPU does and
 * appends the text to the launch's output buffer.
 *
 * The argument buffer is laid out by nvcc: each argument at the next offset aligned to its
 * own size; int-sized promotions take 4 bytes, long/long long/pointers/doubles 8 (float
 * arguments arrive promoted to double). The CUDA driver formats on the host with the C
 * library, so each conversion is handed to the host snprintf with an argument of the
 * matching C type. What the driver accepts was read on an H100 (driver 580, CUDA 13):
 *  - flags "#0- +", width (digits or *, a * takes an int argument), precision (digits);
 *  - lengths h, hh, l, ll; the argument is 8 bytes for l/ll (%lc and %llc too), else 4;
 *    %s and %p always take 8, floating conversions always a double;
 *  - conversions d i u o x X c s p e E f F g G a A and %% (also with flags: "%5%" is "%");
 *  - anything else (an unknown conversion, lengths j z t L, the ' flag, a precision of *,
 *    a '%' at the end) is printed as written and takes no argument;
 *  - %s of NULL prints "(null)", or nothing when the precision is below 6 (glibc);
 *  - the return value counts the arguments taken, * widths included.
 * Differences kept on purpose (the GPU prints garbage there): %.*d, %hh*, and conversions
 * past the 32nd argument, which we print as written. %n and %ls are refused (-1): on the
 * GPU %n crashes the host process.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exec.h"
#include "memory.h"

#define MAX_ARGS 32             /* CUDA: at most 32 arguments after the format */

int emu_printf_used;

typedef struct Str { char *p; size_t len, cap; int bad; } Str;

static void str_reserve(Str *s, size_t more)
{
    if (s->bad || s->len + more + 1 <= s->cap) return;
    size_t cap = s->cap ? s->cap : 128;
    while (cap < s->len + more + 1) cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) { s->bad = 1; return; }
    s->p = p;
    s->cap = cap;
}

static void str_add(Str *s, const char *t, size_t n)
{
    str_reserve(s, n);
    if (s->bad) return;
    memcpy(s->p + s->len, t, n);
    s->len += n;
    s->p[s->len] = 0;
}

/* Append one host-formatted conversion. */
static void str_fmt(Str *s, const char *spec, ...)
{
    va_list ap, ap2;
    va_start(ap, spec);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, spec, ap);
    va_end(ap);
    if (n < 0) s->bad = 1;
    else str_reserve(s, (size_t)n);
    if (!s->bad) {
        vsnprintf(s->p + s->len, (size_t)n + 1, spec, ap2);
        s->len += (size_t)n;
    }
    va_end(ap2);
}

/* Take the next argument of `size` bytes (aligned to its size); -1 past the buffer. */
static int take(const uint8_t *args, size_t len, size_t *off, size_t size, uint64_t *v)
{
    size_t o = (*off + size - 1) & ~(size - 1);
    if (o > len || len - o < size) return -1;
    if (size == 4) { uint32_t x; memcpy(&x, args + o, 4); *v = x; }
    else memcpy(v, args + o, 8);
    *off = o + size;
    return 0;
}

/* One conversion specification, parsed. */
typedef struct Spec {
    char flags[8];
    int width_star, width, prec;    /* width -1 / prec -1: not given */
    int prec_star;                  /* ".*": not supported by the driver */
    char len[3];                    /* "", "h", "hh", "l", "ll", "z", "j", "t", "L" */
    char conv;                      /* 0 when the format ended first */
} Spec;

/* Parse after the '%'; returns the character after the conversion (or the end of the
 * format), or NULL for an absurd width or precision. */
static const char *parse_spec(const char *p, Spec *sp)
{
    int nf = 0;
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    while (*p && strchr("#0- +", *p)) {
        if (nf < 7) sp->flags[nf++] = *p;
        p++;
    }
    if (*p == '*') { sp->width_star = 1; p++; }
    else if (*p >= '0' && *p <= '9') {
        for (sp->width = 0; *p >= '0' && *p <= '9'; p++)
            if ((sp->width = sp->width * 10 + (*p - '0')) > 1000000) return NULL;
    }
    if (*p == '.') {
        p++;
        if (*p == '*') { sp->prec_star = 1; p++; }
        for (sp->prec = 0; *p >= '0' && *p <= '9'; p++)
            if ((sp->prec = sp->prec * 10 + (*p - '0')) > 1000000) return NULL;
    }
    if ((p[0] == 'h' && p[1] == 'h') || (p[0] == 'l' && p[1] == 'l')) {
        sp->len[0] = p[0]; sp->len[1] = p[1]; p += 2;
    } else if (*p && strchr("hlzjtL", *p)) {
        sp->len[0] = *p++;
    }
    if (*p) sp->conv = *p++;
    return p;
}

/* Whether the driver formats this specification (else it is printed as written). */
static int spec_supported(const Spec *sp)
{
    return sp->conv && strchr("diouxXcspeEfFgGaA", sp->conv) && !sp->prec_star &&
           !(sp->len[0] && strchr("zjtL", sp->len[0]));
}

/* The host conversion spec for sp: width -1 means none, left adds the '-' flag (a negative
 * '*' width), hostlen is the length modifier matching the C type passed. */
static void host_spec(char *out, size_t n, const Spec *sp, int width, int left,
                      const char *hostlen)
{
    char w[16] = "", pr[16] = "";
    if (width >= 0) snprintf(w, sizeof w, "%d", width);
    if (sp->prec >= 0) snprintf(pr, sizeof pr, ".%d", sp->prec);
    snprintf(out, n, "%%%s%s%s%s%s%c", sp->flags, left ? "-" : "", w, pr, hostlen, sp->conv);
}

/* Read a NUL-terminated device string (at most max bytes) into s. 0, or -1 on a fault
 * (recorded by mem_lane_ptr). */
static int read_dev_string(Warp *w, int lane, uint64_t addr, int max, Str *s)
{
    for (size_t i = 0; max < 0 || i < (size_t)max; i++) {
        const char *c = mem_lane_ptr(w, SP_GENERIC, addr + i, 1, 1, lane, ACC_READ);
        if (!c) return -1;
        if (!*c) break;
        str_add(s, c, 1);
    }
    str_add(s, "", 0);
    return 0;
}

/* Format one conversion with its argument(s) into out. Returns 0, or -1 (malformed,
 * argument buffer too short, or a fault reading a %s string). */
static int convert(Warp *w, int lane, const Spec *sp, const uint8_t *args, size_t args_len,
                   size_t *off, int *nargs, Str *out)
{
    char spec[64];
    uint64_t v;
    int width = sp->width, left = 0;
    if (sp->width_star) {
        if (take(args, args_len, off, 4, &v)) return -1;
        (*nargs)++;
        int32_t x = (int32_t)v;
        left = x < 0;
        width = x < -1000000 || x > 1000000 ? 1000000 : left ? -x : x;
    }
    const char *len = sp->len;
    int is8 = len[0] == 'l';
    switch (sp->conv) {
    case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
        if (take(args, args_len, off, is8 ? 8 : 4, &v)) return -1;
        int sgn = sp->conv == 'd' || sp->conv == 'i';
        if (!is8) {
            /* the C promotions, undone as the host printf would for hh/h */
            if (len[0] == 'h' && len[1] == 'h') v = sgn ? (uint64_t)(int64_t)(signed char)v : (unsigned char)v;
            else if (len[0] == 'h') v = sgn ? (uint64_t)(int64_t)(short)v : (unsigned short)v;
            else v = sgn ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
        }
        host_spec(spec, sizeof spec, sp, width, left, "ll");
        if (sgn) str_fmt(out, spec, (long long)v);
        else str_fmt(out, spec, (unsigned long long)v);
        break;
    }
    case 'c':
        if (take(args, args_len, off, is8 ? 8 : 4, &v)) return -1;
        host_spec(spec, sizeof spec, sp, width, left, "");
        str_fmt(out, spec, (int)(int32_t)v);
        break;
    case 'p':
        if (take(args, args_len, off, 8, &v)) return -1;
        host_spec(spec, sizeof spec, sp, width, left, "");
        str_fmt(out, spec, (void *)(uintptr_t)v);
        break;
    case 's': {
        Str str = { 0 };
        if (is8) return -1;                             /* wide strings */
        if (take(args, args_len, off, 8, &v)) return -1;
        if (v && read_dev_string(w, lane, v, sp->prec, &str)) { free(str.p); return -1; }
        if (str.bad) { free(str.p); return -1; }
        host_spec(spec, sizeof spec, sp, width, left, "");
        /* glibc prints "(null)" for NULL unless the precision cuts it: then nothing */
        str_fmt(out, spec, v ? (str.p ? str.p : "") : sp->prec < 0 || sp->prec >= 6 ? "(null)" : "");
        free(str.p);
        break;
    }
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        double x;
        if (take(args, args_len, off, 8, &v)) return -1;
        memcpy(&x, &v, sizeof x);
        host_spec(spec, sizeof spec, sp, width, left, "");
        str_fmt(out, spec, x);
        break;
    }
    default:
        return -1;      /* not reached: spec_supported() filters */
    }
    (*nargs)++;
    return 0;
}

/* Append one printf's text to the launch's printf buffer under its lock. The GPU's FIFO
 * (cudaLimitPrintfFifoSize) holds a record of PRINTF_RECORD bytes per printf, whatever its
 * arguments; a printf that finds it full is dropped (emu.c says how many at the launch's
 * end). Measured on an H200, tests/gpu/printf_fifo_h200.txt. */
static int append_output(Warp *w, const char *t, size_t n)
{
    Launch *L = w->launch;
    int ok = 1;
    pthread_mutex_lock(&L->lock);
    if (L->printf_cap && L->printf_n >= L->printf_cap) {   /* 0: no FIFO set up, no limit */
        L->printf_dropped++;
        pthread_mutex_unlock(&L->lock);
        return 0;
    }
    L->printf_n++;
    if (L->out_len + n + 1 > L->out_cap) {
        size_t cap = L->out_cap ? L->out_cap : 4096;
        while (cap < L->out_len + n + 1) cap *= 2;
        char *p = realloc(L->out, cap);
        if (p) { L->out = p; L->out_cap = cap; }
        else ok = 0;
    }
    if (ok) {
        memcpy(L->out + L->out_len, t, n);
        L->out_len += n;
        L->out[L->out_len] = 0;
    }
    pthread_mutex_unlock(&L->lock);
    return ok ? 0 : -1;
}

int devprintf(Warp *w, int lane, const char *fmt, const uint8_t *args, size_t args_len)
{
    Str out = { 0 };
    size_t off = 0;
    int nargs = 0;
    if (!fmt) return -1;
    for (const char *p = fmt; *p;) {
        if (*p != '%') {
            const char *q = strchr(p, '%');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            str_add(&out, p, n);
            p += n;
            continue;
        }
        Spec sp;
        const char *start = p, *next = parse_spec(p + 1, &sp);
        if (!next) goto bad;
        p = next;
        if (sp.conv == '%') { str_add(&out, "%", 1); continue; }
        if (sp.conv == 'n' || (sp.conv == 's' && sp.len[0] == 'l')) goto bad;
        if (!spec_supported(&sp) || nargs >= MAX_ARGS) {
            str_add(&out, start, (size_t)(p - start));  /* as the driver: printed as written */
            continue;
        }
        if (convert(w, lane, &sp, args, args_len, &off, &nargs, &out)) goto bad;
    }
    if (out.bad) goto bad;
    __atomic_store_n(&emu_printf_used, 1, __ATOMIC_RELAXED);
    if (append_output(w, out.p ? out.p : "", out.len)) {
        free(out.p);
        warp_fault(w, lane, EMU_ERR_MEMORY_ALLOCATION, "device printf: out of host memory");
        return -1;
    }
    free(out.p);
    return nargs;
bad:
    free(out.p);
    return -1;
}
