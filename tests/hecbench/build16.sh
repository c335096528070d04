#!/bin/bash
# build16.sh - HeCBench programs built and run on the GPU machine (the device tool's run), for a
# pass over programs without building them here first (emu16.sh runs programs pack.sh packed):
# the names in CARRY/names.txt are built there from CARRY/src.tar (a HeCBench checkout's
# src/NAME-cuda folders and src/include) with survey.sh build, 16 at a time, then run under the
# carried ptxemu (CARRY/ptx/{ptxemu,libcudart.so.13,libcuda.so.1,libptxemu-jit.so}; CARRY/syslib
# where the machine lacks libffi or libzstd) with PTXEMU_THREADS=1, 16 at a time, TIMEOUT (60) s
# each, until STOP seconds. Returns $OUT/emu.tar.gz (NAME.out, survey.txt, times.txt),
# build.txt and log.txt; compare.sh then compares with the H200's recordings.
# Sixth pass (issue 26, 2026-11-29; bench/results/2026-11-29f-h200-hecbench6):
#     C=.dev/lead/hb6 STOP=540 bash .dev/lead/hb6/hecbench/build16.sh
c=${C:-.dev/lead/hb6}
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine: $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for l in libffi.so.8 libzstd.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
mkdir -p /tmp/hb && tar -xf "$c/src.tar" -C /tmp/hb || exit 1
export PATH=/usr/local/cuda/bin:$PATH
JOBS=16 bash "$c/hecbench/survey.sh" build /tmp/hb /tmp/build $(cat $c/names.txt) > "$OUT/build.txt" 2>&1
echo "built at $(( $(date +%s) - t0 )) s: $(grep -c ' built' "$OUT/build.txt") built"
P=$PWD/$c/ptx/ptxemu
"$P" --version 2>&1 | head -2
PTXEMU_THREADS=1 RUNNER=$P TIMEOUT=${TIMEOUT:-60} JOBS=16 \
    setsid bash "$c/hecbench/survey.sh" run /tmp/hb /tmp/emu $(cat $c/names.txt) >/tmp/emu-survey.txt 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - t0 )) -lt "${STOP:-420}" ]; do sleep 2; done
kill -- -$pid 2>/dev/null && echo "stopped at $(( $(date +%s) - t0 )) s"
sleep 1
mkdir -p /tmp/emu && cp /tmp/emu-survey.txt /tmp/emu/survey.txt
tar -czf "$OUT/emu.tar.gz" -C /tmp emu
echo "done at $(( $(date +%s) - t0 )) s"
