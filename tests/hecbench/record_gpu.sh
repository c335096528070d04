#!/bin/bash
# record_gpu.sh - on the GPU machine: runs the survey's programs (built on the ptxemu machine
# and brought over by tests/hecbench/pack.sh, so that the GPU and ptxemu run the same
# executables) with no RUNNER, RUNS times each (3), to OUTDIR/run1, run2, ... (NAME.out,
# survey.txt, times.txt); the GPU, driver and nvcc to OUTDIR/RECORDED_ON.txt. Several runs show
# what the GPU itself changes from run to run (atomics' order, ties). Then, until DEADLINE
# (seconds since the start, 0: none), the programs whose command reduced.txt reduces run once
# more with their Makefile's own command, to OUTDIR/full, so that the GPU's verdict at the
# original size is known too.
#
# Usage: tests/hecbench/record_gpu.sh HECBENCH OUTDIR NAME...
# Environment: RUNS (3), JOBS (8 programs at a time on the one GPU), TIMEOUT (60), DEADLINE (0)
set -u
here=$(cd "$(dirname "$0")" && pwd)
hb=${1:?usage: record_gpu.sh HECBENCH OUTDIR NAME...}
out=${2:?usage: record_gpu.sh HECBENCH OUTDIR NAME...}
shift 2
t0=$(date +%s)
mkdir -p "$out"
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    echo "nvcc: $(nvcc --version | tail -n 2 | head -n 1)"
    echo "built on the ptxemu machine by tests/hecbench/survey.sh (make ARCH=sm_90), run on the GPU"
    echo "by tests/hecbench/record_gpu.sh, $(nproc) CPUs, ${JOBS:-8} programs at a time"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$out/RECORDED_ON.txt"
export RUNNER= JOBS=${JOBS:-8} TIMEOUT=${TIMEOUT:-60}
for r in $(seq 1 "${RUNS:-3}"); do
    mkdir -p "$out/run$r"
    # unsorted while it runs, so that a run stopped at a deadline keeps what it did
    bash "$here/survey.sh" run "$hb" "$out/run$r" "$@" >"$out/run$r/survey.txt"
    sort -o "$out/run$r/survey.txt" "$out/run$r/survey.txt"
    echo "run $r done at $(( $(date +%s) - t0 )) s"
done
left=$(( ${DEADLINE:-0} - ($(date +%s) - t0) ))
if [ "${DEADLINE:-0}" -gt 0 ] && [ "$left" -gt 10 ]; then
    mkdir -p "$out/full"
    full=$(for n in "$@"; do grep -q "^$n	" "$here/reduced.txt" && echo "$n"; done)
    # shellcheck disable=SC2086  # the names
    REDUCED=0 timeout "$left" bash "$here/survey.sh" run "$hb" "$out/full" $full | sort >"$out/full/survey.txt"
    echo "full-size runs done at $(( $(date +%s) - t0 )) s"
fi
