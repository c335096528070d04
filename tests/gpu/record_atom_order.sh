#!/bin/bash
# record_atom_order.sh - on the GPU machine (the device tool, issue 26, 2026-11-29): runs
# tests/gpu/atom_order_probe.cu twice and the debug copy of HeCBench's sheath
# (tests/hecbench/sheath_debug.py) three times to step 1000, with particle hashes to step 300.
# Both were built on the 2-core machine with nvcc 13.0.88, -O3 -std=c++17 -arch=sm_90 (sheath's
# Makefile at ARCH=sm_90; the default static runtime) and carried to the GPU machine in DIR:
#   nvcc -O3 -std=c++17 -arch=sm_90 tests/gpu/atom_order_probe.cu -o DIR/probe
#   tests/hecbench/sheath_debug.py $HECBENCH/src/sheath-cuda/main.cu /tmp/dbg.cu
#   nvcc -O3 -std=c++17 -Xcompiler -Wall -arch=sm_90 /tmp/dbg.cu -o DIR/dbg
# Writes $OUT/res.tgz: o/gpu.txt (GPU name, driver, nvcc), o/p1 and o/p2 (probe.txt; p1 keeps
# atom_old.bin and rank.bin), o/gpuN.txt (the debug logs) and o/outN.txt (sheath's own lines).
# With "main" after DIR (a second call): sheath's own binary, the survey's build, DIR/main, five
# runs one after another, to $OUT/res2.tgz (o2/runN.out with exit=STATUS).
# What came back, and what it shows: tests/gpu/atom_order_h200.txt.
# Usage (the device tool runs it in the repository root): bash tests/gpu/record_atom_order.sh DIR [main]
d=$(cd "${1:?carry folder with probe and dbg}" && pwd)
if [ "${2:-}" = main ]; then
    o=/tmp/o2; mkdir -p $o
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/gpu.txt
    for r in 1 2 3 4 5; do (cd $o && "$d/main" > run$r.out 2>&1; echo "exit=$?" >> run$r.out); done
    cd /tmp && tar czf "$OUT/res2.tgz" o2; for r in 1 2 3 4 5; do grep ^TS o2/run$r.out | md5sum; done
    cat o2/gpu.txt; exit 0
fi
o=/tmp/o; mkdir -p $o/p1 $o/p2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $o/gpu.txt
nvcc --version | tail -2 >> $o/gpu.txt
t0=$(date +%s)
(cd $o/p1 && "$d/probe" . > probe.txt 2>&1)
(cd $o/p2 && "$d/probe" . > probe.txt 2>&1; rm -f ./*.bin)
for r in 1 2 3; do (cd $o && "$d/dbg" gpu$r.txt 300 > out$r.txt 2>&1); echo "run $r $(( $(date +%s) - t0 )) s"; done
cd /tmp && tar czf "$OUT/res.tgz" o && ls -la "$OUT"; md5sum o/gpu*.txt o/out*.txt; cat o/gpu.txt
