#!/bin/bash
# i22page, second lease: dev.sh's measurements again with the branch's final build ("new":
# huge-page advice, CTAs handed out in batches, the per-CTA special-register rows stored two
# lanes at a time, warp and CTA records cleared by the C library's memset) and the same
# build with batches of one CTA ("nobatch": HAND_MAX 1 in emu/sched.c), against main at
# 28774ba ("base"), to tell the batches' share from the rest. Rounds alternate the builds.
c=${1:-.dev/i22page}
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; nproc; uname -r; lscpu | grep -E 'Model name|^CPU\(s\)'; cat /proc/loadavg
for l in libffi.so.8 libzstd.so.1 libgomp.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
B=/tmp/bo; mkdir -p $B && cp $c/bin/* $B/
cc -std=gnu11 -O2 -fopenmp -o $B/ref $c/ref.c && cc -std=gnu11 -O2 -o $B/maxrss $c/maxrss.c || exit 1
export PTXEMU_TIER=compiled
one() {   # program version workers warmup [env...]: one line of results
    local lab=$1 v=$2 w=$3 wu=$4; shift 4
    local o; o=$(env "$@" PTXEMU_THREADS=$w $B/maxrss $PWD/$c/$v/ptxemu $B/$lab --warmup $wu 2>&1)
    echo "$lab $v w=$w warmup=$wu $* | $(echo "$o" | grep -o 'kernel_seconds=[0-9.]*\|check=[a-z]*\|user_s=[0-9.]*\|sys_s=[0-9.]*\|minflt=[0-9]*\|maxrss_kb=[0-9]*' | tr '\n' ' ')"
}
V="base new nobatch"
for p in vectorAdd saxpy matrixMul; do one $p new 16 0 >/dev/null; done   # the JIT cache
echo "== steady (second launch) at $(( $(date +%s) - t0 )) s"
for r in $(seq ${ROUNDS:-3}); do for p in vectorAdd saxpy matrixMul; do for w in 16 1; do for v in $V; do
    one $p $v $w 1
done; done; done; done
echo "== first launch at $(( $(date +%s) - t0 )) s"
for r in 1 2; do for v in $V; do one vectorAdd $v 16 0; one vectorAdd $v 16 0 PTXEMU_HUGEPAGES=0; done; done
echo "== native at $(( $(date +%s) - t0 )) s"
for t in 1 16; do echo "ref threads=$t"; OMP_NUM_THREADS=$t $B/ref; done
cat /proc/loadavg
echo "done at $(( $(date +%s) - t0 )) s"
