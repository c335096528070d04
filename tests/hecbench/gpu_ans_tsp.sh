#!/bin/bash
# gpu_ans_tsp.sh - issue 26's third pass, on the GPU machine (the device tool's run, from the
# repository root): are ans's and tsp's outputs the same from run to run on the H200, and in
# tsp, which warp's value stays when lanes of several warps store to one shared word. CARRY
# holds the survey's executables built here (tsp: src/tsp-cuda/main, ans: src/ans-cuda/bin/main),
# tsp's input d493.tsp, and tspprobe: tsp built (make's flags) from its source with counters
# added around its `buf_s[1] = threadIdx.x; // non-deterministic winner` store (HeCBench's code
# is not kept in this tree): per iteration of its search, after the store and its barrier,
# thread 0 counts the iterations, those where more than one thread had the block's best change
# (ties), those where the tied threads were in more than one warp, and in those whether the
# value that stayed was the lowest tied warp's or the highest one's (atomicOr/atomicAdd on two
# extra shared words, which the threads that tie update right after their store).
# Writes $OUT/gpu.txt (kept as tests/hecbench/gpu_ans_tsp.txt). The run of 2026-11-29 (i26i):
# bash .dev/i26i/probe/gpu.sh, with CARRY=.dev/i26i/probe.
c=${CARRY:-.dev/i26i/probe}
cd "$c" || exit 1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "date: $(date -u +%Y-%m-%d)"
  for r in 1 2 3 4 5; do echo "== tsp run $r"; ./tsp d493.tsp 1 1; echo "exit=$?"; done
  for r in 1 2 3; do echo "== tspprobe run $r"; ./tspprobe d493.tsp 1 1; echo "exit=$?"; done
  echo "== ans run 1"; ./ans 1; echo "exit=$?"
  if command -v compute-sanitizer >/dev/null; then
    echo "== compute-sanitizer memcheck ans 1 (first 40 lines)"
    timeout 60 compute-sanitizer --tool memcheck --show-backtrace no ./ans 1 2>&1 | head -40
  else echo "no compute-sanitizer"; fi
} > "$OUT/gpu.txt" 2>&1
