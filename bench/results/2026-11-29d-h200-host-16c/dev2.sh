#!/bin/bash
# lead: bench/run.sh on the GPU machine's 16 cores, main (merged i22g, i22h, i26*, lead-det) vs e4b1a49 (base), + scan
c=.dev/lead
t0=$(date +%s)
el() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; nproc; grep PRETTY /etc/os-release; cc --version | head -1
lscpu >"$OUT/lscpu.txt"; grep -E 'Model name|^CPU\(s\)' "$OUT/lscpu.txt"; cat /proc/loadavg
for l in libffi.so.8 libzstd.so.1 libgomp.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
mkdir -p /tmp/bench && cp $c/run.sh $c/ref.c $c/maxrss.c /tmp/bench/
P=$PWD/$c/ptx/ptxemu; Q=$PWD/$c/base/ptxemu
for v in new base; do
  B=/tmp/bo-$v; mkdir -p $B && cp $c/bin/* $B/
  cc -std=gnu11 -O2 -fopenmp -o $B/ref $c/ref.c
done
PTXEMU_THREADS=16 PTXEMU_STATS=1 $P /tmp/bo-new/vectorAdd --warmup 0 || { echo "ptxemu does not run"; exit 1; }
echo "== bench new at $(( $(date +%s) - t0 )) s"
BENCH_BUILD=0 BENCH_TOOLS=0 BENCH_WARMUP=1 PTXEMU_THREADS=16 \
  PTXEMU=$Q BENCH_OUT=/tmp/bo-base timeout 120 bash /tmp/bench/run.sh >"$OUT/bench-base.txt" 2>&1
echo "bench base rc=$? at $(( $(date +%s) - t0 )) s"
BENCH_BUILD=0 BENCH_TOOLS=0 BENCH_WARMUP=1 BENCH_THREADS="1 4 16" PTXEMU_THREADS=16 \
  PTXEMU=$P BENCH_OUT=/tmp/bo-new timeout 200 bash /tmp/bench/run.sh >"$OUT/bench-new.txt" 2>&1
echo "bench new rc=$? at $(( $(date +%s) - t0 )) s"
cat "$OUT/bench-new.txt"; echo "==== base"; cat "$OUT/bench-base.txt"
echo "done"
