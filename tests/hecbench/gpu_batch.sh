#!/bin/bash
# gpu_batch.sh - the command given to the GPU machine (the `device` tool's run) for one batch of
# the survey's programs: unpacks the programs built on the ptxemu machine (tests/hecbench/pack.sh,
# CARRY/hb.tar.zst; a zstd in CARRY/bin where the machine has none), records their runs with
# tests/hecbench/record_gpu.sh (its copy in CARRY/hecbench) until STOP seconds, and returns
# the outputs as $OUT/gpu.tar.gz with the log as $OUT/log.txt. tests/hecbench/import_gpu.sh then
# makes tests/expected/hecbench/ of them.
#
# The recording of 2026-11-28: the 464 programs built here, in two batches of 232 (the device
# tool carries at most 64 MiB), each as
#   STOP=170|230 RUNS=3 JOBS=16 TIMEOUT=20 bash .dev/i26a|b/gpu_batch.sh .dev/i26a|b
# (run 1 complete for every program; runs 2 and 3 as far as the deadline let them).
#
# Usage: gpu_batch.sh CARRY   (CARRY/names.txt: the programs, one a line)
c=${1:?carry folder}
stop=${STOP:-70}
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
command -v zstd >/dev/null || export PATH=$PWD/$c/bin:$PATH
mkdir -p /tmp/hb && zstd -dc "$c/hb.tar.zst" | tar -xf - -C /tmp/hb || exit 1
echo "unpacked at $(( $(date +%s) - t0 )) s; $(nproc) CPUs"
# shellcheck disable=SC2046  # the names
DEADLINE=0 RUNS=${RUNS:-1} JOBS=${JOBS:-16} TIMEOUT=${TIMEOUT:-20} \
    setsid bash "$c/hecbench/record_gpu.sh" /tmp/hb /tmp/gpu $(cat "$c/names.txt") &
pid=$!
while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - t0 )) -lt "$stop" ]; do sleep 1; done
kill -- -$pid 2>/dev/null && echo "stopped at $(( $(date +%s) - t0 )) s"
sleep 1
echo "$(ls /tmp/gpu/run1/*.out 2>/dev/null | wc -l) outputs"
tar -C /tmp -czf "$OUT/gpu.tar.gz" gpu
echo "done at $(( $(date +%s) - t0 )) s"
