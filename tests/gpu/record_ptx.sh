#!/bin/bash
# record_ptx.sh - records the expected outputs of tests/$PTX_TEST_DIR/*.ptx (default: ptx) on a
# real NVIDIA GPU; record_ptx_async.sh runs it for tests/ptx-async.
#
# Run from anywhere on a machine with a GPU, nvcc's headers and gcc. Builds the CUDA
# driver-API version of ptxrun (tests/gpu/ptxrun_cuda.c, which launches @cluster tests with
# cuLaunchKernelEx), runs every test (or the NAMEs given) twice, each in a fresh process with
# a 60 s limit, and writes into $OUT (default /tmp/ptx_record):
#   RECORDED_ON.txt     nvidia-smi's GPU name and driver version
#   expected.tar.gz     run1/NAME.expected (stdout), run1/NAME.stderr, run1/status, and run2/...
#   record.log          build output, exit statuses, and the differences between the two runs
# Then on the development machine: unpack, check the log (a test whose two runs differ must be
# fixed or dropped), copy run1/*.expected to the test folder.
# Usage: [PTX_TEST_DIR=ptx-async] OUT=/some/dir bash tests/gpu/record_ptx.sh [NAME ...]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=$ROOT/tests/${PTX_TEST_DIR:-ptx}
OUT=${OUT:-/tmp/ptx_record}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/run1" "$WORK/run2"
LOG="$OUT/record.log"
CUDA=${CUDA_HOME:-/usr/local/cuda}
exec 3>&1 >"$LOG" 2>&1

if [ $# -gt 0 ]; then
    list=""
    for n in "$@"; do list="$list $DIR/$n.ptx"; done
else
    list=$(ls "$DIR"/*.ptx)
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/RECORDED_ON.txt"
cat "$OUT/RECORDED_ON.txt"
gcc -std=gnu11 -O2 -Wall -Wextra -I"$CUDA/include" "$ROOT/tests/gpu/ptxrun_cuda.c" \
    -o "$WORK/ptxrun_cuda" -L"$CUDA/lib64/stubs" -lcuda || { echo "build failed" >&3; exit 1; }
for run in 1 2; do
    for t in $list; do
        name=$(basename "$t" .ptx)
        timeout 60 "$WORK/ptxrun_cuda" "$t" >"$WORK/run$run/$name.expected" 2>"$WORK/run$run/$name.stderr"
        echo "$name $?" >>"$WORK/run$run/status"
    done
done
echo "== exit statuses (nonzero only)"
awk '$2 != 0' "$WORK/run1/status"
echo "== differences between run 1 and run 2"
for f in "$WORK"/run1/*.expected; do
    cmp -s "$f" "$WORK/run2/$(basename "$f")" || { echo "-- $(basename "$f")"; diff "$f" "$WORK/run2/$(basename "$f")" | head -n 20; }
done
tar -C "$WORK" -czf "$OUT/expected.tar.gz" run1 run2
echo "recorded $(ls "$WORK"/run1/*.expected | wc -l) tests into $OUT" >&3
