#!/bin/bash
# both16.sh - one device call that does both sides of the survey for a batch of programs at once:
# the GPU's recording (record_gpu.sh, as gpu_batch.sh runs it) and the ptxemu runs on the GPU
# machine's CPU cores (survey.sh run with RUNNER=ptxemu, as emu16.sh runs them), side by side,
# so that one machine start serves both. CARRY/hb.tar.zst (pack.sh), CARRY/ptx/{ptxemu,
# libcudart.so.13,libcuda.so.1,libptxemu-jit.so} (a build of main), CARRY/hecbench (this
# folder), CARRY/bin/zstd and CARRY/syslib where the machine lacks them. CARRY/gpu.txt: the
# programs the GPU records (RUNS times each, GJOBS at a time, GTIMEOUT seconds each);
# CARRY/emu.txt: the programs ptxemu runs (EJOBS at a time, one core and TIMEOUT seconds each,
# 60 as the survey's limit). Both stop at STOP seconds. Returns $OUT/gpu.tar.gz (record_gpu.sh's
# OUTDIR), $OUT/emu.tar.gz (survey.sh run's output folder) and $OUT/log.txt.
# Where there is one, CARRY/long.txt: programs too slow for the survey's limit at sizes fixed in
# their sources, run by ptxemu beside the others on the cores they leave (LJOBS at a time, one
# core and LTIMEOUT seconds each, 240) to learn whether they print what the GPU printed given
# more time (their verdicts stay the survey's); returned as $OUT/emu-long.tar.gz.
#
# The run of 2026-11-29 (issue 26, second pass): STOP=380 bash .dev/i26f/hecbench/both16.sh .dev/i26f
# Third pass (issue 26, 2026-11-29): GJOBS=5 RUNS=2 EJOBS=4 LJOBS=11 LTIMEOUT=120 STOP=250 \
#     bash .dev/i26k/hecbench/both16.sh .dev/i26k
# Fourth pass (issue 26, 2026-11-29, main 2a1398b; the 62 too slow as emu.txt, sheath as gpu.txt):
#     GJOBS=1 RUNS=3 GTIMEOUT=60 EJOBS=15 TIMEOUT=60 STOP=420 bash .dev/lead/slow/hecbench/both16.sh .dev/lead/slow
c=${1:?carry folder}
stop=${STOP:-380}
t0=$(date +%s)
# shellcheck source=tests/hecbench/device_setup.sh
. "$(dirname "$0")/device_setup.sh"
mkdir -p /tmp/emu
P=$PWD/$c/ptx/ptxemu
"$P" --version 2>&1 | head -1
# shellcheck disable=SC2046  # the names
DEADLINE=0 RUNS=${RUNS:-3} JOBS=${GJOBS:-6} TIMEOUT=${GTIMEOUT:-60} \
    setsid bash "$c/hecbench/record_gpu.sh" /tmp/hb /tmp/gpu $(cat "$c/gpu.txt") >/tmp/gpu-log.txt 2>&1 &
gpid=$!
# shellcheck disable=SC2046  # the names
PTXEMU_THREADS=1 RUNNER=$P TIMEOUT=${TIMEOUT:-60} JOBS=${EJOBS:-12} \
    setsid bash "$c/hecbench/survey.sh" run /tmp/hb /tmp/emu $(cat "$c/emu.txt") >/tmp/emu-survey.txt &
epid=$!
lpid=
if [ -s "$c/long.txt" ]; then
    # shellcheck disable=SC2046  # the names
    PTXEMU_THREADS=1 RUNNER=$P TIMEOUT=${LTIMEOUT:-240} JOBS=${LJOBS:-8} \
        setsid bash "$c/hecbench/survey.sh" run /tmp/hb /tmp/emu-long $(cat "$c/long.txt") >/tmp/emu-long-survey.txt &
    lpid=$!
fi
while { kill -0 $gpid 2>/dev/null || kill -0 $epid 2>/dev/null || { [ -n "$lpid" ] && kill -0 "$lpid" 2>/dev/null; }; } &&
      [ $(( $(date +%s) - t0 )) -lt "$stop" ]; do
    sleep 2
done
for p in $gpid $epid $lpid; do kill -- -"$p" 2>/dev/null && echo "stopped $p at $(( $(date +%s) - t0 )) s"; done
sleep 1
cat /tmp/gpu-log.txt
cp /tmp/emu-survey.txt /tmp/emu/survey.txt
echo "gpu: $(ls /tmp/gpu/run1/*.out 2>/dev/null | wc -l) outputs in run 1, $(ls /tmp/gpu/run2/*.out 2>/dev/null | wc -l) in run 2, $(ls /tmp/gpu/run3/*.out 2>/dev/null | wc -l) in run 3"
echo "emu: $(wc -l </tmp/emu/survey.txt) verdicts"; cut -d' ' -f2 /tmp/emu/survey.txt | sort | uniq -c
tar -C /tmp -czf "$OUT/gpu.tar.gz" gpu
tar -C /tmp -czf "$OUT/emu.tar.gz" emu
if [ -n "$lpid" ]; then
    cp /tmp/emu-long-survey.txt /tmp/emu-long/survey.txt
    echo "emu, longer limit: $(wc -l </tmp/emu-long/survey.txt) verdicts"; cut -d' ' -f2 /tmp/emu-long/survey.txt | sort | uniq -c
    tar -C /tmp -czf "$OUT/emu-long.tar.gz" emu-long
fi
echo "done at $(( $(date +%s) - t0 )) s"
