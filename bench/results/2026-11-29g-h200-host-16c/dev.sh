#!/bin/bash
# run 1 of the seventh lease: the bench programs built here (nvcc), bench/record_16core.sh, and
# the GPU's run of the new PTX test(s) (tests/gpu/record_ptx.sh)
c=.dev/lead/b7
mkdir -p $c/bin
for b in vectorAdd saxpy matrixMul reduction wmmaGemm; do
    /usr/local/cuda/bin/nvcc -arch=sm_90 --cudart shared -O2 -Ibench -o $c/bin/$b bench/$b.cu &
done
OUT=$OUT/ptx-record bash tests/gpu/record_ptx.sh ${PTX_NEW:-if_join} &
wait
cc -std=gnu11 -O2 -fopenmp -o $c/bin/ref bench/ref.c
cp bench/run.sh bench/ref.c bench/maxrss.c $c/
LIMIT=${LIMIT:-300} bash bench/record_16core.sh $c
