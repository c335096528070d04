#!/bin/bash
# i22page: main at 28774ba ("base") against branch i22page ("new": huge-page advice on the
# arena, CTAs handed out in batches, vectorised per-CTA special-register rows) on the GPU
# machine's 16 cores, through the device tool, in one lease. Compiled tier. For each of
# vectorAdd, saxpy and matrixMul (bench/ programs built by nvcc -arch=sm_90 on the
# development machine), workers 1 and 16, base and new alternate, two rounds; each run is
# `maxrss ptxemu PROG --warmup 1` (the second launch is timed; maxrss adds CPU seconds and
# minor page faults). Then the first launch (--warmup 0) of vectorAdd on 16 workers under
# base, new and new with PTXEMU_HUGEPAGES=0, two rounds; then bench/ref.c (OpenMP) on 1 and
# 16 threads as the native baseline. Carry folder C (.dev/i22page): base/ and new/ (ptxemu,
# libcuda.so.1, libcudart.so.13, libptxemu-jit.so), bin/, ref.c, maxrss.c, syslib/.
c=${1:-.dev/i22page}
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; nproc; uname -r; grep PRETTY /etc/os-release; cc --version | head -1
lscpu | grep -E 'Model name|^CPU\(s\)|NUMA node\(s\)'; cat /proc/loadavg
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
for l in libffi.so.8 libzstd.so.1 libgomp.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
B=/tmp/bo; mkdir -p $B && cp $c/bin/* $B/
cc -std=gnu11 -O2 -fopenmp -o $B/ref $c/ref.c && cc -std=gnu11 -O2 -o $B/maxrss $c/maxrss.c || exit 1
export PTXEMU_TIER=compiled
one() {   # label version workers warmup [env...]: one line of results
    local lab=$1 v=$2 w=$3 wu=$4; shift 4
    local o; o=$(env "$@" PTXEMU_THREADS=$w $B/maxrss $PWD/$c/$v/ptxemu $B/$lab --warmup $wu 2>&1)
    echo "$lab $v w=$w warmup=$wu $* | $(echo "$o" | grep -o 'kernel_seconds=[0-9.]*\|check=[a-z]*\|user_s=[0-9.]*\|sys_s=[0-9.]*\|minflt=[0-9]*\|maxrss_kb=[0-9]*' | tr '\n' ' ')"
}
# fill each build's JIT cache (its kernels' C compiled once) before anything is timed
for v in base new; do for p in vectorAdd saxpy matrixMul; do one $p $v 16 0 >/dev/null; done; done
echo "== steady (second launch) at $(( $(date +%s) - t0 )) s"
for r in $(seq ${ROUNDS:-2}); do for p in vectorAdd saxpy matrixMul; do for w in 1 16; do for v in base new; do
    one $p $v $w 1
done; done; done; done
echo "== first launch at $(( $(date +%s) - t0 )) s"
for r in 1 2; do
    one vectorAdd base 16 0; one vectorAdd new 16 0; one vectorAdd new 16 0 PTXEMU_HUGEPAGES=0
    one saxpy base 16 0; one saxpy new 16 0
done
echo "== native at $(( $(date +%s) - t0 )) s"
for t in 1 16; do echo "ref threads=$t"; OMP_NUM_THREADS=$t $B/ref; done
cat /proc/loadavg
echo "done at $(( $(date +%s) - t0 )) s"
