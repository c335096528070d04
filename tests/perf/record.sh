#!/bin/bash
# record.sh - on a machine with an H100: builds probes.cu and records the median time of each
# probe kernel at the sizes the test uses, with the GPU's name and driver.
# Usage: tests/perf/record.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: record.sh OUTDIR}
mkdir -p "$out"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$NVCC" -arch=sm_90 -O2 -o "$out/probes" "$here/probes.cu" || exit 1
{
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    "$NVCC" --version | tail -1
    echo "flags: -arch=sm_90 -O2; median of 21 launches after one warm-up, cudaEvent timing"
    date -u
} >"$out/RECORDED_ON.txt"
for n in 512 1024 4096; do "$out/probes" $n 21 >"$out/probes.$n.txt"; done
"$NVCC" -arch=sm_90 -O2 -o "$out/streams" "$here/streams.cu" || exit 1
for n in 262144 1048576; do "$out/streams" $n 21 >"$out/streams.$n.txt"; done
"$NVCC" -arch=sm_90 -O2 -o "$out/clocks" "$here/clocks.cu" || exit 1
for n in 132 528; do "$out/clocks" $n >"$out/clocks.$n.txt"; done
"$NVCC" -arch=sm_90 -O2 -o "$out/clockpace" "$here/clockpace.cu" || exit 1
"$out/clockpace" >"$out/clockpace.txt"
