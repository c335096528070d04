#!/bin/bash
# build_warp_edges.sh - builds what tests/gpu/record_warp_edges.sh runs on the GPU machine, with
# nvcc's default static runtime (the GPU machine needs no CUDA toolkit of the same version).
# Usage: tests/gpu/build_warp_edges.sh BIN
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:?usage: build_warp_edges.sh BIN}
mkdir -p "$bin"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
f="-arch=sm_90 -O2 -lineinfo"
"$NVCC" --version | tail -n 2 | head -n 1 >"$bin/NVCC_VERSION"
(cd "$top/tests/cuda" && "$NVCC" $f -o "$bin/warp_exited" warp_exited.cu)
for p in warp_mask_probe host_race_probe printf_fifo_probe; do
    "$NVCC" $f -o "$bin/$p" "$top/tests/gpu/$p.cu"
done
for lab in 09-streams 10-warp-shuffle; do
    for v in starter solution bug_race bug_fault; do
        "$NVCC" -arch=sm_90 -lineinfo -o "$bin/$lab.$v" "$top/labs/$lab/$v.cu"
    done
done
cp "$top/tests/gpu/record_warp_edges.sh" "$bin/"
