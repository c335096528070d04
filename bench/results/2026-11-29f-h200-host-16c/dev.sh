#!/bin/bash
# the bench programs built on the GPU machine (nvcc there), then bench/record_16core.sh
c=.dev/lead/b6
mkdir -p $c/bin
for b in vectorAdd saxpy matrixMul reduction wmmaGemm; do
    /usr/local/cuda/bin/nvcc -arch=sm_90 --cudart shared -O2 -Ibench -o $c/bin/$b bench/$b.cu &
done
wait
cc -std=gnu11 -O2 -fopenmp -o $c/bin/ref bench/ref.c
ls $c/bin
LIMIT=${LIMIT:-420} bash bench/record_16core.sh $c
