#!/bin/bash
# emu16.sh - the survey's ptxemu runs (survey.sh run with RUNNER=ptxemu) on the GPU machine's
# 16 CPU cores instead of the 2-core development machine: the device tool's run carries the
# programs as built here (pack.sh, CARRY/hb.tar.zst) and a ptxemu build (CARRY/ptx/{ptxemu,
# libcudart.so.13,libcuda.so.1}; CARRY/syslib/{libffi.so.8,libzstd.so.1} where the machine
# lacks them). 16 programs at a time, each with PTXEMU_THREADS=1 (one core each) and the
# survey's limit of TIMEOUT seconds (60); the names in CARRY/names.txt first, then
# CARRY/slow.txt, until STOP seconds. Returns $OUT/emu.tar.gz (survey.sh's output folder:
# NAME.out, survey.txt, times.txt) and $OUT/log.txt.
#
# The run of 2026-11-28 (issue 26): STOP=430 bash .dev/i26c/hecbench/emu16.sh .dev/i26c
# Third pass (issue 26, 2026-11-29): JOBS=16 TIMEOUT=60 STOP=110 bash .dev/i26k/hecbench/emu16.sh .dev/i26k
# The 62 too slow at 4ff5fa0 with a longer limit, on 32 cores (2026-11-29, fourth pass):
#     JOBS=32 TIMEOUT=200 STOP=470 bash .dev/lead/slow/hecbench/emu16.sh .dev/lead/slow
c=${1:?carry folder}
stop=${STOP:-430}
t0=$(date +%s)
# shellcheck source=tests/hecbench/device_setup.sh
. "$(dirname "$0")/device_setup.sh"
P=$PWD/$c/ptx/ptxemu
"$P" --version 2>&1 | head -2
# shellcheck disable=SC2046  # the names
PTXEMU_THREADS=1 RUNNER=$P TIMEOUT=${TIMEOUT:-60} JOBS=${JOBS:-16} \
    setsid bash "$c/hecbench/survey.sh" run /tmp/hb /tmp/emu $(cat "$c/names.txt" "$c/slow.txt" 2>/dev/null) >/tmp/emu-survey.txt &
pid=$!
mkdir -p /tmp/emu
while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - t0 )) -lt "$stop" ]; do sleep 2; done
kill -- -$pid 2>/dev/null && echo "stopped at $(( $(date +%s) - t0 )) s"
sleep 1
cp /tmp/emu-survey.txt /tmp/emu/survey.txt
echo "$(wc -l </tmp/emu/survey.txt) verdicts"; cut -d' ' -f2 /tmp/emu/survey.txt | sort | uniq -c
tar -C /tmp -czf "$OUT/emu.tar.gz" emu
echo "done at $(( $(date +%s) - t0 )) s"
