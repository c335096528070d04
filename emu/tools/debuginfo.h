/* debuginfo.h - source variables for the step debugger (debug.c): the DWARF that nvcc -G
 * writes into the PTX, read into scopes, variables, their types and where they live.
 *
 * Contract: debuginfo_of reads a Program's DWARF once (from its PTX text) and keeps it; NULL
 * when the PTX has none (built without -G: -lineinfo gives lines only). The lookups take a pc
 * of that Program. Values are read by the debugger itself (registers, parameters, shared
 * memory); here is only where they are and how to show them. */
#ifndef PTXEMU_DEBUGINFO_H
#define PTXEMU_DEBUGINFO_H

#include <stddef.h>
#include <stdint.h>
#include "emu/query.h"

/* Where a variable lives at a pc. */
enum { DL_NONE, DL_REG, DL_PARAM, DL_SHARED, DL_MEMORY };

typedef struct DiWhere {
    int kind;                   /* DL_*                                                     */
    char reg[32];               /* DL_REG: the PTX register, "%r10"                         */
    int param;                  /* DL_PARAM: the kernel parameter's index                   */
    char symbol[160];           /* DL_SHARED: the PTX variable, "_ZZ4workPKfPfiE4tile"      */
} DiWhere;

typedef struct DebugInfo DebugInfo;
typedef struct DiVar DiVar;

DebugInfo *debuginfo_of(const Program *p);
/* The variable `name` visible at pc (innermost scope first), else NULL. */
const DiVar *debuginfo_find(const DebugInfo *d, uint32_t pc, const char *name);
/* The variables visible at pc, innermost scope first: out[0..n) (at most max). */
size_t debuginfo_scope(const DebugInfo *d, uint32_t pc, const DiVar **out, size_t max);
const char *debuginfo_name(const DiVar *v);
int debuginfo_is_param(const DiVar *v);
DiWhere debuginfo_where(const DebugInfo *d, const DiVar *v, uint32_t pc);
/* The variable's type as C writes it ("unsigned int", "const float *", "float [32]"). */
void debuginfo_type_name(const DebugInfo *d, const DiVar *v, char *buf, size_t n);
/* Its value from the bytes it holds (a register's 8, a parameter's or memory's own), as C
 * shows it: numbers by their type, pointers in hex, structs and arrays element by element.
 * size: the bytes at `bytes` (an array or struct is shown as far as they reach). */
void debuginfo_format(const DebugInfo *d, const DiVar *v, const uint8_t *bytes, size_t size,
                      char *buf, size_t n);
/* The bytes a value of the variable's type takes. */
size_t debuginfo_size(const DebugInfo *d, const DiVar *v);

#endif
