#!/bin/bash
# record_occupancy.sh - records what the GPU's runtime answers for the occupancy queries
# (tests/gpu/occupancy_probe.cu) into $OUT/occupancy.txt, with nvidia-smi's GPU name and
# driver in $OUT/RECORDED_ON.txt. Usage: OUT=/some/dir bash tests/gpu/record_occupancy.sh
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/occupancy_record}
CUDA=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv >"$OUT/RECORDED_ON.txt"
"$CUDA/bin/nvcc" -arch=sm_90 -o "$OUT/occupancy_probe" "$ROOT/tests/gpu/occupancy_probe.cu"
"$OUT/occupancy_probe" >"$OUT/occupancy.txt"
rm -f "$OUT/occupancy_probe"
