#!/bin/bash
# record_cuda.sh - on a machine with a real GPU: builds tests/cuda/*.cu with nvcc (the flags of
# tests/run_cuda_tests.sh, compiled from inside tests/cuda so that __FILE__ is the bare name),
# runs each program once per line of its .args file (once without arguments if it has none),
# RUNS times (default 2), and writes into OUTDIR:
#   NAME.N.out     stdout of run 1 followed by a last line `exit=STATUS`   (compared by tests)
#   NAME.N.stderr  stderr of run 1, when not empty                          (documentation only)
#   RECORDED_ON.txt  GPU name and driver (nvidia-smi), nvcc version, flags, date
#   record.log     one line per run set, and the differences between the runs
# Copy NAME.N.out, NAME.N.stderr and RECORDED_ON.txt into tests/expected/cuda/ afterwards.
#
# Usage: tests/gpu/record_cuda.sh OUTDIR [NAME...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: record_cuda.sh OUTDIR [NAME...]}
shift
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
NVCC_FLAGS="-arch=sm_90 --cudart shared -O2 -lineinfo"
runs=${RUNS:-2}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
log=$out/record.log
: >"$log"

[ $# -eq 0 ] && set -- $(cd "$top/tests/cuda" && ls *.cu | sed 's/\.cu$//')

{
    nvidia-smi --query-gpu=name,driver_version --format=csv
    echo "nvcc: $("$NVCC" --version | tail -n 2 | head -n 1)"
    echo "flags: $NVCC_FLAGS"
    echo "runs: $runs per argument set, all identical (record.log)"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$out/RECORDED_ON.txt"

status=0
for name in "$@"; do
    # a program with NAME.env needs what the emulator provides (several devices): its
    # expected output is derived, not recorded (the program's header says how)
    if [ -f "$top/tests/cuda/$name.env" ]; then
        echo "record: $name: skipped (needs $(tr '\n' ' ' <"$top/tests/cuda/$name.env"))" | tee -a "$log"
        continue
    fi
    flags=$NVCC_FLAGS
    [ -f "$top/tests/cuda/$name.flags" ] && flags=$(cat "$top/tests/cuda/$name.flags")
    # shellcheck disable=SC2086  # flags is a list of flags
    if ! (cd "$top/tests/cuda" && "$NVCC" $flags -o "$work/$name" "$name.cu") >>"$log" 2>&1; then
        echo "record: $name: nvcc failed" | tee -a "$log"
        status=1
        continue
    fi
    if [ -f "$top/tests/cuda/$name.args" ]; then cp "$top/tests/cuda/$name.args" "$work/args"; else echo >"$work/args"; fi
    n=0
    while IFS= read -r args; do
        for r in $(seq 1 "$runs"); do
            # shellcheck disable=SC2086  # the arguments are split like a command line
            (cd "$work" && timeout 120 "./$name" $args) >"$work/$name.$n.$r.out" \
                2>"$work/$name.$n.$r.err" </dev/null
            echo "exit=$?" >>"$work/$name.$n.$r.out"
        done
        same=yes
        for r in $(seq 2 "$runs"); do
            if ! cmp -s "$work/$name.$n.1.out" "$work/$name.$n.$r.out"; then
                same=no
                diff "$work/$name.$n.1.out" "$work/$name.$n.$r.out" | head -n 20 >>"$log"
            fi
            cmp -s "$work/$name.$n.1.err" "$work/$name.$n.$r.err" || echo "  ($name.$n: stderr differs in run $r)" >>"$log"
        done
        cp "$work/$name.$n.1.out" "$out/$name.$n.out"
        rm -f "$out/$name.$n.stderr"
        [ -s "$work/$name.$n.1.err" ] && cp "$work/$name.$n.1.err" "$out/$name.$n.stderr"
        echo "record: $name.$n${args:+ ($args)}: $(tail -n 1 "$out/$name.$n.out"), $runs runs identical: $same, $(wc -l <"$out/$name.$n.out") lines" | tee -a "$log"
        [ $same = yes ] || status=1
        n=$((n + 1))
    done <"$work/args"
done
exit $status
