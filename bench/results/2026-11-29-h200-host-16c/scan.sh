#!/bin/bash
c=.dev/lead; P=$PWD/$c/ptx/ptxemu; Q=$PWD/$c/base/ptxemu
for l in libffi.so.8 libzstd.so.1; do ldconfig -p | grep -q "$l" || export LD_LIBRARY_PATH=$PWD/$c/syslib; done
mkdir -p /tmp/sc2; cd /tmp/sc2; cat /proc/loadavg
for v in "base-auto $Q auto" "main-auto $P auto" "main-compiled $P compiled" "main-interp $P interp"; do
    set -- $v
    s=$(date +%s%N)
    PTXEMU_THREADS=16 PTXEMU_TIER=$3 PTXEMU_JIT_CACHE=/tmp/sc2/jc-$1 timeout 90 $2 $OLDPWD/$c/bin/scan >/tmp/sc2/$1.out 2>&1
    rc=$?; e=$(date +%s%N)
    echo "scan $1: rc=$rc ms=$(( (e - s) / 1000000 )) $(grep -v -i 'time\|throughput\|GB/s\|ptxemu' /tmp/sc2/$1.out | md5sum)"
done
