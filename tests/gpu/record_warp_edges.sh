#!/bin/bash
# record_warp_edges.sh - on a machine with a real GPU: the recordings of issue 23 in one run.
#   warp_exited.0.out     tests/cuda/warp_exited (twice; stdout + exit=, compared by the tests)
#   warp_edges.txt        tests/gpu/warp_mask_probe, every case, and compute-sanitizer synccheck
#                         of warp_exited and of each probe case
#   host_races.txt        tests/gpu/host_race_probe, every mode three times
#   printf_fifo.txt       tests/gpu/printf_fifo_probe: device printf lines that come out for
#                         each kind of line and printf FIFO size
#   labs/                 labs 09 and 10: what each variant printed (NAME.VARIANT.out/.err),
#                         compute-sanitizer memcheck and synccheck of bug_fault (racecheck of
#                         the 100003-thread programs takes minutes there: left out)
#   RECORDED_ON.txt       GPU, driver, date
# The programs are built beforehand (BIN, by tests/gpu/build_warp_edges.sh on a machine with
# nvcc 13: the GPU machine needs no compiler).
# Usage: tests/gpu/record_warp_edges.sh BIN OUTDIR
set -u
bin=$(cd "${1:?usage: record_warp_edges.sh BIN OUTDIR}" && pwd)
out=${2:?usage: record_warp_edges.sh BIN OUTDIR}
mkdir -p "$out/labs"
out=$(cd "$out" && pwd)
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || echo none)
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "programs built by nvcc: $(cat "$bin/NVCC_VERSION" 2>/dev/null)"
    echo "compute-sanitizer: $cs"
    date -u +%Y-%m-%dT%H:%MZ
} >"$out/RECORDED_ON.txt"
cd "$bin" || exit 1

# compute-sanitizer runs in the background, three at a time, beside the other programs
san() {   # san TOOL OUTFILE PROGRAM ARGS...
    local tool=$1 file=$2
    shift 2
    [ "$cs" = none ] && { echo "no compute-sanitizer" >"$file"; return; }
    timeout 12 "$cs" --tool "$tool" --print-limit 6 "$@" >"$file" 2>&1
    echo "exit status $?" >>"$file"
}
mkdir -p "$out/san"
(
    san synccheck "$out/san/warp_exited.synccheck.txt" ./warp_exited
    for c in 1 2 3; do san synccheck "$out/san/warp_mask_probe.$c.synccheck.txt" ./warp_mask_probe $c; done
) &
san1=$!
(
    for c in 4 5 6; do san synccheck "$out/san/warp_mask_probe.$c.synccheck.txt" ./warp_mask_probe $c; done
    san synccheck "$out/labs/10-warp-shuffle.bug_fault.synccheck.txt" ./10-warp-shuffle.bug_fault
) &
san2=$!
(
    for lab in 09-streams 10-warp-shuffle; do
        san memcheck "$out/labs/$lab.bug_fault.memcheck.txt" ./$lab.bug_fault
    done
) &
san3=$!

# 1. exited lanes (defined behaviour): two runs, identical
for r in 1 2; do
    timeout 20 ./warp_exited >"$out/warp_exited.$r.out" 2>"$out/warp_exited.$r.err"
    echo "exit=$?" >>"$out/warp_exited.$r.out"
done
cp "$out/warp_exited.1.out" "$out/warp_exited.0.out"
cmp -s "$out/warp_exited.1.out" "$out/warp_exited.2.out" && echo "warp_exited: 2 runs identical" >"$out/warp_exited.log" ||
    diff "$out/warp_exited.1.out" "$out/warp_exited.2.out" >"$out/warp_exited.log"

# 2. undefined cases, one per run (a hang loses only its own case)
{
    for c in 1 2 3 4 5 6 7; do
        timeout 10 ./warp_mask_probe $c 2>&1
        echo "  (case $c exit status $?)"
    done
} >"$out/warp_edges.txt"

# 3. host-side races: each mode three times
{
    for m in 1 2 3 4 5; do
        for r in 1 2 3; do timeout 20 ./host_race_probe $m 2>&1; done
    done
} >"$out/host_races.txt"

# 4. printf FIFO: KIND FIFO BLOCKS [LAUNCHES]; P lines counted
{
    while read -r kind fifo blocks launches; do
        [ -z "$kind" ] && continue
        n=$(timeout 60 ./printf_fifo_probe "$kind" "$fifo" "$blocks" "$launches" 2>"$out/pf.err" | grep -c '^P')
        echo "kind $kind fifo $fifo blocks $blocks launches $launches: $n lines; $(tr '\n' ' ' <"$out/pf.err")"
    done <<'EOF'
0 1048576 4096 1
1 1048576 4096 1
2 1048576 4096 1
4 1048576 4096 1
8 1048576 4096 1
d 1048576 4096 1
s 1048576 4096 1
L 1048576 4096 1
l 1048576 4096 1
c 1048576 4096 1
1 0 4096 1
0 0 4096 1
1 65536 4096 1
1 100000 4096 1
1 1048576 4096 2
1 1048576 16 1
EOF
    rm -f "$out/pf.err"
} >"$out/printf_fifo.txt"

# 5. labs 09 and 10
for lab in 09-streams 10-warp-shuffle; do
    for v in starter solution bug_race bug_fault; do
        timeout 60 ./$lab.$v >"$out/labs/$lab.$v.out" 2>"$out/labs/$lab.$v.err"
        echo "exit status $?" >>"$out/labs/$lab.$v.out"
    done
    for r in 2 3; do   # the missing synchronisation again
        timeout 60 ./$lab.bug_race >>"$out/labs/$lab.bug_race.more" 2>&1
    done
done
wait $san1 $san2 $san3
