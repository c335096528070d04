#!/bin/bash
# compare_racecheck.sh - runs tests/race/hazards.cu on a real GPU: every case plainly (its
# output and exit status: the kernels must run to completion there too) and the shared-memory
# cases under compute-sanitizer's racecheck, whose findings the emulator's detector is compared
# with (compute-sanitizer sees shared memory only). Writes $OUT/native.N, $OUT/racecheck.N and
# $OUT/RECORDED_ON.txt. Usage: OUT=/some/dir bash tests/gpu/compare_racecheck.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/racecheck_compare}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/RECORDED_ON.txt"
"$CUDA/bin/nvcc" -arch=sm_90 -O2 -lineinfo -o "$OUT/hazards" "$ROOT/tests/race/hazards.cu" || exit 1
for i in $(seq 0 35); do
    timeout 30 "$OUT/hazards" "$i" >"$OUT/native.$i" 2>&1
    echo "exit=$?" >>"$OUT/native.$i"
done
for i in 0 1 2 3 4 5 6 7 8 9 16 17 24 25 26 27 28 29 34 35; do
    timeout 120 "$CUDA/bin/compute-sanitizer" --tool racecheck --racecheck-report all "$OUT/hazards" "$i" \
        >"$OUT/racecheck.$i" 2>&1
    echo "exit=$?" >>"$OUT/racecheck.$i"
done
rm -f "$OUT/hazards"
