#!/bin/bash
# record_labs_printf.sh - on a machine with a real GPU, the second recording of issue 23 (the
# first, tests/gpu/record_warp_edges.sh, ran out of time in its printf part): what labs 09
# and 10 print (as labs/h100/record.sh: NAME.VARIANT.out with the exit status, .err), the
# missing synchronisation of lab 09 twice more, and device printf against the printf FIFO:
# for each case the lines that came out, the first and last thread that printed, and the
# seconds the run took (one case at a time, each under a time limit).
# Usage: tests/gpu/record_labs_printf.sh BIN OUTDIR   (BIN: tests/gpu/build_warp_edges.sh)
set -u
bin=$(cd "${1:?usage: record_labs_printf.sh BIN OUTDIR}" && pwd)
out=${2:?usage: record_labs_printf.sh BIN OUTDIR}
mkdir -p "$out/labs"
out=$(cd "$out" && pwd)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "programs built by nvcc: $(cat "$bin/NVCC_VERSION" 2>/dev/null)"
  date -u +%Y-%m-%dT%H:%MZ; } >"$out/RECORDED_ON.txt"
cd "$bin" || exit 1
for lab in 09-streams 10-warp-shuffle; do
    for v in starter solution bug_race bug_fault; do
        timeout 30 ./$lab.$v >"$out/labs/$lab.$v.out" 2>"$out/labs/$lab.$v.err"
        echo "exit status $?" >>"$out/labs/$lab.$v.out"
    done
done
for r in 2 3; do timeout 30 ./09-streams.bug_race >>"$out/labs/09-streams.bug_race.more" 2>&1; done
# KIND FIFO BLOCKS LIMIT
while read -r kind fifo blocks limit; do
    t0=$(date +%s.%N)
    timeout "$limit" ./printf_fifo_probe "$kind" "$fifo" "$blocks" 1 >"$out/pf.out" 2>"$out/pf.err"
    rc=$?
    t1=$(date +%s.%N)
    n=$(grep -c '^P' "$out/pf.out")
    first=$(grep -m1 '^P' "$out/pf.out" | cut -c1-40)
    last=$(grep '^P' "$out/pf.out" | tail -n 1 | cut -c1-40)
    lo=$(grep '^P' "$out/pf.out" | awk '{print $2}' | sort -n | head -n 1)
    hi=$(grep '^P' "$out/pf.out" | awk '{print $2}' | sort -n | tail -n 1)
    echo "kind $kind fifo $fifo blocks $blocks: exit $rc in $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s, $n of $((blocks * 256)) lines; first [$first] last [$last]; thread values $lo..$hi; $(tr '\n' ' ' <"$out/pf.err")"
done >"$out/printf_fifo.txt" <<'CASES'
1 1048576 16 8
1 1048576 256 8
1 65536 64 8
0 65536 64 8
8 65536 64 8
1 0 256 8
1 1048576 1024 8
CASES
rm -f "$out/pf.out" "$out/pf.err"
