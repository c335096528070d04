#!/bin/bash
# build_batch.sh - builds, on a machine with nvcc 13 and no GPU, the programs that
# record_batch1.sh and record_batch2.sh run on the GPU machine, into DIR (which the device
# call carries): the MUFU probes (tests/gpu/mufu/), the recorded tests of tests/cuda (with
# run_cuda_tests.sh's flags), the performance lessons and the time-limit probe.
# Usage: tests/gpu/build_batch.sh DIR   (from the top of a built tree: it links emu/sfu.c)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${1:?usage: build_batch.sh DIR}" && cd "$1" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_LIB=$(dirname "$NVCC")/../lib64
cd "$top"
"$NVCC" -arch=sm_90 -cubin -O3 -o "$out/mufu.cubin" tests/gpu/mufu/mufu_kernels.cu
# sfu3_probe checks emu/sfu.c on the GPU machine: the model and its tables link in (zstd static)
gcc -O2 -I. -c -o "$out/sfu.o" emu/sfu.c
gcc -I. -c -o "$out/sfu_blob.o" emu/sfu_blob.S
"$NVCC" -O2 -arch=sm_90 -o "$out/sfu3_probe" tests/gpu/mufu/sfu3_probe.cu "$out/sfu.o" "$out/sfu_blob.o" \
    "$(gcc -print-file-name=libzstd.a)" -lcuda -L"$CUDA_LIB/stubs"
"$NVCC" -O2 -std=c++17 -arch=sm_90 -o "$out/sfu4_probe" tests/gpu/mufu/sfu4_probe.cu -lcuda -L"$CUDA_LIB/stubs"
for t in wmma_wide fma_contract_async fma_contract_fence sfu_exact2; do
    (cd tests/cuda && "$NVCC" -arch=sm_90 --cudart shared -O2 -lineinfo -o "$out/$t" "$t.cu")
done
"$NVCC" -arch=sm_90 -O2 -o "$out/lessons" tests/perf/lessons.cu
"$NVCC" -arch=sm_90 -O2 -o "$out/timeout_probe" tests/gpu/timeout_probe.cu
rm -f "$out/sfu.o" "$out/sfu_blob.o"
