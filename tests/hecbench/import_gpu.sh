#!/bin/bash
# import_gpu.sh - turns what tests/hecbench/record_gpu.sh wrote on the GPU machine (one or more
# of its OUTDIRs, e.g. one per batch of programs) into tests/expected/hecbench/: survey.txt (the
# GPU's verdict per program, from the first run), NAME.out (the first run's output), and
# NAME.run2.out, NAME.run3.out only where a later run printed something else once compared as
# status.sh compares (the GPU's own run-to-run variation; where the first run timed out and a
# later one finished, that one is NAME.out); times.txt (the GPU's seconds, with
# JOBS programs sharing it) and RECORDED_ON.txt (GPU, driver, nvcc, date). An output over
# MAXBYTES (65536) keeps its first and last lines, the cut marked. A later run's output without
# its `exit=` line (stopped at the recording's deadline) is not kept.
#
# Usage: tests/hecbench/import_gpu.sh OUTDIR...
set -u
here=$(cd "$(dirname "$0")" && pwd)
dest=$here/../expected/hecbench
[ $# -ge 1 ] || { echo "usage: import_gpu.sh OUTDIR..." >&2; exit 64; }
# shellcheck source=tests/hecbench/normal.sh
. "$here/normal.sh"
max=${MAXBYTES:-65536}
mkdir -p "$dest"
keep() {   # keep FROM TO: copies an output, cut to its first and last lines when too big
    if [ "$(stat -c %s "$1")" -le "$max" ]; then cp "$1" "$2"; return; fi
    { head -n 200 "$1" | cut -c1-300
      echo "[import_gpu.sh: $(wc -l <"$1") lines, $(stat -c %s "$1") bytes; the middle cut]"
      tail -n 50 "$1" | cut -c1-300; } >"$2"
}
: >"$dest/survey.txt.new"
: >"$dest/times.txt.new"
for o in "$@"; do
    # the verdicts of this OUTDIR's own programs (a later OUTDIR may share the folder)
    cut -d' ' -f1 "$o/run1/survey.txt" | while read -r name; do
        # a first run stopped by the time limit (the GPU shared by JOBS programs) gives way to
        # a later run that finished
        first=1
        if grep -qx "$name timeout" "$o/run1/survey.txt"; then
            for r in 2 3; do
                grep -qx "$name runs" "$o/run$r/survey.txt" 2>/dev/null && { first=$r; break; }
            done
        fi
        grep -m1 "^$name " "$o/run$first/survey.txt" >>"$dest/survey.txt.new"
        keep "$o/run$first/$name.out" "$dest/$name.out"
        awk -v n="$name" '$1 == n' "$o/run1/times.txt" >>"$dest/times.txt.new"
        for r in 2 3; do
            f=$o/run$r/$name.out
            rm -f "$dest/$name.run$r.out"
            [ "$r" != "$first" ] && [ -f "$f" ] && tail -n 1 "$f" | grep -q '^exit=' || continue
            diff -q <(normal "$name" "$o/run$first/$name.out") <(normal "$name" "$f") >/dev/null ||
                keep "$f" "$dest/$name.run$r.out"
        done
    done
    cp "$o/RECORDED_ON.txt" "$dest/RECORDED_ON.txt"
done
sort -u -o "$dest/survey.txt" "$dest/survey.txt.new" && rm "$dest/survey.txt.new"
sort -u -o "$dest/times.txt" "$dest/times.txt.new" && rm "$dest/times.txt.new"
echo "$(wc -l <"$dest/survey.txt") programs; $(ls "$dest"/*.run[0-9].out 2>/dev/null | wc -l) later runs that differ"
