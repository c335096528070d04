#!/bin/sh
# gen_procs.sh - writes procs.def and proc_syms.def from the H100's cuGetProcAddress answers
# (tests/expected/driver/procs.txt: "name version flags rc=R st=S symbol" per line).
# Rows of one name come in ascending version order; a version answered exactly as the one
# before it adds no row. Flags 0 and 1 are answered alike; flag 2 gives the per-thread symbol.
# Usage: sh runtime/driver/gen_procs.sh tests/expected/driver/procs.txt runtime/driver
set -eu
in=${1:?usage: gen_procs.sh PROCS.TXT OUTDIR}
out=${2:?usage: gen_procs.sh PROCS.TXT OUTDIR}
{
    cat <<HDR
/* procs.def - what cuGetProcAddress hands out, as an H100 driver (580.159.04) answered it
 * for every (name, version) of cudaTypedefs.h (and cudaProfiler-, GL-, EGL- and
 * VDPAUTypedefs.h) and every name at 13000
 * (tests/expected/driver/procs.txt, recorded by tests/gpu/driver_facts.c):
 * P(name, from version, symbol for the legacy stream, symbol for the per-thread
 * default stream). A row holds from its version up to the next row's; NONE means
 * CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT. Flags 0 and 1 answered alike. */
HDR
    awk '$3 == 0 || $3 == 2 {
             sym = ($4 == "rc=0" && $5 == "st=0") ? $6 : "NONE"
             key = $1 " " $2
             if ($3 == 0) legacy[key] = sym; else pt[key] = sym
             seen[key] = 1
         }
         END { for (k in seen) print k, legacy[k], pt[k] }' "$in" |
        sort -k1,1 -k2,2n |
        awk '$3 == "NONE" && $4 == "NONE" && !($1 in rows) { next }
             { row = $3 " " $4
               if (last[$1] == row) next
               last[$1] = row; rows[$1] = 1
               printf "P(\"%s\", %s, %s, %s)\n", $1, $2, $3, $4 }'
} >"$out/procs.def"
{
    echo "/* proc_syms.def - every exported symbol procs.def names: S(symbol). */"
    sed -n 's/^P("[^"]*", [0-9]*, \([A-Za-z0-9_]*\), \([A-Za-z0-9_]*\))$/\1\n\2/p' "$out/procs.def" |
        grep -vx NONE | sort -u | sed 's/.*/S(&)/'
} >"$out/proc_syms.def"
