#!/bin/bash
# The eighth lease, call 1: the bench programs built here (nvcc), bench/record_16core.sh at 1
# and 16 workers, then the cuda-samples survey on 16 cores started (survey16.sh), waited for
# as long as this call has left. Later calls: poll16.sh.
c=.dev/lead/b8
mkdir -p $c/bin $OUT/bench
for b in vectorAdd saxpy matrixMul reduction wmmaGemm; do
    /usr/local/cuda/bin/nvcc -arch=sm_90 --cudart shared -O2 -Ibench -o $c/bin/$b bench/$b.cu &
done
[ -n "${PTX_NEW:-}" ] && OUT=$OUT/ptx-record bash tests/gpu/record_ptx.sh $PTX_NEW &
for j in $(jobs -p); do wait $j; done
cc -std=gnu11 -O2 -fopenmp -o $c/bin/ref bench/ref.c
cp bench/run.sh bench/ref.c bench/maxrss.c $c/
OUT=$OUT/bench LIMIT=${LIMIT:-170} THREADS="1 16" BENCH_TOOLS=0 bash bench/record_16core.sh $c </dev/null
LIMIT=${SLIMIT:-300} bash $c/survey16.sh
