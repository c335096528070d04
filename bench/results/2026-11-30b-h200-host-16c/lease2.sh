#!/bin/bash
# The ninth lease, call 2: the course's exercise solutions (bench/course.sh, default tier,
# 3 at a time on cores 0-5, 2 each, PTXEMU_THREADS=2, 150 s) beside the five slow samples at
# full size under the default tier (auto: compile latency included), each on 2 cores of its
# own (cores 6-15), 420 s.
c=.dev/lead/b9
export LD_LIBRARY_PATH=$PWD/$c/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p /tmp/course && tar xzf $c/cts.tar.gz -C /tmp/course
[ -d /tmp/cs/cuda-samples ] || { mkdir -p /tmp/cs && tar -xzf $c/cs.tar.gz -C /tmp/cs; }
(PTXEMU=$PWD/$c/ptx/ptxemu BENCH_OUT=/tmp/course-out BENCH_COURSE_TIMEOUT=${TMO:-150} JOBS=3 PIN_CORES=1 \
    bash bench/course.sh /tmp/course/cts > $OUT/course.txt 2>&1) &
i=0
for s in scan globalToShmemAsyncCopy cudaTensorCoreGemm simpleAttributes UnifiedMemoryPerf; do
    c0=$((2*i+6))
    (PTXEMU=$PWD/$c/ptx/ptxemu BENCH_OUT=/tmp/slowauto-$s BENCH_SLOW_FULL=1 BENCH_SLOW_TIERS=auto \
     BENCH_SLOW_TIMEOUT=${STMO:-420} PTXEMU_THREADS=2 PTXEMU_JIT_CACHE=/tmp/jc-auto-$s taskset -c $c0,$((c0+1)) \
     bash bench/slow.sh /tmp/cs/cuda-samples $s > $OUT/slowauto-$s.txt 2>&1) &
    i=$((i+1))
done
wait
cat $OUT/course.txt; tail -n1 $OUT/slowauto-*.txt
(cd /tmp/course-out && tar czf $OUT/course-out.tgz *.out *.result 2>/dev/null)
