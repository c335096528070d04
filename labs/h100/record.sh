#!/bin/bash
# record.sh - runs every lab program on a real GPU and keeps what it printed: the stdout and
# exit status of each starter, solution and buggy variant, compute-sanitizer's racecheck of
# each bug_race and memcheck of each bug_fault. tests/run_labs.sh compares ptxemu's output of
# the solutions and starters with these recordings.
# Usage (on a machine with the GPU, from the repository root): labs/h100/record.sh OUTDIR
set -u
out=${1:?usage: record.sh OUTDIR}
mkdir -p "$out"
bin=$(mktemp -d)
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  nvcc --version | tail -n 1
  date -u +%Y-%m-%dT%H:%MZ; } >"$out/RECORDED_ON.txt"
for lab in labs/0*/; do
    name=$(basename "$lab")
    flags=$(sed -n 's/^NVCCFLAGS=//p' "$lab/lab.conf")
    for v in starter solution bug_race bug_fault; do
        nvcc -arch=sm_90 -lineinfo $flags -o "$bin/$name.$v" "$lab/$v.cu" 2>/dev/null &
    done
done
wait
for lab in labs/0*/; do
    name=$(basename "$lab")
    args=$(sed -n 's/^ARGS=//p' "$lab/lab.conf")
    for v in starter solution bug_race bug_fault; do
        timeout 60 "$bin/$name.$v" $args >"$out/$name.$v.out" 2>"$out/$name.$v.err"
        echo "exit status $?" >>"$out/$name.$v.out"
    done
    timeout 120 compute-sanitizer --tool racecheck --print-limit 4 "$bin/$name.bug_race" $args \
        >"$out/$name.bug_race.racecheck.txt" 2>&1 &
    timeout 120 compute-sanitizer --tool memcheck --print-limit 4 "$bin/$name.bug_fault" $args \
        >"$out/$name.bug_fault.memcheck.txt" 2>&1 &
done
wait
rm -rf "$bin"
