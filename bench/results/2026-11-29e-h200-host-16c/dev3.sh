#!/bin/bash
# lead, fifth session: bench/run.sh on the GPU machine's 16 cores, main 249cb74 (merged
# i22page, i22hec, i22const, i22tc) as "new" against 28774ba as "base", base run twice
# (before and after new) to show the machine's drift; then scan at full size, auto tier.
c=.dev/lead
t0=$(date +%s)
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
PTXEMU_THREADS=16 $P /tmp/bo-new/vectorAdd --warmup 0 || { echo "ptxemu does not run"; exit 1; }
bench() {  # name ptxemu out threads timeout
  BENCH_BUILD=0 BENCH_TOOLS=0 BENCH_WARMUP=2 BENCH_THREADS="$4" PTXEMU_THREADS=16 \
    PTXEMU=$2 BENCH_OUT=$3 timeout $5 bash /tmp/bench/run.sh >"$OUT/bench-$1.txt" 2>&1
  echo "bench $1 rc=$? at $(( $(date +%s) - t0 )) s"; cat /proc/loadavg
}
bench base1 $Q /tmp/bo-base "" 120
bench new $P /tmp/bo-new "1 4 16" 220
bench base2 $Q /tmp/bo-base "" 120
cd /tmp
for v in "base-auto $Q auto" "new-auto $P auto"; do
    set -- $v
    s=$(date +%s%N)
    PTXEMU_THREADS=16 PTXEMU_TIER=$3 PTXEMU_JIT_CACHE=/tmp/jc-$1 timeout 60 $2 $OLDPWD/$c/bin/scan >/tmp/$1.out 2>&1
    rc=$?; e=$(date +%s%N)
    echo "scan $1: rc=$rc ms=$(( (e - s) / 1000000 )) $(grep -v -i 'time\|throughput\|GB/s\|ptxemu' /tmp/$1.out | md5sum)"
done
cd "$OLDPWD"
for f in base1 new base2; do echo "==== $f"; sed -n '/^2\. both/,$p' "$OUT/bench-$f.txt"; done
echo "done at $(( $(date +%s) - t0 )) s"
