#!/bin/bash
# The ninth lease, call 1: bench/record_16core.sh (1 and 16 workers, both tiers, OpenMP) with
# the new build, then the five slow samples at full size under the compiled tier, each on 2
# cores of its own (taskset, PTXEMU_THREADS=2, 420 s), side by side, with the session's base
# build (7813448) beside the new one for scan and cudaTensorCoreGemm: 7 runs on 14 cores.
c=.dev/lead/b9
export LD_LIBRARY_PATH=$PWD/$c/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p $c/bin $OUT/bench /tmp/cs
for b in vectorAdd saxpy matrixMul reduction wmmaGemm; do
    /usr/local/cuda/bin/nvcc -arch=sm_90 --cudart shared -O2 -Ibench -o $c/bin/$b bench/$b.cu &
done
tar -xzf $c/cs.tar.gz -C /tmp/cs &
wait
cc -std=gnu11 -O2 -fopenmp -o $c/bin/ref bench/ref.c
cp bench/run.sh bench/ref.c bench/maxrss.c $c/
OUT=$OUT/bench LIMIT=${LIMIT:-170} THREADS="1 16" BENCH_TOOLS=0 bash bench/record_16core.sh $c </dev/null
i=0
for s in scan globalToShmemAsyncCopy cudaTensorCoreGemm simpleAttributes UnifiedMemoryPerf scan:base cudaTensorCoreGemm:base; do
    name=${s%%:*}; build=new; [ "$s" != "$name" ] && build=base
    p=$PWD/$c/ptx/ptxemu; [ $build = base ] && p=$PWD/$c/base/ptxemu
    c0=$((2*i+2))
    (PTXEMU=$p BENCH_OUT=/tmp/slow-$name-$build BENCH_SLOW_FULL=1 BENCH_SLOW_TIERS=compiled \
     BENCH_SLOW_TIMEOUT=${STMO:-420} PTXEMU_THREADS=2 taskset -c $c0,$((c0+1)) bash bench/slow.sh /tmp/cs/cuda-samples $name \
     > $OUT/slow-$name-$build.txt 2>&1) &
    i=$((i+1))
done
wait
cat $OUT/slow-*.txt
