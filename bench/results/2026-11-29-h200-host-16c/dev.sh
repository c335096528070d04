#!/bin/bash
# lead: bench/run.sh on the GPU machine's 16 cores (main 2afbb86) + scan under main and e6aae55
c=.dev/lead
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; nproc; grep PRETTY /etc/os-release; cc --version | head -1
lscpu >"$OUT/lscpu.txt"; grep -E 'Model name|^CPU\(s\)' "$OUT/lscpu.txt"; cat /proc/loadavg
for l in libffi.so.8 libzstd.so.1 libgomp.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
B=/tmp/bo; mkdir -p $B /tmp/bench && cp $c/bin/* $B/ && cp $c/run.sh $c/ref.c $c/maxrss.c /tmp/bench/
cc -std=gnu11 -O2 -fopenmp -o $B/ref $c/ref.c && echo "ref built here"
P=$PWD/$c/ptx/ptxemu; Q=$PWD/$c/base/ptxemu
PTXEMU_THREADS=16 PTXEMU_STATS=1 $P $B/vectorAdd --warmup 0 || { echo "ptxemu does not run"; exit 1; }
echo "== bench at $(( $(date +%s) - t0 )) s"
BENCH_BUILD=0 BENCH_TOOLS=0 BENCH_WARMUP=1 BENCH_THREADS="1 2 4 8 16" PTXEMU_THREADS=16 \
  PTXEMU=$P BENCH_OUT=$B timeout 200 bash /tmp/bench/run.sh >"$OUT/bench.txt" 2>&1
echo "bench rc=$? at $(( $(date +%s) - t0 )) s"
cat "$OUT/bench.txt"
echo "== scan, 16 workers"
mkdir -p /tmp/sc; cd /tmp/sc
for v in "main-auto $P auto" "main-compiled $P compiled" "base-auto $Q auto"; do
    set -- $v
    s=$(date +%s.%N)
    PTXEMU_THREADS=16 PTXEMU_TIER=$3 PTXEMU_JIT_CACHE=/tmp/sc/jc-$1 timeout 90 $2 $B/scan >/tmp/sc/$1.out 2>&1
    rc=$?; e=$(date +%s.%N)
    echo "scan $1: rc=$rc seconds=$(echo "$e - $s" | bc)"
done
for f in /tmp/sc/*.out; do echo "$f: $(grep -v -i 'time\|throughput\|GB/s\|ptxemu' $f | md5sum)"; done
tail -5 /tmp/sc/main-compiled.out
(cd $B && tar czf "$OUT/raw.tgz" --exclude='jit' *.out *.err ref.*.txt machine.txt /tmp/sc/*.out 2>/dev/null)
echo "done at $(( $(date +%s) - t0 )) s"
