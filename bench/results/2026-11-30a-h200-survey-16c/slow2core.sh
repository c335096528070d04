#!/bin/bash
# The command of the lease's last call (on the GPU machine, after survey16.sh, the samples
# still extracted in /tmp/cs): the five slow samples at full size under the compiled tier,
# side by side, each on 2 cores of its own (taskset) with 2 workers, cut at 500 s.
export LD_LIBRARY_PATH=$PWD/.dev/lead/b8/syslib; i=0
for s in scan globalToShmemAsyncCopy cudaTensorCoreGemm simpleAttributes UnifiedMemoryPerf; do
    c0=$((2*i+2))
    (PTXEMU=$PWD/.dev/lead/b8/ptx/ptxemu BENCH_OUT=/tmp/slow-$s BENCH_SLOW_FULL=1 BENCH_SLOW_TIERS=compiled \
     BENCH_SLOW_TIMEOUT=500 PTXEMU_THREADS=2 taskset -c $c0,$((c0+1)) bash bench/slow.sh /tmp/cs/cuda-samples $s \
     > $OUT/slow-$s.txt 2>&1) &
    i=$((i+1))
done
wait
