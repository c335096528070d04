/* lexer.h - splits PTX text into tokens for parser.c.
 *
 * Contract: ptx_lex_next() returns one token at a time, never reads outside
 * [text, text+len) (the text need not be NUL-terminated), and reports malformed input
 * (unterminated string or comment, bad or overflowing number, NUL or non-ASCII byte) as a
 * PTK_ERROR token whose message lives in the lexer. Comments and whitespace are skipped;
 * `adjacent` tells whether anything was skipped before a token, which is how `ld.global`
 * (one instruction name) differs from `.reg .b32` (two words).
 */
#ifndef PTXEMU_LEXER_H
#define PTXEMU_LEXER_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PTK_EOF = 0,
    PTK_IDENT,    /* foo, %r1, $L__BB0_2, _ (the text has no dots)                      */
    PTK_DIR,      /* .global, .v4, .L1::no_allocate, .shared::cta, .2d (text with the dot) */
    PTK_INT,      /* 42, 0x1F, 077, 0b101, 7U: value in u                                */
    PTK_F32,      /* 0f3F800000: bits in u                                               */
    PTK_F64,      /* 0d3FF0000000000000: bits in u                                       */
    PTK_FLOAT,    /* 1.5, 2e-3, 9.0: value in d                                          */
    PTK_STRING,   /* "..." : p/len cover the contents, without the quotes               */
    PTK_PUNCT,    /* one printable ASCII character in ch: , ; : ( ) [ ] { } < > + - ! @ | = */
    PTK_ERROR     /* lexer->msg says why; p/line/col point at the bad text               */
} PtxTokKind;

typedef struct PtxToken {
    PtxTokKind kind;
    const char *p;        /* the token's text in the source                               */
    uint32_t len;
    int line, col;        /* 1-based; col counts bytes                                    */
    int adjacent;         /* 1 when nothing (space, comment) separates it from the previous */
    int ch;               /* PTK_PUNCT */
    uint64_t u;           /* PTK_INT, PTK_F32, PTK_F64 */
    double d;             /* PTK_FLOAT */
} PtxToken;

typedef struct PtxLexer {
    const char *src, *cur, *end;
    const char *line_start;
    int line;
    int failed;           /* a PTK_ERROR was returned; later calls repeat it */
    char msg[128];        /* message of the last PTK_ERROR */
} PtxLexer;

void ptx_lex_init(PtxLexer *lx, const char *text, size_t len);
/* Fills *t with the next token; returns t->kind. After PTK_EOF or PTK_ERROR it keeps
 * returning the same kind. */
PtxTokKind ptx_lex_next(PtxLexer *lx, PtxToken *t);

#endif
