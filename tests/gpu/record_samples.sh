#!/bin/bash
# record_samples.sh - on a machine with a real GPU: builds the samples as samples/BUILD says
# (tests/build_sample.sh, as make does), runs each three times, checks the runs print the same
# thing, and writes the expected outputs (NAME.out, plus NAME.status when the exit status is
# not 0) and RECORDED_ON.txt into OUTDIR. Copy OUTDIR's files into tests/expected/samples/.
#
# Usage: tests/gpu/record_samples.sh OUTDIR [NAME...]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: record_samples.sh OUTDIR [NAME...]}
shift
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
runs=${RUNS:-3}
mkdir -p "$out"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ]; then
    set -- $(grep -v '^#' "$top/samples/BUILD" | awk '{print $1}')
fi

{
    nvidia-smi --query-gpu=name,driver_version --format=csv
    echo "nvcc: $("$NVCC" --version | tail -n 2 | head -n 1)"
    echo "build: samples/BUILD (tests/build_sample.sh)"
    echo "date: $(date -u +%Y-%m-%d)"
} >"$out/RECORDED_ON.txt"

status=0
for name in "$@"; do
    if ! NVCC=$NVCC sh "$top/tests/build_sample.sh" "$name" "$work/$name"; then
        echo "record: $name: nvcc failed"
        status=1
        continue
    fi
    for r in $(seq 1 "$runs"); do
        (cd "$work" && "./$name") >"$work/$name.$r.out" 2>"$work/$name.$r.err"
        echo $? >"$work/$name.$r.rc"
    done
    same=yes
    for r in $(seq 2 "$runs"); do
        cmp -s "$work/$name.1.out" "$work/$name.$r.out" || same=no
        cmp -s "$work/$name.1.rc" "$work/$name.$r.rc" || same=no
    done
    rc=$(cat "$work/$name.1.rc")
    cp "$work/$name.1.out" "$out/$name.out"
    rm -f "$out/$name.status"
    [ "$rc" = 0 ] || cp "$work/$name.1.rc" "$out/$name.status"
    [ -s "$work/$name.1.err" ] && cp "$work/$name.1.err" "$out/$name.stderr"
    echo "record: $name: exit $rc, $runs runs identical: $same, $(wc -l <"$out/$name.out") lines"
    if [ $same = no ]; then
        status=1
        for r in $(seq 2 "$runs"); do diff "$work/$name.1.out" "$work/$name.$r.out" | head -n 20; done
    fi
    [ "$rc" = 0 ] || status=1
done
exit $status
