#!/bin/bash
# record_16core.sh - bench/run.sh on another machine (the GPU machine's 16 cores, through the
# device tool) with the programs and the ptxemu build carried from the development machine,
# so that the machine that measures spends no time building. Results go to $OUT: bench.txt
# (the tables), lscpu.txt, log.txt and raw.tgz (every run's stdout and stderr: on the
# development machine `BENCH_REPORT_ONLY=1 PTXEMU_THREADS=16 BENCH_THREADS="1 2 4 8 16"
# BENCH_OUT=DIR bench/run.sh` prints the tables again from them).
#
# The carry folder C (argument 1, relative to the checkout the device tool sends) holds:
#   C/run.sh C/ref.c C/maxrss.c     bench/'s files
#   C/bin/{vectorAdd,saxpy,matrixMul,reduction,wmmaGemm,ref}
#                                   the programs (nvcc -arch=sm_90 --cudart shared -O2) and
#                                   a reference built with -fopenmp, used if cc there fails
#   C/ptx/{ptxemu,libcudart.so.13,libcuda.so.1}
#                                   the launcher and libraries of a build (the launcher finds
#                                   the libraries beside itself)
#   C/syslib/{libffi.so.8,libzstd.so.1,libgomp.so.1}
#                                   used only where the machine lacks them
# Environment: LIMIT (seconds for bench/run.sh, default 190), THREADS (default "1 2 4 8
#   16"), NW (N, default 16), BENCH_ONLY.
c=${1:-.dev/helper8}
t0=$(date +%s)
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"; nproc; uname -r; grep PRETTY /etc/os-release; cc --version | head -1
lscpu >"$OUT/lscpu.txt"; grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|MHz|L3' "$OUT/lscpu.txt"
cat /proc/loadavg
for l in libffi.so.8 libzstd.so.1 libgomp.so.1; do
    ldconfig -p | grep -q "$l" || { echo "no $l: using the carried one"; export LD_LIBRARY_PATH=$PWD/$c/syslib; }
done
B=/tmp/bo; mkdir -p $B /tmp/bench && cp "$c"/bin/* $B/ && cp "$c"/run.sh "$c"/ref.c "$c"/maxrss.c /tmp/bench/
# the reference built by this machine's compiler, as the compiled tier's kernels are
cc -std=gnu11 -O2 -fopenmp -o $B/ref "$c"/ref.c && echo "ref built here" || echo "ref: the carried build"
P=$PWD/$c/ptx/ptxemu
PTXEMU_THREADS=16 PTXEMU_STATS=1 "$P" $B/vectorAdd --warmup 0 ||
    { echo "ptxemu does not run"; ldd "$c"/ptx/libcuda.so.1; exit 1; }
echo "== bench at $(( $(date +%s) - t0 )) s"
BENCH_BUILD=0 BENCH_TOOLS=0 BENCH_WARMUP=1 BENCH_THREADS="${THREADS:-1 2 4 8 16}" PTXEMU_THREADS=${NW:-16} \
  PTXEMU=$P BENCH_OUT=$B timeout "${LIMIT:-190}" bash /tmp/bench/run.sh >"$OUT/bench.txt" 2>&1
echo "bench rc=$? at $(( $(date +%s) - t0 )) s"
cat "$OUT/bench.txt"
cat /proc/loadavg
(cd $B && tar czf "$OUT/raw.tgz" --exclude='jit' ./*.out ./*.err ref.*.txt machine.txt)
echo "done at $(( $(date +%s) - t0 )) s"
