#!/bin/bash
# record_sink_store.sh - on the GPU machine (the device tool, issue 26): builds and runs
# tests/cuda/store_conflict.cu and tests/cuda/fma_contract_sink.cu twice each with the flags of
# tests/gpu/record_cuda.sh, and keeps the SASS of fma_contract_sink (what ptxas fused). Writes
# $OUT/r.tgz: gpu.txt (GPU name and driver), NAME.runN.out (stdout + exit=STATUS), sink.sass.
# Copy NAME.run1.out to tests/expected/cuda/NAME.0.out when the two runs agree.
# Usage (the device tool runs it in the repository root): bash tests/gpu/record_sink_store.sh
set -u
src=$PWD/tests/cuda
o=$OUT/r
mkdir -p "$o"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv >"$o/gpu.txt"
for p in store_conflict fma_contract_sink; do
    (cd "$src" && nvcc -arch=sm_90 --cudart shared -O2 -lineinfo "$p.cu" -o "/tmp/$p") 2>>"$o/build.err"
    for i in 1 2; do
        "/tmp/$p" >"$o/$p.run$i.out" 2>"$o/$p.run$i.err"
        echo "exit=$?" >>"$o/$p.run$i.out"
    done
done
cuobjdump -sass /tmp/fma_contract_sink >"$o/sink.sass" 2>&1
cd "$OUT" && tar czf r.tgz r && rm -rf r
