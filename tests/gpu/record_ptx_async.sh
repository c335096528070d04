#!/bin/bash
# record_ptx_async.sh - records the expected outputs of tests/ptx-async/*.ptx (Hopper async
# copies, mbarrier, clusters) on a real NVIDIA GPU of compute capability 9.0.
#
# Same procedure as record_ptx.sh: builds the CUDA driver-API ptxrun (tests/gpu/ptxrun_cuda.c,
# which launches @cluster tests with cuLaunchKernelEx), runs every test twice, each in a fresh
# process with a 30 s timeout, and writes into $OUT (default /tmp/ptx_async_record):
#   RECORDED_ON.txt     nvidia-smi's GPU name and driver version
#   expected.tar.gz     run1/NAME.expected (stdout), run1/NAME.stderr, run1/status, and run2/...
#   record.log          build output, exit statuses, and the differences between the two runs
# Then on the development machine: unpack, check the log (a test whose two runs differ must be
# fixed or dropped), copy run1/*.expected to tests/ptx-async/.
# Usage: OUT=/some/dir bash tests/gpu/record_ptx_async.sh [NAME ...]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/ptx_async_record}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/run1" "$WORK/run2"
LOG="$OUT/record.log"
CUDA=${CUDA_HOME:-/usr/local/cuda}
exec 3>&1 >"$LOG" 2>&1

if [ $# -gt 0 ]; then
    list=""
    for n in "$@"; do list="$list $ROOT/tests/ptx-async/$n.ptx"; done
else
    list=$(ls "$ROOT"/tests/ptx-async/*.ptx)
fi
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/RECORDED_ON.txt"
cat "$OUT/RECORDED_ON.txt"
gcc -std=gnu11 -O2 -Wall -Wextra -I"$CUDA/include" "$ROOT/tests/gpu/ptxrun_cuda.c" \
    -o "$WORK/ptxrun_cuda" -L"$CUDA/lib64/stubs" -lcuda || { echo "build failed" >&3; exit 1; }
for run in 1 2; do
    for t in $list; do
        name=$(basename "$t" .ptx)
        timeout 30 "$WORK/ptxrun_cuda" "$t" >"$WORK/run$run/$name.expected" 2>"$WORK/run$run/$name.stderr"
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
