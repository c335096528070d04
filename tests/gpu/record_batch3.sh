#!/bin/bash
# record_batch3.sh - the third batch on the GPU machine: the performance lessons at the size
# the test runs (tests/perf/lessons.cu ... ci, twice) and tests/cuda/fma_contract_fence.cu
# (twice, with its SASS), a check of the contraction rules fitted on fma_contract_async.
# Binaries built beforehand (nvcc 13.0, -arch=sm_90), carried in DIR.
# Usage: record_batch3.sh DIR OUT   (outputs: tests/gpu/recorded/batch3/, tests/expected/)
D=${1:?}; O=${2:?}
W=$O/w3; mkdir -p "$W"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export PATH=$PATH:/usr/local/cuda/bin
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv; nvcc --version | tail -2; date -u; } >"$W/RECORDED_ON.txt" 2>&1
cuobjdump -sass "$D/fma_contract_fence" >"$W/sass_fma_contract_fence.txt" 2>&1
for r in 1 2; do
    "$D/fma_contract_fence" >"$W/fma_contract_fence.$r.out" 2>&1; echo "exit=$?" >>"$W/fma_contract_fence.$r.out"
    "$D/lessons" 1048576 21 ci >"$W/lessons.1048576.ci.$r.txt" 2>&1
done
cat "$W"/fma_contract_fence.1.out "$W"/lessons.1048576.ci.1.txt
